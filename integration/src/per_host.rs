//! The per-host NMState files users write for day 1 (`/etc/nmstate/openshift/<host>.yml`):
//! br-ex over an uplink (a NIC, an 802.3ad bond, a VLAN of that bond) with the node's
//! addresses, routes and DNS, in the shapes the tests and benchmarks apply.

/// One per-host file: br-ex over `port`, whose own interfaces `uplink` declares.
#[derive(Debug, Clone)]
pub struct PerHost {
    /// The interfaces under br-ex, as YAML list items of `interfaces`.
    uplink: String,
    /// br-ex's port: the uplink's top interface.
    port: String,
    /// br-ex's IPv4 address (/24) and default gateway; None: DHCP.
    ipv4: Option<(String, String)>,
    /// br-ex's IPv6 address (/64) and default gateway; None: IPv6 off.
    ipv6: Option<(String, String)>,
    /// Static routes through br-ex besides the default ones: destination, next hop.
    routes: Vec<(String, String)>,
    /// `dns-resolver.config`: servers, search domains.
    dns: Option<(Vec<String>, Vec<String>)>,
}

/// The interface list items of a NIC that becomes a port (no IP of its own).
pub fn nic(name: &str) -> String {
    format!(
        "- name: {name}
  type: ethernet
  state: up
  ipv4:
    enabled: false
  ipv6:
    enabled: false
"
    )
}

/// The interface list items of an 802.3ad bond `bond0` over `ports` (no IP of its own).
pub fn lacp_bond(ports: [&str; 2]) -> String {
    let [a, b] = ports;
    format!(
        "- name: bond0
  type: bond
  state: up
  link-aggregation:
    mode: 802.3ad
    options:
      miimon: 100
      lacp_rate: fast
    port:
    - {a}
    - {b}
  ipv4:
    enabled: false
  ipv6:
    enabled: false
"
    )
}

/// The interface list item of VLAN `id` on `base` (no IP of its own).
pub fn vlan(base: &str, id: u16) -> String {
    format!(
        "- name: {base}.{id}
  type: vlan
  state: up
  vlan:
    base-iface: {base}
    id: {id}
  ipv4:
    enabled: false
  ipv6:
    enabled: false
"
    )
}

impl PerHost {
    /// br-ex over `port` (declared by `uplink`) with the static `address`/24 and a default
    /// route through `gateway`: the shape the files share.
    pub fn new(uplink: String, port: &str, address: &str, gateway: &str) -> PerHost {
        PerHost {
            uplink,
            port: port.to_owned(),
            ipv4: Some((address.to_owned(), gateway.to_owned())),
            ipv6: None,
            routes: Vec::new(),
            dns: None,
        }
    }

    /// The design's example: that, with a name server and a search domain.
    pub fn example(uplink: String, port: &str, address: &str, gateway: &str) -> PerHost {
        PerHost::new(uplink, port, address, gateway).dns(&[gateway], &["example.test"])
    }

    /// With `servers` and `search` as the node's DNS.
    pub fn dns(mut self, servers: &[&str], search: &[&str]) -> PerHost {
        let owned = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect();
        self.dns = Some((owned(servers), owned(search)));
        self
    }

    /// With the static IPv6 `address`/64 and a default route through `gateway` too.
    pub fn dual_stack(mut self, address: &str, gateway: &str) -> PerHost {
        self.ipv6 = Some((address.to_owned(), gateway.to_owned()));
        self
    }

    /// With br-ex's IPv4 from DHCP instead of the static address (and its default route).
    pub fn dhcp(mut self) -> PerHost {
        self.ipv4 = None;
        self
    }

    /// With a static route to `destination` through `next_hop`.
    pub fn route(mut self, destination: &str, next_hop: &str) -> PerHost {
        self.routes
            .push((destination.to_owned(), next_hop.to_owned()));
        self
    }

