//! Node-IP selection over a snapshot (upstream `getSuitableIPs`, one attempt), with the
//! explanation of every verdict.

use std::net::IpAddr;

use serde::Serialize;

use crate::default_path::{self, DefaultVerdict, LinkDefault};
use crate::filter::AddressFilter;
use crate::model::{Route, Snapshot};
use crate::net::{Cidr, go_text, serialize_ip, serialize_ips, text_is_ipv6};
use crate::vip_path::{self, Target, TargetRole, VipVerdict};

/// The network type for which the default path also rejects `fd69::2`.
pub const OVN_KUBERNETES: &str = "OVNKubernetes";

/// What to select for.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Positional IPs in order: the hint(s) first, then API VIPs, then ingress VIPs.
    pub targets: Vec<Target>,
    pub prefer_ipv6: bool,
    /// Exactly `OVNKubernetes` enables the `fd69::2` filter on the default path.
    pub network_type: String,
}

impl Request {
    fn default_filter(&self) -> AddressFilter {
        if self.network_type == OVN_KUBERNETES {
            AddressFilter::OvnNode
        } else {
            AddressFilter::Node
        }
    }
}

/// Which path produced the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    Vip,
    DefaultRoute,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Vip => "vip",
            Source::DefaultRoute => "default-route",
        }
    }
}

/// One address of the snapshot with everything selection concluded about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Candidate {
    pub interface: String,
    pub ifindex: u32,
    pub address: Cidr,
    /// Present when the VIP path ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vip_path: Option<VipVerdict>,
    /// Present when the default-route path ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_path: Option<DefaultVerdict>,
    /// Position in the result (0 = the primary node IP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chosen: Option<usize>,
}

/// Things that are probably not what the administrator meant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Warning {
    /// The hint is an address of this node: upstream skips it like a VIP, so it never wins.
    HintIsLocalAddress {
        #[serde(serialize_with = "serialize_ip")]
        hint: IpAddr,
        interface: String,
    },
    /// No local subnet contains this positional IP.
    TargetOnNoLocalSubnet {
        #[serde(serialize_with = "serialize_ip")]
        ip: IpAddr,
        role: TargetRole,
    },
    /// Multipath default routes have no output link and are ignored (as upstream).
    MultipathDefaultIgnored { route: Route },
    /// Addresses on several links match positional IPs; the first in (hint, ifindex) order wins.
    SeveralLinksMatch {
        interfaces: Vec<String>,
        chosen: String,
    },
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warning::HintIsLocalAddress { hint, interface } => write!(
                f,
                "hint {} is an address of {interface}; an address equal to a hint or VIP is \
                 never chosen, so use an address in the subnet (e.g. its gateway) instead",
                go_text(*hint)
            ),
            Warning::TargetOnNoLocalSubnet { ip, role } => write!(
                f,
                "{} {} is on no local subnet",
                match role {
                    TargetRole::Hint => "hint",
                    TargetRole::Vip => "VIP",
                },
                go_text(*ip)
            ),
            Warning::MultipathDefaultIgnored { route } => write!(
                f,
                "multipath default route (metric {}) is ignored: it has no single output interface",
                route.metric
            ),
            Warning::SeveralLinksMatch { interfaces, chosen } => write!(
                f,
                "several interfaces match the hint/VIPs ({}); {chosen} wins (hint first, then \
                 lowest ifindex)",
                interfaces.join(", ")
            ),
        }
    }
}

/// The full account of a selection.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Explanation {
    pub targets: Vec<Target>,
    pub prefer_ipv6: bool,
    pub network_type: String,
    /// Every address, by ascending ifindex.
    pub candidates: Vec<Candidate>,
    /// Links with a default route (when the default-route path ran).
    pub default_routes: Vec<LinkDefault>,
    pub warnings: Vec<Warning>,
}

/// The result of one selection attempt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Selection {
    /// At most one address per family, in order; the first is the primary node IP.
    #[serde(serialize_with = "serialize_ips")]
    pub addresses: Vec<IpAddr>,
    /// `None` when nothing was found.
    pub source: Option<Source>,
    /// The interface holding the primary node IP.
    pub interface: Option<String>,
    pub explanation: Explanation,
}

impl Selection {
    pub fn primary(&self) -> Option<IpAddr> {
        self.addresses.first().copied()
    }

    /// Both families were found (a dual-stack node may have to wait for the second).
    pub fn has_both_families(&self) -> bool {
        has_both_families(&self.addresses)
    }
}

/// Upstream's text-based "list holds both families" test (PR #391).
pub fn has_both_families(ips: &[IpAddr]) -> bool {
    ips.iter().any(|ip| text_is_ipv6(*ip)) && ips.iter().any(|ip| !text_is_ipv6(*ip))
}

