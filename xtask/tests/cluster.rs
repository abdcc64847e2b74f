//! The whole node, three times: three nodes on one machine network boot the four
//! daemons in unit order; every service on a node uses the IP nodeip-selector chose (also on the
//! nodes whose second NIC has the better default route), the VIPs are held once and fail over,
//! peer changes reload the others, and each node resolves the API through its own resolver.

use std::sync::{PoisonError, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

use integration::cluster::{API_VIP, Binaries, Cluster, INGRESS_VIP};
use integration::node::{PREFIX_LEN, ROUTER, ZONE, node_address, node_address6, node_mac};
use integration::ovs::kernel_datapath;
use integration::process::time_until;
use integration::real_kernel::{self, RealKernelNode};
use integration::require_root;

mod common;
use common::{PREBUILT, booted_cluster, workspace_binaries};

fn say(m: String) {
    eprintln!("{m}");
}

/// The real-kernel run has the machine to itself: two cores shared with two more clusters would
/// slow its guest past the scenario's own bounds (VIPs within 20 s), the other tests share.
static MACHINE: RwLock<()> = RwLock::new(());

fn share_machine() -> RwLockReadGuard<'static, ()> {
    MACHINE.read().unwrap_or_else(PoisonError::into_inner)
}

/// The scenario's test, which the real-kernel run starts inside its guest.
const SCENARIO: &str =
    "three_nodes_agree_on_their_ip_share_the_vips_and_resolve_through_themselves";

