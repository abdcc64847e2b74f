//! The fixtures scenario tests compose: an upstream network (router, DNS, DHCP on one L2
//! segment) and nodes (namespace + bus + OVS + NetworkManager + an uplink to it).

use std::time::Duration;

use crate::dbus::DbusBus;
use crate::dnsmasq::{Dhcp, Dhcp6, Dnsmasq, DnsmasqConfig};
use crate::netns::{Netns, scratch_dir};
use crate::network_manager::NetworkManager;
use crate::ovs::Ovs;
use crate::process::output;
use crate::view::NodeView;

/// The machine network's router, DNS and DHCP server address.
pub const ROUTER: &str = "198.51.100.1";
/// The machine network's IPv6 router (no RA: nodes carry static IPv6 addresses).
pub const ROUTER6: &str = "2001:db8:1::1";
/// Prefix length of the machine network 198.51.100.0/24.
pub const PREFIX_LEN: u8 = 24;
/// The cluster's DNS zone served upstream.
pub const ZONE: &str = "cluster.example.test";

/// The node's fixed address and MAC on the machine network, by index (1-based).
pub fn node_address(index: u8) -> String {
    format!("198.51.100.{}", 10 + index)
}

/// The node's IPv6 address on the machine network (2001:db8:1::/64), by index (1-based).
pub fn node_address6(index: u8) -> String {
    format!("2001:db8:1::{}", 10 + index)
}

pub fn node_mac(index: u8) -> String {
    format!("52:54:00:c0:ee:{index:02x}")
}

/// br-ex for node 1 as an NMState document: the OVS bridge with ens3 and its internal interface
/// carrying the node IP and the default route.
pub const NMSTATE_BR_EX: &str = "interfaces:
- name: br-ex
  type: ovs-interface
  state: up
  ipv4:
    enabled: true
    dhcp: false
    address:
    - ip: 198.51.100.11
      prefix-length: 24
  ipv6:
    enabled: false
- name: br-ex
  type: ovs-bridge
  state: up
  bridge:
    port:
    - name: ens3
    - name: br-ex
- name: ens3
  type: ethernet
  state: up
  ipv4:
    enabled: false
  ipv6:
    enabled: false
routes:
  config:
  - destination: 0.0.0.0/0
    next-hop-address: 198.51.100.1
    next-hop-interface: br-ex
";

/// The upstream namespace: Linux bridge `br0` with the router address, dnsmasq answering DNS
/// for [`ZONE`] and handing out each node's fixed address by MAC.
#[derive(Debug)]
pub struct Upstream {
    dnsmasq: Dnsmasq,
    cfg: DnsmasqConfig,
    ports: u32,
    pub ns: Netns,
    dir: tempfile::TempDir,
}

impl Upstream {
    /// Starts the upstream network for up to `nodes` nodes; `records` are extra DNS records.
    pub fn start(nodes: u8, records: &[(&str, &str)]) -> Result<Upstream, String> {
        let dir = scratch_dir("upstream")?;
        let ns = Netns::new("up")?;
        ns.bridge("br0")?;
        ns.addr("br0", &format!("{ROUTER}/{PREFIX_LEN}"), &[])?;
        ns.addr("br0", &format!("{ROUTER6}/64"), &["nodad"])?;
        // Veth/bridge TX checksum offload leaves DHCP replies CHECKSUM_PARTIAL; OVS's userspace
        // datapath forwards them unchanged and the node's DHCP client drops them.
        ns.exec("ethtool", &["-K", "br0", "tx", "off"])?;
        let cfg = DnsmasqConfig {
            listen: vec![ROUTER.into()],
            zone: Some(ZONE.into()),
            records: records
                .iter()
                .map(|(n, a)| (n.to_string(), a.to_string()))
                .collect(),
            dhcp: Some(Dhcp {
                interface: "br0".into(),
                range: (
                    "198.51.100.100".into(),
                    "198.51.100.150".into(),
                    "255.255.255.0".into(),
                ),
                router: ROUTER.into(),
                hosts: (1..=nodes)
                    .map(|i| (node_mac(i), node_address(i)))
                    .collect(),
                reply_delay_secs: 0,
            }),
            dhcp6: None,
        };
        let dnsmasq = Dnsmasq::start(&ns, &dir.path().join("dnsmasq"), &cfg)?;
        Ok(Upstream {
            dnsmasq,
            cfg,
            ports: 0,
            ns,
            dir,
        })
    }

    /// A veth from `node` (named `ifname`, with `mac`) to a new port of `br0`.
    pub fn attach(&mut self, node: &Netns, ifname: &str, mac: &str) -> Result<(), String> {
        self.ports += 1;
        let port = format!("p{}", self.ports);
        self.ns.ip(&[
            "link",
            "add",
            &port,
            "type",
            "veth",
            "peer",
            "name",
            ifname,
            "netns",
            node.name(),
        ])?;
        node.ip(&["link", "set", ifname, "address", mac])?;
        self.ns.ip(&["link", "set", &port, "master", "br0", "up"])?;
        self.ns.exec("ethtool", &["-K", &port, "tx", "off"])?;
        node.ip(&["link", "set", ifname, "up"]).map(drop)
    }

    /// Restarts the DHCP server so that it holds every offer back `secs` seconds (a slow DHCP
    /// server or relay); leases it gave stay valid.
    pub fn delay_dhcp_offers(&mut self, secs: u32) -> Result<(), String> {
        if let Some(d) = self.cfg.dhcp.as_mut() {
            d.reply_delay_secs = secs;
        }
        self.restart_dnsmasq()
    }

