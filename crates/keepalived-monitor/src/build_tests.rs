//! The builder over fixtures: the reference's scenarios A-E and the split-brain rules.

use std::net::IpAddr;

use selection::fixture::{ip, snapshot};

use crate::build::{BuildError, Inputs, build};
use crate::check_scripts::default_scripts;
use crate::model::{Mode, Role};
use crate::peers::{Peer, Peers};
use crate::settings::{Reload, Settings};

pub(crate) fn settings(role: Role, api: &[&str], ingress: &[&str]) -> Settings {
    Settings {
        cluster_name: "ostest".into(),
        role,
        api_vips: api.iter().map(|s| ip(s)).collect(),
        ingress_vips: ingress.iter().map(|s| ip(s)).collect(),
        platform: "BareMetal".into(),
        topology: "HighlyAvailable".into(),
        output: "/etc/keepalived/keepalived.conf".into(),
        mode: Mode::Unicast,
        keepalived_dir: "/etc/keepalived".into(),
        peers: crate::settings::PeerSource::File("/etc/keepalived-monitor/peers.toml".into()),
        reload: Reload::Systemd,
        debounce: std::time::Duration::from_secs(3),
        api_port: 6443,
        run_dir: "/run/nodeip-configuration".into(),
        keepalived_run_dir: "/run/keepalived".into(),
        user_managed_lb: false,
        scripts: default_scripts(std::path::Path::new("/etc/keepalived")),
    }
}

fn peers(masters: &[&str], workers: &[&str]) -> Peers {
    let node = |role, a: &&str| Peer {
        name: format!("n-{a}"),
        role,
        addresses: vec![ip(a)],
        ovn_addresses: vec![],
        kubelet_version: None,
        mco_state: None,
        mco_current_config: None,
        mco_desired_config: None,
    };
    Peers {
        nodes: masters
            .iter()
            .map(|a| node(Role::Master, a))
            .chain(workers.iter().map(|a| node(Role::Worker, a)))
            .collect(),
    }
}

/// This node holds `own` on br-ex (the node-IP file points at it).
fn render(s: &Settings, own: &str, p: &Peers, mode: Mode) -> Result<String, BuildError> {
    let cidr = if own.contains(':') {
        format!("{own}/64")
    } else {
        format!("{own}/24")
    };
    let snap = snapshot()
        .link(2, "ens3")
        .link(5, "br-ex")
        .addr(5, &cidr)
        .build();
    let own: IpAddr = ip(own);
    let inputs = Inputs {
        settings: s,
        snapshot: &snap,
        node_ipv4: own.is_ipv4().then_some(own),
        node_ipv6: own.is_ipv6().then_some(own),
        peers: p,
        mode,
        remote_worker: false,
    };
    build(&inputs).map(|k| k.render())
}

/// The IPv6 addresses of the nodes of [`MASTERS`] then [`WORKERS`], in order (::14, ::15, ...).
fn node_ipv6s() -> impl Iterator<Item = IpAddr> {
    (14..).map(|i| ip(&format!("fd2e:6f44:5dd8:c956::{i}")))
}

const MASTERS: [&str; 3] = ["192.168.111.20", "192.168.111.21", "192.168.111.22"];
const WORKERS: [&str; 2] = ["192.168.111.23", "192.168.111.24"];

