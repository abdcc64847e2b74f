//! An OVS bridge's new ports, as nmstate writes them for the same YAML: for a new bridge, the
//! bridge itself (`<name>-br`, no IP of its own, bringing its ports up with it), and for a new
//! bridge or one that exists, one OVS port per new entry of its port list (`<port>-port`,
//! bringing up what it holds). What a port holds is the bridge's new internal interface (a new
//! `ovs-interface` of the same state, written by [`crate::engine::profile_new`]), a new VLAN,
//! or an interface that exists, whose own profile is rewritten to sit under the port
//! ([`crate::engine::profile_change`]'s `controller`): the per-host NMState file's br-ex on the
//! node's bond. An interface a bridge that exists no longer lists is detached (its profile
//! without a controller and without IP, its OVS port's profile deleted, as nmstate does).
//! Bridge options, port options (VLAN tags, OVS bonds) and patch or DPDK ports are nmstate's.

use crate::engine::profile_change::{Uncovered, unknown_key};
use crate::engine::profile_new::{connection, write_nmstate_ip_defaults};
use crate::engine::state::{BridgePort, Iface};
use crate::nm::profile::Settings;
use crate::nm::setting::{Connection, Family, Ip, Setting};

/// The keys of an OVS bridge of the desired state this module writes (those of its `bridge`:
/// its port list alone).
const BRIDGE_KEYS: &[&str] = &["name", "type", "state", "bridge"];

/// An OVS bridge's new profiles and the interfaces it takes and lets go.
#[derive(Debug)]
pub struct BridgeChange {
    pub name: String,
    /// Whether the bridge itself is new (then its profile comes first in `profiles`).
    pub new: bool,
    /// The bridge's profile if it is new, then its new ports', in the order they are added.
    pub profiles: Vec<Settings>,
    /// The interfaces its new ports hold, by name.
    pub ports: Vec<String>,
    /// The interfaces its ports held that it no longer lists.
    pub detached: Vec<String>,
}

/// The profiles of `desired`, a new `ovs-bridge` of the desired state.
pub fn new_bridge(desired: &Iface) -> Result<BridgeChange, Uncovered> {
    let (name, ports) = port_list(desired, "new OVS bridge")?;
    if ports.is_empty() {
        return Err(Uncovered(format!("new OVS bridge {name} without ports")));
    }
    let mut bridge = profile(&format!("{name}-br"), "ovs-bridge", name);
    let no_ip = Ip {
        method: Some("disabled".to_owned()),
        ..Ip::default()
    };
    no_ip.write(&mut bridge, Family::V4);
    no_ip.write(&mut bridge, Family::V6);
    write_nmstate_ip_defaults(&mut bridge);
    let mut profiles = vec![bridge];
    profiles.extend(ports.iter().map(|p| port(name, p)));
    Ok(BridgeChange {
        name: name.to_owned(),
        new: true,
        profiles,
        ports,
        detached: Vec::new(),
    })
}

/// The new ports of `desired`, an `ovs-bridge` of the desired state that runs as `running`,
/// and the interfaces it lets go; None when its port list names the ports it has.
pub fn bridge_port_changes(
    desired: &Iface,
    running: &Iface,
) -> Result<Option<BridgeChange>, Uncovered> {
    // No port list: nmstate keeps the ports it has.
    if desired.bridge.as_ref().is_none_or(|b| b.port.is_none()) {
        return Ok(None);
    }
    let (name, ports) = port_list(desired, "OVS bridge")?;
    let mut now = Vec::new();
    for p in ports_of(running) {
        // A port's own settings (a VLAN tag, an OVS bond) would be nmstate's to merge.
        if let Some(key) = p.other.keys().next() {
            return Err(Uncovered(format!("{name}'s port {}'s `{key}`", p.name)));
        }
        now.push(p.name.clone());
    }
    let added: Vec<String> = ports.iter().filter(|p| !now.contains(p)).cloned().collect();
    let detached: Vec<String> = now.into_iter().filter(|p| !ports.contains(p)).collect();
    if added.is_empty() && detached.is_empty() {
        return Ok(None);
    }
    Ok(Some(BridgeChange {
        name: name.to_owned(),
        new: false,
        profiles: added.iter().map(|p| port(name, p)).collect(),
        ports: added,
        detached,
    }))
}

/// The entries of `bridge`'s port list (none without one).
fn ports_of(bridge: &Iface) -> &[BridgePort] {
    bridge
        .bridge
        .as_ref()
        .and_then(|b| b.port.as_deref())
        .unwrap_or_default()
}

