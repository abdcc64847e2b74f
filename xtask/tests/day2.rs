//! Day-2 changes, as a MachineConfig makes them: MCO writes the file, then either
//! restarts the one unit its node-disruption policy names or reboots the node. Each change must
//! re-render what reads the changed value and leave everything else as it was.

use std::collections::BTreeMap;
use std::time::Duration;

use integration::Netns;
use integration::cluster::day2::{back_on_br_ex, moved, while_sampling_vips};
use integration::cluster::{API_VIP, ClusterNode, INGRESS_VIP};
use integration::nncp::DEAD_DEFAULT_ROUTE;
use integration::node::{NMSTATE_BR_EX, ZONE, node_address};
use integration::node_boot::{carries, context, default_via, holds_vip};
use integration::nspawn::BootResult;
use integration::process::time_until;
use integration::require_root;

mod common;
use common::{booted_cluster, node_boot};

/// A node's state (`ClusterNode::state`) by section: `node-ip` (primary-ip, ipv4, ipv6),
/// `20-nodenet.conf`, `resolv.conf`, `keepalived.conf`, `br-ex`, `default routes`; plus
/// `br-ex ports` from OVS.
fn sections(n: &ClusterNode) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let mut name = "node-ip".to_owned();
    let mut body = String::new();
    for line in n.state().lines() {
        if let Some(next) = line.strip_prefix("--- ") {
            map.insert(std::mem::replace(&mut name, next.to_owned()), body);
            body = String::new();
        } else {
            body.push_str(line);
            body.push('\n');
        }
    }
    map.insert(name, body);
    map.insert(
        "br-ex ports".into(),
        n.node
            .ovs
            .vsctl(&["list-ports", "br-ex"])
            .unwrap_or_default(),
    );
    map
}

/// Asserts that only the `changed` sections differ between `before` and `after`, and that
/// each of them does.
fn only_changed(
    who: &str,
    before: &BTreeMap<String, String>,
    after: &BTreeMap<String, String>,
    changed: &[&str],
) {
    for (section, was) in before {
        let now = &after[section];
        if changed.contains(&section.as_str()) {
            assert_ne!(now, was, "{who}: {section} should have changed");
        } else {
            assert_eq!(now, was, "{who}: {section} changed");
        }
    }
}

/// Rewrites a node's configuration file (in its directory) as MCO would.
fn edit(n: &ClusterNode, file: &str, from: &str, to: &str) {
    let path = n.dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file}: no {from:?} in\n{text}");
    std::fs::write(&path, text.replace(from, to)).unwrap();
}

#[test]
fn day_two_changes_rerender_only_what_they_touch() {
    if !require_root("day_two_changes_rerender_only_what_they_touch") {
        return;
    }
    let (mut c, api) = booted_cluster();
    let settle = |n: &ClusterNode, ok: &dyn Fn(&ClusterNode) -> bool| {
        assert!(
            time_until(Duration::from_secs(30), || ok(n)).is_some(),
            "node{}:\n{}",
            n.index,
            n.state()
        );
    };

    // 1. The cluster becomes dual-stack for ingress: an IPv6 ingress VIP in every node's
    // keepalived-monitor config; the node-disruption policy restarts keepalived-monitor.
    let vip6 = "2001:db8:1::4";
    let before: Vec<_> = c.nodes.iter().map(sections).collect();
    for n in &mut c.nodes {
        edit(
            n,
            "keepalived-monitor.toml",
            "ingress-vips = [\"198.51.100.4\"]",
            &format!("ingress-vips = [\"198.51.100.4\", \"{vip6}\"]"),
        );
        n.try_restart("keepalived-monitor").unwrap();
    }
    for (n, was) in c.nodes.iter().zip(&before) {
        settle(n, &|n| n.keepalived_conf().contains(&format!("{vip6}/128")));
        only_changed(
            &format!("node{}", n.index),
            was,
            &sections(n),
            &["keepalived.conf"],
        );
        assert!(
            n.keepalived_log(100).contains("Reloading"),
            "node{}: keepalived reloaded, not restarted",
            n.index
        );
    }
    c.wait_single_holder(vip6, Duration::from_secs(20)).unwrap();
    assert_eq!(c.holders(API_VIP), [api], "the API VIP did not move");
    eprintln!("IPv6 ingress VIP added: keepalived.conf re-rendered on 3 nodes, {vip6} held once");

    // 2. A new base domain: resolv-prepender's config, which its unit is restarted for.
    let before: Vec<_> = c.nodes.iter().map(sections).collect();
    let domain = "day2.example.test";
    for n in &mut c.nodes {
        edit(
            n,
            "resolv-prepender.toml",
            &format!("base-domain = \"{ZONE}\""),
            &format!("base-domain = \"{domain}\""),
        );
        n.try_restart("resolv-prepender").unwrap();
    }
    for (n, was) in c.nodes.iter().zip(&before) {
        settle(n, &|n| {
            n.resolv_conf()
                .lines()
                .any(|l| l.starts_with(&format!("search {domain}")))
        });
        only_changed(
            &format!("node{}", n.index),
            was,
            &sections(n),
            &["resolv.conf"],
        );
        assert!(
            n.getent(&format!("api.{ZONE}"))
                .unwrap_or_default()
                .starts_with(API_VIP),
            "node{}: still resolves the API through itself",
            n.index
        );
    }
    eprintln!("base domain changed: resolv.conf rewritten on 3 nodes, nothing else");

    // A new NODEIP_HINT is tested on a booted node below: in this dual-stack cluster a hint
    // on the IPv4-only storage network leaves nodeip-configuration waiting for an IPv6 address
    // there, forever and saying so every second, as upstream's merged dual-stack wait does.
}

