//! NodeNetworkConfigurationPolicies end to end, as an administrator uses them: `oc apply` a
//! policy, the policy controller (two replicas of the real binary, one leading) writes the
//! pool's MachineConfig, MCO rolls it out node by node ([`mco`], `maxUnavailable: 1`), each
//! node's `apply-nmstate --live` applies its policies over br-ex with the live engine, and the
//! outcome shows on the policy and its enactments.
//!
//! Three harness nodes with keepalived; the API stand-in listens both for the controllers (on
//! the host) and for the nodes (on the machine network's router address), which use it as
//! kubelet's kubeconfig: the live engine probes it and records its Events there.
//!
//! This machine's kernel has no 8021q module: the "VLAN" is an OVS internal interface on br-ex
//! (`storage`), the same additive change as a VLAN with an address. A policy that selects
//! every worker carries no per-node value, so it gives the interface IPv6 link-local
//! addressing; a per-node policy (`kubernetes.io/hostname`) adds an IPv4 address on one node.

#[path = "../common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use integration::cluster::day2::{WirePeer, back_on_br_ex, moved, while_sampling_vips};
use integration::cluster::mco::{Mco, Update};
use integration::cluster::policies::{PolicyApi, policy, workers};
use integration::cluster::{API_VIP, Binaries, Cluster, ClusterNode, INGRESS_VIP};
use integration::nncp::{DEAD_DEFAULT_ROUTE, link_local_interface};
use integration::node::ROUTER;
use integration::process::wait_for;
use integration::require_root;
use serde_json::{Value, json};

/// The peer on the machine network's wire that the new interface reaches.
const PEER_V4: &str = "192.0.2.1";
/// node2's address on the new interface (its per-node policy).
const NODE2_V4: &str = "192.0.2.12";
/// The route of the fixed policy: through the machine network's router, above node2's address.
const FIXED_ROUTE: &str = "192.0.2.128/25";
/// Another policy's route, beside it.
const SECOND_ROUTE: &str = "192.0.2.64/26";

/// The new interface on br-ex for every worker ([`link_local_interface`]).
fn storage_interface() -> Value {
    link_local_interface("storage")
}

/// A desired state from its YAML.
fn state(text: &str) -> Value {
    serde_yaml::from_str(text).unwrap()
}

/// The test's cluster: the harness, the API and controllers, MCO's order.
struct World {
    c: Cluster,
    api: PolicyApi,
    /// The roll-out order: the API VIP's holder first (the worst place for a bad change).
    order: Vec<u8>,
    holders: Vec<(&'static str, u8)>,
    peer: WirePeer,
}

impl World {
    fn start() -> World {
        let (mut c, api_holder) = common::booted_cluster();
        let ingress = c
            .wait_single_holder(INGRESS_VIP, Duration::from_secs(20))
            .unwrap();
        let api = PolicyApi::start(&c, &Binaries(common::workspace_binaries())).unwrap();
        let peer = WirePeer::start(&mut c.up, &format!("{PEER_V4}/24")).unwrap();
        let mut order = vec![api_holder];
        order.extend((1..=3).filter(|&n| n != api_holder));
        let w = World {
            c,
            api,
            order,
            holders: vec![(API_VIP, api_holder), (INGRESS_VIP, ingress)],
            peer,
        };
        w.mco().adopt();
        w
    }

    fn node(&self, n: u8) -> &ClusterNode {
        &self.c.nodes[usize::from(n) - 1]
    }

    fn mco(&self) -> Mco<'_> {
        self.api
            .mco(self.order.iter().map(|&n| self.node(n)).collect())
    }

    /// MCO's roll-out while the VIPs are sampled: the updates, and every sample that saw a VIP
    /// away from its holder.
    fn roll_out(&self) -> (Vec<Update>, Vec<String>) {
        let (updates, samples) = while_sampling_vips(&self.c, || self.mco().roll_out());
        for u in &updates {
            eprintln!(
                "{}: update {} in {:.2} s",
                u.node,
                if u.ok { "done" } else { "FAILED" },
                u.took.as_secs_f64()
            );
        }
        (updates, moved(&samples, &self.holders))
    }

