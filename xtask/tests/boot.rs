//! The units as `cargo xtask dist` installs them, booted by real systemd (systemd-nspawn) joined
//! to a node namespace with an uplink to an upstream network: NetworkManager with OVS and the
//! system bus run inside the container as units, OVS's daemons run in the namespace (the
//! container's `openvswitch.service` stands for them). The order is read from systemd's own
//! timestamps, the results from the node's files and links.

use std::fs;
use std::process::Command;
use std::time::Duration;

use integration::node::{NMSTATE_BR_EX, ROUTER, ZONE, node_address, node_address6};
use integration::require_root;

mod common;
use common::node_boot;
use integration::node_boot::*;

#[test]
fn units_boot_a_node_in_order() {
    if !require_root("units_boot_a_node_in_order") {
        return;
    }
    let node = node_boot();
    // The API VIP a crashed keepalived left behind (on another interface, so its removal is
    // told apart from keepalived's own moves): removed right before keepalived starts.
    node.ns.nic("stale0").unwrap();
    node.ns
        .addr("stale0", &format!("{API_VIP}/32"), &[])
        .unwrap();
    // MCO's wait-for-br-ex-up.service (polling every second, as upstream's script) holding a
    // stand-in node-valid-hostname.service: resolv-prepender touches the flag they wait for.
    let system = node.path("root/etc/systemd/system");
    for (name, text) in [
        (
            "wait-for-br-ex-up.service",
            "[Unit]\nWants=ovs-configuration.service\nAfter=ovs-configuration.service\n\
             Before=node-valid-hostname.service\n[Service]\nType=oneshot\nTimeoutStartSec=90\n\
             ExecStart=/bin/sh -c 'until [ -e /run/nodeip-configuration/br-ex-up ]; do sleep 1; done'\n",
        ),
        (
            "node-valid-hostname.service",
            "[Unit]\nDescription=node-valid-hostname (stand-in)\nRequires=wait-for-br-ex-up.service\n\
             After=wait-for-br-ex-up.service\n[Service]\nType=oneshot\nRemainAfterExit=yes\n\
             ExecStart=/bin/true\n",
        ),
    ] {
        fs::write(system.join(name), text).unwrap();
    }
    let wants = system.join("multi-user.target.wants");
    fs::create_dir_all(&wants).unwrap();
    std::os::unix::fs::symlink(
        "../node-valid-hostname.service",
        wants.join("node-valid-hostname.service"),
    )
    .unwrap();
    let r = node.boot(
        "systemctl is-active -q kubelet.service && systemctl is-active -q keepalived.service \
         && ip -br addr show br-ex | grep -q ' 198.51.100.5/'",
    );
    let ctx = context(&r);
    let ip = node_address(1);
    for unit in [
        "nodeip-configuration.service",
        "ovs-configuration.service",
        "kubelet.service",
        "resolv-prepender.service",
        "keepalived-monitor.service",
        "keepalived.service",
    ] {
        assert_eq!(r.prop(unit, "Result"), "success", "{unit}\n{ctx}");
    }
    for unit in [
        "kubelet-dependencies.target",
        "kubelet.service",
        "resolv-prepender.service",
        "keepalived-monitor.service",
        "keepalived.service",
    ] {
        assert_eq!(r.prop(unit, "ActiveState"), "active", "{unit}\n{ctx}");
    }
    // The order, from systemd's timestamps (a oneshot without RemainAfterExit is done when it
    // re-enters "inactive").
    let nodeip_done = (
        "nodeip-configuration.service",
        "InactiveEnterTimestampMonotonic",
    );
    let ovs_done = (
        "ovs-configuration.service",
        "InactiveEnterTimestampMonotonic",
    );
    let started = |u| (u, "InactiveExitTimestampMonotonic");
    let active = |u| (u, "ActiveEnterTimestampMonotonic");
    for (a, b, what) in [
        (
            active("NetworkManager-wait-online.service"),
            started("nodeip-configuration.service"),
            "NM online before nodeip-configuration",
        ),
        (
            nodeip_done,
            started("ovs-configuration.service"),
            "nodeip-configuration finished before ovs-configuration started",
        ),
        (
            active("openvswitch.service"),
            started("ovs-configuration.service"),
            "openvswitch before ovs-configuration",
        ),
        (
            ovs_done,
            active("kubelet-dependencies.target"),
            "ovs-configuration before kubelet-dependencies.target",
        ),
        (
            active("kubelet-dependencies.target"),
            active("kubelet.service"),
            "kubelet after its dependencies",
        ),
        (
            ovs_done,
            started("keepalived-monitor.service"),
            "keepalived-monitor after ovs-configuration",
        ),
        (
            started("keepalived-monitor.service"),
            started("keepalived.service"),
            "keepalived started by the monitor's first render",
        ),
        (
            nodeip_done,
            started("keepalived.service"),
            "keepalived after nodeip-configuration",
        ),
        (
            ovs_done,
            started("keepalived.service"),
            "keepalived after ovs-configuration (br-ex built)",
        ),
    ] {
        assert!(before(&r, a, b), "{what}: {a:?} <= {b:?}\n{ctx}");
    }
    // The results.
    assert_eq!(r.file("primary-ip"), ip, "{ctx}");
    assert!(
        r.file("20-nodenet.conf")
            .contains(&format!("KUBELET_NODE_IP={ip}")),
        "{ctx}"
    );
    assert_eq!(
        r.file("kubelet-node-ip").trim(),
        ip,
        "kubelet saw the drop-in: the daemon-reload came first\n{ctx}"
    );
    assert!(carries(&r, "br-ex", &ip), "{ctx}");
    assert!(default_via(&r, "br-ex"), "{ctx}");
    assert!(r.file("ping").contains("ok"), "{ctx}");
    let resolv = r.file("resolv.conf");
    assert_eq!(
        resolv.lines().find(|l| l.starts_with("nameserver")),
        Some(format!("nameserver {ip}").as_str()),
        "{resolv}\n{ctx}"
    );
    assert!(resolv.contains(&format!("nameserver {ROUTER}")), "{resolv}");
    assert_eq!(r.file("done-flag").trim(), "yes", "{ctx}");
    let conf = r.file("keepalived.conf");
    assert!(conf.contains("interface br-ex"), "{conf}");
    assert!(conf.contains(&format!("unicast_src_ip {ip}")), "{conf}");
    assert!(
        r.file("addr")
            .lines()
            .any(|l| l.starts_with("br-ex ") && l.contains(&format!(" {API_VIP}/"))),
        "VIP held\n{ctx}"
    );
    // keepalived.service's ExecStartPre removed the stale VIP.
    assert!(
        r.file("addr")
            .lines()
            .any(|l| l.starts_with("stale0") && !l.contains(API_VIP)),
        "stale VIP removed\n{ctx}"
    );
    assert!(
        r.journal
            .contains(&format!("removing stale VIP {API_VIP} from interface")),
        "{ctx}"
    );
    // br-ex-up: touched by resolv-prepender when br-ex activated, so node-valid-hostname ran.
    assert_eq!(
        r.prop("node-valid-hostname.service", "ActiveState"),
        "active",
        "{ctx}"
    );
    // Monotonic journal timestamps of the lines holding `needle`.
    let times = |needles: &[&str]| -> Vec<f64> {
        r.journal
            .lines()
            .filter(|l| needles.iter().all(|n| l.contains(n)))
            .filter_map(|l| {
                l.trim_start_matches('[')
                    .split(']')
                    .next()?
                    .trim()
                    .parse()
                    .ok()
            })
            .collect()
    };
    let touched = *times(&["br-ex is up: touched /run/nodeip-configuration/br-ex-up"])
        .first()
        .unwrap_or_else(|| panic!("br-ex-up not touched\n{ctx}"));
    // NetworkManager activates three devices named br-ex (bridge, port, interface): the one
    // that triggered the flag is the last activation before it. (NetworkManager 1.52 names
    // each device's type in its log lines: `device (br-ex)[Open vSwitch Port]: ...`.)
    let activated = times(&["device (br-ex)", ": Activation: successful"])
        .into_iter()
        .filter(|t| *t <= touched)
        .fold(f64::NAN, f64::max);
    let delay_ms = (touched - activated) * 1000.0;
    eprintln!("br-ex-up touched {delay_ms:.1} ms after br-ex's activation");
    assert!((0.0..100.0).contains(&delay_ms), "{delay_ms} ms\n{ctx}");
    // IP forwarding on the interface that held the node IP when nodeip-configuration ran.
    assert_eq!(r.file("forwarding"), "1\n1\n", "{ctx}");
    assert!(r.journal.contains("IP forwarding enabled on ens3"), "{ctx}");
    // The check scripts keepalived.conf calls, executable and root's.
    let scripts = r.file("check-scripts");
    for name in [
        "chk_ocp_script.sh",
        "chk_ocp_script_both.sh",
        "chk_mcs_script.sh",
        "chk_default_ingress.sh",
    ] {
        assert!(
            scripts.contains(&format!("755 root /etc/keepalived/{name}")),
            "{name}: {scripts}"
        );
    }
}