/// A new NODEIP_HINT (`/etc/default/nodeip-configuration`), then MCO's reboot, on a booted node
/// with a second NIC on a storage network: the node IP moves there, and br-ex, kubelet's
/// environment, resolv.conf and keepalived.conf follow it.
#[test]
fn a_new_nodeip_hint_moves_the_node_ip_and_everything_follows_on_the_next_boot() {
    if !require_root("a_new_nodeip_hint_moves_the_node_ip_and_everything_follows_on_the_next_boot")
    {
        return;
    }
    let mut node = node_boot();
    let storage = Netns::new("storage").unwrap();
    storage.bridge("br1").unwrap();
    storage.addr("br1", "203.0.113.1/24", &[]).unwrap();
    node.ns.veth_to("eth1", &storage, "s1").unwrap();
    storage
        .ip(&["link", "set", "s1", "master", "br1", "up"])
        .unwrap();
    node.keyfile(
        "eth1",
        "[connection]\nid=eth1\ntype=ethernet\ninterface-name=eth1\nautoconnect=true\n\
         [ethernet]\n[ipv4]\nmethod=manual\naddress1=203.0.113.11/24,203.0.113.1\n\
         route-metric=50\n[ipv6]\nmethod=disabled\n",
    );
    // /var/lib persists on a node (configure-ovs's hint of the bridged NIC lives there).
    std::fs::create_dir_all(node.path("ovnk")).unwrap();
    let ready = |ip: &str| {
        format!(
            "systemctl is-active -q kubelet.service && systemctl is-active -q keepalived.service \
             && ip -br addr show br-ex | grep -q ' {ip}/' \
             && ip -br addr | grep -q ' 198.51.100.5/' \
             && test -e /run/resolv-prepender-kni-conf-done"
        )
    };
    let ports = "ovs-vsctl list-ports br-ex > /harness-out/ports";
    let first = node_address(1);
    let r = node.boot_then(&ready(&first), ports);
    let ctx = context(&r);
    assert_eq!(r.file("primary-ip"), first, "{ctx}");
    assert_eq!(r.file("ports"), "ens3\n", "{ctx}");
    let conf_before = r.file("keepalived.conf");
    assert!(conf_before.contains("interface br-ex"), "{conf_before}");

    // MCO writes the hint; the node reboots (OVS restarts on its database, /run is empty).
    let hint = node.path("root/etc/default/nodeip-configuration");
    std::fs::create_dir_all(hint.parent().unwrap()).unwrap();
    std::fs::write(&hint, "NODEIP_HINT=203.0.113.1\n").unwrap();
    node.power_cycle();
    let moved = "203.0.113.11";
    // The Node object's InternalIP follows kubelet's node IP: so does the peer list.
    let peers = node.path("root/etc/keepalived-monitor/peers.toml");
    let text = std::fs::read_to_string(&peers).unwrap();
    std::fs::write(&peers, text.replacen(&first, moved, 1)).unwrap();
    let r = node.boot_then(&ready(moved), ports);
    let ctx = context(&r);
    assert_eq!(r.file("primary-ip"), moved, "{ctx}");
    assert_eq!(r.file("kubelet-node-ip").trim(), moved, "{ctx}");
    assert!(
        r.file("20-nodenet.conf")
            .contains(&format!("KUBELET_NODE_IP={moved}")),
        "{ctx}"
    );
    assert_eq!(r.file("ports"), "eth1\n", "br-ex moved to eth1\n{ctx}");
    assert!(carries(&r, "br-ex", moved), "{ctx}");
    assert_eq!(
        std::fs::read_to_string(node.path("ovnk/iface_default_hint")).unwrap(),
        "eth1\n"
    );
    let resolv = r.file("resolv.conf");
    assert_eq!(
        resolv.lines().find(|l| l.starts_with("nameserver")),
        Some(format!("nameserver {moved}").as_str()),
        "{resolv}"
    );
    // keepalived follows the node IP onto br-ex, as upstream's VRRP source rule does (the
    // node-IP file first): the VIPs go where the node IP is.
    let conf = r.file("keepalived.conf");
    assert_ne!(conf, conf_before);
    assert!(
        conf.contains("interface br-ex") && conf.contains(&format!("unicast_src_ip {moved}")),
        "{conf}"
    );
    assert!(holds_vip(&r), "{ctx}");
    assert_eq!(r.prop("kubelet.service", "ActiveState"), "active", "{ctx}");
}

