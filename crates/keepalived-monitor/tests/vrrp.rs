//! keepalived-monitor with real keepalived on three nodes sharing one L2 segment.

use std::fs;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use integration::keepalived::{Keepalived, PASSING_SCRIPTS, holds};
use integration::process::wait_for;
use integration::{Netns, require_root, scratch_dir};

mod common;
use common::{http_ok, peer_list};

const BIN: &str = env!("CARGO_BIN_EXE_keepalived-monitor");
const API_VIP: &str = "192.0.2.200";

struct NodeUnderTest {
    ns: Netns,
    dir: PathBuf,
    monitor: Option<Child>,
    keepalived: Option<Keepalived>,
}

impl NodeUnderTest {
    fn output(&self) -> PathBuf {
        self.dir.join("keepalived.conf")
    }

    fn conf(&self) -> String {
        fs::read_to_string(self.output()).unwrap_or_default()
    }

    fn monitor_log(&self) -> String {
        fs::read_to_string(self.dir.join("monitor.log")).unwrap_or_default()
    }

    fn keepalived_log(&self) -> String {
        fs::read_to_string(self.dir.join("ka/keepalived.log")).unwrap_or_default()
    }
}

impl Drop for NodeUnderTest {
    fn drop(&mut self) {
        if let Some(mut m) = self.monitor.take() {
            let _ = m.kill();
            let _ = m.wait();
        }
    }
}

struct Cluster {
    nodes: Vec<NodeUnderTest>,
    _segment: Netns,
    peers: PathBuf,
    _dir: tempfile::TempDir,
}

fn address(i: usize) -> String {
    format!("192.0.2.1{i}")
}

/// `n` master nodes; `extra` is appended to each node's settings.
fn cluster(n: usize, extra: &str) -> Cluster {
    let dir = scratch_dir("kam").unwrap();
    let segment = Netns::new("kam-br").unwrap();
    segment.bridge("br0").unwrap();
    let peers = dir.path().join("peers.toml");
    let all: Vec<String> = (1..=n).map(address).collect();
    fs::write(
        &peers,
        peer_list(&all.iter().map(String::as_str).collect::<Vec<_>>()),
    )
    .unwrap();
    let mut nodes = Vec::new();
    for i in 1..=n {
        let ns = Netns::new(&format!("kam{i}")).unwrap();
        let port = format!("p{i}");
        ns.veth_to("eth0", &segment, &port).unwrap();
        segment
            .ip(&["link", "set", &port, "master", "br0"])
            .unwrap();
        ns.addr("eth0", &format!("{}/24", address(i)), &[]).unwrap();
        let d = dir.path().join(format!("n{i}"));
        fs::create_dir_all(d.join("run")).unwrap();
        fs::write(d.join("run/ipv4"), address(i)).unwrap();
        let config = format!(
            "cluster-name = \"hx\"\nrole = \"master\"\napi-vips = [\"{API_VIP}\"]\ningress-vips = [\"192.0.2.201\"]\n\
             output = \"{out}\"\nreload = \"pidfile\"\npid-file = \"{d}/ka/keepalived.pid\"\ndebounce-ms = 300\n\
             run-dir = \"{d}/run\"\nkeepalived-dir = \"{d}\"\npeer-source = \"file\"\npeers-file = \"{peers}\"\n{extra}\n{PASSING_SCRIPTS}",
            out = d.join("keepalived.conf").display(),
            d = d.display(),
            peers = peers.display(),
        );
        fs::write(d.join("config.toml"), config).unwrap();
        nodes.push(NodeUnderTest {
            ns,
            dir: d,
            monitor: None,
            keepalived: None,
        });
    }
    Cluster {
        nodes,
        _segment: segment,
        peers,
        _dir: dir,
    }
}

fn start_monitor(n: &mut NodeUnderTest) {
    let log = fs::File::create(n.dir.join("monitor.log")).unwrap();
    let child =
        n.ns.command(BIN)
            .args(["run", "--config"])
            .arg(n.dir.join("config.toml"))
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
    n.monitor = Some(child);
}

/// Every node's monitor, then (once it rendered) its keepalived.
fn start_all(c: &mut Cluster) {
    for n in &mut c.nodes {
        start_monitor(n);
    }
    for n in &mut c.nodes {
        assert!(
            wait_for(Duration::from_secs(10), || n
                .conf()
                .contains("vrrp_instance hx_API_0")),
            "{}",
            n.monitor_log()
        );
        n.keepalived = Some(Keepalived::start_file(&n.ns, &n.dir.join("ka"), &n.output()).unwrap());
    }
}

