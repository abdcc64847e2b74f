//! The few OVSDB writes that are not NetworkManager's job, through `ovs-vsctl` (its output is
//! never parsed): clearing `ovn-remote` and deleting a stale bridge.

use std::process::Command;

/// A failed `ovs-vsctl`.
#[derive(Debug, thiserror::Error)]
#[error("ovs-vsctl {args}: {message}")]
pub struct OvsError {
    args: String,
    message: String,
}

fn vsctl(args: &[&str]) -> Result<(), OvsError> {
    // Database edits only: `--no-wait` does not block on ovs-vswitchd (which may be the very
    // thing that failed); NetworkManager's own OVSDB writes do not wait for it either.
    let out = Command::new("ovs-vsctl")
        .args(["--timeout=30", "--no-wait"])
        .args(args)
        .output()
        .map_err(|e| OvsError {
            args: args.join(" "),
            message: e.to_string(),
        })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(OvsError {
            args: args.join(" "),
            message: String::from_utf8_lossy(&out.stderr).trim().into(),
        })
    }
}

/// `external_ids:ovn-remote=" "`: ovn-controller must not sync against a stale southbound DB
/// before ovnkube-controller sets the real value (done on every run, as upstream).
pub fn clear_ovn_remote() -> Result<(), OvsError> {
    vsctl(&["set", "Open_vSwitch", ".", "external_ids:ovn-remote=\" \""])
}

/// Deletes `bridge` if it exists (NM does not remove a bridge carrying ports it did not create).
pub fn delete_bridge(bridge: &str) -> Result<(), OvsError> {
    vsctl(&["--if-exists", "del-br", bridge])
}