#[test]
fn three_nodes_agree_on_their_ip_share_the_vips_and_resolve_through_themselves() {
    if !require_root("three_nodes_agree_on_their_ip_share_the_vips") {
        return;
    }
    let _machine = share_machine();
    let bins = Binaries(workspace_binaries());
    let mut c = Cluster::create(&bins, &say).unwrap();
    let t0 = Instant::now();
    c.boot(&say).unwrap();
    eprintln!("three nodes booted in {:.1} s", t0.elapsed().as_secs_f64());

    for n in &c.nodes {
        let (ip, ip6) = (node_address(n.index), node_address6(n.index));
        let who = format!("node{}", n.index);
        assert_eq!(
            n.primary_ip(),
            ip,
            "{who}: {}",
            n.log_tail("nodeip-selector", 5)
        );
        assert_eq!(n.nodeip_file("ipv6").trim(), ip6, "{who}: dual-stack");
        let dropin = n.kubelet_dropin();
        assert!(
            dropin.contains(&format!("KUBELET_NODE_IP={ip}"))
                && dropin.contains(&format!("KUBELET_NODE_IPS={ip},{ip6}")),
            "{who}: {dropin}"
        );
        let br_ex = n.addresses("br-ex");
        assert!(
            br_ex.contains(&format!(" {ip}/{PREFIX_LEN}")) && br_ex.contains(&format!(" {ip6}/64")),
            "{who}: {br_ex}"
        );
        assert!(!n.addresses("ens3").contains(&ip), "{who}: moved off ens3");
        // On a real kernel as on a node: br-ex on the kernel's datapath (the bridge names no
        // type, so `system`), ens3 its port there.
        let datapath = n
            .node
            .ovs
            .vsctl(&["get", "bridge", "br-ex", "datapath_type"]);
        if kernel_datapath() {
            assert_eq!(datapath.as_deref().map(str::trim), Ok("\"\""), "{who}");
            let dp = n.node.ns.exec("ovs-dpctl", &["show"]).unwrap_or_default();
            assert!(
                dp.contains("system@ovs-system") && dp.contains(": ens3"),
                "{who}: {dp}"
            );
            eprintln!("{who}: br-ex on the kernel datapath\n{dp}");
        } else {
            assert_eq!(datapath.as_deref().map(str::trim), Ok("netdev"), "{who}");
        }
        let routes = n.default_routes();
        assert!(
            routes
                .lines()
                .next()
                .is_some_and(|l| l.contains("dev br-ex")),
            "{who}: br-ex has the best default route\n{routes}"
        );
        // Ready meant forwarding, proven by echo requests (the unit's CAP_NET_RAW): the gateway
        // answered one through ens3 before the change and through br-ex after it.
        let obc = n.log_tail("ovs-bridge-configurator", 100);
        assert!(
            obc.contains(&format!("gateway {ROUTER} answers (Echo) through ens3"))
                && obc.contains(&format!("gateway {ROUTER} answers through br-ex")),
            "{who}: {obc}"
        );
        let conf = n.keepalived_conf();
        assert!(
            conf.contains("interface br-ex") && conf.contains(&format!("unicast_src_ip {ip}")),
            "{who}: {conf}"
        );
        // resolv-prepender saw br-ex come up (wait-for-br-ex-up.service waits for this).
        assert!(
            n.node
                .view
                .run_dir()
                .join("nodeip-configuration/br-ex-up")
                .exists(),
            "{who}: br-ex-up"
        );
        // keepalived was started by the monitor's first render, as keepalived.service is.
        let monitor = n.log_tail("keepalived-monitor", 200);
        assert!(
            monitor.contains("keepalived.conf written and keepalived reloaded")
                && !monitor.contains("reload failed")
                && !monitor.contains("keepalived cannot be told"),
            "{who}: {monitor}"
        );
        assert!(
            n.keepalived_log(1).contains("stand-in: started keepalived"),
            "{who}: {}",
            n.keepalived_log(1)
        );
        let resolv = n.resolv_conf();
        assert_eq!(
            resolv.lines().find(|l| l.starts_with("nameserver")),
            Some(format!("nameserver {ip}").as_str()),
            "{who}: {resolv}"
        );
        // The upstream DNS has no API record: the answer comes from the node's resolver.
        let before = n.coredns_queries();
        let answer = n.getent(&format!("api.{ZONE}")).unwrap_or_default();
        assert!(answer.starts_with(API_VIP), "{who}: getent said {answer:?}");
        assert!(
            n.coredns_queries() > before,
            "{who}: its own resolver answered"
        );
    }
    // Nodes 2 and 3 have a lower-metric default route on eth1: upstream's trap.
    for i in [2, 3] {
        let routes = c.nodes[i - 1].default_routes();
        assert!(
            routes.contains("dev eth1 proto static metric 50"),
            "{routes}"
        );
    }

    let keepalived_logs = |c: &Cluster| -> String {
        c.nodes
            .iter()
            .map(|n| format!("--- node{} keepalived\n{}", n.index, n.keepalived_log(40)))
            .collect()
    };
    let api = c
        .wait_single_holder(API_VIP, Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{e}\n{}", keepalived_logs(&c)));
    c.wait_single_holder(INGRESS_VIP, Duration::from_secs(20))
        .unwrap_or_else(|e| panic!("{e}\n{}", keepalived_logs(&c)));

    // Failover: the API VIP holder's keepalived stops; another node holds the VIP within 4 s.
    let t = Instant::now();
    c.nodes[usize::from(api) - 1].stop_keepalived();
    assert!(
        time_until(Duration::from_secs(10), || {
            let h = c.holders(API_VIP);
            h.len() == 1 && h[0] != api
        })
        .is_some(),
        "API VIP held by {:?}",
        c.holders(API_VIP)
    );
    let moved = t.elapsed();
    eprintln!(
        "API VIP moved off node{api} in {:.2} s",
        moved.as_secs_f64()
    );
    assert!(moved <= Duration::from_secs(4), "{moved:?}");
    c.nodes[usize::from(api) - 1].start_keepalived().unwrap();

    // Removing node 3 from the peer list reloads the other two.
    c.set_peers(&[1, 2]).unwrap();
    for n in &c.nodes[..2] {
        // The restarted keepalived takes seconds to start under User-Mode Linux.
        let gone = time_until(
            Duration::from_secs(10) * integration::process::pace(),
            || !n.keepalived_conf().contains(&node_address(3)),
        );
        assert!(gone.is_some(), "node{}: {}", n.index, n.keepalived_conf());
        let reloaded = time_until(
            Duration::from_secs(5) * integration::process::pace(),
            || n.keepalived_log(200).contains("Reloading"),
        );
        assert!(
            reloaded.is_some(),
            "node{}: keepalived reloaded\n--- keepalived\n{}\n--- keepalived-monitor\n{}",
            n.index,
            n.keepalived_log(30),
            n.log_tail("keepalived-monitor", 15)
        );
    }
}

/// The scenario above on a real kernel (User-Mode Linux, as a node's: OVS's kernel
/// datapath, NetworkManager without the harness's switches, no healing of br-ex; see
/// `integration::ovs::kernel_datapath`). This test binary runs the scenario inside the guest,
/// which sees the checkout and the built binaries read-only; the scenario itself checks that
/// br-ex and ens3 are on `system@ovs-system`.
#[test]
fn three_nodes_boot_the_same_on_the_kernel_datapath() {
    if !real_kernel::require("three_nodes_boot_the_same_on_the_kernel_datapath") {
        return;
    }
    let _machine = MACHINE.write().unwrap_or_else(PoisonError::into_inner);
    workspace_binaries();
    let mut guest = RealKernelNode::boot_with_memory("cluster", "2G").unwrap();
    let exe = std::env::current_exe().unwrap();
    let t0 = Instant::now();
    let run = guest
        .run(
            &format!(
                "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin {PREBUILT}=1
                 cd {dir}
                 {exe} --exact {SCENARIO} --nocapture --test-threads 1 2>&1",
                dir = env!("CARGO_MANIFEST_DIR"),
                exe = exe.display(),
            ),
            Duration::from_secs(900),
        )
        .unwrap();
    eprintln!(
        "the scenario on the kernel datapath ({:.0} s in all):\n{}",
        t0.elapsed().as_secs_f64(),
        run.output
    );
    assert_eq!(run.status, 0, "{}", guest.diagnostics());
    assert!(
        run.output.contains("test result: ok. 1 passed")
            && run.output.matches("br-ex on the kernel datapath").count() == 3,
        "the scenario did not run on the kernel datapath"
    );
}

/// A small xorshift generator: the fault points vary per run, and a failing run prints the
/// seed to replay it with `FAULT_SEED`.
struct Rng(u64);

impl Rng {
    fn new() -> Rng {
        let seed = std::env::var("FAULT_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .subsec_nanos() as u64
                    | 1
            });
        eprintln!("FAULT_SEED={seed}");
        Rng(seed)
    }

    /// A duration in [lo, hi) milliseconds.
    fn ms(&mut self, lo: u64, hi: u64) -> Duration {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        Duration::from_millis(lo + self.0 % (hi - lo))
    }
}

