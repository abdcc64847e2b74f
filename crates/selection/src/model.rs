//! A model of the kernel's network state: the part of it that node-IP selection and the daemons
//! that follow the node IP look at. Built from netlink by [`crate::netlink`], or by hand in tests.

use std::collections::BTreeSet;
use std::net::IpAddr;

use serde::Serialize;

use crate::net::{Cidr, serialize_ip};

/// The kernel's main routing table (`RT_TABLE_MAIN`); the only one selection looks at.
pub const MAIN_TABLE: u32 = 254;
/// `RTPROT_RA`: a route learnt from an IPv6 router advertisement.
pub const PROTO_RA: u8 = 9;

/// A network interface.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Link {
    pub index: u32,
    pub name: String,
    /// `IFF_*` flags as the kernel reports them.
    pub flags: u32,
    /// Hardware address (`IFLA_ADDRESS`), empty when the link has none.
    pub mac: Vec<u8>,
    pub mtu: u32,
}

impl Link {
    pub fn is_up(&self) -> bool {
        self.flags & libc_iff::UP != 0
    }
}

/// The subset of `IFF_*` the model interprets.
pub mod libc_iff {
    pub const UP: u32 = 1;
}

/// `IFA_F_*` address flags that matter for usability.
pub mod addr_flags {
    pub const SECONDARY: u32 = 0x01;
    pub const NODAD: u32 = 0x02;
    pub const DADFAILED: u32 = 0x08;
    pub const DEPRECATED: u32 = 0x20;
    pub const TENTATIVE: u32 = 0x40;
    pub const PERMANENT: u32 = 0x80;
}

/// An address on a link, in the kernel's dump order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Address {
    pub ifindex: u32,
    #[serde(serialize_with = "serialize_ip")]
    pub ip: IpAddr,
    pub prefix_len: u8,
    /// `IFA_LABEL`; IPv4 only, defaults to the interface name.
    pub label: Option<String>,
    /// `IFA_F_*` flags (the full 32-bit `IFA_FLAGS` when present).
    pub flags: u32,
    /// Preferred lifetime in seconds from `IFA_CACHEINFO`; `u32::MAX` is forever.
    pub preferred_lifetime: Option<u32>,
}

impl Address {
    pub fn cidr(&self) -> Cidr {
        Cidr::new(self.ip, self.prefix_len)
    }

    pub fn is_tentative(&self) -> bool {
        self.flags & addr_flags::TENTATIVE != 0
    }

    pub fn is_dadfailed(&self) -> bool {
        self.flags & addr_flags::DADFAILED != 0
    }

    /// Upstream's "deprecated": a 16-byte address (IPv6 or IPv4-mapped) whose preferred lifetime
    /// is 0. keepalived adds VIPs this way.
    pub fn is_deprecated(&self) -> bool {
        self.ip.is_ipv6() && self.preferred_lifetime == Some(0)
    }
}

/// Address family of a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Ipv4,
    Ipv6,
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Family::Ipv4 => "IPv4",
            Family::Ipv6 => "IPv6",
        })
    }
}

/// A route from the kernel's routing tables.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Route {
    pub table: u32,
    pub family: Family,
    /// `None` when the kernel sent no `RTA_DST`: a default route.
    pub destination: Option<Cidr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gateway: Option<IpAddr>,
    /// Output interface; `None` for multipath and nexthop-object routes.
    pub oif: Option<u32>,
    pub metric: u32,
    /// `RTPROT_*` number.
    pub protocol: u8,
    /// The route has several nexthops (`RTA_MULTIPATH`) or uses a nexthop object.
    pub multipath: bool,
}

impl Route {
    pub fn is_default(&self) -> bool {
        self.destination.is_none()
    }

    /// Whether node-IP selection looks at this route at all: main-table default routes, and
    /// main-table IPv6 RA routes (the /128 address rule). The reader keeps only these for
    /// selection so a node with 100k routes costs little memory.
    pub fn matters_for_selection(&self) -> bool {
        self.table == MAIN_TABLE
            && (self.is_default() || (self.family == Family::Ipv6 && self.protocol == PROTO_RA))
    }
}

/// A consistent view of links, addresses and routes.
///
/// Links are sorted by ascending ifindex and every walk over them follows that order, so a
/// result never depends on hash or map order (upstream iterated a Go map).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Snapshot {
    pub links: Vec<Link>,
    /// Kernel dump order: all IPv4 addresses, then all IPv6 addresses.
    pub addresses: Vec<Address>,
    /// Kernel dump order: IPv4 routes, then IPv6 routes.
    pub routes: Vec<Route>,
}

impl Snapshot {
    /// Restores the invariants the algorithms rely on (links by ifindex).
    pub fn normalize(&mut self) {
        self.links.sort_by_key(|l| l.index);
    }

    pub fn link(&self, index: u32) -> Option<&Link> {
        self.links
            .binary_search_by_key(&index, |l| l.index)
            .ok()
            .map(|i| &self.links[i])
    }

    /// The interface name for `index`, or `if<index>` for a link that vanished mid-dump.
    pub fn link_name(&self, index: u32) -> String {
        self.link(index)
            .map_or_else(|| format!("if{index}"), |l| l.name.clone())
    }

    /// Addresses of one link, in kernel order.
    pub fn addresses_on(&self, index: u32) -> impl Iterator<Item = &Address> {
        self.addresses.iter().filter(move |a| a.ifindex == index)
    }

    /// Main-table routes only: nothing else counts for selection.
    pub fn main_routes(&self) -> impl Iterator<Item = &Route> {
        self.routes.iter().filter(|r| r.table == MAIN_TABLE)
    }

    /// Indices of the links that carry at least one address, ascending.
    pub fn link_indices(&self) -> Vec<u32> {
        let indices: BTreeSet<u32> = self.addresses.iter().map(|a| a.ifindex).collect();
        indices.into_iter().collect()
    }
}