#[test]
fn three_nodes_hold_the_vip_once_fail_over_follow_moves_and_peer_changes() {
    if !require_root("three_nodes_hold_the_vip_once") {
        return;
    }
    let mut c = cluster(3, "");
    start_all(&mut c);
    let holders = |c: &Cluster| {
        c.nodes
            .iter()
            .filter(|n| holds(&n.ns, "eth0", API_VIP) || holds(&n.ns, "br-ex", API_VIP))
            .count()
    };
    let holder = |c: &Cluster| {
        c.nodes
            .iter()
            .position(|n| holds(&n.ns, "eth0", API_VIP) || holds(&n.ns, "br-ex", API_VIP))
    };
    assert!(
        wait_for(Duration::from_secs(10), || holders(&c) == 1),
        "the API VIP lands on one master"
    );
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(holders(&c), 1, "exactly one holder");

    // The holder's keepalived stops: the VIP moves within 4 s.
    let h = holder(&c).unwrap();
    let t = Instant::now();
    c.nodes[h].keepalived.as_mut().unwrap().stop();
    assert!(
        wait_for(Duration::from_secs(4), || holder(&c)
            .is_some_and(|x| x != h)),
        "VIP moved within 4 s"
    );
    eprintln!("failover took {:?}", t.elapsed());

    // A node's address moves from eth0 to a bridge (as onto br-ex): keepalived follows it.
    let m = (h + 1) % 3;
    let n = &c.nodes[m];
    let reloads = || {
        n.keepalived_log().matches("Reload finished").count()
            + n.keepalived_log().matches("Reloading").count()
    };
    let before = reloads();
    let cidr = format!("{}/24", address(m + 1));
    n.ns.ip_batch(&format!(
        "link add br-ex type bridge\nlink set br-ex up\nlink set eth0 master br-ex\naddr del {cidr} dev eth0\naddr add {cidr} dev br-ex\n"
    ))
    .unwrap();
    let t = Instant::now();
    assert!(
        wait_for(Duration::from_secs(5), || n
            .conf()
            .contains("interface br-ex")),
        "{}",
        n.monitor_log()
    );
    assert!(
        wait_for(Duration::from_secs(5), || reloads() > before),
        "keepalived reloaded: {}",
        n.keepalived_log()
    );
    eprintln!("address move -> keepalived reloaded in {:?}", t.elapsed());

    // The peer list changes: every node re-renders and reloads.
    let counts: Vec<usize> = c
        .nodes
        .iter()
        .map(|n| n.monitor_log().matches("keepalived reloaded").count())
        .collect();
    fs::write(
        &c.peers,
        peer_list(&[&address(1), &address(2), &address(3), "192.0.2.14"]),
    )
    .unwrap();
    for (k, (n, before)) in c.nodes.iter().zip(counts).enumerate() {
        assert!(
            wait_for(Duration::from_secs(5), || n
                .conf()
                .contains("        192.0.2.14\n")),
            "{}",
            n.monitor_log()
        );
        if k == h {
            continue; // its keepalived was stopped above: written, nothing to reload
        }
        let reloaded = || n.monitor_log().matches("keepalived reloaded").count() > before;
        assert!(
            wait_for(Duration::from_secs(5), reloaded),
            "{}",
            n.monitor_log()
        );
    }
}

#[test]
fn a_candidate_keepalived_rejects_never_reaches_the_live_file() {
    if !require_root("a_candidate_keepalived_rejects") {
        return;
    }
    let broken = "[scripts.chk_mcs]\ncommand = \"/nonexistent/chk_mcs.sh\"\ninterval = 2\nweight = 3\nrise = 3\nfall = 3\n";
    let mut c = cluster(2, "");
    // Replace the override of chk_mcs with a script that does not exist.
    let cfg = c.nodes[0].dir.join("config.toml");
    let text = fs::read_to_string(&cfg).unwrap();
    let start = text.find("[scripts.chk_mcs]").unwrap();
    let end = text[start..].find("[scripts.chk_ingress]").unwrap() + start;
    fs::write(&cfg, format!("{}{broken}{}", &text[..start], &text[end..])).unwrap();
    let n = &mut c.nodes[0];
    start_monitor(n);
    assert!(
        wait_for(Duration::from_secs(10), || n
            .monitor_log()
            .contains("rejected the candidate")),
        "{}",
        n.monitor_log()
    );
    assert!(n.monitor_log().contains("the live configuration stays"));
    assert!(!n.output().exists(), "nothing written");
    let o =
        n.ns.command(BIN)
            .args(["check", "--config"])
            .arg(&cfg)
            .output()
            .unwrap();
    assert_ne!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stderr).contains("keepalived -t rejected the candidate"));
}