/// nmstate-configuration.service's lines of a boot's journal.
fn nmstate_lines(r: &BootResult) -> Vec<&str> {
    r.journal
        .lines()
        .filter(|l| l.contains("nmstate-configuration["))
        .collect()
}

/// The boot's nmstate-configuration found its file applied already and applied nothing.
fn applies_nothing_new(r: &BootResult) -> bool {
    let lines = nmstate_lines(r);
    lines.iter().any(|l| l.contains("applied already"))
        && !lines
            .iter()
            .any(|l| l.contains("applying the NMState file"))
}

/// A new `cluster.yml` (MCO writes it, then reboots): the next boot applies it once, inside
/// NetworkManager's checkpoint, before network-online.target; the boot after that does not
/// apply it again.
#[test]
fn a_new_cluster_yml_is_applied_once_on_the_next_boot() {
    if !require_root("a_new_cluster_yml_is_applied_once_on_the_next_boot") {
        return;
    }
    let mut node = node_boot();
    let ip = node_address(1);
    let ready = "systemctl is-active -q kubelet.service && ip route show default | grep -q br-ex";
    // The first boot: no NMState file, the automatic path builds br-ex.
    let r = node.boot(ready);
    assert!(carries(&r, "br-ex", &ip), "{}", context(&r));
    assert!(
        !r.journal.contains("applying the NMState file"),
        "{}",
        context(&r)
    );

    node.nmstate(NMSTATE_BR_EX);
    node.power_cycle();
    let r = node.boot(ready);
    let ctx = context(&r);
    let lines = nmstate_lines(&r);
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("applying the NMState file"))
            .count(),
        1,
        "{ctx}"
    );
    assert!(
        r.journal
            .lines()
            .any(|l| l.contains("NetworkManager[") && l.contains("checkpoint")),
        "applied inside a checkpoint\n{ctx}"
    );
    // ens3's profile holds the node's DNS server: nmstate's apply, which keeps it.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("ens3's ipv4 DNS settings, which nmstate moves")),
        "{ctx}"
    );
    assert_eq!(
        std::fs::read_to_string(node.path("nmstate/openshift/applied")).unwrap(),
        NMSTATE_BR_EX
    );
    assert!(carries(&r, "br-ex", &ip), "{ctx}");
    assert!(default_via(&r, "br-ex"), "{ctx}");
    assert_eq!(r.prop("kubelet.service", "ActiveState"), "active", "{ctx}");

    node.power_cycle();
    let r = node.boot(ready);
    let ctx = context(&r);
    assert!(applies_nothing_new(&r), "not applied again\n{ctx}");
    assert!(carries(&r, "br-ex", &ip), "{ctx}");
    assert!(default_via(&r, "br-ex"), "{ctx}");
    assert_eq!(r.prop("kubelet.service", "ActiveState"), "active", "{ctx}");
}