/// CLOCK_MONOTONIC in microseconds: the clock of systemd's `*TimestampMonotonic` properties.
fn monotonic_usec() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    assert_eq!(
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) },
        0
    );
    ts.tv_sec as u64 * 1_000_000 + ts.tv_nsec as u64 / 1_000
}

#[test]
fn nodeip_configuration_waits_for_a_late_uplink() {
    if !require_root("nodeip_configuration_waits_for_a_late_uplink") {
        return;
    }
    let node = node_boot();
    // The switch port is down: ens3 has no carrier, NetworkManager cannot bring up its
    // profile, and the node has no address when nodeip-configuration starts.
    node.up.ns.ip(&["link", "set", "p1", "down"]).unwrap();
    let (r, link_up) = std::thread::scope(|s| {
        let boot = s.spawn(|| node.boot("systemctl is-active -q kubelet.service"));
        // This node's nodeip-selector (other tests boot containers at the same time).
        let running = || {
            let pids = Command::new("pgrep")
                .args(["-f", "^/usr/bin/nodeip-selector set"])
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default();
            pids.split_whitespace().any(|pid| {
                Command::new("ip")
                    .args(["netns", "identify", pid])
                    .output()
                    .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == node.ns.name())
            })
        };
        assert!(
            // Boots run one at a time: this one may wait for the others first.
            integration::process::wait_for(Duration::from_secs(180), running),
            "nodeip-configuration never ran"
        );
        // Let it find nothing and go back to waiting, then plug the cable.
        std::thread::sleep(Duration::from_secs(3));
        let link_up = monotonic_usec();
        node.up.ns.ip(&["link", "set", "p1", "up"]).unwrap();
        (boot.join().unwrap(), link_up)
    });
    let ctx = context(&r);
    let unit = "nodeip-configuration.service";
    assert_eq!(r.prop(unit, "Result"), "success", "{ctx}");
    assert!(
        r.usec(unit, "InactiveExitTimestampMonotonic") < link_up,
        "started before the address existed\n{ctx}"
    );
    let done = r.usec(unit, "InactiveEnterTimestampMonotonic");
    assert!(done > link_up, "finished after it appeared\n{ctx}");
    assert_eq!(r.file("primary-ip"), node_address(1), "{ctx}");
    assert_eq!(
        r.prop("kubelet.service", "ActiveState"),
        "active",
        "the rest of the boot followed\n{ctx}"
    );
    assert!(
        r.journal.contains("nodeip-configuration") && r.journal.contains("retry"),
        "the wait is explained in the journal\n{ctx}"
    );
    eprintln!(
        "address appeared {:.1} s after nodeip-configuration started; it finished {:.2} s later",
        (link_up - r.usec(unit, "InactiveExitTimestampMonotonic")) as f64 / 1e6,
        (done - link_up) as f64 / 1e6
    );
}

