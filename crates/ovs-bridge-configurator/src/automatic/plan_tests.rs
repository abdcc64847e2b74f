//! The planner over NM-settings fixtures: every uplink kind of the reference and every
//! interface-choice rule.

use std::collections::HashMap;

use selection::fixture::{addr, ip, route, snapshot};
use zbus::zvariant::Value;

use crate::automatic::plan::{
    Choice, Device, Files, Plan, PlanError, Profile, Reason, choose, plan,
};
use crate::nm::profile::{self as p, Settings};

fn profile(
    id: &str,
    uuid: &str,
    kind: &str,
    iface: &str,
    extra: Vec<(&str, &str, Value<'static>)>,
) -> Settings {
    let mut s = Settings::new();
    p::set(&mut s, "connection", "id", id);
    p::set(&mut s, "connection", "uuid", uuid);
    p::set(&mut s, "connection", "type", kind);
    p::set(&mut s, "connection", "interface-name", iface);
    for (sec, key, v) in extra {
        p::set(&mut s, sec, key, v);
    }
    s
}

fn active(s: Settings) -> Profile {
    Profile {
        settings: s,
        active: true,
    }
}

fn device(iface: &str, uuid: Option<&str>) -> Device {
    Device {
        interface: iface.into(),
        device_type: 1,
        active_uuid: uuid.map(Into::into),
    }
}

fn uplink_snapshot() -> selection::Snapshot {
    snapshot()
        .link(2, "ens3")
        .addr(2, "198.51.100.11/24")
        .default_via(2, "198.51.100.1", 100)
        .build()
}

fn run(
    profiles: &[Profile],
    devices: &[Device],
    snap: &selection::Snapshot,
    files: &Files,
) -> Result<Plan, PlanError> {
    let mut n = 0;
    let mut uuids = || {
        n += 1;
        format!("uuid-{n}")
    };
    plan(profiles, devices, snap, files, &mut uuids)
}

fn added<'a>(plan: &'a Plan, id: &str) -> &'a Settings {
    plan.bridges
        .iter()
        .flat_map(|b| &b.add)
        .find(|s| p::id(s) == id)
        .unwrap_or_else(|| panic!("{id} not planned"))
}

fn dhcp() -> Settings {
    profile(
        "Wired connection 1",
        "orig",
        "802-3-ethernet",
        "ens3",
        vec![("ipv4", "method", "auto".into())],
    )
}

#[test]
fn ethernet_dhcp_gets_the_five_profiles_in_the_upstream_order() {
    let plan = run(
        &[active(dhcp())],
        &[device("ens3", Some("orig"))],
        &uplink_snapshot(),
        &Files::default(),
    )
    .unwrap();
    let ids: Vec<String> = plan.bridges[0].add.iter().map(p::id).collect();
    assert_eq!(
        ids,
        [
            "br-ex",
            "ovs-port-phys0",
            "ovs-port-br-ex",
            "ovs-if-phys0",
            "ovs-if-br-ex"
        ]
    );
    assert_eq!(plan.activate, ["br-ex", "ovs-if-phys0", "ovs-if-br-ex"]);
    let phys = added(&plan, "ovs-if-phys0");
    assert_eq!(p::kind(phys), "802-3-ethernet");
    assert_eq!(
        p::master(phys).as_deref(),
        Some("ens3"),
        "master is ovs-port-phys0's interface, as nmstate names it"
    );
    assert_eq!(
        p::get_str(phys, "802-3-ethernet", "assigned-mac-address").as_deref(),
        Some("52:54:00:C0:EE:02")
    );
    let br = added(&plan, "ovs-if-br-ex");
    assert_eq!(
        p::master(br).as_deref(),
        Some("br-ex"),
        "master is ovs-port-br-ex's interface, as nmstate names it"
    );
    assert_eq!(
        p::get_str(br, "ovs-interface", "type").as_deref(),
        Some("internal")
    );
    assert_eq!(p::get_str(br, "ipv4", "method").as_deref(), Some("auto"));
    assert_eq!(
        p::get_bool(br, "ipv4", "may-fail"),
        Some(false),
        "ens3 has IPv4: wait for it"
    );
    assert_eq!(
        p::get_bool(br, "ipv6", "may-fail"),
        None,
        "no global IPv6: may fail"
    );
    assert!(matches!(
        &**br["ipv4"].get("route-metric").unwrap(),
        Value::I64(48)
    ));
    assert_eq!(
        plan.choice,
        Choice {
            interface: "ens3".into(),
            reason: Reason::DefaultRoute
        }
    );
}

