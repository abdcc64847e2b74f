//! ovs-bridge-configurator on a real kernel (User-Mode Linux): br-ex over a plain NIC, bonds
//! (active-backup, 802.3ad with an LACP partner), VLANs and a team, on OVS's kernel datapath,
//! with NetworkManager as built for the harness but none of its harness switches. Each case
//! checks what a node needs when `apply` returns: br-ex carries the node IP on the `system`
//! datapath with the uplink as its port, the profiles are configure-ovs.sh's, and the gateway
//! answers through br-ex.

use std::collections::BTreeMap;
use std::time::Duration;

use integration::network_manager::normalized_keyfile;
use integration::nncp::DEAD_DEFAULT_ROUTE;
use integration::per_host::{self, PerHost};
use integration::real_kernel::uplink::{
    AWAIT_GATEWAY, Conversion, FORWARDING_STATE, GATEWAY, NODE_IP, Uplink, VLAN, bond_profiles,
    nmstate_br_ex_on_bond,
};
use integration::real_kernel::{self, RealKernelNode};

const BIN: &str = env!("CARGO_BIN_EXE_ovs-bridge-configurator");

fn convert(node: &mut RealKernelNode) -> Conversion {
    integration::real_kernel::uplink::convert(node, BIN)
}

/// The profiles configure-ovs.sh makes for `uplink` (reference §1.7, §1.8).
fn expected_profiles(uplink: Uplink) -> Vec<String> {
    let mut p: Vec<String> = [
        "br-ex",
        "ovs-if-br-ex",
        "ovs-if-phys0",
        "ovs-port-br-ex",
        "ovs-port-phys0",
    ]
    .map(String::from)
    .to_vec();
    match uplink {
        Uplink::ActiveBackup | Uplink::Lacp => {
            p.extend((0..2).map(|i| format!("bond0-port{i}-slave-ovs-clone")));
        }
        Uplink::Team => p.extend((0..2).map(|i| format!("team0-port{i}-slave-ovs-clone"))),
        _ => {}
    }
    p.sort();
    p
}

/// The failure names the gateway and the probe it passed before the change: an echo when it
/// echoed, else neighbour resolution (which one a loaded gateway gives first is not the test's
/// to fix, but the error must match what the log says it gave).
fn assert_the_silent_gateway_is_named(log: &str, within: &str) {
    let how = if log.contains(&format!("gateway {GATEWAY} answers (Echo)")) {
        "an echo request"
    } else if log.contains(&format!("gateway {GATEWAY} answers (Neighbour)")) {
        "neighbour resolution"
    } else {
        panic!("the gateway was not found answering before the change\n{log}");
    };
    let named = format!(
        "the gateway {GATEWAY} answered {how} before the change and not through br-ex within \
         {within}: the new uplink does not forward"
    );
    assert!(log.contains(&named), "expected {named:?}\n{log}");
}