#[test]
fn a_transient_nodeip_configuration_failure_is_retried_and_the_boot_goes_on() {
    if !require_root("a_transient_nodeip_configuration_failure_is_retried_and_the_boot_goes_on") {
        return;
    }
    let node = node_boot();
    // A fault: a file where the CRI-O drop-in directory goes, so the first run's write fails
    // (a system error, exit 1 without retries); 4 s into the boot it is gone.
    let system = node.path("root/etc/systemd/system");
    fs::write(system.join("crio.service.d"), "").unwrap();
    fs::write(
        system.join("transient-fault-clear.service"),
        "[Unit]\nDescription=test: the fault goes away\nDefaultDependencies=no\n\
         [Service]\nType=oneshot\nRemainAfterExit=yes\n\
         ExecStart=/bin/sh -c 'sleep 4; rm /etc/systemd/system/crio.service.d'\n",
    )
    .unwrap();
    let wants = system.join("nodeip-configuration.service.wants");
    fs::create_dir_all(&wants).unwrap();
    std::os::unix::fs::symlink(
        "../transient-fault-clear.service",
        wants.join("transient-fault-clear.service"),
    )
    .unwrap();
    let r = node.boot("systemctl is-active -q kubelet.service");
    let ctx = context(&r);
    let unit = "nodeip-configuration.service";
    assert_eq!(r.prop(unit, "Result"), "success", "{ctx}");
    assert!(
        r.journal.contains("crio.service.d") && r.journal.contains("retrying in"),
        "the fault was not hit, or not retried\n{ctx}"
    );
    assert_eq!(r.prop(unit, "NRestarts"), "0", "{ctx}");
    assert_eq!(r.file("primary-ip"), node_address(1), "{ctx}");
    assert_eq!(
        r.prop("kubelet-dependencies.target", "ActiveState"),
        "active",
        "{ctx}"
    );
    assert_eq!(r.prop("kubelet.service", "ActiveState"), "active", "{ctx}");
    assert_eq!(r.file("kubelet-node-ip").trim(), node_address(1), "{ctx}");
    eprintln!(
        "nodeip-configuration retried the failed write and finished {:.1} s after it started",
        (r.usec(unit, "InactiveEnterTimestampMonotonic")
            - r.usec(unit, "InactiveExitTimestampMonotonic")) as f64
            / 1e6
    );
}