#[test]
fn static_uplink_is_cloned_with_every_setting_and_retyped() {
    let mut orig = profile(
        "ens3",
        "orig",
        "802-3-ethernet",
        "ens3",
        vec![("ipv4", "method", "manual".into())],
    );
    let mut a: HashMap<&str, Value> = HashMap::new();
    a.insert("address", "198.51.100.11".into());
    a.insert("prefix", 24u32.into());
    p::set(&mut orig, "ipv4", "address-data", vec![a]);
    p::set(&mut orig, "ipv4", "addresses", vec![vec![1u32, 24, 1]]);
    p::set(&mut orig, "ipv4", "gateway", "198.51.100.1");
    p::set(&mut orig, "ipv4", "dns-search", vec!["example.test"]);
    p::set(&mut orig, "connection", "multi-connect", 3i32);
    let plan = run(
        &[active(orig)],
        &[device("ens3", Some("orig"))],
        &uplink_snapshot(),
        &Files::default(),
    )
    .unwrap();
    let br = added(&plan, "ovs-if-br-ex");
    assert_eq!(p::kind(br), "ovs-interface");
    assert_eq!(
        p::get_str(br, "ipv4", "gateway").as_deref(),
        Some("198.51.100.1")
    );
    assert_eq!(p::array_len(br, "ipv4", "address-data"), 1);
    assert_eq!(p::array_len(br, "ipv4", "dns-search"), 1, "DNS search kept");
    assert!(
        !p::has(br, "ipv4", "addresses"),
        "the deprecated form would override address-data"
    );
    assert!(!p::has(br, "connection", "multi-connect"));
    assert_eq!(p::interface(br).as_deref(), Some("br-ex"));
    assert_eq!(p::get_bool(br, "connection", "autoconnect"), Some(false));
}

#[test]
fn dhcp_with_an_extra_static_address_takes_the_static_path() {
    let mut orig = dhcp();
    let mut a: HashMap<&str, Value> = HashMap::new();
    a.insert("address", "203.0.113.5".into());
    a.insert("prefix", 24u32.into());
    p::set(&mut orig, "ipv4", "address-data", vec![a]);
    let plan = run(
        &[active(orig)],
        &[device("ens3", Some("orig"))],
        &uplink_snapshot(),
        &Files::default(),
    )
    .unwrap();
    assert_eq!(
        p::array_len(added(&plan, "ovs-if-br-ex"), "ipv4", "address-data"),
        1
    );
}

#[test]
fn dhcp_with_static_dns_and_dual_stack_copies_dhcp_identity_and_waits_for_both() {
    let mut orig = dhcp();
    p::set(&mut orig, "ipv4", "dns", vec![0x0100_000au32]);
    p::set(&mut orig, "ipv4", "ignore-auto-dns", true);
    p::set(&mut orig, "ipv4", "dhcp-client-id", "mac");
    p::set(&mut orig, "ipv6", "method", "dhcp");
    p::set(&mut orig, "ipv6", "dhcp-duid", "ll");
    p::set(&mut orig, "ipv6", "addr-gen-mode", 0i32);
    let snap = snapshot()
        .link(2, "ens3")
        .addr(2, "198.51.100.11/24")
        .addr(2, "2001:db8::11/128")
        .addr(2, "fe80::11/64")
        .default_via(2, "198.51.100.1", 100)
        .build();
    let plan = run(
        &[active(orig)],
        &[device("ens3", Some("orig"))],
        &snap,
        &Files::default(),
    )
    .unwrap();
    let br = added(&plan, "ovs-if-br-ex");
    assert_eq!(p::get_bool(br, "ipv4", "ignore-auto-dns"), Some(true));
    assert_eq!(p::array_len(br, "ipv4", "dns"), 1);
    assert_eq!(
        p::get_str(br, "ipv4", "dhcp-client-id").as_deref(),
        Some("mac")
    );
    assert_eq!(p::get_str(br, "ipv6", "dhcp-duid").as_deref(), Some("ll"));
    assert!(p::has(br, "ipv6", "addr-gen-mode"));
    assert_eq!(p::get_str(br, "ipv6", "method").as_deref(), Some("dhcp"));
    assert_eq!(
        (
            p::get_bool(br, "ipv4", "may-fail"),
            p::get_bool(br, "ipv6", "may-fail")
        ),
        (Some(false), Some(false))
    );
}

