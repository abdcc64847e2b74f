//! Day-2 observations on a running cluster, shared by the day-2 tests and `cargo xtask demo`:
//! which nodes hold the VIPs while a change runs (sampled, with the time of each sample),
//! which samples show a VIP away from its holder, whether a node is back on br-ex after a
//! change was undone, and another host on the machine network's wire.

use std::time::{Duration, Instant};

use super::{API_VIP, Cluster, ClusterNode, INGRESS_VIP};
use crate::keepalived::holds;
use crate::netns::Netns;
use crate::node::{ROUTER, Upstream, node_address};
use crate::process::time_until;

/// Which nodes held the API and Ingress VIPs at one moment.
#[derive(Clone, Debug)]
pub struct VipSample {
    pub at: Instant,
    /// Each VIP with the nodes (1-based) whose br-ex held it.
    pub held: Vec<(&'static str, Vec<u8>)>,
}

/// How often [`while_sampling_vips`] looks (plus the time the look itself takes).
pub const SAMPLE_EVERY: Duration = Duration::from_millis(50);

/// Runs `f` while sampling every [`SAMPLE_EVERY`] which nodes hold the API and Ingress VIPs,
/// and twice more after it returns (a VIP dropped at the very end counts too).
pub fn while_sampling_vips<R: Send>(
    c: &Cluster,
    f: impl FnOnce() -> R + Send,
) -> (R, Vec<VipSample>) {
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let sampler = scope.spawn(|| {
            let mut samples = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                samples.push(VipSample {
                    at: Instant::now(),
                    held: [API_VIP, INGRESS_VIP]
                        .into_iter()
                        .map(|v| (v, c.holders(v)))
                        .collect(),
                });
                std::thread::sleep(SAMPLE_EVERY);
            }
            samples
        });
        let result = f();
        std::thread::sleep(SAMPLE_EVERY * 3);
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        (result, sampler.join().expect("the VIP sampler panicked"))
    })
}

/// Every sample in which a VIP was not on its holder alone, one line each; `holders` pairs
/// each VIP with the node that held it before.
pub fn moved(samples: &[VipSample], holders: &[(&str, u8)]) -> Vec<String> {
    samples
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            s.held
                .iter()
                .zip(holders)
                .filter(|((_, on), (_, h))| on.as_slice() != [*h])
                .map(move |((v, on), (_, h))| format!("sample {i}: {v} on {on:?}, not on [{h}]"))
        })
        .collect()
}

/// Whether node `n` carries its node IP on br-ex with its default route through the machine
/// network's gateway.
pub fn on_br_ex(node: &ClusterNode, n: u8) -> bool {
    holds(&node.node.ns, "br-ex", &node_address(n))
        && node
            .node
            .ns
            .ip(&["route", "show", "default"])
            .is_ok_and(|r| r.contains(&format!("via {ROUTER} dev br-ex")))
}

/// Waits up to 20 s for node `n` to be [`on_br_ex`] again; how long it took.
pub fn back_on_br_ex(node: &ClusterNode, n: u8) -> Option<Duration> {
    time_until(Duration::from_secs(20), || on_br_ex(node, n))
}

/// Another host on the machine network's wire (a namespace on a new port of the upstream
/// bridge) with an address of its own: the peer a node's new interface must reach.
#[derive(Debug)]
pub struct WirePeer {
    pub ns: Netns,
}

impl WirePeer {
    /// The peer with `cidr` on its NIC, attached to `up`'s bridge.
    pub fn start(up: &mut Upstream, cidr: &str) -> Result<WirePeer, String> {
        let ns = Netns::new("peer")?;
        up.attach(&ns, "eth0", "0a:58:c0:00:02:01")?;
        ns.addr("eth0", cidr, &[])?;
        Ok(WirePeer { ns })
    }

    /// The peer's IPv6 link-local address (its NIC's).
    pub fn link_local(&self) -> Result<String, String> {
        let out = self
            .ns
            .ip(&["-6", "-br", "addr", "show", "dev", "eth0", "scope", "link"])?;
        out.split_whitespace()
            .nth(2)
            .and_then(|a| a.split('/').next())
            .map(str::to_owned)
            .ok_or_else(|| format!("no link-local address on the peer: {out}"))
    }
}
