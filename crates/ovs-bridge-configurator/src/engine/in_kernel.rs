//! Whether a profile change the project wrote and reapplied ([`crate::engine::reapply`]) has
//! reached the kernel, read from netlink: the interface's MTU, its static addresses (those added
//! there, and those the change dropped gone) and the static routes through it (likewise), in the
//! tables the change names. That is what nmstate's verification would find different after a
//! reapply NetworkManager accepted, without nmstate's read of the whole state (every link's
//! ethtool and sysfs attributes, every profile and device over D-Bus), which is slow and grows
//! with the number of interfaces and profiles, where a netlink dump reads only what is checked.
//! A change with a part only NetworkManager's state shows (a DHCP lease, SLAAC) gets nmstate's
//! verification instead.

use std::collections::BTreeSet;
use std::net::IpAddr;

use crate::engine::profile_change::{IfaceChange, Route, route_of};
use crate::engine::state::{IpConfig, State};
use crate::nm::setting::Family as IpFamily;
use selection::model::{Family, Route as KernelRoute, Snapshot};
use selection::net::Cidr;

/// What the kernel shows once one interface's change is in place.
#[derive(Debug)]
pub struct Expected {
    iface: String,
    mtu: Option<u32>,
    addresses: Vec<Cidr>,
    gone_addresses: Vec<Cidr>,
    routes: Vec<Route>,
    gone_routes: Vec<Route>,
}

/// What `change` must look like in the kernel, given the running state it was planned against
/// (running configuration only); `None` where only nmstate can tell.
pub fn expected(change: &IfaceChange, running: &State) -> Option<Expected> {
    // A new interface has nothing running to drop.
    let now = running.iface(&change.name);
    let mut e = Expected {
        iface: change.name.clone(),
        mtu: change.mtu,
        addresses: Vec::new(),
        gone_addresses: Vec::new(),
        routes: Vec::new(),
        gone_routes: Vec::new(),
    };
    for (family, section) in [(IpFamily::V4, &change.ipv4), (IpFamily::V6, &change.ipv6)] {
        let Some(ip) = section else { continue };
        if ip.is_dynamic() {
            return None;
        }
        // A stack turned off keeps no address NetworkManager configured.
        let after = if ip.enabled == Some(false) {
            Vec::new()
        } else {
            address_cidrs(ip)?
        };
        let before = now
            .and_then(|i| i.ip(family))
            .map_or(Some(Vec::new()), address_cidrs)?;
        e.gone_addresses
            .extend(before.into_iter().filter(|a| !after.contains(a)));
        e.addresses.extend(after);
    }
    if let (Some(v4), Some(v6)) = (&change.routes4, &change.routes6) {
        let after: Vec<Route> = v4.iter().chain(v6).cloned().collect();
        for r in running.routes.config.iter() {
            if !r.is_through(&change.name) {
                continue;
            }
            let r = route_of(r).ok()?;
            if !after.contains(&r) && !e.gone_routes.contains(&r) {
                e.gone_routes.push(r);
            }
        }
        e.routes = after;
    }
    // The dump asks for one table by the header's 8-bit field.
    let tables = e.routes.iter().chain(&e.gone_routes).map(|r| r.table);
    if tables.into_iter().any(|t| t > u32::from(u8::MAX)) {
        return None;
    }
    Some(e)
}

/// The addresses nmstate's IP section `ip` lists (None: one it does not parse).
fn address_cidrs(ip: &IpConfig) -> Option<Vec<Cidr>> {
    ip.address
        .iter()
        .flatten()
        .map(|a| {
            let ip: IpAddr = a.ip.parse().ok()?;
            let len = u8::try_from(a.prefix_length).ok()?;
            Some(Cidr::new(ip, len))
        })
        .collect()
}

/// The routing tables `expected` names (each dumped once per check).
pub fn tables(expected: &[&Expected]) -> BTreeSet<u8> {
    expected
        .iter()
        .flat_map(|e| e.routes.iter().chain(&e.gone_routes))
        .filter_map(|r| u8::try_from(r.table).ok())
        .collect()
}

