//! Day 2 after the boot, on the node holding the API VIP, with `ovs-bridge-configurator
//! apply-live` as an administrator runs it: (a) a new interface with an address (a VLAN's
//! stand-in), committed, its peer answering; (b) a default route through a gateway that does
//! not answer, rolled back by the probes; (c) a change killed with SIGKILL before its commit,
//! undone by the process it left behind (NetworkManager's checkpoint the last resort); (d) the
//! same kind of change for every node as a
//! NodeNetworkConfigurationPolicy, through the policy controller and MCO's roll-out (both as
//! the policies' end-to-end test runs them); (e) which nodes held the VIPs, sampled throughout.

use std::io::Read;
use std::time::{Duration, Instant};

use integration::cluster::day2::{
    VipSample, WirePeer, back_on_br_ex, moved, on_br_ex, while_sampling_vips,
};
use integration::cluster::policies::{PolicyApi, policy, workers};
use integration::cluster::{API_VIP, Binaries, Cluster, ClusterNode, INGRESS_VIP};
use integration::nncp::{DEAD_DEFAULT_ROUTE, link_local_interface};
use integration::process::{time_until, wait_for};

use crate::timeline::Outcome;

/// The interface the demo adds (a VLAN's stand-in), its address and its peer's.
pub const NEW_IFACE: &str = "storage";
pub const PEER: &str = "192.0.2.1";
const PEER_CIDR: &str = "192.0.2.1/24";
const NEW_IP: &str = "192.0.2.10";

/// A new OVS internal interface on br-ex with an address (NMState). It stands in for a VLAN
/// with an address, the same additive change: this machine's kernel has no 8021q module, and a
/// VLAN-tagged OVS port is left to nmstate's own apply, which drops the VIPs from br-ex. br-ex
/// keeps its two ports.
fn new_iface_state() -> String {
    format!(
        "interfaces:\n- name: br-ex\n  type: ovs-bridge\n  state: up\n  bridge:\n    port:\n    \
         - name: ens3\n    - name: br-ex\n    - name: {NEW_IFACE}\n- name: {NEW_IFACE}\n  type: \
         ovs-interface\n  state: up\n  ipv4:\n    enabled: true\n    dhcp: false\n    address:\n    \
         - ip: {NEW_IP}\n      prefix-length: 24\n"
    )
}

/// A default route through 198.51.100.66, which is not there, for the killed change.
fn killed_state() -> String {
    DEAD_DEFAULT_ROUTE.replace("198.51.100.77", "198.51.100.66")
}

/// One day-2 step: what it was, when, how it ended, its one line.
#[derive(Debug)]
pub struct Step {
    pub title: String,
    /// The step and its outcome in a few words, for the timeline.
    pub short: String,
    pub from: Instant,
    pub to: Instant,
    pub outcome: Outcome,
    pub line: String,
    /// A step that changed every node (the policy): each node's own part (none: the step ran on
    /// the changes' node alone).
    pub nodes: Vec<NodeSpan>,
}

/// One node's part of a step that changed every node: its MCO update, and how that ended.
#[derive(Debug)]
pub struct NodeSpan {
    pub node: u8,
    pub from: Instant,
    pub to: Instant,
    pub ok: bool,
}

/// Everything day 2 did, for the summary and the timeline.
#[derive(Debug)]
pub struct Day2 {
    /// The node the changes ran on.
    pub node: u8,
    /// Each VIP and the node that held it before day 2.
    pub holders: Vec<(&'static str, u8)>,
    pub steps: Vec<Step>,
    pub samples: Vec<VipSample>,
    /// What each apply-live run logged (stderr), for the timeline.
    pub logs: Vec<String>,
    /// The API and the policy controllers, there until the demo tears down.
    pub api: PolicyApi,
    /// The new interface's peer, there until the demo tears down.
    _peer: WirePeer,
}

impl Step {
    /// Whether this is the VIPs' step (what was seen, not a change made).
    pub fn is_vips(&self) -> bool {
        self.title.starts_with(VIPS_STEP)
    }