#[test]
fn the_kubelet_gate_applies_only_where_resolv_prepender_runs() {
    if !require_root("the_kubelet_gate_applies_only_where_resolv_prepender_runs") {
        return;
    }
    // A node where resolv-prepender is not enabled (a platform sharing the image). Masked, as
    // the harness's target would start a merely disabled unit.
    let node = node_boot();
    node.systemctl(&["mask", "resolv-prepender.service"]);
    let r = node.boot("systemctl is-active -q kubelet.service");
    let ctx = context(&r);
    assert_eq!(r.prop("kubelet.service", "ActiveState"), "active", "{ctx}");
    assert_eq!(
        r.prop("resolv-prepender.service", "ActiveState"),
        "inactive",
        "{ctx}"
    );
    assert!(r.file("done-flag").is_empty(), "{ctx}");
    assert!(
        r.journal
            .contains("not gating kubelet: resolv-prepender.service is not enabled"),
        "{ctx}"
    );
    drop(node);

    // Enabled but not configured (no base domain): its own start fails, kubelet still starts.
    let node = node_boot();
    fs::copy(
        shipped_config("resolv-prepender"),
        node.path("root/etc/resolv-prepender/config.toml"),
    )
    .unwrap();
    let r = node.boot("systemctl is-active -q kubelet.service");
    let ctx = context(&r);
    assert_eq!(r.prop("kubelet.service", "ActiveState"), "active", "{ctx}");
    assert_eq!(
        r.prop("resolv-prepender.service", "Result"),
        "exit-code",
        "{ctx}"
    );
    assert!(
        r.journal
            .contains("not gating kubelet: it is not configured (no base domain"),
        "{ctx}"
    );
}