#[test]
fn scenario_a_master_unicast() {
    let s = settings(Role::Master, &["192.168.111.5"], &["192.168.111.4"]);
    let text = render(
        &s,
        "192.168.111.20",
        &peers(&MASTERS, &WORKERS),
        Mode::Unicast,
    )
    .unwrap();
    assert!(text.starts_with(
        "global_defs {\n    enable_script_security\n    script_user root\n    max_auto_priority -1\n    vrrp_garp_master_refresh 60\n    vrrp_garp_master_delay 1\n}\n"
    ));
    assert!(text.contains(
        "\nvrrp_instance ostest_API_0 {\n    state BACKUP\n    interface br-ex\n    virtual_router_id 14\n    priority 40\n    advert_int 1\n    \
         unicast_src_ip 192.168.111.20\n    unicast_peer {\n        192.168.111.21\n        192.168.111.22\n    }\n    authentication {\n        \
         auth_type PASS\n        auth_pass ostest_a\n    }\n    virtual_ipaddress {\n        192.168.111.5/32 label vip\n    }\n    track_script {\n        \
         chk_ocp_lb\n        chk_ocp_both\n        chk_mcs\n    }\n}\n"
    ), "{text}");
    assert!(text.contains(
        "\nvrrp_instance ostest_INGRESS_0 {\n    state BACKUP\n    interface br-ex\n    virtual_router_id 93\n    priority 20\n    advert_int 1\n    \
         unicast_src_ip 192.168.111.20\n    unicast_peer {\n        192.168.111.21\n        192.168.111.22\n        192.168.111.23\n        192.168.111.24\n    }\n"
    ), "{text}");
    assert!(text.contains("auth_pass ostest_i\n") && text.contains("192.168.111.4/32 label vip"));
    assert!(text.contains("vrrp_script chk_ingress {\n    script \"/usr/bin/timeout 0.9 /usr/bin/curl -o /dev/null -Lfs http://localhost:1936/healthz\"\n    interval 1\n    rise 3\n    fall 2\n}\n"));
    assert!(text.contains("vrrp_script chk_default_ingress {\n    script \"/usr/bin/timeout 4.9 /etc/keepalived/chk_default_ingress.sh\"\n    interval 5\n    weight 50\n"));
    // Same inputs, same bytes.
    assert_eq!(
        render(
            &s,
            "192.168.111.20",
            &peers(&MASTERS, &WORKERS),
            Mode::Unicast
        )
        .unwrap(),
        text
    );
}

#[test]
fn scenario_b_multicast_omits_unicast_lines_and_needs_no_peers() {
    let s = settings(Role::Master, &["192.168.111.5"], &["192.168.111.4"]);
    let text = render(&s, "192.168.111.20", &Peers::default(), Mode::Multicast).unwrap();
    assert!(!text.contains("unicast"));
    assert!(
        text.contains("vrrp_instance ostest_API_0")
            && text.contains("vrrp_instance ostest_INGRESS_0")
    );
}

#[test]
fn scenario_c_worker_renders_only_ingress_and_only_when_a_peer() {
    let s = settings(Role::Worker, &["192.168.111.5"], &["192.168.111.4"]);
    let text = render(
        &s,
        "192.168.111.23",
        &peers(&MASTERS, &WORKERS),
        Mode::Unicast,
    )
    .unwrap();
    assert!(!text.contains("_API_") && !text.contains("chk_ocp_lb"));
    assert!(text.contains("unicast_src_ip 192.168.111.23\n    unicast_peer {\n        192.168.111.20\n        192.168.111.21\n        192.168.111.22\n        192.168.111.24\n    }"));
    // K1: a node missing from the peer list does not join the ingress instance.
    let text = render(
        &s,
        "192.168.111.99",
        &peers(&MASTERS, &WORKERS),
        Mode::Unicast,
    )
    .unwrap();
    assert!(!text.contains("vrrp_instance"), "{text}");
    assert!(
        text.contains("# 192.168.111.99 is not an ingress peer"),
        "{text}"
    );
}

#[test]
fn master_not_a_backend_does_not_join_the_api_instance() {
    let s = settings(Role::Master, &["192.168.111.5"], &["192.168.111.4"]);
    let text = render(
        &s,
        "192.168.111.30",
        &peers(&MASTERS, &["192.168.111.30"]),
        Mode::Unicast,
    )
    .unwrap();
    assert!(
        !text.contains("ostest_API_0 {") && text.contains("ostest_INGRESS_0 {"),
        "{text}"
    );
}

#[test]
fn k4_fewer_than_two_backends_never_render_but_single_node_clusters_do() {
    let s = settings(Role::Master, &["192.168.111.5"], &["192.168.111.4"]);
    let one = peers(&["192.168.111.20"], &[]);
    assert_eq!(
        render(&s, "192.168.111.20", &one, Mode::Unicast),
        Err(BuildError::TooFewBackends(1))
    );
    let mut sno = s.clone();
    sno.topology = "SingleReplica".into();
    assert!(render(&sno, "192.168.111.20", &one, Mode::Unicast).is_ok());
    assert!(
        render(&s, "192.168.111.20", &one, Mode::Multicast).is_ok(),
        "multicast needs no peer list"
    );
}