/// What of `e` the kernel does not show yet (None: all of it is in place), from one snapshot of
/// links and addresses and the routes of [`tables`].
pub fn not_in_kernel_yet(e: &Expected, snap: &Snapshot, routes: &[KernelRoute]) -> Option<String> {
    let Some(link) = snap.links.iter().find(|l| l.name == e.iface) else {
        return Some(format!("{} has no link", e.iface));
    };
    let mut left = Vec::new();
    if let Some(mtu) = e.mtu.filter(|m| *m != link.mtu) {
        left.push(format!("mtu {} (wanted {mtu})", link.mtu));
    }
    let has = |a: &Cidr| {
        snap.addresses_on(link.index)
            .any(|k| k.ip == a.ip && k.prefix_len == a.prefix_len)
    };
    left.extend(
        e.addresses
            .iter()
            .filter(|a| !has(a))
            .map(|a| format!("address {}/{} missing", a.ip, a.prefix_len)),
    );
    left.extend(
        e.gone_addresses
            .iter()
            .filter(|a| has(a))
            .map(|a| format!("address {}/{} still there", a.ip, a.prefix_len)),
    );
    let routed = |r: &Route| routes.iter().any(|k| kernel_route_is(k, r, link.index));
    left.extend(
        e.routes
            .iter()
            .filter(|r| !routed(r))
            .map(|r| format!("route {} missing", show(r))),
    );
    left.extend(
        e.gone_routes
            .iter()
            .filter(|r| routed(r))
            .map(|r| format!("route {} still there", show(r))),
    );
    (!left.is_empty()).then(|| format!("{}: {}", e.iface, left.join(", ")))
}

/// Whether the kernel's route `k` is the profile's route `r` through the link `oif`.
fn kernel_route_is(k: &KernelRoute, r: &Route, oif: u32) -> bool {
    let family = if r.dest.is_ipv4() {
        Family::Ipv4
    } else {
        Family::Ipv6
    };
    // The kernel stores an IPv6 route asked for with metric 0 at its default, 1024.
    let metric = if family == Family::Ipv6 && r.metric == 0 {
        1024
    } else {
        r.metric
    };
    let dest = (r.prefix > 0).then(|| Cidr::new(r.dest, r.prefix));
    k.family == family
        && k.table == r.table
        && k.destination == dest
        && k.gateway == r.next_hop
        && k.oif == Some(oif)
        && k.metric == metric
}

