//! ovs-bridge-configurator on a real kernel (User-Mode Linux): br-ex over a plain NIC, bonds
//! (active-backup, 802.3ad with an LACP partner), VLANs and a team, on OVS's kernel datapath,
//! with NetworkManager as built for the harness but none of its harness switches. Each case
//! checks what a node needs when `apply` returns: br-ex carries the node IP on the `system`
//! datapath with the uplink as its port, the profiles are configure-ovs.sh's, and the gateway
//! answers through br-ex.

use std::time::Duration;

use integration::real_kernel::{self, RealKernelNode};

const BIN: &str = env!("CARGO_BIN_EXE_ovs-bridge-configurator");
const NODE_IP: &str = "198.51.100.20";
const GATEWAY: &str = "198.51.100.1";
const VLAN: u16 = 100;

/// `await_gateway SECONDS [IP]`: echo requests one at a time (`ping -w` gives up early on
/// "unreachable") until the gateway (198.51.100.1) answers; prints the time of its answer or
/// `none`.
const AWAIT_GATEWAY: &str = r#"
await_gateway() {
    local start=${EPOCHREALTIME/./}
    while (( ${EPOCHREALTIME/./} - start < $1 * 1000000 )); do
        if ping -n -q -c1 -W0.2 "${2:-198.51.100.1}" > /dev/null; then echo "$EPOCHREALTIME"; return 0; fi
    done
    echo none
    return 1
}
"#;

/// The switch: namespace `sw` with bridge `sw0` and four cables (node `eN`, switch `pN`).
const SWITCH: &str = "
ip netns add sw
ip -n sw link set lo up
ip -n sw link add sw0 type bridge
ip -n sw link set sw0 up
for i in 0 1 2 3; do
    ip link add e$i type veth peer name p$i netns sw
    ip link set e$i up
done
";

/// How the node reaches the switch.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Uplink {
    Nic,
    ActiveBackup,
    Lacp,
    VlanOnLacp,
    VlanOnNic,
    Team,
}

impl Uplink {
    /// The switch side: ports into sw0 (bonded for LACP) and the gateway, tagged for VLANs.
    fn switch(self) -> String {
        let mut s = String::from(SWITCH);
        match self {
            Uplink::Nic | Uplink::VlanOnNic => s.push_str("ip -n sw link set p0 master sw0 up\n"),
            Uplink::ActiveBackup | Uplink::Team => {
                s.push_str("for i in 0 1; do ip -n sw link set p$i master sw0 up; done\n");
            }
            Uplink::Lacp | Uplink::VlanOnLacp => s.push_str(
                "ip -n sw link add swb type bond mode 802.3ad miimon 100 lacp_rate fast
                 for i in 0 1; do ip -n sw link set p$i master swb; done
                 ip -n sw link set swb master sw0 up
                 for i in 0 1; do ip -n sw link set p$i up; done\n",
            ),
        }
        let gw_dev = if self.vlan() {
            s.push_str(&format!(
                "ip -n sw link add link sw0 name sw0.{VLAN} type vlan id {VLAN}\n\
                 ip -n sw link set sw0.{VLAN} up\n"
            ));
            format!("sw0.{VLAN}")
        } else {
            "sw0".to_owned()
        };
        s.push_str(&format!("ip -n sw addr add {GATEWAY}/24 dev {gw_dev}\n"));
        s
    }

    fn vlan(self) -> bool {
        matches!(self, Uplink::VlanOnLacp | Uplink::VlanOnNic)
    }

    /// The device that carries the node IP before the conversion.
    fn device(self) -> String {
        match self {
            Uplink::Nic => "e0".into(),
            Uplink::ActiveBackup | Uplink::Lacp => "bond0".into(),
            Uplink::VlanOnLacp => format!("bond0.{VLAN}"),
            Uplink::VlanOnNic => format!("e0.{VLAN}"),
            Uplink::Team => "team0".into(),
        }
    }

