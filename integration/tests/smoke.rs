//! One smoke test per component, exercising what the daemons rely on. Each prints its timings
//! (`cargo test -p integration --test smoke -- --nocapture`).

use std::process::Command;
use std::time::{Duration, Instant};

use integration::dnsmasq::{Dnsmasq, DnsmasqConfig};
use integration::keepalived::{Keepalived, holds};
use integration::node::{Node, ROUTER, Upstream, node_address};
use integration::nspawn::Boot;
use integration::ovs::Ovs;
use integration::process::{output, wait_for};
use integration::{Netns, require_root, scratch_dir};

fn ping(ns: &Netns, ip: &str) -> bool {
    wait_for(Duration::from_secs(5), || {
        ns.exec("ping", &["-c1", "-W1", ip]).is_ok()
    })
}

fn report(test: &str, what: &str, since: Instant) {
    eprintln!(
        "TIMING {test}: {what} {:.3}s",
        since.elapsed().as_secs_f64()
    );
}

#[test]
fn ovs_bridge_forwards_between_namespaces() {
    if !require_root("ovs_bridge_forwards_between_namespaces") {
        return;
    }
    let t0 = Instant::now();
    let dir = scratch_dir("ovs").unwrap();
    let sw = Netns::new("ovs").unwrap();
    let a = Netns::new("ovs-a").unwrap();
    let b = Netns::new("ovs-b").unwrap();
    a.veth_to("eth0", &sw, "va").unwrap();
    b.veth_to("eth0", &sw, "vb").unwrap();
    a.addr("eth0", "192.0.2.11/24", &[]).unwrap();
    b.addr("eth0", "192.0.2.12/24", &[]).unwrap();
    let ovs = Ovs::start(&sw, dir.path()).unwrap();
    ovs.vsctl(&[
        "add-br",
        "br-ex",
        "--",
        "set",
        "bridge",
        "br-ex",
        "datapath_type=netdev",
        "--",
        "add-port",
        "br-ex",
        "va",
        "--",
        "add-port",
        "br-ex",
        "vb",
    ])
    .unwrap();
    sw.ip(&["link", "set", "br-ex", "up"]).unwrap();
    sw.addr("br-ex", "192.0.2.1/24", &[]).unwrap();
    report("ovs", "daemons + bridge + ports ready", t0);
    assert!(
        ping(&a, "192.0.2.12"),
        "a -> b through the userspace bridge"
    );
    assert!(ping(&a, "192.0.2.1"), "a -> br-ex internal port (tap)");
    assert_eq!(ovs.vsctl(&["list-ports", "br-ex"]).unwrap(), "va\nvb\n");
    report("ovs", "total", t0);
}

#[test]
fn network_manager_activates_a_static_and_a_dhcp_profile() {
    if !require_root("network_manager_activates_a_static_and_a_dhcp_profile") {
        return;
    }
    let t0 = Instant::now();
    let mut up = Upstream::start(2, &[]).unwrap();
    let static_node = Node::start(&mut up, 1).unwrap();
    report("nm", "upstream + node (bus, OVS, NM) started", t0);
    let t = Instant::now();
    static_node
        .nm
        .up_static(
            "ens3-static",
            "ens3",
            &format!("{}/24", node_address(1)),
            ROUTER,
        )
        .unwrap();
    report("nm", "static profile activated", t);
    assert!(
        ping(&up.ns, &node_address(1)),
        "static address reachable from upstream"
    );
    let keyfile = static_node
        .view
        .nm_connections()
        .join("ens3-static.nmconnection");
    assert!(
        keyfile.exists(),
        "keyfile in the node's private /etc/NetworkManager/system-connections"
    );

    let dhcp_node = Node::start(&mut up, 2).unwrap();
    let t = Instant::now();
    dhcp_node.nm.up_dhcp("ens3-dhcp", "ens3").unwrap();
    report("nm", "DHCP profile activated", t);
    let addrs = dhcp_node
        .ns
        .ip(&["-br", "addr", "show", "dev", "ens3"])
        .unwrap();
    assert!(
        addrs.contains(&format!("{}/24", node_address(2))),
        "fixed lease by MAC: {addrs}"
    );
    assert!(
        dhcp_node
            .ns
            .ip(&["route", "show", "default"])
            .unwrap()
            .contains(ROUTER)
    );
    assert!(ping(&up.ns, &node_address(2)));
    report("nm", "total", t0);
}

