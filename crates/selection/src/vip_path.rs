//! The VIP/hint path (upstream `AddressesRouting`): an address that directly routes to one of
//! the positional IPs.

use std::net::IpAddr;

use serde::Serialize;

use crate::filter::{AddressFilter, Rejection};
use crate::model::{Address, Family, PROTO_RA, Snapshot};
use crate::net::{Cidr, go_text, serialize_ip};

/// How an address matched a target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Via {
    /// The address's own subnet contains the target.
    OwnSubnet { network: Cidr },
    /// A /128 address widened to the prefix of an RA route on its link (DHCPv6 nodes).
    RaRoute { network: Cidr },
}

/// What the VIP path concluded about one address.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum VipVerdict {
    Rejected {
        reason: Rejection,
    },
    /// Equal to a positional IP: never the node IP (Bug 2021544).
    IsTarget {
        #[serde(serialize_with = "serialize_ip")]
        target: IpAddr,
    },
    Matches {
        #[serde(serialize_with = "serialize_ip")]
        target: IpAddr,
        via: Via,
    },
    NoMatch,
}

/// Who supplied a positional IP; hints win over VIPs when both match (see [`run`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetRole {
    Hint,
    Vip,
}

/// A positional IP with its role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Target {
    #[serde(serialize_with = "serialize_ip")]
    pub ip: IpAddr,
    pub role: TargetRole,
}

/// The VIP path's result: a verdict for every address and the chosen addresses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VipPath {
    /// Parallel to `Snapshot::addresses`.
    pub verdicts: Vec<VipVerdict>,
    /// Indices into `Snapshot::addresses`, preferred family first (at most two).
    pub chosen: Vec<usize>,
    /// Links whose addresses match a target, ascending, with the first matching address.
    pub matching_links: Vec<(u32, usize)>,
}

/// Evaluates every address against `targets`.
///
/// Links are visited by ascending ifindex (upstream walked a Go map, so with two matching links
/// its answer was random). When a hint and a VIP match on different links, the hint's link wins:
/// upstream could return either, and the hint is how the administrator says which one they mean.
pub fn run(
    snap: &Snapshot,
    targets: &[Target],
    filter: AddressFilter,
    prefer_ipv6: bool,
) -> VipPath {
    let verdicts: Vec<VipVerdict> = snap
        .addresses
        .iter()
        .map(|a| verdict(snap, a, targets, filter))
        .collect();

    let mut matching_links: Vec<(u32, usize)> = Vec::new();
    for index in snap.link_indices() {
        let first = (0..snap.addresses.len()).find(|&i| {
            snap.addresses[i].ifindex == index && matches!(verdicts[i], VipVerdict::Matches { .. })
        });
        if let Some(i) = first {
            matching_links.push((index, i));
        }
    }

    let hint_match = snap.link_indices().into_iter().find_map(|index| {
        (0..snap.addresses.len())
            .find(|&i| {
                snap.addresses[i].ifindex == index
                    && target_role(&verdicts[i], targets) == Some(TargetRole::Hint)
            })
            .map(|i| (index, i))
    });
    let winner = hint_match.or(matching_links.first().copied());

    let chosen = match winner {
        None => Vec::new(),
        Some((link, matched)) => {
            let mut chosen = vec![matched];
            if let Some(partner) = partner(snap, &verdicts, link, matched) {
                chosen.push(partner);
            }
            let v6_first = |i: &usize| snap.addresses[*i].ip.is_ipv6() != prefer_ipv6;
            chosen.sort_by_key(v6_first);
            chosen
        }
    };
    VipPath {
        verdicts,
        chosen,
        matching_links,
    }
}

fn target_role(v: &VipVerdict, targets: &[Target]) -> Option<TargetRole> {
    match v {
        VipVerdict::Matches { target, .. } => {
            targets.iter().find(|t| t.ip == *target).map(|t| t.role)
        }
        _ => None,
    }
}

/// The first filtered address of the other family on the matching link (dual-stack).
///
/// Upstream does not check the partner against the positional IPs; we skip addresses equal to
/// one, so a VIP held by this node can never become its second node IP.
fn partner(snap: &Snapshot, verdicts: &[VipVerdict], link: u32, matched: usize) -> Option<usize> {
    let want_v6 = !snap.addresses[matched].ip.is_ipv6();
    (0..snap.addresses.len()).find(|&i| {
        let a = &snap.addresses[i];
        a.ifindex == link
            && a.ip.is_ipv6() == want_v6
            && !matches!(
                verdicts[i],
                VipVerdict::Rejected { .. } | VipVerdict::IsTarget { .. }
            )
    })
}

fn verdict(snap: &Snapshot, a: &Address, targets: &[Target], filter: AddressFilter) -> VipVerdict {
    if let Some(reason) = filter.reject(a) {
        return VipVerdict::Rejected { reason };
    }
    let text = go_text(a.ip);
    if let Some(t) = targets.iter().find(|t| go_text(t.ip) == text) {
        return VipVerdict::IsTarget { target: t.ip };
    }
    let contained = |network: Cidr| {
        targets
            .iter()
            .find(|t| network.contains(t.ip))
            .map(|t| t.ip)
    };
    if a.ip.is_ipv6() && a.prefix_len == 128 {
        // DHCPv6 gives /128 addresses; the on-link prefix comes from the RA route.
        return ra_networks(snap, a)
            .find_map(|network| {
                contained(network).map(|target| VipVerdict::Matches {
                    target,
                    via: Via::RaRoute { network },
                })
            })
            .unwrap_or(VipVerdict::NoMatch);
    }
    let network = a.cidr();
    match contained(network) {
        Some(target) => VipVerdict::Matches {
            target,
            via: Via::OwnSubnet { network },
        },
        None => VipVerdict::NoMatch,
    }
}

/// The address widened to the prefix of every main-table IPv6 RA route on its link.
fn ra_networks<'a>(snap: &'a Snapshot, a: &'a Address) -> impl Iterator<Item = Cidr> + 'a {
    snap.main_routes()
        .filter(move |r| {
            r.family == Family::Ipv6 && r.protocol == PROTO_RA && r.oif == Some(a.ifindex)
        })
        .filter_map(|r| r.destination)
        .map(move |dst| Cidr::new(a.ip, dst.prefix_len))
}