#[test]
fn the_guard_counts_known_masters_for_every_non_bootstrap_role_on_the_first_family() {
    // A worker knowing one master renders nothing either (upstream's scope).
    let w = settings(Role::Worker, &["192.168.111.5"], &["192.168.111.4"]);
    assert_eq!(
        render(
            &w,
            "192.168.111.23",
            &peers(&["192.168.111.20"], &WORKERS),
            Mode::Unicast
        ),
        Err(BuildError::TooFewBackends(1))
    );
    // IPv6 VIPs, masters reporting only IPv4 InternalIPs: both are known backends (upstream's
    // empty entries), so the guard passes; no empty peer is rendered.
    let s = settings(Role::Master, &["fd00::5"], &["fd00::4"]);
    let text = render(&s, "fd00::14", &peers(&MASTERS[..2], &[]), Mode::Unicast).unwrap();
    assert!(!text.contains("unicast_peer {\n        \n"), "{text}");
    assert!(text.contains("is not an API backend"), "{text}");
    // Two-node arbiter / fencing: a lone master gets upstream's placeholder backend.
    for topology in ["HighlyAvailableArbiter", "DualReplica"] {
        let mut tna = settings(Role::Master, &["192.168.111.5"], &["192.168.111.4"]);
        tna.topology = topology.into();
        let text = render(
            &tna,
            "192.168.111.20",
            &peers(&["192.168.111.20"], &[]),
            Mode::Unicast,
        )
        .unwrap();
        assert!(
            text.contains("vrrp_instance ostest_API_0 {")
                && text.contains("unicast_peer {\n        0.0.0.0\n    }"),
            "{topology}: {text}"
        );
    }
}

#[test]
fn a_dual_stack_node_renders_the_families_it_has() {
    let s = settings(
        Role::Master,
        &["192.168.111.5", "fd00::5"],
        &["192.168.111.4", "fd00::4"],
    );
    let text = render(&s, "192.168.111.20", &peers(&MASTERS, &[]), Mode::Unicast).unwrap();
    assert!(text.contains("vrrp_instance ostest_API_0 {"), "{text}");
    assert!(
        !text.contains("ostest_API_1") && !text.contains("ostest_INGRESS_1"),
        "{text}"
    );
    assert!(
        text.starts_with("# no interface holds an IPv6 address for VIP set 1"),
        "{text}"
    );
    // IPv6-primary without IPv6: the IPv4 instances keep their index. (The guard looks at the
    // first family: the masters must report IPv6 InternalIPs.)
    let mut dual = peers(&MASTERS, &[]);
    for (i, n) in dual.nodes.iter_mut().enumerate() {
        n.addresses.push(ip(&format!("fd00::{}", 20 + i)));
    }
    let s6 = settings(
        Role::Master,
        &["fd00::5", "192.168.111.5"],
        &["fd00::4", "192.168.111.4"],
    );
    let text = render(&s6, "192.168.111.20", &dual, Mode::Unicast).unwrap();
    assert!(text.contains("vrrp_instance ostest_API_1 {"), "{text}");
    assert!(!text.contains("ostest_API_0"), "{text}");
    // No address of any VIP family: nothing, one clear error.
    let v6only = settings(Role::Master, &["fd00::5"], &["fd00::4"]);
    assert_eq!(
        render(
            &v6only,
            "192.168.111.20",
            &peers(&MASTERS, &[]),
            Mode::Unicast
        ),
        Err(BuildError::NoInterface("IPv6".into()))
    );
}

