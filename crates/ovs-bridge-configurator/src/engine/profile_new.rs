//! A profile for an interface no profile names yet: a new VLAN on an interface that exists, a
//! NIC NetworkManager has a device but no profile for (an address on a second NIC), or the
//! internal interface of a new OVS bridge ([`crate::engine::profile_ovs`] writes the bridge and
//! its ports). Written by the project ([`crate::engine::reapply`]) like a changed profile, so
//! such a change does not wait on nmstate's whole-state reads and one-second verification
//! retries. The settings are what nmstate writes for the same YAML: a section the desired
//! interface leaves out is the running one for a NIC (nmstate merges with the current state) and
//! a disabled stack for a new interface (nmstate's default). Anything else new (bonds, Linux
//! bridges) is nmstate's.

use crate::engine::profile_change::{
    IfaceChange, Uncovered, apply_to, merged_ip, mtu_of, unknown_key,
};
use crate::engine::state::{Iface, IpConfig};
use crate::nm::profile::Settings;
use crate::nm::setting::{Connection, Family, Ip, OvsInterface, Setting, Vlan};

/// The keys of a new interface this module writes.
const NEW_IFACE_KEYS: &[&str] = &["name", "type", "state", "mtu", "vlan", "ipv4", "ipv6"];

/// The profile of `desired` (one interface of the desired state), an interface that exists as
/// `running` (its running configuration; None: a new one), and the change it makes in nmstate's
/// terms (what the kernel is checked against).
pub fn new_profile(
    desired: &Iface,
    running: Option<&Iface>,
) -> Result<(Settings, IfaceChange), Uncovered> {
    let name = desired.name.as_str();
    if let Some(key) = unknown_key(desired.keys(), NEW_IFACE_KEYS) {
        return Err(Uncovered(format!("new interface {name}'s `{key}`")));
    }
    if desired.not_up() {
        return Err(Uncovered(format!(
            "new interface {name} {}",
            desired.state_json()
        )));
    }
    let kind = profile_kind(desired, running, name)?;
    // nmstate's names: an OVS internal interface shares its name with its bridge and port.
    let id = if kind == "ovs-interface" {
        format!("{name}-if")
    } else {
        name.to_owned()
    };
    let mut s = connection(&id, kind, name);
    if kind == "vlan" {
        write_vlan(&mut s, desired, name)?;
    }
    if kind == "ovs-interface" {
        // The port of its own name holds it (the bridge's port list names it).
        Connection {
            master: Some(name.to_owned()),
            slave_type: Some("ovs-port".to_owned()),
            ..Connection::default()
        }
        .write(&mut s);
        OvsInterface {
            kind: Some("internal".to_owned()),
        }
        .write(&mut s);
    }
    let change = new_iface_change(desired, running, name)?;
    apply_to(&mut s, &change)?;
    if running.is_none() {
        write_nmstate_ip_defaults(&mut s);
        Ip {
            addr_gen_mode: Some(ADDR_GEN_MODE_EUI64),
            ..Ip::default()
        }
        .write(&mut s, Family::V6);
    }
    Ok((s, change))
}

/// NetworkManager's `addr-gen-mode` EUI-64: nmstate's for a new interface's IPv6 section where
/// the state names none.
const ADDR_GEN_MODE_EUI64: i32 = 0;

/// The `dhcp-timeout` nmstate writes into every IP section of a profile it writes: forever, so
/// that NetworkManager never gives up on an interface the state wants up.
pub fn write_nmstate_ip_defaults(s: &mut Settings) {
    for family in [Family::V4, Family::V6] {
        if s.contains_key(family.section()) {
            Ip {
                dhcp_timeout: Some(i32::MAX),
                ..Ip::default()
            }
            .write(s, family);
        }
    }
}

/// The NetworkManager profile type for `desired` (interface `name`): a new VLAN, a new OVS
/// internal interface, or a NIC that runs as `running`; anything else is nmstate's.
fn profile_kind(
    desired: &Iface,
    running: Option<&Iface>,
    name: &str,
) -> Result<&'static str, Uncovered> {
    match (desired.kind.as_deref(), running) {
        (Some("vlan"), None) => Ok("vlan"),
        (Some("ovs-interface"), None) => Ok("ovs-interface"),
        (Some("ethernet") | None, Some(r)) if r.is_of_type("ethernet") => Ok("802-3-ethernet"),
        (t, _) => Err(Uncovered(format!(
            "new interface {name} of type {}",
            t.unwrap_or("unknown")
        ))),
    }
}