/// configure-ovs's profile set, without a datapath type (production profiles have none).
fn add_br_ex_profiles(node: &Node, ipv4: &[&str]) {
    let nm = |args: &[&str]| node.nm.nmcli(args).unwrap();
    nm(&[
        "conn",
        "add",
        "type",
        "ovs-bridge",
        "conn.interface",
        "br-ex",
        "con-name",
        "br-ex",
    ]);
    nm(&[
        "conn",
        "add",
        "type",
        "ovs-port",
        "conn.interface",
        "ens3",
        "master",
        "br-ex",
        "con-name",
        "ovs-port-phys0",
    ]);
    nm(&[
        "conn",
        "add",
        "type",
        "ethernet",
        "conn.interface",
        "ens3",
        "master",
        "ovs-port-phys0",
        "con-name",
        "ovs-if-phys0",
    ]);
    nm(&[
        "conn",
        "add",
        "type",
        "ovs-port",
        "conn.interface",
        "br-ex",
        "master",
        "br-ex",
        "con-name",
        "ovs-port-br-ex",
    ]);
    let mut args = vec![
        "conn",
        "add",
        "type",
        "ovs-interface",
        "slave-type",
        "ovs-port",
        "conn.interface",
        "br-ex",
        "master",
        "ovs-port-br-ex",
        "con-name",
        "ovs-if-br-ex",
        "ipv6.method",
        "disabled",
    ];
    args.extend_from_slice(ipv4);
    nm(&args);
}

#[test]
fn network_manager_builds_br_ex_and_the_node_ip_answers_through_it() {
    if !require_root("network_manager_builds_br_ex") {
        return;
    }
    let t0 = Instant::now();
    let mut up = Upstream::start(2, &[]).unwrap();
    let node = Node::start(&mut up, 1).unwrap();
    let t = Instant::now();
    let ipv4 = node.ipv4_settings(false);
    add_br_ex_profiles(&node, &ipv4.iter().map(String::as_str).collect::<Vec<_>>());
    // The profiles autoconnect; bringing one up again would re-activate it (about 6 s).
    node.nm
        .wait_activated("ovs-if-br-ex", Duration::from_secs(30))
        .unwrap();
    node.nm
        .wait_activated("ovs-if-phys0", Duration::from_secs(30))
        .unwrap();
    node.wait_br_ex_routed().unwrap();
    report("br-ex", "static br-ex activated with the default route", t);
    assert_eq!(
        node.ovs
            .vsctl(&["list-ports", "br-ex"])
            .unwrap()
            .lines()
            .collect::<Vec<_>>(),
        ["ens3"]
    );
    assert_eq!(
        node.ovs
            .vsctl(&["get", "bridge", "br-ex", "datapath_type"])
            .unwrap()
            .trim(),
        "netdev"
    );
    assert!(
        node.ns
            .ip(&["-br", "addr", "show", "dev", "br-ex"])
            .unwrap()
            .contains(&format!("{}/24", node_address(1)))
    );
    assert!(
        ping(&up.ns, &node_address(1)),
        "node IP answers through the userspace br-ex"
    );
    // A daemon under test sees the production paths: OVS's socket and NM's run dir in /run.
    let exists = output(
        node.view
            .command("ovs-vsctl")
            .args(["--timeout=5", "br-exists", "br-ex"]),
    );
    assert!(
        exists.is_ok(),
        "ovs-vsctl on the default /run/openvswitch/db.sock: {exists:?}"
    );
    let run = output(node.view.command("ls").arg("/run/NetworkManager"));
    assert!(
        run.is_ok_and(|t| t.contains("devices")),
        "NM's run dir in the node's view"
    );

    // A DHCP br-ex on a second node: the cloned MAC must be on the tap before DHCP starts, or
    // the lease would not be the node's fixed one.
    let dhcp = Node::start(&mut up, 2).unwrap();
    let t = Instant::now();
    let mac = integration::node::node_mac(2);
    add_br_ex_profiles(
        &dhcp,
        &[
            "ipv4.method",
            "auto",
            "802-3-ethernet.cloned-mac-address",
            &mac,
        ],
    );
    dhcp.nm
        .wait_activated("ovs-if-br-ex", Duration::from_secs(60))
        .unwrap();
    dhcp.wait_br_ex_routed().unwrap();
    report("br-ex", "DHCP br-ex with cloned MAC activated", t);
    let addrs = dhcp
        .ns
        .ip(&["-br", "addr", "show", "dev", "br-ex"])
        .unwrap();
    assert!(
        addrs.contains(&format!("{}/24", node_address(2))),
        "br-ex got the node's lease: {addrs}"
    );

    // NM restarted as on a reboot: br-ex comes back from the keyfiles.
    let mut node = node;
    let t = Instant::now();
    node.nm.restart().unwrap();
    node.nm
        .wait_activated("ovs-if-br-ex", Duration::from_secs(30))
        .unwrap();
    node.wait_br_ex_routed().unwrap();
    report("br-ex", "NM restart -> br-ex back", t);
    assert!(ping(&up.ns, &node_address(1)));
    report("br-ex", "total", t0);
}