/// SIGKILLs a child after `after` and reaps it; whether it was still running.
fn kill_after(mut child: std::process::Child, after: Duration) -> bool {
    std::thread::sleep(after);
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    running
}

#[test]
fn faults_converge_to_the_same_state() {
    if !require_root("faults_converge_to_the_same_state") {
        return;
    }
    let _machine = share_machine();
    let mut rng = Rng::new();
    let bins = Binaries(workspace_binaries());
    let mut c = Cluster::create(&bins, &say).unwrap();
    c.nodes[0].boot(&say).unwrap();
    // Node 2: NetworkManager restarted in the middle of ovs-bridge-configurator's apply. The
    // run fails (or finishes, if the restart came late); the next run converges.
    let n2 = &mut c.nodes[1];
    n2.start_prepender().unwrap();
    assert!(n2.run_nodeip_selector().unwrap().success());
    let mut apply = n2.spawn_oneshot("ovs-bridge-configurator").unwrap();
    let at = rng.ms(200, 1200);
    std::thread::sleep(at);
    n2.node.nm.bounce().unwrap();
    let first = apply.wait().unwrap();
    eprintln!(
        "NetworkManager restarted {at:?} into the apply; that run: {first}, saying:\n{}",
        n2.log_tail("ovs-bridge-configurator", 2)
    );
    n2.configure_ovs().unwrap();
    n2.boot_after_ovs(&say).unwrap();
    let n3 = &mut c.nodes[2];
    n3.start_prepender().unwrap();
    // nodeip-selector killed three times at random points of its run (each time on a node
    // with nothing chosen yet), then run to the end.
    let run_dir = n3.node.view.run_dir().join("nodeip-configuration");
    for _ in 0..3 {
        let _ = std::fs::remove_dir_all(&run_dir);
        let at = rng.ms(0, 20);
        let was = kill_after(n3.spawn_oneshot("nodeip-selector").unwrap(), at);
        eprintln!("nodeip-selector killed after {at:?} (running: {was})");
    }
    assert!(n3.run_nodeip_selector().unwrap().success());
    assert_eq!(n3.primary_ip(), node_address(3));

    // A malformed NMState file: one clear error (exit 2), the uplink keeps the node IP.
    n3.set_nmstate(Some("interfaces:\n- name: br-ex\n  type: [unclosed\n"))
        .unwrap();
    let o = n3.run_ovs_configuration().unwrap();
    let err = n3.log_tail("ovs-bridge-configurator", 3);
    assert_eq!(o.code(), Some(2), "{err}");
    assert!(
        err.lines()
            .last()
            .is_some_and(|l| l.contains("cluster.yml")),
        "{err}"
    );
    assert!(
        n3.addresses("ens3")
            .contains(&format!("{}/", node_address(3)))
    );
    assert!(
        n3.default_routes().contains("dev ens3"),
        "{}",
        n3.default_routes()
    );
    assert!(
        c.up.ns
            .exec("ping", &["-c1", "-W2", &node_address(3)])
            .is_ok()
    );
    let n3 = &mut c.nodes[2];
    n3.set_nmstate(None).unwrap();

    // ovs-bridge-configurator killed mid-apply; the next run converges.
    let at = rng.ms(300, 1500);
    let was = kill_after(n3.spawn_oneshot("ovs-bridge-configurator").unwrap(), at);
    eprintln!("ovs-bridge-configurator killed after {at:?} (running: {was})");
    n3.configure_ovs().unwrap();
    n3.boot_after_ovs(&say).unwrap();
    c.wait_single_holder(API_VIP, Duration::from_secs(20))
        .unwrap();

    // The reference state, once settled.
    std::thread::sleep(Duration::from_secs(1));
    let reference: Vec<String> = c.nodes.iter().map(|n| n.state()).collect();
    assert!(reference[2].contains(&format!("primary-ip={}", node_address(3))));
    assert!(reference[2].contains("interface br-ex"), "{}", reference[2]);

    // The long-running daemons killed at random points of their work on every node.
    let peers_all = [1, 2, 3];
    for i in 0..c.nodes.len() {
        let ns = c.nodes[i].node.ns.name().to_owned();
        // resolv-prepender: its output removed (it rewrites it), killed while at it.
        let _ = std::fs::remove_file(format!("/etc/netns/{ns}/resolv.conf"));
        std::thread::sleep(rng.ms(0, 40));
        c.nodes[i].kill_and_restart("resolv-prepender").unwrap();
        // keepalived-monitor: a peer change pending (debounce 500 ms), killed before, during or
        // after its write; the list is back to three when it restarts.
        c.set_peers(&[1, 2]).unwrap();
        std::thread::sleep(rng.ms(0, 900));
        c.set_peers(&peers_all).unwrap();
        c.nodes[i].kill_and_restart("keepalived-monitor").unwrap();
    }
    // NetworkManager restarted on node 2 while everything runs.
    c.nodes[1].node.nm.bounce().unwrap();

    for (n, want) in c.nodes.iter().zip(&reference) {
        let settled = time_until(Duration::from_secs(30), || n.state() == *want);
        assert!(
            settled.is_some(),
            "node{} differs:\n--- want\n{want}\n--- got\n{}",
            n.index,
            n.state()
        );
        assert_eq!(n.stray_files(), Vec::<String>::new(), "node{}", n.index);
    }
    c.wait_single_holder(API_VIP, Duration::from_secs(20))
        .unwrap();
}

