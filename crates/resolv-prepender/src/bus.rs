//! The D-Bus calls: NetworkManager's `Reload(dns-rc)` and search domains, and systemd's
//! `TryRestartUnit` for systemd-resolved. Each call connects on demand: the daemon holds no
//! connection (and no wake-ups) while idle, and a missing bus or service is an error the caller
//! logs, never a reason to stop.

use std::collections::HashMap;
use std::time::Duration;

use zbus::zvariant::OwnedValue;
use zbus::{Connection, proxy};

/// `NM_MANAGER_RELOAD_FLAG_DNS_RC`: what `nmcli general reload dns-rc` asks for (NM re-reads
/// resolv.conf handling and re-runs its hostname lookup, bz 1929160).
const NM_RELOAD_DNS_RC: u32 = 0x2;

/// No call may block a pass for long.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

#[proxy(
    interface = "org.freedesktop.NetworkManager",
    default_service = "org.freedesktop.NetworkManager",
    default_path = "/org/freedesktop/NetworkManager"
)]
trait NetworkManager {
    fn reload(&self, flags: u32) -> zbus::Result<()>;
}

#[proxy(
    interface = "org.freedesktop.NetworkManager.DnsManager",
    default_service = "org.freedesktop.NetworkManager",
    default_path = "/org/freedesktop/NetworkManager/DnsManager"
)]
trait DnsManager {
    #[zbus(property)]
    fn configuration(&self) -> zbus::Result<Vec<HashMap<String, OwnedValue>>>;
}

#[proxy(
    interface = "org.freedesktop.systemd1.Manager",
    default_service = "org.freedesktop.systemd1",
    default_path = "/org/freedesktop/systemd1"
)]
trait SystemdManager {
    fn try_restart_unit(
        &self,
        name: &str,
        mode: &str,
    ) -> zbus::Result<zbus::zvariant::OwnedObjectPath>;
}

/// A D-Bus failure, as text for the log.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BusError(String);

async fn timed<T>(what: &str, f: impl Future<Output = zbus::Result<T>>) -> Result<T, BusError> {
    match tokio::time::timeout(CALL_TIMEOUT, f).await {
        Ok(r) => r.map_err(|e| BusError(format!("{what}: {e}"))),
        Err(_) => Err(BusError(format!(
            "{what}: no answer within {CALL_TIMEOUT:?}"
        ))),
    }
}

async fn system_bus() -> Result<Connection, BusError> {
    timed("connect to the system bus", Connection::system()).await
}

/// `nmcli general reload dns-rc`, over D-Bus.
pub async fn reload_dns_rc() -> Result<(), BusError> {
    let conn = system_bus().await?;
    let nm = timed("NetworkManager", NetworkManagerProxy::new(&conn)).await?;
    timed("NetworkManager.Reload(dns-rc)", nm.reload(NM_RELOAD_DNS_RC)).await
}

/// The search domains NetworkManager pushes to its resolver, in its order, each once.
pub async fn nm_search_domains() -> Result<Vec<String>, BusError> {
    let conn = system_bus().await?;
    let dns = timed(
        "NetworkManager DnsManager",
        DnsManagerProxy::builder(&conn)
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build(),
    )
    .await?;
    let config = timed("DnsManager.Configuration", dns.configuration()).await?;
    let mut domains: Vec<String> = Vec::new();
    for entry in config {
        let Some(v) = entry.get("domains") else {
            continue;
        };
        let list: Vec<String> = v
            .try_clone()
            .ok()
            .and_then(|v| v.try_into().ok())
            .unwrap_or_default();
        for d in list {
            if !domains.contains(&d) {
                domains.push(d);
            }
        }
    }
    Ok(domains)
}

/// Restarts systemd-resolved if it is running (`systemctl try-restart`).
pub async fn try_restart_resolved() -> Result<(), BusError> {
    let conn = system_bus().await?;
    let systemd = timed("systemd", SystemdManagerProxy::new(&conn)).await?;
    timed(
        "systemd TryRestartUnit(systemd-resolved.service)",
        systemd.try_restart_unit("systemd-resolved.service", "replace"),
    )
    .await
    .map(drop)
}
