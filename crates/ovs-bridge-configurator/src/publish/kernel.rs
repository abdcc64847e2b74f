//! The kernel's side of the node, read straight from netlink: each link's name, kind, state,
//! MAC, MTU and addresses. Two dumps take milliseconds on a node with a thousand interfaces,
//! where `show` takes seconds (nmstate reads NetworkManager over D-Bus, and every interface's
//! ethtool settings); what changed between two of these views is laid over the last document
//! `show` gave ([`super::overlay`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::IpAddr;

use rtnetlink::packet_route::link::{LinkAttribute, LinkFlags, LinkInfo, LinkMessage, State};
use selection::net::mac_text;
use selection::netlink::{NetlinkError, NetlinkReader};

/// One link as the kernel reports it, in nmstate's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelLink {
    /// nmstate's interface type for the link's kind.
    pub kind: String,
    /// nmstate's `state`: `up`, `down` or `unknown`.
    pub state: &'static str,
    /// `AA:BB:...` as nmstate writes it; empty when the link has none.
    pub mac: String,
    pub mtu: u32,
    pub addresses: BTreeSet<(IpAddr, u8)>,
}

/// Every link by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelView {
    pub links: BTreeMap<String, KernelLink>,
}

/// A link before its addresses are known.
struct Dumped {
    index: u32,
    name: String,
    link: KernelLink,
}

/// The view now: links, then addresses (an address whose link vanished in between is dropped).
pub async fn read(reader: &mut NetlinkReader) -> Result<KernelView, NetlinkError> {
    let dumped = reader.links_as(dumped).await?;
    let mut by_index: HashMap<u32, BTreeSet<(IpAddr, u8)>> = HashMap::new();
    for a in reader.addresses().await? {
        by_index
            .entry(a.ifindex)
            .or_default()
            .insert((a.ip, a.prefix_len));
    }
    let links = dumped
        .into_iter()
        .filter(|d| !left_out(&d.name, &d.link.kind))
        .map(|mut d| {
            d.link.addresses = by_index.remove(&d.index).unwrap_or_default();
            (d.name, d.link)
        })
        .collect();
    Ok(KernelView { links })
}

/// Links nmstate's `show` leaves out: OVS's datapath devices and IPsec's vti links.
fn left_out(name: &str, kind: &str) -> bool {
    matches!(name, "ovs-system" | "ovs-netdev") || kind == "vti"
}

/// Whether nmstate supports interfaces of this type (its `InterfaceType::SUPPORTED_LIST`);
/// it shows the others with `state: ignore`.
pub fn supported(kind: &str) -> bool {
    SUPPORTED.contains(&kind)
}

const SUPPORTED: &[&str] = &[
    "bond",
    "linux-bridge",
    "dummy",
    "ethernet",
    "veth",
    "mac-vtap",
    "mac-vlan",
    "ovs-interface",
    "vlan",
    "vxlan",
    "infiniband",
    "loopback",
    "macsec",
    "vrf",
    "hsr",
    "ip-tunnel",
    "xfrm",
    "ipvlan",
];

fn dumped(msg: &LinkMessage) -> Option<Dumped> {
    let mut name = None;
    let (mut kind, mut mac, mut mtu, mut oper) = (None, String::new(), 0, State::Unknown);
    for a in &msg.attributes {
        match a {
            LinkAttribute::IfName(n) => name = Some(n.clone()),
            LinkAttribute::Address(m) => mac = mac_text(m),
            LinkAttribute::Mtu(m) => mtu = *m,
            LinkAttribute::OperState(s) => oper = *s,
            LinkAttribute::LinkInfo(infos) => {
                kind = infos.iter().find_map(|i| match i {
                    LinkInfo::Kind(k) => Some(k.to_string()),
                    _ => None,
                })
            }
            _ => {}
        }
    }
    let flags = msg.header.flags;
    let kind = match kind {
        Some(k) => interface_type(&k),
        None if flags.contains(LinkFlags::Loopback) => "loopback".into(),
        None => "ethernet".into(),
    };
    Some(Dumped {
        index: msg.header.index,
        name: name?,
        link: KernelLink {
            kind,
            state: interface_state(oper, flags.contains(LinkFlags::Running)),
            mac,
            mtu,
            addresses: BTreeSet::new(),
        },
    })
}

/// nmstate's state for a link: up when the kernel says it is operationally up or running,
/// down when it says down (nmstate's `InterfaceState` from nispor's).
fn interface_state(oper: State, running: bool) -> &'static str {
    match oper {
        State::Up => "up",
        _ if running => "up",
        State::Down => "down",
        _ => "unknown",
    }
}

/// nmstate's interface type for a kernel link kind (`IFLA_INFO_KIND`), as nmstate names nispor's
/// types; a kind it has no type for is its own name, as nmstate shows it.
fn interface_type(kind: &str) -> String {
    match kind {
        "bridge" => "linux-bridge",
        "macvlan" => "mac-vlan",
        "macvtap" => "mac-vtap",
        "openvswitch" => "ovs-interface",
        "ipoib" => "infiniband",
        "ipip" | "ip6tnl" | "sit" | "gre" | "ip6gre" => "ip-tunnel",
        other => other,
    }
    .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_loopback_link_is_read_with_its_addresses() {
        let mut reader = NetlinkReader::connect().unwrap();
        let view = read(&mut reader).await.unwrap();
        let lo = &view.links["lo"];
        assert_eq!(lo.kind, "loopback");
        assert!(
            lo.addresses.contains(&("127.0.0.1".parse().unwrap(), 8)),
            "{lo:?}"
        );
    }

    #[test]
    fn kinds_take_nmstates_type_names() {
        assert_eq!(interface_type("bridge"), "linux-bridge");
        assert_eq!(interface_type("macvlan"), "mac-vlan");
        assert_eq!(interface_type("openvswitch"), "ovs-interface");
        assert_eq!(interface_type("vlan"), "vlan");
        assert_eq!(interface_type("wireguard"), "wireguard");
    }

    #[test]
    fn what_nmstate_leaves_out_or_ignores() {
        assert!(left_out("ovs-system", "openvswitch"));
        assert!(left_out("ipsec0", "vti"));
        assert!(!left_out("br-ex", "ovs-interface"));
        assert!(supported("mac-vlan") && supported("ovs-interface"));
        assert!(!supported("wireguard") && !supported("geneve"));
    }

    #[test]
    fn a_running_link_is_up_whatever_its_operstate_says() {
        assert_eq!(interface_state(State::Up, false), "up");
        assert_eq!(interface_state(State::Unknown, true), "up");
        assert_eq!(interface_state(State::Down, false), "down");
        assert_eq!(interface_state(State::Dormant, false), "unknown");
    }
}