fn keepalived_config(i: u8, priority: u8) -> String {
    let peers: String = (1..=3u8)
        .filter(|j| *j != i)
        .map(|j| format!("        192.0.2.10{j}\n"))
        .collect();
    format!(
        "global_defs {{\n    router_id hx-k{i}\n    enable_script_security\n    script_user root\n}}\n\
         vrrp_instance VIP_API {{\n    state BACKUP\n    interface eth0\n    virtual_router_id 51\n    \
         priority {priority}\n    advert_int 1\n    authentication {{\n        auth_type PASS\n        \
         auth_pass hxtest01\n    }}\n    unicast_src_ip 192.0.2.10{i}\n    unicast_peer {{\n{peers}    }}\n    \
         virtual_ipaddress {{\n        192.0.2.200/24 dev eth0 label eth0:vip\n    }}\n}}\n"
    )
}

#[test]
fn keepalived_unicast_vrrp_moves_the_vip() {
    if !require_root("keepalived_unicast_vrrp_moves_the_vip") {
        return;
    }
    let dir = scratch_dir("ka").unwrap();
    let segment = Netns::new("kbr").unwrap();
    segment.bridge("br0").unwrap();
    let nodes: Vec<Netns> = (1..=3)
        .map(|i| Netns::new(&format!("k{i}")).unwrap())
        .collect();
    for (i, ns) in nodes.iter().enumerate() {
        let port = format!("kv{}", i + 1);
        ns.veth_to("eth0", &segment, &port).unwrap();
        segment
            .ip(&["link", "set", &port, "master", "br0"])
            .unwrap();
        ns.addr("eth0", &format!("192.0.2.10{}/24", i + 1), &[])
            .unwrap();
    }
    let t0 = Instant::now();
    let mut ka: Vec<Keepalived> = nodes
        .iter()
        .enumerate()
        .map(|(i, ns)| {
            let i = i as u8 + 1;
            Keepalived::start(
                ns,
                &dir.path().join(format!("k{i}")),
                &keepalived_config(i, 130 - 10 * i),
            )
            .unwrap()
        })
        .collect();
    let on = |k: usize| holds(&nodes[k], "eth0", "192.0.2.200");
    assert!(
        wait_for(Duration::from_secs(10), || on(0)),
        "VIP on k1: {}",
        ka[0].log_tail(10)
    );
    report("keepalived", "cold start -> VIP on k1 (prio 120)", t0);
    let t = Instant::now();
    ka[0].stop();
    assert!(
        wait_for(Duration::from_secs(10), || on(1)),
        "VIP moved to k2"
    );
    report("keepalived", "SIGTERM k1 -> VIP on k2", t);
    assert!(!on(0), "k1 released the VIP");
    let t = Instant::now();
    ka[2].reload(&keepalived_config(3, 150)).unwrap();
    assert!(
        wait_for(Duration::from_secs(10), || on(2)),
        "VIP on k3 after reload with prio 150"
    );
    assert!(
        wait_for(Duration::from_secs(5), || !on(1)),
        "k2 dropped the VIP"
    );
    report("keepalived", "SIGHUP k3 prio 150 -> VIP on k3", t);
    assert!(
        ka[1]
            .reload("vrrp_instance X {\n  advert_intt 1\n}\n")
            .is_err(),
        "a bad config is refused"
    );
}

