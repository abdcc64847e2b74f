//! IP forwarding on the node-IP interface, upstream's `configure-ip-forwarding.sh` (the on-prem
//! `ExecStartPost=+` of nodeip-configuration.service): "required on the node IP interface in
//! order for keepalived to function". It runs as its own privileged step because the selection
//! itself runs with `ProtectKernelTunables=yes` (a read-only /proc/sys), and IPv6 forwarding can
//! only be set through /proc/sys (rtnetlink sets IPv4 device configuration, not IPv6's).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use selection::holder::{Lookup, find_interface};
use selection::net::go_text;
use selection::netlink::NetlinkReader;
use selection::runfiles::read_ip_file;

/// The `forwarding` files of `interface` under `proc_sys_net` (`/proc/sys/net`).
pub fn forwarding_files(proc_sys_net: &Path, interface: &str) -> [PathBuf; 2] {
    ["ipv4", "ipv6"].map(|f| {
        proc_sys_net
            .join(f)
            .join("conf")
            .join(interface)
            .join("forwarding")
    })
}

/// Writes 1 to each forwarding file of the interface holding `primary_ip_file`'s address, each
/// only where it exists (IPv6 may be disabled), as upstream.
pub async fn enable(primary_ip_file: &Path) -> anyhow::Result<String> {
    let ip = read_ip_file(primary_ip_file)
        .map_err(anyhow::Error::msg)?
        .with_context(|| format!("{} is missing or empty", primary_ip_file.display()))?;
    let snapshot = NetlinkReader::connect()?.snapshot().await?;
    let Some(holder) = find_interface(&snapshot, ip, Lookup::Exact) else {
        bail!(
            "no interface holds the node IP {} (from {}): cannot enable IP forwarding on it",
            go_text(ip),
            primary_ip_file.display()
        );
    };
    for f in forwarding_files(Path::new("/proc/sys/net"), &holder.interface) {
        if f.exists() {
            std::fs::write(&f, "1").with_context(|| format!("cannot write {}", f.display()))?;
        }
    }
    Ok(holder.interface)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_families_files_of_the_interface() {
        assert_eq!(
            forwarding_files(Path::new("/proc/sys/net"), "br-ex"),
            [
                PathBuf::from("/proc/sys/net/ipv4/conf/br-ex/forwarding"),
                PathBuf::from("/proc/sys/net/ipv6/conf/br-ex/forwarding")
            ]
        );
    }
}
