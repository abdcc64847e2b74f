//! nmstate's states as the engine reads them: a desired state, the running one, and nmstate's
//! diff of the two, in nmstate's YAML/JSON schema (documented as its API, kept across
//! releases), not its types' fields. The keys the engine reads are typed; every other key is
//! kept, so the engine's coverage checks can name one it does not understand and leave the
//! change to nmstate.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

use crate::nm::setting::Family;

/// A state: its interfaces, its static routes and the sections the engine does not write.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct State {
    #[serde(default)]
    pub interfaces: Vec<Iface>,
    #[serde(default)]
    pub routes: Routes,
    /// `dns-resolver`, `route-rules`, `ovs-db`...
    #[serde(flatten)]
    pub other: Map<String, Json>,
}

impl State {
    /// `json` (a state as nmstate serializes it) read.
    pub fn from_json(json: Json) -> Result<State, serde_json::Error> {
        serde_json::from_value(json)
    }

    /// Interface `name`.
    pub fn iface(&self, name: &str) -> Option<&Iface> {
        self.interfaces.iter().find(|i| i.name == name)
    }

    /// The routes it asks for (not those it marks absent).
    pub fn present_routes(&self) -> impl Iterator<Item = &RouteEntry> {
        self.routes.config.iter().filter(|r| !r.is_absent())
    }
}

/// An interface.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Iface {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub state: Option<String>,
    pub mtu: Option<u64>,
    pub ipv4: Option<IpConfig>,
    pub ipv6: Option<IpConfig>,
    /// The controller it is a port of (empty: none).
    pub controller: Option<String>,
    pub vlan: Option<VlanConfig>,
    /// A bridge's own settings.
    pub bridge: Option<BridgeConfig>,
    #[serde(flatten)]
    pub other: Map<String, Json>,
}

impl Iface {
    /// The keys it has: the typed ones, then the others as nmstate gave them.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        let typed = [
            ("name", true),
            ("type", self.kind.is_some()),
            ("state", self.state.is_some()),
            ("mtu", self.mtu.is_some()),
            ("ipv4", self.ipv4.is_some()),
            ("ipv6", self.ipv6.is_some()),
            ("controller", self.controller.is_some()),
            ("vlan", self.vlan.is_some()),
            ("bridge", self.bridge.is_some()),
        ];
        let typed = typed.into_iter().filter(|(_, has)| *has).map(|(k, _)| k);
        typed.chain(self.other.keys().map(String::as_str))
    }

    /// Whether its `state` is given and is not `up`.
    pub fn not_up(&self) -> bool {
        self.state.as_deref().is_some_and(|s| s != "up")
    }

    pub fn is_absent(&self) -> bool {
        self.state.as_deref() == Some("absent")
    }

    /// Whether this interface (running) is one of type `desired`: nmstate shows a veth as
    /// `veth` and takes `ethernet` for it.
    pub fn is_of_type(&self, desired: &str) -> bool {
        let kind = self.kind.as_deref();
        kind == Some(desired) || kind == Some("veth") && desired == "ethernet"
    }

    /// Its IP section of `family`.
    pub fn ip(&self, family: Family) -> Option<&IpConfig> {
        match family {
            Family::V4 => self.ipv4.as_ref(),
            Family::V6 => self.ipv6.as_ref(),
        }
    }

    /// Its state as nmstate's JSON writes it (`"down"`), for a message.
    pub fn state_json(&self) -> Json {
        self.state.clone().map_or(Json::Null, Json::String)
    }
}

/// An interface's `ipv4` or `ipv6` section, with the keys the engine writes into a profile.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct IpConfig {
    pub enabled: Option<bool>,
    pub dhcp: Option<bool>,
    pub autoconf: Option<bool>,
    pub address: Option<Vec<IpAddress>>,
    pub auto_dns: Option<bool>,
    pub auto_gateway: Option<bool>,
    pub auto_routes: Option<bool>,
    pub auto_route_table_id: Option<i64>,
    pub auto_route_metric: Option<i64>,
    /// What else nmstate shows (the kernel's forwarding switch, the prefix route's metric...).
    #[serde(flatten)]
    pub other: Map<String, Json>,
}

