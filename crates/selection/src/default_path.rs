//! The default-route path (upstream `AddressesDefault`): the best address on a link that has a
//! default route, by seven sort keys.

use std::cmp::Ordering;
use std::net::IpAddr;

use serde::{Serialize, Serializer};

use crate::filter::{AddressFilter, Rejection};
use crate::model::{Family, Route, Snapshot};
use crate::net::{go_text, is_private, raw_bytes, serialize_ip};

/// The sort keys of one candidate, compared in field order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SortKey {
    /// Metric of the link's first default route (lower wins).
    pub metric: u32,
    /// Lower ifindex wins.
    pub ifindex: u32,
    /// Address family is the preferred one (`--prefer-ipv6`).
    pub preferred_family: bool,
    /// The link's first default gateway lies inside the address's subnet.
    pub gateway_on_subnet: bool,
    /// Not in 10/8, 172.16/12, 192.168/16 or fc00::/7.
    pub public: bool,
    /// Real IPv6 rather than IPv4-mapped (or IPv4).
    pub real_ipv6: bool,
    /// Raw address bytes, smaller wins.
    #[serde(serialize_with = "serialize_hex")]
    pub bytes: Vec<u8>,
}

fn serialize_hex<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&bytes.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

impl Ord for SortKey {
    fn cmp(&self, o: &Self) -> Ordering {
        // `true` sorts first for the boolean keys.
        (self.metric, self.ifindex)
            .cmp(&(o.metric, o.ifindex))
            .then(o.preferred_family.cmp(&self.preferred_family))
            .then(o.gateway_on_subnet.cmp(&self.gateway_on_subnet))
            .then(o.public.cmp(&self.public))
            .then(o.real_ipv6.cmp(&self.real_ipv6))
            .then(self.bytes.cmp(&o.bytes))
    }
}

impl PartialOrd for SortKey {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// What the default-route path concluded about one address.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum DefaultVerdict {
    Rejected {
        reason: Rejection,
    },
    NoDefaultRoute,
    /// `rank` 0 is the best candidate.
    Ranked {
        rank: usize,
        key: SortKey,
    },
}

/// The default route that stands for a link: the first one the kernel lists for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LinkDefault {
    pub ifindex: u32,
    pub family: Family,
    pub metric: u32,
    #[serde(
        serialize_with = "serialize_opt_ip",
        skip_serializing_if = "Option::is_none"
    )]
    pub gateway: Option<IpAddr>,
}

fn serialize_opt_ip<S: Serializer>(ip: &Option<IpAddr>, s: S) -> Result<S::Ok, S::Error> {
    match ip {
        Some(ip) => serialize_ip(ip, s),
        None => s.serialize_none(),
    }
}

/// The default-route path's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefaultPath {
    /// Parallel to `Snapshot::addresses`.
    pub verdicts: Vec<DefaultVerdict>,
    /// Indices into `Snapshot::addresses`: the best of each family, in sort order.
    pub chosen: Vec<usize>,
    /// One entry per link with a default route, ascending ifindex.
    pub link_defaults: Vec<LinkDefault>,
    /// Multipath default routes: they have no output link, so upstream never matches them.
    pub ignored_multipath: Vec<Route>,
}

/// The first default route listed for each link (multipath ones have none), by ifindex.
fn link_defaults(defaults: &[&Route]) -> Vec<LinkDefault> {
    let mut link_defaults: Vec<LinkDefault> = Vec::new();
    for r in defaults.iter().filter(|r| !r.multipath) {
        let Some(ifindex) = r.oif else { continue };
        if !link_defaults.iter().any(|d| d.ifindex == ifindex) {
            link_defaults.push(LinkDefault {
                ifindex,
                family: r.family,
                metric: r.metric,
                gateway: r.gateway,
            });
        }
    }
    link_defaults.sort_by_key(|d| d.ifindex);
    link_defaults
}

/// Ranks every address on a link with a default route.
///
/// The first default route listed for a link gives the metric and gateway for all of its
/// addresses, of both families (upstream behaviour; the kernel lists IPv4 routes first).
pub fn run(snap: &Snapshot, filter: AddressFilter, prefer_ipv6: bool) -> DefaultPath {
    let defaults: Vec<&Route> = snap.main_routes().filter(|r| r.is_default()).collect();
    let link_defaults = link_defaults(&defaults);
    let ignored_multipath = defaults
        .iter()
        .filter(|r| r.multipath || r.oif.is_none())
        .map(|r| (*r).clone())
        .collect();

    let mut keyed: Vec<(SortKey, usize)> = Vec::new();
    let mut verdicts: Vec<DefaultVerdict> = snap
        .addresses
        .iter()
        .enumerate()
        .map(|(i, a)| {
            if let Some(reason) = filter.reject(a) {
                return DefaultVerdict::Rejected { reason };
            }
            let Some(d) = link_defaults.iter().find(|d| d.ifindex == a.ifindex) else {
                return DefaultVerdict::NoDefaultRoute;
            };
            let key = SortKey {
                metric: d.metric,
                ifindex: a.ifindex,
                preferred_family: a.ip.is_ipv6() == prefer_ipv6,
                gateway_on_subnet: d.gateway.is_some_and(|gw| a.cidr().contains(gw)),
                public: !is_private(a.ip),
                real_ipv6: !go_text(a.ip).contains('.'),
                bytes: raw_bytes(a.ip),
            };
            keyed.push((key, i));
            DefaultVerdict::NoDefaultRoute // replaced by the rank below
        })
        .collect();
    keyed.sort();

    let mut chosen: Vec<usize> = Vec::new();
    for (rank, (key, i)) in keyed.into_iter().enumerate() {
        let v6 = snap.addresses[i].ip.is_ipv6();
        if !chosen.iter().any(|&c| snap.addresses[c].ip.is_ipv6() == v6) {
            chosen.push(i);
        }
        verdicts[i] = DefaultVerdict::Ranked { rank, key };
    }
    DefaultPath {
        verdicts,
        chosen,
        link_defaults,
        ignored_multipath,
    }
}