    /// The node's original profiles, as an installer would write them, brought up.
    fn node(self) -> String {
        let ip = format!(
            "ipv4.method manual ipv4.addresses {NODE_IP}/24 ipv4.gateway {GATEWAY} ipv6.method disabled"
        );
        let bond = |opts: &str, addressed: bool| {
            let addr = if addressed {
                ip.clone()
            } else {
                "ipv4.method disabled ipv6.method disabled".into()
            };
            bond_profiles("bond0", [0, 1], opts, &addr)
        };
        let vlan = |parent: &str| {
            format!(
                "nmcli conn add type vlan ifname {parent}.{VLAN} con-name {parent}.{VLAN} \
                 vlan.parent {parent} vlan.id {VLAN} {ip}\n"
            )
        };
        let lacp = "mode=802.3ad,miimon=100,lacp_rate=fast";
        let profiles = match self {
            Uplink::Nic => format!("nmcli conn add type ethernet ifname e0 con-name e0 {ip}\n"),
            Uplink::ActiveBackup => bond("mode=active-backup,miimon=100", true),
            Uplink::Lacp => bond(lacp, true),
            Uplink::VlanOnLacp => bond(lacp, false) + &vlan("bond0"),
            Uplink::VlanOnNic => {
                "nmcli conn add type ethernet ifname e0 con-name e0 ipv4.method disabled \
                 ipv6.method disabled\n"
                    .to_owned()
                    + &vlan("e0")
            }
            Uplink::Team => format!(
                "nmcli conn add type team ifname team0 con-name team0 \
                 team.runner activebackup {ip}\n\
                 for i in 0 1; do nmcli conn add type ethernet ifname e$i con-name team0-port$i \
                 master team0 slave-type team; done\n"
            ),
        };
        format!(
            "{AWAIT_GATEWAY}{profiles}nmcli -w 60 conn up {top}\n\
             # the node forwards before the conversion, as the reference node did\n\
             await_gateway 30\n",
            top = self.device()
        )
    }

    /// The profiles configure-ovs.sh makes for this uplink (reference §1.7, §1.8).
    fn expected_profiles(self) -> Vec<String> {
        let mut p: Vec<String> = [
            "br-ex",
            "ovs-if-br-ex",
            "ovs-if-phys0",
            "ovs-port-br-ex",
            "ovs-port-phys0",
        ]
        .map(String::from)
        .to_vec();
        match self {
            Uplink::ActiveBackup | Uplink::Lacp => {
                p.extend((0..2).map(|i| format!("bond0-port{i}-slave-ovs-clone")));
            }
            Uplink::Team => p.extend((0..2).map(|i| format!("team0-port{i}-slave-ovs-clone"))),
            _ => {}
        }
        p.sort();
        p
    }
}

/// A bond `name` over `eN` for each N in `ports`, with `addr` (nmcli IP settings).
fn bond_profiles(name: &str, ports: [u8; 2], opts: &str, addr: &str) -> String {
    let [a, b] = ports;
    format!(
        "nmcli conn add type bond ifname {name} con-name {name} bond.options {opts} {addr}\n\
         for i in {a} {b}; do nmcli conn add type ethernet ifname e$i con-name {name}-port$i \
         master {name} slave-type bond; done\n"
    )
}

/// What one conversion showed.
#[derive(Debug)]
struct Conversion {
    /// `apply`'s exit status.
    status: i32,
    /// Seconds from `apply`'s start to its return.
    apply_s: f64,
    /// Seconds from `apply`'s return to the gateway's first answer through br-ex (None: it
    /// did not answer within 30 s).
    gateway_s: Option<f64>,
    log: String,
}

/// Runs `apply` and then pings the gateway until it answers, timing both.
fn convert(node: &mut RealKernelNode) -> Conversion {
    let script = format!(
        r#"{AWAIT_GATEWAY}
         mkdir -p /run/nodeip-configuration
         printf {NODE_IP} > /run/nodeip-configuration/primary-ip
         t0=$EPOCHREALTIME
         {BIN} apply --retry-interval-secs 0 > /run/x/apply.log 2>&1
         rc=$?
         t1=$EPOCHREALTIME
         t2=$(await_gateway 30)
         echo "$rc $t0 $t1 $t2""#
    );
    let out = node.sh(&script).unwrap();
    let f: Vec<&str> = out.split_whitespace().collect();
    let num = |s: &str| s.parse::<f64>().unwrap();
    Conversion {
        status: f[0].parse().unwrap(),
        apply_s: num(f[2]) - num(f[1]),
        gateway_s: (f[3] != "none").then(|| num(f[3]) - num(f[2])),
        log: node.file("apply.log"),
    }
}