#[test]
fn a_failed_ovs_configuration_keeps_the_uplink() {
    if !require_root("a_failed_ovs_configuration_keeps_the_uplink") {
        return;
    }
    let node = node_boot();
    node.nmstate("interfaces:\n- name: br-ex\n  type: ovs-bridge\n  bridge: [unclosed\n");
    let r = node.boot("systemctl is-failed -q ovs-configuration.service && sleep 2");
    let ctx = context(&r);
    let unit = "ovs-configuration.service";
    assert_eq!(r.prop(unit, "Result"), "exit-code", "{ctx}");
    assert_eq!(
        r.prop(unit, "ExecMainStatus"),
        "2",
        "bad input: exit 2\n{ctx}"
    );
    assert!(
        r.journal
            .lines()
            .any(|l| l.contains("ovs-configuration[") && l.contains("cluster.yml")),
        "the error names the file\n{ctx}"
    );
    assert_ne!(
        r.prop("kubelet-dependencies.target", "ActiveState"),
        "active",
        "kubelet's dependencies are not met\n{ctx}"
    );
    assert_ne!(r.prop("kubelet.service", "ActiveState"), "active", "{ctx}");
    assert!(
        carries(&r, "ens3", &node_address(1)),
        "the uplink keeps the node IP\n{ctx}"
    );
    assert!(default_via(&r, "ens3"), "{ctx}");
    assert!(!r.file("addr").contains("br-ex"), "no bridge\n{ctx}");
    assert!(r.file("ping").contains("ok"), "connectivity\n{ctx}");
}

#[test]
fn an_nmstate_file_builds_br_ex_under_the_hardened_unit() {
    if !require_root("an_nmstate_file_builds_br_ex_under_the_hardened_unit") {
        return;
    }
    let node = node_boot();
    node.nmstate(NMSTATE_BR_EX);
    let r = node.boot("systemctl is-active -q kubelet.service");
    let ctx = context(&r);
    // nmstate (as a library, with the unit's capabilities only, against OVS running
    // as its own user, with a read-only /usr and the syscall filter)
    // applied the file through NetworkManager.
    assert_eq!(
        r.prop("ovs-configuration.service", "Result"),
        "success",
        "{ctx}"
    );
    assert!(carries(&r, "br-ex", &node_address(1)), "{ctx}");
    assert!(default_via(&r, "br-ex"), "{ctx}");
    assert_eq!(
        fs::read_to_string(node.path("nmstate/openshift/applied")).unwrap_or_default(),
        NMSTATE_BR_EX,
        "recorded as applied\n{ctx}"
    );
    assert_eq!(r.prop("kubelet.service", "ActiveState"), "active", "{ctx}");
    // Upstream's place in the boot: nmstate-configuration.service builds br-ex after the node IP
    // is chosen and before network-online.target; ovs-configuration then has nothing to do.
    let nmstate_done = (
        "nmstate-configuration.service",
        "InactiveEnterTimestampMonotonic",
    );
    assert_eq!(r.prop(nmstate_done.0, "Result"), "success", "{ctx}");
    for (a, b, what) in [
        (
            (
                "nodeip-configuration.service",
                "InactiveEnterTimestampMonotonic",
            ),
            (nmstate_done.0, "InactiveExitTimestampMonotonic"),
            "after nodeip-configuration",
        ),
        (
            nmstate_done,
            ("network-online.target", "ActiveEnterTimestampMonotonic"),
            "before network-online.target",
        ),
        (
            nmstate_done,
            (
                "ovs-configuration.service",
                "InactiveExitTimestampMonotonic",
            ),
            "before ovs-configuration",
        ),
    ] {
        assert!(before(&r, a, b), "{what}: {a:?} <= {b:?}\n{ctx}");
    }
    assert!(
        r.journal.lines().any(
            |l| l.contains("nmstate-configuration[") && l.contains("applying the NMState file")
        ),
        "{ctx}"
    );
    assert!(
        r.journal
            .lines()
            .any(|l| l.contains("ovs-configuration[") && l.contains("Skipping: NMState owns br-ex")),
        "{ctx}"
    );
}

/// A keepalived.conf from the previous boot that would hold the API VIP on the uplink.
fn previous_boots_keepalived_conf(node: &NodeBoot) {
    fs::write(
        node.path("keepalived/keepalived.conf"),
        format!(
            "vrrp_instance boot_API_0 {{\n    state BACKUP\n    interface ens3\n    \
             virtual_router_id 13\n    priority 100\n    advert_int 1\n    \
             virtual_ipaddress {{\n        {API_VIP}/32\n    }}\n}}\n"
        ),
    )
    .unwrap();
}

/// keepalived.service enabled as its package's preset would (multi-user.target wants it).
fn enable_keepalived_package_unit(node: &NodeBoot) {
    let wants = node.path("root/etc/systemd/system/multi-user.target.wants");
    fs::create_dir_all(&wants).unwrap();
    std::os::unix::fs::symlink(
        "/usr/lib/systemd/system/keepalived.service",
        wants.join("keepalived.service"),
    )
    .unwrap();
}

