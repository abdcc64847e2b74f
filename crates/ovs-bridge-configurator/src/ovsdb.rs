//! The few OVSDB writes that are not NetworkManager's job, through `ovs-vsctl` (its output is
//! never parsed): clearing `ovn-remote` and deleting a stale bridge. Also the access check that
//! turns RHCOS's socket permissions into one clear error.

use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::Command;

/// A failed OVSDB access.
#[derive(Debug, thiserror::Error)]
pub enum OvsError {
    #[error("ovs-vsctl {args}: {message}")]
    Vsctl { args: String, message: String },
    #[error("cannot run ovs-vsctl {args}: {error}")]
    Spawn { args: String, error: io::Error },
    /// RHCOS runs OVS as `openvswitch:hugetlbfs` with `srwxr-x---` sockets: only their owner, or
    /// root with `CAP_DAC_OVERRIDE`, may connect.
    #[error(
        "cannot connect to the OVSDB socket {} ({error}): it is {owner}; this process needs \
         CAP_DAC_OVERRIDE (ovs-configuration.service and nmstate-configuration.service keep it in \
         their CapabilityBoundingSet)",
        path.display()
    )]
    Access {
        path: PathBuf,
        error: io::Error,
        owner: String,
    },
}

/// The socket ovs-vsctl, NetworkManager and nmstate use (`$OVS_RUNDIR/db.sock`, as ovs-vsctl).
pub fn socket_path() -> PathBuf {
    std::env::var_os("OVS_RUNDIR")
        .map_or_else(|| PathBuf::from("/run/openvswitch"), PathBuf::from)
        .join("db.sock")
}

/// Fails at once, naming the socket's owner and mode, when this process may not connect to
/// OVSDB; a socket that does not exist yet or refuses is left to ovs-vsctl's own wait.
pub fn check_access() -> Result<(), OvsError> {
    let path = socket_path();
    match UnixStream::connect(&path) {
        Err(error) if error.kind() == io::ErrorKind::PermissionDenied => {
            let owner = std::fs::metadata(&path).map_or_else(
                |e| format!("unreadable ({e})"),
                |m| {
                    format!(
                        "mode {:04o}, owned by uid {} gid {}",
                        m.permissions().mode() & 0o7777,
                        m.uid(),
                        m.gid()
                    )
                },
            );
            Err(OvsError::Access { path, error, owner })
        }
        _ => Ok(()),
    }
}

fn vsctl(args: &[&str]) -> Result<(), OvsError> {
    // Database edits only: `--no-wait` does not block on ovs-vswitchd (which may be the very
    // thing that failed); NetworkManager's own OVSDB writes do not wait for it either.
    let out = Command::new("ovs-vsctl")
        .args(["--timeout=30", "--no-wait"])
        .args(args)
        .output()
        .map_err(|error| OvsError::Spawn {
            args: args.join(" "),
            error,
        })?;
    if out.status.success() {
        Ok(())
    } else {
        check_access()?;
        Err(OvsError::Vsctl {
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
