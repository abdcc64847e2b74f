//! Upgrade in place: a node that upstream's scripts ran, rebooted into this
//! project's units. The previous boot is real: NetworkManager brought br-ex up from the profiles
//! it found in /etc and wrote its rows into the OVS database, which survives the reboot (OVS
//! restarts on it, as on a node); /run starts empty. The files upstream's other components left
//! (keepalived.conf as its static pod rendered it in unicast mode, MCO's monitor.conf, the
//! prepender's /etc/resolv.conf, `iface_default_hint`) are seeded as they wrote them.

use std::collections::BTreeMap;
use std::fs;

use integration::node::{NMSTATE_BR_EX, PREFIX_LEN, ROUTER, ZONE, node_address, node_mac};
use integration::nspawn::BootResult;
use integration::require_root;

mod common;
use common::node_boot;
use integration::node_boot::*;

/// UUIDs of the profiles configure-ovs created in the previous boot.
const UPSTREAM_UUIDS: [(&str, &str); 5] = [
    ("br-ex", "a1000000-0000-4000-8000-000000000001"),
    ("ovs-port-br-ex", "a1000000-0000-4000-8000-000000000002"),
    ("ovs-port-phys0", "a1000000-0000-4000-8000-000000000003"),
    ("ovs-if-phys0", "a1000000-0000-4000-8000-000000000004"),
    ("ovs-if-br-ex", "a1000000-0000-4000-8000-000000000005"),
];

fn upstream_uuid(id: &str) -> &'static str {
    UPSTREAM_UUIDS.iter().find(|(n, _)| *n == id).unwrap().1
}

/// The keyfiles configure-ovs writes with `NM_CONN_SET_PATH=/etc/NetworkManager/system-connections`
/// for a static uplink (reference ovs-bridge-configurator.md §8.3.2): name and content.
fn configure_ovs_keyfiles() -> Vec<(String, String)> {
    let u = upstream_uuid;
    let mac = node_mac(1).to_uppercase();
    let ip = node_address(1);
    let port = |id: &str, iface: &str, slaves: &str| {
        format!(
            "[connection]\nid={id}\nuuid={}\ntype=ovs-port\nautoconnect=false\n{slaves}\
             interface-name={iface}\nmaster=br-ex\nslave-type=ovs-bridge\n\n[ovs-port]\n",
            u(id)
        )
    };
    vec![
        (
            "br-ex".into(),
            format!(
                "[connection]\nid=br-ex\nuuid={}\ntype=ovs-bridge\nautoconnect-slaves=1\n\
                 interface-name=br-ex\n\n[ethernet]\nmtu=1500\n\n[ovs-bridge]\n\n[ipv4]\n\
                 method=auto\n\n[ipv6]\naddr-gen-mode=default\nmethod=auto\n\n[proxy]\n",
                u("br-ex")
            ),
        ),
        ("ovs-port-br-ex".into(), port("ovs-port-br-ex", "br-ex", "")),
        (
            "ovs-port-phys0".into(),
            port("ovs-port-phys0", "ens3", "autoconnect-slaves=1\n"),
        ),
        (
            "ovs-if-phys0".into(),
            format!(
                "[connection]\nid=ovs-if-phys0\nuuid={}\ntype=ethernet\nautoconnect-priority=100\n\
                 autoconnect-slaves=1\ninterface-name=ens3\nmaster={}\nslave-type=ovs-port\n\n\
                 [ethernet]\ncloned-mac-address={mac}\nmtu=1500\n\n[ovs-interface]\ntype=system\n",
                u("ovs-if-phys0"),
                u("ovs-port-phys0")
            ),
        ),
        // The clone of the node's `ens3` profile, retyped (its DNS settings and IPv6 method
        // come along, as `nmcli connection clone` copies every setting).
        (
            "ovs-if-br-ex".into(),
            format!(
                "[connection]\nid=ovs-if-br-ex\nuuid={}\ntype=ovs-interface\n\
                 interface-name=br-ex\nmaster={}\nslave-type=ovs-port\ntimestamp=1795251172\n\n\
                 [ethernet]\ncloned-mac-address={mac}\nmtu=1500\n\n[ovs-interface]\n\
                 type=internal\n\n[ipv4]\naddress1={ip}/{PREFIX_LEN},{ROUTER}\ndns={ROUTER};\n\
                 dns-search={ZONE};\nmethod=manual\nroute-metric=48\n\n[ipv6]\n\
                 addr-gen-mode=default\nmethod=disabled\nroute-metric=48\n\n[proxy]\n",
                u("ovs-if-br-ex"),
                u("ovs-port-br-ex")
            ),
        ),
    ]
}