impl IpConfig {
    /// A stack turned off.
    pub fn disabled() -> IpConfig {
        IpConfig {
            enabled: Some(false),
            ..IpConfig::default()
        }
    }

    /// Whether it is dynamic: DHCP or autoconf.
    pub fn is_dynamic(&self) -> bool {
        self.dhcp == Some(true) || self.autoconf == Some(true)
    }

    /// `over` laid over it: each key `over` gives replaces its own.
    pub fn overlaid(mut self, over: &IpConfig) -> IpConfig {
        fn take<T: Clone>(slot: &mut Option<T>, over: &Option<T>) {
            if over.is_some() {
                slot.clone_from(over);
            }
        }
        take(&mut self.enabled, &over.enabled);
        take(&mut self.dhcp, &over.dhcp);
        take(&mut self.autoconf, &over.autoconf);
        take(&mut self.address, &over.address);
        take(&mut self.auto_dns, &over.auto_dns);
        take(&mut self.auto_gateway, &over.auto_gateway);
        take(&mut self.auto_routes, &over.auto_routes);
        take(&mut self.auto_route_table_id, &over.auto_route_table_id);
        take(&mut self.auto_route_metric, &over.auto_route_metric);
        for (k, v) in &over.other {
            self.other.insert(k.clone(), v.clone());
        }
        self
    }
}

/// A static address of an IP section.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct IpAddress {
    pub ip: String,
    pub prefix_length: u32,
}

/// A VLAN's `vlan` section.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct VlanConfig {
    pub base_iface: Option<String>,
    pub id: Option<u64>,
    #[serde(flatten)]
    pub other: Map<String, Json>,
}

/// A bridge's `bridge` section.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct BridgeConfig {
    /// Its port list (None: the state does not give one).
    pub port: Option<Vec<BridgePort>>,
    /// `options`...
    #[serde(flatten)]
    pub other: Map<String, Json>,
}

/// An entry of a bridge's port list.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct BridgePort {
    pub name: String,
    /// A port's own settings (a VLAN tag, an OVS bond).
    #[serde(flatten)]
    pub other: Map<String, Json>,
}

/// The `routes` section.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Routes {
    #[serde(default)]
    pub config: Vec<RouteEntry>,
}

/// A static route of `routes.config`, its keys in nmstate's order (a message shows it as nmstate
/// does).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct RouteEntry {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_hop_interface: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_hop_address: Option<String>,
    /// -1: nmstate's "the default".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric: Option<i64>,
    /// 0: nmstate's "the default".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_id: Option<i64>,
    /// `weight`, `route-type`, `source`...
    #[serde(flatten)]
    pub other: Map<String, Json>,
}

impl RouteEntry {
    pub fn is_absent(&self) -> bool {
        self.state.as_deref() == Some("absent")
    }

    /// Whether it goes through interface `dev`.
    pub fn is_through(&self, dev: &str) -> bool {
        self.next_hop_interface.as_deref() == Some(dev)
    }
}

impl std::fmt::Display for RouteEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let json = serde_json::to_string(self).map_err(|_| std::fmt::Error)?;
        f.write_str(&json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_keys_the_engine_does_not_read_are_kept_and_named() {
        let state = State::from_json(json!({
            "interfaces": [{"name": "br-ex", "type": "ovs-bridge", "state": "up",
                "bridge": {"options": {"stp": false}, "port": [{"name": "br-ex"}]},
                "description": "the node's"}],
            "routes": {"config": [{"destination": "0.0.0.0/0", "weight": 2}]},
            "dns-resolver": {"config": {}}
        }))
        .unwrap();
        let iface = &state.interfaces[0];
        let keys: Vec<&str> = iface.keys().collect();
        assert_eq!(keys, ["name", "type", "state", "bridge", "description"]);
        assert!(iface.bridge.as_ref().unwrap().other.contains_key("options"));
        assert!(state.routes.config[0].other.contains_key("weight"));
        assert!(state.other.contains_key("dns-resolver"));
        assert_eq!(
            state.routes.config[0].to_string(),
            r#"{"destination":"0.0.0.0/0","weight":2}"#
        );
    }
}