#[test]
fn vr_ids_prints_upstreams_lines() {
    let o = Command::new(BIN)
        .args(["vr-ids", "ostest"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "APIVirtualRouterID: 14\nIngressVirtualRouterID: 93\n"
    );
    assert_eq!(
        Command::new(BIN)
            .args(["vr-ids", ""])
            .output()
            .unwrap()
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn the_socket_method_sends_reload() {
    if !require_root("the_socket_method_sends_reload") {
        return;
    }
    let mut c = cluster(2, "");
    let n = &mut c.nodes[0];
    let socket = n.dir.join("keepalived.sock");
    let messages = record_socket(&socket);
    let cfg = n.dir.join("config.toml");
    let text = fs::read_to_string(&cfg).unwrap().replace(
        "reload = \"pidfile\"",
        &format!(
            "reload = \"socket\"\ncontrol-socket = \"{}\"",
            socket.display()
        ),
    );
    fs::write(&cfg, text).unwrap();
    start_monitor(n);
    let (_, got) = messages
        .recv_timeout(Duration::from_secs(15))
        .expect("the first render reloads over the socket");
    assert_eq!(got, "reload\n");
    assert!(n.conf().contains("vrrp_instance hx_API_0"));
}

/// keepalived.service's `ExecStartPre=`: VIPs a crashed keepalived left are removed, those a
/// running keepalived holds are not.
#[test]
fn remove_stale_vips_spares_a_running_keepalived() {
    if !require_root("remove_stale_vips_spares_a_running_keepalived") {
        return;
    }
    let mut c = cluster(2, "");
    let remove = |n: &NodeUnderTest| {
        let out =
            n.ns.command(BIN)
                .args(["remove-stale-vips", "--config"])
                .arg(n.dir.join("config.toml"))
                .env("RUST_LOG", "info")
                .output()
                .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // A crashed keepalived left the VIP behind (BZ 1931505).
    c.nodes[0]
        .ns
        .addr("eth0", &format!("{API_VIP}/32"), &[])
        .unwrap();
    let log = remove(&c.nodes[0]);
    assert!(!holds(&c.nodes[0].ns, "eth0", API_VIP), "{log}");
    assert!(
        log.contains(&format!("removing stale VIP {API_VIP}")),
        "{log}"
    );
    // A running keepalived's VIP is live.
    start_all(&mut c);
    let holder = |c: &Cluster| c.nodes.iter().position(|n| holds(&n.ns, "eth0", API_VIP));
    assert!(wait_for(Duration::from_secs(10), || holder(&c).is_some()));
    let h = holder(&c).unwrap();
    let log = remove(&c.nodes[h]);
    assert!(
        log.contains("a keepalived runs in this network namespace"),
        "{log}"
    );
    assert!(holds(&c.nodes[h].ns, "eth0", API_VIP), "{log}");
}

#[test]
fn flapping_inputs_do_not_cause_a_reload_storm() {
    if !require_root("flapping_inputs_do_not_cause_a_reload_storm") {
        return;
    }
    let mut c = cluster(2, "");
    let n = &mut c.nodes[0];
    start_monitor(n);
    assert!(wait_for(Duration::from_secs(5), || n
        .monitor_log()
        .contains("keepalived.conf written")));
    let writes = || n.monitor_log().matches("keepalived.conf written").count();
    let before = writes();
    // The peer list flaps every 100 ms for 2 s (debounce 300 ms): nothing is applied meanwhile.
    for k in 0..20 {
        let list = if k % 2 == 0 {
            peer_list(&[&address(1), &address(2), "192.0.2.14"])
        } else {
            peer_list(&[&address(1), &address(2)])
        };
        fs::write(&c.peers, list).unwrap();
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(800));
    let applied = writes() - before;
    assert!(
        applied <= 1,
        "{applied} writes while flapping:\n{}",
        n.monitor_log()
    );
}

/// CPU time (user + system, in clock ticks) a process has used so far.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

#[test]
fn an_idle_monitor_sleeps() {
    if !require_root("an_idle_monitor_sleeps") {
        return;
    }
    // One node alone in the peer list: its candidate is refused (split-brain rule), so nothing
    // is ever written and the monitor has nothing to do but wait for changes.
    let mut c = cluster(1, "");
    let n = &mut c.nodes[0];
    start_monitor(n);
    assert!(wait_for(Duration::from_secs(5), || n
        .monitor_log()
        .contains("split-brain")));
    let pid = n.monitor.as_ref().unwrap().id();
    let before = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(2));
    let used = cpu_ticks(pid) - before;
    // 100 ticks per second: a busy loop uses ~200 here, a waiting daemon 0.
    assert!(
        used <= 10,
        "{used} ticks of CPU in 2 s idle\n{}",
        n.monitor_log()
            .lines()
            .take(5)
            .collect::<Vec<_>>()
            .join("\n")
    );
    // Once per input change (the link's IPv6 address settling is one), not once per loop turn:
    // a busy loop logged thousands here.
    let refusals = n.monitor_log().matches("split-brain").count();
    assert!(refusals <= 3, "{refusals} refusals logged");
}

/// Every message written to a control socket, with when it arrived.
fn record_socket(path: &std::path::Path) -> std::sync::mpsc::Receiver<(Instant, String)> {
    let listener = std::os::unix::net::UnixListener::bind(path).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let mut got = String::new();
            if std::io::Read::read_to_string(&mut conn.unwrap(), &mut got).is_err()
                || tx.send((Instant::now(), got)).is_err()
            {
                return;
            }
        }
    });
    rx
}

