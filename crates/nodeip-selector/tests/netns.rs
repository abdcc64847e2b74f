//! The real binary against real kernel state in network namespaces.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use integration::{Netns, require_root};

const BIN: &str = env!("CARGO_BIN_EXE_nodeip-selector");

/// A namespace plus private hint file, config, run dir and systemd dir.
struct Node {
    ns: Netns,
    dir: tempfile::TempDir,
}

impl Node {
    fn new() -> Node {
        let node = Node {
            ns: Netns::new("nis").expect("netns"),
            dir: tempfile::tempdir().unwrap(),
        };
        fs::write(node.config(), "").unwrap();
        node
    }

    fn config(&self) -> PathBuf {
        self.dir.path().join("config.toml")
    }

    fn hint_file(&self) -> PathBuf {
        self.dir.path().join("nodeip-configuration")
    }

    fn run_dir(&self) -> PathBuf {
        self.dir.path().join("run")
    }

    fn systemd_dir(&self) -> PathBuf {
        self.dir.path().join("systemd")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = self.ns.command(BIN);
        c.args(args);
        for (flag, path) in [
            ("--config", self.config()),
            ("--hint-file", self.hint_file()),
            ("--run-dir", self.run_dir()),
            ("--systemd-dir", self.systemd_dir()),
        ] {
            c.arg(flag).arg(path);
        }
        c.env_remove("RUST_LOG");
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run nodeip-selector")
    }

    /// Runs an `ip -batch` script in the namespace (one command per line).
    fn ip(&self, script: &str) {
        self.ns.ip_batch(script).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.dir.path().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    /// Every file under the temp dir except the config, relative.
    fn written(&self) -> Vec<String> {
        fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
            for e in fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(base, &p, out);
                } else {
                    out.push(p.strip_prefix(base).unwrap().display().to_string());
                }
            }
        }
        let mut out = Vec::new();
        walk(self.dir.path(), self.dir.path(), &mut out);
        out.retain(|p| p != "config.toml" && p != "nodeip-configuration");
        out.sort();
        out
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// [`integration::topology::TWO_NIC_NODE`] in a fresh node.
fn two_nic_node() -> Node {
    let n = Node::new();
    integration::topology::two_nic_node(&n.ns).unwrap();
    n
}

