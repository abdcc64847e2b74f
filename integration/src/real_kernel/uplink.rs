//! Uplink topologies of a real-kernel node and its switch, as bash scripts the node runs: a
//! plain NIC, bonds (active-backup, 802.3ad with a bonded switch as LACP partner), VLANs and a
//! team; and one timed conversion (`apply`, then the gateway's first answer). The tests and the
//! benchmark build the same nodes from these.

use super::RealKernelNode;
use crate::per_host::{self, PerHost};

/// The node IP every topology gives the node.
pub const NODE_IP: &str = "198.51.100.20";
/// The switch's address, the node's default gateway.
pub const GATEWAY: &str = "198.51.100.1";
/// The VLAN of the VLAN topologies.
pub const VLAN: u16 = 100;

/// `await_gateway SECONDS [IP]`: echo requests one at a time (`ping -w` gives up early on
/// "unreachable") until the gateway (198.51.100.1) answers; prints the time of its answer or
/// `none`.
///
/// `await_lacp BOND SECONDS`: until every port of the 802.3ad bond is in its active aggregator
/// and that aggregator has a partner. A bond forwards through the first aggregator its first
/// port forms and goes dark for a moment when its second port's arrival moves it to a new one:
/// a node set up for a test waits that out, as a node that has been up a while has.
pub const AWAIT_GATEWAY: &str = r#"
await_gateway() {
    local start=${EPOCHREALTIME/./}
    while (( ${EPOCHREALTIME/./} - start < $1 * 1000000 )); do
        if ping -n -q -c1 -W0.2 "${2:-198.51.100.1}" > /dev/null; then echo "$EPOCHREALTIME"; return 0; fi
    done
    echo none
    return 1
}
await_lacp() {
    local f=/proc/net/bonding/$1 end=$((SECONDS + $2))
    while (( SECONDS < end )); do
        local ports in partner
        ports=$(grep -c '^Slave Interface' "$f")
        in=$(awk '/^Active Aggregator Info/ {a = 1} a && /Number of ports/ {print $4; exit}' "$f")
        partner=$(awk '/^Active Aggregator Info/ {a = 1} a && /Partner Mac Address/ {print $4; exit}' "$f")
        if [ "$ports" -gt 0 ] && [ "$in" = "$ports" ] && [ -n "$partner" ] \
            && [ "$partner" != 00:00:00:00:00:00 ]; then
            return 0
        fi
        sleep 0.1
    done
    cat "$f"
    return 1
}
"#;

/// The switch: namespace `sw` with bridge `sw0` and four cables (node `eN`, switch `pN`). The
/// node's ends have fixed MACs, as NICs do, so a rebooted node sees the same ones.
const SWITCH: &str = "
ip netns add sw
ip -n sw link set lo up
ip -n sw link add sw0 type bridge
ip -n sw link set sw0 up
for i in 0 1 2 3; do
    ip link add e$i address 52:54:00:00:01:0$i type veth peer name p$i netns sw
    ip link set e$i up
done
";

/// How the node reaches the switch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Uplink {
    Nic,
    ActiveBackup,
    Lacp,
    VlanOnLacp,
    VlanOnNic,
    Team,
}

impl Uplink {
    /// Every topology, in the order the benchmark reports them.
    pub const ALL: [Uplink; 6] = [
        Uplink::Nic,
        Uplink::ActiveBackup,
        Uplink::Lacp,
        Uplink::VlanOnLacp,
        Uplink::VlanOnNic,
        Uplink::Team,
    ];

