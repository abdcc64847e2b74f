//! The D-Bus calls: NetworkManager's `Reload(dns-rc)` and search domains, and systemd's
//! `TryRestartUnit` for systemd-resolved. Each call connects on demand: the daemon holds no
//! connection (and no wake-ups) while idle, and a missing bus or service is an error the caller
//! logs, never a reason to stop. Also the proxies the NetworkManager follower
//! ([`crate::follow`]) reads devices, DHCPv6 options and the host name through.

use std::collections::HashMap;
use std::time::Duration;

use zbus::zvariant::{OwnedObjectPath, OwnedValue};
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
pub trait NetworkManager {
    fn reload(&self, flags: u32) -> zbus::Result<()>;
    fn get_devices(&self) -> zbus::Result<Vec<OwnedObjectPath>>;
    fn get_device_by_ip_iface(&self, iface: &str) -> zbus::Result<OwnedObjectPath>;
}

#[proxy(
    interface = "org.freedesktop.NetworkManager.Device",
    default_service = "org.freedesktop.NetworkManager"
)]
pub trait Device {
    #[zbus(property)]
    fn state(&self) -> zbus::Result<u32>;
    /// "/" while the device has no DHCPv6 lease.
    #[zbus(property, name = "Dhcp6Config")]
    fn dhcp6_config(&self) -> zbus::Result<OwnedObjectPath>;
}

#[proxy(
    interface = "org.freedesktop.NetworkManager.DHCP6Config",
    default_service = "org.freedesktop.NetworkManager"
)]
pub trait Dhcp6Config {
    /// The lease's options by NetworkManager's names (`fqdn_fqdn`, ...), string values.
    #[zbus(property)]
    fn options(&self) -> zbus::Result<HashMap<String, OwnedValue>>;
}

#[proxy(
    interface = "org.freedesktop.hostname1",
    default_service = "org.freedesktop.hostname1",
    default_path = "/org/freedesktop/hostname1"
)]
pub trait Hostnamed {
    #[zbus(property)]
    fn static_hostname(&self) -> zbus::Result<String>;
    fn set_static_hostname(&self, name: &str, interactive: bool) -> zbus::Result<()>;
    fn set_hostname(&self, name: &str, interactive: bool) -> zbus::Result<()>;
}

/// A proxy at `path` that reads properties afresh on every call (the follower wants the
/// current state, not a cache kept up to date by signals it does not hold).
pub async fn uncached<'a, P>(conn: &Connection, path: OwnedObjectPath) -> zbus::Result<P>
where
    P: From<zbus::Proxy<'a>> + zbus::proxy::Defaults,
{
    zbus::proxy::Builder::<P>::new(conn)
        .path(path)?
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
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

/// `f`, or an error naming `what` when it fails or does not answer within [`CALL_TIMEOUT`].
pub async fn timed<T>(what: &str, f: impl Future<Output = zbus::Result<T>>) -> Result<T, BusError> {
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