#[test]
fn keepalived_never_starts_on_a_remote_worker_or_with_a_user_managed_lb() {
    if !require_root("keepalived_never_starts_on_a_remote_worker_or_with_a_user_managed_lb") {
        return;
    }
    // A remote worker: no VIP is in its network. The previous boot's file is there and the
    // package enabled keepalived.service; keepalived-monitor's Wants= still asks for it.
    let node = node_boot();
    previous_boots_keepalived_conf(&node);
    enable_keepalived_package_unit(&node);
    // Even with this boot's `rendered` marker forged (the monitor does not run here), the
    // remote-worker condition alone keeps keepalived from starting.
    let system = node.path("root/etc/systemd/system");
    fs::write(
        system.join("test-forged-marker.service"),
        "[Unit]\nDescription=test: a rendered marker keepalived-monitor did not write\n\
         Before=keepalived.service\n[Service]\nType=oneshot\nRemainAfterExit=yes\n\
         ExecStart=/bin/sh -c 'mkdir -p /run/keepalived && touch /run/keepalived/rendered'\n",
    )
    .unwrap();
    let wants = system.join("multi-user.target.wants");
    std::os::unix::fs::symlink(
        "../test-forged-marker.service",
        wants.join("test-forged-marker.service"),
    )
    .unwrap();
    fs::copy(
        shipped_config("nodeip-selector"),
        node.path("root/etc/nodeip-selector/config.toml"),
    )
    .unwrap();
    template(
        &node.path("root/etc/nodeip-selector/config.toml"),
        "ips = [\"203.0.113.5\", \"203.0.113.4\"]\nplatform = \"BareMetal\"\n",
    );
    let r = node.boot("systemctl is-active -q kubelet.service && sleep 5");
    let ctx = context(&r);
    assert_eq!(r.prop("kubelet.service", "ActiveState"), "active", "{ctx}");
    for unit in ["keepalived-monitor.service", "keepalived.service"] {
        assert_eq!(r.prop(unit, "ActiveState"), "inactive", "{unit}\n{ctx}");
    }
    let status = r.file("keepalived-status");
    assert!(
        status.contains("ConditionPathExists=!/run/nodeip-configuration/remote-worker was not met"),
        "{status}\n{ctx}"
    );
    assert!(!holds_vip(&r), "{ctx}");
    drop(node);

    // A cluster with a user-managed load balancer (upstream disables the keepalived pod).
    let node = node_boot();
    previous_boots_keepalived_conf(&node);
    enable_keepalived_package_unit(&node);
    // A top-level key: before the `[scripts.*]` tables the file ends with.
    let cfg = node.path("root/etc/keepalived-monitor/config.toml");
    let text = fs::read_to_string(&cfg).unwrap();
    fs::write(
        &cfg,
        text.replacen("\n[scripts.", "\nuser-managed-lb = true\n[scripts.", 1),
    )
    .unwrap();
    let r = node.boot("systemctl is-active -q kubelet.service && sleep 5");
    let ctx = context(&r);
    let monitor = "keepalived-monitor.service";
    assert_eq!(r.prop(monitor, "Result"), "success", "{ctx}");
    assert_eq!(r.prop(monitor, "ActiveState"), "inactive", "{ctx}");
    assert!(
        r.journal
            .contains("user-managed load balancer: keepalived is not used"),
        "{ctx}"
    );
    assert_eq!(
        r.prop("keepalived.service", "ActiveState"),
        "inactive",
        "{ctx}"
    );
    let status = r.file("keepalived-status");
    assert!(
        status.contains("ConditionPathExists=/run/keepalived/rendered was not met"),
        "{status}\n{ctx}"
    );
    assert!(!holds_vip(&r), "{ctx}");
}