fn bond(options: &[(&str, &str)]) -> (Vec<Profile>, Vec<Device>) {
    let opts: HashMap<String, String> = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let b = profile(
        "bond0",
        "bond-uuid",
        "bond",
        "bond0",
        vec![
            ("bond", "options", opts.into()),
            ("ipv4", "method", "auto".into()),
        ],
    );
    let s1 = profile(
        "bond0-port1",
        "p1",
        "802-3-ethernet",
        "ens3",
        vec![
            ("connection", "master", "bond-uuid".into()),
            ("connection", "slave-type", "bond".into()),
        ],
    );
    let mut s2 = profile(
        "bond0-port2",
        "p2",
        "802-3-ethernet",
        "ens4",
        vec![
            ("connection", "master", "bond0".into()),
            ("connection", "slave-type", "bond".into()),
        ],
    );
    p::set(&mut s2, "connection", "autoconnect", true);
    let mut idle = profile(
        "bond0-old",
        "p3",
        "802-3-ethernet",
        "ens5",
        vec![("connection", "master", "bond-uuid".into())],
    );
    p::set(&mut idle, "connection", "autoconnect", false);
    let profiles = vec![
        active(b),
        active(s1),
        Profile {
            settings: s2,
            active: false,
        },
        Profile {
            settings: idle,
            active: false,
        },
    ];
    (
        profiles,
        vec![
            device("bond0", Some("bond-uuid")),
            device("ens3", Some("p1")),
        ],
    )
}

fn bond_snapshot() -> selection::Snapshot {
    snapshot()
        .link(5, "bond0")
        .addr(5, "198.51.100.11/24")
        .default_via(5, "198.51.100.1", 300)
        .build()
}

#[test]
fn lacp_bond_keeps_its_options_clones_the_mac_and_rehomes_its_ports() {
    let (profiles, devices) = bond(&[("mode", "802.3ad"), ("miimon", "100")]);
    let plan = run(&profiles, &devices, &bond_snapshot(), &Files::default()).unwrap();
    let phys = added(&plan, "ovs-if-phys0");
    assert_eq!(p::kind(phys), "bond");
    assert_eq!(
        p::get_str_map(phys, "bond", "options")
            .get("mode")
            .map(String::as_str),
        Some("802.3ad")
    );
    assert!(
        p::has(phys, "802-3-ethernet", "assigned-mac-address"),
        "bond MAC pinned"
    );
    // Active port (master by UUID) and autoconnect port (master by name); not the idle one.
    let c1 = added(&plan, "bond0-port1-slave-ovs-clone");
    let c2 = added(&plan, "bond0-port2-slave-ovs-clone");
    for c in [c1, c2] {
        assert_eq!(
            p::master(c).as_deref(),
            Some("bond0"),
            "master is ovs-if-phys0's interface, as nmstate names it"
        );
        assert_eq!(p::get_bool(c, "connection", "autoconnect"), Some(false));
        assert!(matches!(
            &**c["connection"].get("autoconnect-priority").unwrap(),
            Value::I32(100)
        ));
    }
    assert!(
        plan.bridges[0]
            .add
            .iter()
            .all(|s| p::id(s) != "bond0-old-slave-ovs-clone")
    );
    assert_eq!(
        plan.activate,
        [
            "br-ex",
            "ovs-if-phys0",
            "bond0-port1-slave-ovs-clone",
            "bond0-port2-slave-ovs-clone",
            "ovs-if-br-ex"
        ]
    );
}