/// The MachineConfig flow without a reboot (issues 27 and 38), as MCO's daemon runs it under the
/// node-disruption policy for /etc/nmstate/openshift (Restart of
/// nmstate-configuration-live.service): it writes every host's file (a temporary file renamed
/// into place), runs `systemctl restart` and waits; when the restart fails, its deferred rollback
/// writes the previous files back. Another host's file changes nothing; this node's own file
/// (br-ex's MTU) is applied in the same boot and recorded in `applied`. A bad one (the default
/// route through a gateway that is not there) makes the restart fail, the network is back, the
/// previous file is back and `applied` names it; MCO retrying the same update fails at once
/// without touching the network. The next boot applies nothing new and keeps the MTU.
#[test]
fn nmstate_file_changes_apply_live_through_mcos_restart_and_a_bad_one_fails_the_update() {
    if !require_root("nmstate_file_changes_apply_live_through_mcos_restart") {
        return;
    }
    let mut node = node_boot();
    std::fs::write(node.path("hostname"), "master-0\n").unwrap();
    node.nmstate(NMSTATE_BR_EX);
    let ip = node_address(1);
    let own = NMSTATE_BR_EX.replacen(
        "type: ovs-interface\n  state: up\n",
        "type: ovs-interface\n  state: up\n  mtu: 1400\n",
        1,
    );
    assert_ne!(own, NMSTATE_BR_EX);
    let routes = own.find("routes:").unwrap();
    let bad = format!("{}{DEAD_DEFAULT_ROUTE}", &own[..routes]);
    let dir = node.path("nmstate/openshift");
    // Staged before the boot; MCO's daemon's writes rename them into place one after the other.
    let stage = |name: &str, text: &str| {
        std::fs::write(dir.join(format!(".{name}")), text).unwrap();
    };
    stage("other", &own);
    stage("own", &own);
    stage("bad", &bad);
    let live_log = "journalctl -b -o cat -u nmstate-configuration-live.service";
    let ready = "systemctl is-active -q kubelet.service && ip route show default | grep -q br-ex \
                 && test -e /etc/nmstate/openshift/applied";
    // update STAGED FILE OUT: MCO's daemon's update of one file: the previous content kept, the
    // new one renamed into place, the unit restarted (its exit status and milliseconds in OUT); on
    // failure the previous content written back the same way.
    let then = format!(
        r#"d=/etc/nmstate/openshift
update() {{
    cp "$d/$2" "$d/.previous" 2>/dev/null || rm -f "$d/.previous"
    cp "$d/.$1" "$d/.new" && mv "$d/.new" "$d/$2"
    t0=$(date +%s%3N)
    systemctl restart nmstate-configuration-live.service; rc=$?
    echo "$rc $(( $(date +%s%3N) - t0 ))" > /harness-out/$3
    if [ $rc -ne 0 ]; then
        if [ -e "$d/.previous" ]; then mv "$d/.previous" "$d/$2"; else rm -f "$d/$2"; fi
    fi
}}
update other master-1.yml other
ip -o link show br-ex > /harness-out/mtu-after-other
cat /proc/sys/kernel/random/boot_id > /harness-out/boot-before
update own master-0.yml own
ip -o link show br-ex > /harness-out/mtu-after-own
cp $d/applied /harness-out/applied-after-own
{live_log} > /harness-out/live-before-bad
update bad master-0.yml bad
ip route show default > /harness-out/route-after-bad
ip -o link show br-ex > /harness-out/mtu-after-bad
cp $d/master-0.yml /harness-out/file-after-bad
cp $d/applied /harness-out/applied-after-bad
{live_log} > /harness-out/live-after-bad
update bad master-0.yml retried
ip route show default > /harness-out/route-after-retry
{live_log} > /harness-out/live-after-retry
cp $d/master-0.yml /harness-out/file-after-retry
cat /proc/sys/kernel/random/boot_id > /harness-out/boot-after
"#
    );
    let r = node.boot_with(
        &format!(
            "i=0; until {{ {ready}; }} || [ $i -ge 180 ]; do sleep 0.5; i=$((i+1)); done\n{then}"
        ),
        Duration::from_secs(180),
    );
    let ctx = context(&r);
    let restart = |out: &str| -> (i32, f64) {
        let text = r.file(out);
        let mut words = text.split_whitespace();
        let rc = words.next().and_then(|w| w.parse().ok());
        let ms = words.next().and_then(|w| w.parse::<u32>().ok());
        match (rc, ms) {
            (Some(rc), Some(ms)) => (rc, f64::from(ms) / 1000.0),
            _ => panic!("{out}: {text:?}\n{ctx}"),
        }
    };
    let (rc, _) = restart("other");
    assert_eq!(rc, 0, "another host's file: the restart succeeds\n{ctx}");
    assert!(r.file("mtu-after-other").contains("mtu 1500"), "{ctx}");
    let (rc, secs) = restart("own");
    assert_eq!(rc, 0, "{ctx}");
    eprintln!("the good change: restart succeeded in {secs:.1} s");
    assert!(r.file("mtu-after-own").contains("mtu 1400"), "{ctx}");
    assert_eq!(r.file("applied-after-own"), own, "{ctx}");
    let before_bad = r.file("live-before-bad");
    assert!(
        before_bad.contains("nothing to apply")
            && before_bad
                .matches("applying the NMState file /etc/nmstate/openshift/master-0.yml")
                .count()
                == 1,
        "the other host's file applied nothing, this node's once\n{before_bad}\n{ctx}"
    );

    // The bad change: the restart fails, so MCO's update does; the network is back, and MCO's
    // rollback put the previous file back, which `applied` already names.
    let (rc, secs) = restart("bad");
    assert_ne!(rc, 0, "{ctx}");
    eprintln!("the bad change: restart failed after {secs:.1} s");
    let route = r.file("route-after-bad");
    assert!(
        route.contains("via 198.51.100.1 dev br-ex") && !route.contains("198.51.100.77"),
        "{route}\n{ctx}"
    );
    assert!(r.file("mtu-after-bad").contains("mtu 1400"), "{ctx}");
    assert_eq!(r.file("file-after-bad"), own, "{ctx}");
    assert_eq!(r.file("applied-after-bad"), own, "{ctx}");
    let after_bad = r.file("live-after-bad");
    let failure = after_bad
        .lines()
        .find(|l| l.contains("master-0.yml was rolled back"))
        .unwrap_or_else(|| panic!("a line naming the file and the rollback\n{after_bad}\n{ctx}"));
    assert!(failure.contains("198.51.100.77"), "{failure}");
    eprintln!("nmstate-configuration-live.service on the bad change: {failure}");

    // MCO retrying the update: the restart fails at once naming the earlier rollback, nothing
    // is applied (no second "applying" line), the route is as it was.
    let (rc, secs) = restart("retried");
    assert_ne!(rc, 0, "{ctx}");
    assert!(
        secs < 5.0,
        "the retry failed at once, not after {secs:.1} s\n{ctx}"
    );
    let retry = r.file("live-after-retry");
    let new_lines = &retry[after_bad.len().min(retry.len())..];
    assert!(
        new_lines.contains("it is not applied again until it changes")
            && !new_lines.contains("applying the NMState file"),
        "{new_lines}\n{ctx}"
    );
    assert_eq!(r.file("route-after-retry"), route, "{ctx}");
    assert_eq!(r.file("file-after-retry"), own, "{ctx}");
    assert_eq!(r.file("boot-before"), r.file("boot-after"), "no reboot");
    assert!(carries(&r, "br-ex", &ip), "{ctx}");

    node.power_cycle();
    let r = node.boot_then(
        "systemctl is-active -q kubelet.service && ip route show default | grep -q br-ex",
        "ip -o link show br-ex > /harness-out/mtu",
    );
    let ctx = context(&r);
    assert!(
        applies_nothing_new(&r),
        "the next boot applies nothing new\n{ctx}"
    );
    assert!(
        r.file("mtu").contains("mtu 1400"),
        "the MTU persisted\n{ctx}"
    );
    assert!(carries(&r, "br-ex", &ip), "{ctx}");
    assert!(default_via(&r, "br-ex"), "{ctx}");
}

