//! The converted bridge checked in the kernel: it carries the node IP and the default route,
//! and its first global IPv6 address is usable.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use selection::Snapshot;
use selection::netlink::{ChangeStream, NetlinkReader};

use crate::automatic::error::{ConvertError, NotReady};
use crate::automatic::gather::Gathered;
use crate::automatic::plan::Plan;

/// How long the first global IPv6 address on the bridge may stay tentative (upstream: 60 tries).
const IPV6_USABLE_WAIT: Duration = Duration::from_secs(60);
/// How long the routes and addresses may take to settle on the bridge after activation.
const SETTLE_WAIT: Duration = Duration::from_secs(10);

/// The bridge carries the node IP and the default route with our metric (or, as upstream
/// accepts, with the metric a static default route of the uplink had), and its first global
/// IPv6 address is usable; waits for the kernel state through netlink events.
pub(crate) async fn verify(
    plan: &Plan,
    g: &Gathered,
    changes: &mut ChangeStream,
    reader: &mut NetlinkReader,
) -> Result<(), ConvertError> {
    for b in &plan.bridges {
        let before = &g.snapshot;
        let uplink = before
            .links
            .iter()
            .find(|l| l.name == b.interface)
            .map(|l| l.index);
        let mut expected: Vec<IpAddr> = match g.files.primary_ip {
            Some(ip)
                if before
                    .addresses
                    .iter()
                    .any(|a| a.ip == ip && Some(a.ifindex) == uplink) =>
            {
                vec![ip]
            }
            _ => before
                .addresses
                .iter()
                .filter(|a| Some(a.ifindex) == uplink && a.ip.is_ipv4())
                .map(|a| a.ip)
                .collect(),
        };
        // The other family's node IP too, when the uplink had it (dual stack): NetworkManager may
        // add it to br-ex a moment after the first family, and kubelet must not start before.
        for ip in &g.node_ips {
            let on_uplink = before
                .addresses
                .iter()
                .any(|a| a.ip == *ip && Some(a.ifindex) == uplink);
            if on_uplink && !expected.contains(ip) {
                expected.push(*ip);
            }
        }
        // The bridge's metric, and the uplink's own default-route metrics: a route the profile
        // lists with an explicit metric keeps it on the bridge.
        let mut metrics: Vec<u32> = before
            .main_routes()
            .filter(|r| r.is_default() && r.oif == uplink && uplink.is_some())
            .map(|r| r.metric)
            .collect();
        let had_default = !metrics.is_empty();
        let bridge = b.names.bridge;
        let metric = b.names.metric;
        metrics.push(metric);
        let ok = |snap: &Snapshot| -> Result<(), NotReady> {
            let Some(idx) = snap
                .links
                .iter()
                .find(|l| l.name == bridge)
                .map(|l| l.index)
            else {
                return Err(NotReady::NoBridge { bridge });
            };
            for ip in &expected {
                if !snap
                    .addresses
                    .iter()
                    .any(|a| a.ip == *ip && a.ifindex == idx)
                {
                    return Err(NotReady::NoAddress { ip: *ip, bridge });
                }
            }
            if had_default
                && !snap
                    .main_routes()
                    .any(|r| r.is_default() && r.oif == Some(idx) && metrics.contains(&r.metric))
            {
                return Err(NotReady::NoDefaultRoute { bridge, metric });
            }
            let tentative = snap
                .addresses
                .iter()
                .find(|a| {
                    a.ifindex == idx
                        && a.ip.is_ipv6()
                        && !selection::net::is_link_local_unicast(a.ip)
                })
                .is_some_and(|a| a.is_tentative() || a.is_dadfailed());
            if tentative {
                return Err(NotReady::Ipv6Tentative { bridge });
            }
            Ok(())
        };
        let limit = if g.snapshot.addresses.iter().any(|a| a.ip.is_ipv6()) {
            IPV6_USABLE_WAIT
        } else {
            SETTLE_WAIT
        };
        let deadline = Instant::now() + limit;
        loop {
            let snap = reader.snapshot().await?;
            match ok(&snap) {
                Ok(()) => break,
                Err(why) if Instant::now() >= deadline => return Err(why.into()),
                Err(why) => {
                    tracing::debug!("waiting: {why}");
                    let _ = tokio::time::timeout(deadline - Instant::now(), changes.next()).await;
                }
            }
        }
    }
    Ok(())
}