/// One node rebooted 20 times in a row (NetworkManager restarted, /run emptied,
/// /etc, /var/lib and the OVS database kept) while the other two run: each boot ends in the
/// same node IP, br-ex on the same NIC with its MAC, and the same keepalived.conf and
/// resolv.conf. Node 2 is the one with the traps: a storage NIC with the better default route
/// and a NODEIP_HINT.
#[test]
fn twenty_reboots_of_one_node_change_nothing() {
    if !require_root("twenty_reboots_of_one_node_change_nothing") {
        return;
    }
    let _machine = share_machine();
    const REBOOTS: usize = 20;
    let (mut c, _) = booted_cluster();
    let quiet = |_: String| {};
    let n = &mut c.nodes[1];
    let identity = |n: &integration::cluster::ClusterNode| {
        let link = n
            .node
            .ns
            .ip(&["-br", "link", "show", "br-ex"])
            .unwrap_or_default();
        let ports = n
            .node
            .ovs
            .vsctl(&["list-ports", "br-ex"])
            .unwrap_or_default();
        // br-ex's IPv6 link-local address is left out: NetworkManager derives it (stable
        // privacy) from the profile's UUID, and ovs-if-br-ex is made anew each boot, as
        // configure-ovs makes it.
        let state: Vec<String> = n
            .state()
            .lines()
            .map(|l| {
                l.split(' ')
                    .filter(|w| !w.starts_with("fe80:"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        format!(
            "{}\n--- br-ex link\n{link}\n--- br-ex ports\n{ports}",
            state.join("\n")
        )
    };
    let reference = identity(n);
    assert!(reference.contains(&node_mac(2)), "{reference}");
    assert!(
        reference.ends_with("--- br-ex ports\nens3\n"),
        "{reference}"
    );
    let mut took = Vec::new();
    for reboot in 1..=REBOOTS {
        let t = Instant::now();
        let n = &mut c.nodes[1];
        n.reboot(&quiet)
            .unwrap_or_else(|e| panic!("reboot {reboot}: {e}"));
        took.push(t.elapsed().as_secs_f64());
        let settled = time_until(Duration::from_secs(30), || identity(n) == reference);
        assert!(
            settled.is_some(),
            "reboot {reboot}: node2 differs:\n--- want\n{reference}\n--- got\n{}",
            identity(n)
        );
        c.wait_single_holder(API_VIP, Duration::from_secs(20))
            .unwrap_or_else(|e| panic!("reboot {reboot}: {e}"));
    }
    // Each boot rebuilt br-ex from scratch (its /run marker was gone), as the first.
    let rebuilds = c.nodes[1]
        .log_tail("ovs-bridge-configurator", usize::MAX)
        .matches("first run of this boot")
        .count();
    assert_eq!(rebuilds, REBOOTS + 1);
    took.sort_by(f64::total_cmp);
    eprintln!(
        "{REBOOTS} reboots of node2, each identical; reboot to booted: median {:.1} s, max {:.1} s",
        took[REBOOTS / 2],
        took[REBOOTS - 1]
    );
}
