//! Rolling restarts under traffic: while a client on the machine network pings
//! both VIPs every 50 ms and every node resolves the API name through its own resolver every
//! 100 ms, every daemon on every node is restarted, one node at a time, as an RPM upgrade does;
//! then keepalived itself is restarted on the API VIP's holder. The daemons' restarts may lose
//! nothing; keepalived's costs one VRRP failover, under 4 s.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use integration::cluster::{API_VIP, Cluster, INGRESS_VIP};
use integration::node::ZONE;
use integration::ping::Pinger;
use integration::require_root;

mod common;
use common::booted_cluster;

/// The ping interval, in seconds as ping takes it.
const PING_INTERVAL: &str = "0.05";

/// Every 100 ms, `getent hosts api.<zone>` in each node (through its own /etc/resolv.conf):
/// lookups made and the failed ones, with when and where.
struct Lookups {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<(u64, Vec<String>)>,
}

impl Lookups {
    fn start(namespaces: Vec<String>) -> Lookups {
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let thread = std::thread::spawn(move || {
            let (t0, mut made, mut failed) = (Instant::now(), 0, Vec::new());
            while !s.load(Ordering::Relaxed) {
                let next = Instant::now() + Duration::from_millis(100);
                for (i, ns) in namespaces.iter().enumerate() {
                    let out = Command::new("ip")
                        .args([
                            "netns",
                            "exec",
                            ns,
                            "getent",
                            "hosts",
                            &format!("api.{ZONE}"),
                        ])
                        .output()
                        .unwrap();
                    made += 1;
                    let text = String::from_utf8_lossy(&out.stdout);
                    if !text.starts_with(&format!("{API_VIP} ")) {
                        failed.push(format!(
                            "{:.2} s node{}: {:?} {}",
                            t0.elapsed().as_secs_f64(),
                            i + 1,
                            out.status,
                            text.trim()
                        ));
                    }
                }
                std::thread::sleep(next.saturating_duration_since(Instant::now()));
            }
            (made, failed)
        });
        Lookups { stop, thread }
    }

