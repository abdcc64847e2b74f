//! Rule-by-rule tests of node-IP selection over fixture snapshots (reference §2).

use crate::default_path::DefaultVerdict;
use crate::filter::Rejection;
use crate::fixture::{addr, ip, route, snapshot};
use crate::model::{Snapshot, addr_flags};
use crate::select::{Request, Source, Unusable, Warning, check_flags, select};
use crate::vip_path::{Target, TargetRole, Via, VipVerdict};
use crate::{Selection, net::go_text};

fn vips(list: &[&str]) -> Vec<Target> {
    list.iter()
        .map(|s| Target {
            ip: ip(s),
            role: TargetRole::Vip,
        })
        .collect()
}

fn req(targets: Vec<Target>, prefer_ipv6: bool) -> Request {
    Request {
        targets,
        prefer_ipv6,
        network_type: "OVNKubernetes".into(),
    }
}

fn chosen(sel: &Selection) -> Vec<String> {
    sel.addresses.iter().map(|a| go_text(*a)).collect()
}

/// The single-stack fixture of upstream's tests (reference §2.8).
fn upstream_fixture(default_on: u32) -> Snapshot {
    snapshot()
        .link(2, "eth0")
        .addr(2, "10.0.0.5/24")
        .addr(2, "10.0.0.100/24")
        .address(addr(2, "10.0.0.4/24").label("eip"))
        .addr(2, "169.254.10.10/16")
        .link(3, "eth1")
        .addr(3, "192.168.1.2/24")
        .route(route(
            None,
            Some(if default_on == 2 {
                "10.0.0.1"
            } else {
                "192.168.1.1"
            }),
            default_on,
            100,
        ))
        .build()
}

#[test]
fn upstream_worked_examples_single_stack() {
    let snap = upstream_fixture(2);
    let sel = select(&snap, &req(vips(&["10.0.0.2"]), false));
    assert_eq!(
        (chosen(&sel), sel.source),
        (vec!["10.0.0.5".to_string()], Some(Source::Vip))
    );
    assert_eq!(sel.interface.as_deref(), Some("eth0"));
    let sel = select(&snap, &req(vec![], false));
    assert_eq!(
        (chosen(&sel), sel.source),
        (vec!["10.0.0.5".into()], Some(Source::DefaultRoute))
    );
    let sel = select(&upstream_fixture(3), &req(vec![], false));
    assert_eq!(chosen(&sel), vec!["192.168.1.2"]);
}

#[test]
fn upstream_worked_examples_dual_stack_and_prefer_ipv6() {
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "10.0.0.5/24")
        .addr(2, "fd00::5/64")
        .default_via(2, "10.0.0.1", 100)
        .default_via(2, "fd00::1", 100)
        .build();
    assert_eq!(
        chosen(&select(&snap, &req(vips(&["10.0.0.2"]), false))),
        ["10.0.0.5", "fd00::5"]
    );
    assert_eq!(
        chosen(&select(&snap, &req(vips(&["10.0.0.2"]), true))),
        ["fd00::5", "10.0.0.5"]
    );
    assert_eq!(
        chosen(&select(&snap, &req(vec![], false))),
        ["10.0.0.5", "fd00::5"]
    );
    assert_eq!(
        chosen(&select(&snap, &req(vec![], true))),
        ["fd00::5", "10.0.0.5"]
    );
    // An IPv6 VIP matches the IPv6 address and pairs the IPv4 one; order follows preference.
    assert_eq!(
        chosen(&select(&snap, &req(vips(&["fd00::100"]), false))),
        ["10.0.0.5", "fd00::5"]
    );
}

#[test]
fn vip_path_needs_no_default_route_and_wins_over_it() {
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "203.0.113.10/24")
        .default_via(2, "203.0.113.1", 100)
        .link(3, "eth1")
        .addr(3, "192.0.2.10/24")
        .build();
    let sel = select(&snap, &req(vips(&["192.0.2.100"]), false));
    assert_eq!(
        (chosen(&sel), sel.source),
        (vec!["192.0.2.10".into()], Some(Source::Vip))
    );
}