#[test]
fn bootstrap_watchdog_stops_keepalived_when_the_local_api_goes_and_starts_it_again() {
    if !require_root("bootstrap_watchdog") {
        return;
    }
    let mut c = cluster(1, "");
    let n = &mut c.nodes[0];
    let socket = n.dir.join("keepalived.sock");
    let messages = record_socket(&socket);
    let cfg = n.dir.join("config.toml");
    let text = fs::read_to_string(&cfg)
        .unwrap()
        .replace("role = \"master\"", "role = \"bootstrap\"\napi-port = 6443")
        .replace(
            "reload = \"pidfile\"",
            &format!(
                "reload = \"socket\"\ncontrol-socket = \"{}\"",
                socket.display()
            ),
        );
    fs::write(&cfg, text).unwrap();
    n.ns.ip(&["link", "set", "lo", "up"]).unwrap();
    let api_listener =
        n.ns.run_in(|| std::net::TcpListener::bind("127.0.0.1:6443"))
            .unwrap()
            .unwrap();
    let api =
        integration::apiserver::FakeApiServer::start_on(&n.dir, vec![], api_listener).unwrap();
    start_monitor(n);
    let next = |within: u64| messages.recv_timeout(Duration::from_secs(within));
    let (_, first) = next(15).expect("the first render reloads keepalived");
    assert_eq!(first, "reload\n", "{}", n.monitor_log());
    // The watchdog starts watching once /readyz first answers.
    assert!(
        wait_for(Duration::from_secs(10), || n
            .monitor_log()
            .contains("watching https://localhost:6443/readyz")),
        "{}",
        n.monitor_log()
    );

    // Ironic answering keeps the VIP on the bootstrap while the API is down.
    // Ironic: any HTTP response counts.
    let ironic = http_ok(&n.ns, "127.0.0.1:6385", Duration::from_secs(8));
    api.set_ready(false);
    assert!(
        next(7).is_err(),
        "Ironic up: keepalived keeps running\n{}",
        n.monitor_log()
    );
    ironic.join().unwrap();

    // Both down: keepalived stops after five consecutive failures (about 5 s), once.
    let down = Instant::now();
    let (at, msg) = next(10)
        .unwrap_or_else(|e| panic!("no stop after five failures ({e}):\n{}", n.monitor_log()));
    assert_eq!(msg, "stop\n");
    let stop_after = at - down;
    assert!(
        next(3).is_err(),
        "stop is sent once while the API stays down"
    );

    let up = Instant::now();
    api.set_ready(true);
    let (at, msg) = next(5).expect("started again when /readyz answers");
    assert_eq!(msg, "reload\n");
    eprintln!(
        "keepalived stopped {:?} after the API went down, started {:?} after it came back",
        stop_after,
        at - up
    );
}