#[test]
fn scenario_d_dual_stack_uses_the_same_vrids_per_family() {
    let s = settings(
        Role::Master,
        &["192.168.111.5", "fd2e:6f44:5dd8:c956::5"],
        &["192.168.111.4", "fd2e:6f44:5dd8:c956::4"],
    );
    let snap = snapshot()
        .link(5, "br-ex")
        .addr(5, "192.168.111.20/24")
        .addr(5, "fd2e:6f44:5dd8:c956::14/64")
        .build();
    let mut p = peers(&MASTERS, &[]);
    for (n, v6) in p.nodes.iter_mut().zip(node_ipv6s()) {
        n.addresses.push(v6);
    }
    let inputs = Inputs {
        settings: &s,
        snapshot: &snap,
        node_ipv4: Some(ip("192.168.111.20")),
        node_ipv6: Some(ip("fd2e:6f44:5dd8:c956::14")),
        peers: &p,
        mode: Mode::Unicast,
        remote_worker: false,
    };
    let text = build(&inputs).unwrap().render();
    for name in [
        "ostest_API_0",
        "ostest_INGRESS_0",
        "ostest_API_1",
        "ostest_INGRESS_1",
    ] {
        assert!(text.contains(&format!("vrrp_instance {name} {{")), "{name}");
    }
    // IPv6 instances: no label, no authentication (keepalived ignores both there, and its
    // warnings would fail `keepalived -t`); IPv4 ones keep upstream's.
    assert!(
        text.contains("        fd2e:6f44:5dd8:c956::5/128\n")
            && text.contains("        fd2e:6f44:5dd8:c956::4/128\n")
            && text.contains("192.168.111.5/32 label vip\n")
    );
    let v6_instance = &text[text.find("vrrp_instance ostest_API_1").unwrap()..];
    let v6_instance = &v6_instance[..v6_instance.find("\n}\n").unwrap()];
    assert!(!v6_instance.contains("authentication"), "{v6_instance}");
    assert_eq!(
        text.matches("    authentication {").count(),
        2,
        "IPv4 instances only"
    );
    assert!(text.contains("unicast_src_ip fd2e:6f44:5dd8:c956::14\n    unicast_peer {\n        fd2e:6f44:5dd8:c956::15\n        fd2e:6f44:5dd8:c956::16\n"));
    assert_eq!(text.matches("virtual_router_id 14\n").count(), 2);
    assert_eq!(text.matches("virtual_router_id 93\n").count(), 2);
    // OpenStack: one sync group per VIP kind, the instances lose their own track scripts.
    let mut os = s.clone();
    os.platform = "OpenStack".into();
    let text = build(&Inputs {
        settings: &os,
        ..inputs
    })
    .unwrap()
    .render();
    assert!(text.contains("vrrp_sync_group VG_API {\n    group {\n        ostest_API_0\n        ostest_API_1\n    }\n    track_script {\n        chk_ocp_lb\n"), "{text}");
    assert!(text.contains("vrrp_sync_group VG_INGRESS {"));
    assert_eq!(
        text.matches("    track_script {").count(),
        2,
        "only the groups track"
    );
}

/// A DHCPv6 host holds its IPv6 address as /128; the Nodes list their IPv6 addresses only in
/// the OVN `host-cidrs` annotation. Upstream widens the machine network to /64, so the peers
/// are found; with the /128 as the network no peer is inside it and every worker would take
/// the ingress VIP alone.
#[test]
fn a_dhcpv6_128_host_finds_its_ipv6_peers_in_the_widened_64() {
    let s = settings(
        Role::Worker,
        &["192.168.111.5", "fd2e:6f44:5dd8:c956::5"],
        &["192.168.111.4", "fd2e:6f44:5dd8:c956::4"],
    );
    let snap = snapshot()
        .link(5, "br-ex")
        .addr(5, "192.168.111.23/24")
        .addr(5, "fd2e:6f44:5dd8:c956::17/128")
        .build();
    let mut p = peers(&MASTERS, &WORKERS);
    for (n, v6) in p.nodes.iter_mut().zip(node_ipv6s()) {
        n.ovn_addresses.push(v6);
    }
    let inputs = Inputs {
        settings: &s,
        snapshot: &snap,
        node_ipv4: Some(ip("192.168.111.23")),
        node_ipv6: Some(ip("fd2e:6f44:5dd8:c956::17")),
        peers: &p,
        mode: Mode::Unicast,
        remote_worker: false,
    };
    let text = build(&inputs).unwrap().render();
    let v6 = &text[text.find("vrrp_instance ostest_INGRESS_1").unwrap()..];
    assert!(
        v6.starts_with(
            "vrrp_instance ostest_INGRESS_1 {\n    state BACKUP\n    interface br-ex\n    \
             virtual_router_id 93\n    priority 20\n    advert_int 1\n    \
             unicast_src_ip fd2e:6f44:5dd8:c956::17\n    unicast_peer {\n        \
             fd2e:6f44:5dd8:c956::14\n        fd2e:6f44:5dd8:c956::15\n        \
             fd2e:6f44:5dd8:c956::16\n        fd2e:6f44:5dd8:c956::18\n    }\n"
        ),
        "{text}"
    );
}