#[test]
fn active_backup_bond_clones_the_mac_unless_fail_over_mac_moves_it() {
    for (fom, cloned) in [
        (None, true),
        (Some("follow"), false),
        (Some("active"), false),
        (Some("1"), false),
        (Some("0"), true),
    ] {
        let mut opts = vec![("mode", "active-backup")];
        if let Some(f) = fom {
            opts.push(("fail_over_mac", f));
        }
        let (profiles, devices) = bond(&opts);
        let plan = run(&profiles, &devices, &bond_snapshot(), &Files::default()).unwrap();
        assert_eq!(
            p::has(
                added(&plan, "ovs-if-phys0"),
                "802-3-ethernet",
                "assigned-mac-address"
            ),
            cloned,
            "{fom:?}"
        );
        assert!(
            p::has(
                added(&plan, "ovs-if-br-ex"),
                "802-3-ethernet",
                "assigned-mac-address"
            ),
            "br-ex always"
        );
    }
}

#[test]
fn team_by_active_keeps_its_own_mac_and_compact_config() {
    let cfg = r#"{ "runner": { "name": "activebackup", "hwaddr_policy": "by_active" } }"#;
    let t = profile(
        "team0",
        "team-uuid",
        "team",
        "team0",
        vec![("team", "config", cfg.into())],
    );
    let snap = snapshot()
        .link(6, "team0")
        .addr(6, "198.51.100.11/24")
        .default_via(6, "198.51.100.1", 300)
        .build();
    let plan = run(
        &[active(t)],
        &[device("team0", Some("team-uuid"))],
        &snap,
        &Files::default(),
    )
    .unwrap();
    let phys = added(&plan, "ovs-if-phys0");
    assert_eq!(p::kind(phys), "team");
    assert_eq!(
        p::get_str(phys, "team", "config").as_deref(),
        Some(r#"{"runner":{"name":"activebackup","hwaddr_policy":"by_active"}}"#)
    );
    assert!(!p::has(phys, "802-3-ethernet", "assigned-mac-address"));
}

#[test]
fn vlan_on_a_bond_named_by_uuid_gets_the_parent_device() {
    let v = profile(
        "bond0.100",
        "vlan-uuid",
        "vlan",
        "bond0.100",
        vec![
            ("vlan", "id", 100u32.into()),
            ("vlan", "parent", "bond-uuid".into()),
        ],
    );
    let b = profile("bond0", "bond-uuid", "bond", "bond0", vec![]);
    let snap = snapshot()
        .link(7, "bond0.100")
        .addr(7, "198.51.100.11/24")
        .default_via(7, "198.51.100.1", 400)
        .build();
    let devices = [
        device("bond0", Some("bond-uuid")),
        device("bond0.100", Some("vlan-uuid")),
    ];
    let plan = run(&[active(v), active(b)], &devices, &snap, &Files::default()).unwrap();
    let phys = added(&plan, "ovs-if-phys0");
    assert_eq!(
        (p::kind(phys).as_str(), p::get_u32(phys, "vlan", "id")),
        ("vlan", Some(100))
    );
    assert_eq!(p::get_str(phys, "vlan", "parent").as_deref(), Some("bond0"));
    assert_eq!(
        p::get_u32(phys, "vlan", "flags"),
        Some(1),
        "REORDER_HEADERS, which D-Bus leaves unset: without it OVS's kernel datapath forwards nothing"
    );
    let gvrp_qinq = profile(
        "bond0.100",
        "vlan-uuid",
        "vlan",
        "bond0.100",
        vec![
            ("vlan", "id", 100u32.into()),
            ("vlan", "parent", "bond0".into()),
            ("vlan", "flags", 2u32.into()),
            ("vlan", "protocol", "802.1ad".into()),
        ],
    );
    let plan = run(&[active(gvrp_qinq)], &devices, &snap, &Files::default()).unwrap();
    let phys = added(&plan, "ovs-if-phys0");
    assert_eq!(p::get_u32(phys, "vlan", "flags"), Some(3), "GVRP kept");
    assert_eq!(
        p::get_str(phys, "vlan", "protocol").as_deref(),
        Some("802.1ad")
    );
    let broken = profile(
        "v",
        "v",
        "vlan",
        "bond0.100",
        vec![("vlan", "id", 100u32.into())],
    );
    let err = run(
        &[active(broken)],
        &[device("bond0.100", Some("v"))],
        &snap,
        &Files::default(),
    )
    .unwrap_err();
    assert_eq!(err, PlanError::BadVlan("v".into()));
}

#[test]
fn tun_and_linux_bridge_uplinks() {
    let t = profile(
        "tun0",
        "t",
        "tun",
        "tun0",
        vec![("tun", "mode", 2u32.into())],
    );
    let snap = snapshot()
        .link(8, "tun0")
        .addr(8, "198.51.100.11/24")
        .default_via(8, "198.51.100.1", 50)
        .build();
    let plan = run(
        &[active(t)],
        &[device("tun0", Some("t"))],
        &snap,
        &Files::default(),
    )
    .unwrap();
    assert_eq!(
        p::get_u32(added(&plan, "ovs-if-phys0"), "tun", "mode"),
        Some(2)
    );
    let b = profile("br0", "b", "bridge", "br0", vec![]);
    let snap = snapshot()
        .link(9, "br0")
        .addr(9, "198.51.100.11/24")
        .default_via(9, "198.51.100.1", 425)
        .build();
    let plan = run(
        &[active(b)],
        &[device("br0", Some("b"))],
        &snap,
        &Files::default(),
    )
    .unwrap();
    assert_eq!(p::kind(added(&plan, "ovs-if-phys0")), "bridge");
}

#[test]
fn jumbo_and_tiny_mtus() {
    let mut snap = uplink_snapshot();
    snap.links
        .iter_mut()
        .find(|l| l.name == "ens3")
        .unwrap()
        .mtu = 9000;
    let plan = run(
        &[active(dhcp())],
        &[device("ens3", Some("orig"))],
        &snap,
        &Files::default(),
    )
    .unwrap();
    for id in ["br-ex", "ovs-if-phys0", "ovs-if-br-ex"] {
        assert_eq!(
            p::get_u32(added(&plan, id), "802-3-ethernet", "mtu"),
            Some(9000),
            "{id}"
        );
    }
    assert!(plan.bridges[0].warnings.is_empty());
    snap.links
        .iter_mut()
        .find(|l| l.name == "ens3")
        .unwrap()
        .mtu = 1200;
    let plan = run(
        &[active(dhcp())],
        &[device("ens3", Some("orig"))],
        &snap,
        &Files::default(),
    )
    .unwrap();
    assert_eq!(
        plan.bridges[0].warnings,
        ["MTU 1200 of ens3 is below IPv6's minimum of 1280"]
    );
}

fn two_nics() -> selection::Snapshot {
    snapshot()
        .link(2, "ens3")
        .addr(2, "198.51.100.11/24")
        .default_via(2, "198.51.100.1", 100)
        .link(3, "ens4")
        .addr(3, "203.0.113.11/24")
        .default_via(3, "203.0.113.1", 50)
        .build()
}

#[test]
fn interface_choice_rules() {
    let snap = two_nics();
    let choice = |f: Files| choose(&snap, &f);
    let c = |i: &str, r| {
        Ok(Some(Choice {
            interface: i.into(),
            reason: r,
        }))
    };
    assert_eq!(
        choice(Files::default()),
        c("ens4", Reason::DefaultRoute),
        "lowest metric"
    );
    let node_ip = Files {
        primary_ip: Some(ip("198.51.100.11")),
        ..Default::default()
    };
    assert_eq!(
        choice(node_ip.clone()),
        c("ens3", Reason::NodeIp),
        "the node IP beats the default route"
    );
    let forced = Files {
        default_bridge: Some("ens9\n".into()),
        ..node_ip.clone()
    };
    assert_eq!(choice(forced), c("ens9", Reason::DefaultBridgeFile));
    assert_eq!(
        choice(Files {
            default_bridge: Some(" \n".into()),
            ..Default::default()
        }),
        Err(PlanError::EmptyDefaultBridge)
    );
    let extra = Files {
        extra_bridge: Some("ens3".into()),
        ..node_ip
    };
    assert_eq!(
        choice(extra),
        c("ens4", Reason::DefaultRoute),
        "never the extra-bridge interface"
    );
    assert_eq!(
        choice(Files {
            hint: Some("ens3\n".into()),
            ..Default::default()
        }),
        c("ens3", Reason::Hint)
    );
    assert_eq!(
        choice(Files {
            hint: Some("br-ex".into()),
            ..Default::default()
        }),
        c("ens4", Reason::DefaultRoute)
    );
    assert_eq!(
        choice(Files {
            hint: Some("ens7".into()),
            ..Default::default()
        }),
        c("ens4", Reason::DefaultRoute)
    );
    let no_default = snapshot()
        .link(2, "ens3")
        .addr(2, "198.51.100.11/24")
        .link(3, "ens4")
        .addr(3, "203.0.113.11/24")
        .default_via(3, "203.0.113.1", 50)
        .build();
    assert_eq!(
        choose(
            &no_default,
            &Files {
                hint: Some("ens3".into()),
                ..Default::default()
            }
        ),
        c("ens4", Reason::DefaultRoute),
        "a hint without a default route loses"
    );
    let v6 = snapshot()
        .link(2, "ens3")
        .addr(2, "2001:db8::11/64")
        .route(route(None, Some("2001:db8::1"), 2, 100))
        .build();
    assert_eq!(
        choose(&v6, &Files::default()),
        c("ens3", Reason::DefaultRoute),
        "IPv6 default route"
    );
    let multipath = snapshot()
        .link(2, "ens3")
        .addr(2, "198.51.100.11/24")
        .route(route(None, Some("198.51.100.1"), 2, 1).multipath())
        .build();
    assert_eq!(choose(&multipath, &Files::default()), Ok(None));
}

#[test]
fn node_ip_already_on_br_ex_plans_nothing_to_build() {
    let snap = snapshot()
        .link(2, "ens3")
        .link(10, "br-ex")
        .address(addr(10, "198.51.100.11/24"))
        .default_via(10, "198.51.100.1", 48)
        .build();
    let files = Files {
        primary_ip: Some(ip("198.51.100.11")),
        ..Default::default()
    };
    let plan = run(&[], &[], &snap, &files).unwrap();
    assert!(plan.already_converted && plan.bridges.is_empty());
    assert_eq!(plan.activate, ["br-ex", "ovs-if-phys0", "ovs-if-br-ex"]);
}

#[test]
fn extra_bridge_is_planned_with_its_own_names_and_removed_when_unconfigured() {
    let snap = two_nics();
    let ens4 = profile("ens4", "o4", "802-3-ethernet", "ens4", vec![]);
    let profiles = [active(dhcp()), active(ens4)];
    let devices = [device("ens3", Some("orig")), device("ens4", Some("o4"))];
    let files = Files {
        primary_ip: Some(ip("198.51.100.11")),
        extra_bridge: Some("ens4".into()),
        ..Default::default()
    };
    let plan = run(&profiles, &devices, &snap, &files).unwrap();
    assert_eq!(plan.bridges.len(), 2);
    let br1 = added(&plan, "ovs-if-br-ex1");
    assert!(matches!(
        &**br1["ipv4"].get("route-metric").unwrap(),
        Value::I64(49)
    ));
    assert_eq!(
        p::interface(added(&plan, "ovs-if-phys1")).as_deref(),
        Some("ens4")
    );
    assert_eq!(
        plan.activate,
        [
            "br-ex",
            "ovs-if-phys0",
            "br-ex1",
            "ovs-if-phys1",
            "ovs-if-br-ex",
            "ovs-if-br-ex1"
        ]
    );
    // The file is gone but the br-ex1 set exists: remove it.
    let leftover = [
        active(dhcp()),
        Profile {
            settings: profile("br-ex1", "x1", "ovs-bridge", "br-ex1", vec![]),
            active: true,
        },
    ];
    let files = Files {
        primary_ip: Some(ip("198.51.100.11")),
        ..Default::default()
    };
    let plan = run(&leftover, &devices, &snap, &files).unwrap();
    assert_eq!(plan.remove, ["x1"]);
}

#[test]
fn an_uplink_without_an_active_profile_is_an_error() {
    let err = run(
        &[Profile {
            settings: dhcp(),
            active: false,
        }],
        &[device("ens3", None)],
        &uplink_snapshot(),
        &Files::default(),
    );
    assert_eq!(
        err.unwrap_err(),
        PlanError::NoActiveConnection("ens3".into())
    );
}

#[test]
fn a_forced_nic_already_bridged_is_converted_and_plans_nothing() {
    // After the conversion the node IP is on br-ex; default_bridge still names ens3.
    let snap = snapshot()
        .link(2, "ens3")
        .link(5, "br-ex")
        .addr(5, "198.51.100.11/24")
        .default_via(5, "198.51.100.1", 48)
        .build();
    let files = Files {
        default_bridge: Some("ens3\n".into()),
        primary_ip: Some(ip("198.51.100.11")),
        ..Default::default()
    };
    let phys = |active_now: bool| Profile {
        settings: profile("ovs-if-phys0", "phys", "802-3-ethernet", "ens3", vec![]),
        active: active_now,
    };
    let plan = run(&[phys(true)], &[], &snap, &files).unwrap();
    assert_eq!(
        plan.choice,
        Choice {
            interface: "ens3".into(),
            reason: Reason::DefaultBridgeFile
        }
    );
    assert!(
        plan.already_converted && plan.bridges.is_empty(),
        "{plan:?}"
    );
    // Not converted while ovs-if-phys0 is not active, nor when it holds another NIC.
    assert!(!crate::automatic::plan::is_converted(
        &plan.choice,
        &[phys(false)]
    ));
    let other = Files {
        default_bridge: Some("ens4\n".into()),
        ..files
    };
    assert!(!crate::automatic::plan::is_converted(
        &choose(&snap, &other).unwrap().unwrap(),
        &[phys(true)]
    ));
}

#[test]
fn a_hint_without_its_default_route_yet_is_awaited() {
    let snap = snapshot()
        .link(2, "ens3")
        .addr(2, "198.51.100.11/24")
        .link(3, "ens4")
        .addr(3, "203.0.113.11/24")
        .default_via(3, "203.0.113.1", 50)
        .build();
    let files = Files {
        hint: Some("ens3".into()),
        ..Default::default()
    };
    let found = choose(&snap, &files).unwrap().unwrap();
    assert_eq!(
        found,
        Choice {
            interface: "ens4".into(),
            reason: Reason::DefaultRoute
        }
    );
    assert_eq!(
        crate::automatic::plan::awaited_hint(&snap, &files, &found).as_deref(),
        Some("ens3")
    );
    // Not awaited: no hint, a hint naming the found NIC, a missing NIC, or a bridge.
    for hint in [None, Some("ens4"), Some("ens9"), Some("br-ex")] {
        let f = Files {
            hint: hint.map(Into::into),
            ..Default::default()
        };
        let c = choose(&snap, &f).unwrap().unwrap();
        assert_eq!(
            crate::automatic::plan::awaited_hint(&snap, &f, &c),
            None,
            "{hint:?}"
        );
    }
    // Once ens3 has its default route the hint wins and nothing is awaited.
    let later = snapshot()
        .link(2, "ens3")
        .addr(2, "198.51.100.11/24")
        .default_via(2, "198.51.100.1", 100)
        .link(3, "ens4")
        .addr(3, "203.0.113.11/24")
        .default_via(3, "203.0.113.1", 50)
        .build();
    let c = choose(&later, &files).unwrap().unwrap();
    assert_eq!(
        c,
        Choice {
            interface: "ens3".into(),
            reason: Reason::Hint
        }
    );
    assert_eq!(
        crate::automatic::plan::awaited_hint(&later, &files, &c),
        None
    );
}

#[test]
fn a_node_ip_on_no_interface_is_awaited_before_a_default_route_is_taken() {
    // ens3 (the node IP's NIC) is back without its lease yet; eth1 has a better default route.
    let snap = snapshot()
        .link(2, "ens3")
        .link(3, "eth1")
        .addr(3, "203.0.113.13/24")
        .default_via(3, "203.0.113.1", 50)
        .build();
    let files = Files {
        primary_ip: Some("198.51.100.13".parse().unwrap()),
        ..Default::default()
    };
    let c = choose(&snap, &files).unwrap().unwrap();
    assert_eq!(c.reason, Reason::DefaultRoute);
    assert_eq!(
        crate::automatic::plan::awaited_node_ip(&files, &c),
        Some("198.51.100.13".parse().unwrap())
    );
    // Without a node IP there is nothing to wait for; once ens3 has it, it is chosen.
    assert_eq!(
        crate::automatic::plan::awaited_node_ip(&Files::default(), &c),
        None
    );
    let later = snapshot()
        .link(2, "ens3")
        .addr(2, "198.51.100.13/24")
        .link(3, "eth1")
        .addr(3, "203.0.113.13/24")
        .default_via(3, "203.0.113.1", 50)
        .build();
    let c = choose(&later, &files).unwrap().unwrap();
    assert_eq!(
        c,
        Choice {
            interface: "ens3".into(),
            reason: Reason::NodeIp
        }
    );
    assert_eq!(crate::automatic::plan::awaited_node_ip(&files, &c), None);
}

#[test]
fn bond_port_clones_get_autoconnect_before_anything_is_activated() {
    let (profiles, devices) = bond(&[("mode", "802.3ad"), ("miimon", "100")]);
    let plan = run(&profiles, &devices, &bond_snapshot(), &Files::default()).unwrap();
    let is_port = |id: &str| id.ends_with(crate::br_ex::SLAVE_CLONE_SUFFIX);
    let steps = crate::automatic::plan::activation_steps(&plan.activate, is_port);
    use crate::automatic::plan::Step;
    let prepare = |id: &str| Step::PreparePort(id.into());
    let activate = |id: &str, port: bool| Step::Activate {
        id: id.into(),
        port,
    };
    assert_eq!(
        steps,
        [
            prepare("bond0-port1-slave-ovs-clone"),
            prepare("bond0-port2-slave-ovs-clone"),
            activate("br-ex", false),
            activate("ovs-if-phys0", false),
            activate("bond0-port1-slave-ovs-clone", true),
            activate("bond0-port2-slave-ovs-clone", true),
            activate("ovs-if-br-ex", false),
        ]
    );
}

#[test]
fn the_uplinks_lldp_mode_is_copied_to_its_port_profile() {
    // NetworkManager sends `connection.lldp` as an int32, and only when it is not the default.
    let uplink = profile(
        "Wired connection 1",
        "orig",
        "802-3-ethernet",
        "ens3",
        vec![
            ("ipv4", "method", "auto".into()),
            ("connection", "lldp", 1i32.into()),
        ],
    );
    let plan = run(
        &[active(uplink)],
        &[device("ens3", Some("orig"))],
        &uplink_snapshot(),
        &Files::default(),
    )
    .unwrap();
    let phys = added(&plan, "ovs-if-phys0");
    assert!(matches!(
        phys["connection"].get("lldp").map(|v| &**v),
        Some(Value::I32(1))
    ));
    let plain = run(
        &[active(dhcp())],
        &[device("ens3", Some("orig"))],
        &uplink_snapshot(),
        &Files::default(),
    )
    .unwrap();
    assert!(!added(&plain, "ovs-if-phys0")["connection"].contains_key("lldp"));
}