/// `check` (`keepalived -t` of the candidate) and `render` of a dual-stack master holding
/// `addresses`, with the VIP sets in `vips` order; returns the rendered text.
fn dual_stack_candidate(addresses: &[&str], vips: [(&str, &str); 2]) -> String {
    let peers: String = [11, 12]
        .iter()
        .map(|i| format!("[[node]]\nname = \"m{i}\"\nrole = \"master\"\naddresses = [\"192.0.2.{i}\", \"2001:db8::{i}\"]\n"))
        .collect();
    candidate_in_ns(addresses, vips, "master", &peers, "")
}

/// `check` (which must pass `keepalived -t`) and `render` for a node of `role` holding
/// `addresses` on eth0, with the peer list `peers` and `extra` settings; the rendered text.
fn candidate_in_ns(
    addresses: &[&str],
    vips: [(&str, &str); 2],
    role: &str,
    peers: &str,
    extra: &str,
) -> String {
    let dir = scratch_dir("kam-ds").unwrap();
    let d = dir.path();
    let ns = Netns::new("kamds").unwrap();
    ns.nic("eth0").unwrap();
    fs::create_dir_all(d.join("run")).unwrap();
    for a in addresses {
        ns.addr("eth0", a, &["nodad"]).unwrap();
        let ip = a.split('/').next().unwrap();
        let family = if ip.contains(':') { "ipv6" } else { "ipv4" };
        fs::write(d.join("run").join(family), ip).unwrap();
    }
    fs::write(d.join("peers.toml"), peers).unwrap();
    let config = d.join("config.toml");
    fs::write(
        &config,
        format!(
            "cluster-name = \"ds\"\nrole = \"{role}\"\napi-vips = [\"{a0}\", \"{a1}\"]\n\
             ingress-vips = [\"{i0}\", \"{i1}\"]\noutput = \"{d}/keepalived.conf\"\nrun-dir = \"{d}/run\"\n\
             keepalived-dir = \"{d}\"\npeer-source = \"file\"\npeers-file = \"{d}/peers.toml\"\n{extra}\n{PASSING_SCRIPTS}",
            a0 = vips[0].0,
            i0 = vips[0].1,
            a1 = vips[1].0,
            i1 = vips[1].1,
            d = d.display()
        ),
    )
    .unwrap();
    let out = ns
        .command(BIN)
        .args(["check", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("keepalived -t accepts"), "{stderr}");
    let text = ns
        .command(BIN)
        .args(["render", "--config"])
        .arg(&config)
        .output()
        .unwrap()
        .stdout;
    String::from_utf8(text).unwrap()
}

const V4_VIPS: (&str, &str) = ("192.0.2.200", "192.0.2.201");
const V6_VIPS: (&str, &str) = ("2001:db8::200", "2001:db8::201");

fn instances(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("vrrp_instance ")?.strip_suffix(" {"))
        .collect()
}

#[test]
fn dual_stack_candidates_pass_keepalived_t() {
    if !require_root("dual_stack_candidates_pass_keepalived_t") {
        return;
    }
    let both = ["192.0.2.11/24", "2001:db8::11/64"];
    let text = dual_stack_candidate(&both, [V4_VIPS, V6_VIPS]);
    assert_eq!(
        instances(&text),
        ["ds_API_0", "ds_INGRESS_0", "ds_API_1", "ds_INGRESS_1"],
        "{text}"
    );
}

/// A peer list of masters 11 and 12 and workers 13 and 14, each with the address lines
/// `addresses(i)`.
fn two_masters_two_workers(addresses: impl Fn(u8) -> String) -> String {
    [
        (11, "master"),
        (12, "master"),
        (13, "worker"),
        (14, "worker"),
    ]
    .iter()
    .map(|(i, role)| {
        format!(
            "[[node]]\nname = \"n{i}\"\nrole = \"{role}\"\n{}\n",
            addresses(*i)
        )
    })
    .collect()
}