/// keepalived.conf as upstream's keepalived static pod rendered it on this node (unicast, the
/// other two masters as peers; reference keepalived-monitor.md §4.11 scenario A's shape).
fn upstream_keepalived_conf() -> String {
    let ip = node_address(1);
    let peers = format!("        {}\n        {}\n", node_address(2), node_address(3));
    let instance = |name: &str, vrid: u8, prio: u8, vip: &str, scripts: &str| {
        format!(
            "vrrp_instance boot_{name}_0 {{\n    state BACKUP\n    interface br-ex\n    \
             virtual_router_id {vrid}\n    priority {prio}\n    advert_int 1\n    \n    \
             unicast_src_ip {ip}\n    unicast_peer {{\n{peers}    }}\n    \n    \
             authentication {{\n        auth_type PASS\n        auth_pass boot_{}_vip\n    }}\n    \
             virtual_ipaddress {{\n        {vip}/32 label vip\n    }}\n    \
             track_script {{\n{scripts}    }}\n}}\n",
            name.to_lowercase()
        )
    };
    format!(
        "global_defs {{\n    enable_script_security\n    script_user root\n}}\n\n\
         vrrp_script chk_ocp_lb {{\n    script \"/usr/bin/timeout 1.9 /etc/keepalived/chk_ocp_script.sh\"\n    \
         interval 2\n    weight 20\n    rise 3\n    fall 2\n}}\n\n{}\n{}",
        instance("API", 13, 40, API_VIP, "        chk_ocp_lb\n"),
        instance("INGRESS", 28, 20, INGRESS_VIP, "        chk_ocp_lb\n"),
    )
}

/// /etc/resolv.conf as upstream's prepender wrote it from NetworkManager's file for `ens3`.
fn upstream_resolv_conf() -> String {
    format!(
        "# Generated by KNI resolv prepender NM dispatcher script\nsearch {ZONE}\n\
         nameserver {}\nnameserver {ROUTER}\n",
        node_address(1)
    )
}

/// Counts, in the node namespace, every VRRP packet it sends and those sent to VRRP's multicast
/// group (224.0.0.18): the output hook sees unicast adverts even to peers that never answer ARP.
fn count_vrrp(node: &NodeBoot) {
    node.ns
        .exec(
            "nft",
            &["add table inet harness_vrrp; \
               add chain inet harness_vrrp out { type filter hook output priority 0; }; \
               add rule inet harness_vrrp out ip daddr 224.0.0.18 counter comment \"multicast\"; \
               add rule inet harness_vrrp out ip protocol vrrp counter comment \"vrrp\""],
        )
        .unwrap();
}

