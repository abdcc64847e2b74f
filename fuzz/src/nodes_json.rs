//! Node objects (the JSON the API server sends) through the peer view into the keepalived.conf
//! builder and renderer. Properties: never panics; every unicast peer is an address of a Node
//! and never the node's own; the corpus replay (`tests/corpus.rs`) also runs every rendered
//! candidate through real `keepalived -t`.
//!
//! Input: byte 0 picks this node's role (bits 0-1), the mode (bit 2) and single- or dual-stack
//! VIPs (bit 3); the rest is a JSON list of Node objects.

use std::net::IpAddr;

use keepalived_monitor::build::{Inputs, build};
use keepalived_monitor::check_scripts::default_scripts;
use keepalived_monitor::kube_node::NodeView;
use keepalived_monitor::kube_source::peer_of;
use keepalived_monitor::model::{Mode, Role};
use keepalived_monitor::peers::Peers;
use keepalived_monitor::settings::{PeerSource, Reload, Settings};
use selection::fixture::snapshot;

/// The interface and addresses the candidate is rendered for; the replay test builds the same
/// interface in a namespace for `keepalived -t`.
pub const INTERFACE: &str = "br-ex";
pub const OWN: [&str; 2] = ["192.0.2.10/24", "2001:db8::10/64"];

pub fn check(data: &[u8]) {
    let Some((text, peers)) = render(data) else {
        return;
    };
    let role = role_of(data[0]);
    let own: Vec<IpAddr> = OWN
        .iter()
        .map(|c| c.split('/').next().unwrap().parse().unwrap())
        .collect();
    let known: Vec<IpAddr> = peers
        .nodes
        .iter()
        .flat_map(|n| n.addresses.iter().chain(&n.ovn_addresses))
        .map(|a| a.to_canonical())
        .collect();
    let mut in_peers = false;
    for line in text.lines().map(str::trim) {
        match line {
            "unicast_peer {" => in_peers = true,
            "}" => in_peers = false,
            peer if in_peers => {
                let ip: IpAddr = peer
                    .parse()
                    .unwrap_or_else(|_| panic!("unicast peer {peer:?} is not an IP\n{text}"));
                if ip.is_unspecified() {
                    // The placeholder of an empty list: the only peer then.
                    assert_eq!(
                        peers_in_block(&text, peer),
                        1,
                        "placeholder among peers\n{text}"
                    );
                    continue;
                }
                // The bootstrap lists every backend as upstream does (it is never one).
                if role != Role::Bootstrap {
                    assert!(!own.contains(&ip), "own address {ip} is a peer\n{text}");
                }
                assert!(known.contains(&ip), "peer {ip} is no Node's\n{text}");
            }
            _ => {}
        }
    }
}

fn role_of(flags: u8) -> Role {
    [Role::Master, Role::Worker, Role::Bootstrap, Role::Arbiter][usize::from(flags & 3)]
}

/// How many peers the `unicast_peer` block holding `peer` lists.
fn peers_in_block(text: &str, peer: &str) -> usize {
    text.split("unicast_peer {")
        .skip(1)
        .map(|b| b.split('}').next().unwrap_or_default())
        .find(|b| b.lines().any(|l| l.trim() == peer))
        .map_or(0, |b| b.lines().filter(|l| !l.trim().is_empty()).count())
}

/// The candidate keepalived.conf for this input, with the peers it was built from; `None` when
/// the input is not a Node list or the builder refuses (the live file would stay).
pub fn render(data: &[u8]) -> Option<(String, Peers)> {
    let [flags, rest @ ..] = data else {
        return None;
    };
    let nodes: Vec<NodeView> = serde_json::from_slice(rest).ok()?;
    let peers = Peers {
        nodes: nodes.iter().map(peer_of).collect(),
    };
    let role = role_of(*flags);
    let mode = if flags & 4 == 0 {
        Mode::Unicast
    } else {
        Mode::Multicast
    };
    let dual = flags & 8 != 0;
    let vips = |v4: &str, v6: &str| -> Vec<IpAddr> {
        let mut v = vec![v4.parse().unwrap()];
        if dual {
            v.push(v6.parse().unwrap());
        }
        v
    };
    let settings = Settings {
        cluster_name: "ostest".into(),
        role,
        api_vips: vips("192.0.2.5", "2001:db8::5"),
        ingress_vips: vips("192.0.2.4", "2001:db8::4"),
        platform: "BareMetal".into(),
        topology: "HighlyAvailable".into(),
        output: "/etc/keepalived/keepalived.conf".into(),
        mode,
        keepalived_dir: "/etc/keepalived".into(),
        peers: PeerSource::File("/etc/keepalived-monitor/peers.toml".into()),
        reload: Reload::Systemd,
        debounce: std::time::Duration::from_secs(3),
        api_port: 6443,
        run_dir: "/run/nodeip-configuration".into(),
        keepalived_run_dir: "/run/keepalived".into(),
        user_managed_lb: false,
        scripts: default_scripts(std::path::Path::new("/etc/keepalived")),
    };
    let snap = snapshot()
        .link(2, "ens3")
        .link(5, INTERFACE)
        .addr(5, OWN[0])
        .addr(5, OWN[1])
        .build();
    let inputs = Inputs {
        settings: &settings,
        snapshot: &snap,
        node_ipv4: Some("192.0.2.10".parse().unwrap()),
        node_ipv6: Some("2001:db8::10".parse().unwrap()),
        peers: &peers,
        mode,
        remote_worker: false,
    };
    let text = build(&inputs).ok()?.render();
    Some((text, peers))
}