#[test]
fn full_length_ipv6_matches_through_an_ra_route_on_its_link_only() {
    let base = || {
        snapshot()
            .link(2, "eth0")
            .addr(2, "2001:db8:1::10/128")
            .link(3, "eth1")
            .addr(3, "2001:db8:9::10/64")
            .route(route(None, Some("2001:db8:9::1"), 3, 100))
    };
    let target = vips(&["2001:db8:1::100"]);
    let with_ra = base()
        .route(route(Some("2001:db8:1::/64"), None, 2, 100).ra())
        .build();
    let sel = select(&with_ra, &req(target.clone(), true));
    assert_eq!(
        (chosen(&sel), sel.source),
        (vec!["2001:db8:1::10".into()], Some(Source::Vip))
    );
    let c = &sel
        .explanation
        .candidates
        .iter()
        .find(|c| c.chosen == Some(0))
        .unwrap();
    assert_eq!(
        c.vip_path,
        Some(VipVerdict::Matches {
            target: ip("2001:db8:1::100"),
            via: Via::RaRoute {
                network: crate::fixture::cidr("2001:db8:1::10/64")
            }
        })
    );
    // A static (non-RA) route does not count; neither does an RA route on another link.
    let static_route = base()
        .route(route(Some("2001:db8:1::/64"), None, 2, 100))
        .build();
    assert_eq!(
        select(&static_route, &req(target.clone(), true)).source,
        Some(Source::DefaultRoute)
    );
    let other_link = base()
        .route(route(Some("2001:db8:1::/64"), None, 3, 100).ra())
        .build();
    assert_eq!(
        chosen(&select(&other_link, &req(target.clone(), true))),
        ["2001:db8:9::10"]
    );
    // An RA route outside the main table does not count either.
    let other_table = base()
        .route(route(Some("2001:db8:1::/64"), None, 2, 100).ra().table(100))
        .build();
    assert_eq!(
        select(&other_table, &req(target, true)).source,
        Some(Source::DefaultRoute)
    );
}

#[test]
fn an_address_equal_to_a_positional_ip_is_skipped_and_a_local_hint_warns() {
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "192.0.2.10/24")
        .addr(2, "192.0.2.100/24") // the API VIP held by this node
        .link(3, "eth1")
        .addr(3, "198.51.100.10/24")
        .default_via(3, "198.51.100.1", 100)
        .build();
    let sel = select(&snap, &req(vips(&["192.0.2.100"]), false));
    assert_eq!(chosen(&sel), ["192.0.2.10"]);
    let vip = sel
        .explanation
        .candidates
        .iter()
        .find(|c| c.address.ip == ip("192.0.2.100"));
    assert!(matches!(
        vip.unwrap().vip_path,
        Some(VipVerdict::IsTarget { .. })
    ));

    // hint == node IP: the only address on the subnet is skipped, the default route decides.
    let hint = vec![Target {
        ip: ip("192.0.2.10"),
        role: TargetRole::Hint,
    }];
    let only = snapshot()
        .link(2, "eth0")
        .addr(2, "192.0.2.10/24")
        .link(3, "eth1")
        .addr(3, "198.51.100.10/24")
        .default_via(3, "198.51.100.1", 100)
        .build();
    let sel = select(&only, &req(hint, false));
    assert_eq!(
        (chosen(&sel), sel.source),
        (vec!["198.51.100.10".into()], Some(Source::DefaultRoute))
    );
    assert!(
        sel.explanation
            .warnings
            .contains(&Warning::HintIsLocalAddress {
                hint: ip("192.0.2.10"),
                interface: "eth0".into()
            })
    );
}

#[test]
fn mapped_positional_ip_equals_its_dotted_quad_address() {
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "192.0.2.10/24")
        .addr(2, "192.0.2.11/24")
        .build();
    let sel = select(&snap, &req(vips(&["::ffff:192.0.2.10"]), false));
    assert_eq!(
        chosen(&sel),
        ["192.0.2.11"],
        "text forms are compared, as upstream"
    );
}