    /// `name`: the step in a few words (its title starts with them).
    fn new(
        title: String,
        name: &str,
        span: (Instant, Instant),
        outcome: Outcome,
        line: String,
    ) -> Step {
        let (from, to) = span;
        let verb = match outcome {
            Outcome::Done => "committed",
            Outcome::RolledBack => "rolled back",
            Outcome::Undone => "undone",
            Outcome::Absent => "never moved, on no node a while",
            _ => "FAILED",
        };
        Step {
            short: format!("{name}: {verb}"),
            title,
            from,
            to,
            outcome,
            line,
            nodes: Vec::new(),
        }
    }
}

impl Day2 {
    /// Whether the changes (a) to (d) ended as they should and the VIPs (e) stayed on their
    /// holders (on no node for a moment is said, not failed).
    pub fn ok(&self) -> bool {
        self.steps.iter().all(|s| s.outcome != Outcome::Failed)
    }
}

/// The VIPs' step's letter.
const VIPS_STEP: &str = "(e)";

/// Runs the steps on the API VIP's holder, then the policy for every node; `say` prints a
/// step's line as it ends.
pub fn run(
    c: &mut Cluster,
    bins: &Binaries,
    say: &(dyn Fn(String) + Sync),
) -> anyhow::Result<Day2> {
    let wait = Duration::from_secs(20);
    let api = c
        .wait_single_holder(API_VIP, wait)
        .map_err(anyhow::Error::msg)?;
    let ingress = c
        .wait_single_holder(INGRESS_VIP, wait)
        .map_err(anyhow::Error::msg)?;
    let peer = WirePeer::start(&mut c.up, PEER_CIDR).map_err(anyhow::Error::msg)?;
    let holders = vec![(API_VIP, api), (INGRESS_VIP, ingress)];
    let c: &Cluster = c;
    let policies = PolicyApi::start(c, bins).map_err(anyhow::Error::msg)?;
    let node = &c.nodes[usize::from(api) - 1];
    let ((mut steps, logs), samples) = while_sampling_vips(c, || {
        let mut logs = Vec::new();
        let mut steps = vec![
            new_iface(node, &mut logs, say),
            bad_gateway(node, &mut logs, say),
            killed(node, &mut logs, say),
        ];
        // Each VIP held again, should a step have let one go, and a second more, so a VIP
        // that moved is not seen moving during the policy's roll-out.
        let _ = c.wait_single_holder(API_VIP, wait);
        let _ = c.wait_single_holder(INGRESS_VIP, wait);
        std::thread::sleep(Duration::from_secs(1));
        steps.push(policy_step(c, &policies, api, &peer, say));
        // The sampling goes on two seconds more.
        std::thread::sleep(Duration::from_secs(2));
        (steps, logs)
    });
    let d = vips(&holders, &samples, &steps);
    say(format!("{}: {}", d.title, d.line));
    steps.push(d);
    Ok(Day2 {
        node: api,
        holders,
        steps,
        samples,
        logs,
        api: policies,
        _peer: peer,
    })
}

/// (d) The interface for every node as a NodeNetworkConfigurationPolicy: the controller writes
/// the pool's MachineConfig, MCO rolls it out one node at a time (the API VIP's holder first),
/// the policy reports N/M, and the peer answers each node's link-local address.
fn policy_step(
    c: &Cluster,
    api: &PolicyApi,
    holder: u8,
    peer: &WirePeer,
    say: &dyn Fn(String),
) -> Step {
    let title = format!(
        "(d) NodeNetworkConfigurationPolicy {NEW_IFACE} for every worker ({NEW_IFACE} on br-ex, \
         IPv6 link-local), through the policy controller and MCO's roll-out"
    );
    let mut order = vec![&c.nodes[usize::from(holder) - 1]];
    order.extend(c.nodes.iter().filter(|n| n.index != holder));
    let from = Instant::now();
    let mut nodes = Vec::new();
    let result = roll_out_policy(api, order, peer, &mut nodes);
    let to = Instant::now();
    let (outcome, line) = match result {
        Ok(line) => (
            Outcome::Done,
            format!("{line}, {:.1} s from `oc apply`", secs(to - from)),
        ),
        Err(e) => (Outcome::Failed, format!("FAILED: {e}")),
    };
    say(format!("{title}: {line}"));
    Step {
        nodes,
        ..Step::new(title, "(d) policy", (from, to), outcome, line)
    }
}

/// The policy created, its roll-out (each node's update into `nodes`), its status and the
/// peer's answers: the step's line.
fn roll_out_policy(
    api: &PolicyApi,
    order: Vec<&ClusterNode>,
    peer: &WirePeer,
    nodes: &mut Vec<NodeSpan>,
) -> Result<String, String> {
    let mco = api.mco(order.clone());
    mco.adopt();
    api.apply_policy(policy(
        NEW_IFACE,
        workers(),
        link_local_interface(NEW_IFACE),
    ))?;
    let updates = mco.roll_out();
    for u in &updates {
        if let Some(n) = order.iter().find(|n| n.name() == u.node) {
            nodes.push(NodeSpan {
                node: n.index,
                from: u.started,
                to: u.started + u.took,
                ok: u.ok,
            });
        }
    }
    if let Some(failed) = updates.iter().find(|u| !u.ok) {
        return Err(format!(
            "{}'s update failed: {}",
            failed.node,
            last_line(&failed.log)
        ));
    }
    let status = api.wait_policy(NEW_IFACE, "Available", |_| true)?;
    let link_local = peer.link_local()?;
    for n in &order {
        let ping = ["-6", "-c1", "-W1", "-I", NEW_IFACE, link_local.as_str()];
        if !wait_for(Duration::from_secs(5), || {
            n.node.ns.exec("ping", &ping).is_ok()
        }) {
            return Err(format!(
                "{}: the peer's {link_local} does not answer",
                n.name()
            ));
        }
    }
    let took: Vec<String> = updates
        .iter()
        .map(|u| format!("{} {:.1} s", u.node, secs(u.took)))
        .collect();
    Ok(format!(
        "\"{status}\" (updates: {}); the peer's link-local address answers on each",
        took.join(", ")
    ))
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// (a) The new interface added live: committed, and its peer answers through it.
fn new_iface(node: &ClusterNode, logs: &mut Vec<String>, say: &dyn Fn(String)) -> Step {
    let title = format!(
        "(a) new interface {NEW_IFACE} on br-ex with {NEW_IP}/24 (a VLAN's stand-in: this kernel \
         has no 8021q)"
    );
    let from = Instant::now();
    let result = node.apply_live(&new_iface_state());
    let to = Instant::now();
    let (outcome, line) = match result {
        Ok((status, log)) => {
            let ping = ["-c1", "-W2", "-I", NEW_IFACE, PEER];
            let answers = node.node.ns.exec("ping", &ping).is_ok();
            logs.push(log.clone());
            if status.success() && answers {
                let took = secs(to - from);
                let line = format!("committed in {took:.1} s; its peer {PEER} answers");
                (Outcome::Done, line)
            } else {
                let peer = if answers {
                    "answers"
                } else {
                    "does not answer"
                };
                let line = format!("FAILED ({status}; peer {peer}): {}", last_line(&log));
                (Outcome::Failed, line)
            }
        }
        Err(e) => (Outcome::Failed, format!("FAILED: {e}")),
    };
    say(format!("{title}: {line}"));
    Step::new(title, "(a) new interface", (from, to), outcome, line)
}

/// The line an operator reads: apply-live's last non-empty one, without its timestamp and
/// level.
fn last_line(log: &str) -> String {
    let line = log
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let mut words = line.split_whitespace().peekable();
    if words.peek().is_some_and(|w| w.ends_with('Z')) {
        words.next();
    }
    if words
        .peek()
        .is_some_and(|w| ["INFO", "WARN", "ERROR"].contains(w))
    {
        words.next();
    }
    words.collect::<Vec<_>>().join(" ")
}

/// (b) A default route through a gateway that does not answer: apply-live rolls it back and
/// exits 1 with the probe's reason; the node is back on br-ex.
fn bad_gateway(node: &ClusterNode, logs: &mut Vec<String>, say: &dyn Fn(String)) -> Step {
    let title = "(b) default route via 198.51.100.77 (no such gateway)".to_owned();
    let from = Instant::now();
    let result = node.apply_live(DEAD_DEFAULT_ROUTE);
    let to = Instant::now();
    let back = back_on_br_ex(node, node.index);
    let (outcome, line) = match result {
        Ok((status, log)) => {
            logs.push(log.clone());
            let reason = last_line(&log);
            if status.code() == Some(1) && log.contains("rolled back") && back.is_some() {
                let line = format!("rolled back in {:.1} s: \"{reason}\"", secs(to - from));
                (Outcome::RolledBack, line)
            } else {
                let line = format!("FAILED ({status}, back on br-ex: {back:?}): {reason}");
                (Outcome::Failed, line)
            }
        }
        Err(e) => (Outcome::Failed, format!("FAILED: {e}")),
    };
    say(format!("{title}: {line}"));
    Step::new(title, "(b) dead gateway", (from, to), outcome, line)
}

/// Whether the killed change's default route is in place.
fn killed_route_in_place(node: &ClusterNode) -> bool {
    node.node
        .ns
        .ip(&["route", "show", "default"])
        .is_ok_and(|r| r.contains("198.51.100.66"))
}

/// (c) A change killed with SIGKILL one second after it is in place (its probes still
/// waiting, nothing committed): the process the change left behind undoes it at once, as the
/// change would have (NetworkManager's checkpoint would, by itself, a few seconds later).
fn killed(node: &ClusterNode, logs: &mut Vec<String>, say: &dyn Fn(String)) -> Step {
    let title = "(c) default route via 198.51.100.66, apply-live killed with SIGKILL".to_owned();
    let from = Instant::now();
    let (outcome, line, to) = match kill_midway(node, logs) {
        Ok((killed_at, undone)) => {
            let to = Instant::now();
            let by = logs.last().map_or_else(String::new, |l| undone_by(l));
            match undone {
                Some(took) => (
                    Outcome::Undone,
                    format!(
                        "killed {:.1} s in; undone {:.2} s after the kill, {by}",
                        secs(killed_at - from),
                        secs(took)
                    ),
                    to,
                ),
                None => (
                    Outcome::Failed,
                    "FAILED: the change was still there 30 s after the kill".to_owned(),
                    to,
                ),
            }
        }
        Err(e) => (Outcome::Failed, format!("FAILED: {e}"), Instant::now()),
    };
    say(format!("{title}: {line}"));
    Step::new(title, "(c) SIGKILL", (from, to), outcome, line)
}

/// Who undid the killed change, from what it and the process it left behind logged.
fn undone_by(log: &str) -> String {
    const KEEPER: &str = "the killed change was undone in ";
    let how = log
        .lines()
        .find_map(|l| l.split_once(KEEPER))
        .and_then(|(_, rest)| rest.split_once(": "))
        .map(|(_, how)| how.trim().to_owned());
    match how {
        Some(how) => format!("by the process it left behind: {how}"),
        None => "by NetworkManager's checkpoint".to_owned(),
    }
}

/// Starts the change, kills the applier a second after the change is in place; when it was
/// killed and how long until the node was back on br-ex (`None`: not within 30 s).
fn kill_midway(
    node: &ClusterNode,
    logs: &mut Vec<String>,
) -> Result<(Instant, Option<Duration>), String> {
    let mut child = node.spawn_apply_live(&killed_state())?;
    if !wait_for(Duration::from_secs(20), || killed_route_in_place(node)) {
        let _ = child.kill();
        let _ = child.wait();
        return Err("the change was not in place within 20 s".into());
    }
    std::thread::sleep(Duration::from_secs(1));
    child.kill().map_err(|e| e.to_string())?;
    let killed_at = Instant::now();
    let _ = child.wait();
    let undone = time_until(Duration::from_secs(30), || {
        !killed_route_in_place(node) && on_br_ex(node, node.index)
    })
    .map(|_| killed_at.elapsed());
    // Read once the node is back: the process the change left behind writes to the same pipe
    // and holds it until it is done.
    let mut log = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut log);
    }
    logs.push(log);
    Ok((killed_at, undone))
}

