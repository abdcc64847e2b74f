//! `/run/nodeip-configuration/br-ex-up`: the NetworkManager dispatcher script this daemon
//! replaces touched it when br-ex came up, and `wait-for-br-ex-up.service` holds
//! `node-valid-hostname.service` (so kubelet) until it exists. Checked by the NetworkManager
//! follower ([`crate::follow`]) whenever a device reaches "activated" and at start: the device
//! whose IP interface is br-ex (the OVS interface, whichever mode built it) must be activated.

use std::path::Path;

use zbus::Connection;

use crate::bus::{DeviceProxy, NetworkManagerProxy, uncached};

const BR_EX: &str = "br-ex";
/// `NM_DEVICE_STATE_ACTIVATED`.
pub const ACTIVATED: u32 = 100;

/// Whether br-ex is an activated device now.
async fn br_ex_active(conn: &Connection) -> zbus::Result<bool> {
    let path = match NetworkManagerProxy::new(conn)
        .await?
        .get_device_by_ip_iface(BR_EX)
        .await
    {
        Ok(p) => p,
        // No such device (yet): not up.
        Err(zbus::Error::MethodError(..)) => return Ok(false),
        Err(e) => return Err(e),
    };
    let device: DeviceProxy = uncached(conn, path).await?;
    Ok(device.state().await? == ACTIVATED)
}

/// Touches `flag` if br-ex is up; whether it did.
pub async fn touch_if_up(conn: &Connection, flag: &Path) -> bool {
    match br_ex_active(conn).await {
        Ok(true) => match selection::atomic::touch(flag) {
            Ok(()) => {
                tracing::info!("br-ex is up: touched {}", flag.display());
                true
            }
            Err(e) => {
                tracing::error!("br-ex is up, cannot touch {}: {e}", flag.display());
                false
            }
        },
        Ok(false) => false,
        Err(e) => {
            tracing::warn!("cannot ask NetworkManager about br-ex: {e}");
            false
        }
    }
}