#[test]
fn filters_link_local_deprecated_and_egress_addresses() {
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "169.254.3.3/16")
        .address(addr(2, "192.0.2.4/24").label("eth0:eip"))
        .address(addr(2, "2001:db8::100/64").preferred(0))
        .addr(2, "fe80::1/64")
        .addr(2, "2001:db8::10/64")
        .addr(2, "192.0.2.10/24")
        .default_via(2, "192.0.2.1", 100)
        .build();
    let sel = select(&snap, &req(vips(&["192.0.2.99"]), false));
    assert_eq!(chosen(&sel), ["192.0.2.10", "2001:db8::10"]);
    let sel = select(&snap, &req(vec![], true));
    assert_eq!(chosen(&sel), ["2001:db8::10", "192.0.2.10"]);
    let reasons: Vec<_> = sel
        .explanation
        .candidates
        .iter()
        .filter_map(|c| match &c.default_path {
            Some(DefaultVerdict::Rejected { reason }) => Some(reason.clone()),
            _ => None,
        })
        .collect();
    assert!(reasons.contains(&Rejection::LinkLocal));
    assert!(reasons.contains(&Rejection::Deprecated));
    assert!(reasons.contains(&Rejection::EgressLabel {
        label: "eth0:eip".into()
    }));
}

#[test]
fn ovn_masquerade_address_is_rejected_on_the_default_path_for_ovn_only() {
    let snap = snapshot()
        .link(2, "br-ex")
        .addr(2, "fd69::2/112")
        .addr(2, "2001:db8::10/64")
        .route(route(None, Some("2001:db8::1"), 2, 100))
        .build();
    let ovn = select(&snap, &req(vec![], true));
    assert_eq!(chosen(&ovn), ["2001:db8::10"]);
    let mut other = req(vec![], true);
    other.network_type = "OpenShiftSDN".into();
    // fd69::2 sorts first on bytes... but private (fc00::/7) loses to public 2001:db8::10.
    assert_eq!(chosen(&select(&snap, &other)), ["2001:db8::10"]);
    let only = snapshot()
        .link(2, "br-ex")
        .addr(2, "fd69::2/112")
        .route(route(None, Some("fd69::1"), 2, 100))
        .build();
    assert!(select(&only, &req(vec![], true)).addresses.is_empty());
    assert_eq!(chosen(&select(&only, &other)), ["fd69::2"]);
    // The VIP path uses the plain filter on every attempt (documented decision).
    assert_eq!(
        chosen(&select(&only, &req(vips(&["fd69::9"]), true))),
        ["fd69::2"]
    );
}

#[test]
fn multipath_default_routes_are_ignored_with_a_warning() {
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "192.0.2.10/24")
        .route(route(None, Some("192.0.2.1"), 2, 100).multipath())
        .build();
    let sel = select(&snap, &req(vec![], false));
    assert!(sel.addresses.is_empty());
    assert_eq!(sel.source, None);
    assert!(matches!(
        sel.explanation.warnings[0],
        Warning::MultipathDefaultIgnored { .. }
    ));
}

#[test]
fn only_the_main_table_counts() {
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "192.0.2.10/24")
        .route(route(None, Some("192.0.2.1"), 2, 100).table(100))
        .build();
    assert!(select(&snap, &req(vec![], false)).addresses.is_empty());
}

#[test]
fn key_a_lower_metric_wins_whatever_the_family() {
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "192.0.2.10/24")
        .default_via(2, "192.0.2.1", 100)
        .link(3, "eth1")
        .addr(3, "2001:db8::10/64")
        .route(route(None, Some("2001:db8::1"), 3, 50))
        .build();
    // Even without --prefer-ipv6 the IPv6 address of the lower-metric link comes first.
    assert_eq!(
        chosen(&select(&snap, &req(vec![], false))),
        ["2001:db8::10", "192.0.2.10"]
    );
}

#[test]
fn key_b_lower_ifindex_wins_on_equal_metric() {
    let snap = snapshot()
        .link(3, "eth1")
        .addr(3, "192.0.2.10/24")
        .default_via(3, "192.0.2.1", 100)
        .link(2, "eth0")
        .addr(2, "198.51.100.10/24")
        .default_via(2, "198.51.100.1", 100)
        .build();
    assert_eq!(
        chosen(&select(&snap, &req(vec![], false))),
        ["198.51.100.10"]
    );
}

#[test]
fn key_c_preferred_family_within_a_link() {
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "192.0.2.10/24")
        .addr(2, "2001:db8::10/64")
        .default_via(2, "192.0.2.1", 100)
        .build();
    assert_eq!(
        chosen(&select(&snap, &req(vec![], true)))[0],
        "2001:db8::10"
    );
    assert_eq!(chosen(&select(&snap, &req(vec![], false)))[0], "192.0.2.10");
}