/// VIP `i`'s holders over the samples: each stretch of samples with the same holders, with
/// its first and last sample's time.
pub fn stretches(samples: &[VipSample], i: usize) -> Vec<(Vec<u8>, Instant, Instant)> {
    let mut out: Vec<(Vec<u8>, Instant, Instant)> = Vec::new();
    for s in samples {
        let on = s.held.get(i).map(|(_, on)| on.clone()).unwrap_or_default();
        match out.last_mut() {
            Some(last) if last.0 == on => last.2 = s.at,
            _ => out.push((on, s.at, s.at)),
        }
    }
    out
}

/// Which step ran at `t` ("from (c) SIGKILL"), else the last one that had ended ("after (c)
/// SIGKILL").
fn during(steps: &[Step], t: Instant) -> String {
    let name = |s: &Step| s.short.split(':').next().unwrap_or("").to_owned();
    if let Some(s) = steps.iter().find(|s| s.from <= t && t <= s.to) {
        return format!("from {}", name(s));
    }
    steps.iter().rfind(|s| s.to < t).map_or_else(
        || "before the steps".to_owned(),
        |s| format!("after {}", name(s)),
    )
}

/// One VIP's story: "on node1 in every one", or each stretch of holders in turn (when a
/// stretch after the first began).
fn vip_story(vip: &str, holder: u8, samples: &[VipSample], i: usize, steps: &[Step]) -> String {
    let all = stretches(samples, i);
    if let [(on, _, _)] = all.as_slice()
        && on.as_slice() == [holder]
    {
        return format!("{vip} on node{holder} in every one");
    }
    let parts: Vec<String> = all
        .iter()
        .enumerate()
        .map(|(k, (on, a, z))| {
            let who = match on.as_slice() {
                [] => "on no node".to_owned(),
                nodes => {
                    let names: Vec<String> = nodes.iter().map(|n| format!("node{n}")).collect();
                    format!("on {}", names.join(" + "))
                }
            };
            let when = if k == 0 {
                String::new()
            } else {
                format!(" ({})", during(steps, *a))
            };
            format!("{who} {:.1} s{when}", secs(*z - *a))
        })
        .collect();
    format!("{vip} {}", parts.join(", then "))
}

/// (e) Which nodes held the VIPs in every sample: done if each stayed on its holder; on no
/// node for a while, or on another node, is said with when.
fn vips(holders: &[(&'static str, u8)], samples: &[VipSample], steps: &[Step]) -> Step {
    let elsewhere = moved(samples, holders);
    let (from, to) = match (samples.first(), samples.last()) {
        (Some(f), Some(l)) => (f.at, l.at),
        _ => (Instant::now(), Instant::now()),
    };
    let stories: Vec<String> = holders
        .iter()
        .enumerate()
        .map(|(i, (vip, node))| vip_story(vip, *node, samples, i, steps))
        .collect();
    let outcome = if samples.is_empty() || elsewhere.iter().any(|m| !m.contains(" on [],")) {
        Outcome::Failed
    } else if elsewhere.is_empty() {
        Outcome::Done
    } else {
        Outcome::Absent
    };
    let n = samples.len();
    let line = format!(
        "{n} samples over {:.1} s: {}",
        secs(to - from),
        stories.join("; ")
    );
    let title = format!("{VIPS_STEP} the VIPs, sampled every 50 ms throughout");
    Step::new(
        title,
        &format!("{VIPS_STEP} VIPs"),
        (from, to),
        outcome,
        line,
    )
}
