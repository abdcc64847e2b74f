//! ovs-bridge-configurator against the OVS-enabled NetworkManager and OVS's userspace datapath.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use integration::apiserver::{self, FakeApiServer};
use integration::network_manager::normalized_keyfile;
use integration::nncp::{DEAD_DEFAULT_ROUTE, policy};
use integration::node::{
    NMSTATE_BR_EX, Node, ROUTER, ROUTER6, Upstream, ZONE, node_address, node_address6,
};
use integration::per_host::{self, PerHost};
use integration::ping::Pinger;
use integration::process::wait_for;
use integration::require_root;
use ovs_bridge_configurator::lock;

const BIN: &str = env!("CARGO_BIN_EXE_ovs-bridge-configurator");
/// api-int's address in the live-apply test: on the machine network, not the gateway's.
const API_INT: &str = "198.51.100.2";

struct Case {
    node: Node,
    up: Upstream,
    etc: PathBuf,
    var_lib: PathBuf,
}

impl Case {
    /// A node whose uplink ens3 has an original, persistent profile `ens3` (IPv6 `auto`, as in
    /// the reference's measurement).
    fn new(static_ip: bool) -> Case {
        Case::with(static_ip, &[])
    }

    /// A static node whose br-ex `apply` has built (the start of every day-2 test).
    fn converted() -> Case {
        let c = Case::new(true);
        c.write_primary_ip();
        let o = c.run(&["apply"]);
        assert!(o.status.success() && c.ready(), "{}", c.context(&o));
        c
    }

    /// The same, with `extra` nmcli settings on the original profile.
    fn with(static_ip: bool, extra: &[&str]) -> Case {
        let mut up = Upstream::start(1, &[]).unwrap();
        let node = Node::start(&mut up, 1).unwrap();
        node.up_uplink(!static_ip, extra).unwrap();
        let etc = node.dir().join("etc");
        let var_lib = node.dir().join("var-lib");
        fs::create_dir_all(&etc).unwrap();
        fs::create_dir_all(&var_lib).unwrap();
        Case {
            node,
            up,
            etc,
            var_lib,
        }
    }

    /// A later run in the same boot (node IP written, boot marker present, so no first-run
    /// clean-up) with `config` as its settings file, whose path is returned.
    fn same_boot(&self, config: &str) -> PathBuf {
        self.write_primary_ip();
        fs::write(self.node.view.run_dir().join("configure-ovs-boot-done"), "").unwrap();
        let cfg = self.node.dir().join("obc.toml");
        fs::write(&cfg, config).unwrap();
        cfg
    }

    /// A static node (node IP written) whose per-host NMState file is `yaml`, and that file's
    /// directory.
    fn with_cluster_yml(yaml: &str) -> (Case, PathBuf) {
        let c = Case::new(true);
        c.write_primary_ip();
        let dir = c.etc.join("nmstate/openshift");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("cluster.yml"), yaml).unwrap();
        (c, dir)
    }

    fn write_primary_ip(&self) {
        let dir = self.node.view.run_dir().join("nodeip-configuration");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("primary-ip"), node_address(1)).unwrap();
    }

    /// The configurator inside the node with `args` (subcommand first), `config`, and this
    /// case's /etc and /var/lib.
    fn command(&self, args: &[&str], config: &Path) -> Command {
        let mut c = self.node.view.command(BIN);
        c.args(args)
            .arg("--config")
            .arg(config)
            .arg("--etc-dir")
            .arg(&self.etc)
            .arg("--var-lib-dir")
            .arg(&self.var_lib)
            .env("DBUS_SYSTEM_BUS_ADDRESS", self.node.nm.bus_address())
            // Troubleshooting copies stay in the node's dir, not the host's /tmp.
            .env("TMPDIR", self.node.dir());
        c
    }

    /// Runs it to the end without retries.
    fn run(&self, args: &[&str]) -> Output {
        self.command(args, Path::new("/dev/null"))
            .args(["--retry-interval-secs", "0"])
            .output()
            .unwrap()
    }

    /// What a failed activation needs explained: NM's and dnsmasq's side.
    fn context(&self, o: &Output) -> String {
        format!(
            "{}\n--- NetworkManager\n{}\n--- dnsmasq\n{}\n--- links\n{}",
            log(o),
            self.node
                .nm
                .log_tail(std::env::var("NM_TAIL").map_or(60, |v| v.parse().unwrap())),
            self.up.dnsmasq().dhcp_log_tail(30),
            self.node.ns.ip(&["-br", "link"]).unwrap_or_default()
        )
    }

    /// Whether ens3 (the original uplink) carries the node IP.
    fn ens3_has_node_ip(&self) -> bool {
        self.node
            .ns
            .ip(&["-br", "addr", "show", "dev", "ens3"])
            .unwrap()
            .contains(&node_address(1))
    }

    /// Whether the upstream router reaches the node IP.
    fn reachable(&self) -> bool {
        self.up
            .ns
            .exec("ping", &["-c1", "-W2", &node_address(1)])
            .is_ok()
    }

    /// Starts `apply ARGS` with `cfg` and returns it once the new profiles are in place, ens3
    /// has been taken over (its node IP gone) and it waits for br-ex (ovs-vswitchd must be
    /// killed first: br-ex then never comes up). Returning as soon as the profiles exist would
    /// race the takeover: a test could see the node IP still on ens3 and the network
    /// "restored" before it was ever cut.
    fn apply_waiting_for_br_ex(&self, cfg: &Path, args: &[&str]) -> std::process::Child {
        let child = self
            .command(&[&["apply"], args].concat(), cfg)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        assert!(
            wait_for(Duration::from_secs(10), || self.has_ovs_if_br_ex()
                && !self.ens3_has_node_ip()),
            "apply {args:?}: ovs-if-br-ex {}, node IP on ens3 {}",
            self.has_ovs_if_br_ex(),
            self.ens3_has_node_ip()
        );
        child
    }

    /// Whether the apply's `ovs-if-br-ex` profile exists.
    fn has_ovs_if_br_ex(&self) -> bool {
        self.profile_names().lines().any(|n| n == "ovs-if-br-ex")
    }

    /// `nmcli -g NAME c`: the profiles' names, one per line.
    fn profile_names(&self) -> String {
        self.node.nm.nmcli(&["-g", "NAME", "c"]).unwrap()
    }

    fn ready(&self) -> bool {
        let ip = node_address(1);
        let br = self
            .node
            .ns
            .ip(&["-br", "addr", "show", "dev", "br-ex"])
            .unwrap_or_default();
        let ens3 = self
            .node
            .ns
            .ip(&["-4", "-br", "addr", "show", "dev", "ens3"])
            .unwrap_or_default();
        br.contains(&format!("{ip}/24"))
            && self.node.has_default_route_via("br-ex")
            && !ens3.contains(&ip)
    }
}

fn log(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn keyfile(c: &Case, id: &str) -> String {
    let f = c.node.view.run_dir().join(format!(
        "NetworkManager/system-connections/{id}.nmconnection"
    ));
    fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()))
}

/// Profile `id`'s keyfile under the node's /etc (a profile that outlives a reboot).
fn stored_keyfile(c: &Case, id: &str) -> String {
    let f = c
        .node
        .view
        .nm_connections()
        .join(format!("{id}.nmconnection"));
    fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()))
}

/// The keyfile with UUIDs replaced by the profile names they stand for, and the timestamp
/// (when NM last activated it) by `<T>`.
fn normalized(c: &Case, id: &str) -> String {
    let names = c.node.nm.nmcli(&["-g", "UUID,NAME", "c"]).unwrap();
    let uuids: Vec<(&str, &str)> = names.lines().filter_map(|l| l.split_once(':')).collect();
    normalized_keyfile(&keyfile(c, id), &uuids)
}

/// The profile set of the reference §8.3.2 (configure-ovs.sh measured on this harness), with
/// this node's MAC and address, as NetworkManager 1.52 writes it: since 1.46 its keyfiles name
/// `master`, `slave-type` and `autoconnect-slaves` as `controller`, `port-type` and
/// `autoconnect-ports` (the same properties; nmcli's old names are aliases), and a static
/// address's gateway has its own `gateway=` key, whoever set the profile (configure-ovs.sh's nmcli
/// or our D-Bus calls). One deliberate difference: a port's `controller` is its controller's
/// interface (`ens3`, `br-ex`), where configure-ovs.sh's nmcli stores the controller profile's
/// UUID; nmstate writes the name, and a day-2 change would otherwise re-activate br-ex (see
/// `plan::interface_profile`).
const BR_EX: &str = "[connection]\nid=br-ex\nuuid=<br-ex>\ntype=ovs-bridge\nautoconnect-ports=1\ninterface-name=br-ex\n\n\
[ethernet]\nmtu=1500\n\n[ovs-bridge]\n\n[ipv4]\nmethod=auto\n\n[ipv6]\naddr-gen-mode=default\nmethod=auto\n\n[proxy]";
const PORT_BR_EX: &str = "[connection]\nid=ovs-port-br-ex\nuuid=<ovs-port-br-ex>\ntype=ovs-port\nautoconnect=false\n\
controller=br-ex\ninterface-name=br-ex\nport-type=ovs-bridge\n\n[ovs-port]";
const PORT_PHYS0: &str = "[connection]\nid=ovs-port-phys0\nuuid=<ovs-port-phys0>\ntype=ovs-port\nautoconnect=false\n\
autoconnect-ports=1\ncontroller=br-ex\ninterface-name=ens3\nport-type=ovs-bridge\n\n[ovs-port]";
const IF_PHYS0: &str = "[connection]\nid=ovs-if-phys0\nuuid=<ovs-if-phys0>\ntype=ethernet\nautoconnect-ports=1\n\
autoconnect-priority=100\ncontroller=ens3\ninterface-name=ens3\nport-type=ovs-port\n\n[ethernet]\n\
cloned-mac-address=52:54:00:C0:EE:01\nmtu=1500\n\n[ovs-interface]\ntype=system";
const IF_BR_EX_STATIC: &str = "[connection]\nid=ovs-if-br-ex\nuuid=<ovs-if-br-ex>\ntype=ovs-interface\n\
controller=br-ex\ninterface-name=br-ex\nport-type=ovs-port\ntimestamp=<T>\n\n[ethernet]\n\
cloned-mac-address=52:54:00:C0:EE:01\nmtu=1500\n\n[ovs-interface]\ntype=internal\n\n[ipv4]\n\
address1=198.51.100.11/24\ngateway=198.51.100.1\nmethod=manual\nroute-metric=48\n\n\
[ipv6]\naddr-gen-mode=default\nmethod=auto\nroute-metric=48\n\n[proxy]";
const IF_BR_EX_DHCP: &str = "[connection]\nid=ovs-if-br-ex\nuuid=<ovs-if-br-ex>\ntype=ovs-interface\n\
controller=br-ex\ninterface-name=br-ex\nport-type=ovs-port\n\n[ethernet]\n\
cloned-mac-address=52:54:00:C0:EE:01\nmtu=1500\n\n[ovs-interface]\ntype=internal\n\n[ipv4]\nmay-fail=false\n\
method=auto\nroute-metric=48\n\n[ipv6]\naddr-gen-mode=default\nmethod=auto\nroute-metric=48\n\n[proxy]";

fn assert_common_profiles(c: &Case) {
    for (id, want) in [
        ("br-ex", BR_EX),
        ("ovs-port-br-ex", PORT_BR_EX),
        ("ovs-port-phys0", PORT_PHYS0),
        ("ovs-if-phys0", IF_PHYS0),
    ] {
        assert_eq!(normalized(c, id), want, "profile {id}");
    }
    // Only the profiles of the activation list autoconnect; the ports come up through
    // autoconnect-slaves (reference §8.3.1).
    let autoconnect = c.node.nm.nmcli(&["-g", "NAME,AUTOCONNECT", "c"]).unwrap();
    for line in [
        "br-ex:yes",
        "ovs-if-phys0:yes",
        "ovs-if-br-ex:yes",
        "ovs-port-br-ex:no",
        "ovs-port-phys0:no",
        "ens3:yes",
    ] {
        assert!(
            autoconnect.lines().any(|l| l == line),
            "{line} in\n{autoconnect}"
        );
    }
    assert_eq!(
        c.node
            .ovs
            .vsctl(&["get", "bridge", "br-ex", "other_config:hwaddr"])
            .unwrap()
            .trim(),
        "\"52:54:00:C0:EE:01\""
    );
    let route = c.node.ns.ip(&["route", "show", "default"]).unwrap();
    assert!(
        route.contains("dev br-ex") && route.contains("metric 48"),
        "{route}"
    );
}

#[test]
fn static_uplink_moves_onto_br_ex_with_configure_ovs_profiles() {
    if !require_root("static_uplink_moves_onto_br_ex") {
        return;
    }
    let c = Case::new(true);
    c.write_primary_ip();
    let original = fs::read(c.node.view.nm_connections().join("ens3.nmconnection")).unwrap();
    // A finished MTU migration's state (mtu-migration.service is not enabled here).
    let mtu = c.etc.join("cno/mtu-migration");
    fs::create_dir_all(mtu.join("config")).unwrap();
    fs::write(mtu.join("config/mtu.env"), "TARGET_MTU=9000\n").unwrap();
    // A previous boot's southbound DB address, which ovn-controller must not use.
    c.node
        .ovs
        .vsctl(&[
            "set",
            "Open_vSwitch",
            ".",
            "external_ids:ovn-remote=\"tcp:192.0.2.9:6642\"",
        ])
        .unwrap();
    let t = Instant::now();
    let o = c.run(&["apply"]);
    let took = t.elapsed();
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(!mtu.exists(), "{}", log(&o));
    assert_eq!(
        c.node
            .ovs
            .vsctl(&["get", "Open_vSwitch", ".", "external_ids:ovn-remote"])
            .unwrap()
            .trim(),
        "\" \"",
        "ovn-remote cleared"
    );
    assert!(
        c.ready(),
        "ready when apply returns: {}",
        c.node.ns.ip(&["route"]).unwrap()
    );
    eprintln!("static apply (debug build): {took:?}");
    assert_common_profiles(&c);
    assert_eq!(normalized(&c, "ovs-if-br-ex"), IF_BR_EX_STATIC);
    assert_eq!(
        fs::read(c.node.view.nm_connections().join("ens3.nmconnection")).unwrap(),
        original,
        "original untouched"
    );
    assert!(c.reachable());
    assert_eq!(
        fs::read_to_string(c.var_lib.join("ovnk/iface_default_hint")).unwrap(),
        "ens3\n"
    );
    assert!(
        c.node
            .view
            .run_dir()
            .join("configure-ovs-boot-done")
            .exists()
    );
    assert!(c.node.view.run_dir().join("ovs-config-executed").exists());
    assert_eq!(
        c.node
            .ovs
            .vsctl(&["get", "Open_vSwitch", ".", "external_ids:ovn-remote"])
            .unwrap()
            .trim(),
        "\" \""
    );

    // Same boot again: a no-op for the network.
    let before = c
        .node
        .nm
        .nmcli(&["-g", "NAME,UUID,ACTIVE-PATH", "c", "show", "--active"])
        .unwrap();
    let t = Instant::now();
    let o = c.run(&["apply"]);
    eprintln!("re-run (debug build): {:?}", t.elapsed());
    assert!(
        o.status.success() && log(&o).contains("nothing to do"),
        "{}",
        log(&o)
    );
    assert_eq!(
        c.node
            .nm
            .nmcli(&["-g", "NAME,UUID,ACTIVE-PATH", "c", "show", "--active"])
            .unwrap(),
        before
    );
    assert_eq!(normalized(&c, "ovs-if-br-ex"), IF_BR_EX_STATIC);
}

#[test]
fn dhcp_uplink_keeps_its_lease_on_br_ex() {
    if !require_root("dhcp_uplink_keeps_its_lease_on_br_ex") {
        return;
    }
    let c = Case::new(false);
    assert!(wait_for(Duration::from_secs(10), || c.ens3_has_node_ip()));
    c.write_primary_ip();
    let o = c.run(&["apply"]);
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(
        wait_for(Duration::from_secs(5), || c.ready()),
        "the same lease (MAC kept): {}",
        c.node.ns.ip(&["addr"]).unwrap()
    );
    assert_common_profiles(&c);
    assert_eq!(normalized(&c, "ovs-if-br-ex"), IF_BR_EX_DHCP);
}