/// A DHCPv6 host (IPv6 /128) whose peers' IPv6 addresses come only from the OVN annotation:
/// the machine network is the widened /64, so the worker lists its peers (upstream) instead of
/// rendering the ingress instance alone.
#[test]
fn a_dhcpv6_128_worker_finds_its_ipv6_peers_and_passes_keepalived_t() {
    if !require_root("a_dhcpv6_128_worker_finds_its_ipv6_peers_and_passes_keepalived_t") {
        return;
    }
    // IPv6 addresses only in the OVN annotation.
    let peers = two_masters_two_workers(|i| {
        format!(
            "addresses = [\"192.0.2.{i}\"]\novn_addresses = [\"192.0.2.{i}\", \"2001:db8::{i}\"]"
        )
    });
    let text = candidate_in_ns(
        &["192.0.2.13/24", "2001:db8::13/128"],
        [V4_VIPS, V6_VIPS],
        "worker",
        &peers,
        "",
    );
    assert_eq!(instances(&text), ["ds_INGRESS_0", "ds_INGRESS_1"], "{text}");
    assert!(
        text.contains(
            "unicast_src_ip 2001:db8::13\n    unicast_peer {\n        2001:db8::11\n        \
             2001:db8::12\n        2001:db8::14\n    }"
        ),
        "{text}"
    );
}

/// OpenStack dual stack: a worker's `VG_INGRESS` group, and a node with one family (a group
/// of one would be rejected by keepalived: none is rendered), both through `keepalived -t`.
#[test]
fn openstack_sync_groups_pass_keepalived_t() {
    if !require_root("openstack_sync_groups_pass_keepalived_t") {
        return;
    }
    let peers =
        two_masters_two_workers(|i| format!("addresses = [\"192.0.2.{i}\", \"2001:db8::{i}\"]"));
    let openstack = "platform = \"OpenStack\"";
    let both = ["192.0.2.13/24", "2001:db8::13/64"];
    let text = candidate_in_ns(&both, [V4_VIPS, V6_VIPS], "worker", &peers, openstack);
    assert!(
        text.contains("vrrp_sync_group VG_INGRESS {\n    group {\n        ds_INGRESS_0\n        ds_INGRESS_1\n"),
        "{text}"
    );
    let text = candidate_in_ns(&both[..1], [V4_VIPS, V6_VIPS], "worker", &peers, openstack);
    assert_eq!(instances(&text), ["ds_INGRESS_0"], "{text}");
    assert!(!text.contains("vrrp_sync_group"), "{text}");
    let text = candidate_in_ns(
        &["192.0.2.11/24"],
        [V4_VIPS, V6_VIPS],
        "master",
        &peers,
        openstack,
    );
    assert_eq!(instances(&text), ["ds_API_0", "ds_INGRESS_0"], "{text}");
    assert!(!text.contains("vrrp_sync_group"), "{text}");
}

#[test]
fn a_dual_stack_node_missing_a_family_serves_the_other() {
    if !require_root("a_dual_stack_node_missing_a_family_serves_the_other") {
        return;
    }
    // IPv4-primary, no IPv6 address yet: the IPv4 instances keep index 0.
    let text = dual_stack_candidate(&["192.0.2.11/24"], [V4_VIPS, V6_VIPS]);
    assert_eq!(instances(&text), ["ds_API_0", "ds_INGRESS_0"], "{text}");
    assert!(
        text.contains("# no interface holds an IPv6 address for VIP set 1"),
        "{text}"
    );
    // IPv6-primary, no IPv4 address: the IPv6 instances at index 0.
    let text = dual_stack_candidate(&["2001:db8::11/64"], [V6_VIPS, V4_VIPS]);
    assert_eq!(instances(&text), ["ds_API_0", "ds_INGRESS_0"], "{text}");
    assert!(text.contains("2001:db8::200/128"), "{text}");
    // IPv6-primary, no IPv6 address yet: the IPv4 instances keep index 1.
    let text = dual_stack_candidate(&["192.0.2.11/24"], [V6_VIPS, V4_VIPS]);
    assert_eq!(instances(&text), ["ds_API_1", "ds_INGRESS_1"], "{text}");
    assert!(text.contains("192.0.2.200/32"), "{text}");
}