/// The packets the counter `comment` of [`count_vrrp`] saw.
fn vrrp_packets(node: &NodeBoot, comment: &str) -> u64 {
    let table = node
        .ns
        .exec("nft", &["list", "table", "inet", "harness_vrrp"])
        .unwrap();
    table
        .lines()
        .find(|l| l.contains(&format!("comment \"{comment}\"")))
        .and_then(|l| {
            l.split("packets ")
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no {comment} counter in\n{table}"))
}

/// A unit that puts back, early in the boot, the /etc/resolv.conf the previous boot left (the
/// harness's /etc is fresh each boot; a node's persists).
fn seed_resolv_conf(node: &NodeBoot, text: &str) {
    let system = node.path("root/etc/systemd/system");
    fs::write(node.path("nm/previous-resolv.conf"), text).unwrap();
    fs::write(
        system.join("harness-previous-resolv.service"),
        "[Unit]\nDescription=harness: the previous boot's /etc/resolv.conf\n\
         DefaultDependencies=no\nBefore=NetworkManager.service resolv-prepender.service\n\
         [Service]\nType=oneshot\nRemainAfterExit=yes\n\
         ExecStart=/bin/cp /harness/nm/previous-resolv.conf /etc/resolv.conf\n",
    )
    .unwrap();
    let wants = system.join("sysinit.target.wants");
    fs::create_dir_all(&wants).unwrap();
    let link = wants.join("harness-previous-resolv.service");
    if !link.exists() {
        std::os::unix::fs::symlink("../harness-previous-resolv.service", link).unwrap();
    }
}

/// The OVS database's rows while the node ran: table -> (name, NM.connection.uuid) per row.
fn ovsdb_rows(r: &BootResult) -> BTreeMap<&'static str, Vec<(String, String)>> {
    ["Bridge", "Port", "Interface"]
        .into_iter()
        .map(|table| {
            let mut rows: Vec<(String, String)> = r
                .file(&format!("ovsdb-{table}"))
                .lines()
                .map(|l| {
                    let (name, ids) = l.split_once(',').unwrap_or((l, ""));
                    let uuid = ids
                        .split_whitespace()
                        .find_map(|kv| kv.trim_matches('"').strip_prefix("NM.connection.uuid="))
                        .unwrap_or_default();
                    (name.to_owned(), uuid.to_owned())
                })
                .collect();
            rows.sort();
            (table, rows)
        })
        .collect()
}

/// The profiles NetworkManager had at the end of a boot: (name, UUID, file).
fn profiles(r: &BootResult) -> Vec<(String, String, String)> {
    r.file("profiles")
        .lines()
        .filter_map(|l| {
            // `nmcli -t` escapes ':' inside values as '\:'; these values have none.
            let mut f = l.split(':');
            Some((f.next()?.into(), f.next()?.into(), f.next()?.into()))
        })
        .collect()
}

/// Collects the profiles and the OVS database (read in the boot: NetworkManager's shutdown
/// removes rows).
const PROFILES_AND_OVSDB: &str = "nmcli -t -f NAME,UUID,FILENAME connection show > /harness-out/profiles
for t in Bridge Port Interface; do
  ovs-vsctl --format=csv --data=bare --no-headings --columns=name,external_ids list $t > /harness-out/ovsdb-$t
done";

#[test]
fn a_node_configure_ovs_converted_upgrades_in_place() {
    if !require_root("a_node_configure_ovs_converted_upgrades_in_place") {
        return;
    }
    let mut node = node_boot();
    let conns = node.path("system-connections");
    for (id, text) in configure_ovs_keyfiles() {
        node.keyfile(&id, &text);
    }
    // The previous boot: upstream's node, where NetworkManager activated configure-ovs's
    // persistent profiles (this project's units are not there yet).
    node.systemctl(&[&["mask"], &UNITS[..]].concat());
    let ip = node_address(1);
    let r = node.boot_then(
        &format!("ip -br addr show br-ex | grep -q ' {ip}/'"),
        PROFILES_AND_OVSDB,
    );
    assert!(
        carries(&r, "br-ex", &ip),
        "the seeded profiles make a working br-ex\n{}",
        context(&r)
    );
    let before = ovsdb_rows(&r);
    assert_eq!(
        before["Bridge"],
        [("br-ex".to_owned(), upstream_uuid("br-ex").to_owned())],
        "NetworkManager wrote br-ex into the OVS database"
    );

    // The reboot into this project's units: OVS restarts on its database, /run is empty, the
    // node's configuration (profiles in /etc) stays as MCO made it.
    node.power_cycle();
    node.systemctl(&[&["unmask"], &UNITS[..]].concat());
    let dropin = node.path("root/etc/systemd/system/ovs-configuration.service.d");
    fs::create_dir_all(&dropin).unwrap();
    fs::write(
        dropin.join("10-persist.conf"),
        "[Service]\nEnvironment=NM_CONN_SET_PATH=/etc/NetworkManager/system-connections\n",
    )
    .unwrap();
    fs::create_dir_all(node.path("ovnk")).unwrap();
    fs::write(node.path("ovnk/iface_default_hint"), "ens3\n").unwrap();
    fs::write(
        node.path("keepalived/keepalived.conf"),
        upstream_keepalived_conf(),
    )
    .unwrap();
    fs::write(node.path("keepalived/monitor.conf"), "mode: unicast\n").unwrap();
    seed_resolv_conf(&node, &upstream_resolv_conf());
    count_vrrp(&node);
    let r = node.boot_then(
        &format!(
            "systemctl is-active -q kubelet.service && systemctl is-active -q keepalived.service \
             && ip -br addr show br-ex | grep -q ' {API_VIP}/' \
             && test -e /run/resolv-prepender-kni-conf-done"
        ),
        &format!("sleep 3\n{PROFILES_AND_OVSDB}"),
    );
    let ctx = context(&r);

    // The same node IP, on br-ex, on the same NIC with the same MAC; kubelet started.
    assert_eq!(r.file("primary-ip"), ip, "{ctx}");
    assert_eq!(r.file("kubelet-node-ip").trim(), ip, "{ctx}");
    assert_eq!(r.prop("kubelet.service", "ActiveState"), "active", "{ctx}");
    assert_eq!(
        r.prop("ovs-configuration.service", "Result"),
        "success",
        "{ctx}"
    );
    assert!(carries(&r, "br-ex", &ip), "{ctx}");
    assert!(default_via(&r, "br-ex"), "{ctx}");
    let link = r.file("link");
    assert!(
        link.lines()
            .any(|l| l.starts_with("br-ex ") && l.contains(&node_mac(1))),
        "br-ex keeps the NIC's MAC\n{link}"
    );
    assert_eq!(
        node.ovs().vsctl(&["list-ports", "br-ex"]).unwrap().trim(),
        "ens3",
        "br-ex on the same NIC"
    );
    assert_eq!(
        fs::read_to_string(node.path("ovnk/iface_default_hint")).unwrap(),
        "ens3\n"
    );

    // No duplicate profiles: one of each, the upstream copies in /etc replaced (not joined) by
    // this boot's, which NM_CONN_SET_PATH keeps in /etc too.
    let now = profiles(&r);
    for (id, old_uuid) in UPSTREAM_UUIDS {
        let same: Vec<_> = now.iter().filter(|(n, _, _)| n == id).collect();
        assert_eq!(same.len(), 1, "{id}: {now:?}\n{ctx}");
        assert_ne!(same[0].1, old_uuid, "{id} rebuilt\n{now:?}");
        assert_eq!(
            same[0].2,
            format!("/etc/NetworkManager/system-connections/{id}.nmconnection"),
            "{now:?}"
        );
    }
    let mut files: Vec<String> = fs::read_dir(&conns)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "br-ex",
            "ens3",
            "ovs-if-br-ex",
            "ovs-if-phys0",
            "ovs-port-br-ex",
            "ovs-port-phys0"
        ]
        .map(|n| format!("{n}.nmconnection")),
        "{now:?}"
    );
    // No stale OVS rows: one bridge, its two ports and interfaces, each naming a profile of
    // this boot.
    let rows = ovsdb_rows(&r);
    let uuid_of = |id: &str| {
        now.iter()
            .find(|(n, _, _)| n == id)
            .map(|(_, u, _)| u.clone())
            .unwrap()
    };
    assert_eq!(
        rows["Bridge"],
        [("br-ex".to_owned(), uuid_of("br-ex"))],
        "{rows:?}"
    );
    assert_eq!(
        rows["Port"],
        [
            ("br-ex".to_owned(), uuid_of("ovs-port-br-ex")),
            ("ens3".to_owned(), uuid_of("ovs-port-phys0"))
        ],
        "{rows:?}"
    );
    assert_eq!(
        rows["Interface"],
        [
            ("br-ex".to_owned(), uuid_of("ovs-if-br-ex")),
            ("ens3".to_owned(), uuid_of("ovs-if-phys0"))
        ],
        "{rows:?}"
    );

    // keepalived: unicast, and not one multicast advert was sent, also before the monitor's
    // first render (keepalived never started on the previous boot's file).
    let conf = r.file("keepalived.conf");
    assert!(
        conf.contains("unicast_peer") && conf.contains(&format!("unicast_src_ip {ip}")),
        "{conf}"
    );
    assert!(
        vrrp_packets(&node, "vrrp") > 0,
        "keepalived sent its adverts\n{ctx}"
    );
    assert_eq!(vrrp_packets(&node, "multicast"), 0, "{conf}\n{ctx}");
    assert!(holds_vip(&r), "{ctx}");

    // resolv.conf: what upstream's prepender wrote is what this one writes from the same input,
    // so it is left as it was (one node-IP nameserver, not a second one prepended).
    assert_eq!(r.file("resolv.conf"), upstream_resolv_conf(), "{ctx}");
}

