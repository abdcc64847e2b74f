//! `cargo xtask demo`: three on-prem nodes booting their networking (integration::cluster), one
//! table per node, the boot's timeline from the daemons' own logs, and teardown (or `--keep`).

use std::io::BufRead;
use std::time::Instant;

use anyhow::{anyhow, bail};
use integration::cluster::{API_VIP, Binaries, Cluster, ClusterNode, INGRESS_VIP};
use integration::node::ZONE;

use crate::util::{cargo, is_root, root, run as run_cmd};

pub fn run(keep: bool) -> anyhow::Result<()> {
    if !is_root() {
        bail!("the demo builds network namespaces: run it as root");
    }
    let t0 = Instant::now();
    // Cargo's own progress is shown: on 2 cores the first release build is minutes of otherwise
    // silent work.
    println!(
        "== Building the four daemons (release). The first build takes about 6 minutes on 2 cores; \
         later runs reuse it =="
    );
    // The four daemons only: xtask (this program, already built) in release would add its own
    // whole-program link.
    run_cmd(cargo().args([
        "build",
        "--release",
        "--locked",
        "-p",
        "nodeip-selector",
        "-p",
        "ovs-bridge-configurator",
        "-p",
        "resolv-prepender",
        "-p",
        "keepalived-monitor",
        "--bins",
    ]))?;
    let bins = Binaries(root().join("target/release"));
    let stamp = move |m: String| println!("[{:>5.1} s] {m}", t0.elapsed().as_secs_f64());
    println!(
        "== Three on-prem nodes: dual-stack machine network 198.51.100.0/24 + 2001:db8:1::/64 =="
    );
    println!("   API VIP {API_VIP}, ingress VIP {INGRESS_VIP}, cluster domain {ZONE}");
    println!(
        "   node2 and node3 also have eth1 (203.0.113.0/24) with a better default route (metric 50);"
    );
    println!("   node2's /etc/default/nodeip-configuration says NODEIP_HINT=198.51.100.1\n");
    // The host keeps no /run/netns or /etc/netns the demo created.
    let netns_dirs_before = integration::leaks::existing_netns_dirs();
    let mut cluster = Cluster::create(&bins, &stamp).map_err(|e| anyhow!(e))?;
    let booted = Instant::now();
    cluster.boot(&stamp).map_err(|e| anyhow!(e))?;
    stamp(format!(
        "all three nodes up ({:.1} s of boot)",
        booted.elapsed().as_secs_f64()
    ));
    // keepalived's first election settles within a few seconds.
    let _ = cluster.wait_single_holder(API_VIP, std::time::Duration::from_secs(10));
    let _ = cluster.wait_single_holder(INGRESS_VIP, std::time::Duration::from_secs(10));
    for n in &cluster.nodes {
        table(&cluster, n);
    }
    timeline(&cluster);
    println!(
        "\ndemo finished in {:.1} s (build included)",
        t0.elapsed().as_secs_f64()
    );
    if keep {
        instructions(&cluster);
        let _ = std::io::stdin().lock().lines().next();
    }
    println!("tearing down");
    drop(cluster);
    integration::leaks::remove_if_created(&netns_dirs_before).map_err(|e| anyhow!(e))
}

fn table(c: &Cluster, n: &ClusterNode) {
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

fn timeline(c: &Cluster) {
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

fn instructions(c: &Cluster) {
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