    /// The file.
    pub fn yaml(&self) -> String {
        let port = &self.port;
        let mut y = format!(
            "interfaces:
{}- name: br-ex
  type: ovs-bridge
  state: up
  bridge:
    port:
    - name: {port}
    - name: br-ex
- name: br-ex
  type: ovs-interface
  state: up
  ipv4:
{}  ipv6:
{}",
            self.uplink,
            ipv4_section(self.ipv4.as_ref().map(|(a, _)| a.as_str())),
            ipv6_section(self.ipv6.as_ref().map(|(a, _)| a.as_str())),
        );
        if let Some((servers, search)) = &self.dns {
            y.push_str(&format!(
                "dns-resolver:\n  config:\n    server:{}    search:{}",
                items(servers, 4),
                items(search, 4)
            ));
        }
        let defaults = [
            self.ipv4.as_ref().map(|(_, gw)| ("0.0.0.0/0", gw.as_str())),
            self.ipv6.as_ref().map(|(_, gw)| ("::/0", gw.as_str())),
        ];
        let extra = self.routes.iter().map(|(d, h)| (d.as_str(), h.as_str()));
        let routes: String = defaults
            .into_iter()
            .flatten()
            .chain(extra)
            .map(|(dest, hop)| {
                format!(
                    "  - destination: {dest}\n    next-hop-address: {hop}\n    \
                     next-hop-interface: br-ex\n"
                )
            })
            .collect();
        if !routes.is_empty() {
            y.push_str(&format!("routes:\n  config:\n{routes}"));
        }
        y
    }
}

fn ipv4_section(address: Option<&str>) -> String {
    match address {
        Some(a) => format!(
            "    enabled: true\n    dhcp: false\n    address:\n    - ip: {a}\n      \
             prefix-length: 24\n"
        ),
        None => "    enabled: true\n    dhcp: true\n".to_owned(),
    }
}

fn ipv6_section(address: Option<&str>) -> String {
    match address {
        Some(a) => format!(
            "    enabled: true\n    dhcp: false\n    autoconf: false\n    address:\n    - ip: \
             {a}\n      prefix-length: 64\n"
        ),
        None => "    enabled: false\n".to_owned(),
    }
}

/// `values` as a YAML list after its key: items indented by `indent`, or `[]` when empty (an
/// empty value is null, which nmstate reads as "keep the running one").
fn items(values: &[String], indent: usize) -> String {
    if values.is_empty() {
        return " []\n".to_owned();
    }
    let items: String = values
        .iter()
        .map(|v| format!("{:indent$}- {v}\n", ""))
        .collect();
    format!("\n{items}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_is_valid_yaml_with_br_ex_and_its_routes() {
        let example = PerHost::example(nic("ens3"), "ens3", "198.51.100.11", "198.51.100.1");
        let files = [
            example.clone(),
            example
                .clone()
                .dual_stack("2001:db8:1::11", "2001:db8:1::1"),
            PerHost::new(
                lacp_bond(["e0", "e1"]) + &vlan("bond0", 100),
                "bond0.100",
                "a",
                "b",
            ),
            example
                .clone()
                .dhcp()
                .route("203.0.113.0/24", "198.51.100.1"),
        ];
        for f in &files {
            let v: serde_yaml::Value = serde_yaml::from_str(&f.yaml()).unwrap();
            let names: Vec<&str> = v["interfaces"]
                .as_sequence()
                .unwrap()
                .iter()
                .filter_map(|i| i["name"].as_str())
                .collect();
            assert!(names.ends_with(&["br-ex", "br-ex"]), "{names:?}");
            assert!(!v["routes"]["config"].as_sequence().unwrap().is_empty());
        }
        let dual: serde_yaml::Value = serde_yaml::from_str(&files[1].yaml()).unwrap();
        assert_eq!(dual["routes"]["config"][1]["destination"], "::/0");
        assert_eq!(dual["dns-resolver"]["config"]["search"][0], "example.test");
        let no_search = example.clone().dns(&["192.0.2.53"], &[]).yaml();
        let no_search: serde_yaml::Value = serde_yaml::from_str(&no_search).unwrap();
        assert_eq!(
            no_search["dns-resolver"]["config"]["search"],
            serde_yaml::Value::Sequence(vec![])
        );
        let dhcp: serde_yaml::Value = serde_yaml::from_str(&files[3].yaml()).unwrap();
        assert_eq!(dhcp["routes"]["config"][0]["destination"], "203.0.113.0/24");
        assert_eq!(dhcp["interfaces"][2]["ipv4"]["dhcp"], true);
    }
}