#[test]
fn a_reboot_rebuilds_cleanly() {
    if !require_root("a_reboot_rebuilds_cleanly") {
        return;
    }
    let mut c = Case::new(true);
    c.write_primary_ip();
    let o = c.run(&["apply"]);
    assert!(o.status.success(), "{}", c.context(&o));
    // Reboot: /run is empty again (NM's in-memory profiles, the boot marker); OVSDB and /etc stay.
    let _ = fs::remove_file(c.node.view.run_dir().join("configure-ovs-boot-done"));
    c.node.nm.restart().unwrap();
    assert!(
        wait_for(Duration::from_secs(10), || c.ens3_has_node_ip()),
        "the original profile is back on ens3"
    );
    let o = c.run(&["apply"]);
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(log(&o).contains("first run of this boot"), "{}", log(&o));
    assert!(wait_for(Duration::from_secs(5), || c.ready()));
    assert_common_profiles(&c);
    assert!(c.reachable());
}

#[test]
fn a_same_boot_rerun_with_a_forced_nic_changes_nothing() {
    if !require_root("a_same_boot_rerun_with_a_forced_nic_changes_nothing") {
        return;
    }
    let c = Case::new(true);
    c.write_primary_ip();
    fs::create_dir_all(c.etc.join("ovnk")).unwrap();
    fs::write(c.etc.join("ovnk/default_bridge"), "ens3\n").unwrap();
    let o = c.run(&["apply"]);
    assert!(o.status.success() && c.ready(), "{}", c.context(&o));
    let uuids = || c.node.nm.nmcli(&["-g", "NAME,UUID,ACTIVE", "c"]).unwrap();
    let before = uuids();
    let o = c.run(&["apply"]);
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(log(&o).contains("nothing to do"), "{}", log(&o));
    assert_eq!(uuids(), before, "the same profiles, still active");
    assert!(c.ready() && c.reachable());
}

#[test]
fn a_static_default_route_keeps_its_own_metric_on_br_ex() {
    if !require_root("a_static_default_route_keeps_its_own_metric_on_br_ex") {
        return;
    }
    // No gateway: the default route is a static route with metric 100 (upstream accepts it).
    let c = Case::with(
        true,
        &[
            "ipv4.gateway",
            "",
            "ipv4.routes",
            "0.0.0.0/0 198.51.100.1 100",
        ],
    );
    c.write_primary_ip();
    let o = c.run(&["apply"]);
    assert!(o.status.success(), "{}", c.context(&o));
    let routes = c.node.ns.ip(&["route", "show", "default"]).unwrap();
    assert!(
        routes.contains("dev br-ex") && routes.contains("metric 100"),
        "{routes}"
    );
    assert!(c.reachable());
}

#[test]
fn a_failure_rolls_back_to_the_original_network() {
    if !require_root("a_failure_rolls_back_to_the_original_network") {
        return;
    }
    let mut c = Case::new(true);
    let cfg = c.same_boot(&format!(
        "activation-timeout-secs = 5\nactivation-attempts = 2\ntroubleshooting-dir = \"{}\"\n",
        c.node.dir().display()
    ));
    // Five copies from earlier failures: the oldest goes, the newest five stay.
    for n in 1..=5 {
        fs::create_dir(
            c.node
                .dir()
                .join(format!("ovs-bridge-configurator-00000000000{n}-old")),
        )
        .unwrap();
    }
    // ovs-vswitchd crashed: NM can write OVSDB but the bridge never materialises.
    c.node.ovs.kill_vswitchd();
    let o = c
        .command(&["apply", "--retry-interval-secs", "0"], &cfg)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", log(&o));
    assert!(log(&o).contains("rolling back"), "{}", log(&o));
    // Retried as upstream before giving up (upstream: 10 attempts).
    assert!(log(&o).contains("attempt 1 of 2 failed"), "{}", log(&o));
    assert!(log(&o).contains("after 2 attempts"), "{}", log(&o));
    // The state at the failure, in the journal.
    for line in [
        "state: profile ovs-if-br-ex",
        "state: device ens3",
        "state: address",
    ] {
        assert!(log(&o).contains(line), "{line}: {}", log(&o));
    }
    // The original profile is active again and the node answers on its original interface.
    assert!(
        wait_for(Duration::from_secs(10), || c.ens3_has_node_ip()),
        "{}",
        c.node.ns.ip(&["addr"]).unwrap()
    );
    assert!(c.reachable());
    let names = c.profile_names();
    assert!(
        !names.lines().any(|n| n.starts_with("ovs-") || n == "br-ex"),
        "profiles removed: {names}"
    );
    let mut dumps: Vec<PathBuf> = fs::read_dir(c.node.dir())
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("ovs-bridge-configurator-")
        })
        .map(|e| e.path())
        .collect();
    dumps.sort();
    assert_eq!(dumps.len(), 5, "pruned to five: {dumps:?}");
    assert!(!dumps[0].ends_with("ovs-bridge-configurator-000000000001-old"));
    let new = dumps.last().unwrap();
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        fs::metadata(new).unwrap().permissions().mode() & 0o777,
        0o700,
        "private"
    );
    assert_eq!(
        fs::read_dir(new).unwrap().count(),
        5,
        "the five generated profiles"
    );
}

/// A second NIC, ens4, on its own network (203.0.113.0/24) with a lower-metric default route.
fn add_second_nic(c: &Case) -> integration::Netns {
    let up2 = integration::Netns::new("up2").unwrap();
    up2.veth_to("eth0", &c.node.ns, "ens4").unwrap();
    up2.addr("eth0", "203.0.113.1/24", &[]).unwrap();
    c.node
        .ns
        .ip(&["link", "set", "ens4", "address", "52:54:00:c0:ef:01"])
        .unwrap();
    c.node
        .ns
        .sysctl("net.ipv4.conf.ens4.rp_filter", "1")
        .unwrap();
    let s = [
        "autoconnect",
        "yes",
        "ipv4.method",
        "manual",
        "ipv4.addresses",
        "203.0.113.11/24",
        "ipv4.gateway",
        "203.0.113.1",
        "ipv4.route-metric",
        "50",
    ];
    c.node.nm.up_ethernet("ens4", "ens4", &s).unwrap();
    up2
}

#[test]
fn the_node_ip_nic_wins_over_a_lower_metric_default_route_and_the_extra_bridge_follows_its_file() {
    if !require_root("node_ip_nic_wins_and_extra_bridge") {
        return;
    }
    let c = Case::new(true);
    let up2 = add_second_nic(&c);
    c.write_primary_ip();
    let o = c.run(&["apply"]);
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(
        c.ready(),
        "br-ex on ens3, the node-IP NIC: {}",
        c.node.ns.ip(&["route"]).unwrap()
    );
    let ens4 = || {
        c.node
            .ns
            .ip(&["-br", "addr", "show", "dev", "ens4"])
            .unwrap()
    };
    assert!(ens4().contains("203.0.113.11/24"), "ens4 untouched");

    // /etc/ovnk/extra_bridge names ens4: br-ex1 with metric 49 (same boot).
    fs::create_dir_all(c.etc.join("ovnk")).unwrap();
    fs::write(c.etc.join("ovnk/extra_bridge"), "ens4\n").unwrap();
    let o = c.run(&["apply"]);
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(
        c.node
            .ns
            .ip(&["-br", "addr", "show", "dev", "br-ex1"])
            .unwrap()
            .contains("203.0.113.11/24")
    );
    let routes = c.node.ns.ip(&["route", "show", "default"]).unwrap();
    assert!(
        routes.contains("dev br-ex proto static metric 48"),
        "{routes}"
    );
    assert!(
        routes.contains("dev br-ex1 proto static metric 49"),
        "{routes}"
    );
    assert!(up2.exec("ping", &["-c1", "-W2", "203.0.113.11"]).is_ok());
    assert!(c.ready());

    // The file goes away: the br-ex1 set is removed and ens4 gets its own profile back.
    fs::remove_file(c.etc.join("ovnk/extra_bridge")).unwrap();
    let o = c.run(&["apply"]);
    assert!(o.status.success(), "{}", c.context(&o));
    let names = c.profile_names();
    assert!(
        !names
            .lines()
            .any(|n| n.ends_with("br-ex1") || n.ends_with("phys1")),
        "{names}"
    );
    assert!(
        wait_for(Duration::from_secs(10), || ens4()
            .contains("203.0.113.11/24")),
        "{}",
        ens4()
    );
    assert!(!c.node.ovs.vsctl(&["list-br"]).unwrap().contains("br-ex1"));
    assert!(c.ready());
}

/// The node IP's NIC has not got its address back yet when the run starts (its DHCP lease, or
/// NetworkManager still restoring what a killed run's checkpoint held: seen in the cluster's
/// fault test, br-ex built on the storage NIC), and another NIC has the better default route:
/// the run waits for the node IP and builds br-ex on its NIC.
#[test]
fn the_node_ip_is_awaited_before_a_better_default_route_is_taken() {
    if !require_root("the_node_ip_is_awaited_before_a_better_default_route_is_taken") {
        return;
    }
    let c = Case::new(false);
    let _up2 = add_second_nic(&c);
    c.write_primary_ip();
    c.node.nm.nmcli(&["device", "disconnect", "ens3"]).unwrap();
    assert!(!c.ens3_has_node_ip());
    let reconnect = {
        let nm = c.node.nm.bus_address().to_owned();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(2));
            Command::new("nmcli")
                .env("DBUS_SYSTEM_BUS_ADDRESS", nm)
                .args(["device", "connect", "ens3"])
                .output()
        })
    };
    let o = c.run(&["apply"]);
    let _ = reconnect.join();
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(
        log(&o).contains("is on no interface yet (ens4 has a default route): waiting for it"),
        "{}",
        log(&o)
    );
    assert!(c.ready(), "br-ex on ens3: {}", c.context(&o));
}

/// Whether br-ex carries `ip`.
fn br_ex_carries(c: &Case, ip: &str) -> bool {
    c.node
        .ns
        .ip(&["-br", "addr", "show", "dev", "br-ex"])
        .unwrap_or_default()
        .contains(ip)
}

#[test]
fn the_remembered_nic_is_awaited_when_another_has_the_default_route_first() {
    if !require_root("the_remembered_nic_is_awaited") {
        return;
    }
    let c = Case::new(true);
    let _up2 = add_second_nic(&c);
    // No node IP (the default-route path); ens3 remembered; its default route comes late.
    fs::create_dir_all(c.var_lib.join("ovnk")).unwrap();
    fs::write(c.var_lib.join("ovnk/iface_default_hint"), "ens3\n").unwrap();
    fs::write(c.node.view.run_dir().join("configure-ovs-boot-done"), "").unwrap();
    c.node
        .ns
        .ip(&["route", "del", "default", "dev", "ens3"])
        .unwrap();
    let child = c
        .command(
            &["apply", "--retry-interval-secs", "0"],
            Path::new("/dev/null"),
        )
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    c.node
        .ns
        .ip(&[
            "route", "add", "default", "via", ROUTER, "dev", "ens3", "metric", "100",
        ])
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(
        log(&o).contains("waiting for ens3's default route"),
        "{}",
        log(&o)
    );
    assert!(br_ex_carries(&c, &node_address(1)), "{}", c.context(&o));
}

#[test]
fn without_a_hint_file_the_previous_boots_ovs_if_phys0_keeps_br_ex_on_its_nic() {
    if !require_root("without_a_hint_file_the_previous_boots_ovs_if_phys0") {
        return;
    }
    let c = Case::new(true);
    let _up2 = add_second_nic(&c);
    // The previous boot's persistent ovs-if-phys0 (a version that wrote no hint file); no node
    // IP, so the default route would pick ens4 (metric 50 < 100).
    c.node
        .nm
        .nmcli(&[
            "c",
            "add",
            "type",
            "ethernet",
            "con-name",
            "ovs-if-phys0",
            "ifname",
            "ens3",
            "autoconnect",
            "no",
        ])
        .unwrap();
    let o = c.run(&["apply"]);
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(log(&o).contains("seeding it with ens3"), "{}", log(&o));
    assert!(br_ex_carries(&c, &node_address(1)), "{}", c.context(&o));
    assert_eq!(
        fs::read_to_string(c.var_lib.join("ovnk/iface_default_hint")).unwrap(),
        "ens3\n"
    );
}

#[test]
fn dual_stack_static_uplink_keeps_both_families() {
    if !require_root("dual_stack_static_uplink_keeps_both_families") {
        return;
    }
    let mut up = Upstream::start(1, &[]).unwrap();
    let node = Node::start(&mut up, 1).unwrap();
    let cidr = format!("{}/24", node_address(1));
    let s = [
        "autoconnect",
        "yes",
        "ipv4.method",
        "manual",
        "ipv4.addresses",
        &cidr,
        "ipv4.gateway",
        ROUTER,
        "ipv6.method",
        "manual",
        "ipv6.addresses",
        "2001:db8:64::11/64",
    ];
    node.nm.up_ethernet("ens3", "ens3", &s).unwrap();
    let etc = node.dir().join("etc");
    let var_lib = node.dir().join("var-lib");
    let c = Case {
        node,
        up,
        etc,
        var_lib,
    };
    c.write_primary_ip();
    let o = c.run(&["apply"]);
    assert!(o.status.success(), "{}", c.context(&o));
    let br = c.node.ns.ip(&["addr", "show", "dev", "br-ex"]).unwrap();
    assert!(
        br.contains(&cidr) && br.contains("2001:db8:64::11/64"),
        "{br}"
    );
    let global = br
        .lines()
        .find(|l| l.contains("2001:db8:64::11/64"))
        .unwrap();
    assert!(
        !global.contains("tentative"),
        "the global IPv6 address is usable when apply returns: {br}"
    );
    assert!(c.ready());
}

#[test]
fn sigterm_during_apply_rolls_back() {
    if !require_root("sigterm_during_apply_rolls_back") {
        return;
    }
    let mut c = Case::new(true);
    let cfg = c.same_boot("");
    c.node.ovs.kill_vswitchd();
    // systemd's stop (SIGTERM), then Ctrl-C by hand (SIGINT): both roll back.
    for signal in ["-TERM", "-INT"] {
        let child = c.apply_waiting_for_br_ex(&cfg, &[]);
        std::thread::sleep(Duration::from_millis(300));
        std::process::Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{signal}: {}", log(&o));
        assert!(log(&o).contains("terminated by a signal"), "{}", log(&o));
        let back = || c.ens3_has_node_ip();
        assert!(wait_for(Duration::from_secs(10), back), "{signal}");
        assert!(
            wait_for(Duration::from_secs(5), || !c.has_ovs_if_br_ex()),
            "{signal}"
        );
        assert!(c.reachable());
    }
}

#[test]
fn declarative_nmstate_file_builds_br_ex_and_is_recorded() {
    if !require_root("declarative_nmstate_file_builds_br_ex") {
        return;
    }
    let (c, dir) = Case::with_cluster_yml(NMSTATE_BR_EX);
    // An earlier tool's bridge with a port: the NMState file's apply removes it (OVSDB collects
    // its port and interface).
    c.node
        .ovs
        .vsctl(&[
            "--no-wait",
            "add-br",
            "br0",
            "--",
            "add-port",
            "br0",
            "stale0",
            "--",
            "set",
            "Interface",
            "stale0",
            "type=internal",
        ])
        .unwrap();
    let o = c.run(&["apply"]);
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(!c.node.ovs.vsctl(&["list-br"]).unwrap().contains("br0"));
    let left = c
        .node
        .ovs
        .vsctl(&["--columns=name", "list", "Interface"])
        .unwrap();
    assert!(!left.contains("stale0"), "{left}");
    // The harness runs production's NetworkManager (1.52): nmstate, which checks the version at
    // every apply, has nothing to say about it.
    assert!(
        !log(&o).contains("Unsupported NetworkManager version"),
        "{}",
        log(&o)
    );
    // A new bridge over a NIC that exists: the engine writes it, as nmstate would have.
    assert!(
        log(&o).contains("br-ex-br added and activated with its ports")
            && log(&o).contains("ens3: ens3 moved under its new OVS port"),
        "{}",
        log(&o)
    );
    assert!(
        wait_for(Duration::from_secs(5), || c.ready()),
        "{}",
        c.node.ns.ip(&["route"]).unwrap()
    );
    assert_eq!(
        fs::read_to_string(dir.join("applied")).unwrap(),
        NMSTATE_BR_EX
    );
    assert_eq!(
        fs::read_to_string(c.etc.join("nmstate/cluster.yml")).unwrap(),
        NMSTATE_BR_EX
    );
    assert!(c.reachable());
    // No automatic profiles: NMState owns br-ex.
    let names = c.profile_names();
    assert!(!names.lines().any(|n| n == "ovs-if-phys0"), "{names}");
    // Again: `applied` equals the file, so nothing is done.
    let o = c.run(&["apply"]);
    assert!(
        o.status.success() && log(&o).contains("Skipping: NMState owns br-ex"),
        "{}",
        log(&o)
    );
}

