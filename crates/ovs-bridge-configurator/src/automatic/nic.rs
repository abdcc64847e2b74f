//! NIC quirks configure-ovs handles: vmxnet3 drops multicast it did not subscribe to unless the
//! link is in allmulticast mode, which OVS needs (BZ 1854355).

use rtnetlink::LinkUnspec;
use selection::service::with_netlink;

/// Whether a `/sys/class/net/<if>/device/uevent` text names the vmxnet3 driver.
pub fn is_vmxnet3(uevent: &str) -> bool {
    uevent.lines().any(|l| l.trim() == "DRIVER=vmxnet3")
}

/// Why allmulticast could not be turned on.
#[derive(Debug, thiserror::Error)]
pub enum AllmulticastError {
    #[error(transparent)]
    Socket(#[from] selection::netlink::NetlinkError),
    #[error("allmulticast on {iface}: {source}")]
    Set {
        iface: String,
        source: rtnetlink::Error,
    },
}

/// Turns allmulticast on for `iface` when it is a vmxnet3 NIC (netlink, like
/// `ip link set dev <if> allmulticast on`).
pub async fn vmxnet3_allmulticast(iface: &str) -> Result<(), AllmulticastError> {
    let uevent = std::fs::read_to_string(format!("/sys/class/net/{iface}/device/uevent"))
        .unwrap_or_default();
    if !is_vmxnet3(&uevent) {
        return Ok(());
    }
    let msg = LinkUnspec::new_with_name(iface).allmulticast(true).build();
    with_netlink(|handle| async move { handle.link().set(msg).execute().await })
        .await?
        .map_err(|source| AllmulticastError::Set {
            iface: iface.to_owned(),
            source,
        })?;
    tracing::info!("vmxnet3 {iface}: allmulticast on");
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn recognizes_the_driver_line() {
        assert!(super::is_vmxnet3("DRIVER=vmxnet3\nPCI_CLASS=20000\n"));
        assert!(!super::is_vmxnet3("DRIVER=virtio_net\n"));
        assert!(!super::is_vmxnet3(""));
    }
}