/// OpenStack dual stack: workers get `VG_INGRESS` as masters do (MCO's worker template), and
/// a group that would hold a single instance is left out, its instance keeping its checks.
#[test]
fn openstack_sync_groups_for_workers_and_never_of_one_instance() {
    let mut s = settings(
        Role::Worker,
        &["192.168.111.5", "fd2e:6f44:5dd8:c956::5"],
        &["192.168.111.4", "fd2e:6f44:5dd8:c956::4"],
    );
    s.platform = "OpenStack".into();
    let mut p = peers(&MASTERS, &WORKERS);
    for (n, v6) in p.nodes.iter_mut().zip(node_ipv6s()) {
        n.addresses.push(v6);
    }
    let snap = |v6: bool| {
        let b = snapshot().link(5, "br-ex").addr(5, "192.168.111.23/24");
        if v6 {
            b.addr(5, "fd2e:6f44:5dd8:c956::17/64")
        } else {
            b
        }
        .build()
    };
    let both = snap(true);
    let inputs = Inputs {
        settings: &s,
        snapshot: &both,
        node_ipv4: Some(ip("192.168.111.23")),
        node_ipv6: Some(ip("fd2e:6f44:5dd8:c956::17")),
        peers: &p,
        mode: Mode::Unicast,
        remote_worker: false,
    };
    let text = build(&inputs).unwrap().render();
    assert!(
        text.contains(
            "vrrp_sync_group VG_INGRESS {\n    group {\n        ostest_INGRESS_0\n        \
             ostest_INGRESS_1\n    }\n    track_script {\n        chk_ingress\n        \
             chk_ingress_ready\n        chk_default_ingress\n    }\n}\n"
        ),
        "{text}"
    );
    assert!(!text.contains("VG_API"), "{text}");
    assert_eq!(text.matches("    track_script {").count(), 1, "{text}");
    // No IPv6 address yet: one ingress instance, no group, its own checks.
    let v4_only = snap(false);
    let text = build(&Inputs {
        snapshot: &v4_only,
        node_ipv6: None,
        ..inputs
    })
    .unwrap()
    .render();
    assert!(!text.contains("vrrp_sync_group"), "{text}");
    let instance = &text[text.find("vrrp_instance ostest_INGRESS_0").unwrap()..];
    assert!(
        instance.contains("    track_script {\n        chk_ingress\n"),
        "{text}"
    );
}

#[test]
fn scenario_e_bootstrap_lists_every_master_and_tracks_nothing() {
    let s = settings(Role::Bootstrap, &["192.168.111.5"], &["192.168.111.4"]);
    let text = render(
        &s,
        "192.168.111.10",
        &peers(&MASTERS, &WORKERS),
        Mode::Unicast,
    )
    .unwrap();
    assert!(text.contains("priority 70\n    advert_int 1\n    unicast_src_ip 192.168.111.10\n    unicast_peer {\n        192.168.111.20\n        192.168.111.21\n        192.168.111.22\n    }"), "{text}");
    assert!(
        !text.contains("INGRESS")
            && !text.contains("track_script")
            && !text.contains("vrrp_script")
    );
    // No masters yet: the bootstrap still renders, with the placeholder peer where upstream
    // has an empty block (which `keepalived -t` rejects).
    assert!(
        render(&s, "192.168.111.10", &Peers::default(), Mode::Unicast)
            .unwrap()
            .contains("unicast_peer {\n        0.0.0.0\n    }")
    );
}

#[test]
fn backends_sort_as_text_and_peers_keep_the_list_order() {
    let s = settings(Role::Master, &["192.168.111.5"], &["192.168.111.4"]);
    let p = peers(&["192.168.111.9", "192.168.111.10", "192.168.111.20"], &[]);
    let text = render(&s, "192.168.111.20", &p, Mode::Unicast).unwrap();
    // Upstream compares backend addresses as strings: .10 before .9.
    assert!(
        text.contains("unicast_peer {\n        192.168.111.10\n        192.168.111.9\n    }"),
        "{text}"
    );
}

#[test]
fn remote_worker_renders_no_instance_and_says_why() {
    let s = settings(Role::Worker, &["192.168.111.5"], &["192.168.111.4"]);
    let snap = snapshot().build();
    let p = Peers::default();
    let inputs = Inputs {
        settings: &s,
        snapshot: &snap,
        node_ipv4: None,
        node_ipv6: None,
        peers: &p,
        mode: Mode::Unicast,
        remote_worker: true,
    };
    let text = build(&inputs).unwrap().render();
    assert!(
        text.starts_with("# remote worker (/run/nodeip-configuration/remote-worker exists)"),
        "{text}"
    );
    assert!(!text.contains("vrrp_instance"));
}