#[test]
fn a_declarative_node_upgrades_in_place_without_a_reapply() {
    if !require_root("a_declarative_node_upgrades_in_place_without_a_reapply") {
        return;
    }
    let mut node = node_boot();
    node.nmstate(NMSTATE_BR_EX);
    // The previous boot applied cluster.yml: NetworkManager's persistent profiles are the ones
    // nmstate made (the nmstate library upstream's nmstatectl is built on), and `applied` is
    // a copy of cluster.yml, as upstream's nmstate-configuration.sh leaves it.
    let ip = node_address(1);
    let r = node.boot_then("systemctl is-active -q kubelet.service", PROFILES_AND_OVSDB);
    assert!(carries(&r, "br-ex", &ip), "{}", context(&r));
    fs::write(node.path("nmstate/openshift/applied"), NMSTATE_BR_EX).unwrap();
    let keyfiles = |node: &NodeBoot| -> BTreeMap<String, Vec<u8>> {
        fs::read_dir(node.path("system-connections"))
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    fs::read(e.path()).unwrap(),
                )
            })
            .collect()
    };
    let before = keyfiles(&node);
    let rows_before = ovsdb_rows(&r);

    node.power_cycle();
    seed_resolv_conf(&node, &upstream_resolv_conf());
    let r = node.boot_then(
        &format!(
            "systemctl is-active -q kubelet.service && ip -br addr show br-ex | grep -q ' {ip}/' \
             && test -e /run/resolv-prepender-kni-conf-done && ip route show default | grep -q br-ex"
        ),
        PROFILES_AND_OVSDB,
    );
    let ctx = context(&r);
    assert_eq!(r.prop("kubelet.service", "ActiveState"), "active", "{ctx}");
    assert!(carries(&r, "br-ex", &ip), "{ctx}");
    assert!(default_via(&r, "br-ex"), "{ctx}");
    assert_eq!(r.file("primary-ip"), ip, "{ctx}");
    assert!(
        r.journal
            .lines()
            .any(|l| l.contains("nmstate-configuration[") && l.contains("applied already")),
        "{ctx}"
    );
    assert!(
        !r.journal.contains("applying the NMState file"),
        "not re-applied\n{ctx}"
    );
    assert_eq!(keyfiles(&node), before, "the profiles were not touched");
    assert_eq!(
        fs::read_to_string(node.path("nmstate/openshift/applied")).unwrap(),
        NMSTATE_BR_EX
    );
    let names: Vec<_> = profiles(&r).into_iter().map(|(n, _, _)| n).collect();
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        names.len(),
        unique.len(),
        "no duplicate profiles: {names:?}"
    );
    assert_eq!(
        ovsdb_rows(&r),
        rows_before,
        "the OVS database holds the same bridge, ports and interfaces, none twice"
    );
    assert_eq!(r.file("resolv.conf"), upstream_resolv_conf(), "{ctx}");
}