/// Runs the VIP path (when there are positional IPs) and, if it finds nothing, the default
/// route path.
///
/// Decision: upstream switches to the OVN filter after its first default-path attempt and
/// keeps it for later VIP-path retries, so `fd69::2` could be chosen on the first try but not
/// on the second. Here the VIP path always uses the plain filter and the default path the
/// network-type filter: the same state gives the same answer on every attempt.
pub fn select(snap: &Snapshot, req: &Request) -> Selection {
    let mut candidates: Vec<Candidate> = snap
        .addresses
        .iter()
        .map(|a| Candidate {
            interface: snap.link_name(a.ifindex),
            ifindex: a.ifindex,
            address: a.cidr(),
            vip_path: None,
            default_path: None,
            chosen: None,
        })
        .collect();
    let mut warnings = hint_warnings(snap, req);
    let mut default_routes = Vec::new();
    let mut found = vip_path_choice(snap, req, &mut candidates, &mut warnings);
    if found.is_none() {
        (found, default_routes) = default_path_choice(snap, req, &mut candidates, &mut warnings);
    }
    let (chosen, source) = found.map_or((Vec::new(), None), |(c, s)| (c, Some(s)));
    for (pos, &i) in chosen.iter().enumerate() {
        candidates[i].chosen = Some(pos);
    }
    // Read per interface: ascending ifindex, kernel order within one.
    candidates.sort_by_key(|c| c.ifindex);
    Selection {
        addresses: chosen.iter().map(|&i| snap.addresses[i].ip).collect(),
        source,
        interface: chosen
            .first()
            .map(|&i| snap.link_name(snap.addresses[i].ifindex)),
        explanation: Explanation {
            targets: req.targets.clone(),
            prefer_ipv6: req.prefer_ipv6,
            network_type: req.network_type.clone(),
            candidates,
            default_routes,
            warnings,
        },
    }
}

/// What one path chose: the snapshot's address indexes, primary first, and the path.
type Choice = Option<(Vec<usize>, Source)>;

/// The VIP path (when there are targets): its verdict on every candidate, its warnings and
/// its choice, if it made one.
fn vip_path_choice(
    snap: &Snapshot,
    req: &Request,
    candidates: &mut [Candidate],
    warnings: &mut Vec<Warning>,
) -> Choice {
    if req.targets.is_empty() {
        return None;
    }
    let vp = vip_path::run(snap, &req.targets, AddressFilter::Node, req.prefer_ipv6);
    warnings.extend(vip_warnings(snap, req, &vp));
    for (c, v) in candidates.iter_mut().zip(vp.verdicts) {
        c.vip_path = Some(v);
    }
    (!vp.chosen.is_empty()).then_some((vp.chosen, Source::Vip))
}

/// The default-route path: its verdict on every candidate, its warnings, its choice (if any)
/// and the links' default routes it ranked by.
fn default_path_choice(
    snap: &Snapshot,
    req: &Request,
    candidates: &mut [Candidate],
    warnings: &mut Vec<Warning>,
) -> (Choice, Vec<LinkDefault>) {
    let dp = default_path::run(snap, req.default_filter(), req.prefer_ipv6);
    warnings.extend(
        dp.ignored_multipath
            .into_iter()
            .map(|route| Warning::MultipathDefaultIgnored { route }),
    );
    for (c, v) in candidates.iter_mut().zip(dp.verdicts) {
        c.default_path = Some(v);
    }
    let choice = (!dp.chosen.is_empty()).then_some((dp.chosen, Source::DefaultRoute));
    (choice, dp.link_defaults)
}

fn hint_warnings(snap: &Snapshot, req: &Request) -> Vec<Warning> {
    req.targets
        .iter()
        .filter(|t| t.role == TargetRole::Hint)
        .filter_map(|t| {
            let text = go_text(t.ip);
            snap.addresses
                .iter()
                .find(|a| go_text(a.ip) == text)
                .map(|a| Warning::HintIsLocalAddress {
                    hint: t.ip,
                    interface: snap.link_name(a.ifindex),
                })
        })
        .collect()
}

fn vip_warnings(snap: &Snapshot, req: &Request, vp: &vip_path::VipPath) -> Vec<Warning> {
    let mut warnings = Vec::new();
    for t in &req.targets {
        let local = snap
            .addresses
            .iter()
            .zip(&vp.verdicts)
            .any(|(a, v)| match v {
                // The subnet may hold this target although an earlier target matched first.
                VipVerdict::Matches { target, .. } => *target == t.ip || a.cidr().contains(t.ip),
                // The address is the target itself; its subnet still counts as local.
                VipVerdict::IsTarget { .. } => a.cidr().contains(t.ip),
                _ => false,
            });
        if !local {
            warnings.push(Warning::TargetOnNoLocalSubnet {
                ip: t.ip,
                role: t.role,
            });
        }
    }
    if vp.matching_links.len() > 1 {
        let interfaces = vp
            .matching_links
            .iter()
            .map(|(l, _)| snap.link_name(*l))
            .collect();
        let chosen = vp
            .chosen
            .first()
            .map(|&i| snap.link_name(snap.addresses[i].ifindex))
            .unwrap_or_default();
        warnings.push(Warning::SeveralLinksMatch { interfaces, chosen });
    }
    warnings
}

/// Why the first chosen address cannot be used yet.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unusable {
    #[error("{0} is still tentative (duplicate address detection running)")]
    Tentative(String),
    #[error("{0} failed duplicate address detection")]
    DadFailed(String),
}

/// Upstream only bind-tests the first chosen address when it is IPv6 (16 bytes): a tentative
/// IPv6 address cannot be bound, so crio would fail (Bug 2096226). The kernel flags tell us
/// before trying; the caller still performs the bind test as the final guarantee.
pub fn check_flags(snap: &Snapshot, sel: &Selection) -> Result<(), Unusable> {
    let Some(primary) = sel.primary().filter(|ip| ip.is_ipv6()) else {
        return Ok(());
    };
    let text = go_text(primary);
    for a in snap.addresses.iter().filter(|a| a.ip == primary) {
        if a.is_dadfailed() {
            return Err(Unusable::DadFailed(text));
        }
        if a.is_tentative() {
            return Err(Unusable::Tentative(text));
        }
    }
    Ok(())
}