/// What `diff` says would apply `yaml` on `c`'s node: the engine, or nmstate's apply for a part.
fn coverage(c: &Case, name: &str, yaml: &str) -> String {
    let file = c.node.dir().join(format!("{name}.yml"));
    fs::write(&file, yaml).unwrap();
    let o = c.run(&["diff", file.to_str().unwrap()]);
    assert!(o.status.success(), "{name}: {}", log(&o));
    let said = String::from_utf8_lossy(&o.stderr);
    let prefix = format!("{}: ", file.display());
    said.lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .find(|l| l.contains("engine"))
        .unwrap_or_else(|| panic!("{name}: no coverage line in {said}"))
        .to_owned()
}

/// Section `name` of keyfile `text` (its lines up to the next section).
fn section<'k>(text: &'k str, name: &str) -> Vec<&'k str> {
    text.lines()
        .skip_while(|l| *l != format!("[{name}]"))
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .collect()
}

/// The per-host file's day-1 shapes this node can hold (a NIC; the bond and VLAN shapes are the
/// real-kernel tier's), each with whether the engine applies it or which part nmstate's apply
/// takes: the list the engine's coverage is held to. Then the design's example, dual stack,
/// applied at boot: through the engine, DNS in br-ex's profile where NetworkManager uses it,
/// read back by `show`, and the second NIC left as it was.
#[test]
fn the_per_host_files_day1_shapes_go_through_the_engine_and_leave_a_second_nic_alone() {
    if !require_root("the_per_host_files_day1_shapes_go_through_the_engine") {
        return;
    }
    let c = Case::new(true);
    c.write_primary_ip();
    let _up2 = add_second_nic(&c);
    let (ip, router) = (node_address(1), ROUTER);
    let example = PerHost::example(per_host::nic("ens3"), "ens3", &ip, router);
    let dual = example
        .clone()
        .dual_stack(&node_address6(1), ROUTER6)
        .dns(&[router, ROUTER6], &["example.test"]);
    let engine = "the engine applies it itself";
    let shapes = [
        ("example", example.yaml(), engine),
        ("dual-stack", dual.yaml(), engine),
        (
            "dhcp-and-a-route",
            PerHost::new(per_host::nic("ens3"), "ens3", &ip, router)
                .dhcp()
                .route("203.0.113.0/24", router)
                .yaml(),
            engine,
        ),
        (
            // nmstate places servers beside DHCP's by rules of its own.
            "dhcp-and-dns",
            example.clone().dhcp().yaml(),
            "dns-resolver's ipv4 servers without an interface of the state with a static ipv4",
        ),
        (
            "new-bond",
            PerHost::example(per_host::lacp_bond(["ens3", "ens4"]), "bond0", &ip, router).yaml(),
            "new interface bond0's `link-aggregation`",
        ),
        (
            "link-local-dns",
            dual.clone().dns(&["fe80::1%br-ex"], &[]).yaml(),
            "dns-resolver's server fe80::1%br-ex",
        ),
        (
            "bridge-options",
            example
                .yaml()
                .replace("  bridge:\n", "  bridge:\n    options:\n      stp: true\n"),
            "new OVS bridge br-ex's `bridge.options`",
        ),
    ];
    for (name, yaml, want) in &shapes {
        let said = coverage(&c, name, yaml);
        assert!(said.contains(want), "{name}: {said}\n{yaml}");
    }

    let ens4_before = stored_keyfile(&c, "ens4");
    let dir = c.etc.join("nmstate/openshift");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("cluster.yml"), dual.yaml()).unwrap();
    let o = c.run(&["apply"]);
    assert!(o.status.success(), "{}", c.context(&o));
    let said = log(&o);
    assert!(
        said.contains("br-ex-br added and activated with its ports")
            && said.contains("DNS in place")
            && !said.contains("applying through nmstate"),
        "{said}"
    );
    assert!(wait_for(Duration::from_secs(5), || c.ready()), "{said}");
    let v6 = c
        .node
        .ns
        .ip(&["-6", "-br", "addr", "show", "dev", "br-ex"])
        .unwrap();
    assert!(v6.contains(&format!("{}/64", node_address6(1))), "{v6}");
    let used = c
        .node
        .nm
        .nmcli(&["-g", "IP4.DNS,IP6.DNS", "device", "show", "br-ex"])
        .unwrap()
        .replace("\\:", ":");
    assert!(used.contains(router) && used.contains(ROUTER6), "{used}");
    // The first server's family holds the search domains, at nmstate's priorities.
    let br_ex = stored_keyfile(&c, "br-ex-if");
    let want4 = [
        format!("dns={router};"),
        "dns-priority=40".to_owned(),
        "dns-search=example.test;".to_owned(),
    ];
    let want6 = [format!("dns={ROUTER6};"), "dns-priority=50".to_owned()];
    let (v4, v6) = (section(&br_ex, "ipv4"), section(&br_ex, "ipv6"));
    for (family, lines, want) in [("ipv4", &v4, &want4[..]), ("ipv6", &v6, &want6[..])] {
        for line in want {
            assert!(
                lines.contains(&line.as_str()),
                "{line} in [{family}] of\n{br_ex}"
            );
        }
    }
    assert!(
        !v6.iter().any(|l| l.starts_with("dns-search=example")),
        "{br_ex}"
    );
    // `show` reads it back as the file's dns-resolver.
    let shown: serde_yaml::Value = serde_yaml::from_slice(&c.run(&["show"]).stdout).unwrap();
    let config = &shown["dns-resolver"]["config"];
    assert_eq!(
        config["server"],
        serde_yaml::to_value([router, ROUTER6]).unwrap(),
        "{config:?}"
    );
    assert_eq!(
        config["search"],
        serde_yaml::to_value(["example.test"]).unwrap(),
        "{config:?}"
    );

    assert_eq!(
        stored_keyfile(&c, "ens4"),
        ens4_before,
        "the second NIC's profile"
    );
    let ens4 = c
        .node
        .ns
        .ip(&["-4", "-br", "addr", "show", "dev", "ens4"])
        .unwrap();
    assert!(ens4.contains("203.0.113.11/24"), "{ens4}");
}

/// A per-host file on a node without br-ex whose new bridge does not carry the node IP: the
/// engine wrote the bridge, its ports and the NIC moved under it, and the checkpoint takes all
/// of it back (the new profiles deleted, the NIC's own profile and address back).
#[test]
fn a_new_bridge_that_fails_its_check_is_rolled_back_whole() {
    if !require_root("a_new_bridge_that_fails_its_check") {
        return;
    }
    let wrong_ip = NMSTATE_BR_EX.replace("198.51.100.11", "198.51.100.99");
    let (c, dir) = Case::with_cluster_yml(&wrong_ip);
    let o = c.run(&["apply-nmstate"]);
    assert_eq!(o.status.code(), Some(1), "{}", log(&o));
    assert!(
        log(&o).contains("br-ex-br added and activated with its ports")
            && log(&o).contains("does not carry the node IP 198.51.100.11"),
        "{}",
        log(&o)
    );
    assert!(!dir.join("applied").exists());
    assert!(
        wait_for(Duration::from_secs(15), || c.ens3_has_node_ip()),
        "{}",
        c.context(&o)
    );
    let names = c.profile_names();
    assert!(
        !names
            .lines()
            .any(|n| ["br-ex-br", "br-ex-port", "br-ex-if", "ens3-port"].contains(&n)),
        "{names}"
    );
    assert!(c.reachable());
}

#[test]
fn a_malformed_nmstate_file_is_one_clear_error_and_changes_nothing() {
    if !require_root("a_malformed_nmstate_file") {
        return;
    }
    let c = Case::new(true);
    c.write_primary_ip();
    // br-ex built automatically, then a malformed file appears.
    let o = c.run(&["apply"]);
    assert!(o.status.success(), "{}", c.context(&o));
    let dir = c.etc.join("nmstate/openshift");
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("cluster.yml"),
        "interfaces:\n- name: br-ex\n  type: ovs-bridge\n  state: sideways\n",
    )
    .unwrap();
    let o = c.run(&["apply"]);
    assert_eq!(o.status.code(), Some(2), "{}", log(&o));
    let last = log(&o).lines().last().unwrap_or_default().to_owned();
    assert!(
        last.starts_with("ovs-bridge-configurator: invalid NMState file")
            && last.contains("cluster.yml"),
        "{last}"
    );
    assert!(!dir.join("applied").exists());
    assert!(
        c.ready(),
        "the automatic br-ex was not torn down before the file was rejected"
    );
    assert!(c.reachable());
}