    fn finish(self) -> (u64, Vec<String>) {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

/// The probes together: both VIPs pinged, the API name resolved on every node.
struct Traffic {
    pingers: Vec<(&'static str, Pinger)>,
    lookups: Lookups,
}

impl Traffic {
    fn start(c: &Cluster) -> Traffic {
        Traffic {
            pingers: [API_VIP, INGRESS_VIP]
                .map(|vip| (vip, Pinger::start(&c.up.ns, vip, PING_INTERVAL).unwrap()))
                .into(),
            lookups: Lookups::start(
                c.nodes
                    .iter()
                    .map(|n| n.node.ns.name().to_owned())
                    .collect(),
            ),
        }
    }

    /// Stops the probes and reports them: (pings lost per VIP, failed lookups).
    fn finish(self, phase: &str) -> (Vec<(&'static str, u64)>, Vec<String>) {
        let mut lost = Vec::new();
        for (vip, p) in self.pingers {
            let pinged = p.finish().unwrap();
            eprintln!(
                "{phase}: {vip}: {} pings, {} lost {:?}",
                pinged.sent,
                pinged.lost.len(),
                pinged.lost
            );
            lost.push((vip, pinged.lost.len() as u64));
        }
        let (made, failed) = self.lookups.finish();
        eprintln!(
            "{phase}: {made} lookups of api.{ZONE}, {} failed",
            failed.len()
        );
        (lost, failed)
    }
}

#[test]
fn rolling_restarts_under_traffic_lose_nothing_but_one_failover() {
    if !require_root("rolling_restarts_under_traffic_lose_nothing_but_one_failover") {
        return;
    }
    let (mut c, api) = booted_cluster();
    c.wait_single_holder(INGRESS_VIP, Duration::from_secs(20))
        .unwrap();
    let reference: Vec<String> = c.nodes.iter().map(|n| n.state()).collect();

    // Every daemon on every node, one node at a time: the one-shots run again in the same
    // boot (`systemctl restart`), the long-running ones are try-restarted.
    let traffic = Traffic::start(&c);
    let t0 = Instant::now();
    std::thread::sleep(Duration::from_secs(1));
    for n in &mut c.nodes {
        let who = format!("node{}", n.index);
        eprintln!("{who}: restarts from {:.2} s", t0.elapsed().as_secs_f64());
        assert!(n.run_nodeip_selector().unwrap().success(), "{who}");
        n.configure_ovs().unwrap();
        n.try_restart("resolv-prepender").unwrap();
        n.try_restart("keepalived-monitor").unwrap();
        // A restarted daemon is up and has looked at the node before the next node's turn.
        std::thread::sleep(Duration::from_secs(2));
        eprintln!("{who}: every daemon restarted");
    }
    let (lost, failed) = traffic.finish("daemons restarted");
    assert_eq!(lost, [(API_VIP, 0), (INGRESS_VIP, 0)], "pings lost");
    assert!(failed.is_empty(), "failed lookups:\n{}", failed.join("\n"));
    for (n, want) in c.nodes.iter().zip(&reference) {
        assert_eq!(n.state(), *want, "node{} changed", n.index);
    }

    // keepalived restarted on the API VIP's holder: the VIP fails over once.
    let traffic = Traffic::start(&c);
    std::thread::sleep(Duration::from_secs(1));
    // Who holds the API VIP, sampled every 50 ms: the moves keepalived's restart caused.
    let done = AtomicBool::new(false);
    // And the client's neighbour entry for it, with when it changed: what a lost ping saw.
    let (moves, neighbour) = std::thread::scope(|s| {
        let sampler = s.spawn(|| {
            let t0 = Instant::now();
            let mut seen: Vec<Vec<u8>> = vec![vec![api]];
            let mut neighbour: Vec<String> = Vec::new();
            while !done.load(Ordering::Relaxed) {
                let now = c.holders(API_VIP);
                if seen.last() != Some(&now) {
                    seen.push(now);
                }
                let entry = c.up.ns.ip(&["neigh", "show", API_VIP]).unwrap_or_default();
                if neighbour.last().is_none_or(|l| !l.ends_with(entry.trim())) {
                    neighbour.push(format!(
                        "{:.2} s {}",
                        t0.elapsed().as_secs_f64(),
                        entry.trim()
                    ));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            (seen, neighbour)
        });
        let holder = &c.nodes[usize::from(api) - 1];
        holder.stop_keepalived();
        holder.start_keepalived().unwrap();
        std::thread::sleep(Duration::from_secs(5));
        done.store(true, Ordering::Relaxed);
        sampler.join().unwrap()
    });
    eprintln!("API VIP holders in turn: {moves:?}");
    assert!(
        moves.iter().any(|h| h.len() == 1 && h[0] != api),
        "the VIP failed over: {moves:?}"
    );
    // On a failure, each node's keepalived says when it entered and left MASTER.
    let logs = || -> String {
        c.nodes
            .iter()
            .map(|n| format!("--- node{} keepalived\n{}", n.index, n.keepalived_log(12)))
            .collect()
    };
    assert!(
        moves.iter().all(|h| h.len() <= 1),
        "never held twice: {moves:?}\n{}",
        logs()
    );
    let (lost, failed) = traffic.finish(&format!("keepalived restarted on node{api}"));
    assert!(failed.is_empty(), "failed lookups:\n{}", failed.join("\n"));
    let interval = PING_INTERVAL.parse::<f64>().unwrap();
    for (vip, l) in lost {
        let gap = l as f64 * interval;
        eprintln!("{vip}: {gap:.2} s without answers");
        assert!(
            gap < 4.0,
            "{vip}: {l} pings lost\nthe client's entry for {API_VIP}:\n{}\n{}",
            neighbour.join("\n"),
            c.nodes
                .iter()
                .map(|n| format!(
                    "--- node{}: {}{}",
                    n.index,
                    n.node
                        .ns
                        .ip(&["-br", "link", "show", "br-ex"])
                        .unwrap_or_default(),
                    n.keepalived_log(40)
                ))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    c.wait_single_holder(API_VIP, Duration::from_secs(20))
        .unwrap();
}