/// `desired`'s name and the names of its ports (`what`: how an error names it), or what of it
/// this module does not write.
fn port_list<'d>(desired: &'d Iface, what: &str) -> Result<(&'d str, Vec<String>), Uncovered> {
    let name = desired.name.as_str();
    if let Some(key) = unknown_key(desired.keys(), BRIDGE_KEYS) {
        return Err(Uncovered(format!("{what} {name}'s `{key}`")));
    }
    if desired.not_up() {
        return Err(Uncovered(format!("{what} {name} {}", desired.state_json())));
    }
    let bridge_key = desired.bridge.as_ref().and_then(|b| b.other.keys().next());
    if let Some(key) = bridge_key {
        return Err(Uncovered(format!("{what} {name}'s `bridge.{key}`")));
    }
    let mut ports = Vec::new();
    for port in ports_of(desired) {
        if let Some(key) = port.other.keys().next() {
            return Err(Uncovered(format!("{name}'s port {}'s `{key}`", port.name)));
        }
        ports.push(port.name.clone());
    }
    Ok((name, ports))
}

/// The OVS port of `bridge` that holds `iface`, under nmstate's name for it.
fn port(bridge: &str, iface: &str) -> Settings {
    let mut s = profile(&format!("{iface}-port"), "ovs-port", iface);
    Connection {
        master: Some(bridge.to_owned()),
        slave_type: Some("ovs-bridge".to_owned()),
        ..Connection::default()
    }
    .write(&mut s);
    s
}

/// A bridge's or port's profile: `kind`'s empty section, up at boot and bringing its ports up.
fn profile(id: &str, kind: &str, iface: &str) -> Settings {
    let mut s = connection(id, kind, iface);
    Connection {
        autoconnect_slaves: Some(1),
        ..Connection::default()
    }
    .write(&mut s);
    s.insert(kind.to_owned(), Default::default());
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nm::profile::get_str;
    use serde_json::{Value as Json, json};

    fn from_json(v: Json) -> Iface {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_bridge_and_a_port_per_entry_as_nmstate_names_them() {
        let desired = from_json(json!({"name": "br-ex", "type": "ovs-bridge", "state": "up",
            "bridge": {"port": [{"name": "bond0"}, {"name": "br-ex"}]}}));
        let b = new_bridge(&desired).unwrap();
        assert_eq!(b.ports, ["bond0", "br-ex"]);
        let ids: Vec<String> = b.profiles.iter().map(crate::nm::profile::id).collect();
        assert_eq!(ids, ["br-ex-br", "bond0-port", "br-ex-port"]);
        let port = &b.profiles[1];
        assert_eq!(
            get_str(port, "connection", "type").as_deref(),
            Some("ovs-port")
        );
        assert_eq!(
            get_str(port, "connection", "interface-name").as_deref(),
            Some("bond0")
        );
        assert_eq!(
            get_str(port, "connection", "master").as_deref(),
            Some("br-ex")
        );
        assert_eq!(
            get_str(&b.profiles[0], "ipv4", "method").as_deref(),
            Some("disabled")
        );
    }

    #[test]
    fn options_and_tagged_ports_are_named() {
        let options = from_json(json!({"name": "br1", "type": "ovs-bridge", "state": "up",
            "bridge": {"options": {"stp": true}, "port": [{"name": "e2"}]}}));
        assert_eq!(
            new_bridge(&options).unwrap_err().0,
            "new OVS bridge br1's `bridge.options`"
        );
        let tagged = from_json(json!({"name": "br1", "type": "ovs-bridge", "state": "up",
            "bridge": {"port": [{"name": "e2", "vlan": {"mode": "access", "tag": 7}}]}}));
        assert_eq!(new_bridge(&tagged).unwrap_err().0, "br1's port e2's `vlan`");
    }

    #[test]
    fn a_bridge_that_exists_gets_its_new_ports_and_lets_go_of_the_others() {
        let desired = from_json(json!({"name": "br-ex", "type": "ovs-bridge", "state": "up",
            "bridge": {"port": [{"name": "bond0.300"}, {"name": "br-ex"}]}}));
        let running = from_json(json!({"name": "br-ex", "type": "ovs-bridge", "state": "up",
            "bridge": {"port": [{"name": "bond0"}, {"name": "br-ex"}]}}));
        let b = bridge_port_changes(&desired, &running).unwrap().unwrap();
        assert!(!b.new);
        assert_eq!(b.ports, ["bond0.300"]);
        assert_eq!(b.detached, ["bond0"]);
        let ids: Vec<String> = b.profiles.iter().map(crate::nm::profile::id).collect();
        assert_eq!(ids, ["bond0.300-port"]);
        // The ports it has, or no port list: nothing to do.
        assert!(bridge_port_changes(&running, &running).unwrap().is_none());
        let no_list = from_json(json!({"name": "br-ex", "type": "ovs-bridge", "state": "up"}));
        assert!(bridge_port_changes(&no_list, &running).unwrap().is_none());
        // A port with settings of its own is nmstate's to merge.
        let tagged = from_json(json!({"name": "br-ex", "type": "ovs-bridge", "state": "up",
            "bridge": {"port": [{"name": "bond0", "vlan": {"mode": "access", "tag": 7}},
                {"name": "br-ex"}]}}));
        assert_eq!(
            bridge_port_changes(&desired, &tagged).unwrap_err().0,
            "br-ex's port bond0's `vlan`"
        );
    }
}
