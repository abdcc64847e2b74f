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

mod kube_api;
mod mco;

#[path = "../common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use integration::api_stand_in::{ApiStandIn, kubeconfig};
use integration::cluster::day2::{WirePeer, back_on_br_ex, moved, while_sampling_vips};
use integration::cluster::{API_VIP, Cluster, ClusterNode, INGRESS_VIP};
use integration::nncp::DEAD_DEFAULT_ROUTE;
use integration::node::ROUTER;
use integration::process::{Daemon, wait_for};
use integration::require_root;
use serde_json::{Value, json};

use kube_api::{Kube, MC_GROUP, NMSTATE};
use mco::{Mco, Update};

const POLICIES: &str = "nodenetworkconfigurationpolicies";
const ENACTMENTS: &str = "nodenetworkconfigurationenactments";
const POOL_MC: &str = "50-worker-nmstate-policies";
/// The controllers' Lease, in their namespace.
const LEASE_NS: &str = "onprem-policy-controller";
/// The replicas' lease: short, so a killed leader is replaced within seconds.
const LEASE_SECONDS: &str = "4";

/// The peer on the machine network's wire that the new interface reaches.
const PEER_V4: &str = "192.0.2.1";
/// node2's address on the new interface (its per-node policy).
const NODE2_V4: &str = "192.0.2.12";
/// The route of the fixed policy: through the machine network's router, above node2's address.
const FIXED_ROUTE: &str = "192.0.2.128/25";

/// The new interface on br-ex, IPv6 link-local only: what a policy for every worker can say.
/// It leaves `ipv4` unsaid (a new interface has none), so a per-node policy can add an address
/// without a conflict.
fn storage_interface() -> Value {
    serde_yaml_state(
        "interfaces:
- name: br-ex
  type: ovs-bridge
  state: up
  bridge:
    port:
    - name: ens3
    - name: br-ex
    - name: storage
- name: storage
  type: ovs-interface
  state: up
  ipv6:
    enabled: true
    autoconf: false
    dhcp: false
",
    )
}

fn serde_yaml_state(text: &str) -> Value {
    serde_yaml::from_str(text).unwrap()
}

/// A policy object.
fn policy(name: &str, selector: Value, state: Value) -> Value {
    json!({"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy",
        "metadata": {"name": name}, "spec": {"nodeSelector": selector, "desiredState": state}})
}

fn workers() -> Value {
    json!({"node-role.kubernetes.io/worker": ""})
}

/// The two replicas of `policy-controller run`, each a process with its own log.
struct Controllers {
    replicas: Vec<(String, Daemon)>,
}

impl Controllers {
    fn start(kube: &Kube, dir: &std::path::Path) -> Controllers {
        let config = dir.join("controller.kubeconfig");
        std::fs::write(&config, kubeconfig(&kube.server.url())).unwrap();
        let bin = common::workspace_binaries().join("policy-controller");
        let replicas = ["replica-a", "replica-b"]
            .map(|id| {
                let mut cmd = std::process::Command::new(&bin);
                cmd.args(["run", "--namespace", LEASE_NS, "--identity", id])
                    .args(["--lease-duration", LEASE_SECONDS, "--lease-retry", "1"])
                    .env("KUBECONFIG", &config)
                    .env("RUST_LOG", "info");
                let log = dir.join(format!("{id}.log"));
                (id.to_owned(), Daemon::spawn(id, &mut cmd, &log).unwrap())
            })
            .into();
        Controllers { replicas }
    }

    /// The Lease's holder.
    fn leader(kube: &Kube) -> Option<String> {
        let lease = kube.server.get(
            "coordination.k8s.io",
            "leases",
            LEASE_NS,
            "policy-controller",
        )?;
        lease["spec"]["holderIdentity"].as_str().map(str::to_owned)
    }

    fn logs(&self) -> String {
        self.replicas
            .iter()
            .map(|(id, d)| format!("--- {id}\n{}", d.log_tail(30)))
            .collect()
    }
}

