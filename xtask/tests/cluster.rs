//! The whole node, three times (issue 8): three nodes on one machine network boot the four
//! daemons in unit order; every service on a node uses the IP nodeip-selector chose (also on the
//! nodes whose second NIC has the better default route), the VIPs are held once and fail over,
//! peer changes reload the others, and each node resolves the API through its own resolver.

use std::time::{Duration, Instant};

use integration::cluster::{API_VIP, Binaries, Cluster, INGRESS_VIP, time_until};
use integration::node::{PREFIX_LEN, ZONE, node_address, node_address6};
use integration::require_root;

mod common;
use common::workspace_binaries;

fn say(m: String) {
    eprintln!("{m}");
}

#[test]
fn three_nodes_agree_on_their_ip_share_the_vips_and_resolve_through_themselves() {
    if !require_root("three_nodes_agree_on_their_ip_share_the_vips") {
        return;
    }
    let bins = Binaries(workspace_binaries());
    let mut c = Cluster::create(&bins, &say).unwrap();
    let t0 = Instant::now();
    c.boot(&say).unwrap();
    eprintln!("three nodes booted in {:.1} s", t0.elapsed().as_secs_f64());

    for n in &c.nodes {
        let (ip, ip6) = (node_address(n.index), node_address6(n.index));
        let who = format!("node{}", n.index);
        assert_eq!(
            n.primary_ip(),
            ip,
            "{who}: {}",
            n.log_tail("nodeip-selector", 5)
        );
        assert_eq!(n.nodeip_file("ipv6").trim(), ip6, "{who}: dual-stack");
        let dropin = n.kubelet_dropin();
        assert!(
            dropin.contains(&format!("KUBELET_NODE_IP={ip}"))
                && dropin.contains(&format!("KUBELET_NODE_IPS={ip},{ip6}")),
            "{who}: {dropin}"
        );
        let br_ex = n.addresses("br-ex");
        assert!(
            br_ex.contains(&format!(" {ip}/{PREFIX_LEN}")) && br_ex.contains(&format!(" {ip6}/64")),
            "{who}: {br_ex}"
        );
        assert!(!n.addresses("ens3").contains(&ip), "{who}: moved off ens3");
        let routes = n.default_routes();
        assert!(
            routes
                .lines()
                .next()
                .is_some_and(|l| l.contains("dev br-ex")),
            "{who}: br-ex has the best default route\n{routes}"
        );
        let conf = n.keepalived_conf();
        assert!(
            conf.contains("interface br-ex") && conf.contains(&format!("unicast_src_ip {ip}")),
            "{who}: {conf}"
        );
        let resolv = n.resolv_conf();
        assert_eq!(
            resolv.lines().find(|l| l.starts_with("nameserver")),
            Some(format!("nameserver {ip}").as_str()),
            "{who}: {resolv}"
        );
        // The upstream DNS has no API record: the answer comes from the node's resolver.
        let before = n.coredns_queries();
        let answer = n.getent(&format!("api.{ZONE}")).unwrap_or_default();
        assert!(answer.starts_with(API_VIP), "{who}: getent said {answer:?}");
        assert!(
            n.coredns_queries() > before,
            "{who}: its own resolver answered"
        );
    }
    // Nodes 2 and 3 have a lower-metric default route on eth1: upstream's trap.
    for i in [2, 3] {
        let routes = c.nodes[i - 1].default_routes();
        assert!(
            routes.contains("dev eth1 proto static metric 50"),
            "{routes}"
        );
    }

    let api = c
        .wait_single_holder(API_VIP, Duration::from_secs(20))
        .unwrap();
    c.wait_single_holder(INGRESS_VIP, Duration::from_secs(20))
        .unwrap();

    // Failover: the API VIP holder's keepalived stops; another node holds the VIP within 4 s.
    let t = Instant::now();
    c.nodes[usize::from(api) - 1].stop_keepalived();
    assert!(
        time_until(Duration::from_secs(10), || {
            let h = c.holders(API_VIP);
            h.len() == 1 && h[0] != api
        })
        .is_some(),
        "API VIP held by {:?}",
        c.holders(API_VIP)
    );
    let moved = t.elapsed();
    eprintln!(
        "API VIP moved off node{api} in {:.2} s",
        moved.as_secs_f64()
    );
    assert!(moved <= Duration::from_secs(4), "{moved:?}");
    c.nodes[usize::from(api) - 1].start_keepalived().unwrap();

    // Removing node 3 from the peer list reloads the other two.
    c.set_peers(&[1, 2]).unwrap();
    for n in &c.nodes[..2] {
        let gone = time_until(Duration::from_secs(10), || {
            !n.keepalived_conf().contains(&node_address(3))
        });
        assert!(gone.is_some(), "node{}: {}", n.index, n.keepalived_conf());
        let reloaded = time_until(Duration::from_secs(5), || {
            n.keepalived_log(200).contains("Reloading")
        });
        assert!(reloaded.is_some(), "node{}: keepalived reloaded", n.index);
    }
}
