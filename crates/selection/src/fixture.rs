//! Builders for hand-written snapshots, for unit tests here and in the daemon crates
//! (feature `fixtures`).

use std::net::IpAddr;

use crate::model::{Address, Family, Link, MAIN_TABLE, PROTO_RA, Route, Snapshot, libc_iff};
use crate::net::Cidr;

/// Parses `"ip/len"`; panics on bad fixture text.
pub fn cidr(text: &str) -> Cidr {
    let (ip, len) = text
        .split_once('/')
        .unwrap_or_else(|| panic!("fixture {text:?} needs /len"));
    Cidr::new(
        ip.parse().expect("fixture ip"),
        len.parse().expect("fixture prefix"),
    )
}

/// Parses an IP address; panics on bad fixture text.
pub fn ip(text: &str) -> IpAddr {
    text.parse()
        .unwrap_or_else(|_| panic!("fixture ip {text:?}"))
}

/// A permanent address with no label.
pub fn addr(ifindex: u32, text: &str) -> Address {
    let c = cidr(text);
    Address {
        ifindex,
        ip: c.ip,
        prefix_len: c.prefix_len,
        label: None,
        flags: crate::model::addr_flags::PERMANENT,
        preferred_lifetime: Some(u32::MAX),
    }
}

impl Address {
    pub fn label(mut self, label: &str) -> Self {
        self.label = Some(label.to_owned());
        self
    }

    pub fn preferred(mut self, seconds: u32) -> Self {
        self.preferred_lifetime = Some(seconds);
        self
    }

    pub fn with_flags(mut self, flags: u32) -> Self {
        self.flags |= flags;
        self
    }
}

/// A main-table route to `dst` (`None`: default) via `gateway` out of `oif`.
pub fn route(dst: Option<&str>, gateway: Option<&str>, oif: u32, metric: u32) -> Route {
    let destination = dst.map(cidr);
    let gateway = gateway.map(ip);
    let v6 = destination
        .map(|d| d.ip.is_ipv6())
        .or(gateway.map(|g| g.is_ipv6()))
        .unwrap_or(false);
    Route {
        table: MAIN_TABLE,
        family: if v6 { Family::Ipv6 } else { Family::Ipv4 },
        destination,
        gateway,
        oif: Some(oif),
        metric,
        protocol: 4, // RTPROT_STATIC
        multipath: false,
    }
}

impl Route {
    pub fn proto(mut self, protocol: u8) -> Self {
        self.protocol = protocol;
        self
    }

    pub fn ra(self) -> Self {
        self.proto(PROTO_RA)
    }

    pub fn table(mut self, table: u32) -> Self {
        self.table = table;
        self
    }

    /// Turns the route into a multipath one (no single output interface).
    pub fn multipath(mut self) -> Self {
        self.oif = None;
        self.multipath = true;
        self
    }
}

/// Builds a [`Snapshot`] link by link.
#[derive(Default)]
pub struct SnapshotBuilder {
    snap: Snapshot,
}

/// Starts a snapshot that already has `lo` (ifindex 1) with 127.0.0.1/8 and ::1/128.
pub fn snapshot() -> SnapshotBuilder {
    SnapshotBuilder::default()
        .link(1, "lo")
        .addr(1, "127.0.0.1/8")
        .addr(1, "::1/128")
}

impl SnapshotBuilder {
    pub fn link(mut self, index: u32, name: &str) -> Self {
        self.snap.links.push(Link {
            index,
            name: name.into(),
            flags: libc_iff::UP,
            mac: vec![0x52, 0x54, 0x00, 0xc0, 0xee, index as u8],
            mtu: 1500,
        });
        self
    }

    pub fn addr(self, ifindex: u32, text: &str) -> Self {
        self.address(addr(ifindex, text))
    }

    pub fn address(mut self, a: Address) -> Self {
        self.snap.addresses.push(a);
        self
    }

    pub fn route(mut self, r: Route) -> Self {
        self.snap.routes.push(r);
        self
    }

    pub fn default_via(self, oif: u32, gateway: &str, metric: u32) -> Self {
        self.route(route(None, Some(gateway), oif, metric))
    }

    /// The snapshot in kernel dump order: IPv4 addresses and routes before IPv6 ones.
    pub fn build(mut self) -> Snapshot {
        self.snap.addresses.sort_by_key(|a| a.ip.is_ipv6());
        self.snap.routes.sort_by_key(|r| r.family == Family::Ipv6);
        self.snap.normalize();
        self.snap
    }
}
