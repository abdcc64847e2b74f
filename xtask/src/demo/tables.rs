//! What the demo prints about the booted cluster: one table per node, the boot's log lines in
//! time order, and the commands to look around a cluster left running.

use integration::cluster::{API_VIP, Cluster, ClusterNode, INGRESS_VIP};
use integration::node::ZONE;

/// One node's table: chosen IPs and why, br-ex, default routes, resolv.conf's head,
/// keepalived's states, the VIPs it holds.
pub fn table(c: &Cluster, n: &ClusterNode) {
    let why = n
        .log_tail("nodeip-selector", 50)
        .lines()
        .rev()
        .find_map(|l| l.split_once("node IP ").map(|(_, r)| r.to_owned()))
        .unwrap_or_default();
    let mut rows = vec![
        (
            "chosen IPs".to_owned(),
            format!("{} + {}", n.primary_ip(), n.nodeip_file("ipv6").trim()),
        ),
        ("why".into(), why),
        ("br-ex".into(), squeeze(&n.addresses("br-ex"))),
    ];
    for (k, line) in n.default_routes().lines().enumerate() {
        rows.push((
            if k == 0 { "default routes" } else { "" }.into(),
            line.trim().to_owned(),
        ));
    }
    for (k, line) in n
        .resolv_conf()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(3)
        .enumerate()
    {
        rows.push((
            if k == 0 { "resolv.conf" } else { "" }.into(),
            line.to_owned(),
        ));
    }
    let states: Vec<String> = n
        .vrrp_states()
        .into_iter()
        .map(|(inst, state)| format!("{inst} {state}"))
        .collect();
    rows.push(("keepalived".into(), states.join(", ")));
    let held: Vec<&str> = [API_VIP, INGRESS_VIP]
        .into_iter()
        .filter(|v| c.holders(v).contains(&n.index))
        .collect();
    rows.push((
        "VIPs held".into(),
        if held.is_empty() {
            "-".into()
        } else {
            held.join(", ")
        },
    ));
    println!("\n== node{} ({}) ==", n.index, n.node.ns.name());
    for (k, v) in rows {
        println!("  {k:<15} {v}");
    }
}

/// `ip -br` output on one line, columns separated by single spaces.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every daemon's log line of every node, in time order.
pub fn boot_log(c: &Cluster) {
    println!(
        "\n== Boot timeline (each daemon's own log, seconds since the cluster was created) =="
    );
    for e in c.timeline() {
        println!(
            "  {:>6.2}  node{}  {:<24} {}",
            e.at.as_secs_f64(),
            e.node,
            e.source,
            e.what
        );
    }
}

/// The commands to look around the cluster left running.
pub fn instructions(c: &Cluster) {
    println!("\n== Left running (--keep). Inspect, then press Enter to tear down ==");
    for n in &c.nodes {
        let ns = n.node.ns.name();
        println!("node{}:", n.index);
        println!("  ip netns exec {ns} ip -br addr; ip netns exec {ns} ip route");
        println!("  ip netns exec {ns} getent hosts api.{ZONE}   # through the node's resolv.conf");
        println!(
            "  cat /etc/netns/{ns}/resolv.conf {}/keepalived.conf",
            n.dir.display()
        );
        println!("  logs: {}/*.log", n.dir.display());
        println!(
            "  nmcli: DBUS_SYSTEM_BUS_ADDRESS={} nmcli c",
            n.node.nm.bus_address()
        );
    }
}