#[test]
fn a_malformed_peer_list_is_bad_input_for_render_and_check() {
    if !require_root("a_malformed_peer_list_is_bad_input_for_render_and_check") {
        return;
    }
    let dir = scratch_dir("kam-bad").unwrap();
    let d = dir.path();
    let ns = Netns::new("kambad").unwrap();
    ns.nic("eth0").unwrap();
    ns.addr("eth0", "192.0.2.11/24", &[]).unwrap();
    let peers = d.join("peers.toml");
    fs::write(
        &peers,
        "[[node]]\nname = \"m0\"\nrole = \"master\"\naddresses = [\"192.0.2.300\"]\n",
    )
    .unwrap();
    let config = d.join("config.toml");
    fs::write(
        &config,
        format!(
            "cluster-name = \"bad\"\napi-vips = [\"192.0.2.200\"]\noutput = \"{d}/keepalived.conf\"\n\
             run-dir = \"{d}/run\"\nkeepalived-dir = \"{d}\"\npeer-source = \"file\"\npeers-file = \"{p}\"\n",
            d = d.display(),
            p = peers.display()
        ),
    )
    .unwrap();
    for command in ["render", "check"] {
        let out = ns
            .command(BIN)
            .args([command, "--config"])
            .arg(&config)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command}: {stderr}");
        assert!(
            stderr.contains(&format!("invalid peer list {}: line 4", peers.display())),
            "{command}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{command} printed a candidate");
    }
}

#[test]
fn restarting_the_holders_monitor_never_drops_the_vip() {
    if !require_root("restarting_the_holders_monitor_never_drops_the_vip") {
        return;
    }
    let mut c = cluster(2, "");
    start_all(&mut c);
    let holder = |c: &Cluster| c.nodes.iter().position(|n| holds(&n.ns, "eth0", API_VIP));
    assert!(wait_for(Duration::from_secs(10), || holder(&c).is_some()));
    std::thread::sleep(Duration::from_secs(2));
    let h = holder(&c).unwrap();
    let other = 1 - h;
    // The other node pings the VIP every 50 ms for the whole test.
    let ping = c.nodes[other]
        .ns
        .command("ping")
        .args(["-n", "-i", "0.05", "-W", "1", "-w", "25", API_VIP])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    for round in 0..20 {
        let n = &mut c.nodes[h];
        let mut m = n.monitor.take().unwrap();
        // systemd's try-restart: SIGTERM, wait, start again.
        Command::new("kill")
            .arg(m.id().to_string())
            .status()
            .unwrap();
        let _ = m.wait();
        start_monitor(n);
        assert!(
            wait_for(Duration::from_secs(5), || n
                .monitor_log()
                .contains("started: Master")),
            "round {round}: {}",
            n.monitor_log()
        );
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            holds(&n.ns, "eth0", API_VIP),
            "round {round}: the VIP left the holder"
        );
    }
    let out = ping.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let summary = text
        .lines()
        .find(|l| l.contains("packets transmitted"))
        .unwrap_or_default()
        .to_owned();
    eprintln!("{summary}");
    let sent: u32 = summary
        .split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    assert!(sent > 100, "{text}");
    assert!(summary.contains(" 0% packet loss"), "{summary}");
    assert_eq!(holder(&c), Some(h), "the holder changed");
}

#[test]
fn keepalived_t_that_cannot_run_is_retried_not_taken_as_a_rejection() {
    if !require_root("keepalived_t_that_cannot_run_is_retried_not_taken_as_a_rejection") {
        return;
    }
    let mut c = cluster(2, "");
    let n = &mut c.nodes[0];
    let which = |p: &str| {
        let out = Command::new("sh")
            .args(["-c", &format!("command -v {p}")])
            .output()
            .unwrap()
            .stdout;
        PathBuf::from(String::from_utf8(out).unwrap().trim())
    };
    // keepalived is not on the monitor's PATH yet (a package still being installed).
    let bin = n.dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    let log = fs::File::create(n.dir.join("monitor.log")).unwrap();
    let mut child = Command::new(which("ip"))
        .args(["netns", "exec", n.ns.name(), BIN, "run", "--config"])
        .arg(n.dir.join("config.toml"))
        .env("RUST_LOG", "info")
        .env("PATH", &bin)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    assert!(
        wait_for(Duration::from_secs(10), || n
            .monitor_log()
            .contains("cannot run keepalived -t")),
        "{}",
        n.monitor_log()
    );
    assert!(n.conf().is_empty(), "written without validation");
    std::os::unix::fs::symlink(which("keepalived"), bin.join("keepalived")).unwrap();
    let written = wait_for(Duration::from_secs(15), || {
        n.conf().contains("vrrp_instance hx_API_0")
    });
    let _ = child.kill();
    let _ = child.wait();
    assert!(written, "not retried: {}", n.monitor_log());
    assert!(
        !n.monitor_log().contains("rejected the candidate"),
        "{}",
        n.monitor_log()
    );
}