#[test]
fn plan_changes_nothing_status_reports_and_rollback_restores() {
    if !require_root("plan_status_rollback") {
        return;
    }
    let c = Case::new(true);
    c.write_primary_ip();
    let profiles = || c.profile_names();
    let before = profiles();
    let o = c.run(&["plan"]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{}", log(&o));
    assert!(text.starts_with("# interface ens3 (NodeIp)\n"), "{text}");
    for id in [
        "br-ex",
        "ovs-port-phys0",
        "ovs-port-br-ex",
        "ovs-if-phys0",
        "ovs-if-br-ex",
    ] {
        assert!(
            text.contains(&format!("# {id}.nmconnection\n[connection]\n")),
            "{id} in\n{text}"
        );
    }
    assert!(
        text.ends_with("# activation order: br-ex, ovs-if-phys0, ovs-if-br-ex\n"),
        "{text}"
    );
    let o = c.run(&["plan", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["choice"]["interface"], "ens3");
    assert_eq!(json["bridges"][0]["add"].as_array().unwrap().len(), 5);
    assert_eq!(profiles(), before, "plan touched nothing");
    assert!(c.node.ovs.vsctl(&["list-br"]).unwrap().is_empty());

    let o = c.run(&["apply", "--persist"]);
    assert!(o.status.success(), "{}", c.context(&o));
    let status = String::from_utf8_lossy(&c.run(&["status"]).stdout).into_owned();
    assert!(
        status.contains("mode: ovs-bridge-configurator (automatic)"),
        "{status}"
    );
    assert!(
        status.contains("profile ovs-if-br-ex: active, /etc/NetworkManager/system-connections/ovs-if-br-ex.nmconnection"),
        "--persist writes to /etc: {status}"
    );
    assert!(status.contains("ovs bridge br-ex: present"), "{status}");
    assert!(
        c.node
            .view
            .nm_connections()
            .join("br-ex.nmconnection")
            .exists()
    );

    let o = c.run(&["rollback"]);
    assert!(o.status.success(), "{}", log(&o));
    assert_eq!(profiles(), before);
    assert!(
        !c.node
            .view
            .nm_connections()
            .join("br-ex.nmconnection")
            .exists()
    );
    assert!(c.node.ovs.vsctl(&["list-br"]).unwrap().is_empty());
    let back = || c.ens3_has_node_ip();
    assert!(wait_for(Duration::from_secs(10), back));
    assert!(c.reachable());
}

#[test]
fn a_crash_mid_apply_is_undone_by_the_checkpoint_timeout() {
    if !require_root("a_crash_mid_apply_is_undone") {
        return;
    }
    let mut c = Case::new(true);
    let cfg = c.same_boot("checkpoint-timeout-secs = 3\n");
    c.node.ovs.kill_vswitchd();
    let mut child = c.apply_waiting_for_br_ex(&cfg, &[]);
    // The uplink was taken over, then the configurator dies without a word.
    let t = Instant::now();
    child.kill().unwrap();
    child.wait().unwrap();
    let back = || c.ens3_has_node_ip();
    assert!(
        wait_for(Duration::from_secs(15), back),
        "NetworkManager rolled back by itself"
    );
    eprintln!("restored {:?} after the crash", t.elapsed());
    assert!(
        wait_for(Duration::from_secs(5), || !c.has_ovs_if_br_ex()),
        "new profiles deleted by the rollback"
    );
    assert!(c.reachable());
}

/// NetworkManager's log says it rolled a checkpoint back.
fn nm_rolled_back(c: &Case) -> bool {
    c.node
        .nm
        .log_tail(2000)
        .lines()
        .any(|l| l.contains("checkpoint[") && l.contains("]: rollback"))
}

#[test]
fn a_slow_dhcp_server_outlasting_the_checkpoint_still_converts() {
    if !require_root("a_slow_dhcp_server_outlasting_the_checkpoint_still_converts") {
        return;
    }
    let mut c = Case::new(false);
    // br-ex's new DHCP client waits 5 s for its offer (dnsmasq holds every offer back 5 s,
    // blocking meanwhile, so a retransmitted DISCOVER delays the ACK too: about 10-12 s); the
    // checkpoint would fire after 2 s without its extension.
    c.up.delay_dhcp_offers(5).unwrap();
    let cfg = c.same_boot("checkpoint-timeout-secs = 2\n");
    let t = Instant::now();
    let o = c
        .command(&["apply", "--retry-interval-secs", "0", "-v"], &cfg)
        .output()
        .unwrap();
    let took = t.elapsed();
    eprintln!(
        "converted in {took:?}\n{}",
        c.up.dnsmasq().dhcp_log_tail(30)
    );
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(c.ready(), "{}", c.context(&o));
    assert!(
        took >= Duration::from_secs(5),
        "the offer was delayed ({took:?}): {}",
        c.up.dnsmasq().dhcp_log_tail(20)
    );
    assert!(
        log(&o).contains("checkpoint rollback moved"),
        "the checkpoint was extended: {}",
        log(&o)
    );
    assert!(!nm_rolled_back(&c), "{}", c.node.nm.log_tail(80));
    assert!(c.reachable());
}

#[test]
fn a_hung_network_manager_is_a_bounded_failure_and_the_network_comes_back() {
    if !require_root("a_hung_network_manager_is_a_bounded_failure") {
        return;
    }
    let mut c = Case::new(true);
    let cfg = c.same_boot("checkpoint-timeout-secs = 6\ndbus-timeout-secs = 2\n");
    // Without ovs-vswitchd br-ex never activates: the apply is mid-way when NM stops.
    c.node.ovs.kill_vswitchd();
    let child = c.apply_waiting_for_br_ex(&cfg, &["--retry-interval-secs", "0"]);
    let nm = c.node.nm.pid().to_string();
    let signal = |sig: &str| {
        Command::new("kill")
            .args([sig, &nm])
            .status()
            .unwrap()
            .success()
    };
    assert!(signal("-STOP"));
    let t = Instant::now();
    let o = child.wait_with_output().unwrap();
    let took = t.elapsed();
    assert!(signal("-CONT"));
    eprintln!("failed {took:?} after NetworkManager stopped");
    assert_eq!(o.status.code(), Some(1), "{}", log(&o));
    // Bounded: one extension period, one unanswered call, one unanswered rollback.
    assert!(took < Duration::from_secs(10), "{took:?}: {}", log(&o));
    assert!(
        log(&o).contains("NetworkManager did not answer within 2s"),
        "{}",
        log(&o)
    );
    // Running again, NetworkManager restores the previous network.
    assert!(
        wait_for(Duration::from_secs(20), || c.ens3_has_node_ip()),
        "{}",
        c.node.nm.log_tail(60)
    );
    assert!(
        wait_for(Duration::from_secs(5), || !c.has_ovs_if_br_ex()),
        "{}",
        c.profile_names()
    );
    assert!(nm_rolled_back(&c), "{}", c.node.nm.log_tail(80));
    assert!(c.reachable());
}

/// NetworkManager restarted (`systemctl restart`) while an apply waits for br-ex: the
/// checkpoint is gone with the old process, so the apply undoes its own profiles itself. It must
/// find them by UUID: the restarted NetworkManager numbers its profile paths anew, and a path
/// remembered from before may now be the user's own profile (deleting it left the node without
/// its uplink in a soak trial).
#[test]
fn network_manager_restarted_mid_apply_leaves_the_users_profiles_and_the_uplink() {
    if !require_root("network_manager_restarted_mid_apply") {
        return;
    }
    let mut c = Case::new(true);
    let cfg = c.same_boot("");
    // Without ovs-vswitchd br-ex never activates: the apply waits while NM restarts.
    c.node.ovs.kill_vswitchd();
    let mut child = c.apply_waiting_for_br_ex(&cfg, &["--retry-interval-secs", "0"]);
    let before = c.profile_names();
    c.node.nm.bounce().unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    // Every profile the user had is still there, and none of ours.
    let after = c.profile_names();
    for user in before
        .lines()
        .filter(|n| !n.starts_with("ovs-") && *n != "br-ex")
    {
        assert!(
            after.lines().any(|n| n == user),
            "{user} deleted:\n{after}\n{err}"
        );
    }
    assert!(
        !after.lines().any(|n| n.starts_with("ovs-") || n == "br-ex"),
        "{after}\n{err}"
    );
    assert!(
        wait_for(Duration::from_secs(20), || c.ens3_has_node_ip()),
        "{err}\n{}",
        c.node.nm.log_tail(60)
    );
    assert!(c.reachable());
}

#[test]
fn without_the_unit_grant_ovs_as_its_own_user_is_one_clear_error() {
    if !require_root("without_the_unit_grant_ovs_as_its_own_user_is_one_clear_error") {
        return;
    }
    let c = Case::new(true);
    c.write_primary_ip();
    let before = c.profile_names();
    // Root with only CAP_NET_ADMIN (the unit's set before the grant), against OVS running as
    // its own user, and the default 15-minute retry: refused at once, not retried forever.
    let o = c
        .node
        .view
        .command("setpriv")
        .args([
            "--bounding-set=-all,+net_admin",
            "--inh-caps=-all",
            "--",
            BIN,
        ])
        .args(["apply", "--config", "/dev/null", "--etc-dir"])
        .arg(&c.etc)
        .arg("--var-lib-dir")
        .arg(&c.var_lib)
        .env("DBUS_SYSTEM_BUS_ADDRESS", c.node.nm.bus_address())
        .output()
        .unwrap();
    let user = c.node.ovs.user();
    assert_eq!(o.status.code(), Some(1), "{}", log(&o));
    let text = log(&o);
    assert!(text.contains("/run/openvswitch/db.sock"), "{text}");
    assert!(
        text.contains(&format!(
            "mode 0750, owned by uid {} gid {}",
            user.uid, user.gid
        )),
        "{text}"
    );
    assert!(text.contains("needs CAP_DAC_OVERRIDE"), "{text}");
    assert!(!text.contains("retrying"), "{text}");
    assert_eq!(c.profile_names(), before, "nothing changed");
    assert!(c.ens3_has_node_ip());
}

/// The short host name the configurator looks for (`<short hostname>.yml`).
fn short_hostname() -> String {
    let name = fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    name.trim().split('.').next().unwrap().to_owned()
}

/// br-ex built automatically, then NMState files written into `/etc/nmstate/openshift`.
fn automatic_then_files(files: &[(&str, &str)]) -> (Case, PathBuf) {
    let c = Case::converted();
    let dir = c.etc.join("nmstate/openshift");
    fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        fs::write(dir.join(name), text).unwrap();
    }
    (c, dir)
}

#[test]
fn the_automatic_bridge_switches_to_a_per_host_nmstate_file_in_one_checkpoint() {
    if !require_root("the_automatic_bridge_switches_to_a_per_host_nmstate_file") {
        return;
    }
    // The per-host file wins over cluster.yml (which is not even valid NMState).
    let host = format!("{}.yml", short_hostname());
    let (c, dir) = automatic_then_files(&[
        (&host, NMSTATE_BR_EX),
        ("cluster.yml", "interfaces: [unclosed\n"),
    ]);
    let o = c.run(&["apply-nmstate"]);
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(log(&o).contains(&host), "{}", log(&o));
    assert!(
        wait_for(Duration::from_secs(5), || c.ready()),
        "{}",
        c.context(&o)
    );
    assert_eq!(
        fs::read_to_string(dir.join("applied")).unwrap(),
        NMSTATE_BR_EX
    );
    // Every profile of the automatic mode is either nmstate's now (active) or gone.
    let inactive = c.node.nm.nmcli(&["-g", "NAME,ACTIVE", "c"]).unwrap();
    assert!(
        !inactive
            .lines()
            .any(|l| (l.starts_with("ovs-") || l.starts_with("br-ex")) && l.ends_with(":no")),
        "{inactive}"
    );
    assert!(c.reachable());
    // The next `apply` leaves br-ex to NMState.
    let o = c.run(&["apply"]);
    assert!(
        log(&o).contains("Skipping: NMState owns br-ex"),
        "{}",
        log(&o)
    );
}

#[test]
fn a_valid_nmstate_file_whose_br_ex_is_unusable_keeps_the_previous_bridge() {
    if !require_root("a_valid_nmstate_file_whose_br_ex_is_unusable") {
        return;
    }
    // Valid NMState that nmstate applies and verifies, but br-ex would not carry the node IP.
    let wrong_ip = NMSTATE_BR_EX.replace("198.51.100.11", "198.51.100.99");
    let (c, dir) = automatic_then_files(&[("cluster.yml", &wrong_ip)]);
    let o = c.run(&["apply-nmstate"]);
    assert_eq!(o.status.code(), Some(1), "{}", log(&o));
    assert!(
        log(&o).contains("does not carry the node IP 198.51.100.11"),
        "{}",
        log(&o)
    );
    assert!(!dir.join("applied").exists());
    assert!(
        wait_for(Duration::from_secs(15), || c.ready()),
        "the automatic br-ex is back: {}",
        c.context(&o)
    );
    assert!(c.profile_names().lines().any(|n| n == "ovs-if-phys0"));
    assert!(c.reachable());
    // A file naming a NIC the node does not have: nmstate itself fails and rolls back.
    fs::write(
        dir.join("cluster.yml"),
        NMSTATE_BR_EX.replace("ens3", "ens9"),
    )
    .unwrap();
    let o = c.run(&["apply-nmstate"]);
    assert_eq!(o.status.code(), Some(1), "{}", log(&o));
    assert!(log(&o).contains("was rolled back"), "{}", log(&o));
    assert!(
        wait_for(Duration::from_secs(15), || c.ready()),
        "the automatic br-ex is back: {}",
        c.context(&o)
    );
    assert!(c.reachable());
}

/// `apply-nmstate --live` (what MCO's daemon restarts nmstate-configuration-live.service for when
/// it changes a file under /etc/nmstate/openshift) on a running node: another host's file, even a
/// malformed one, changes nothing; this node's malformed file exits 2 naming it, with nothing
/// changed; this node's good file takes br-ex over live and is recorded; a later file whose
/// default route goes through a gateway that is not there fails the forwarding probe and is
/// rolled back (exit 1), `applied` keeps the last good one, and a Warning Event on the Node says
/// which file and which probe.
#[test]
fn apply_nmstate_live_applies_only_this_nodes_file_and_rolls_back_a_bad_one() {
    if !require_root("apply_nmstate_live_applies_only_this_nodes_file") {
        return;
    }
    let (c, dir) = automatic_then_files(&[("some-other-host.yml", "interfaces: [unclosed\n")]);
    let (api, cfg) = api_int(&c, "");
    let live = || {
        c.command(&["apply-nmstate", "--live"], &cfg)
            .output()
            .unwrap()
    };
    let o = live();
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(log(&o).contains("nothing to apply"), "{}", log(&o));
    assert!(!dir.join("applied").exists());
    assert!(c.profile_names().lines().any(|n| n == "ovs-if-phys0"));

    let own = dir.join(format!("{}.yml", short_hostname()));
    fs::write(&own, "interfaces: [unclosed\n").unwrap();
    let o = live();
    assert_eq!(o.status.code(), Some(2), "{}", log(&o));
    assert!(log(&o).contains(&own.display().to_string()), "{}", log(&o));
    let events = api.posted_events();
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0]["reason"], "NMStateInvalid", "{events:#?}");
    assert!(!dir.join("applied").exists());
    assert!(c.profile_names().lines().any(|n| n == "ovs-if-phys0"));

    fs::write(&own, NMSTATE_BR_EX).unwrap();
    let o = live();
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(log(&o).contains("applying the NMState file"), "{}", log(&o));
    assert_eq!(
        fs::read_to_string(dir.join("applied")).unwrap(),
        NMSTATE_BR_EX
    );
    assert!(
        wait_for(Duration::from_secs(5), || c.ready()),
        "{}",
        c.context(&o)
    );
    assert!(c.reachable());

    let routes = NMSTATE_BR_EX.find("routes:").unwrap();
    let dead_gateway = format!("{}{DEAD_DEFAULT_ROUTE}", &NMSTATE_BR_EX[..routes]);
    fs::write(&own, &dead_gateway).unwrap();
    let o = live();
    assert_eq!(o.status.code(), Some(1), "{}", log(&o));
    assert!(log(&o).contains("was rolled back"), "{}", log(&o));
    // Told to the cluster: a Warning Event on this Node (its uid, so `oc describe node` shows
    // it), naming the file, the rollback and the probe that failed.
    let events = api.posted_events();
    assert_eq!(events.len(), 2, "{events:#?}");
    let e = &events[1];
    assert_eq!(e["type"], "Warning", "{e:#}");
    assert_eq!(e["reason"], "NMStateRolledBack", "{e:#}");
    assert_eq!(e["regarding"]["kind"], "Node", "{e:#}");
    assert_eq!(e["regarding"]["name"], "node1", "{e:#}");
    assert_eq!(e["regarding"]["uid"], "uid-node1", "{e:#}");
    assert_eq!(e["reportingController"], "ovs-bridge-configurator", "{e:#}");
    let note = e["note"].as_str().unwrap_or_default();
    assert!(
        note.contains(&own.display().to_string())
            && note.contains("rolled back")
            && note.contains("198.51.100.77"),
        "{e:#}"
    );
    assert_eq!(
        fs::read_to_string(dir.join("applied")).unwrap(),
        NMSTATE_BR_EX
    );
    assert!(
        wait_for(Duration::from_secs(15), || c.ready()),
        "br-ex is back: {}",
        c.context(&o)
    );
    assert!(c.reachable());

    // Started again with the same file (MCO's daemon retrying its update),
    // it fails at once naming the earlier rollback, and nothing is applied.
    let t = Instant::now();
    let o = live();
    assert_eq!(o.status.code(), Some(1), "{}", log(&o));
    assert!(
        log(&o).contains(&format!("{} was rolled back at ", own.display()))
            && log(&o).contains("it is not applied again until it changes")
            && !log(&o).contains("applying the NMState file"),
        "{}",
        log(&o)
    );
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert!(c.ready());
    let events = api.posted_events();
    assert_eq!(events.len(), 3, "{events:#?}");
    assert_eq!(
        events[2]["reason"], "NMStateRolledBackEarlier",
        "{events:#?}"
    );
    // The previous file back (MCO's rollback of its update): nothing to apply, the record stays
    // until a file is applied; a fixed file is applied.
    fs::write(&own, NMSTATE_BR_EX).unwrap();
    let o = live();
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(log(&o).contains("nothing to apply"), "{}", log(&o));
    fs::write(&own, format!("{NMSTATE_BR_EX}# fixed\n")).unwrap();
    let o = live();
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(log(&o).contains("applying the NMState file"), "{}", log(&o));
}

/// Every file under `dir`, with its content (lossy).
fn tree(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(tree(&p));
        } else {
            out.push((
                p.display().to_string(),
                String::from_utf8_lossy(&fs::read(&p).unwrap()).into_owned(),
            ));
        }
    }
    out
}