    /// The switch side: ports into sw0 (bonded for LACP) and the gateway, tagged for VLANs.
    pub fn switch(self) -> String {
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

    pub fn vlan(self) -> bool {
        matches!(self, Uplink::VlanOnLacp | Uplink::VlanOnNic)
    }

    /// The device that carries the node IP before the conversion.
    pub fn device(self) -> String {
        match self {
            Uplink::Nic => "e0".into(),
            Uplink::ActiveBackup | Uplink::Lacp => "bond0".into(),
            Uplink::VlanOnLacp => format!("bond0.{VLAN}"),
            Uplink::VlanOnNic => format!("e0.{VLAN}"),
            Uplink::Team => "team0".into(),
        }
    }

    /// The node's original profiles, as an installer would write them, brought up.
    pub fn node(self) -> String {
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
        let settled = if matches!(self, Uplink::Lacp | Uplink::VlanOnLacp) {
            "await_lacp bond0 30\n"
        } else {
            ""
        };
        format!(
            "{AWAIT_GATEWAY}{profiles}nmcli -w 60 conn up {top}\n{settled}\
             # the node forwards before the conversion, as the reference node did\n\
             await_gateway 30\n",
            top = self.device()
        )
    }
}

/// A bond `name` over `eN` for each N in `ports`, with `addr` (nmcli IP settings).
pub fn bond_profiles(name: &str, ports: [u8; 2], opts: &str, addr: &str) -> String {
    let [a, b] = ports;
    format!(
        "nmcli conn add type bond ifname {name} con-name {name} bond.options {opts} {addr}\n\
         for i in {a} {b}; do nmcli conn add type ethernet ifname e$i con-name {name}-port$i \
         master {name} slave-type bond; done\n"
    )
}

/// What one conversion showed.
#[derive(Debug)]
pub struct Conversion {
    /// `apply`'s exit status.
    pub status: i32,
    /// Seconds from `apply`'s start to its return.
    pub apply_s: f64,
    /// Seconds from `apply`'s return to the gateway's first answer through br-ex (None: it
    /// did not answer within 30 s). Includes starting `ping` in the guest, where process
    /// creation is slow.
    pub gateway_s: Option<f64>,
    /// The first echo request sent after `apply` returned was answered: the node forwarded
    /// when `apply` said it was ready (a timing-free check).
    pub first_echo_answered: bool,
    pub log: String,
    /// What the node and its switch knew 20 s into an `apply` that had not returned by then.
    pub stuck: String,
}

/// Runs `BIN apply` and then pings the gateway until it answers, timing both.
pub fn convert(node: &mut RealKernelNode, bin: &str) -> Conversion {
    let script = format!(
        r#"{AWAIT_GATEWAY}
         mkdir -p /run/nodeip-configuration
         printf {NODE_IP} > /run/nodeip-configuration/primary-ip
         rm -f /run/x/apply.done /run/x/stuck.txt
         {stuck}
         t0=$EPOCHREALTIME
         {bin} apply --retry-interval-secs 0 > /run/x/apply.log 2>&1
         rc=$?
         touch /run/x/apply.done
         t1=$EPOCHREALTIME
         if ping -n -q -c1 -W2 {GATEWAY} > /dev/null; then
             first=1 t2=$EPOCHREALTIME
         else
             first=0 t2=$(await_gateway 30)
         fi
         echo "$rc $t0 $t1 $t2 $first""#,
        stuck = stuck()
    );
    let out = node.sh(&script).unwrap();
    let f: Vec<&str> = out.split_whitespace().collect();
    let num = |s: &str| s.parse::<f64>().unwrap();
    Conversion {
        status: f[0].parse().unwrap(),
        apply_s: num(f[2]) - num(f[1]),
        gateway_s: (f[3] != "none").then(|| num(f[3]) - num(f[2])),
        first_echo_answered: f[4] == "1",
        log: node.file("apply.log"),
        stuck: node.file("stuck.txt"),
    }
}

/// What a node whose uplink does not forward knows (shell, to standard output): both ends' bond
/// and LACP state, OVS's bridges, datapath flows and MAC table, the node's and the switch's
/// addresses, routes, neighbours and the switch's forwarding table.
pub const FORWARDING_STATE: &str = r#"for c in 'date -u +%T.%N' 'cat /proc/net/bonding/bond0' \
    'ip netns exec sw cat /proc/net/bonding/swb' 'ovs-vsctl show' 'ovs-dpctl show' \
    'ovs-appctl fdb/show br-ex' 'ovs-appctl dpctl/dump-flows' 'ovs-ofctl dump-ports br-ex' \
    'ip -br addr' 'ip -s link' 'ip neigh' 'ip route' 'ip -n sw neigh' \
    'bridge -n sw fdb show br sw0' 'ip -n sw -s link'; do
    echo "--- $c"; $c 2>&1
done"#;

/// In the background of a conversion: when `apply` is still running 20 s in (a good one returns
/// well before; one whose probes wait for a gateway that does not answer through br-ex does not),
/// [`FORWARDING_STATE`] then, into `stuck.txt`.
fn stuck() -> String {
    format!(
        "(
    for _ in $(seq 200); do [ -e /run/x/apply.done ] && exit; sleep 0.1; done
    {{
        {FORWARDING_STATE}
    }} > /run/x/stuck.tmp
    mv /run/x/stuck.tmp /run/x/stuck.txt
) &"
    )
}

/// Switch-side netem on the given switch ports: a slow link, `delay_ms` each way.
pub fn slow_ports(ports: &[u8], delay_ms: u32) -> String {
    ports
        .iter()
        .map(|p| format!("tc -n sw qdisc add dev p{p} root netem delay {delay_ms}ms\n"))
        .collect()
}

/// The seeds' per-host NMState shape: br-ex on an 802.3ad bond over `ports`.
pub fn nmstate_br_ex_on_bond(ports: [&str; 2]) -> String {
    PerHost::new(per_host::lacp_bond(ports), "bond0", NODE_IP, GATEWAY).yaml()
}
