//! `/run/nodeip-configuration/br-ex-up`: the NetworkManager dispatcher script this daemon
//! replaces touched it when br-ex came up, and `wait-for-br-ex-up.service` holds
//! `node-valid-hostname.service` (so kubelet) until it exists. Followed from NetworkManager's
//! device `StateChanged` signals: whenever a device reaches "activated", the device whose IP
//! interface is br-ex (the OVS interface, whichever mode built it) is checked, and at start an
//! already active br-ex counts too. The connection is held only for these signals; without a
//! bus the daemon waits for its socket to appear (inotify), never polls.

use std::path::{Path, PathBuf};

use futures_util::StreamExt;
use selection::service::DirWatcher;
use zbus::zvariant::OwnedObjectPath;
use zbus::{Connection, MatchRule, MessageStream, proxy};

const BR_EX: &str = "br-ex";
/// `NM_DEVICE_STATE_ACTIVATED`.
const ACTIVATED: u32 = 100;

#[proxy(
    interface = "org.freedesktop.NetworkManager",
    default_service = "org.freedesktop.NetworkManager",
    default_path = "/org/freedesktop/NetworkManager"
)]
trait Manager {
    fn get_device_by_ip_iface(&self, iface: &str) -> zbus::Result<OwnedObjectPath>;
}

#[proxy(
    interface = "org.freedesktop.NetworkManager.Device",
    default_service = "org.freedesktop.NetworkManager"
)]
trait Device {
    #[zbus(property)]
    fn state(&self) -> zbus::Result<u32>;
}

/// Whether br-ex is an activated device now.
async fn br_ex_active(conn: &Connection) -> zbus::Result<bool> {
    let path = match ManagerProxy::new(conn)
        .await?
        .get_device_by_ip_iface(BR_EX)
        .await
    {
        Ok(p) => p,
        // No such device (yet): not up.
        Err(zbus::Error::MethodError(..)) => return Ok(false),
        Err(e) => return Err(e),
    };
    let device = DeviceProxy::builder(conn)
        .path(path)?
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await?;
    Ok(device.state().await? == ACTIVATED)
}

/// Touches `flag` if br-ex is up; whether it did.
async fn check(conn: &Connection, flag: &Path) -> bool {
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

/// Follows NetworkManager until br-ex is up and `flag` is touched (once per boot is enough:
/// `/run` is new every boot); returns when the bus connection ends.
async fn session(flag: &Path) -> zbus::Result<()> {
    let conn = Connection::system().await?;
    let rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .interface("org.freedesktop.NetworkManager.Device")?
        .member("StateChanged")?
        .build();
    // Subscribed before the first check: an activation in between is not missed.
    let mut signals = MessageStream::for_match_rule(rule, &conn, None).await?;
    if check(&conn, flag).await {
        return Ok(());
    }
    while let Some(msg) = signals.next().await {
        let Ok((new, _old, _reason)) = msg?.body().deserialize::<(u32, u32, u32)>() else {
            continue;
        };
        if new == ACTIVATED && check(&conn, flag).await {
            return Ok(());
        }
    }
    Ok(())
}

/// The system bus socket, from `DBUS_SYSTEM_BUS_ADDRESS` (`unix:path=...`) or the default.
fn bus_socket() -> PathBuf {
    std::env::var("DBUS_SYSTEM_BUS_ADDRESS")
        .ok()
        .and_then(|a| {
            a.split(';').find_map(|part| {
                part.strip_prefix("unix:path=")
                    .map(|p| p.split(',').next().unwrap_or(p).to_owned())
            })
        })
        .map_or_else(
            || PathBuf::from("/run/dbus/system_bus_socket"),
            PathBuf::from,
        )
}

/// Touches `flag` once br-ex is up, following NetworkManager until then.
pub fn spawn(flag: PathBuf) {
    tokio::spawn(async move {
        let socket = bus_socket();
        loop {
            // Watched before connecting: a bus that appears in between wakes the wait below.
            let watch = DirWatcher::new(vec![socket.clone()]).map(|(mut w, wakes)| {
                w.rewatch(None);
                (w, wakes)
            });
            match session(&flag).await {
                Ok(()) if flag.exists() => return,
                Ok(()) => tracing::warn!("the system bus connection ended; waiting for the bus"),
                Err(e) => tracing::warn!(
                    "cannot follow NetworkManager for br-ex ({e}); waiting for {}",
                    socket.display()
                ),
            }
            let Ok((mut watcher, mut wakes)) = watch else {
                tracing::error!(
                    "cannot watch {}: br-ex-up is not followed",
                    socket.display()
                );
                return;
            };
            watcher.rewatch(None);
            if wakes.recv().await.is_none() {
                return;
            }
        }
    });
}
