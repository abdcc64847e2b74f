//! Which interface holds a given IP (upstream `GetInterfaceWithCidrByIP`): the bridge
//! configurator builds br-ex around it and the keepalived monitor runs VRRP on it.

use std::net::IpAddr;

use serde::Serialize;

use crate::model::Snapshot;
use crate::net::Cidr;

/// How an address must relate to the IP looked up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The interface carries exactly this IP.
    Exact,
    /// Exactly this IP, or an address whose subnet contains it; a /128 address counts as its
    /// /64 (upstream widens DHCPv6 addresses this way).
    Subnet,
}

/// The interface found and the address on it that matched (with its own prefix length).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Holder {
    pub ifindex: u32,
    pub interface: String,
    pub address: Cidr,
}

/// Walks links by ascending ifindex and each link's addresses in kernel order; the first address
/// that qualifies wins. Every address counts (no lifetime or link-local filter), as upstream.
pub fn find_interface(snap: &Snapshot, ip: IpAddr, lookup: Lookup) -> Option<Holder> {
    snap.link_indices().into_iter().find_map(|index| {
        snap.addresses_on(index)
            .find(|a| {
                a.ip == ip || (lookup == Lookup::Subnet && a.cidr().host_network().contains(ip))
            })
            .map(|a| Holder {
                ifindex: index,
                interface: snap.link_name(index),
                address: a.cidr(),
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{ip, snapshot};

    #[test]
    fn finds_exact_holder_then_subnet_with_128_widened_to_64() {
        let snap = snapshot()
            .link(2, "eth0")
            .addr(2, "192.0.2.10/24")
            .link(5, "br-ex")
            .addr(5, "198.51.100.10/24")
            .addr(5, "2001:db8:5::10/128")
            .build();
        let h = find_interface(&snap, ip("198.51.100.10"), Lookup::Exact).unwrap();
        assert_eq!(
            (h.interface.as_str(), h.address.to_string()),
            ("br-ex", "198.51.100.10/24".into())
        );
        assert_eq!(
            find_interface(&snap, ip("198.51.100.11"), Lookup::Exact),
            None
        );
        let h = find_interface(&snap, ip("192.0.2.99"), Lookup::Subnet).unwrap();
        assert_eq!(h.interface, "eth0");
        let h = find_interface(&snap, ip("2001:db8:5::99"), Lookup::Subnet).unwrap();
        assert_eq!(
            h.address.to_string(),
            "2001:db8:5::10/128",
            "keeps the original mask"
        );
        assert_eq!(
            find_interface(&snap, ip("2001:db8:6::1"), Lookup::Subnet),
            None
        );
    }
}