/// The condition that is True on a policy or an enactment: (type, message).
fn condition(kube: &Kube, plural: &str, name: &str) -> Option<(String, String)> {
    let o = kube.get(NMSTATE, plural, name)?;
    let on = o["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["status"] == "True")?
        .clone();
    Some((
        on["type"].as_str()?.to_owned(),
        on["message"].as_str().unwrap_or("").to_owned(),
    ))
}

/// Waits up to `secs` for `check`, failing the test with `what` and `context()` otherwise.
fn wait(what: &str, secs: u64, mut check: impl FnMut() -> bool, context: impl Fn() -> String) {
    if !wait_for(Duration::from_secs(secs), &mut check) {
        panic!("{what}: not within {secs} s\n{}", context());
    }
}

/// The files of the pool's MachineConfig (path -> base64 data URL).
fn pool_files(kube: &Kube) -> Vec<String> {
    kube.get(MC_GROUP, "machineconfigs", POOL_MC)
        .and_then(|mc| {
            mc["spec"]["config"]["storage"]["files"]
                .as_array()
                .map(|f| {
                    f.iter()
                        .filter_map(|f| f["path"].as_str().map(str::to_owned))
                        .collect()
                })
        })
        .unwrap_or_default()
}

/// `policy`'s state file as the pool's MachineConfig carries it.
fn policy_file(kube: &Kube, policy: &str) -> Option<String> {
    let mc = kube.get(MC_GROUP, "machineconfigs", POOL_MC)?;
    mco::decoded(&mc).remove(&format!("/etc/nmstate/openshift/policies/{policy}.yml"))
}

/// Whether the pool's MachineConfig carries `policy`'s state file.
fn carries(kube: &Kube, policy: &str) -> bool {
    pool_files(kube)
        .iter()
        .any(|p| p.ends_with(&format!("/policies/{policy}.yml")))
}

/// The test's cluster: the harness, the API, the controllers, MCO's order.
struct World {
    c: Cluster,
    kube: Kube,
    controllers: Controllers,
    /// The roll-out order: the API VIP's holder first (the worst place for a bad change).
    order: Vec<u8>,
    holders: Vec<(&'static str, u8)>,
    peer: WirePeer,
    _dir: tempfile::TempDir,
}

impl World {
    fn start() -> World {
        let (mut c, api) = common::booted_cluster();
        let ingress = c
            .wait_single_holder(INGRESS_VIP, Duration::from_secs(20))
            .unwrap();
        let listener =
            c.up.ns
                .run_in(|| std::net::TcpListener::bind((ROUTER, 0)))
                .unwrap()
                .unwrap();
        let node_url = format!("http://{}", listener.local_addr().unwrap());
        let kube = Kube::new(ApiStandIn::start_also_on(vec![listener]).unwrap());
        kube.create(json!({"apiVersion": "machineconfiguration.openshift.io/v1",
            "kind": "MachineConfigPool", "metadata": {"name": "worker"},
            "spec": {"nodeSelector": {"matchLabels": workers()}}}));
        for n in &c.nodes {
            let name = n.name();
            kube.create(
                json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name,
                "labels": {"node-role.kubernetes.io/worker": "", "kubernetes.io/hostname": name}}}),
            );
            kube.patch_status(
                "v1",
                "Node",
                &name,
                json!({"status": {"conditions": [
                {"type": "Ready", "status": "True", "reason": "KubeletReady"}]}}),
            );
            n.set_kubeconfig(&node_url).unwrap();
        }
        let peer = WirePeer::start(&mut c.up, &format!("{PEER_V4}/24")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let controllers = Controllers::start(&kube, dir.path());
        let mut order = vec![api];
        order.extend((1..=3).filter(|&n| n != api));
        let w = World {
            c,
            kube,
            controllers,
            order,
            holders: vec![(API_VIP, api), (INGRESS_VIP, ingress)],
            peer,
            _dir: dir,
        };
        w.mco().adopt();
        w
    }

    fn node(&self, n: u8) -> &ClusterNode {
        &self.c.nodes[usize::from(n) - 1]
    }

    fn mco(&self) -> Mco<'_> {
        Mco {
            kube: &self.kube,
            nodes: self.order.iter().map(|&n| self.node(n)).collect(),
        }
    }

    /// What the test can show when something is not as expected.
    fn context(&self) -> String {
        let conditions: Vec<String> = self
            .kube
            .list(NMSTATE, POLICIES)
            .iter()
            .chain(self.kube.list(NMSTATE, ENACTMENTS).iter())
            .map(|o| {
                let name = o["metadata"]["name"].as_str().unwrap_or_default();
                format!("{name}: {:?}", o["status"]["conditions"])
            })
            .collect();
        format!(
            "{}\nMachineConfig files: {:?}\n{}",
            conditions.join("\n"),
            pool_files(&self.kube),
            self.controllers.logs()
        )
    }

    /// Waits until the API has had no write but the Lease's renewals for a second: the
    /// controller has caught up.
    fn settle(&self) {
        let writes = || {
            let mut w = self.kube.server.all_writes();
            w.remove("leases");
            w
        };
        let mut last = (writes(), Instant::now());
        wait(
            "the controller settled",
            20,
            || {
                let now = writes();
                if now != last.0 {
                    last = (now, Instant::now());
                }
                last.1.elapsed() >= Duration::from_secs(1)
            },
            || self.context(),
        );
    }

    /// Creates a policy and waits until the leader has put it in the MachineConfig.
    fn apply_policy(&self, object: Value) {
        let name = object["metadata"]["name"].as_str().unwrap().to_owned();
        self.kube.create(object);
        wait(
            &format!("policy {name} in the pool's MachineConfig"),
            20,
            || carries(&self.kube, &name),
            || self.context(),
        );
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

    /// Waits for a policy's True condition to be `kind` with a message for which `check` holds.
    fn wait_policy(&self, name: &str, kind: &str, check: impl Fn(&str) -> bool) -> String {
        let mut seen = None;
        wait(
            &format!("policy {name} {kind}"),
            20,
            || {
                seen = condition(&self.kube, POLICIES, name);
                seen.as_ref().is_some_and(|(t, m)| t == kind && check(m))
            },
            || self.context(),
        );
        seen.unwrap().1
    }

    fn enactment(&self, node: u8, policy: &str) -> Option<(String, String)> {
        condition(&self.kube, ENACTMENTS, &format!("node{node}.{policy}"))
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

    /// The peer's IPv6 link-local address, with the node's interface as its scope.
    fn peer_link_local(&self) -> String {
        let out = self
            .peer
            .ns
            .ip(&["-6", "-br", "addr", "show", "dev", "eth0", "scope", "link"])
            .unwrap();
        let addr = out.split_whitespace().nth(2).unwrap();
        addr.split('/').next().unwrap().to_owned()
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
    w.apply_policy(policy("storage", workers(), storage_interface()));
    w.wait_policy("storage", "Progressing", |_| true);
    let (updates, moved) = w.roll_out();
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
    w.wait_policy("storage", "Available", |m| {
        m == "3/3 nodes successfully configured"
    });
    let peer = w.peer_link_local();
    for n in 1..=3 {
        assert_eq!(
            w.enactment(n, "storage").map(|e| e.0).as_deref(),
            Some("Available"),
            "{}",
            w.context()
        );
        w.answers(n, "storage", &peer).unwrap();
    }
}

fn a_per_node_policy_reaches_that_node_only(w: &World) {
    let state = serde_yaml_state(&format!(
        "interfaces:\n- name: storage\n  type: ovs-interface\n  state: up\n  ipv4:\n    \
         enabled: true\n    dhcp: false\n    address:\n    - ip: {NODE2_V4}\n      \
         prefix-length: 24\n"
    ));
    w.apply_policy(policy(
        "node2-storage",
        json!({"kubernetes.io/hostname": "node2"}),
        state,
    ));
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
    w.apply_policy(policy(
        "routes",
        workers(),
        serde_yaml_state(DEAD_DEFAULT_ROUTE),
    ));
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

    // The author fixes the policy: a route through the router that answers.
    let fixed = serde_yaml_state(&format!(
        "routes:\n  config:\n  - destination: {FIXED_ROUTE}\n    next-hop-address: {ROUTER}\n    \
         next-hop-interface: br-ex\n"
    ));
    w.kube.patch(
        "nmstate.io/v1",
        "NodeNetworkConfigurationPolicy",
        "routes",
        json!({"spec": {"desiredState": fixed}}),
    );
    wait(
        "the fixed policy in the MachineConfig",
        20,
        || policy_file(&w.kube, "routes").is_some_and(|t| t.contains(FIXED_ROUTE)),
        || w.context(),
    );
    let (updates, moved) = w.roll_out();
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
    w.wait_policy("routes", "Available", |m| {
        m == "3/3 nodes successfully configured"
    });
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
        serde_yaml_state(&format!(
            "interfaces:\n- name: storage\n  type: ovs-interface\n  state: up\n  mtu: {m}\n"
        ))
    };
    let before: Vec<String> = (1..=3)
        .map(|n| w.node(n).node.ns.ip(&["link", "show", "storage"]).unwrap())
        .collect();
    w.kube.create(policy("mtu-a", workers(), mtu(1400)));
    w.kube.create(policy("mtu-b", workers(), mtu(1300)));
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
        w.kube
            .delete("nmstate.io/v1", "NodeNetworkConfigurationPolicy", p);
    }
}