    /// Serves DHCPv6 as well: node `i` (of `names`) gets [`node_address6`] and the FQDN
    /// `<name>.<ZONE>`.
    pub fn serve_dhcp6(&mut self, names: &[(u8, &str)]) -> Result<(), String> {
        self.cfg.dhcp6 = Some(Dhcp6 {
            range: ("2001:db8:1::100".into(), "2001:db8:1::150".into()),
            domain: ZONE.into(),
            hosts: names
                .iter()
                .map(|&(i, name)| (node_mac(i), node_address6(i), name.to_owned()))
                .collect(),
        });
        self.restart_dnsmasq()
    }

    /// A new dnsmasq with the current configuration, on the same files.
    fn restart_dnsmasq(&mut self) -> Result<(), String> {
        let dir = self.dir.path().join("dnsmasq");
        // One server at a time on the port: the old one stops before the new one binds.
        self.dnsmasq.stop();
        self.dnsmasq = Dnsmasq::start(&self.ns, &dir, &self.cfg)?;
        Ok(())
    }

    pub fn dnsmasq(&self) -> &Dnsmasq {
        &self.dnsmasq
    }

    pub fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }
}

/// One node: its namespace with uplink `ens3`, a private bus, OVS and NetworkManager. Fields drop
/// in the reference's teardown order: NM, OVS, bus, namespace, files.
#[derive(Debug)]
pub struct Node {
    pub nm: NetworkManager,
    pub ovs: Ovs,
    pub bus: DbusBus,
    pub view: NodeView,
    pub ns: Netns,
    pub index: u8,
    dir: tempfile::TempDir,
}

impl Node {
    /// Starts node `index` (1-based) attached to `upstream`. NetworkManager manages `ens3`
    /// but no profile exists yet.
    pub fn start(upstream: &mut Upstream, index: u8) -> Result<Node, String> {
        Self::start_with(upstream, index, &[])
    }

    /// As [`Self::start`], with extra NetworkManager `conf.d` files.
    pub fn start_with(
        upstream: &mut Upstream,
        index: u8,
        nm_conf: &[(&str, &str)],
    ) -> Result<Node, String> {
        let dir = scratch_dir(&format!("node{index}"))?;
        let ns = Netns::new(&format!("node{index}"))?;
        upstream.attach(&ns, "ens3", &node_mac(index))?;
        // ens3 frames reach both OVS (AF_PACKET) and the host stack: answer only on the right
        // interface, or pings see duplicate replies.
        ns.sysctl("net.ipv4.conf.ens3.rp_filter", "1")?;
        let view = NodeView::new(&ns, dir.path())?;
        let bus = DbusBus::start(&dir.path().join("dbus"))?;
        let ovs = Ovs::start(&ns, &view.run_dir().join("openvswitch"))?;
        let nm = NetworkManager::start_with(&view, &bus, &dir.path().join("nm"), nm_conf)?;
        Ok(Node {
            nm,
            ovs,
            bus,
            view,
            ns,
            index,
            dir,
        })
    }

    pub fn address(&self) -> String {
        node_address(self.index)
    }

    /// nmcli IPv4 settings for the machine network: DHCP, or the node's fixed address with
    /// the router as gateway.
    pub fn ipv4_settings(&self, dhcp: bool) -> Vec<String> {
        if dhcp {
            return vec!["ipv4.method".into(), "auto".into()];
        }
        [
            "ipv4.method",
            "manual",
            "ipv4.addresses",
            &format!("{}/{PREFIX_LEN}", self.address()),
            "ipv4.gateway",
            ROUTER,
        ]
        .map(str::to_owned)
        .to_vec()
    }

    /// The node's original uplink profile `ens3` as an installer leaves it (autoconnect, IPv6
    /// `auto`), plus `extra` settings, brought up.
    pub fn up_uplink(&self, dhcp: bool, extra: &[&str]) -> Result<(), String> {
        let ipv4 = self.ipv4_settings(dhcp);
        let mut settings = vec!["autoconnect", "yes", "ipv6.method", "auto"];
        settings.extend(ipv4.iter().map(String::as_str));
        settings.extend_from_slice(extra);
        self.nm.up_ethernet("ens3", "ens3", &settings)
    }

    pub fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// Whether `dev` is up and carries the default route.
    pub fn has_default_route_via(&self, dev: &str) -> bool {
        let up = output(std::process::Command::new("ip").args([
            "-n",
            self.ns.name(),
            "link",
            "show",
            dev,
        ]))
        .is_ok_and(|t| t.contains(",UP"));
        let route = self
            .ns
            .ip(&["route", "show", "default"])
            .unwrap_or_default();
        up && route.contains(&format!("dev {dev}"))
    }

    /// Waits up to 5 s for br-ex to be up with the default route, as NetworkManager sets it up:
    /// nothing here re-applies or re-adds anything, so a lost route fails the test.
    pub fn wait_br_ex_routed(&self) -> Result<(), String> {
        if crate::process::wait_for(Duration::from_secs(5), || {
            self.has_default_route_via("br-ex")
        }) {
            Ok(())
        } else {
            Err(format!(
                "br-ex has no default route: {}",
                self.ns.ip(&["route"]).unwrap_or_default()
            ))
        }
    }
}