#[test]
fn without_the_node_ip_file_the_vip_subnet_decides_the_interface() {
    let s = settings(Role::Master, &["192.168.111.5"], &[]);
    let snap = snapshot()
        .link(2, "ens3")
        .addr(2, "192.168.111.20/24")
        .link(3, "ens4")
        .addr(3, "203.0.113.9/24")
        .build();
    let p = peers(&MASTERS, &[]);
    let inputs = Inputs {
        settings: &s,
        snapshot: &snap,
        node_ipv4: None,
        node_ipv6: None,
        peers: &p,
        mode: Mode::Unicast,
        remote_worker: false,
    };
    assert!(
        build(&inputs)
            .unwrap()
            .render()
            .contains("interface ens3\n")
    );
    let empty = snapshot().build();
    let inputs = Inputs {
        snapshot: &empty,
        ..inputs
    };
    assert_eq!(
        build(&inputs).unwrap_err(),
        BuildError::NoInterface("IPv4".into())
    );
}

fn peer(addresses: &[&str], ovn: &[&str]) -> Peer {
    Peer {
        name: "n".into(),
        role: Role::Master,
        addresses: addresses.iter().map(|s| ip(s)).collect(),
        ovn_addresses: ovn.iter().map(|s| ip(s)).collect(),
        kubelet_version: Some("v1.34.1".into()),
        mco_state: Some("Done".into()),
        mco_current_config: None,
        mco_desired_config: None,
    }
}

#[test]
fn peer_address_follows_get_node_ip_for_requested_ip_stack() {
    use crate::build::peer_address;
    let machine = Some(selection::fixture::cidr("192.168.111.20/24"));
    let v4 = [ip("192.168.111.5")];
    let v6 = [ip("fd00::5")];
    let own = ip("192.168.111.20");
    // InternalIPs: the last one of the family.
    assert_eq!(
        peer_address(
            &peer(&["192.168.111.21", "fd00::21", "192.168.111.31"], &[]),
            &v4,
            machine,
            own
        ),
        Some(ip("192.168.111.31"))
    );
    assert_eq!(
        peer_address(
            &peer(&["192.168.111.21", "fd00::21"], &[]),
            &v6,
            machine,
            ip("fd00::20")
        ),
        Some(ip("fd00::21"))
    );
    // Annotations only: this node's own source when listed, else the first in the machine network.
    assert_eq!(
        peer_address(
            &peer(&[], &["10.9.9.9", "192.168.111.20"]),
            &v4,
            machine,
            own
        ),
        Some(own)
    );
    assert_eq!(
        peer_address(
            &peer(&[], &["10.9.9.9", "192.168.111.5", "192.168.111.40"]),
            &v4,
            machine,
            own
        ),
        Some(ip("192.168.111.40")),
        "not the VIP"
    );
    // None of the family: left out.
    assert_eq!(
        peer_address(&peer(&["fd00::21"], &[]), &v4, machine, own),
        None
    );
    // No machine network (VIPs off every local subnet): the first InternalIP of the family.
    assert_eq!(
        peer_address(&peer(&["10.0.0.1", "10.0.0.2"], &[]), &v4, None, own),
        Some(ip("10.0.0.1"))
    );
}

#[test]
fn upgrade_is_running_while_versions_or_mco_states_differ() {
    let done = Peers {
        nodes: vec![peer(&["192.0.2.1"], &[]), peer(&["192.0.2.2"], &[])],
    };
    assert!(!done.upgrade_running());
    let mut v = done.clone();
    v.nodes[1].kubelet_version = Some("v1.35.0".into());
    assert!(v.upgrade_running());
    let mut m = done.clone();
    m.nodes[0].mco_state = Some("Working".into());
    assert!(m.upgrade_running());
    // The seed rule: MCO still rolling a configuration out, or a node it has not annotated.
    let mut c = done.clone();
    c.nodes[1].mco_current_config = Some("rendered-master-1".into());
    c.nodes[1].mco_desired_config = Some("rendered-master-2".into());
    assert!(c.upgrade_running());
    c.nodes[1].mco_current_config = Some("rendered-master-2".into());
    assert!(!c.upgrade_running());
    let mut n = done.clone();
    n.nodes[0].mco_state = Some(String::new());
    assert!(n.upgrade_running());
    assert!(
        !Peers::default().upgrade_running(),
        "an empty list counts as not running, as upstream"
    );
}
