//! A new OVS bridge and its ports, as nmstate writes them for the same YAML: the bridge
//! (`<name>-br`, no IP of its own, bringing its ports up with it) and one OVS port per entry of
//! its port list (`<port>-port`, bringing up what it holds). What a port holds is either the
//! bridge's internal interface (a new `ovs-interface` of the same state, written by
//! [`crate::engine::profile_new`]) or an interface that exists, whose own profile is rewritten
//! to sit under the port ([`crate::engine::profile_change`]'s `controller`): the per-host NMState
//! file's br-ex on the node's bond. Bridge options, port options (VLAN tags, OVS bonds) and
//! patch or DPDK ports are nmstate's.

use serde_json::Value as Json;

use crate::engine::profile_change::{Uncovered, unknown_key};
use crate::engine::profile_new::connection;
use crate::profile::{Settings, set};

/// The keys of a new OVS bridge this module writes.
const BRIDGE_KEYS: &[&str] = &["name", "type", "state", "bridge"];

/// A new OVS bridge's profiles.
#[derive(Debug)]
pub struct NewBridge {
    pub name: String,
    /// The bridge's profile, then its ports', in the order they are added.
    pub profiles: Vec<Settings>,
    /// The interfaces its ports hold, by name.
    pub ports: Vec<String>,
}

/// The profiles of `desired`, a new `ovs-bridge` of the desired state (nmstate's JSON).
pub fn new_bridge(desired: &Json) -> Result<NewBridge, Uncovered> {
    let name = desired["name"]
        .as_str()
        .ok_or_else(|| Uncovered("an unnamed OVS bridge".into()))?;
    if let Some(key) = unknown_key(desired, BRIDGE_KEYS) {
        return Err(Uncovered(format!("new OVS bridge {name}'s `{key}`")));
    }
    if desired.get("state").is_some_and(|s| s != "up") {
        return Err(Uncovered(format!(
            "new OVS bridge {name} {}",
            desired["state"]
        )));
    }
    if let Some(key) = unknown_key(&desired["bridge"], &["port"]) {
        return Err(Uncovered(format!("new OVS bridge {name}'s `bridge.{key}`")));
    }
    let mut ports = Vec::new();
    for port in desired["bridge"]["port"].as_array().into_iter().flatten() {
        let Some(port_name) = port["name"].as_str() else {
            return Err(Uncovered(format!("an unnamed port of {name}")));
        };
        if let Some(key) = unknown_key(port, &["name"]) {
            return Err(Uncovered(format!("{name}'s port {port_name}'s `{key}`")));
        }
        ports.push(port_name.to_owned());
    }
    if ports.is_empty() {
        return Err(Uncovered(format!("new OVS bridge {name} without ports")));
    }
    let mut bridge = profile(&format!("{name}-br"), "ovs-bridge", name);
    set(&mut bridge, "ipv4", "method", "disabled");
    set(&mut bridge, "ipv6", "method", "disabled");
    let mut profiles = vec![bridge];
    for port in &ports {
        let mut s = profile(&format!("{port}-port"), "ovs-port", port);
        set(&mut s, "connection", "master", name);
        set(&mut s, "connection", "slave-type", "ovs-bridge");
        profiles.push(s);
    }
    Ok(NewBridge {
        name: name.to_owned(),
        profiles,
        ports,
    })
}

/// A bridge's or port's profile: `kind`'s empty section, up at boot and bringing its ports up.
fn profile(id: &str, kind: &str, iface: &str) -> Settings {
    let mut s = connection(id, kind, iface);
    set(&mut s, "connection", "autoconnect-slaves", 1i32);
    s.insert(kind.to_owned(), Default::default());
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::get_str;
    use serde_json::json;

    #[test]
    fn a_bridge_and_a_port_per_entry_as_nmstate_names_them() {
        let desired = json!({"name": "br-ex", "type": "ovs-bridge", "state": "up",
            "bridge": {"port": [{"name": "bond0"}, {"name": "br-ex"}]}});
        let b = new_bridge(&desired).unwrap();
        assert_eq!(b.ports, ["bond0", "br-ex"]);
        let ids: Vec<String> = b.profiles.iter().map(crate::profile::id).collect();
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
        let options = json!({"name": "br1", "type": "ovs-bridge", "state": "up",
            "bridge": {"options": {"stp": true}, "port": [{"name": "e2"}]}});
        assert_eq!(
            new_bridge(&options).unwrap_err().0,
            "new OVS bridge br1's `bridge.options`"
        );
        let tagged = json!({"name": "br1", "type": "ovs-bridge", "state": "up",
            "bridge": {"port": [{"name": "e2", "vlan": {"mode": "access", "tag": 7}}]}});
        assert_eq!(new_bridge(&tagged).unwrap_err().0, "br1's port e2's `vlan`");
    }
}