/// Boots a node, builds `uplink` with its switch, converts it and checks everything a node
/// needs when `apply` returns.
fn uplink_converts(uplink: Uplink) -> (RealKernelNode, Conversion) {
    let mut node = RealKernelNode::boot("node0").unwrap();
    node.sh(&uplink.switch()).unwrap();
    node.sh(&uplink.node())
        .unwrap_or_else(|e| panic!("{uplink:?}: {e}\n{}", node.diagnostics()));
    let mac_before = node
        .sh(&format!("cat /sys/class/net/{}/address", uplink.device()))
        .unwrap();

    let c = convert(&mut node);
    eprintln!(
        "{uplink:?}: apply {:.2} s, gateway {:?} s after it returned",
        c.apply_s, c.gateway_s
    );
    assert_eq!(c.status, 0, "{uplink:?}: apply failed\n{}", c.log);
    let gateway = c.gateway_s.unwrap_or_else(|| {
        panic!(
            "{uplink:?}: the gateway did not answer within 30 s of apply\n{}",
            c.log
        )
    });
    assert!(
        gateway < 1.0,
        "{uplink:?}: apply returned {gateway:.2} s before the gateway answered\n{}",
        c.log
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
        uplink.expected_profiles(),
        "{uplink:?}: active profiles"
    );
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
    assert!(
        c.log.contains("gateway 203.0.113.1 answers through br-ex1"),
        "the second network's gateway was awaited through br-ex1\n{}",
        c.log
    );
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
    // An 802.3ad bond forwards seconds after it is up (LACP renegotiates); given no time at all
    // to answer, the gateway's silence must fail the conversion and roll it back.
    node.sh("mkdir -p /etc/ovs-bridge-configurator
         echo 'forwarding-timeout-secs = 0' > /etc/ovs-bridge-configurator/config.toml")
        .unwrap();
    let c = convert(&mut node);
    assert_ne!(c.status, 0, "{}", c.log);
    assert!(
        c.log.contains(
            "the gateway 198.51.100.1 answered an echo request before the change and not \
             through br-ex"
        ),
        "the failed probe is named\n{}",
        c.log
    );
    assert!(
        c.gateway_s.is_some(),
        "the gateway answers again after the rollback\n{}",
        c.log
    );
    let addr = node.sh("ip -br -4 addr show bond0").unwrap();
    assert!(
        addr.contains(NODE_IP),
        "the node IP is back on bond0: {addr}"
    );
    let bridges = node.sh("ovs-vsctl list-br").unwrap();
    assert!(!bridges.contains("br-ex"), "{bridges}");
}

/// The seeds' per-host NMState shape: br-ex on an 802.3ad bond over `ports`.
fn nmstate_br_ex_on_bond(ports: [&str; 2]) -> String {
    let [a, b] = ports;
    format!(
        "interfaces:
- name: bond0
  type: bond
  state: up
  link-aggregation:
    mode: 802.3ad
    options:
      miimon: 100
      lacp_rate: fast
    port:
    - {a}
    - {b}
  ipv4:
    enabled: false
  ipv6:
    enabled: false
- name: br-ex
  type: ovs-bridge
  state: up
  bridge:
    port:
    - name: bond0
    - name: br-ex
- name: br-ex
  type: ovs-interface
  state: up
  ipv4:
    enabled: true
    dhcp: false
    address:
    - ip: {NODE_IP}
      prefix-length: 24
  ipv6:
    enabled: false
routes:
  config:
  - destination: 0.0.0.0/0
    next-hop-address: {GATEWAY}
    next-hop-interface: br-ex
"
    )
}

/// Writes `yaml` as the node's own NMState file and runs `apply-nmstate`; its exit status and log.
fn apply_nmstate(node: &mut RealKernelNode, yaml: &str) -> (i32, String) {
    let script = format!(
        "mkdir -p /etc/nmstate/openshift /run/nodeip-configuration
         printf {NODE_IP} > /run/nodeip-configuration/primary-ip
         cat > /etc/nmstate/openshift/$(hostname).yml <<'YAML'\n{yaml}YAML
         {BIN} apply-nmstate --retry-interval-secs 0 > /run/x/apply-nmstate.log 2>&1"
    );
    let run = node.run(&script, Duration::from_secs(180)).unwrap();
    (run.status, node.file("apply-nmstate.log"))
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
}

#[test]
fn a_per_host_nmstate_file_whose_bond_cannot_forward_keeps_the_previous_bridge() {
    if !real_kernel::require("a_per_host_nmstate_file_whose_bond_cannot_forward") {
        return;
    }
    let mut node = RealKernelNode::boot("node0").unwrap();
    node.sh(&Uplink::Lacp.switch()).unwrap();
    node.sh(&Uplink::Lacp.node()).unwrap();
    let c = convert(&mut node);
    assert_eq!(c.status, 0, "{}", c.log);
    // e2 and e3 are cabled to switch ports that are down: the bond comes up without a link,
    // nmstate's own verification passes (the address is on br-ex), only the gateway is silent.
    node.sh("mkdir -p /etc/ovs-bridge-configurator
         echo 'forwarding-timeout-secs = 5' > /etc/ovs-bridge-configurator/config.toml")
        .unwrap();
    let (status, log) = apply_nmstate(&mut node, &nmstate_br_ex_on_bond(["e2", "e3"]));
    assert_ne!(status, 0, "{log}");
    assert!(
        log.contains("the gateway 198.51.100.1 answered an echo request before the change"),
        "the silent gateway is named\n{log}"
    );
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