#[test]
fn a_hung_keepalived_is_restarted() {
    if !require_root("a_hung_keepalived_is_restarted") {
        return;
    }
    let node = node_boot();
    // Once keepalived holds the VIP, its VRRP process stops (SIGSTOP): it keeps the VIP and
    // sends no more adverts, as a hung keepalived does. The monitor's liveness probe must
    // restart keepalived.service.
    let script = r#"
i=0; until { systemctl is-active -q keepalived.service && ip -br addr show br-ex | grep -q ' 198.51.100.5/'; } || [ $i -ge 180 ]; do sleep 0.5; i=$((i+1)); done
old=$(systemctl show -p MainPID --value keepalived.service)
echo "$old" > /harness-out/old-pid
pkill -STOP -P "$old"
i=0; until new=$(systemctl show -p MainPID --value keepalived.service); { [ "$new" != 0 ] && [ "$new" != "$old" ]; } || [ $i -ge 240 ]; do sleep 0.5; i=$((i+1)); done
echo "$new" > /harness-out/new-pid
i=0; until ip -br addr show br-ex | grep -q ' 198.51.100.5/' || [ $i -ge 60 ]; do sleep 0.5; i=$((i+1)); done
"#;
    let r = node.boot_with(script, Duration::from_secs(300));
    let ctx = context(&r);
    let (old, new) = (r.file("old-pid"), r.file("new-pid"));
    let pid = |s: &str| s.trim().parse::<u32>().unwrap_or(0);
    assert!(pid(&old) > 0, "keepalived ran\n{ctx}");
    assert!(
        pid(&new) > 0 && pid(&new) != pid(&old),
        "restarted: {old} -> {new}\n{ctx}"
    );
    assert!(
        r.journal.contains("failed 3 liveness probes in a row"),
        "{ctx}"
    );
    assert_eq!(
        r.prop("keepalived.service", "ActiveState"),
        "active",
        "{ctx}"
    );
    assert!(
        holds_vip(&r),
        "the restarted keepalived holds the VIP\n{ctx}"
    );
}

/// Upstream's dispatcher script named a node that has no static host name after the FQDN its
/// DHCPv6 server gave (static and transient); a node with a static name keeps it. dnsmasq hands
/// out `master-1.<zone>` by the uplink's MAC (DUID-LL, as MCO's NetworkManager defaults ask).
#[test]
fn a_dhcpv6_fqdn_names_only_a_node_without_a_static_name() {
    if !require_root("a_dhcpv6_fqdn_names_only_a_node_without_a_static_name") {
        return;
    }
    let mut node = node_boot();
    node.up.serve_dhcp6(&[(1, "master-1")]).unwrap();
    node.uplink_profile("method=dhcp\ndhcp-duid=ll\n");
    let fqdn = format!("master-1.{ZONE}");
    let leased = format!(
        "ip -6 addr | grep -q {} && systemctl is-active -q kubelet.service",
        node_address6(1)
    );

    // No /etc/hostname: the lease names the node.
    let r = node.boot(&format!(
        "{leased} && [ \"$(hostnamectl --static)\" = {fqdn} ]"
    ));
    let ctx = context(&r);
    assert!(
        r.file("addr").contains(&node_address6(1)),
        "no DHCPv6 lease\n{ctx}"
    );
    assert_eq!(r.file("static-hostname").trim(), fqdn, "{ctx}");
    assert_eq!(r.file("hostname").trim(), fqdn, "{ctx}");
    assert!(
        r.journal
            .contains(&format!("host name set to {fqdn} (static and transient)")),
        "{ctx}"
    );

    // A static name: the same lease changes nothing, and the daemon says why.
    fs::write(node.path("hostname"), "myhost\n").unwrap();
    let r = node.boot(&format!(
        "{leased} && journalctl -b -u resolv-prepender | grep -q 'the host name stays' && sleep 1"
    ));
    let ctx = context(&r);
    assert!(
        r.file("addr").contains(&node_address6(1)),
        "no DHCPv6 lease\n{ctx}"
    );
    assert!(
        r.journal.contains(&format!(
            "DHCPv6 gave the FQDN \"{fqdn}\"; the host name stays (static name \"myhost\")"
        )),
        "{ctx}"
    );
    assert_eq!(r.file("static-hostname").trim(), "myhost", "{ctx}");
    assert_eq!(r.file("hostname").trim(), "myhost", "{ctx}");
    assert_eq!(
        fs::read_to_string(node.path("hostname")).unwrap(),
        "myhost\n"
    );
}