fn show(r: &Route) -> String {
    let via = r.next_hop.map_or(String::new(), |h| format!(" via {h}"));
    format!(
        "{}/{}{via} metric {} table {}",
        r.dest, r.prefix, r.metric, r.table
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use selection::model::{Address, Link};
    use serde_json::{Value as Json, json};

    /// An IP section from nmstate's JSON.
    fn ip_config(v: Json) -> Option<IpConfig> {
        Some(serde_json::from_value(v).unwrap())
    }

    fn running() -> State {
        State::from_json(json!({
            "interfaces": [{"name": "br-ex", "type": "ovs-interface", "mtu": 1500,
                "ipv4": {"enabled": true, "dhcp": false,
                         "address": [{"ip": "198.51.100.20", "prefix-length": 24}]}}],
            "routes": {"config": [{"destination": "0.0.0.0/0", "next-hop-address": "198.51.100.1",
                "next-hop-interface": "br-ex", "metric": 48, "table-id": 254}]}
        }))
        .unwrap()
    }

    fn route(dest: &str, prefix: u8, via: &str, metric: u32) -> Route {
        Route {
            dest: dest.parse().unwrap(),
            prefix,
            next_hop: Some(via.parse().unwrap()),
            metric,
            table: 254,
        }
    }

    fn kernel(
        mtu: u32,
        addresses: &[&str],
        routes: &[(&str, u8, &str, u32)],
    ) -> (Snapshot, Vec<KernelRoute>) {
        let snap = Snapshot {
            links: vec![Link {
                index: 7,
                name: "br-ex".into(),
                flags: 1,
                mac: Vec::new(),
                mtu,
            }],
            addresses: addresses
                .iter()
                .map(|a| {
                    let (ip, len) = a.split_once('/').unwrap();
                    Address {
                        ifindex: 7,
                        ip: ip.parse().unwrap(),
                        prefix_len: len.parse().unwrap(),
                        label: None,
                        flags: 0x80,
                        preferred_lifetime: None,
                    }
                })
                .collect(),
            routes: Vec::new(),
        };
        let routes = routes
            .iter()
            .map(|(d, p, via, metric)| KernelRoute {
                table: 254,
                family: Family::Ipv4,
                destination: (*p > 0).then(|| Cidr::new(d.parse().unwrap(), *p)),
                gateway: Some(via.parse().unwrap()),
                oif: Some(7),
                metric: *metric,
                protocol: 4,
                multipath: false,
            })
            .collect();
        (snap, routes)
    }

    #[test]
    fn an_mtu_change_is_in_place_when_the_link_has_it() {
        let change = IfaceChange {
            mtu: Some(1400),
            ..IfaceChange::new("br-ex")
        };
        let e = expected(&change, &running()).unwrap();
        let (snap, routes) = kernel(1500, &[], &[]);
        assert_eq!(
            not_in_kernel_yet(&e, &snap, &routes).as_deref(),
            Some("br-ex: mtu 1500 (wanted 1400)")
        );
        let (snap, routes) = kernel(1400, &[], &[]);
        assert_eq!(not_in_kernel_yet(&e, &snap, &routes), None);
    }

    #[test]
    fn a_moved_default_route_needs_the_new_one_and_the_old_one_gone() {
        let change = IfaceChange {
            routes4: Some(vec![route("0.0.0.0", 0, "198.51.100.77", 0)]),
            routes6: Some(vec![]),
            ..IfaceChange::new("br-ex")
        };
        let e = expected(&change, &running()).unwrap();
        assert_eq!(tables(&[&e]).into_iter().collect::<Vec<_>>(), [254]);
        let e = expected(&change, &running()).unwrap();
        let (snap, routes) = kernel(1500, &[], &[("0.0.0.0", 0, "198.51.100.1", 48)]);
        assert_eq!(
            not_in_kernel_yet(&e, &snap, &routes).as_deref(),
            Some(
                "br-ex: route 0.0.0.0/0 via 198.51.100.77 metric 0 table 254 missing, \
                 route 0.0.0.0/0 via 198.51.100.1 metric 48 table 254 still there"
            )
        );
        let (snap, routes) = kernel(1500, &[], &[("0.0.0.0", 0, "198.51.100.77", 0)]);
        assert_eq!(not_in_kernel_yet(&e, &snap, &routes), None);
    }

    #[test]
    fn replaced_static_addresses_are_checked_both_ways() {
        let ipv4 = json!({"enabled": true, "dhcp": false,
            "address": [{"ip": "198.51.100.21", "prefix-length": 24}]});
        let change = IfaceChange {
            ipv4: ip_config(ipv4.clone()),
            ..IfaceChange::new("br-ex")
        };
        let e = expected(&change, &running()).unwrap();
        let (snap, routes) = kernel(1500, &["198.51.100.20/24", "169.254.169.2/29"], &[]);
        assert_eq!(
            not_in_kernel_yet(&e, &snap, &routes).as_deref(),
            Some("br-ex: address 198.51.100.21/24 missing, address 198.51.100.20/24 still there")
        );
        // An address NetworkManager did not configure (OVN-Kubernetes') is none of its business.
        let (snap, routes) = kernel(1500, &["198.51.100.21/24", "169.254.169.2/29"], &[]);
        assert_eq!(not_in_kernel_yet(&e, &snap, &routes), None);
    }

    #[test]
    fn a_disabled_stack_drops_its_static_addresses() {
        let change = IfaceChange {
            ipv4: ip_config(json!({"enabled": false})),
            ..IfaceChange::new("br-ex")
        };
        let e = expected(&change, &running()).unwrap();
        let (snap, routes) = kernel(1500, &["198.51.100.20/24"], &[]);
        assert_eq!(
            not_in_kernel_yet(&e, &snap, &routes).as_deref(),
            Some("br-ex: address 198.51.100.20/24 still there")
        );
    }

    #[test]
    fn dynamic_addresses_are_left_to_nmstate() {
        for ipv4 in [
            json!({"enabled": true, "dhcp": true}),
            json!({"enabled": true, "autoconf": true}),
        ] {
            let change = IfaceChange {
                ipv4: ip_config(ipv4.clone()),
                ..IfaceChange::new("br-ex")
            };
            assert!(expected(&change, &running()).is_none(), "{ipv4}");
        }
    }
}