#[test]
fn show_prints_only_the_primary_ip_and_follows_vips_over_default_routes() {
    if !require_root("show_prints_only_the_primary_ip") {
        return;
    }
    let n = two_nic_node();
    // Default-route path: eth1 has the lower metric.
    let o = n.run(&["show"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, b"203.0.113.10\n");
    // A VIP on the machine network wins; the IPv6 partner on eth0 is paired.
    let o = n.run(&["show", "--all", "192.0.2.100", "192.0.2.101"]);
    assert_eq!(stdout(&o), "192.0.2.10\n2001:db8:a::10\n");
    let o = n.run(&["show", "--all", "-6", "192.0.2.100"]);
    assert_eq!(stdout(&o), "2001:db8:a::10\n192.0.2.10\n");
    // --json carries addresses, source, interface and the explanation.
    let o = n.run(&["show", "--json", "192.0.2.100"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(
        v["addresses"],
        serde_json::json!(["192.0.2.10", "2001:db8:a::10"])
    );
    assert_eq!(
        (v["source"].as_str(), v["interface"].as_str()),
        (Some("vip"), Some("eth0"))
    );
    assert!(v["explanation"]["candidates"].as_array().unwrap().len() >= 5);
}

#[test]
fn hint_file_picks_the_machine_network_over_a_lower_metric_default_route() {
    if !require_root("hint_file_picks_the_machine_network") {
        return;
    }
    let n = two_nic_node();
    fs::write(n.hint_file(), "# admin hint\nNODEIP_HINT=192.0.2.1\n").unwrap();
    let o = n.run(&["show"]);
    assert_eq!(stdout(&o), "192.0.2.10\n", "{}", stderr(&o));
    // Hint equal to the node's own address: skipped like a VIP (as upstream), and explained.
    fs::write(n.hint_file(), "NODEIP_HINT=192.0.2.10\n").unwrap();
    assert_eq!(stdout(&n.run(&["show"])), "203.0.113.10\n");
    let o = n.run(&["explain"]);
    let text = stdout(&o);
    assert!(
        text.contains("! hint 192.0.2.10 is an address of eth0"),
        "{text}"
    );
    assert!(
        text.contains("is hint 192.0.2.10 itself (skipped)"),
        "{text}"
    );
}

#[test]
fn filters_labels_deprecated_link_local_and_other_tables() {
    if !require_root("filters_labels_deprecated_link_local") {
        return;
    }
    let n = Node::new();
    n.ns.nic("eth0").unwrap();
    n.ns.nic("veip1").unwrap();
    n.ip("addr add 198.51.100.200/24 dev eth0 label eth0:eip\n\
         addr add 198.51.100.5/24 dev eth0\n\
         addr add 2001:db8:b::1/64 dev eth0 nodad preferred_lft 0\n\
         addr add 2001:db8:b::9/64 dev eth0 nodad\n\
         addr add 198.51.100.1/24 dev veip1\n\
         route add default via 198.51.100.254 dev eth0 metric 10\n\
         route add default via 198.51.100.254 dev veip1 metric 1 table 100");
    let o = n.run(&["show", "--all"]);
    assert_eq!(
        stdout(&o),
        "198.51.100.5\n2001:db8:b::9\n",
        "{}",
        stderr(&o)
    );
    let text = stdout(&n.run(&["explain"]));
    assert!(
        text.contains("rejected: egress IP (label \"eth0:eip\")"),
        "{text}"
    );
    assert!(text.contains("rejected: deprecated"), "{text}");
    assert!(text.contains("rejected: link-local"), "{text}");
}

#[test]
fn full_length_ipv6_matches_a_vip_through_its_ra_route() {
    if !require_root("full_length_ipv6_matches_a_vip_through_its_ra_route") {
        return;
    }
    let n = Node::new();
    n.ns.nic("eth0").unwrap();
    n.ip("addr add 2001:db8:c::10/128 dev eth0 nodad\n\
         route add 2001:db8:c::/64 dev eth0 proto ra");
    let o = n.run(&["show", "2001:db8:c::100"]);
    assert_eq!(stdout(&o), "2001:db8:c::10\n", "{}", stderr(&o));
    // The same route learnt statically does not count: nothing matches, no default route.
    n.ip("route replace 2001:db8:c::/64 dev eth0 proto static");
    let o = n.run(&["show", "2001:db8:c::100"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim_end().lines().last(),
        Some("nodeip-selector: Failed to find node IP: no suitable node IP found")
    );
}

#[test]
fn ipv4_mapped_address_is_printed_as_a_dotted_quad_refused_by_the_bind_test_and_loses_to_real_ipv6()
{
    if !require_root("ipv4_mapped_address") {
        return;
    }
    let n = Node::new();
    n.ns.nic("eth0").unwrap();
    n.ip("addr add ::ffff:198.51.100.9/128 dev eth0 nodad\n\
         route add default via 2001:db8:d::1 dev eth0 onlink");
    // Chosen, printed as Go prints it, but not bindable: its text is an IPv4 address this node
    // does not have, so crio could not bind it either (OCPBUGS-10695). The bind test refuses it.
    let o = n.run(&["show", "-6"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("198.51.100.9 is not usable yet: cannot bind 198.51.100.9"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&n.run(&["explain", "-6"])).contains("*  eth0 (3)   198.51.100.9/128"));
    n.ip("addr add 2001:db8:d::9/64 dev eth0 nodad");
    assert_eq!(stdout(&n.run(&["show", "-6"])), "2001:db8:d::9\n");
}

#[test]
fn multipath_defaults_are_ignored_and_equal_metrics_go_to_the_lowest_ifindex() {
    if !require_root("multipath_defaults_are_ignored") {
        return;
    }
    let n = Node::new();
    n.ns.nic("eth0").unwrap();
    n.ns.nic("eth1").unwrap();
    n.ip("addr add 192.0.2.10/24 dev eth0\n\
         addr add 198.51.100.10/24 dev eth1\n\
         route add default nexthop via 192.0.2.1 dev eth0 nexthop via 198.51.100.1 dev eth1");
    let o = n.run(&["show"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let text = stdout(&n.run(&["explain"]));
    assert!(
        text.contains("! multipath default route (metric 0) is ignored"),
        "{text}"
    );

    // Equal metrics on two links: the lower ifindex wins, whatever the address bytes.
    n.ip("route del default");
    n.ip("route add default via 198.51.100.1 dev eth1 metric 7\n\
         route append default via 192.0.2.1 dev eth0 metric 7");
    let (i0, i1) = (n.ns.ifindex("eth0").unwrap(), n.ns.ifindex("eth1").unwrap());
    let want = if i0 < i1 {
        "192.0.2.10\n"
    } else {
        "198.51.100.10\n"
    };
    assert_eq!(stdout(&n.run(&["show"])), want);
}

#[test]
fn set_writes_byte_exact_files_once_per_boot() {
    if !require_root("set_writes_byte_exact_files_once_per_boot") {
        return;
    }
    let n = two_nic_node();
    let o = n.run(&["set", "192.0.2.100", "192.0.2.101"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, b"", "set prints nothing on stdout");
    assert_eq!(
        n.written(),
        [
            "run/ipv4",
            "run/ipv6",
            "run/primary-ip",
            "systemd/crio.service.d/20-nodenet.conf",
            "systemd/kubelet.service.d/20-nodenet.conf"
        ]
    );
    assert_eq!(n.read("run/primary-ip"), "192.0.2.10");
    assert_eq!(n.read("run/ipv4"), "192.0.2.10");
    assert_eq!(n.read("run/ipv6"), "2001:db8:a::10");
    assert_eq!(
        n.read("systemd/kubelet.service.d/20-nodenet.conf"),
        "[Service]\nEnvironment=\"KUBELET_NODE_IP=192.0.2.10\" \"KUBELET_NODE_IPS=192.0.2.10,2001:db8:a::10\"\n"
    );
    assert_eq!(
        n.read("systemd/crio.service.d/20-nodenet.conf"),
        "[Service]\nEnvironment=\"CONTAINER_STREAM_ADDRESS=192.0.2.10\"\n"
    );
    use std::os::unix::fs::MetadataExt;
    let meta = fs::metadata(n.run_dir().join("primary-ip")).unwrap();
    assert_eq!(meta.mode() & 0o777, 0o644);

    // Same boot, network changed: nothing is touched.
    n.ip("addr del 192.0.2.10/24 dev eth0");
    let o = n.run(&["set", "192.0.2.100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no need for new configuration"),
        "{}",
        stderr(&o)
    );
    assert_eq!(n.read("run/primary-ip"), "192.0.2.10");
    assert_eq!(
        fs::metadata(n.run_dir().join("primary-ip"))
            .unwrap()
            .mtime_nsec(),
        meta.mtime_nsec()
    );
}

#[test]
fn set_marks_a_remote_worker_on_bare_metal_only() {
    if !require_root("set_marks_a_remote_worker") {
        return;
    }
    let n = two_nic_node();
    let o = n.run(&["set", "-p", "BareMetal", "198.51.100.100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        n.read("run/remote-worker"),
        "node ip doesn't match any vip, don't run keepalived"
    );
    assert!(
        n.read("systemd/kubelet.service.d/20-nodenet.conf")
            .ends_with("Environment=\"CUSTOM_KUBELET_LABELS=node.openshift.io/remote-worker\"\n")
    );
    assert_eq!(n.read("run/primary-ip"), "203.0.113.10");

    let other = two_nic_node();
    for args in [
        &["set", "-p", "BareMetal", "-l", "198.51.100.100"][..],
        &["set", "-p", "VSphere", "198.51.100.100"],
    ] {
        let _ = fs::remove_dir_all(other.run_dir());
        assert!(other.run(args).status.success());
        assert!(!other.run_dir().join("remote-worker").exists(), "{args:?}");
        assert!(
            !other
                .read("systemd/kubelet.service.d/20-nodenet.conf")
                .contains("remote-worker")
        );
    }
}

#[test]
fn bad_input_exits_2_and_writes_nothing() {
    if !require_root("bad_input_exits_2_and_writes_nothing") {
        return;
    }
    let n = two_nic_node();
    let o = n.run(&["set", "192.0.2.100", "192.0.2.1000"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "nodeip-selector: invalid IP address \"192.0.2.1000\" in argument 2\n"
    );
    fs::write(n.hint_file(), "NODEIP_HINT=eth0\n").unwrap();
    let o = n.run(&["set", "-r"]);
    assert_eq!(o.status.code(), Some(2), "bad input is not retried");
    assert!(
        stderr(&o).contains("invalid IP address \"eth0\" in NODEIP_HINT"),
        "{}",
        stderr(&o)
    );
    fs::write(n.hint_file(), "").unwrap();
    fs::write(n.config(), "prefer-ipv6 = true\nbogus = 1\n").unwrap();
    let o = n.run(&["set"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("line 2") && stderr(&o).contains("unknown field `bogus`"),
        "{}",
        stderr(&o)
    );
    assert_eq!(n.written(), Vec::<String>::new());

    // No address at all, no retry: exit 1, nothing written.
    let empty = Node::new();
    let o = empty.run(&["set"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(empty.written(), Vec::<String>::new());
}

/// Spawns `args` in the background; returns the child and its start time.
fn spawn(n: &Node, args: &[&str]) -> (std::process::Child, Instant) {
    let child = n
        .command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    (child, Instant::now())
}

fn wait_output(child: std::process::Child, limit: Duration) -> Output {
    let pid = child.id();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(limit);
        let _ = Command::new("kill").arg(pid.to_string()).status();
    });
    drop(killer);
    child.wait_with_output().unwrap()
}

#[test]
fn retry_is_woken_by_the_network_change_not_the_backoff_timer() {
    if !require_root("retry_is_woken_by_the_network_change") {
        return;
    }
    let n = Node::new();
    n.ns.nic("eth0").unwrap();
    let (child, start) = spawn(&n, &["show", "-r"]);
    // Attempt 1 finds nothing and waits 2 s; attempt 2 at ~2 s waits 4 s (until ~6 s).
    std::thread::sleep(Duration::from_millis(3000));
    n.ip("addr add 192.0.2.10/24 dev eth0\n\
         route add default via 192.0.2.1 dev eth0");
    let changed = start.elapsed();
    let o = wait_output(child, Duration::from_secs(20));
    let done = start.elapsed();
    assert_eq!(stdout(&o), "192.0.2.10\n", "{}", stderr(&o));
    assert!(stderr(&o).contains("retrying in 2s"), "{}", stderr(&o));
    // Woken by netlink, well before the 6 s timer.
    assert!(
        done < changed + Duration::from_millis(1500),
        "changed at {changed:?}, done at {done:?}"
    );
}

#[test]
fn retry_waits_for_dad_before_choosing_a_tentative_ipv6_primary() {
    if !require_root("retry_waits_for_dad") {
        return;
    }
    let n = Node::new();
    n.ns.nic("eth0").unwrap();
    // DAD runs on the carrier-up veth: the address stays tentative for about a second.
    n.ip("addr add 2001:db8:e::10/64 dev eth0\n\
         route add default via 2001:db8:e::1 dev eth0");
    let o = n.run(&["show", "-6"]);
    if o.status.success() {
        panic!(
            "DAD finished before the first attempt; the test could not observe it: {}",
            stdout(&o)
        );
    }
    assert!(stderr(&o).contains("still tentative"), "{}", stderr(&o));
    let o = n.run(&["set", "-6", "-r"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("still tentative"), "{}", stderr(&o));
    assert_eq!(n.read("run/primary-ip"), "2001:db8:e::10");
}

#[test]
fn dual_stack_waits_for_the_second_family() {
    if !require_root("dual_stack_waits_for_the_second_family") {
        return;
    }
    let n = Node::new();
    n.ns.nic("eth0").unwrap();
    n.ip("addr add 192.0.2.10/24 dev eth0\n\
         route add default via 192.0.2.1 dev eth0");
    // The VIPs hold both families, which implies --dual-stack.
    let (child, _) = spawn(&n, &["set", "-r", "192.0.2.100", "2001:db8:f::100"]);
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        !n.run_dir().join("primary-ip").exists(),
        "wrote config before IPv6 appeared"
    );
    n.ip("addr add 2001:db8:f::10/64 dev eth0 nodad");
    let o = wait_output(child, Duration::from_secs(20));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("only one address family found"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        (n.read("run/ipv4"), n.read("run/ipv6")),
        ("192.0.2.10".into(), "2001:db8:f::10".into())
    );
}

/// upstream's configure-ip-forwarding.sh: forwarding on the interface holding primary-ip (both
/// families), nothing elsewhere; a clear error without the file or without such an interface.
/// Without VIPs (vSphere UPI, whose upstream unit has no such step) it changes nothing.
#[test]
fn enable_forwarding_turns_it_on_for_the_node_ip_interface_only() {
    if !require_root("enable_forwarding_turns_it_on_for_the_node_ip_interface_only") {
        return;
    }
    let n = two_nic_node();
    let sysctl = |key: &str| n.ns.exec("sysctl", &["-n", key]).unwrap().trim().to_owned();
    let forwarding_keys = [
        "net.ipv4.conf.eth0.forwarding",
        "net.ipv6.conf.eth0.forwarding",
        "net.ipv4.conf.eth1.forwarding",
        "net.ipv6.conf.eth1.forwarding",
    ];
    // No VIPs in the config (MCO's vSphere UPI render): a no-op, even with a node IP.
    assert!(n.run(&["set"]).status.success());
    let o = n.run(&["enable-forwarding"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("no VIPs configured"), "{}", stderr(&o));
    for key in forwarding_keys {
        assert_eq!(sysctl(key), "0", "{key} without VIPs");
    }
    // With VIPs, as MCO's IPI render writes them.
    fs::write(n.config(), "ips = [\"192.0.2.100\", \"192.0.2.101\"]\n").unwrap();
    fs::remove_dir_all(n.run_dir()).unwrap();
    let o = n.run(&["enable-forwarding"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("primary-ip is missing or empty"),
        "{}",
        stderr(&o)
    );
    assert!(n.run(&["set"]).status.success());
    for key in [
        "net.ipv4.conf.eth0.forwarding",
        "net.ipv6.conf.eth0.forwarding",
    ] {
        assert_eq!(sysctl(key), "0", "{key} before");
    }
    let o = n.run(&["enable-forwarding"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("IP forwarding enabled on eth0"),
        "{}",
        stderr(&o)
    );
    for key in [
        "net.ipv4.conf.eth0.forwarding",
        "net.ipv6.conf.eth0.forwarding",
    ] {
        assert_eq!(sysctl(key), "1", "{key}");
    }
    for key in [
        "net.ipv4.conf.eth1.forwarding",
        "net.ipv6.conf.eth1.forwarding",
    ] {
        assert_eq!(sysctl(key), "0", "{key}: not the node-IP interface");
    }
    // The node IP is gone from every interface: one clear error naming it and the file.
    n.ip("addr del 192.0.2.10/24 dev eth0");
    let o = n.run(&["enable-forwarding"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("no interface holds the node IP 192.0.2.10 (from ")
            && err.contains("primary-ip)"),
        "{err}"
    );
}