#[test]
fn collect_gathers_the_host_network_with_secrets_redacted() {
    if !require_root("collect_gathers_the_host_network_with_secrets_redacted") {
        return;
    }
    let c = Case::new(true);
    c.write_primary_ip();
    let o = c.run(&["apply"]);
    assert!(o.status.success(), "{}", c.context(&o));
    // A persistent profile with a secret, and a troubleshooting copy from an earlier failure.
    c.node
        .nm
        .nmcli(&[
            "c",
            "add",
            "type",
            "ethernet",
            "con-name",
            "secured",
            "ifname",
            "ens9",
            "autoconnect",
            "no",
            "802-1x.eap",
            "peap",
            "802-1x.identity",
            "user",
            "802-1x.phase2-auth",
            "mschapv2",
            "802-1x.password",
            "hunter2",
        ])
        .unwrap();
    let old = c
        .node
        .dir()
        .join("ovs-bridge-configurator-000000000001-abc");
    fs::create_dir(&old).unwrap();
    fs::write(old.join("br-ex.nmconnection"), "[connection]\nid=br-ex\n").unwrap();
    let dir = c.node.dir().join("bundle");
    let o = c.run(&["collect", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", log(&o));
    let files = tree(&dir);
    let get = |suffix: &str| {
        files
            .iter()
            .find(|(p, _)| p.ends_with(suffix))
            .map(|(_, t)| t.clone())
            .unwrap_or_else(|| {
                panic!(
                    "{suffix} missing: {:?}",
                    files.iter().map(|f| &f.0).collect::<Vec<_>>()
                )
            })
    };
    assert!(
        files.iter().all(|(_, t)| !t.contains("hunter2")),
        "a secret leaked"
    );
    let secured = files
        .iter()
        .find(|(p, _)| p.contains("nm/keyfiles/etc/NetworkManager/system-connections/secured"))
        .expect("the keyfile");
    assert!(secured.1.contains("password=<redacted>"), "{}", secured.1);
    assert!(get("nm/devices.txt").contains("br-ex"));
    assert!(get("nm/checkpoints.txt").contains("none"));
    assert!(
        files
            .iter()
            .any(|(p, t)| p.contains("nm/profiles/ovs-if-br-ex-") && t.contains("route-metric=48"))
    );
    assert!(get("ovs/show.txt").contains("Bridge br-ex"));
    assert!(get("ovs/Interface.json").contains("ens3"));
    assert!(get("kernel/routes-v4.txt").contains("default via 198.51.100.1 dev br-ex"));
    assert!(get("kernel/addresses.txt").contains("198.51.100.11/24"));
    assert_eq!(
        get("files/nodeip-configuration/primary-ip"),
        node_address(1)
    );
    assert!(get("files/markers.txt").contains("iface_default_hint present: \"ens3\""));
    assert!(
        get("troubleshooting/ovs-bridge-configurator-000000000001-abc/br-ex.nmconnection")
            .contains("id=br-ex")
    );
    assert!(get("plan.txt").starts_with("# interface br-ex (NodeIp)"));
    let summary = get("SUMMARY.txt");
    assert!(
        summary.contains("plan now: interface br-ex (NodeIp)"),
        "{summary}"
    );
    assert!(summary.contains("Everything was gathered."), "{summary}");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
        0o700
    );

    // The same as a tar.gz; an existing target is refused.
    let tgz = c.node.dir().join("bundle.tar.gz");
    let o = c.run(&["collect", tgz.to_str().unwrap()]);
    assert!(o.status.success(), "{}", log(&o));
    let list = Command::new("tar").arg("-tzf").arg(&tgz).output().unwrap();
    let list = String::from_utf8_lossy(&list.stdout);
    assert!(
        list.contains("ovs-bridge-configurator-collect/SUMMARY.txt"),
        "{list}"
    );
    assert!(
        list.contains("ovs-bridge-configurator-collect/ovs/show.txt"),
        "{list}"
    );
    let o = c.run(&["collect", tgz.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", log(&o));
    assert!(log(&o).contains("exists already"), "{}", log(&o));
}

/// `openssl rand` output, trimmed: random keys and secrets, new in every run, so no value can
/// be in a bundle by chance.
fn random(args: &[&str]) -> String {
    let o = Command::new("openssl")
        .arg("rand")
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "openssl rand: {}", log(&o));
    String::from_utf8(o.stdout).unwrap().trim().to_owned()
}

/// A profile of each kind that carries secrets, as keyfiles (name, text), and the secrets in
/// them.
fn profiles_with_secrets() -> (Vec<(String, String)>, Vec<String>) {
    let key = || random(&["-base64", "32"]);
    let word = || random(&["-hex", "12"]);
    let (wg_private, wg_peer_psk, wg_peer2_psk) = (key(), key(), key());
    let (wg_peer, wg_peer2) = (key(), key());
    let (wifi_psk, eap_password, tls_key_password) = (word(), word(), word());
    // A private key given inline (NetworkManager's `data:` blob): key material itself.
    let tls_key = random(&["-base64", "48"]);
    let (vpn_password, vpn_token, gsm_pin, gsm_password) = (word(), word(), word(), word());
    let (mka_cak, pppoe_password) = (random(&["-hex", "16"]), word());
    let mka_ckn = random(&["-hex", "32"]);
    let off = "[ipv4]\nmethod=disabled\n\n[ipv6]\nmethod=disabled\n";
    let files = [
        (
            "wg-secret",
            format!(
                "[connection]\nid=wg-secret\ntype=wireguard\ninterface-name=wg9\nautoconnect=false\n\n\
                 [wireguard]\nprivate-key={wg_private}\nlisten-port=51820\n\n\
                 [wireguard-peer.{wg_peer}]\nendpoint=192.0.2.50:51820\npreshared-key={wg_peer_psk}\n\
                 preshared-key-flags=0\nallowed-ips=203.0.113.0/24;\n\n\
                 [wireguard-peer.{wg_peer2}]\npreshared-key={wg_peer2_psk}\npreshared-key-flags=0\n\
                 allowed-ips=192.0.2.128/25;\n\n{off}"
            ),
        ),
        (
            "wifi-psk",
            format!(
                "[connection]\nid=wifi-psk\ntype=wifi\ninterface-name=wlan9\nautoconnect=false\n\n\
                 [wifi]\nmode=infrastructure\nssid=onprem-psk\n\n\
                 [wifi-security]\nkey-mgmt=wpa-psk\npsk={wifi_psk}\n\n{off}"
            ),
        ),
        (
            "wifi-eap",
            format!(
                "[connection]\nid=wifi-eap\ntype=wifi\ninterface-name=wlan8\nautoconnect=false\n\n\
                 [wifi]\nmode=infrastructure\nssid=onprem-eap\n\n\
                 [wifi-security]\nkey-mgmt=wpa-eap\n\n\
                 [802-1x]\neap=peap;\nidentity=user\nphase2-auth=mschapv2\npassword={eap_password}\n\n{off}"
            ),
        ),
        (
            "wired-tls",
            format!(
                "[connection]\nid=wired-tls\ntype=ethernet\ninterface-name=ens9\nautoconnect=false\n\n\
                 [802-1x]\neap=tls;\nidentity=host.example.test\n\
                 client-cert=/etc/pki/onprem/client.pem\n\
                 private-key=data:;base64,{tls_key}\nprivate-key-password={tls_key_password}\n\n{off}"
            ),
        ),
        (
            "vpn-secret",
            format!(
                "[connection]\nid=vpn-secret\ntype=vpn\nautoconnect=false\n\n\
                 [vpn]\nservice-type=org.freedesktop.NetworkManager.openvpn\n\
                 connection-type=password\nremote=vpn.example.test\nusername=user\n\
                 password-flags=0\n\n\
                 [vpn-secrets]\npassword={vpn_password}\ntoken={vpn_token}\n\n\
                 [ipv4]\nmethod=auto\n\n[ipv6]\nmethod=auto\n"
            ),
        ),
        (
            "gsm-pin",
            format!(
                "[connection]\nid=gsm-pin\ntype=gsm\nautoconnect=false\n\n\
                 [gsm]\napn=internet.example.test\nusername=user\npassword={gsm_password}\n\
                 pin={gsm_pin}\n\n[ipv4]\nmethod=auto\n\n[ipv6]\nmethod=auto\n"
            ),
        ),
        (
            "macsec-psk",
            format!(
                "[connection]\nid=macsec-psk\ntype=macsec\ninterface-name=macsec9\nautoconnect=false\n\n\
                 [macsec]\nparent=ens3\nmode=0\nmka-cak={mka_cak}\nmka-ckn={mka_ckn}\n\n{off}"
            ),
        ),
        (
            "pppoe-secret",
            format!(
                "[connection]\nid=pppoe-secret\ntype=pppoe\ninterface-name=ppp9\nautoconnect=false\n\n\
                 [ethernet]\n\n[pppoe]\nparent=ens3\nusername=user\npassword={pppoe_password}\n\n\
                 [ppp]\n\n[ipv4]\nmethod=auto\n\n[ipv6]\nmethod=auto\n"
            ),
        ),
    ];
    let secrets = vec![
        wg_private,
        wg_peer_psk,
        wg_peer2_psk,
        wifi_psk,
        eap_password,
        tls_key,
        tls_key_password,
        vpn_password,
        vpn_token,
        gsm_pin,
        gsm_password,
        mka_cak,
        pppoe_password,
    ];
    let files = files
        .into_iter()
        .map(|(n, t)| (format!("{n}.nmconnection"), t))
        .collect();
    (files, secrets)
}

/// Every string NetworkManager returns from `GetSecrets` for each setting of profile `id` (the
/// values it calls secrets; none shorter than 8 characters is used here), through `busctl` on
/// the node's bus.
fn secrets_network_manager_holds(c: &Case, id: &str) -> Vec<String> {
    let busctl = |path: &str, interface: &str, method: &str, arg: Option<&str>| {
        let o = Command::new("busctl")
            .arg(format!("--address={}", c.node.nm.bus_address()))
            .args([
                "--json=short",
                "call",
                "org.freedesktop.NetworkManager",
                path,
            ])
            .args([interface, method])
            .args(arg.map(|a| ["s", a]).iter().flatten())
            .output()
            .unwrap();
        // A setting without system-owned secrets sends NetworkManager to the (absent) agents.
        if String::from_utf8_lossy(&o.stderr).contains("No agents were available") {
            return serde_json::Value::Null;
        }
        assert!(o.status.success(), "{method} {id} {arg:?}: {}", log(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()["data"][0].take()
    };
    let uuid = c
        .node
        .nm
        .nmcli(&["-g", "connection.uuid", "connection", "show", id])
        .unwrap();
    let path = busctl(
        "/org/freedesktop/NetworkManager/Settings",
        "org.freedesktop.NetworkManager.Settings",
        "GetConnectionByUuid",
        Some(uuid.trim()),
    );
    let path = path.as_str().unwrap().to_owned();
    let connection = "org.freedesktop.NetworkManager.Settings.Connection";
    let settings = busctl(&path, connection, "GetSettings", None);
    let mut found = Vec::new();
    for setting in settings.as_object().unwrap().keys() {
        let secrets = busctl(&path, connection, "GetSecrets", Some(setting));
        strings_in(&secrets, &mut found);
    }
    found.retain(|s| s.len() >= 8);
    found
}

/// The string leaves of busctl's JSON: the values of the variants, not their type signatures,
/// nor the public key that names each WireGuard peer whose pre-shared key is returned.
fn strings_in(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings_in(x, out)),
        serde_json::Value::Object(m) => m
            .iter()
            .filter(|(k, _)| !["type", "public-key"].contains(&k.as_str()))
            .for_each(|(_, x)| strings_in(x, out)),
        _ => {}
    }
}

/// A support bundle never holds a secret. NetworkManager holds a profile of each kind
/// that carries secrets (WireGuard with peers, Wi-Fi WPA-PSK and WPA-EAP, 802.1X with an
/// inline private key and its password, a VPN with secrets, GSM with a PIN, MACsec in PSK mode,
/// PPPoE), an NMState file and a troubleshooting copy carry some too; no secret value appears in
/// any file of the bundle or in its tar.gz, and every secret NetworkManager itself reports
/// (`GetSecrets`) is among those hidden.
#[test]
fn a_support_bundle_holds_no_secret_of_any_kind() {
    if !require_root("a_support_bundle_holds_no_secret_of_any_kind") {
        return;
    }
    let c = Case::new(true);
    let (files, mut secrets) = profiles_with_secrets();
    use std::os::unix::fs::PermissionsExt;
    for (name, text) in &files {
        let path = c.node.view.nm_connections().join(name);
        fs::write(&path, text).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    }
    c.node.nm.nmcli(&["connection", "reload"]).unwrap();
    let loaded = c
        .node
        .nm
        .nmcli(&["-g", "NAME", "connection", "show"])
        .unwrap();
    for (name, _) in &files {
        let id = name.trim_end_matches(".nmconnection");
        assert!(
            loaded.lines().any(|l| l == id),
            "NetworkManager did not load {id}: {loaded}\n{}",
            c.node.nm.log_tail(40)
        );
        let held = secrets_network_manager_holds(&c, id);
        assert!(!held.is_empty(), "{id}: NetworkManager reports no secret");
        for h in held {
            if !secrets.contains(&h) {
                secrets.push(h);
            }
        }
    }
    // An NMState file with 802.1X and MACsec secrets, and a troubleshooting copy with a PSK.
    let (nmstate_password, nmstate_cak) = (random(&["-hex", "12"]), random(&["-hex", "16"]));
    let nmstate_dir = c.etc.join("nmstate/openshift");
    fs::create_dir_all(&nmstate_dir).unwrap();
    fs::write(
        nmstate_dir.join(format!("{}.yml", short_hostname())),
        format!(
            "interfaces:\n- name: ens9\n  type: ethernet\n  802.1x:\n    identity: user\n    \
             eap-methods: [peap]\n    phase2-auth: mschapv2\n    password: {nmstate_password}\n\
             - name: macsec9\n  type: macsec\n  macsec: {{base-iface: ens3, encrypt: true, \
             mka-cak: {nmstate_cak}, mka-ckn: {}, port: 0, validation: strict, send-sci: true}}\n",
            random(&["-hex", "32"])
        ),
    )
    .unwrap();
    let copy_psk = random(&["-hex", "12"]);
    let old = c
        .node
        .dir()
        .join("ovs-bridge-configurator-000000000002-def");
    fs::create_dir(&old).unwrap();
    fs::write(
        old.join("wifi.nmconnection"),
        format!("[connection]\nid=wifi\n\n[802-11-wireless-security]\npsk={copy_psk}\n"),
    )
    .unwrap();
    secrets.extend([nmstate_password, nmstate_cak, copy_psk]);

    let dir = c.node.dir().join("bundle");
    let o = c.run(&["collect", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", log(&o));
    let bundle = tree(&dir);
    for (path, text) in &bundle {
        for s in &secrets {
            assert!(
                !text.contains(s.as_str()),
                "a secret ({s}) leaked into {path}:\n{text}"
            );
        }
    }
    // What was gathered is there, with its secrets marked as hidden.
    for (name, _) in &files {
        let keyfile = bundle
            .iter()
            .find(|(p, _)| {
                p.ends_with(&format!(
                    "nm/keyfiles/etc/NetworkManager/system-connections/{name}"
                ))
            })
            .unwrap_or_else(|| panic!("{name} is not in the bundle"));
        assert!(keyfile.1.contains("=<redacted>"), "{}", keyfile.1);
        let id = name.trim_end_matches(".nmconnection");
        assert!(
            bundle
                .iter()
                .any(|(p, _)| p.contains(&format!("nm/profiles/{id}-"))),
            "{id}'s D-Bus settings are not in the bundle"
        );
    }
    let wg = &bundle
        .iter()
        .find(|(p, _)| p.ends_with("wg-secret.nmconnection"))
        .unwrap()
        .1;
    assert_eq!(wg.matches("preshared-key=<redacted>").count(), 2, "{wg}");
    let nmstate = &bundle.iter().find(|(p, _)| p.ends_with(".yml")).unwrap().1;
    assert!(
        nmstate.contains("password: <redacted>") && nmstate.contains("mka-cak: <redacted>"),
        "{nmstate}"
    );
    assert!(nmstate.contains("identity: user"), "{nmstate}");

    // The same as a tar.gz: nothing in any member.
    let tgz = c.node.dir().join("bundle.tar.gz");
    let o = c.run(&["collect", tgz.to_str().unwrap()]);
    assert!(o.status.success(), "{}", log(&o));
    let members = Command::new("tar").arg("-xzOf").arg(&tgz).output().unwrap();
    assert!(members.status.success());
    let members = String::from_utf8_lossy(&members.stdout);
    assert!(members.contains("<redacted>"), "the archive is empty");
    for s in &secrets {
        assert!(
            !members.contains(s.as_str()),
            "a secret leaked into the tar.gz"
        );
    }
}

/// The gateway probe's own socket against a real neighbour. An IPv4 gateway and an
/// IPv6 link-local one (reached through its scope, the interface) answer echo requests; the
/// socket is bound to the interface it is given, so a gateway asked through an interface that
/// does not lead to it does not answer, although the node's routes reach it; a gateway that
/// ignores echo requests counts by its REACHABLE neighbour entry only.
#[test]
fn the_gateway_probe_hears_gateways_through_their_interface_only() {
    if !require_root("the_gateway_probe_hears_gateways_through_their_interface_only") {
        return;
    }
    use integration::Netns;
    use ovs_bridge_configurator::probe::{Answer, Gateway, gateway};
    let node = Netns::new("probe-node").unwrap();
    let router = Netns::new("probe-gw").unwrap();
    for ns in [&node, &router] {
        ns.sysctl("net.ipv6.conf.default.accept_dad", "0").unwrap();
    }
    node.veth_to("up0", &router, "gw0").unwrap();
    node.nic("other0").unwrap();
    node.addr("up0", "192.0.2.10/24", &[]).unwrap();
    node.addr("other0", "198.51.100.10/24", &[]).unwrap();
    router.addr("gw0", "192.0.2.1/24", &[]).unwrap();
    router.addr("gw0", "fe80::1/64", &["nodad"]).unwrap();
    let gateway = |ip: &str, interface: &str| Gateway {
        ip: ip.parse().unwrap(),
        interface: interface.to_owned(),
        ifindex: node.ifindex(interface).unwrap(),
        metric: 0,
    };
    let probe = |gateways: Vec<Gateway>| {
        node.run_in(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(gateway::answering(&gateways))
                .into_iter()
                .map(|h| h.answer)
                .collect::<Vec<_>>()
        })
        .unwrap()
    };
    let answers = probe(vec![
        gateway("192.0.2.1", "up0"),
        gateway("fe80::1", "up0"),
        gateway("192.0.2.1", "other0"),
    ]);
    assert_eq!(answers, [Some(Answer::Echo), Some(Answer::Echo), None]);
    // ICMP filtered: the neighbour answered ARP a moment ago, which is all that counts then.
    router.sysctl("net.ipv4.icmp_echo_ignore_all", "1").unwrap();
    node.exec("ping", &["-c1", "-W1", "192.0.2.1"]).unwrap_err();
    let answers = probe(vec![gateway("192.0.2.1", "up0")]);
    assert_eq!(answers, [Some(Answer::Neighbour)]);
}

/// What a user sees when it goes wrong. A state with an interface type nmstate does not
/// know is bad input (exit 2, naming it) before anything else; with NetworkManager stopped,
/// `show`, `diff` and `apply-live` say so in one line (the bus, "is NetworkManager running?"),
/// exit 1, and `apply-live` does not claim to have rolled anything back.
#[test]
fn bad_input_and_a_stopped_network_manager_are_said_once() {
    if !require_root("bad_input_and_a_stopped_network_manager_are_said_once") {
        return;
    }
    let mut c = Case::new(true);
    c.write_primary_ip();
    let bogus = c.node.dir().join("bogus.yml");
    fs::write(
        &bogus,
        "interfaces:\n- name: eth9\n  type: bogus\n  state: up\n",
    )
    .unwrap();
    let o = c.run(&["apply-live", bogus.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", log(&o));
    assert!(
        log(&o).contains("interface eth9: type \"bogus\" is not one nmstate knows"),
        "{}",
        log(&o)
    );
    let good = c.node.dir().join("good.yml");
    fs::write(
        &good,
        "interfaces:\n- name: ens3\n  type: ethernet\n  mtu: 1400\n",
    )
    .unwrap();
    c.node.nm.stop();
    for args in [
        vec!["show"],
        vec!["diff", good.to_str().unwrap()],
        vec!["apply-live", good.to_str().unwrap()],
    ] {
        let o = c.run(&args);
        let text = log(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {text}");
        let said: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("ovs-bridge-configurator:"))
            .collect();
        assert_eq!(said.len(), 1, "{args:?}: {text}");
        assert!(
            said[0].contains("NetworkManager is not on the system bus")
                && said[0].contains("is NetworkManager running?")
                && !said[0].contains("rolled back"),
            "{args:?}: {text}"
        );
    }
    c.node.nm.start_again().unwrap();
}

/// Kubernetes-nmstate's manifests as they are. A NodeNetworkConfigurationPolicy
/// of a shape its documentation shows (a Linux bridge on a NIC; the VLAN and bond ones need a
/// kernel with 8021q and bonding: `tests/real_kernel.rs`) applies live and leaves its bridge up;
/// one whose desiredState nmstate refuses exits 2 naming the policy and the file, with nothing
/// changed; `show --node-network-state` prints the node's NodeNetworkState document.
#[test]
fn a_kubernetes_nmstate_policy_applies_live_as_it_is() {
    if !require_root("a_kubernetes_nmstate_policy_applies_live_as_it_is") {
        return;
    }
    let c = Case::converted();
    c.node.ns.nic("eth3").unwrap();
    let bridge = "- name: br1\n  type: linux-bridge\n  state: up\n  ipv4:\n    enabled: false\n  \
                  ipv6:\n    enabled: false\n  bridge:\n    options:\n      stp:\n        \
                  enabled: false\n    port:\n    - name: eth3\n";
    let file = c.node.dir().join("br1-eth3.yaml");
    fs::write(&file, policy("v1", "br1-eth3", bridge)).unwrap();
    let o = c.run(&["apply-live", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", c.context(&o));
    let shown = c.node.ns.ip(&["-br", "link", "show", "br1"]).unwrap();
    assert!(shown.contains("UP"), "{shown}");
    let master = c.node.ns.ip(&["-o", "link", "show", "eth3"]).unwrap();
    assert!(master.contains("master br1"), "{master}");

    let bad = c.node.dir().join("bad-bridge.yaml");
    let refused = bridge
        .replace("br1", "br2")
        .replace("enabled: false\n    port", "enabled: maybe\n    port");
    fs::write(&bad, policy("v1beta1", "bad-bridge", &refused)).unwrap();
    let o = c.run(&["apply-live", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", log(&o));
    assert!(
        log(&o).contains(&format!(
            "invalid NMState from {}: NodeNetworkConfigurationPolicy bad-bridge: spec.desiredState:",
            bad.display()
        )),
        "{}",
        log(&o)
    );
    assert!(c.node.ns.ip(&["link", "show", "br2"]).is_err());

    let o = c.run(&["show", "--node-network-state"]);
    assert!(o.status.success(), "{}", log(&o));
    let shown = String::from_utf8_lossy(&o.stdout);
    assert!(
        shown.contains("kind: NodeNetworkState") && shown.contains("name: br1"),
        "{shown}"
    );
}

/// An API server on the machine network (api-int's address, a route away from the node) that
/// knows this node (`node1`), Ready; and a config naming its kubeconfig and the node, with
/// `extra` lines.
fn api_int(c: &Case, extra: &str) -> (FakeApiServer, PathBuf) {
    c.up.ns.addr("br0", &format!("{API_INT}/32"), &[]).unwrap();
    let listener =
        c.up.ns
            .run_in(|| std::net::TcpListener::bind(format!("{API_INT}:6443")))
            .unwrap()
            .unwrap();
    let api = FakeApiServer::start_as(
        c.node.dir(),
        vec![apiserver::node("node1", true, &[&node_address(1)], &[])],
        listener,
        &format!("{API_INT}:6443"),
    )
    .unwrap();
    let cfg = c.node.dir().join("live.toml");
    fs::write(
        &cfg,
        format!(
            "{extra}kubeconfig = \"{}\"\nnode-name = \"node1\"\n",
            api.kubeconfig().display()
        ),
    )
    .unwrap();
    (api, cfg)
}

/// `apply-live` on a converted node. An additive change (an address on a second NIC)
/// is committed and stays until the node's next boot, with nothing written under /etc/nmstate;
/// a change that cuts the node off (its default route moved to a gateway that does not exist)
/// fails the forwarding probe and is rolled back within the probe's timeout; bad YAML and a
/// change the guard rails refuse exit 2 with nothing changed; forced, a change that takes the
/// node IP off br-ex is rolled back.
#[test]
fn a_live_change_is_committed_and_one_that_cuts_the_node_off_is_rolled_back() {
    if !require_root("a_live_change_is_committed_and_one_that_cuts_the_node_off") {
        return;
    }
    let c = Case::converted();
    let up2 = integration::Netns::new("up2").unwrap();
    up2.veth_to("eth0", &c.node.ns, "ens4").unwrap();
    // kubernetes-nmstate's probes: the upstream resolver (for its own zone: no Internet here)
    // and an API server on the machine network (api-int's address) that knows this node, Ready.
    fs::write(c.etc.join("resolv.conf"), format!("nameserver {ROUTER}\n")).unwrap();
    let (api, cfg) = api_int(&c, &format!("dns-probe-name = \"{ZONE}\"\n"));
    let file = c.node.dir().join("live.yml");
    let run = |args: &[&str], yaml: &str| {
        fs::write(&file, yaml).unwrap();
        let mut all = args.to_vec();
        let path = file.display().to_string();
        all.push(&path);
        c.command(&all, &cfg).output().unwrap()
    };
    let live = |yaml: &str| run(&["apply-live"], yaml);
    // After a rollback: br-ex carries the node IP with its default route through the real
    // gateway again (the rollback re-activates br-ex's profile: a moment without the node IP),
    // and the node is reachable.
    let back = |o: &std::process::Output| {
        assert!(
            wait_for(Duration::from_secs(15), || c.ready()),
            "br-ex is back: {}",
            c.context(o)
        );
        assert!(c.reachable());
    };
    let ens4_address = "interfaces:
- name: ens4
  type: ethernet
  state: up
  ipv4: {enabled: true, dhcp: false, address: [{ip: 192.0.2.20, prefix-length: 24}]}
";
    // Looked at first: the difference is ens4's address, and nothing changed by looking.
    let o = run(&["diff"], ens4_address);
    assert!(o.status.success(), "{}", log(&o));
    let diff = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        diff.contains("name: ens4") && diff.contains("192.0.2.20") && !diff.contains("br-ex"),
        "{diff}"
    );
    let ens4 = || {
        c.node
            .ns
            .ip(&["-br", "addr", "show", "dev", "ens4"])
            .unwrap()
    };
    assert!(!ens4().contains("192.0.2.20"), "diff changed nothing");

    let o = live(ens4_address);
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(log(&o).contains("applied and committed in"), "{}", log(&o));
    eprintln!("the additive change:\n{}", log(&o));
    for probed in [
        format!("nameserver {ROUTER} answers a lookup of {ZONE}: it must answer"),
        format!("nameserver {ROUTER} answers, "),
        format!("the API server https://{API_INT}:6443/ answers (node node1 Ready): it must"),
        "the API server answers and the node is Ready, ".to_owned(),
    ] {
        assert!(log(&o).contains(&probed), "{probed:?} in\n{}", log(&o));
    }
    assert!(ens4().contains("192.0.2.20/24"), "{}", ens4());
    // Until the next boot: the profile is in NetworkManager's memory (/run), not /etc.
    let ens4_profile = || {
        c.node
            .nm
            .nmcli(&["-g", "FILENAME,DEVICE", "connection", "show", "--active"])
            .unwrap()
            .lines()
            .find(|l| l.ends_with(":ens4"))
            .map(str::to_owned)
            .unwrap_or_default()
    };
    assert!(ens4_profile().starts_with("/run/"), "{:?}", ens4_profile());
    let o = run(&["diff"], ens4_address);
    assert!(o.status.success(), "{}", log(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).trim().is_empty()
            && log(&o).contains("the node already has this state"),
        "{}",
        log(&o)
    );
    let shown =
        String::from_utf8_lossy(&c.command(&["show"], &cfg).output().unwrap().stdout).into_owned();
    let node_ip = node_address(1).to_string();
    assert!(
        shown.contains("192.0.2.20") && shown.contains(&node_ip) && shown.contains("br-ex"),
        "{shown}"
    );
    // Asked to persist: keyfiles under /etc.
    let o = run(
        &["apply-live", "--persist"],
        &ens4_address.replace("192.0.2.20", "192.0.2.21"),
    );
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(ens4_profile().starts_with("/etc/"), "{:?}", ens4_profile());
    assert!(ens4().contains("192.0.2.21/24"), "{}", ens4());
    assert!(c.ready() && c.reachable());
    assert!(
        !c.etc.join("nmstate").exists(),
        "a live change writes nothing under /etc/nmstate"
    );

    let o = live(DEAD_DEFAULT_ROUTE);
    assert_eq!(o.status.code(), Some(1), "{}", log(&o));
    assert!(
        log(&o).contains("was rolled back after")
            && log(&o).contains("the change made 198.51.100.77 the default gateway"),
        "{}",
        log(&o)
    );
    back(&o);
    // The same with a profile the change adds (ens5 has none): the rollback deletes it again.
    let up3 = integration::Netns::new("up3").unwrap();
    up3.veth_to("eth0", &c.node.ns, "ens5").unwrap();
    let o = live(&format!(
        "interfaces:
- name: ens5
  type: ethernet
  state: up
  ipv4: {{enabled: true, dhcp: false, address: [{{ip: 203.0.113.20, prefix-length: 24}}]}}
{DEAD_DEFAULT_ROUTE}"
    ));
    assert_eq!(o.status.code(), Some(1), "{}", log(&o));
    assert!(
        log(&o).contains(r#"adding profiles for ["ens5"]"#)
            && log(&o).contains("was rolled back after"),
        "{}",
        log(&o)
    );
    back(&o);
    let profiles = c
        .node
        .nm
        .nmcli(&["-g", "NAME", "connection", "show"])
        .unwrap();
    assert!(!profiles.lines().any(|l| l == "ens5"), "{profiles}");
    let ens5 = c
        .node
        .ns
        .ip(&["-br", "addr", "show", "dev", "ens5"])
        .unwrap();
    assert!(!ens5.contains("203.0.113.20"), "{ens5}");
    // The gateway replaced by one that answers (a second address of the router): committed,
    // and back again the same way.
    c.up.ns.addr("br0", "198.51.100.254/24", &[]).unwrap();
    let via = |gateway: &str| {
        format!(
            "routes:
  config:
  - destination: 0.0.0.0/0
    state: absent
  - destination: 0.0.0.0/0
    next-hop-address: {gateway}
    next-hop-interface: br-ex
"
        )
    };
    for gateway in ["198.51.100.254", ROUTER] {
        let o = live(&via(gateway));
        assert!(o.status.success(), "{}", c.context(&o));
        let answered = format!("the new gateway {gateway} answers through br-ex");
        assert!(log(&o).contains(&answered), "{answered:?} in\n{}", log(&o));
        let route = c.node.ns.ip(&["route", "show", "default"]).unwrap();
        assert!(
            route.starts_with(&format!("default via {gateway} dev br-ex")),
            "{route}"
        );
        assert!(c.reachable());
    }

    // Only the API server cut off (a host route to api-int through a next hop that is not
    // there): the gateway and the resolver still answer, the API probe rolls it back.
    let o = live(&format!(
        "routes:
  config:
  - destination: {API_INT}/32
    next-hop-address: 198.51.100.77
    next-hop-interface: br-ex
"
    ));
    assert_eq!(o.status.code(), Some(1), "{}", log(&o));
    let named = format!(
        "the API server https://{API_INT}:6443/ answered before the change and not within 8s"
    );
    assert!(log(&o).contains(&named), "{named:?} in\n{}", log(&o));
    let route = c.node.ns.ip(&["route", "show", API_INT]).unwrap();
    assert!(
        route.trim().is_empty(),
        "the host route is rolled back: {route}"
    );
    back(&o);

    let o = live("interfaces: [");
    assert_eq!(o.status.code(), Some(2), "{}", log(&o));
    assert!(log(&o).contains("invalid NMState from"), "{}", log(&o));
    let o = live("interfaces:\n- name: br-ex\n  type: ovs-bridge\n  state: absent\n");
    assert_eq!(o.status.code(), Some(2), "{}", log(&o));
    assert!(log(&o).contains("it removes br-ex"), "{}", log(&o));
    assert!(c.ready() && c.reachable());
    // Forced past the guard rails, a change that takes the node IP off br-ex (its address
    // replaced) is applied, fails the br-ex check and is rolled back: the node IP comes back.
    let o = run(
        &["apply-live", "--force"],
        "interfaces:
- name: br-ex
  type: ovs-interface
  state: up
  ipv4: {enabled: true, dhcp: false, address: [{ip: 198.51.100.99, prefix-length: 24}]}
",
    );
    assert_eq!(o.status.code(), Some(1), "{}", log(&o));
    assert!(
        log(&o).contains("was rolled back") && log(&o).contains("does not carry the node IP"),
        "{}",
        log(&o)
    );
    back(&o);

    // Before kubelet joined there is no kubelet kubeconfig: the bootstrap one
    // (/etc/kubernetes/kubeconfig, api-int) stands in for the API-server probe.
    fs::write(
        &cfg,
        format!(
            "dns-probe-name = \"{ZONE}\"\nkubeconfig = \"{}\"\nnode-name = \"node1\"\n",
            c.node.dir().join("no-kubelet-kubeconfig").display()
        ),
    )
    .unwrap();
    fs::create_dir_all(c.etc.join("kubernetes")).unwrap();
    fs::copy(api.kubeconfig(), c.etc.join("kubernetes/kubeconfig")).unwrap();
    let o = live(&ens4_address.replace("192.0.2.20", "192.0.2.21"));
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(
        log(&o).contains(&format!("the API server https://{API_INT}:6443/ answers")),
        "{}",
        log(&o)
    );
}

/// One change of the node's network at a time. While another change holds the lock
/// (here the test, as `apply`), `apply-live` waits up to `--lock-wait-secs` and then exits
/// naming the holder, with nothing changed; the boot-time `apply` waits for the holder to
/// finish and then runs.
#[test]
fn a_change_waits_for_the_one_that_holds_the_network() {
    if !require_root("a_change_waits_for_the_one_that_holds_the_network") {
        return;
    }
    let c = Case::new(true);
    c.write_primary_ip();
    let lock = lock::path(c.node.view.run_dir());
    let held = lock::ChangeLock::acquire(&lock, "apply", Duration::ZERO).unwrap();
    let file = c.node.dir().join("live.yml");
    fs::write(
        &file,
        "interfaces:\n- name: ens3\n  type: ethernet\n  mtu: 1400\n",
    )
    .unwrap();
    let o = c
        .command(
            &[
                "apply-live",
                &file.display().to_string(),
                "--lock-wait-secs",
                "1",
            ],
            Path::new("/dev/null"),
        )
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", log(&o));
    assert!(
        log(&o).contains(&format!(
            "another change of the node's network is running (apply, pid {})",
            std::process::id()
        )),
        "{}",
        log(&o)
    );
    let mtu = c.node.ns.ip(&["-o", "link", "show", "ens3"]).unwrap();
    assert!(mtu.contains("mtu 1500"), "nothing changed: {mtu}");
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(2));
        drop(held);
    });
    let t = Instant::now();
    let o = c.run(&["apply"]);
    release.join().unwrap();
    assert!(o.status.success() && c.ready(), "{}", c.context(&o));
    assert!(
        t.elapsed() >= Duration::from_secs(2),
        "apply waited for the holder"
    );
}

/// Whether the node's default route goes through the next hop that is not there.
fn dead_route_in_place(c: &Case) -> bool {
    c.node
        .ns
        .ip(&["route", "show", "default"])
        .unwrap_or_default()
        .contains("198.51.100.77")
}

/// The live apply's checkpoint is a dead man's switch: while the apply runs, NetworkManager
/// never rolls back under it, however long its probes wait (here 20 s against a checkpoint of
/// 4 s), and the apply rolls its failed change back itself.
#[test]
fn a_live_apply_whose_probes_wait_long_is_never_rolled_back_under_it() {
    if !require_root("a_live_apply_whose_probes_wait_long") {
        return;
    }
    let c = Case::converted();
    let file = c.node.dir().join("dead.yml");
    fs::write(&file, DEAD_DEFAULT_ROUTE).unwrap();
    let cfg = c.node.dir().join("kill.toml");
    fs::write(
        &cfg,
        "live-checkpoint-timeout-secs = 4\nlive-probe-timeout-secs = 20\n",
    )
    .unwrap();
    let slow = c
        .command(&["apply-live", &file.display().to_string()], &cfg)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    assert!(
        wait_for(Duration::from_secs(20), || dead_route_in_place(&c)),
        "the change was applied"
    );
    let applied = Instant::now();
    while applied.elapsed() < Duration::from_secs(12) {
        assert!(
            dead_route_in_place(&c),
            "rolled back {:.1} s after the change, under a live apply",
            applied.elapsed().as_secs_f64()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let o = slow.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", log(&o));
    assert!(log(&o).contains("was rolled back after"), "{}", log(&o));
    assert!(
        wait_for(Duration::from_secs(10), || !dead_route_in_place(&c)
            && c.ready()),
        "rolled back by the apply itself: {:?}",
        c.node.ns.ip(&["route", "show", "default"])
    );
}

/// SIGKILLed after its change and before its commit, a live apply's change is undone at once
/// by the process the apply left behind, as the apply would have undone it: an address
/// NetworkManager did not configure on br-ex (a stand-in for keepalived's VIP) stays; a profile
/// the change added (a NIC's) is deleted; a change meant to outlive a reboot (`--persist`)
/// leaves no keyfile under /etc. Killed together with that process (its process group),
/// NetworkManager's checkpoint alone undoes it (`live-checkpoint-timeout-secs`, 8 s by default)
/// within 15 s of the kill, re-activating br-ex, which takes that address away.
#[test]
fn a_live_apply_killed_before_its_commit_is_undone_by_its_keeper_or_else_the_checkpoint() {
    if !require_root("a_live_apply_killed_before_its_commit") {
        return;
    }
    let c = Case::converted();
    let file = c.node.dir().join("dead.yml");
    fs::write(&file, DEAD_DEFAULT_ROUTE).unwrap();
    c.node
        .ns
        .ip(&["addr", "add", STAND_IN_VIP, "dev", "br-ex"])
        .unwrap();
    let (took, log) = kill_after_change(&c, &[&file], (Kill::Alone, &|| {}));
    let keeper = log.lines().find(|l| l.contains("undone in"));
    eprintln!(
        "killed apply-live: undone {:.2} s after the kill ({keeper:?})",
        took.as_secs_f64()
    );
    assert!(
        log.contains("the killed change was undone in") && log.contains("put back"),
        "{log}"
    );
    assert!(
        took <= Duration::from_secs(5),
        "before the checkpoint: {took:?}"
    );
    assert!(stand_in_vip_on_br_ex(&c), "the VIP stays: {log}");
    assert!(c.reachable());

    killed_persisted_change_adding_a_nic_leaves_nothing(&c);

    let (took, log) = kill_after_change(&c, &[&file], (Kill::WithItsKeeper, &|| {}));
    eprintln!(
        "killed apply-live and its keeper: rolled back by the checkpoint {:.1} s after the kill",
        took.as_secs_f64()
    );
    assert!(!log.contains("undone"), "{log}");
    assert!(
        took <= Duration::from_secs(15),
        "bounded by the checkpoint: {took:?}"
    );
    assert!(
        !stand_in_vip_on_br_ex(&c),
        "NetworkManager's rollback re-activated br-ex"
    );
    assert!(c.reachable());
}

/// A change meant to outlive a reboot (`--persist`) that adds a NIC's profile beside the dead
/// route, SIGKILLed: the process it left behind deletes the profile and puts br-ex's back where
/// it was stored, leaving no keyfile under /etc; the stand-in VIP stays.
fn killed_persisted_change_adding_a_nic_leaves_nothing(c: &Case) {
    c.node.ns.nic("eth3").unwrap();
    let with_nic = c.node.dir().join("nic-and-dead.yml");
    fs::write(
        &with_nic,
        format!(
            "interfaces:\n- name: eth3\n  type: ethernet\n  state: up\n  ipv4:\n    \
             enabled: true\n    dhcp: false\n    address:\n    - ip: 192.0.2.33\n      \
             prefix-length: 24\n{DEAD_DEFAULT_ROUTE}"
        ),
    )
    .unwrap();
    let keyfiles = || fs::read_dir(c.node.view.nm_connections()).unwrap().count();
    let before = keyfiles();
    let persist = Path::new("--persist");
    let written = || {
        assert!(
            keyfiles() > before,
            "the change wrote its keyfiles under /etc"
        )
    };
    let (_, log) = kill_after_change(c, &[persist, &with_nic], (Kill::Alone, &written));
    assert!(log.contains("put back"), "{log}");
    let eth3 = c
        .node
        .ns
        .ip(&["-br", "addr", "show", "dev", "eth3"])
        .unwrap();
    assert!(!eth3.contains("192.0.2.33"), "{eth3}\n{log}");
    assert!(!c.profile_names().contains("eth3"), "{}", c.profile_names());
    assert_eq!(keyfiles(), before, "no keyfile left under /etc\n{log}");
    assert!(stand_in_vip_on_br_ex(c), "the VIP stays: {log}");
}

/// An address on br-ex that NetworkManager did not configure, as keepalived's API VIP is.
const STAND_IN_VIP: &str = "198.51.100.5/32";

fn stand_in_vip_on_br_ex(c: &Case) -> bool {
    c.node
        .ns
        .ip(&["-br", "addr", "show", "dev", "br-ex"])
        .unwrap_or_default()
        .contains(STAND_IN_VIP)
}

/// What a kill takes: the live apply alone, or it and the process it leaves behind.
#[derive(Clone, Copy, PartialEq)]
enum Kill {
    Alone,
    WithItsKeeper,
}

/// Starts `apply-live ARGS` (default settings; its state has the dead default route), runs
/// `at_kill` once its change is in place and SIGKILLs it (`how`), and waits for the node to be
/// back; how long after the kill, and what the apply and its keeper logged.
fn kill_after_change(
    c: &Case,
    args: &[&Path],
    (how, at_kill): (Kill, &dyn Fn()),
) -> (Duration, String) {
    use std::io::Read;
    use std::os::unix::process::CommandExt;

    let args: Vec<String> = args.iter().map(|a| a.display().to_string()).collect();
    let args: Vec<&str> = ["apply-live"]
        .into_iter()
        .chain(args.iter().map(String::as_str))
        .collect();
    let mut child = c
        .command(&args, Path::new("/dev/null"))
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    assert!(
        wait_for(Duration::from_secs(20), || dead_route_in_place(c)),
        "the change was applied"
    );
    let target = match how {
        Kill::Alone => child.id().to_string(),
        Kill::WithItsKeeper => format!("-{}", child.id()),
    };
    at_kill();
    let killed = Instant::now();
    let kill = Command::new("kill")
        .args(["-KILL", "--", &target])
        .status()
        .unwrap();
    assert!(kill.success());
    child.wait().unwrap();
    assert!(
        wait_for(Duration::from_secs(25), || !dead_route_in_place(c)
            && c.ready()),
        "the change was undone: {:?}",
        c.node.ns.ip(&["route", "show", "default"])
    );
    let took = killed.elapsed();
    let mut log = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    (took, log)
}

/// A Linux bridge removed with its port kept up, the everyday undo of kubernetes-nmstate's
/// bridge example: what plain `nmstatectl apply` applies, `apply-live` applies.
#[test]
fn a_linux_bridge_removed_with_its_port_kept_applies_live() {
    if !require_root("a_linux_bridge_removed_with_its_port_kept_applies_live") {
        return;
    }
    let c = Case::converted();
    c.node.ns.nic("eth3").unwrap();
    let add = c.node.dir().join("br1.yml");
    fs::write(
        &add,
        "interfaces:\n- name: br1\n  type: linux-bridge\n  state: up\n  ipv4:\n    enabled: false\n  \
         ipv6:\n    enabled: false\n  bridge:\n    options:\n      stp:\n        enabled: false\n    \
         port:\n    - name: eth3\n",
    )
    .unwrap();
    let o = c.run(&["apply-live", add.to_str().unwrap()]);
    assert!(o.status.success(), "{}", c.context(&o));
    let remove = c.node.dir().join("br1-absent.yml");
    fs::write(
        &remove,
        "interfaces:\n- name: br1\n  type: linux-bridge\n  state: absent\n- name: eth3\n  type: \
         ethernet\n  state: up\n  ipv4:\n    enabled: false\n  ipv6:\n    enabled: false\n",
    )
    .unwrap();
    let o = c.run(&["apply-live", remove.to_str().unwrap()]);
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(
        log(&o).contains("[\"eth3\"] kept up on their own while their controller goes"),
        "{}",
        log(&o)
    );
    assert!(
        c.node.ns.ip(&["link", "show", "br1"]).is_err(),
        "br1 is still there"
    );
    let eth3 = c.node.ns.ip(&["-o", "link", "show", "eth3"]).unwrap();
    assert!(eth3.contains("state UP") || eth3.contains(",UP"), "{eth3}");
    assert!(!eth3.contains("master"), "{eth3}");
}

/// Whether this kernel can create a VRF (tried in a namespace of its own).
fn kernel_has_vrf() -> bool {
    let ns = integration::Netns::new("vrf").unwrap();
    ns.ip(&["link", "add", "vrf-try", "type", "vrf", "table", "100"])
        .is_ok()
}

/// Every live apply has one deadline and ends at once where the kernel cannot do the change.
/// A VRF on a kernel without VRF: exit 2 within seconds, one plain sentence, nothing changed
/// (on a kernel with VRF it is created). kubernetes-nmstate's per-interface IPv4 forwarding
/// example, which NetworkManager 1.52 cannot set, so nmstate's verification retries it for
/// about 12 s: with a 3 s deadline it is rolled back at the deadline and the apply returns
/// within seconds of it.
#[test]
fn a_kind_the_kernel_lacks_ends_at_once_and_a_change_past_its_deadline_is_rolled_back() {
    if !require_root("a_kind_the_kernel_lacks_ends_at_once") {
        return;
    }
    let c = Case::converted();
    let vrf = c.node.dir().join("vrf.yml");
    fs::write(
        &vrf,
        "interfaces:\n- name: vrf0\n  type: vrf\n  state: up\n  vrf:\n    port: []\n    \
         route-table-id: 100\n",
    )
    .unwrap();
    let t0 = Instant::now();
    let o = c.run(&["apply-live", vrf.to_str().unwrap()]);
    let took = t0.elapsed();
    if kernel_has_vrf() {
        assert!(o.status.success(), "{}", c.context(&o));
        assert!(c.node.ns.ip(&["link", "show", "vrf0"]).is_ok());
    } else {
        assert_eq!(o.status.code(), Some(2), "{}", log(&o));
        let text = log(&o);
        assert!(
            text.contains(
                "cannot be applied on this node: the kernel does not support VRF: it \
                           cannot create vrf0"
            ) && text.contains("nothing was changed")
                && !text.contains("Bug"),
            "{text}"
        );
        assert!(took < Duration::from_secs(5), "{took:?}\n{text}");
        eprintln!(
            "VRF on a kernel without VRF: refused in {:.2} s",
            took.as_secs_f64()
        );
    }
    assert!(c.node.ns.ip(&["link", "show", "obc-kind-probe"]).is_err());

    c.node.ns.nic("eth3").unwrap();
    let forwarding = c.node.dir().join("forwarding.yml");
    fs::write(
        &forwarding,
        "interfaces:\n- name: eth3\n  type: ethernet\n  state: up\n  ipv4:\n    enabled: true\n    \
         forwarding: true\n    dhcp: false\n    address:\n    - ip: 192.0.2.30\n      \
         prefix-length: 24\n",
    )
    .unwrap();
    let cfg = c.node.dir().join("deadline.toml");
    fs::write(&cfg, "live-change-timeout-secs = 3\n").unwrap();
    let t0 = Instant::now();
    let o = c
        .command(&["apply-live", forwarding.to_str().unwrap()], &cfg)
        .output()
        .unwrap();
    let took = t0.elapsed();
    let text = log(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains("failed and was rolled back: the change was not in place within 3s"),
        "{text}"
    );
    assert!(took < Duration::from_secs(8), "{took:?}\n{text}");
    let eth3 = c.node.ns.ip(&["-br", "addr", "show", "eth3"]).unwrap();
    assert!(!eth3.contains("192.0.2.30"), "not rolled back: {eth3}");
    assert!(c.ready() && c.reachable());
    eprintln!(
        "a change past its 3 s deadline: rolled back, apply-live returned after {:.2} s",
        took.as_secs_f64()
    );
}

/// Two live applies at once. The second gives up naming the first when it may not
/// wait long enough, and otherwise waits for it and then runs.
#[test]
fn two_live_applies_at_once_run_one_after_the_other() {
    if !require_root("two_live_applies_at_once") {
        return;
    }
    let c = Case::converted();
    let up2 = integration::Netns::new("up2").unwrap();
    up2.veth_to("eth0", &c.node.ns, "ens4").unwrap();
    let dead = c.node.dir().join("dead.yml");
    fs::write(&dead, DEAD_DEFAULT_ROUTE).unwrap();
    let mtu = c.node.dir().join("mtu.yml");
    fs::write(
        &mtu,
        "interfaces:\n- name: ens4\n  type: ethernet\n  state: up\n  mtu: 1400\n",
    )
    .unwrap();
    let cfg = Path::new("/dev/null");
    let mut first = c.command(&["apply-live", &dead.display().to_string()], cfg);
    let second = || {
        assert!(wait_for(Duration::from_secs(20), || dead_route_in_place(
            &c
        )));
        let gives_up = c
            .command(
                &[
                    "apply-live",
                    &mtu.display().to_string(),
                    "--lock-wait-secs",
                    "1",
                ],
                cfg,
            )
            .output()
            .unwrap();
        let waits = c
            .command(&["apply-live", &mtu.display().to_string()], cfg)
            .output()
            .unwrap();
        (gives_up, waits)
    };
    let (first, (gives_up, waits)) = std::thread::scope(|s| {
        let first = s.spawn(move || first.output().unwrap());
        let rest = second();
        (first.join().unwrap(), rest)
    });
    assert_eq!(first.status.code(), Some(1), "{}", log(&first));
    assert!(
        log(&first).contains("was rolled back after"),
        "{}",
        log(&first)
    );
    assert_eq!(gives_up.status.code(), Some(1), "{}", log(&gives_up));
    assert!(
        log(&gives_up).contains("another change of the node's network is running (apply-live, pid"),
        "{}",
        log(&gives_up)
    );
    assert!(waits.status.success(), "{}", c.context(&waits));
    let link = c.node.ns.ip(&["-o", "link", "show", "ens4"]).unwrap();
    assert!(link.contains("mtu 1400"), "the waiting one ran: {link}");
    assert!(!dead_route_in_place(&c) && c.ready() && c.reachable());
}

/// Br-ex's MTU changed live while a client on the machine network pings the node IP
/// every 50 ms: committed, and no echo is lost.
#[test]
fn a_live_mtu_change_on_br_ex_loses_no_ping() {
    if !require_root("a_live_mtu_change_on_br_ex_loses_no_ping") {
        return;
    }
    let c = Case::converted();
    let file = c.node.dir().join("mtu.yml");
    fs::write(
        &file,
        "interfaces:\n- name: br-ex\n  type: ovs-interface\n  state: up\n  mtu: 1400\n",
    )
    .unwrap();
    let ping = Pinger::start(&c.up.ns, &node_address(1), "0.05").unwrap();
    std::thread::sleep(Duration::from_secs(1));
    let o = c
        .command(
            &["apply-live", &file.display().to_string()],
            Path::new("/dev/null"),
        )
        .output()
        .unwrap();
    std::thread::sleep(Duration::from_secs(1));
    let pinged = ping.finish().unwrap();
    assert!(o.status.success(), "{}", c.context(&o));
    let link = c.node.ns.ip(&["-o", "link", "show", "br-ex"]).unwrap();
    assert!(link.contains("mtu 1400"), "{link}");
    let lost = pinged.lost;
    eprintln!(
        "live MTU change: {} echoes every 50 ms, lost {lost:?}; {}",
        pinged.sent,
        log(&o).lines().last().unwrap_or_default()
    );
    assert!(lost.is_empty(), "echoes lost: {lost:?}\n{}", log(&o));
    assert!(c.ready() && c.reachable());
}

/// br-ex moved to `port` (a port change of a bridge that exists, nmstate.io/v1).
fn br_ex_on(port: &str) -> String {
    format!(
        "interfaces:\n- name: br-ex\n  type: ovs-bridge\n  state: up\n  bridge:\n    port:\n    \
         - name: {port}\n    - name: br-ex\n"
    )
}

/// A port change of a bridge that exists, written by the engine, on a node whose br-ex
/// a per-host NMState file built (one profile per interface, as nmstate leaves them). br-ex
/// moved from ens3 to ens4 (the same network) is committed: ens4 under its new OVS port
/// `ens4-port`, ens3 out of the bridge with no IP and its OVS port's profile deleted, as nmstate
/// writes them, and until the next boot only (the deleted port's keyfile stays on disk). br-ex
/// moved on to ens5, which reaches nothing, is rolled back whole: br-ex on ens4 again, ens4's
/// port back, ens5's deleted.
#[test]
fn a_live_port_change_of_br_ex_is_committed_or_rolled_back_whole() {
    if !require_root("a_live_port_change_of_br_ex") {
        return;
    }
    let (mut c, _) = Case::with_cluster_yml(NMSTATE_BR_EX);
    let o = c.run(&["apply"]);
    assert!(o.status.success(), "{}", c.context(&o));
    let Case { up, node, .. } = &mut c;
    up.attach(&node.ns, "ens4", "52:54:00:c0:ef:02").unwrap();
    let nowhere = integration::Netns::new("nowhere").unwrap();
    nowhere.veth_to("eth0", &node.ns, "ens5").unwrap();
    for nic in ["ens4", "ens5"] {
        node.nm
            .up_ethernet(nic, nic, &["ipv4.method", "disabled"])
            .unwrap();
    }
    let ports = |c: &Case| c.node.ovs.vsctl(&["list-ports", "br-ex"]).unwrap();
    let file = c.node.dir().join("move.yml");
    let live = |yaml: &str| {
        fs::write(&file, yaml).unwrap();
        c.run(&["apply-live", file.to_str().unwrap()])
    };

    let o = live(&br_ex_on("ens4"));
    eprintln!("br-ex onto ens4:\n{}", log(&o));
    assert!(o.status.success(), "{}", c.context(&o));
    for line in [
        "ens3: ens3 detached from its OVS bridge",
        "ens4: ens4 moved under its new OVS port",
        "applied and committed",
    ] {
        assert!(log(&o).contains(line), "{line:?} in\n{}", log(&o));
    }
    assert_eq!(ports(&c).trim(), "ens4");
    assert!(c.ready() && c.reachable(), "{}", c.context(&o));
    // Until the next boot, as nmstate: ens3's OVS port keeps its profile (NetworkManager took
    // the empty port out of OVS).
    let names = c.profile_names();
    assert!(
        names.lines().any(|n| n == "ens4-port") && names.lines().any(|n| n == "ens3-port"),
        "{names}"
    );
    let ens3 = c
        .node
        .nm
        .nmcli(&[
            "-g",
            "connection.master,ipv4.method,ipv6.method",
            "c",
            "show",
            "ens3",
        ])
        .unwrap();
    assert_eq!(
        ens3.lines().collect::<Vec<_>>(),
        ["", "disabled", "disabled"]
    );

    let o = live(&br_ex_on("ens5"));
    eprintln!("br-ex onto ens5:\n{}", log(&o));
    assert_eq!(o.status.code(), Some(1), "{}", c.context(&o));
    assert!(log(&o).contains("rolled back"), "{}", log(&o));
    assert!(
        wait_for(Duration::from_secs(15), || c.ready() && c.reachable()),
        "{}",
        c.context(&o)
    );
    assert_eq!(ports(&c).trim(), "ens4");
    let names = c.profile_names();
    assert!(
        names.lines().any(|n| n == "ens4-port") && !names.lines().any(|n| n == "ens5-port"),
        "{names}"
    );

    // Back onto ens3, persisted: ens3's OVS port's profile is used again (not a second one
    // for the same port), ens4's is deleted, and the keyfiles under /etc say so.
    fs::write(&file, br_ex_on("ens3")).unwrap();
    let o = c.run(&["apply-live", "--persist", file.to_str().unwrap()]);
    eprintln!("br-ex back onto ens3, persisted:\n{}", log(&o));
    assert!(o.status.success(), "{}", c.context(&o));
    for line in [
        "ens3: its OVS port's profile kept",
        "ens4: the profile of the OVS port it left deleted",
    ] {
        assert!(log(&o).contains(line), "{line:?} in\n{}", log(&o));
    }
    assert_eq!(ports(&c).trim(), "ens3");
    assert!(c.ready() && c.reachable(), "{}", c.context(&o));
    let mut keyfiles = fs::read_dir(c.node.view.nm_connections())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.contains("-port"))
        .collect::<Vec<_>>();
    keyfiles.sort();
    assert_eq!(
        keyfiles,
        ["br-ex-port.nmconnection", "ens3-port.nmconnection"]
    );
    drop(nowhere);
}

/// An address on a second NIC, as a policy's desired state: the harness kernel has no 8021q
/// (test-harness.md), so this stands in for a VLAN with an address (same additive shape; the
/// real-kernel tier has VLANs).
const VLAN_POLICY: &str = "interfaces:
- name: eth3
  type: ethernet
  state: up
  ipv4: {enabled: true, dhcp: false, address: [{ip: 192.0.2.20, prefix-length: 24}]}
";

/// The node's policies as policy-controller's MachineConfig writes them
/// (`/etc/nmstate/openshift/policies/<policy>.yml`, `policies/nodes/<node>`), on an automatic
/// br-ex: another node's list changes nothing here; this node's list naming a policy gets its
/// address (a VLAN's stand-in) from `apply-nmstate --live` and the record, and an unchanged list is not applied
/// again; a policy that removes br-ex is refused with the guard's reason (a Warning Event, the
/// network and the record unchanged); the list gone (its policies deleted) leaves the network as
/// it is; at boot (`apply`) the policies are applied on the br-ex just built.
#[test]
fn a_nodes_policies_apply_on_br_ex_and_one_removing_br_ex_is_refused() {
    if !require_root("a_nodes_policies_apply_on_br_ex_and_one_removing_br_ex_is_refused") {
        return;
    }
    let c = Case::converted();
    c.node.ns.nic("eth3").unwrap();
    let (api, cfg) = api_int(&c, "");
    let live = || {
        c.command(&["apply-nmstate", "--live"], &cfg)
            .output()
            .unwrap()
    };
    let dir = c.etc.join("nmstate/openshift/policies");
    let list = dir.join("nodes/node1");
    let record = (c.node.view.run_dir()).join("ovs-bridge-configurator/policies-applied.yml");
    let vlan = || {
        c.node
            .ns
            .ip(&["-br", "addr", "show", "dev", "eth3"])
            .unwrap_or_default()
    };
    fs::create_dir_all(dir.join("nodes")).unwrap();
    fs::write(dir.join("vlan.yml"), VLAN_POLICY).unwrap();
    fs::write(dir.join("nodes/other-node"), "vlan\n").unwrap();
    let profiles = c.profile_names();
    let o = live();
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(
        log(&o).contains("no policies for node node1"),
        "{}",
        log(&o)
    );
    assert_eq!(c.profile_names(), profiles);
    assert!(!record.exists() && !vlan().contains("192.0.2.20"));

    fs::write(&list, "vlan\n").unwrap();
    let o = live();
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(vlan().contains("192.0.2.20/24"), "{}", vlan());
    let applied = fs::read_to_string(&record).unwrap();
    assert!(applied.contains("192.0.2.20"), "{applied}");
    assert!(c.ready() && c.reachable());
    let o = live();
    assert!(log(&o).contains("are applied already"), "{}", log(&o));

    let drop = "interfaces:\n- name: br-ex\n  type: ovs-bridge\n  state: absent\n";
    fs::write(dir.join("drop-br-ex.yml"), drop).unwrap();
    fs::write(&list, "vlan\ndrop-br-ex\n").unwrap();
    let o = live();
    assert!(!o.status.success(), "{}", log(&o));
    let why = "it removes br-ex, the bridge the node IP lives on";
    assert!(log(&o).contains(why), "{}", log(&o));
    let events = api.posted_events();
    let e = events.last().unwrap();
    assert_eq!(e["reason"], "NMStatePolicyRefused", "{e:#}");
    assert!(
        e["note"].as_str().unwrap_or_default().contains(why),
        "{e:#}"
    );
    assert_eq!(fs::read_to_string(&record).unwrap(), applied);
    assert!(c.ready() && c.reachable() && vlan().contains("192.0.2.20/24"));

    // MCO puts the previous list back: nothing to apply. The list gone: the VLAN stays.
    fs::write(&list, "vlan\n").unwrap();
    let o = live();
    assert!(log(&o).contains("are applied already"), "{}", log(&o));
    fs::remove_file(&list).unwrap();
    let o = live();
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(!record.exists() && vlan().contains("192.0.2.20/24"));

    fs::write(&list, "vlan\n").unwrap();
    let o = c
        .command(&["apply", "--retry-interval-secs", "0"], &cfg)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", c.context(&o));
    assert!(
        log(&o).contains("policies vlan applied and committed"),
        "{}",
        log(&o)
    );
    assert!(record.exists() && c.ready());
}

mod publish_common;

/// A WireGuard private key (the format's documentation example), held in a NetworkManager
/// profile: it must never cross the wire to the API.
const WG_PRIVATE_KEY: &str = "yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=";

/// The publisher inside the node, against the API stand-in through a relay; killed on drop.
struct Publisher {
    child: std::process::Child,
    log: PathBuf,
}

impl Publisher {
    fn start(c: &Case, kubeconfig: &Path, heartbeat_secs: u64) -> Publisher {
        let cfg = c.node.dir().join("publish.toml");
        fs::write(
            &cfg,
            format!(
                "kubeconfig = \"{}\"\nnode-name = \"node1\"\n",
                kubeconfig.display()
            ),
        )
        .unwrap();
        let log = c.node.dir().join("publish-state.log");
        let child = c
            .command(&["publish-state"], &cfg)
            .args(["--heartbeat-secs", &heartbeat_secs.to_string(), "-v"])
            .stderr(fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        Publisher { child, log }
    }

    fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How long after `change` the API's document satisfies `ok` (none within `limit`).
fn published_within(
    api: &integration::api_stand_in::ApiStandIn,
    limit: Duration,
    ok: impl Fn(&str) -> bool,
) -> Option<Duration> {
    let t0 = Instant::now();
    wait_for(limit, || {
        publish_common::published(api, "node1").is_some_and(|d| ok(&d.to_string()))
    })
    .then(|| t0.elapsed())
}

fn nmcli_ok(c: &Case, args: &[&str]) {
    c.node
        .nm
        .nmcli(args)
        .unwrap_or_else(|e| panic!("nmcli {args:?}: {e}"));
}

/// A Linux bridge with an address, through NetworkManager (this kernel has no 8021q, so a
/// bridge stands in for the VLAN of the issue: a new interface both netlink and NetworkManager
/// report).
fn add_bridge(c: &Case, name: &str, cidr: &str) {
    nmcli_ok(
        c,
        &[
            "con",
            "add",
            "type",
            "bridge",
            "con-name",
            name,
            "ifname",
            name,
            "ipv4.method",
            "manual",
            "ipv4.addresses",
            cidr,
            "ipv6.method",
            "disabled",
        ],
    );
}

/// The node's NodeNetworkState in the API. It matches `show`, is owned by its Node,
/// follows a new interface and a kernel-only address within 2 s, writes nothing while the node is idle, follows
/// NetworkManager across a restart, keeps only the latest document while the API server is
/// away and writes that one when it is back, and never sends a WireGuard key.
#[test]
fn the_node_network_state_follows_the_node_and_only_its_changes_reach_the_api() {
    if !require_root("the_node_network_state_follows_the_node") {
        return;
    }
    let mut c = Case::new(true);
    let (api, relay, p) = first_publication(&c);

    // A new interface reaches the API within 2 s.
    add_bridge(&c, "br-test", "203.0.113.5/24");
    let took = published_within(&api, Duration::from_secs(5), |d| d.contains("br-test"));
    assert!(
        took.is_some_and(|t| t < Duration::from_secs(2)),
        "{took:?}\n{}",
        p.log()
    );
    eprintln!("new interface -> API: {took:?}");

    // A link and an address only the kernel has been told of: laid over the last read.
    c.node
        .ns
        .ip(&["link", "add", "kern-only0", "type", "bridge"])
        .unwrap();
    c.node
        .ns
        .ip(&["addr", "add", "198.51.100.9/24", "dev", "kern-only0"])
        .unwrap();
    let took = published_within(&api, Duration::from_secs(5), |d| d.contains("198.51.100.9"));
    assert!(
        took.is_some_and(|t| t < Duration::from_secs(2)),
        "{took:?}\n{}",
        p.log()
    );
    // The kernel's own report of it is laid over the last read too (on this small node the
    // whole read may get there first).
    let laid = || {
        p.log()
            .contains("laid the kernel's change over the last read")
    };
    assert!(
        integration::process::wait_for(Duration::from_secs(3), laid),
        "{}",
        p.log()
    );

    // Idle: nothing written over 20 s (address lifetimes and NetworkManager's signals go on).
    std::thread::sleep(Duration::from_millis(1500));
    let before = publish_common::status_writes(&api);
    std::thread::sleep(Duration::from_secs(20));
    assert_eq!(publish_common::status_writes(&api), before, "{}", p.log());

    // NetworkManager restarted: its signals are followed again.
    c.node.nm.bounce().unwrap();
    nmcli_ok(&c, &["con", "delete", "br-test"]);
    let gone = published_within(&api, Duration::from_secs(5), |d| !d.contains("br-test"));
    assert!(gone.is_some(), "{}", p.log());

    api_away_and_back(&c, &api, &relay);
    let sent = String::from_utf8_lossy(&relay.sent()).into_owned();
    assert!(!sent.contains(WG_PRIVATE_KEY), "the WireGuard key was sent");
    assert!(sent.contains("203.0.113"), "the relay saw the documents");
}

/// A WireGuard profile holding a private key, then the publisher started against the stand-in
/// (through the relay); its first document, checked: owned by the Node, with the fields
/// kubernetes-nmstate fills, its state `show`'s.
fn first_publication(
    c: &Case,
) -> (
    integration::api_stand_in::ApiStandIn,
    publish_common::Relay,
    Publisher,
) {
    nmcli_ok(
        c,
        &[
            "con",
            "add",
            "type",
            "wireguard",
            "con-name",
            "wg-secret",
            "ifname",
            "wg9",
            "wireguard.private-key",
            WG_PRIVATE_KEY,
            "autoconnect",
            "no",
        ],
    );
    let api = publish_common::api();
    let uid = publish_common::create_node(&api, "node1");
    let relay = publish_common::Relay::start(&c.node.ns, publish_common::addr(&api));
    let kubeconfig = publish_common::kubeconfig(c.node.dir(), &relay.url());
    let p = Publisher::start(c, &kubeconfig, 600);
    let first = published_within(&api, Duration::from_secs(15), |_| true);
    assert!(first.is_some(), "nothing published:\n{}", p.log());
    let doc = publish_common::published(&api, "node1").unwrap();
    assert_eq!(doc["metadata"]["ownerReferences"][0]["uid"], uid.as_str());
    for field in [
        "hostNetworkManagerVersion",
        "handlerNmstateVersion",
        "lastSuccessfulUpdateTime",
    ] {
        assert!(doc["status"][field].as_str().is_some(), "{field}: {doc}");
    }
    assert_eq!(matches_show(c, &api), Ok(()));
    (api, relay, p)
}

/// The API server away for a minute while the node changes twice: once it is back, exactly the
/// latest document is written (one write, within the away back-off's 30 s cap), not the one in
/// between.
fn api_away_and_back(
    c: &Case,
    api: &integration::api_stand_in::ApiStandIn,
    relay: &publish_common::Relay,
) {
    relay.stop();
    add_bridge(c, "br-away1", "203.0.113.6/24");
    std::thread::sleep(Duration::from_secs(2));
    nmcli_ok(c, &["con", "delete", "br-away1"]);
    add_bridge(c, "br-away2", "203.0.113.7/24");
    std::thread::sleep(Duration::from_secs(58));
    let before = publish_common::status_writes(api);
    relay.resume(&c.node.ns);
    let back = published_within(api, Duration::from_secs(40), |d| d.contains("br-away2"));
    assert!(back.is_some(), "the latest document never arrived");
    eprintln!("API back -> latest document: {back:?}");
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(publish_common::status_writes(api) - before, 1);
    let doc = publish_common::published(api, "node1").unwrap().to_string();
    assert!(!doc.contains("br-away1"), "{doc}");
}

/// The API's `status.currentState` is `show --node-network-state`'s (lifetimes aside; this node
/// has no pods, whose veths the document leaves out).
fn matches_show(c: &Case, api: &integration::api_stand_in::ApiStandIn) -> Result<(), String> {
    let o = c.run(&["show", "--node-network-state"]);
    assert!(o.status.success(), "{}", log(&o));
    let shown: serde_json::Value = serde_yaml::from_slice(&o.stdout).unwrap();
    let mut shown = shown["status"]["currentState"].clone();
    let mut held =
        publish_common::published(api, "node1").unwrap()["status"]["currentState"].clone();
    publish_common::without_volatile(&mut shown);
    publish_common::without_volatile(&mut held);
    (shown == held)
        .then_some(())
        .ok_or_else(|| format!("show:\n{shown:#}\nAPI:\n{held:#}"))
}