    /// MCO's roll-out reaching every node, no VIP away from its holder in any sample, and the
    /// policy `name` Available on all three.
    fn roll_out_to_all(&self, name: &str) {
        let (updates, moved) = self.roll_out();
        assert!(
            updates.len() == 3 && updates.iter().all(|u| u.ok),
            "{}",
            logs(&updates)
        );
        assert!(
            moved.is_empty(),
            "the roll-out moved a VIP:\n{}",
            moved.join("\n")
        );
        self.wait_policy(name, "Available", |m| {
            m == "3/3 nodes successfully configured"
        });
    }

    fn wait_policy(&self, name: &str, kind: &str, check: impl Fn(&str) -> bool) -> String {
        self.api.wait_policy(name, kind, check).unwrap()
    }

    fn enactment(&self, node: u8, policy: &str) -> Option<(String, String)> {
        self.api.enactment(&format!("node{node}"), policy)
    }

    /// `ping` from node `n` through `dev` to `target` answers within 5 s (a new address is
    /// tentative until duplicate address detection has run); the interface's addresses if not.
    fn answers(&self, n: u8, dev: &str, target: &str) -> Result<(), String> {
        let family = if target.contains(':') { "-6" } else { "-4" };
        let ns = &self.node(n).node.ns;
        let ping = || {
            ns.exec("ping", &[family, "-c1", "-W1", "-I", dev, target])
                .is_ok()
        };
        if wait_for(Duration::from_secs(5), ping) {
            return Ok(());
        }
        Err(format!(
            "node{n}: no answer from {target} through {dev}: {}",
            ns.ip(&["addr", "show", "dev", dev]).unwrap_or_else(|e| e)
        ))
    }
}

fn logs(updates: &[Update]) -> String {
    updates
        .iter()
        .map(|u| format!("--- {}\n{}", u.node, u.log))
        .collect()
}