#[test]
fn dnsmasq_answers_through_glibc_with_a_namespace_resolv_conf() {
    if !require_root("dnsmasq_answers_through_glibc") {
        return;
    }
    let t0 = Instant::now();
    let dir = scratch_dir("dns").unwrap();
    let server = Netns::new("dns").unwrap();
    let client = Netns::new("dnsc").unwrap();
    server.veth_to("eth0", &client, "eth0").unwrap();
    server.addr("eth0", "192.0.2.53/24", &[]).unwrap();
    server.addr("eth0", "192.0.2.54/24", &[]).unwrap();
    client.addr("eth0", "192.0.2.2/24", &[]).unwrap();
    let start = |ip: &str, answer: &str, sub: &str| {
        let cfg = DnsmasqConfig {
            listen: vec![ip.into()],
            zone: Some("hx.test".into()),
            records: vec![("api.hx.test".into(), answer.into())],
            dhcp: None,
            dhcp6: None,
        };
        Dnsmasq::start(&server, &dir.path().join(sub), &cfg).unwrap()
    };
    let node_dns = start("192.0.2.53", "192.0.2.10", "d53");
    let other = start("192.0.2.54", "192.0.2.20", "d54");
    report("dns", "two dnsmasq started", t0);
    let lookup = || {
        client
            .exec("getent", &["hosts", "api.hx.test"])
            .unwrap_or_default()
    };
    client
        .set_resolv_conf("nameserver 192.0.2.54\noptions timeout:1 attempts:1\n")
        .unwrap();
    assert!(
        lookup().starts_with("192.0.2.20"),
        "original resolver: {}",
        lookup()
    );
    let before = other.queries();
    client
        .set_resolv_conf(
            "nameserver 192.0.2.53\nnameserver 192.0.2.54\noptions timeout:1 attempts:1\n",
        )
        .unwrap();
    assert!(
        lookup().starts_with("192.0.2.10"),
        "prepended nameserver answers: {}",
        lookup()
    );
    assert!(node_dns.queries() > 0);
    assert_eq!(
        other.queries(),
        before,
        "the second nameserver is not asked at all"
    );
    report("dns", "total", t0);
}

#[test]
fn systemd_in_nspawn_runs_two_ordered_units() {
    if !require_root("systemd_in_nspawn_runs_two_ordered_units") {
        return;
    }
    let t0 = Instant::now();
    let boot = Boot {
        units: vec![
            (
                "hx-a.service".into(),
                "[Unit]\nBefore=hx-b.service\n[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/bin/sleep 1\n".into(),
            ),
            (
                "hx-b.service".into(),
                "[Unit]\nRequires=hx-a.service\nAfter=hx-a.service\n[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/bin/true\n".into(),
            ),
        ],
        ..Boot::default()
    };
    let units = boot.run().unwrap();
    report("systemd", "nspawn boot to poweroff", t0);
    let (a, b) = (&units["hx-a.service"], &units["hx-b.service"]);
    for u in [a, b] {
        assert_eq!(
            (u["ActiveState"].as_str(), u["Result"].as_str()),
            ("active", "success"),
            "{u:?}"
        );
    }
    let mono =
        |u: &std::collections::BTreeMap<String, String>, k: &str| u[k].parse::<u64>().unwrap();
    let a_end = mono(a, "ExecMainExitTimestampMonotonic");
    let b_start = mono(b, "ExecMainStartTimestampMonotonic");
    assert!(
        a_end >= mono(a, "ExecMainStartTimestampMonotonic") + 900_000,
        "a slept 1 s"
    );
    assert!(
        b_start >= a_end,
        "b started ({b_start}) after a ended ({a_end})"
    );
}

#[test]
fn systemd_in_nspawn_joins_a_test_namespace() {
    if !require_root("systemd_in_nspawn_joins_a_test_namespace") {
        return;
    }
    let ns = Netns::new("sd").unwrap();
    ns.nic("eth7").unwrap();
    ns.addr("eth7", "192.0.2.77/24", &[]).unwrap();
    let unit = "[Service]\nType=oneshot\nRemainAfterExit=yes\n\
                ExecStart=/bin/sh -c 'ip -o addr show dev eth7 | grep -q 192.0.2.77/24'\n";
    let boot = Boot {
        units: vec![("hx-sees-ns.service".into(), unit.into())],
        netns: Some(&ns),
        ..Boot::default()
    };
    let units = boot.run().unwrap();
    assert_eq!(
        units["hx-sees-ns.service"]["Result"], "success",
        "{units:?}"
    );
}

#[test]
fn a_node_leaves_nothing_behind() {
    if !require_root("a_node_leaves_nothing_behind") {
        return;
    }
    let (names, pids, dirs);
    {
        let mut up = Upstream::start(1, &[]).unwrap();
        let node = Node::start(&mut up, 1).unwrap();
        names = [up.ns.name().to_owned(), node.ns.name().to_owned()];
        pids = [node.nm.pid(), up.dnsmasq().pid()];
        dirs = [up.dir().to_owned(), node.dir().to_owned()];
    }
    let list = String::from_utf8(
        Command::new("ip")
            .args(["netns", "list"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    for n in &names {
        assert!(!list.contains(n.as_str()), "namespace {n} left behind");
    }
    for p in pids {
        assert!(
            !std::path::Path::new(&format!("/proc/{p}")).exists(),
            "process {p} left behind"
        );
    }
    for d in &dirs {
        assert!(!d.exists(), "{} left behind", d.display());
    }
}
