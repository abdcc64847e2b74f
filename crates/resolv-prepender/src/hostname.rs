//! The dispatcher script's host-name duty: on `up` and `dhcp6-change` it gave a node without a
//! real static host name the FQDN its DHCPv6 server handed out (`DHCP6_FQDN_FQDN`), static and
//! transient (`hostnamectl set-hostname --static --transient` in a `systemd-run` unit). Here the
//! FQDN is NetworkManager's `fqdn_fqdn` DHCPv6 option, read over D-Bus when the follower
//! ([`crate::follow`]) sees a device activate or a DHCPv6 lease change, and the name is set
//! through systemd-hostnamed's D-Bus API (as root, authorised by polkit; the unit keeps no
//! capability).

use zbus::Connection;

use crate::bus::{
    DeviceProxy, Dhcp6ConfigProxy, HostnamedProxy, NetworkManagerProxy, timed, uncached,
};

/// The placeholder name upstream treats as "no name" on both sides.
const PLACEHOLDER: &str = "localhost.localdomain";
/// NetworkManager's name for DHCPv6 option 39's domain name (the dispatcher's
/// `DHCP6_FQDN_FQDN`).
const FQDN_OPTION: &str = "fqdn_fqdn";

/// The name to set, if any: upstream's rule, exactly. The FQDN counts when it is not empty, not
/// the placeholder and has a dot; the static name (systemd-hostnamed's `StaticHostname`, which
/// is `/etc/hostname`, "" when missing) may be replaced only when empty or the placeholder.
pub fn adoptable<'a>(fqdn: &'a str, static_name: &str) -> Option<&'a str> {
    let usable = !fqdn.is_empty() && fqdn != PLACEHOLDER && fqdn.contains('.');
    let unnamed = static_name.is_empty() || static_name == PLACEHOLDER;
    (usable && unnamed).then_some(fqdn)
}

/// NetworkManager is not (yet) on the bus: no lease to read, and its start brings the signals
/// the follower runs this again on.
fn not_running(e: &zbus::Error) -> bool {
    const ABSENT: [&str; 3] = [
        "org.freedesktop.DBus.Error.ServiceUnknown",
        "org.freedesktop.DBus.Error.NameHasNoOwner",
        "org.freedesktop.DBus.Error.UnknownMethod",
    ];
    matches!(e, zbus::Error::MethodError(name, ..) if ABSENT.contains(&name.as_str()))
}

/// The FQDN of the first device (by object path) whose DHCPv6 lease carries one.
async fn dhcp6_fqdn(conn: &Connection) -> zbus::Result<Option<String>> {
    let mut devices = match NetworkManagerProxy::new(conn).await?.get_devices().await {
        Ok(d) => d,
        Err(e) if not_running(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    devices.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    for path in devices {
        let device: DeviceProxy = uncached(conn, path).await?;
        let config = device.dhcp6_config().await?;
        if config.as_str() == "/" {
            continue;
        }
        let options = uncached::<Dhcp6ConfigProxy>(conn, config)
            .await?
            .options()
            .await?;
        let fqdn = options
            .get(FQDN_OPTION)
            .and_then(|v| v.downcast_ref::<String>().ok())
            .filter(|f| !f.is_empty());
        if fqdn.is_some() {
            return Ok(fqdn);
        }
    }
    Ok(None)
}

/// Sets the static and the transient host name, as `hostnamectl set-hostname --static
/// --transient` does.
async fn set_hostname(hostnamed: &HostnamedProxy<'_>, name: &str) -> zbus::Result<()> {
    hostnamed.set_static_hostname(name, false).await?;
    hostnamed.set_hostname(name, false).await
}

/// Gives the node its DHCPv6 FQDN when it has no real static name; logs what it did or why it
/// could not. systemd-hostnamed is only asked (so started) when a lease carries an FQDN.
pub async fn adopt_dhcp6_fqdn(conn: &Connection) {
    let fqdn = match timed("NetworkManager's DHCPv6 options", dhcp6_fqdn(conn)).await {
        Ok(Some(f)) => f,
        Ok(None) => return,
        Err(e) => return tracing::warn!("cannot read the DHCPv6 host name: {e}"),
    };
    let hostnamed = match timed(
        "systemd-hostnamed",
        zbus::proxy::Builder::<HostnamedProxy>::new(conn)
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build(),
    )
    .await
    {
        Ok(h) => h,
        Err(e) => return tracing::error!("DHCPv6 gave the FQDN {fqdn}: {e}"),
    };
    let static_name = match timed("hostnamed StaticHostname", hostnamed.static_hostname()).await {
        Ok(n) => n,
        Err(e) => return tracing::error!("DHCPv6 gave the FQDN {fqdn}: {e}"),
    };
    let Some(name) = adoptable(&fqdn, &static_name) else {
        if static_name != fqdn {
            tracing::info!(
                "DHCPv6 gave the FQDN {fqdn:?}; the host name stays (static name {static_name:?})"
            );
        }
        return;
    };
    match timed(
        "hostnamed SetStaticHostname/SetHostname",
        set_hostname(&hostnamed, name),
    )
    .await
    {
        Ok(()) => tracing::info!(
            "host name set to {name} (static and transient): the FQDN from DHCPv6, as the node had no static name"
        ),
        Err(e) => tracing::error!(
            "cannot set the host name to {name}, the FQDN from DHCPv6: {e} \
             (systemd-hostnamed authorises root through polkit)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dotted_fqdn_names_a_node_without_a_real_static_name() {
        let fqdn = "node1.example.com";
        assert_eq!(adoptable(fqdn, ""), Some(fqdn));
        assert_eq!(adoptable(fqdn, "localhost.localdomain"), Some(fqdn));
        // A real static name is never replaced.
        assert_eq!(adoptable(fqdn, "myhost"), None);
        assert_eq!(adoptable(fqdn, "localhost"), None);
    }

    #[test]
    fn an_undotted_empty_or_placeholder_fqdn_is_ignored() {
        for fqdn in ["", "node1", "localhost.localdomain"] {
            assert_eq!(adoptable(fqdn, ""), None, "{fqdn:?}");
        }
    }
}