#[test]
fn policies_reach_the_nodes_through_mcos_roll_out_and_report_each_nodes_outcome() {
    if !require_root("policies_reach_the_nodes_through_mcos_roll_out") {
        return;
    }
    let w = World::start();
    let t0 = Instant::now();
    a_worker_policy_reaches_every_node(&w);
    a_per_node_policy_reaches_that_node_only(&w);
    a_dead_gateway_stops_the_roll_out_at_the_first_node_and_the_fix_completes_it(&w);
    conflicting_policies_both_say_so_and_no_node_changes(&w);
    bad_input_is_degraded_naming_the_policy_and_nothing_is_rendered(&w);
    a_leader_killed_mid_reconcile_is_replaced_and_nothing_is_written_twice(&w);
    eprintln!(
        "policies: every phase in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    a_rebooted_node_gets_its_policies_back(w);
}

fn a_worker_policy_reaches_every_node(w: &World) {
    w.api
        .apply_policy(policy("storage", workers(), storage_interface()))
        .unwrap();
    w.wait_policy("storage", "Progressing", |_| true);
    w.roll_out_to_all("storage");
    let peer = w.peer.link_local().unwrap();
    for n in 1..=3 {
        assert_eq!(
            w.enactment(n, "storage").map(|e| e.0).as_deref(),
            Some("Available"),
            "{}",
            w.api.context()
        );
        w.answers(n, "storage", &peer).unwrap();
    }
}

fn a_per_node_policy_reaches_that_node_only(w: &World) {
    let state = state(&format!(
        "interfaces:\n- name: storage\n  type: ovs-interface\n  state: up\n  ipv4:\n    \
         enabled: true\n    dhcp: false\n    address:\n    - ip: {NODE2_V4}\n      \
         prefix-length: 24\n"
    ));
    w.api
        .apply_policy(policy(
            "node2-storage",
            json!({"kubernetes.io/hostname": "node2"}),
            state,
        ))
        .unwrap();
    let (updates, moved) = w.roll_out();
    assert!(updates.iter().all(|u| u.ok), "{}", logs(&updates));
    assert!(
        moved.is_empty(),
        "the roll-out moved a VIP:\n{}",
        moved.join("\n")
    );
    w.wait_policy("node2-storage", "Available", |m| {
        m == "1/1 nodes successfully configured"
    });
    w.answers(2, "storage", PEER_V4).unwrap();
    for n in [1, 3] {
        assert_eq!(w.enactment(n, "node2-storage"), None, "node{n}");
        let v4 = w.node(n).addresses("storage");
        assert!(!v4.contains(NODE2_V4), "node{n}: {v4}");
    }
}

fn a_dead_gateway_stops_the_roll_out_at_the_first_node_and_the_fix_completes_it(w: &World) {
    let first = w.order[0];
    let before: Vec<String> = w.c.nodes.iter().map(ClusterNode::state).collect();
    w.api
        .apply_policy(policy("routes", workers(), state(DEAD_DEFAULT_ROUTE)))
        .unwrap();
    let (updates, _) = w.roll_out();
    assert_eq!(
        updates.len(),
        1,
        "the roll-out went past node{first}\n{}",
        logs(&updates)
    );
    assert!(
        !updates[0].ok,
        "node{first} kept the dead gateway\n{}",
        logs(&updates)
    );
    assert!(
        back_on_br_ex(w.node(first), first).is_some(),
        "node{first} is not back\n{}",
        logs(&updates)
    );
    let message = w.wait_policy("routes", "Degraded", |m| {
        m.starts_with("1/3 nodes failed to configure, roll-out stopped")
    });
    let (kind, why) = w.enactment(first, "routes").unwrap();
    assert_eq!(kind, "Failing", "{why}");
    // The node's own account (its Event), not only MCO's "restarting the unit failed".
    assert!(
        why.starts_with("NMStatePolicyRolledBack") && why.contains("198.51.100.77"),
        "node{first}: {why}"
    );
    for &n in &w.order[1..] {
        let (kind, _) = w.enactment(n, "routes").unwrap();
        assert_eq!(kind, "Aborted", "node{n}");
    }
    for (n, was) in w.c.nodes.iter().zip(&before) {
        assert_eq!(n.state(), *was, "node{} changed", n.index);
    }
    eprintln!("dead gateway: {message}");
    the_author_fixes_the_policy_and_the_roll_out_completes(w);
}

/// The dead gateway's policy fixed (a route through the router that answers): the roll-out
/// starts again at the degraded node and reaches all three.
fn the_author_fixes_the_policy_and_the_roll_out_completes(w: &World) {
    let fixed = state(&format!(
        "routes:\n  config:\n  - destination: {FIXED_ROUTE}\n    next-hop-address: {ROUTER}\n    \
         next-hop-interface: br-ex\n"
    ));
    w.api.kube.patch(
        "nmstate.io/v1",
        "NodeNetworkConfigurationPolicy",
        "routes",
        json!({"spec": {"desiredState": fixed}}),
    );
    w.api
        .wait("the fixed policy in the MachineConfig", || {
            w.api
                .policy_file("routes")
                .is_some_and(|t| t.contains(FIXED_ROUTE))
        })
        .unwrap();
    w.roll_out_to_all("routes");
    for n in 1..=3 {
        let routes = w
            .node(n)
            .node
            .ns
            .ip(&["route", "show", FIXED_ROUTE])
            .unwrap();
        assert!(routes.contains("via 198.51.100.1"), "node{n}: {routes}");
    }
}

fn conflicting_policies_both_say_so_and_no_node_changes(w: &World) {
    let mtu = |m: u32| {
        state(&format!(
            "interfaces:\n- name: storage\n  type: ovs-interface\n  state: up\n  mtu: {m}\n"
        ))
    };
    let before: Vec<String> = (1..=3)
        .map(|n| w.node(n).node.ns.ip(&["link", "show", "storage"]).unwrap())
        .collect();
    w.api.kube.create(policy("mtu-a", workers(), mtu(1400)));
    w.api.kube.create(policy("mtu-b", workers(), mtu(1300)));
    for (me, other) in [("mtu-a", "mtu-b"), ("mtu-b", "mtu-a")] {
        let m = w.wait_policy(me, "Degraded", |m| m.contains(other));
        assert!(m.contains("storage") && m.contains("mtu"), "{me}: {m}");
    }
    let (updates, _) = w.roll_out();
    assert!(updates.iter().all(|u| u.ok), "{}", logs(&updates));
    for n in 1..=3 {
        let link = w.node(n).node.ns.ip(&["link", "show", "storage"]).unwrap();
        assert_eq!(link, before[usize::from(n) - 1], "node{n}");
    }
    for p in ["mtu-a", "mtu-b"] {
        w.api
            .kube
            .delete("nmstate.io/v1", "NodeNetworkConfigurationPolicy", p);
    }
}

fn bad_input_is_degraded_naming_the_policy_and_nothing_is_rendered(w: &World) {
    w.api.settle().unwrap();
    let files = w.api.pool_files();
    let writes = w.api.kube.server.writes("machineconfigs");
    let mut captured = policy("captured", workers(), storage_interface());
    captured["spec"]["capture"] = json!({"nic": "interfaces.name==\"ens3\""});
    w.api.kube.create(captured);
    w.api.kube.create(policy(
        "not-nmstate",
        workers(),
        json!({"interfaces": [{"name": "storage", "type": "ovs-interface", "mtu": "large"}]}),
    ));
    w.wait_policy("captured", "Degraded", |m| {
        m.starts_with("policy captured: spec.capture")
    });
    w.wait_policy("not-nmstate", "Degraded", |m| {
        m.starts_with("policy not-nmstate: spec.desiredState is not valid NMState")
    });
    assert_eq!(w.api.pool_files(), files);
    assert_eq!(w.api.kube.server.writes("machineconfigs"), writes);
    for p in ["captured", "not-nmstate"] {
        w.api
            .kube
            .delete("nmstate.io/v1", "NodeNetworkConfigurationPolicy", p);
    }
}

fn a_leader_killed_mid_reconcile_is_replaced_and_nothing_is_written_twice(w: &World) {
    w.api.settle().unwrap();
    let leader = w.api.leader().expect("a leader");
    let writes = w.api.kube.server.writes("machineconfigs");
    // A second route through the router (routes of several policies are a union).
    let route = state(&format!(
        "routes:\n  config:\n  - destination: {SECOND_ROUTE}\n    next-hop-address: {ROUTER}\n    \
         next-hop-interface: br-ex\n"
    ));
    w.api.kube.create(policy("more-routes", workers(), route));
    let (_, daemon) = w.api.replicas.iter().find(|(id, _)| *id == leader).unwrap();
    daemon.signal(libc::SIGKILL).unwrap();
    let t0 = Instant::now();
    w.api
        .wait("the other replica leading", || {
            w.api.leader().is_some_and(|l| l != leader)
        })
        .unwrap();
    w.api
        .wait("more-routes in the MachineConfig", || {
            w.api.policy_file("more-routes").is_some()
        })
        .unwrap();
    eprintln!(
        "{leader} killed: the other replica wrote the MachineConfig {:.1} s later",
        t0.elapsed().as_secs_f64()
    );
    w.wait_policy("more-routes", "Progressing", |_| true);
    assert_eq!(
        w.api.kube.server.writes("machineconfigs"),
        writes + 1,
        "the MachineConfig written once"
    );
    w.roll_out_to_all("more-routes");
    for n in 1..=3 {
        let routes = w
            .node(n)
            .node
            .ns
            .ip(&["route", "show", SECOND_ROUTE])
            .unwrap();
        assert!(routes.contains("via 198.51.100.1"), "node{n}: {routes}");
    }
}

fn a_rebooted_node_gets_its_policies_back(mut w: World) {
    let n = 2;
    let say = |m: String| eprintln!("{m}");
    w.c.nodes[usize::from(n) - 1].reboot(&say).unwrap();
    let node = w.node(n);
    assert!(
        back_on_br_ex(node, n).is_some(),
        "node{n}: br-ex after the reboot"
    );
    for route in [FIXED_ROUTE, SECOND_ROUTE] {
        let shown = node.node.ns.ip(&["route", "show", route]).unwrap();
        assert!(
            shown.contains("via 198.51.100.1"),
            "node{n}: {route}: {shown}"
        );
    }
    w.answers(n, "storage", PEER_V4).unwrap();
    w.answers(n, "storage", &w.peer.link_local().unwrap())
        .unwrap();
}