fn bad_input_is_degraded_naming_the_policy_and_nothing_is_rendered(w: &World) {
    w.settle();
    let files = pool_files(&w.kube);
    let writes = w.kube.server.writes("machineconfigs");
    let mut captured = policy("captured", workers(), storage_interface());
    captured["spec"]["capture"] = json!({"nic": "interfaces.name==\"ens3\""});
    w.kube.create(captured);
    w.kube.create(policy(
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
    assert_eq!(pool_files(&w.kube), files);
    assert_eq!(w.kube.server.writes("machineconfigs"), writes);
    for p in ["captured", "not-nmstate"] {
        w.kube
            .delete("nmstate.io/v1", "NodeNetworkConfigurationPolicy", p);
    }
}

fn a_leader_killed_mid_reconcile_is_replaced_and_nothing_is_written_twice(w: &World) {
    w.settle();
    let leader = Controllers::leader(&w.kube).expect("a leader");
    let writes = w.kube.server.writes("machineconfigs");
    let mtu = serde_yaml_state(
        "interfaces:\n- name: storage\n  type: ovs-interface\n  state: up\n  mtu: 1450\n",
    );
    w.kube.create(policy("jumbo", workers(), mtu));
    let (_, daemon) = w
        .controllers
        .replicas
        .iter()
        .find(|(id, _)| *id == leader)
        .unwrap();
    daemon.signal(libc::SIGKILL).unwrap();
    let t0 = Instant::now();
    wait(
        "the other replica leading",
        20,
        || Controllers::leader(&w.kube).is_some_and(|l| l != leader),
        || w.context(),
    );
    wait(
        "jumbo in the MachineConfig",
        20,
        || carries(&w.kube, "jumbo"),
        || w.context(),
    );
    eprintln!(
        "{leader} killed: the other replica wrote the MachineConfig {:.1} s later",
        t0.elapsed().as_secs_f64()
    );
    w.wait_policy("jumbo", "Progressing", |_| true);
    assert_eq!(
        w.kube.server.writes("machineconfigs"),
        writes + 1,
        "the MachineConfig written once"
    );
    let (updates, moved) = w.roll_out();
    assert!(updates.iter().all(|u| u.ok), "{}", logs(&updates));
    assert!(
        moved.is_empty(),
        "the roll-out moved a VIP:\n{}",
        moved.join("\n")
    );
    w.wait_policy("jumbo", "Available", |m| {
        m == "3/3 nodes successfully configured"
    });
    for n in 1..=3 {
        let link = w.node(n).node.ns.ip(&["link", "show", "storage"]).unwrap();
        assert!(link.contains("mtu 1450"), "node{n}: {link}");
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
    let link = node.node.ns.ip(&["link", "show", "storage"]).unwrap();
    assert!(link.contains("mtu 1450"), "node{n}: {link}");
    w.answers(n, "storage", PEER_V4).unwrap();
    w.answers(n, "storage", &w.peer_link_local()).unwrap();
}