#[test]
fn key_d_gateway_on_subnet_beats_address_bytes() {
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "192.0.2.10/24")
        .addr(2, "198.51.100.10/24")
        .default_via(2, "198.51.100.1", 100)
        .build();
    assert_eq!(
        chosen(&select(&snap, &req(vec![], false))),
        ["198.51.100.10"]
    );
}

#[test]
fn key_e_public_beats_private() {
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "10.0.0.9/24")
        .addr(2, "203.0.113.9/24")
        .default_via(2, "198.51.100.1", 100)
        .build();
    assert_eq!(chosen(&select(&snap, &req(vec![], false))), ["203.0.113.9"]);
}

#[test]
fn key_f_real_ipv6_beats_ipv4_mapped() {
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "::ffff:192.0.2.9/128")
        .addr(2, "2001:db8::9/64")
        .route(route(None, Some("2001:db8:ff::1"), 2, 100))
        .build();
    // Bytes alone would pick the mapped address (00.. < 20..).
    assert_eq!(chosen(&select(&snap, &req(vec![], true))), ["2001:db8::9"]);
}

#[test]
fn key_g_smaller_bytes_win_last() {
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "203.0.113.20/24")
        .addr(2, "203.0.113.3/24")
        .default_via(2, "198.51.100.1", 100)
        .build();
    let sel = select(&snap, &req(vec![], false));
    assert_eq!(chosen(&sel), ["203.0.113.3"]);
    let ranks: Vec<_> = sel
        .explanation
        .candidates
        .iter()
        .filter_map(|c| match &c.default_path {
            Some(DefaultVerdict::Ranked { rank, .. }) => Some((c.address.to_string(), *rank)),
            _ => None,
        })
        .collect();
    assert!(
        ranks.contains(&("203.0.113.3/24".into(), 0))
            && ranks.contains(&("203.0.113.20/24".into(), 1))
    );
}

#[test]
fn first_default_route_of_a_link_gives_metric_and_gateway_for_both_families() {
    // eth0: IPv4 default metric 100 listed first, IPv6 default metric 10. eth1: IPv6 metric 50.
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "192.0.2.10/24")
        .addr(2, "2001:db8:a::10/64")
        .default_via(2, "192.0.2.1", 100)
        .route(route(None, Some("2001:db8:a::1"), 2, 10))
        .link(3, "eth1")
        .addr(3, "2001:db8:b::10/64")
        .route(route(None, Some("2001:db8:b::1"), 3, 50))
        .build();
    // eth0's IPv6 address carries metric 100 (the IPv4 route), so eth1 (50) wins.
    assert_eq!(
        chosen(&select(&snap, &req(vec![], true))),
        ["2001:db8:b::10", "192.0.2.10"]
    );
    let key = sel_key(&select(&snap, &req(vec![], true)), "2001:db8:a::10/64");
    assert_eq!(
        (key.0, key.1),
        (100, false),
        "IPv4 gateway is never on an IPv6 subnet"
    );
}

fn sel_key(sel: &Selection, address: &str) -> (u32, bool) {
    sel.explanation
        .candidates
        .iter()
        .find_map(|c| match &c.default_path {
            Some(DefaultVerdict::Ranked { key, .. }) if c.address.to_string() == address => {
                Some((key.metric, key.gateway_on_subnet))
            }
            _ => None,
        })
        .unwrap()
}

#[test]
fn partner_is_first_usable_opposite_family_address_and_never_a_vip() {
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "192.0.2.10/24")
        .addr(2, "fe80::5/64")
        .addr(2, "2001:db8::100/64") // an IPv6 VIP held by this node, not deprecated
        .addr(2, "2001:db8::10/64")
        .build();
    let sel = select(&snap, &req(vips(&["192.0.2.100", "2001:db8::100"]), false));
    assert_eq!(chosen(&sel), ["192.0.2.10", "2001:db8::10"]);
}

#[test]
fn several_matching_links_lowest_ifindex_wins_and_warns() {
    let snap = snapshot()
        .link(4, "eth2")
        .addr(4, "192.0.2.20/24")
        .link(3, "eth1")
        .addr(3, "192.0.2.10/24")
        .build();
    let sel = select(&snap, &req(vips(&["192.0.2.100"]), false));
    assert_eq!(chosen(&sel), ["192.0.2.10"]);
    assert!(
        sel.explanation
            .warnings
            .contains(&Warning::SeveralLinksMatch {
                interfaces: vec!["eth1".into(), "eth2".into()],
                chosen: "eth1".into()
            })
    );
}