/// A booted three-node cluster and the nodes holding the API and the Ingress VIP.
fn booted_cluster_with_vips() -> (integration::cluster::Cluster, u8, u8) {
    let (c, api) = booted_cluster();
    let ingress = c
        .wait_single_holder(INGRESS_VIP, Duration::from_secs(20))
        .unwrap();
    (c, api, ingress)
}

/// A good live change on the node that holds the VIPs ("the keepalived VIPs stay where
/// they are during a good change"): br-ex's MTU, then a static route through br-ex (a storage
/// network's, the usual day-2 change), each applied with `apply-live` and committed. keepalived's
/// VIPs are not in NetworkManager's profile of br-ex, so a re-activation or a reapply that set
/// br-ex's addresses to the profile's would drop them. Sampled every 50 ms through each change:
/// every VIP is held by its holder from before, and by no other node. Then a bad change on the
/// API VIP holder is rolled back, and its node IP, its default route and the VIP come back.
#[test]
fn a_good_live_change_leaves_the_vips_where_they_are() {
    if !require_root("a_good_live_change_leaves_the_vips_where_they_are") {
        return;
    }
    let (c, api, ingress) = booted_cluster_with_vips();
    let holders: Vec<(&str, u8)> = vec![(API_VIP, api), (INGRESS_VIP, ingress)];
    let changes = [
        (
            "br-ex MTU 1400",
            "interfaces:\n- name: br-ex\n  type: ovs-interface\n  state: up\n  mtu: 1400\n",
        ),
        (
            "a route to 203.0.113.0/24 through br-ex",
            "routes:\n  config:\n  - destination: 203.0.113.0/24\n    \
             next-hop-address: 198.51.100.1\n    next-hop-interface: br-ex\n",
        ),
    ];
    let mut targets = vec![(api, API_VIP)];
    if ingress != api {
        targets.push((ingress, INGRESS_VIP));
    }
    for (n, vip) in targets {
        for (what, yaml) in changes {
            let node = &c.nodes[usize::from(n) - 1];
            let (result, samples) = while_sampling_vips(&c, || node.apply_live(yaml));
            let (status, log) = result.unwrap();
            assert!(status.success(), "node{n}: {what}: {status}\n{log}");
            assert!(log.contains("committed"), "node{n}: {what}\n{log}");
            let moved = moved(&samples, &holders);
            assert!(
                moved.is_empty(),
                "node{n} ({vip}): {what} moved a VIP:\n{}\n{log}\n{}",
                moved.join("\n"),
                node.keepalived_log(30)
            );
            eprintln!(
                "node{n} (holds {vip}): {what} committed; {} samples, every VIP where it was",
                samples.len()
            );
        }
    }

    // A bad change on the API VIP holder (its default route through a next hop that is not
    // there): rolled back; the node IP and the default route are back on br-ex, and the API VIP
    // is held again, by one node.
    let node = &c.nodes[usize::from(api) - 1];
    let bad = "routes:\n  config:\n  - destination: 0.0.0.0/0\n    state: absent\n  \
               - destination: 0.0.0.0/0\n    next-hop-address: 198.51.100.99\n    \
               next-hop-interface: br-ex\n";
    let t = std::time::Instant::now();
    let (status, log) = node.apply_live(bad).unwrap();
    let rolled_back = t.elapsed();
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(log.contains("rolled back"), "{log}");
    // The node's DHCP default route stays under the new one (nmstate's `state: absent` does not
    // remove it) and its gateway answers: the one traffic takes is the one that must answer.
    assert!(
        log.contains("the change made 198.51.100.99 the default gateway (through br-ex)"),
        "{log}"
    );
    let back = back_on_br_ex(node, api);
    assert!(
        back.is_some(),
        "node{api}: node IP and default route\n{log}"
    );
    let holder = c
        .wait_single_holder(API_VIP, Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{e}\n{}", node.keepalived_log(30)));
    eprintln!(
        "node{api}: a default route through a missing next hop rolled back in {:.2} s; the API \
         VIP is held by node{holder}",
        rolled_back.as_secs_f64()
    );
}

/// What MCO's roll-out of one MachineConfig did on one node: its daemon wrote the NMState file
/// and restarted nmstate-configuration-live.service.
struct Rollout {
    node: u8,
    ok: bool,
    log: String,
}

/// MCO rolling `text` out as the pool's `cluster.yml` with `maxUnavailable: 1`, nodes in
/// `order`: on each node in turn its daemon writes the file, restarts the live unit and waits;
/// a failed restart fails that node's update: the daemon writes the previous file back, the
/// node is degraded and the pool stops rolling (no other node gets the file).
fn roll_out(c: &integration::cluster::Cluster, order: &[u8], text: &str) -> Vec<Rollout> {
    let mut done = Vec::new();
    for &n in order {
        let node = &c.nodes[usize::from(n) - 1];
        let file = node.dir.join("etc/nmstate/openshift/cluster.yml");
        let previous = std::fs::read_to_string(&file).ok();
        node.set_nmstate(Some(text)).unwrap();
        let (status, log) = node.apply_nmstate_live().unwrap();
        done.push(Rollout {
            node: n,
            ok: status.success(),
            log,
        });
        if !status.success() {
            node.set_nmstate(previous.as_deref()).unwrap();
            break;
        }
    }
    done
}

/// One MachineConfig's NMState change rolled out over the three nodes as MCO does,
/// node by node, the API VIP's holder first (the worst place for a bad change). A default
/// route through a gateway that is not there fails the first node's update: that node is back
/// as it was (node IP, default route, br-ex's addresses and ports) holding the VIPs it held,
/// and the roll-out stops, so the other two never see the change. Then a good change (br-ex's
/// MTU) goes through all three with every VIP on its holder in every sample.
#[test]
fn a_rolled_out_nmstate_change_stops_at_the_first_node_it_breaks_and_a_good_one_reaches_all() {
    if !require_root("a_rolled_out_nmstate_change_stops_at_the_first_node_it_breaks") {
        return;
    }
    let (c, api, ingress) = booted_cluster_with_vips();
    let holders: Vec<(&str, u8)> = vec![(API_VIP, api), (INGRESS_VIP, ingress)];
    let mut order = vec![api];
    order.extend((1..=3).filter(|&n| n != api));
    let before: Vec<_> = c.nodes.iter().map(sections).collect();

    let bad = roll_out(&c, &order, DEAD_DEFAULT_ROUTE);
    assert_eq!(bad.len(), 1, "the roll-out went on past node{api}");
    let first = &bad[0];
    assert!(
        !first.ok,
        "node{}: the dead gateway was kept\n{}",
        first.node, first.log
    );
    assert!(first.log.contains("rolled back"), "{}", first.log);
    assert!(first.log.contains("198.51.100.77"), "{}", first.log);
    let node = &c.nodes[usize::from(api) - 1];
    assert!(
        !node.dir.join("etc/nmstate/openshift/cluster.yml").exists(),
        "MCO's rollback left the bad file"
    );
    let back = back_on_br_ex(node, api);
    assert!(
        back.is_some(),
        "node{api}: node IP and default route\n{}",
        first.log
    );
    for (vip, holder) in &holders {
        let now = c
            .wait_single_holder(vip, Duration::from_secs(20))
            .unwrap_or_else(|e| panic!("{e}\n{}", node.keepalived_log(30)));
        assert_eq!(
            now,
            *holder,
            "{vip} moved\n{}\n{}",
            first.log,
            node.keepalived_log(30)
        );
    }
    for (n, was) in c.nodes.iter().zip(&before) {
        let who = format!("node{} after the bad roll-out", n.index);
        only_changed(&who, was, &sections(n), &[]);
    }
    eprintln!(
        "bad change: node{api} failed its update and is back as before ({}); nodes {:?} never \
         saw it",
        first.log.lines().last().unwrap_or_default(),
        &order[1..]
    );

    let good = "interfaces:\n- name: br-ex\n  type: ovs-interface\n  state: up\n  mtu: 1400\n";
    let (done, samples) = while_sampling_vips(&c, || roll_out(&c, &order, good));
    let updated: Vec<u8> = done.iter().filter(|r| r.ok).map(|r| r.node).collect();
    assert_eq!(
        updated,
        order,
        "{}",
        done.iter()
            .map(|r| r.log.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let moved = moved(&samples, &holders);
    assert!(
        moved.is_empty(),
        "the good roll-out moved a VIP:\n{}",
        moved.join("\n")
    );
    for n in &c.nodes {
        let link = n.node.ns.ip(&["link", "show", "br-ex"]).unwrap();
        assert!(link.contains("mtu 1400"), "node{}: {link}", n.index);
    }
    eprintln!(
        "good change: br-ex MTU 1400 on nodes {order:?} in turn; {} samples, every VIP on its \
         holder",
        samples.len()
    );
}
