//! Netlink messages to model types (public so the fuzz targets can feed them raw kernel bytes).

use std::net::IpAddr;

use rtnetlink::packet_route::AddressFamily;
use rtnetlink::packet_route::address::{AddressAttribute, AddressMessage};
use rtnetlink::packet_route::link::{LinkAttribute, LinkMessage};
use rtnetlink::packet_route::route::{RouteAddress, RouteAttribute, RouteMessage};

use crate::model::{Address, Family, Link, Route};
use crate::net::Cidr;

/// `RTM_F_CLONED`: a cached clone, not a configured route.
const RTM_F_CLONED: u32 = 0x200;

pub fn link(msg: &LinkMessage) -> Link {
    let mut link = Link {
        index: msg.header.index,
        name: format!("if{}", msg.header.index),
        flags: msg.header.flags.bits(),
        mac: Vec::new(),
        mtu: 0,
    };
    for a in &msg.attributes {
        match a {
            LinkAttribute::IfName(n) => link.name = n.clone(),
            LinkAttribute::Address(mac) => link.mac = mac.clone(),
            LinkAttribute::Mtu(mtu) => link.mtu = *mtu,
            _ => {}
        }
    }
    link
}

/// `None` for families other than IPv4/IPv6.
pub fn address(msg: &AddressMessage) -> Option<Address> {
    let (mut address, mut local, mut label, mut flags, mut preferred) =
        (None, None, None, None, None);
    for a in &msg.attributes {
        match a {
            AddressAttribute::Address(ip) => address = Some(*ip),
            AddressAttribute::Local(ip) => local = Some(*ip),
            AddressAttribute::Label(l) => label = Some(l.clone()),
            AddressAttribute::Flags(f) => flags = Some(f.bits()),
            AddressAttribute::CacheInfo(c) => preferred = Some(c.ifa_preferred),
            _ => {}
        }
    }
    // On point-to-point links IFA_ADDRESS is the peer and IFA_LOCAL our own address.
    let ip = local.or(address)?;
    Some(Address {
        ifindex: msg.header.index,
        ip,
        prefix_len: msg.header.prefix_len,
        label,
        flags: flags.unwrap_or(u32::from(msg.header.flags.bits())),
        preferred_lifetime: preferred,
    })
}

fn route_ip(a: &RouteAddress) -> Option<IpAddr> {
    match a {
        RouteAddress::Inet(v4) => Some(IpAddr::V4(*v4)),
        RouteAddress::Inet6(v6) => Some(IpAddr::V6(*v6)),
        _ => None,
    }
}

/// `None` for cloned routes and families other than IPv4/IPv6.
pub fn route(msg: &RouteMessage) -> Option<Route> {
    let h = &msg.header;
    let family = match h.address_family {
        AddressFamily::Inet => Family::Ipv4,
        AddressFamily::Inet6 => Family::Ipv6,
        _ => return None,
    };
    if h.flags.bits() & RTM_F_CLONED != 0 {
        return None;
    }
    let mut r = Route {
        table: u32::from(h.table),
        family,
        destination: None,
        gateway: None,
        oif: None,
        metric: 0,
        protocol: u8::from(h.protocol),
        multipath: false,
    };
    let mut nexthop_object = false;
    for a in &msg.attributes {
        match a {
            RouteAttribute::Table(t) => r.table = *t,
            RouteAttribute::Destination(d) => {
                r.destination = route_ip(d).map(|ip| Cidr::new(ip, h.destination_prefix_length));
            }
            RouteAttribute::Gateway(g) => r.gateway = route_ip(g),
            RouteAttribute::Oif(i) => r.oif = Some(*i),
            RouteAttribute::Priority(m) => r.metric = *m,
            RouteAttribute::MultiPath(_) => r.multipath = true,
            RouteAttribute::NhId(_) => nexthop_object = true,
            _ => {}
        }
    }
    // A nexthop object without a single output interface is a group.
    r.multipath |= nexthop_object && r.oif.is_none();
    if r.multipath {
        r.oif = None;
    }
    Some(r)
}