#[test]
fn a_hint_beats_vips_matching_on_another_link() {
    let snap = snapshot()
        .link(2, "eth0")
        .addr(2, "192.0.2.10/24")
        .link(3, "eth1")
        .addr(3, "198.51.100.10/24")
        .build();
    let mut targets = vec![Target {
        ip: ip("198.51.100.1"),
        role: TargetRole::Hint,
    }];
    targets.extend(vips(&["192.0.2.100"]));
    let sel = select(&snap, &req(targets, false));
    assert_eq!(chosen(&sel), ["198.51.100.10"]);
}

#[test]
fn vips_on_no_local_subnet_fall_back_to_the_default_route_and_warn() {
    let snap = upstream_fixture(2);
    let sel = select(&snap, &req(vips(&["203.0.113.5"]), false));
    assert_eq!(
        (chosen(&sel), sel.source),
        (vec!["10.0.0.5".into()], Some(Source::DefaultRoute))
    );
    assert!(
        sel.explanation
            .warnings
            .contains(&Warning::TargetOnNoLocalSubnet {
                ip: ip("203.0.113.5"),
                role: TargetRole::Vip
            })
    );
}

#[test]
fn nothing_to_choose_gives_an_empty_selection() {
    let sel = select(&snapshot().build(), &req(vips(&["192.0.2.1"]), false));
    assert!(sel.addresses.is_empty() && sel.source.is_none() && sel.interface.is_none());
}

#[test]
fn result_does_not_depend_on_link_listing_order() {
    let a = snapshot()
        .link(3, "b")
        .addr(3, "192.0.2.3/24")
        .link(2, "a")
        .addr(2, "192.0.2.2/24");
    let b = snapshot()
        .link(2, "a")
        .addr(2, "192.0.2.2/24")
        .link(3, "b")
        .addr(3, "192.0.2.3/24");
    let r = req(vips(&["192.0.2.100"]), false);
    assert_eq!(select(&a.build(), &r), select(&b.build(), &r));
}

#[test]
fn usability_follows_the_primary_ipv6_flags_only() {
    let snap = snapshot()
        .link(2, "eth0")
        .address(addr(2, "2001:db8::10/64").with_flags(addr_flags::TENTATIVE))
        .address(addr(2, "192.0.2.10/24"))
        .default_via(2, "192.0.2.1", 100)
        .build();
    let v6 = select(&snap, &req(vec![], true));
    assert_eq!(
        check_flags(&snap, &v6),
        Err(Unusable::Tentative("2001:db8::10".into()))
    );
    // IPv4 first: the tentative IPv6 second address is not checked (as upstream).
    assert_eq!(
        check_flags(&snap, &select(&snap, &req(vec![], false))),
        Ok(())
    );
    let failed = snapshot()
        .link(2, "eth0")
        .address(addr(2, "2001:db8::10/64").with_flags(addr_flags::DADFAILED))
        .route(route(None, Some("2001:db8::1"), 2, 1))
        .build();
    let sel = select(&failed, &req(vec![], true));
    assert_eq!(
        check_flags(&failed, &sel),
        Err(Unusable::DadFailed("2001:db8::10".into()))
    );
}

#[test]
fn explanation_serializes_every_candidate() {
    let sel = select(&upstream_fixture(2), &req(vips(&["10.0.0.2"]), false));
    let json = serde_json::to_value(&sel).unwrap();
    assert_eq!(json["addresses"][0], "10.0.0.5");
    assert_eq!(json["source"], "vip");
    let cands = json["explanation"]["candidates"].as_array().unwrap();
    assert_eq!(cands.len(), 7, "lo (2) + eth0 (4) + eth1 (1)");
    let by_address = |a: &str| cands.iter().find(|c| c["address"] == a).unwrap();
    assert_eq!(by_address("10.0.0.5/24")["vip_path"]["verdict"], "matches");
    assert_eq!(by_address("10.0.0.5/24")["chosen"], 0);
    assert_eq!(
        by_address("10.0.0.4/24")["vip_path"]["reason"]["kind"],
        "egress-label"
    );
    assert_eq!(
        by_address("169.254.10.10/16")["vip_path"]["reason"]["kind"],
        "link-local"
    );
}