/// Boots a node, builds `uplink` with its switch, converts it and checks everything a node
/// needs when `apply` returns.
fn uplink_converts(uplink: Uplink) -> (RealKernelNode, Conversion) {
    let mut node = node_with(uplink);
    let mac_before = node
        .sh(&format!("cat /sys/class/net/{}/address", uplink.device()))
        .unwrap();

    let nm_log_before = node.file("nm.log").len();
    let c = convert(&mut node);
    eprintln!(
        "{uplink:?}: apply {:.2} s, gateway {:?} s after it returned",
        c.apply_s, c.gateway_s
    );
    assert_eq!(
        c.status,
        0,
        "{uplink:?}: apply failed\n{}\n--- 20 s into the apply\n{}\n{}",
        c.log,
        c.stuck,
        node.diagnostics()
    );
    assert!(
        c.first_echo_answered,
        "{uplink:?}: apply returned before the gateway answered (it did {:?} s later)\n{}",
        c.gateway_s, c.log
    );

    let addr = node.sh("ip -br -4 addr show br-ex").unwrap();
    assert!(addr.contains(&format!("{NODE_IP}/24")), "{addr}");
    assert_eq!(
        node.sh("cat /sys/class/net/br-ex/address").unwrap(),
        mac_before,
        "{uplink:?}: br-ex keeps the uplink's MAC"
    );
    let ports = node.sh("ovs-vsctl list-ports br-ex").unwrap();
    assert_eq!(ports.trim(), uplink.device(), "{uplink:?}: br-ex's port");
    let dp = node.sh("ovs-dpctl show").unwrap();
    assert!(
        dp.contains("system@ovs-system") && dp.contains(&format!(": {}\n", uplink.device())),
        "{uplink:?}: the uplink on the kernel datapath\n{dp}"
    );

    let active = node
        .sh("nmcli -g NAME conn show --active | grep -E '^(br-ex|ovs-|.*-slave-ovs-clone)' | sort")
        .unwrap();
    let active: Vec<&str> = active.lines().collect();
    assert_eq!(
        active,
        expected_profiles(uplink),
        "{uplink:?}: active profiles"
    );
    // Upstream's order: the port clones autoconnect before anything is activated, so when the
    // bond or team comes up again its ports come up with the clones, never with the user's
    // original port profiles (which would attach them to the old bond profile).
    let nm_log = node.file("nm.log");
    let during = nm_log.get(nm_log_before..).unwrap_or_default();
    let ports = match uplink {
        Uplink::ActiveBackup | Uplink::Lacp | Uplink::Team => 0..2,
        _ => 0..0,
    };
    for port in ports {
        let original = format!("starting connection '{}-port{port}'", uplink.device());
        assert!(
            !during.contains(&original),
            "{uplink:?}: the original port profile was activated during the apply:\n{}",
            during
                .lines()
                .filter(|l| l.contains("starting connection"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    (node, c)
}

macro_rules! topology {
    ($name:ident, $uplink:expr) => {
        #[test]
        fn $name() {
            if real_kernel::require(stringify!($name)) {
                uplink_converts($uplink);
            }
        }
    };
}

topology!(a_plain_nic_converts_and_forwards, Uplink::Nic);
topology!(
    an_active_backup_bond_converts_and_forwards,
    Uplink::ActiveBackup
);
topology!(a_vlan_on_a_nic_converts_and_forwards, Uplink::VlanOnNic);
topology!(a_team_converts_and_forwards, Uplink::Team);

#[test]
fn an_lacp_bond_converts_forwards_and_keeps_its_partner() {
    if !real_kernel::require("an_lacp_bond_converts") {
        return;
    }
    let (mut node, _) = uplink_converts(Uplink::Lacp);
    let bonding = node.sh("cat /proc/net/bonding/bond0").unwrap();
    assert!(bonding.contains("802.3ad"), "{bonding}");
    assert!(
        !bonding.contains("Partner Mac Address: 00:00:00:00:00:00"),
        "the bond has an LACP partner\n{bonding}"
    );
}

#[test]
fn a_vlan_on_an_lacp_bond_converts_and_forwards() {
    if !real_kernel::require("a_vlan_on_an_lacp_bond") {
        return;
    }
    let (mut node, _) = uplink_converts(Uplink::VlanOnLacp);
    let vlan = node
        .sh("nmcli -g vlan.id,vlan.parent conn show ovs-if-phys0")
        .unwrap();
    assert_eq!(vlan.trim(), format!("{VLAN}\nbond0"));
}

#[test]
fn an_extra_bridge_goes_on_a_second_bond() {
    if !real_kernel::require("an_extra_bridge_goes_on_a_second_bond") {
        return;
    }
    let mut node = RealKernelNode::boot("node0").unwrap();
    node.sh(&Uplink::ActiveBackup.switch()).unwrap();
    node.sh(&Uplink::ActiveBackup.node()).unwrap();
    // A second network on e2/e3 (an 802.3ad bond): /etc/ovnk/extra_bridge names it.
    let second = format!(
        "{AWAIT_GATEWAY}
         ip -n sw link add sw1 type bridge
         ip -n sw link add swb1 type bond mode 802.3ad miimon 100 lacp_rate fast
         for i in 2 3; do ip -n sw link set p$i master swb1; ip -n sw link set p$i up; done
         ip -n sw link set swb1 master sw1 up
         ip -n sw link set sw1 up
         ip -n sw addr add 203.0.113.1/24 dev sw1
         {}
         nmcli -w 60 conn up bond1
         await_lacp bond1 30
         await_gateway 30 203.0.113.1
         mkdir -p /etc/ovnk
         echo bond1 > /etc/ovnk/extra_bridge",
        bond_profiles(
            "bond1",
            [2, 3],
            "mode=802.3ad,miimon=100,lacp_rate=fast",
            "ipv4.method manual ipv4.addresses 203.0.113.20/24 ipv4.gateway 203.0.113.1 \
             ipv4.route-metric 50 ipv6.method disabled"
        )
    );
    node.sh(&second).unwrap();
    let c = convert(&mut node);
    eprintln!(
        "extra bridge: apply {:.2} s, gateway {:?} s after it returned",
        c.apply_s, c.gateway_s
    );
    assert_eq!(c.status, 0, "{}", c.log);
    assert!(c.first_echo_answered, "{c:?}");
    if !c.log.contains("gateway 203.0.113.1 answers through br-ex1") {
        let state = node
            .sh("cat /proc/net/bonding/bond1; ip neigh; dmesg | tail -40")
            .unwrap_or_else(|e| e.to_string());
        panic!(
            "the second network's gateway was not awaited through br-ex1\n{}\n{state}",
            c.log
        );
    }
    let br_ex1 = node.sh("ip -br -4 addr show br-ex1").unwrap();
    assert!(br_ex1.contains("203.0.113.20/24"), "{br_ex1}");
    assert_eq!(
        node.sh("ovs-vsctl list-ports br-ex1").unwrap().trim(),
        "bond1"
    );
    node.sh("ping -n -c1 -W1 203.0.113.1 && ping -n -c1 -W1 198.51.100.1")
        .unwrap();
    let dp = node.sh("ovs-dpctl show").unwrap();
    assert!(dp.contains(": bond1\n") && dp.contains(": bond0\n"), "{dp}");
}

#[test]
fn a_bond_that_does_not_forward_in_time_is_rolled_back() {
    if !real_kernel::require("a_bond_that_does_not_forward_in_time") {
        return;
    }
    let mut node = RealKernelNode::boot("node0").unwrap();
    node.sh(&Uplink::Lacp.switch()).unwrap();
    node.sh(&Uplink::Lacp.node()).unwrap();
    // The switch stops forwarding for the node once the configurator has probed the gateway
    // and before it changes anything (its bond goes down, as a switch whose LACP partner does
    // not take the re-formed bond back in time), and forwards again once the apply has returned.
    // How soon LACP itself renegotiates varies from run to run (once it was within the
    // activation, and even a 0 s timeout passed), so the switch, not the timing, makes the new
    // uplink silent past the 3 s the node waits: the conversion must fail and roll back. The
    // helper waits for states that stay (a log line, the apply's end), so a helper slowed by a
    // loaded machine is late but never stuck.
    node.sh(
        "mkdir -p /etc/ovs-bridge-configurator
         echo 'forwarding-timeout-secs = 3' > /etc/ovs-bridge-configurator/config.toml
         rm -f /run/x/apply.log
         setsid -f bash -c '
             until grep -qs \"it must answer after the change\" /run/x/apply.log; do sleep 0.05; done
             ip -n sw link set swb down; echo \"$(date -u +%T.%N) switch bond down\"
             until [ -e /run/x/apply.done ]; do sleep 0.1; done
             ip -n sw link set swb up; echo \"$(date -u +%T.%N) the apply returned: switch bond up\"
         ' > /run/x/switch.log 2>&1",
    )
    .unwrap();
    let c = convert(&mut node);
    eprintln!(
        "rolled back: apply {:.2} s, gateway {:?} s after it returned\n{}\n--- the switch's steps\n{}",
        c.apply_s,
        c.gateway_s,
        c.log,
        node.file("switch.log")
    );
    assert_ne!(c.status, 0, "{}", c.log);
    assert_the_silent_gateway_is_named(&c.log, "3s");
    if c.gateway_s.is_none() {
        panic!(
            "the gateway answers again after the rollback\n{}",
            lacp_state(&mut node)
        );
    }
    let addr = node.sh("ip -br -4 addr show bond0").unwrap();
    assert!(
        addr.contains(NODE_IP),
        "the node IP is back on bond0: {addr}"
    );
    let bridges = node.sh("ovs-vsctl list-br").unwrap();
    assert!(!bridges.contains("br-ex"), "{bridges}");
}

/// What the logs do not show when a bond does not forward.
fn lacp_state(node: &mut RealKernelNode) -> String {
    node.sh(FORWARDING_STATE).unwrap_or_else(|e| e.to_string())
}

/// Writes `yaml` as the node's own NMState file and runs `apply-nmstate`; its exit status and log.
fn apply_nmstate(node: &mut RealKernelNode, yaml: &str) -> (i32, String) {
    let script = format!(
        "mkdir -p /etc/nmstate/openshift /run/nodeip-configuration
         printf {NODE_IP} > /run/nodeip-configuration/primary-ip
         cat > /etc/nmstate/openshift/$(hostname).yml <<'YAML'\n{yaml}YAML
         RUST_LOG=info,nispor=error,nmstate=debug {BIN} apply-nmstate --retry-interval-secs 0 2>&1"
    );
    // A bound on a hung guest, not a measurement.
    let run = node.run(&script, Duration::from_secs(300)).unwrap();
    eprintln!("--- apply-nmstate\n{}", run.output);
    (run.status, run.output)
}

#[test]
fn a_per_host_nmstate_file_puts_br_ex_on_an_lacp_bond() {
    if !real_kernel::require("a_per_host_nmstate_file_puts_br_ex_on_an_lacp_bond") {
        return;
    }
    let mut node = RealKernelNode::boot("node0").unwrap();
    node.sh(&Uplink::Lacp.switch()).unwrap();
    node.sh(&Uplink::Lacp.node()).unwrap();
    let (status, log) = apply_nmstate(&mut node, &nmstate_br_ex_on_bond(["e0", "e1"]));
    assert_eq!(status, 0, "{log}");
    // The gateway answered before, so apply-nmstate returned only once it answered again.
    node.sh("ping -n -c1 -W1 198.51.100.1").unwrap();
    assert!(
        log.contains("gateway 198.51.100.1 answers through br-ex"),
        "{log}"
    );
    // The engine wrote the new bridge and moved the bond under it, to disk (a boot's file
    // lasts), as nmstate names the profiles.
    assert!(
        log.contains("br-ex-br added and activated with its ports")
            && log.contains("bond0: bond0 moved under its new OVS port"),
        "{log}"
    );
    node.sh("cd /etc/NetworkManager/system-connections
         for p in br-ex-br br-ex-port bond0-port br-ex-if; do grep -q \"^id=$p$\" *; done
         grep -q '^controller=bond0$\\|^master=bond0$' bond0.nmconnection")
        .unwrap();
    let addr = node.sh("ip -br -4 addr show br-ex").unwrap();
    assert!(addr.contains(&format!("{NODE_IP}/24")), "{addr}");
    let dp = node.sh("ovs-dpctl show").unwrap();
    assert!(
        dp.contains("system@ovs-system") && dp.contains(": bond0\n"),
        "{dp}"
    );
    let bonding = node.sh("cat /proc/net/bonding/bond0").unwrap();
    assert!(
        !bonding.contains("Partner Mac Address: 00:00:00:00:00:00"),
        "{bonding}"
    );
    node.sh("cmp /etc/nmstate/openshift/applied /etc/nmstate/openshift/$(hostname).yml")
        .unwrap();
    // The profiles the engine wrote are the next boot's whole configuration: NetworkManager
    // alone brings br-ex up on the bond again (the file is applied: nothing runs).
    node.reboot()
        .unwrap_or_else(|e| panic!("{e}\n{}", node.diagnostics()));
    node.sh(&Uplink::Lacp.switch()).unwrap();
    if let Err(e) = node.sh(&format!("{AWAIT_GATEWAY}await_gateway 60")) {
        panic!(
            "{e}\n--- after the reboot\n{}\n{}",
            lacp_state(&mut node),
            node.diagnostics()
        );
    }
    assert_eq!(
        node.sh("ovs-vsctl list-ports br-ex").unwrap().trim(),
        "bond0"
    );
    let addr = node.sh("ip -br -4 addr show br-ex").unwrap();
    assert!(
        addr.contains(&format!("{NODE_IP}/24")),
        "after the reboot: {addr}"
    );
}

#[test]
fn a_per_host_nmstate_file_whose_bond_reaches_no_gateway_keeps_the_previous_bridge() {
    if !real_kernel::require("a_per_host_nmstate_file_whose_bond_reaches_no_gateway") {
        return;
    }
    let mut node = RealKernelNode::boot("node0").unwrap();
    node.sh(&Uplink::Lacp.switch()).unwrap();
    node.sh(&Uplink::Lacp.node()).unwrap();
    let c = convert(&mut node);
    assert_eq!(c.status, 0, "{}", c.log);
    // e2 and e3 are cabled to switch ports that are up but in no bridge and no bond (a
    // mis-patched switch): the bond comes up with its links and no LACP partner, nmstate's own
    // verification passes (the address is on br-ex), only the gateway is silent.
    node.sh("ip -n sw link set p2 up && ip -n sw link set p3 up")
        .unwrap();
    node.sh("mkdir -p /etc/ovs-bridge-configurator
         echo 'forwarding-timeout-secs = 5' > /etc/ovs-bridge-configurator/config.toml")
        .unwrap();
    let (status, log) = apply_nmstate(&mut node, &nmstate_br_ex_on_bond(["e2", "e3"]));
    assert_ne!(status, 0, "{log}");
    assert_the_silent_gateway_is_named(&log, "5s");
    // The restored bridge is on an LACP bond again: it forwards once LACP has renegotiated.
    node.sh(&format!("{AWAIT_GATEWAY}await_gateway 30"))
        .unwrap();
    assert_eq!(
        node.sh("ovs-vsctl list-ports br-ex").unwrap().trim(),
        "bond0"
    );
    let bonding = node.sh("cat /proc/net/bonding/bond0").unwrap();
    assert!(bonding.contains("Slave Interface: e0"), "{bonding}");
    node.sh("test ! -e /etc/nmstate/openshift/applied").unwrap();
}

#[test]
fn losing_the_active_bond_member_costs_at_most_the_miimon_interval() {
    if !real_kernel::require("losing_the_active_bond_member") {
        return;
    }
    let (mut node, _) = uplink_converts(Uplink::ActiveBackup);
    let active = node
        .sh("sed -n 's/^Currently Active Slave: //p' /proc/net/bonding/bond0")
        .unwrap();
    let port = active.trim().replace('e', "p");
    // A client on the switch pings the node IP every 50 ms for 5 s; 1.5 s in, the switch port
    // of the active member loses its link. miimon=100: at most two echoes may go unanswered.
    let out = node
        .sh(&format!(
            "ip netns exec sw ping -n -q -i 0.05 -c 100 -W 1 {NODE_IP} > /run/x/ping.txt &
             sleep 1.5
             ip -n sw link set {port} down
             wait
             cat /run/x/ping.txt
             sed -n 's/^Currently Active Slave: //p' /proc/net/bonding/bond0"
        ))
        .unwrap();
    let received: u32 = out
        .split(", ")
        .find_map(|f| f.strip_suffix(" received"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no ping summary in\n{out}"));
    let lost = 100 - received;
    eprintln!("active-backup member lost: {lost} of 100 echoes unanswered");
    let now_active = out.lines().last().unwrap_or_default();
    assert_ne!(now_active, active.trim(), "the bond failed over\n{out}");
    assert!(lost <= 2, "{lost} echoes lost on failover\n{out}");
}

#[test]
fn a_reboot_keeps_br_ex_on_the_same_lacp_bond_with_the_same_mac() {
    if !real_kernel::require("a_reboot_keeps_br_ex_on_the_same_lacp_bond") {
        return;
    }
    let (mut node, _) = uplink_converts(Uplink::Lacp);
    let mac = node.sh("cat /sys/class/net/br-ex/address").unwrap();
    node.reboot()
        .unwrap_or_else(|e| panic!("{e}\n{}", node.diagnostics()));
    // The switch lived in the old kernel: cable it again; the node's own bond profile comes up.
    node.sh(&Uplink::Lacp.switch()).unwrap();
    node.sh(&format!("{AWAIT_GATEWAY}await_gateway 60"))
        .unwrap();
    let c = convert(&mut node);
    assert_eq!(c.status, 0, "{}", c.log);
    assert!(
        c.log.contains("removing a previous boot's bridge"),
        "the previous boot's bridge (in the OVS database that survived) was rebuilt\n{}",
        c.log
    );
    assert!(c.first_echo_answered, "{c:?}");
    assert_eq!(node.sh("cat /sys/class/net/br-ex/address").unwrap(), mac);
    assert_eq!(
        node.sh("ovs-vsctl list-ports br-ex").unwrap().trim(),
        "bond0"
    );
    assert_eq!(
        node.sh("cat /var/lib/ovnk/iface_default_hint")
            .unwrap()
            .trim(),
        "bond0"
    );
}

/// Every profile NetworkManager keeps on disk, by directory (`etc` or `run`) and name, with
/// UUIDs replaced by the names they stand for and the activation timestamp by `<T>`. A
/// controller named by its profile's UUID (nmcli's form, configure-ovs.sh's) is written as that
/// profile's interface, the form nmstate and `apply` write (see `plan::interface_profile`):
/// both name the same controller.
fn profiles_on_disk(node: &mut RealKernelNode) -> BTreeMap<String, String> {
    let names = node.sh("nmcli -g UUID,NAME conn show").unwrap();
    let uuids: Vec<(&str, &str)> = names.lines().filter_map(|l| l.split_once(':')).collect();
    let dump = node
        .sh("for f in /etc/NetworkManager/system-connections/* \
             /run/NetworkManager/system-connections/*; do
                 [ -f \"$f\" ] && { echo \"@@ ${f:1:3}\"; cat \"$f\"; }
             done")
        .unwrap();
    let key = |body: &str, k: &str| {
        body.lines()
            .find_map(|l| l.strip_prefix(&format!("{k}=")))
            .map(str::to_owned)
    };
    let interfaces: BTreeMap<String, String> = dump
        .split("@@ ")
        .filter_map(|f| Some((key(f, "uuid")?, key(f, "interface-name")?)))
        .collect();
    dump.split("@@ ")
        .filter(|f| !f.is_empty())
        .map(|f| {
            let (dir, body) = f.split_once('\n').unwrap_or((f, ""));
            let body: Vec<String> = body
                .trim_end()
                .lines()
                .map(|l| match l.split_once('=') {
                    Some((k @ ("controller" | "master"), v)) if interfaces.contains_key(v) => {
                        format!("{k}={}", interfaces[v])
                    }
                    _ => l.to_owned(),
                })
                .collect();
            let text = normalized_keyfile(&body.join("\n"), &uuids);
            let id = text
                .lines()
                .find_map(|l| l.strip_prefix("id="))
                .unwrap_or("?")
                .to_owned();
            (format!("{dir}:{id}"), text)
        })
        .collect()
}

/// A freshly booted node with `uplink` and its switch.
fn node_with(uplink: Uplink) -> RealKernelNode {
    let mut node = RealKernelNode::boot("node0").unwrap();
    node.sh(&uplink.switch()).unwrap();
    node.sh(&uplink.node())
        .unwrap_or_else(|e| panic!("{uplink:?}: {e}\n{}", node.diagnostics()));
    node
}

/// Profiles another tool made for an uplink, recorded (`tests/expected/<tool>/<name>.keyfiles`):
/// what a comparison uses when that tool is not given to the test.
struct Record(std::path::PathBuf);

impl Record {
    fn new(tool: &str, name: &str) -> Record {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected");
        Record(dir.join(tool).join(format!("{name}.keyfiles")))
    }

    /// The recorded profiles (`missing`: the variable that would give the tool).
    fn read(&self, missing: &str) -> BTreeMap<String, String> {
        eprintln!(
            "{missing} not set: the recorded profiles of {}",
            self.0.display()
        );
        let text = std::fs::read_to_string(&self.0)
            .unwrap_or_else(|e| panic!("{}: {e}", self.0.display()));
        from_record(&text)
    }

    /// `theirs`, which the tool made just now, written as the record with `UPDATE_EXPECTED=1`,
    /// and checked against it (`regenerate`: the command that writes it anew).
    fn check(
        &self,
        theirs: BTreeMap<String, String>,
        regenerate: &str,
    ) -> BTreeMap<String, String> {
        if std::env::var("UPDATE_EXPECTED").as_deref() == Ok("1") {
            std::fs::create_dir_all(self.0.parent().unwrap()).unwrap();
            std::fs::write(&self.0, to_record(&theirs)).unwrap();
        }
        let text = std::fs::read_to_string(&self.0).unwrap_or_default();
        assert_eq!(
            from_record(&text),
            theirs,
            "no longer the recorded profiles ({}): regenerate with {regenerate} \
             UPDATE_EXPECTED=1 cargo test -p ovs-bridge-configurator --test real_kernel",
            self.0.display()
        );
        theirs
    }
}

/// [`profiles_on_disk`] as text: `@@ <dir>:<id>` before each profile.
fn to_record(profiles: &BTreeMap<String, String>) -> String {
    profiles
        .iter()
        .map(|(key, text)| format!("@@ {key}\n{text}\n"))
        .collect()
}

fn from_record(text: &str) -> BTreeMap<String, String> {
    text.split("@@ ")
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (key, body) = p.split_once('\n').unwrap_or((p, ""));
            (key.to_owned(), body.trim_end_matches('\n').to_owned())
        })
        .collect()
}

/// configure-ovs.sh's profiles for `uplink`: with an MCO checkout (`MCO_CHECKOUT`, at
/// [`real_kernel::MCO_COMMIT`]), the script run on a fresh node, and the record must hold the
/// same (or is written anew with `UPDATE_EXPECTED=1`); without one (CI), the record.
fn configure_ovs_profiles(uplink: Uplink, name: &str) -> BTreeMap<String, String> {
    let record = Record::new("configure-ovs", name);
    let Some(script) = real_kernel::configure_ovs().unwrap() else {
        return record.read("MCO_CHECKOUT");
    };
    let mut node = node_with(uplink);
    std::fs::write(node.exchange().join("configure-ovs.sh"), script).unwrap();
    // As on RHCOS: rpm lists openvswitch (the script checks; Debian's rpm has no database), awk
    // is gawk, and nmcli is the daemon's own 1.52 (the script edits keyfiles with
    // `nmcli --offline`, and 1.42's libnm does not read 1.52's `controller=`).
    let run = node
        .run(
            &format!(
                r#"mkdir -p /run/nodeip-configuration /run/rhcos
                 printf {NODE_IP} > /run/nodeip-configuration/primary-ip
                 printf '#!/bin/sh\necho openvswitch3.4-3.4.0-1.el9fdp.x86_64\n' > /run/rhcos/rpm
                 libnm=$(dirname "$(find "$NM_PREFIX/lib" -name libnm.so.0)")
                 printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$libnm" "$NM_PREFIX/bin/nmcli" \
                     > /run/rhcos/nmcli
                 chmod +x /run/rhcos/rpm /run/rhcos/nmcli
                 ln -s /usr/bin/gawk /run/rhcos/awk
                 export PATH=/run/rhcos:$PATH
                 RETRY= bash /run/x/configure-ovs.sh OVNKubernetes > /run/x/configure-ovs.log 2>&1"#
            ),
            Duration::from_secs(300),
        )
        .unwrap();
    let log = node.file("configure-ovs.log");
    let errors: Vec<&str> = log.lines().filter(|l| l.contains("ERROR")).collect();
    assert_eq!(
        run.status,
        0,
        "configure-ovs.sh failed:\n{}",
        errors.join("\n")
    );
    let regenerate = format!("MCO_CHECKOUT=<checkout at {}>", real_kernel::MCO_COMMIT);
    record.check(profiles_on_disk(&mut node), &regenerate)
}

/// The reference's side-by-side check on a real bond: on the same node (fresh each time, same
/// NIC MACs), MCO's configure-ovs.sh and `apply` leave the same profiles on disk, setting for
/// setting: br-ex and its ports, the clones of the bond's ports (an 802.3ad bond as br-ex's
/// port) or the VLAN (a VLAN on that bond), the MACs, and the user's own profiles untouched.
fn configure_ovs_and_apply_make_the_same_profiles(uplink: Uplink, name: &str) {
    let theirs = configure_ovs_profiles(uplink, name);
    let ours = {
        let mut node = node_with(uplink);
        let c = convert(&mut node);
        assert_eq!(c.status, 0, "{}", c.log);
        profiles_on_disk(&mut node)
    };
    let names = |m: &BTreeMap<String, String>| m.keys().cloned().collect::<Vec<_>>();
    eprintln!("configure-ovs.sh's profiles on disk: {:?}", names(&theirs));
    for p in expected_profiles(uplink) {
        assert!(
            theirs.keys().any(|k| k.ends_with(&format!(":{p}"))),
            "{p} on disk: {:?}",
            names(&theirs)
        );
    }
    assert_eq!(
        names(&ours),
        names(&theirs),
        "the same profiles, in the same places"
    );
    for (key, want) in &theirs {
        assert_eq!(
            &ours[key], want,
            "{key}: ours (left) and configure-ovs.sh's (right)"
        );
    }
}

#[test]
fn configure_ovs_and_apply_make_the_same_profiles_for_an_lacp_bond() {
    if real_kernel::require("configure_ovs_and_apply_make_the_same_profiles_for_an_lacp_bond") {
        configure_ovs_and_apply_make_the_same_profiles(Uplink::Lacp, "lacp");
    }
}

#[test]
fn configure_ovs_and_apply_make_the_same_profiles_for_a_vlan_on_an_lacp_bond() {
    if real_kernel::require("configure_ovs_and_apply_make_the_same_profiles_for_a_vlan") {
        configure_ovs_and_apply_make_the_same_profiles(Uplink::VlanOnLacp, "vlan-on-lacp");
    }
}

/// What `diff` says of `yaml` on `node`: the engine applies it, or which part nmstate's takes.
fn coverage(node: &mut RealKernelNode, yaml: &str) -> String {
    let out = node
        .sh(&format!(
            "cat > /run/x/shape.yml <<'YAML'\n{yaml}YAML
             {BIN} diff /run/x/shape.yml 2>&1 >/dev/null | grep '^/run/x/shape.yml: '"
        ))
        .unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    out.trim().to_owned()
}

const ENGINE: &str = "/run/x/shape.yml: the engine applies it itself";

/// nmstate's profiles for per-host file `yaml` on a fresh node with `uplink`, recorded
/// (`tests/expected/nmstate/NAME.keyfiles`): with `NMSTATECTL` (nmstatectl as published, at the
/// version Cargo.lock pins the library to: `cargo install --locked nmstatectl --version <v>`),
/// `nmstatectl apply` of the file on a fresh node, which must match the record (written anew
/// with `UPDATE_EXPECTED=1`); without it (CI), the record.
fn nmstate_profiles(uplink: Uplink, yaml: &str, name: &str) -> BTreeMap<String, String> {
    let record = Record::new("nmstate", name);
    let Ok(nmstatectl) = std::env::var("NMSTATECTL") else {
        return record.read("NMSTATECTL");
    };
    let mut node = node_with(uplink);
    let run = node
        .run(
            &format!(
                "cat > /run/x/nmstate.yml <<'YAML'\n{yaml}YAML
                 {nmstatectl} apply /run/x/nmstate.yml > /run/x/nmstatectl.log 2>&1"
            ),
            Duration::from_secs(300),
        )
        .unwrap();
    assert_eq!(run.status, 0, "{}", node.file("nmstatectl.log"));
    record.check(profiles_on_disk(&mut node), "NMSTATECTL=<nmstatectl>")
}

/// The per-host file's shapes on an 802.3ad bond and on a VLAN of it (the harness's kernel has
/// no bonding; its test holds the NIC shapes): `diff` says the engine applies each. The design's
/// example on the VLAN of the bond, and on the bond, applied at boot: through the engine, DNS and
/// all, the gateway answering through br-ex; on the bond, the profiles on disk are the ones
/// nmstate writes for the same file, key for key (its global DNS aside, which is not a profile:
/// see the engine's `dns` module).
#[test]
fn the_per_host_example_on_a_bond_goes_through_the_engine_with_nmstates_profiles() {
    if !real_kernel::require("the_per_host_example_on_a_bond_goes_through_the_engine") {
        return;
    }
    let bond = || per_host::lacp_bond(["e0", "e1"]);
    let on_vlan = format!("bond0.{VLAN}");
    let vlan_file = PerHost::example(
        bond() + &per_host::vlan("bond0", VLAN),
        &on_vlan,
        NODE_IP,
        GATEWAY,
    );
    let mut node = node_with(Uplink::VlanOnLacp);
    assert_eq!(coverage(&mut node, &vlan_file.yaml()), ENGINE);
    let (status, log) = apply_nmstate(&mut node, &vlan_file.yaml());
    assert_eq!(status, 0, "{log}");
    assert_through_the_engine(&log);
    drop(node);

    let example = PerHost::example(bond(), "bond0", NODE_IP, GATEWAY);
    let mut node = node_with(Uplink::Lacp);
    for shape in [
        example.clone(),
        example
            .clone()
            .dual_stack("2001:db8:1::20", "2001:db8:1::1"),
        PerHost::new(bond(), "bond0", NODE_IP, GATEWAY)
            .dhcp()
            .route("203.0.113.0/24", GATEWAY),
    ] {
        assert_eq!(
            coverage(&mut node, &shape.yaml()),
            ENGINE,
            "{}",
            shape.yaml()
        );
    }
    let (status, log) = apply_nmstate(&mut node, &example.yaml());
    assert_eq!(status, 0, "{log}");
    assert_through_the_engine(&log);
    let dns = node.sh("nmcli -g IP4.DNS device show br-ex").unwrap();
    assert_eq!(dns.trim(), GATEWAY, "the name server NetworkManager uses");
    let ours = profiles_on_disk(&mut node);
    drop(node);
    let theirs = nmstate_profiles(Uplink::Lacp, &example.yaml(), "example-on-lacp");
    let names = |m: &BTreeMap<String, String>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&ours),
        names(&theirs),
        "the same profiles, in the same places"
    );
    let differ: Vec<String> = theirs
        .iter()
        .filter(|(key, want)| ours[*key] != **want)
        .map(|(key, want)| format!("{key}: ours\n{}\nnmstate's\n{want}", ours[key]))
        .collect();
    assert!(differ.is_empty(), "{}", differ.join("\n\n"));
}

/// The log of a per-host file's apply that the engine made: the new bridge, its DNS, and no
/// part handed to nmstate.
fn assert_through_the_engine(log: &str) {
    assert!(
        log.contains("br-ex-br added and activated with its ports")
            && log.contains("DNS in place")
            && log.contains("gateway 198.51.100.1 answers through br-ex")
            && !log.contains("applying through nmstate"),
        "{log}"
    );
}

/// `apply-live` of `yaml` in the guest, with `then` (shell) run in the same script once it
/// returned: its exit status, the seconds it took, and its log.
fn apply_live(node: &mut RealKernelNode, yaml: &str, around: (&str, &str)) -> (i32, f64, String) {
    let (before, after) = around;
    let script = format!(
        "cat > /run/x/live.yml <<'YAML'\n{yaml}YAML
         {before}
         t0=$EPOCHREALTIME
         RUST_LOG=info,nispor=error {BIN} apply-live /run/x/live.yml > /run/x/live.log 2>&1
         rc=$?
         t1=$EPOCHREALTIME
         {after}
         echo \"$rc $t0 $t1\""
    );
    // A bound on a hung guest, not a measurement.
    let run = node.run(&script, Duration::from_secs(300)).unwrap();
    let f: Vec<&str> = run.output.split_whitespace().collect();
    let [rc, t0, t1] = f[f.len() - 3..] else {
        panic!("{}", run.output)
    };
    let took = t1.parse::<f64>().unwrap() - t0.parse::<f64>().unwrap();
    let log = node.file("live.log");
    eprintln!("--- apply-live\n{log}");
    (rc.parse().unwrap(), took, log)
}

/// The switch carries VLAN 200 on the node's bond, with 203.0.113.1 on it.
const SWITCH_CARRIES_VLAN_200: &str = "ip -n sw link add link sw0 name sw0.200 type vlan id 200
     ip -n sw link set sw0.200 up
     ip -n sw addr add 203.0.113.1/24 dev sw0.200";

/// A VLAN over br-ex's bond, with an address (an NMState `vlan` on `bond0`, tag `id`).
fn vlan_on_bond(id: u16, address: Option<&str>) -> String {
    let ipv4 = address.map_or("enabled: false".to_owned(), |a| {
        format!(
            "enabled: true\n    dhcp: false\n    address:\n    - ip: {a}\n      prefix-length: 24"
        )
    });
    format!(
        "- name: bond0.{id}
  type: vlan
  state: up
  vlan:
    base-iface: bond0
    id: {id}
  ipv4:
    {ipv4}
  ipv6:
    enabled: false
"
    )
}

/// On a real kernel, on the node converted onto an 802.3ad bond: live changes. A VLAN
/// the switch carries, with an address, added on the bond (committed; its peer answers; br-ex
/// untouched). br-ex's MTU changed under a ping of the node IP every 50 ms from the switch
/// (committed, nothing lost; an address and a route put on br-ex outside NetworkManager, as
/// OVN-Kubernetes' masquerade ones, are still there). A VRF while the kernel cannot create one
/// (refused at once, exit 2, in plain words). br-ex moved onto a VLAN of the
/// bond that carries the machine network, and back onto the bond (both committed by the engine,
/// though each re-activates the bond). br-ex moved onto a VLAN of the bond that the
/// switch does not carry (the gateway falls silent: rolled back, naming it, and the gateway
/// answers through br-ex on bond0 again). Each apply -> committed or rolled back is printed.
#[test]
fn live_changes_on_an_lacp_bond_commit_or_roll_back() {
    if !real_kernel::require("live_changes_on_an_lacp_bond_commit_or_roll_back") {
        return;
    }
    let (mut node, _) = uplink_converts(Uplink::Lacp);
    node.sh(SWITCH_CARRIES_VLAN_200).unwrap();

    let yaml = format!("interfaces:\n{}", vlan_on_bond(200, Some("203.0.113.10")));
    let (rc, took, log) = apply_live(&mut node, &yaml, ("", ""));
    eprintln!("VLAN 200 with an address on bond0: exit {rc} after {took:.2} s");
    assert_eq!(rc, 0, "{log}");
    assert!(log.contains("committed"), "{log}");
    node.sh("ping -n -c1 -W2 203.0.113.1").unwrap();
    node.sh(&format!("ping -n -c1 -W2 {GATEWAY}")).unwrap();
    let addr = node.sh("ip -br -4 addr show br-ex").unwrap();
    assert!(addr.contains(&format!("{NODE_IP}/24")), "{addr}");

    // An echo every 50 ms from 1 s before the apply to 1 s after it (however long it takes
    // inside UML): none may go unanswered. Before it, what OVN-Kubernetes puts on br-ex outside
    // NetworkManager (its masquerade address and a route through it): both must stay.
    let mtu = "interfaces:\n- name: br-ex\n  type: ovs-interface\n  state: up\n  mtu: 1400\n";
    let (rc, took, log) = apply_live(
        &mut node,
        mtu,
        (
            &format!(
                "ip addr add 169.254.169.2/29 dev br-ex
                 ip route add 169.254.169.3/32 via 169.254.169.4 dev br-ex
                 ip netns exec sw ping -n -i 0.05 -W 1 {NODE_IP} > /run/x/ping.log 2>&1 &
                 pinger=$!
                 sleep 1"
            ),
            "sleep 1; kill -INT $pinger; wait $pinger",
        ),
    );
    let ping = node.file("ping.log");
    let pinged = integration::ping::Pinged::parse(&ping, 0.05)
        .unwrap_or_else(|e| panic!("ping {NODE_IP}: {e}\n{log}"));
    eprintln!(
        "br-ex MTU 1400 under a 50 ms ping: exit {rc} after {took:.2} s; {} sent, {} lost",
        pinged.sent,
        pinged.lost.len()
    );
    assert_eq!(rc, 0, "{log}");
    // 20: the second before and the second after alone send about 40.
    assert!(
        pinged.sent >= 20 && pinged.lost.is_empty(),
        "{:?}\n{ping}\n{log}",
        pinged.lost
    );
    let link = node.sh("ip -o link show br-ex").unwrap();
    assert!(link.contains("mtu 1400"), "{link}");
    assert!(
        log.contains("reapplied"),
        "br-ex's profile was not reapplied\n{log}"
    );
    let external = node
        .sh("ip -o addr show dev br-ex; ip route show 169.254.169.3")
        .unwrap();
    assert!(
        external.contains("169.254.169.2/29") && external.contains("via 169.254.169.4 dev br-ex"),
        "the address and route added outside NetworkManager are gone:\n{external}\n{log}"
    );

    // A VRF, which this kernel cannot create (its module is not where the kernel loads modules
    // from, until the step below loads it by hand): the apply ends at once, in plain words,
    // with nothing changed, where nmstate's apply retried the activation for two minutes.
    let vrf = "interfaces:\n- name: vrf0\n  type: vrf\n  state: up\n  vrf:\n    port: []\n    \
               route-table-id: 100\n";
    let (rc, took, log) = apply_live(&mut node, vrf, ("", ""));
    eprintln!("a VRF on a kernel without VRF: exit {rc} after {took:.2} s");
    assert_eq!(rc, 2, "{log}");
    assert!(
        log.contains("the kernel does not support VRF") && !log.contains("Bug"),
        "{log}"
    );
    assert!(took < 5.0, "{took:.2} s\n{log}");
    assert!(node.sh("ip link show vrf0").is_err(), "vrf0 exists");

    // br-ex moved onto VLAN 400 of the bond, which the switch carries to the gateway's address
    // on the switch itself (`sw0.400`, the same MAC, as a router's interfaces on two VLANs; in
    // its own VRF so that its answers leave through it): committed, though the bond leaves
    // br-ex and is re-activated (LACP starts over); then back onto the bond the same way.
    node.sh(&format!(
        "modprobe -d $(sed -n 's/.*MODROOT=\\([^ ]*\\).*/\\1/p' /proc/cmdline) vrf
         ip -n sw link add vrf400 type vrf table 400
         ip -n sw link set vrf400 up
         ip -n sw link add link sw0 name sw0.400 type vlan id 400
         ip -n sw link set sw0.400 master vrf400 up
         ip -n sw addr add {GATEWAY}/24 dev sw0.400"
    ))
    .unwrap();
    let onto = |port: &str, vlan: &str| {
        format!(
            "interfaces:\n{vlan}- name: br-ex\n  type: ovs-bridge\n  state: up\n  bridge:\n    \
             port:\n    - name: {port}\n    - name: br-ex\n"
        )
    };
    let (rc, took, log) = apply_live(
        &mut node,
        &onto("bond0.400", &vlan_on_bond(400, None)),
        ("", ""),
    );
    eprintln!("br-ex onto VLAN 400, which the switch carries: exit {rc} after {took:.2} s");
    assert_eq!(rc, 0, "{log}");
    assert!(
        log.contains("bond0: ovs-if-phys0 detached from its OVS bridge")
            && log.contains("the re-activated bonds [\"bond0\"] forward"),
        "{log}"
    );
    let ports = node.sh("ovs-vsctl list-ports br-ex").unwrap();
    assert_eq!(ports.trim(), "bond0.400", "br-ex is on bond0.400");
    let (rc, took, log) = apply_live(&mut node, &onto("bond0", ""), ("", ""));
    eprintln!("br-ex back onto bond0: exit {rc} after {took:.2} s");
    assert_eq!(rc, 0, "{log}");
    assert!(
        log.contains("bond0: ovs-if-phys0 moved under its new OVS port"),
        "{log}"
    );
    let ports = node.sh("ovs-vsctl list-ports br-ex").unwrap();
    assert_eq!(ports.trim(), "bond0", "br-ex is on bond0 again");

    let bad = onto("bond0.300", &vlan_on_bond(300, None));
    let (rc, took, log) = apply_live(&mut node, &bad, ("", ""));
    eprintln!("br-ex onto VLAN 300, which the switch does not carry: exit {rc} after {took:.2} s");
    assert_eq!(rc, 1, "{log}");
    assert!(
        log.contains("rolled back") && log.contains(GATEWAY),
        "the rollback names the gateway\n{log}"
    );
    // Written by the engine: a port change of a bridge that exists.
    assert!(
        log.contains("detached from its OVS bridge")
            && log.contains("bond0.300: bond0.300 activated"),
        "{log}"
    );
    node.sh(&format!("{AWAIT_GATEWAY}\nawait_gateway 30 > /dev/null"))
        .unwrap();
    let ports = node.sh("ovs-vsctl list-ports br-ex").unwrap();
    assert_eq!(ports.trim(), "bond0", "br-ex is back on bond0");
    let addr = node.sh("ip -br -4 addr show br-ex").unwrap();
    assert!(addr.contains(&format!("{NODE_IP}/24")), "{addr}");
}

/// On a real kernel: a live apply killed with SIGKILL at three moments of a change that
/// cuts the node off (its default route moved to a next hop that is not there), on the node
/// converted onto an 802.3ad bond, with the default settings. Before the change (while its
/// probes are selected), nothing has changed; after it (the route in the kernel) and during the
/// probes (the route written and verified, the checkpoint open), the process the apply left
/// behind undoes it (NetworkManager's checkpoint, kept alive only while the apply runs, would
/// by itself). Each time the node is back (no dead route, the gateway answering through br-ex)
/// within 15 s of the kill.
#[test]
fn a_live_apply_killed_at_any_moment_is_undone_within_15_s() {
    if !real_kernel::require("a_live_apply_killed_at_any_moment_is_undone_within_15_s") {
        return;
    }
    let (mut node, _) = uplink_converts(Uplink::Lacp);
    let moments = [
        (
            "before the change",
            "grep -q 'after the change' /run/x/kill.log",
        ),
        (
            "after the change",
            "ip route show default | grep -q 198.51.100.77",
        ),
        ("during the probes", "grep -q 'verified in' /run/x/kill.log"),
    ];
    for (moment, reached) in moments {
        let script = format!(
            "cat > /run/x/dead.yml <<'YAML'
{DEAD_DEFAULT_ROUTE}YAML
             RUST_LOG=info,nispor=error {BIN} apply-live /run/x/dead.yml > /run/x/kill.log 2>&1 &
             pid=$!
             until {reached}; do
                 kill -0 $pid 2>/dev/null || {{ echo 'the apply ended before the moment'; exit 3; }}
                 sleep 0.05
             done
             kill -9 $pid
             t0=$EPOCHREALTIME
             wait $pid 2>/dev/null
             start=$SECONDS
             until ! ip route show default | grep -q 198.51.100.77 &&
                   ping -n -c1 -W1 -I br-ex {GATEWAY} > /dev/null 2>&1; do
                 [ $((SECONDS - start)) -lt 60 ] || {{ echo 'not restored within 60 s'; exit 4; }}
                 sleep 0.1
             done
             awk -v a=$t0 -v b=$EPOCHREALTIME 'BEGIN {{ printf \"restored %.2f\\n\", b - a }}'"
        );
        // A bound on a hung guest, not a measurement.
        let run = node.run(&script, Duration::from_secs(300)).unwrap();
        let log = node.file("kill.log");
        let took: f64 = run
            .output
            .lines()
            .find_map(|l| l.strip_prefix("restored "))
            .unwrap_or_else(|| panic!("{moment}: {}\n--- apply-live\n{log}", run.output))
            .trim()
            .parse()
            .unwrap();
        eprintln!("killed {moment}: the node was back {took:.2} s after the kill");
        assert!(took <= 15.0, "{moment}: {took:.2} s\n{log}");
        let addr = node.sh("ip -br -4 addr show br-ex").unwrap();
        assert!(addr.contains(&format!("{NODE_IP}/24")), "{moment}: {addr}");
    }
}

/// On a real kernel: kubernetes-nmstate's NodeNetworkConfigurationPolicies of
/// the shapes its documentation shows, as they are, applied live on the node converted onto an
/// 802.3ad bond: a VLAN on the bond (nmstate.io/v1; the switch carries it, its peer answers) and
/// an active-backup bond of the two spare NICs (v1beta1); each committed, its interface up.
/// Then each undone as users undo them, the ports kept ([`removals_keep_their_ports`]).
#[test]
fn kubernetes_nmstate_policies_for_a_vlan_and_a_bond_apply_live() {
    if !real_kernel::require("kubernetes_nmstate_policies_for_a_vlan_and_a_bond_apply_live") {
        return;
    }
    let (mut node, _) = uplink_converts(Uplink::Lacp);
    node.sh(&format!(
        "{SWITCH_CARRIES_VLAN_200}\nfor i in 2 3; do ip -n sw link set p$i up; done"
    ))
    .unwrap();
    let vlan = vlan_on_bond(200, Some("203.0.113.10"));
    let bond = "- name: bond1\n  type: bond\n  state: up\n  ipv4:\n    enabled: false\n  \
                ipv6:\n    enabled: false\n  link-aggregation:\n    mode: active-backup\n    \
                options:\n      miimon: '140'\n    port:\n    - e2\n    - e3\n";
    for (api, name, interfaces, link) in [
        ("v1", "vlan-bond0-200", vlan.as_str(), "bond0.200"),
        ("v1beta1", "bond1-e2-e3", bond, "bond1"),
    ] {
        let manifest = integration::nncp::policy(api, name, interfaces);
        let (rc, took, log) = apply_live(&mut node, &manifest, ("", ""));
        eprintln!("{name}: exit {rc} after {took:.2} s");
        assert_eq!(rc, 0, "{log}");
        assert!(log.contains("committed"), "{log}");
        let shown = node.sh(&format!("ip -br link show {link}")).unwrap();
        assert!(shown.contains("UP"), "{name}: {shown}");
    }
    node.sh("ping -n -c1 -W2 203.0.113.1").unwrap();
    removals_keep_their_ports(&mut node);
}

/// e2 and e3 up on their own, without addresses (what the removals below keep).
const SPARE_NICS_UP: &str = "- name: e2\n  type: ethernet\n  state: up\n  ipv4:\n    enabled: false\n  \
                             ipv6:\n    enabled: false\n- name: e3\n  type: ethernet\n  state: up\n  \
                             ipv4:\n    enabled: false\n  ipv6:\n    enabled: false\n";

/// `apply-live` of `interfaces` (an NMState interface list) committed; its log.
fn committed(node: &mut RealKernelNode, what: &str, interfaces: &str) -> String {
    let (rc, took, log) = apply_live(node, &format!("interfaces:\n{interfaces}"), ("", ""));
    eprintln!("{what}: exit {rc} after {took:.2} s");
    assert_eq!(rc, 0, "{what}\n{log}");
    assert!(log.contains("committed"), "{what}\n{log}");
    log
}

/// The everyday undo of kubernetes-nmstate's examples: a controller removed (`state: absent`)
/// with its ports kept up, applied live and committed, the controller gone and each port up
/// with no controller: the bond (active-backup over e2 and e3), the bond with a VLAN on it, a
/// Linux bridge, an OVS bridge with its internal interface.
fn removals_keep_their_ports(node: &mut RealKernelNode) {
    let absent = |names: &[(&str, &str)]| -> String {
        names
            .iter()
            .map(|(n, t)| format!("- name: {n}\n  type: {t}\n  state: absent\n"))
            .collect::<String>()
            + SPARE_NICS_UP
    };
    let vlan = "- name: bond1.300\n  type: vlan\n  state: up\n  vlan:\n    base-iface: bond1\n    \
                id: 300\n  ipv4:\n    enabled: false\n  ipv6:\n    enabled: false\n";
    let bond = "- name: bond1\n  type: bond\n  state: up\n  ipv4:\n    enabled: false\n  ipv6:\n    \
                enabled: false\n  link-aggregation:\n    mode: active-backup\n    port:\n    - e2\n    \
                - e3\n";
    let bridge = "- name: br1\n  type: linux-bridge\n  state: up\n  ipv4:\n    enabled: false\n  \
                  ipv6:\n    enabled: false\n  bridge:\n    options:\n      stp:\n        enabled: \
                  false\n    port:\n    - name: e2\n    - name: e3\n";
    let ovs = "- name: br-ovs1\n  type: ovs-bridge\n  state: up\n  bridge:\n    port:\n    - name: e2\n    \
               - name: e3\n    - name: ovs1\n- name: ovs1\n  type: ovs-interface\n  state: up\n  ipv4:\n    \
               enabled: false\n  ipv6:\n    enabled: false\n";
    let steps: [(&str, Option<String>, String, &[&str]); 4] = [
        (
            "bond1 removed",
            None,
            absent(&[("bond1", "bond")]),
            &["bond1"],
        ),
        (
            "bond1 with VLAN 300 removed",
            Some(format!("{bond}{vlan}")),
            absent(&[("bond1.300", "vlan"), ("bond1", "bond")]),
            &["bond1", "bond1.300"],
        ),
        (
            "Linux bridge br1 removed",
            Some(bridge.to_owned()),
            absent(&[("br1", "linux-bridge")]),
            &["br1"],
        ),
        (
            "OVS bridge br-ovs1 and its interface removed",
            Some(ovs.to_owned()),
            absent(&[("br-ovs1", "ovs-bridge"), ("ovs1", "ovs-interface")]),
            &["ovs1"],
        ),
    ];
    for (what, add, remove, gone) in steps {
        if let Some(add) = add {
            committed(node, &format!("before: {what}"), &add);
        }
        committed(node, what, &remove);
        for link in gone {
            assert!(
                node.sh(&format!("ip link show {link}")).is_err(),
                "{what}: {link}"
            );
        }
        for nic in ["e2", "e3"] {
            let shown = node.sh(&format!("ip -o link show {nic}")).unwrap();
            assert!(
                shown.contains(",UP") && !shown.contains(" master "),
                "{what}: {shown}"
            );
        }
    }
    let bridges = node.sh("ovs-vsctl list-br").unwrap();
    assert!(!bridges.contains("br-ovs1"), "{bridges}");
}
