//! The converted bridge checked in the kernel: it carries the node IP and the default route,
//! and its first global IPv6 address is usable.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use selection::Snapshot;
use selection::netlink::{ChangeStream, NetlinkReader};

use crate::automatic::error::{ConvertError, NotReady};
use crate::automatic::gather::Gathered;
use crate::automatic::plan::{BridgePlan, Plan};

/// How long the first global IPv6 address on the bridge may stay tentative (upstream: 60 tries).
const IPV6_USABLE_WAIT: Duration = Duration::from_secs(60);
/// How long the routes and addresses may take to settle on the bridge after activation.
const SETTLE_WAIT: Duration = Duration::from_secs(10);

/// The bridge carries the node IP and the default route with our metric (or, as upstream
/// accepts, with the metric a static default route of the uplink had), and its first global
/// IPv6 address is usable; waits for the kernel state through netlink events.
pub(crate) async fn bridge_carries_node_ip(
    plan: &Plan,
    g: &Gathered,
    changes: &mut ChangeStream,
    reader: &mut NetlinkReader,
) -> Result<(), ConvertError> {
    let limit = settle_limit(&g.snapshot);
    for b in &plan.bridges {
        let wanted = Wanted::for_bridge(b, g);
        await_ready(&wanted, Instant::now() + limit, changes, reader).await?;
    }
    Ok(())
}

/// How long the bridge may take: an IPv6 address must also pass duplicate address detection.
fn settle_limit(before: &Snapshot) -> Duration {
    if before.addresses.iter().any(|a| a.ip.is_ipv6()) {
        IPV6_USABLE_WAIT
    } else {
        SETTLE_WAIT
    }
}

/// Takes snapshots until `wanted` holds, each after a netlink change (or the deadline); past
/// the deadline, the last reason it did not hold is the error.
async fn await_ready(
    wanted: &Wanted,
    deadline: Instant,
    changes: &mut ChangeStream,
    reader: &mut NetlinkReader,
) -> Result<(), ConvertError> {
    loop {
        let snap = reader.snapshot().await?;
        match wanted.check(&snap) {
            Ok(()) => return Ok(()),
            Err(why) if Instant::now() >= deadline => return Err(why.into()),
            Err(why) => {
                tracing::debug!("waiting: {why}");
                let _ = tokio::time::timeout(deadline - Instant::now(), changes.next()).await;
            }
        }
    }
}

/// What one converted bridge must carry, taken from the uplink before the conversion.
struct Wanted {
    bridge: &'static str,
    /// The addresses that move from the uplink to the bridge.
    ips: Vec<IpAddr>,
    /// The uplink had a default route, so the bridge must have one too.
    had_default: bool,
    /// The bridge's metric, and the uplink's own default-route metrics: a route the profile
    /// lists with an explicit metric keeps it on the bridge.
    metrics: Vec<u32>,
    /// The bridge's own metric (named when the route is missing).
    metric: u32,
}

impl Wanted {
    fn for_bridge(b: &BridgePlan, g: &Gathered) -> Self {
        let before = &g.snapshot;
        let uplink = before
            .links
            .iter()
            .find(|l| l.name == b.interface)
            .map(|l| l.index);
        let mut metrics = uplink_default_metrics(before, uplink);
        let had_default = !metrics.is_empty();
        metrics.push(b.names.metric);
        Wanted {
            bridge: b.names.bridge,
            ips: node_ips_on_uplink(g, uplink),
            had_default,
            metrics,
            metric: b.names.metric,
        }
    }

    /// Whether `snap` shows the bridge ready, or the first reason it is not.
    fn check(&self, snap: &Snapshot) -> Result<(), NotReady> {
        let bridge = self.bridge;
        let Some(idx) = snap
            .links
            .iter()
            .find(|l| l.name == bridge)
            .map(|l| l.index)
        else {
            return Err(NotReady::NoBridge { bridge });
        };
        for ip in &self.ips {
            if !snap
                .addresses
                .iter()
                .any(|a| a.ip == *ip && a.ifindex == idx)
            {
                return Err(NotReady::NoAddress { ip: *ip, bridge });
            }
        }
        if self.had_default
            && !snap
                .main_routes()
                .any(|r| r.is_default() && r.oif == Some(idx) && self.metrics.contains(&r.metric))
        {
            return Err(NotReady::NoDefaultRoute {
                bridge,
                metric: self.metric,
            });
        }
        if first_global_ipv6_unusable(snap, idx) {
            return Err(NotReady::Ipv6Tentative { bridge });
        }
        Ok(())
    }
}

/// The node IP when the uplink had it, else the uplink's IPv4 addresses; then the other
/// family's node IP too, when the uplink had it (dual stack): NetworkManager may add it to br-ex
/// a moment after the first family, and kubelet must not start before.
fn node_ips_on_uplink(g: &Gathered, uplink: Option<u32>) -> Vec<IpAddr> {
    let before = &g.snapshot;
    let on_uplink = |ip: &IpAddr| {
        before
            .addresses
            .iter()
            .any(|a| a.ip == *ip && Some(a.ifindex) == uplink)
    };
    let mut expected: Vec<IpAddr> = match g.files.primary_ip {
        Some(ip) if on_uplink(&ip) => vec![ip],
        _ => before
            .addresses
            .iter()
            .filter(|a| Some(a.ifindex) == uplink && a.ip.is_ipv4())
            .map(|a| a.ip)
            .collect(),
    };
    for ip in &g.node_ips {
        if on_uplink(ip) && !expected.contains(ip) {
            expected.push(*ip);
        }
    }
    expected
}

/// The metrics of the uplink's default routes in the main table (none without an uplink).
fn uplink_default_metrics(before: &Snapshot, uplink: Option<u32>) -> Vec<u32> {
    before
        .main_routes()
        .filter(|r| r.is_default() && r.oif == uplink && uplink.is_some())
        .map(|r| r.metric)
        .collect()
}

/// The bridge's first global IPv6 address is still tentative or failed duplicate address
/// detection (no such address counts as usable).
fn first_global_ipv6_unusable(snap: &Snapshot, idx: u32) -> bool {
    snap.addresses
        .iter()
        .find(|a| {
            a.ifindex == idx && a.ip.is_ipv6() && !selection::net::is_link_local_unicast(a.ip)
        })
        .is_some_and(|a| a.is_tentative() || a.is_dadfailed())
}