/// Writes the `vlan` section of new VLAN `name` from the desired state's `vlan`.
fn write_vlan(s: &mut Settings, desired: &Iface, name: &str) -> Result<(), Uncovered> {
    let vlan = desired.vlan.clone().unwrap_or_default();
    let (Some(parent), Some(id)) = (vlan.base_iface, vlan.id.and_then(|i| u32::try_from(i).ok()))
    else {
        return Err(Uncovered(format!(
            "new VLAN {name} without base-iface and id"
        )));
    };
    if let Some(key) = vlan.other.keys().next() {
        return Err(Uncovered(format!("new VLAN {name}'s `{key}`")));
    }
    Vlan {
        parent: Some(parent),
        id: Some(id),
        // REORDER_HEADERS, as nmstate and nmcli write it.
        flags: Some(1),
        ..Vlan::default()
    }
    .write(s);
    Ok(())
}

/// The change `desired` makes to interface `name`, in nmstate's terms: its MTU, and both IP
/// sections, each merged with the running one, or (for a new interface) a disabled stack where
/// the desired state leaves it out.
fn new_iface_change(
    desired: &Iface,
    running: Option<&Iface>,
    name: &str,
) -> Result<IfaceChange, Uncovered> {
    let mut change = IfaceChange::new(name);
    change.mtu = mtu_of(desired.mtu, name)?;
    for (family, slot) in [
        (Family::V4, &mut change.ipv4),
        (Family::V6, &mut change.ipv6),
    ] {
        let now = running.and_then(|r| r.ip(family));
        let asked = match (desired.ip(family), running) {
            (Some(ip), _) => ip.clone(),
            (None, Some(_)) => IpConfig::default(),
            (None, None) => IpConfig::disabled(),
        };
        *slot = Some(merged_ip(now, &asked, name, family)?);
    }
    Ok(change)
}

/// A new profile's `connection` section: `id`, a new UUID, `kind`, on interface `iface`, up at
/// boot.
pub fn connection(id: &str, kind: &str, iface: &str) -> Settings {
    let mut s = Settings::new();
    Connection {
        id: Some(id.to_owned()),
        uuid: Some(uuid::Uuid::new_v4().to_string()),
        kind: Some(kind.to_owned()),
        interface_name: Some(iface.to_owned()),
        autoconnect: Some(true),
        ..Connection::default()
    }
    .write(&mut s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nm::profile::{get_str, get_u32};
    use serde_json::{Value as Json, json};

    fn from_json(v: Json) -> Iface {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_new_vlan_gets_nmstates_settings() {
        let desired = from_json(json!({"name": "bond0.200", "type": "vlan", "state": "up",
            "vlan": {"base-iface": "bond0", "id": 200},
            "ipv4": {"enabled": true, "dhcp": false,
                     "address": [{"ip": "203.0.113.10", "prefix-length": 24}]}}));
        let (s, _) = new_profile(&desired, None).unwrap();
        assert_eq!(get_str(&s, "connection", "type").as_deref(), Some("vlan"));
        assert_eq!(
            get_str(&s, "connection", "interface-name").as_deref(),
            Some("bond0.200")
        );
        assert_eq!(get_str(&s, "vlan", "parent").as_deref(), Some("bond0"));
        assert_eq!(get_u32(&s, "vlan", "id"), Some(200));
        assert_eq!(get_str(&s, "ipv4", "method").as_deref(), Some("manual"));
        // Left out: disabled, as nmstate makes a new interface's stack.
        assert_eq!(get_str(&s, "ipv6", "method").as_deref(), Some("disabled"));
    }

    #[test]
    fn a_nic_without_a_profile_keeps_its_running_sections() {
        let desired = from_json(json!({"name": "ens4", "type": "ethernet", "state": "up",
            "ipv4": {"enabled": true, "dhcp": false,
                     "address": [{"ip": "192.0.2.20", "prefix-length": 24}]}}));
        let running = from_json(json!({"name": "ens4", "type": "ethernet", "state": "up",
            "ipv4": {"enabled": false}, "ipv6": {"enabled": true, "dhcp": false, "autoconf": false}}));
        let (s, _) = new_profile(&desired, Some(&running)).unwrap();
        assert_eq!(
            get_str(&s, "connection", "type").as_deref(),
            Some("802-3-ethernet")
        );
        assert_eq!(get_str(&s, "ipv4", "method").as_deref(), Some("manual"));
        assert_eq!(get_str(&s, "ipv6", "method").as_deref(), Some("link-local"));
    }

    #[test]
    fn what_is_not_a_vlan_or_a_nic_is_named() {
        let bond = from_json(json!({"name": "bond1", "type": "bond", "state": "up"}));
        assert_eq!(
            new_profile(&bond, None).unwrap_err().0,
            "new interface bond1 of type bond"
        );
        let qos = from_json(json!({"name": "bond0.7", "type": "vlan", "state": "up",
            "vlan": {"base-iface": "bond0", "id": 7, "protocol": "802.1ad"}}));
        assert_eq!(
            new_profile(&qos, None).unwrap_err().0,
            "new VLAN bond0.7's `protocol`"
        );
    }
}
