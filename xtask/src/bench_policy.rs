//! `cargo xtask bench policy-controller`: the release `policy-controller run` against the
//! Kubernetes API stand-in (`integration::api_stand_in`, plain HTTP on 127.0.0.1).
//!
//! - policy created -> its pool's MachineConfig written, with 1,000 Nodes in 10 pools and 200
//!   policies in place;
//! - writes of a controller restart (a full relist) and of 1,000 unrelated Node updates;
//! - the controller's peak RSS with 5,000 Nodes and 500 policies;
//! - a policy selecting every node of a 1,000-node pool: its state's bytes in the MachineConfig.
//!
//! Policies: every tenth selects one rack of a pool (a tenth of the pool's nodes), the others
//! one host (`kubernetes.io/hostname`), each on its own VLAN, so none conflict.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use integration::api_stand_in::ApiStandIn;
use kube::api::{ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::util::{Running, release_binary, status_kib};

const POOLS: usize = 10;
const RACKS: usize = 10;
const ROUNDS: usize = 100;
const MC_GROUP: &str = "machineconfiguration.openshift.io";
/// What the controller writes (its Lease aside).
const CONTROLLER_WRITES: [&str; 4] = [
    "machineconfigs",
    "nodenetworkconfigurationenactments",
    "nodenetworkconfigurationenactments/status",
    "nodenetworkconfigurationpolicies/status",
];

fn resource(group: &str, version: &str, kind: &str, plural: &str) -> ApiResource {
    let api_version = match group {
        "" => version.to_owned(),
        g => format!("{g}/{version}"),
    };
    ApiResource {
        group: group.into(),
        version: version.into(),
        api_version,
        kind: kind.into(),
        plural: plural.into(),
    }
}

/// A client of the stand-in, and the objects it creates.
struct Api {
    client: kube::Client,
    rt: tokio::runtime::Runtime,
}

impl Api {
    fn new(server: &ApiStandIn) -> anyhow::Result<Api> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        let config = kube::Config::new(server.url().parse()?);
        let client = rt.block_on(async { kube::Client::try_from(config) })?;
        Ok(Api { client, rt })
    }

    fn api(&self, r: &ApiResource) -> kube::Api<DynamicObject> {
        kube::Api::all_with(self.client.clone(), r)
    }

    fn create(&self, r: &ApiResource, object: Value) -> anyhow::Result<()> {
        let object: DynamicObject = serde_json::from_value(object)?;
        self.rt
            .block_on(self.api(r).create(&PostParams::default(), &object))?;
        Ok(())
    }

    fn node_annotation(&self, name: &str, value: &str) -> anyhow::Result<()> {
        let nodes = resource("", "v1", "Node", "nodes");
        let patch = json!({"metadata": {"annotations": {"bench/heartbeat": value}},
            "status": {"conditions": [{"type": "Ready", "status": "True",
                "lastHeartbeatTime": "2026-01-01T00:00:00Z"}]}});
        self.rt.block_on(self.api(&nodes).patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(&patch),
        ))?;
        Ok(())
    }
}

/// Node `i` of a cluster of `pools` pools: pools take turns, racks are runs of ten nodes.
fn node(i: usize, pools: usize) -> Value {
    let name = format!("node-{i:04}");
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
        format!("node-role.kubernetes.io/pool-{}", i % pools): "",
        "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64", "rack": format!("r{}", (i / POOLS) % RACKS),
        "topology.kubernetes.io/zone": format!("zone-{}", i % 3)},
        "annotations": {
            "machineconfiguration.openshift.io/currentConfig": "rendered-x",
            "machineconfiguration.openshift.io/desiredConfig": "rendered-x",
            "machineconfiguration.openshift.io/state": "Done",
            "volumes.kubernetes.io/controller-managed-attach-detach": "true"}}})
}

/// Policy `i` of a cluster of `nodes`: one rack of a pool for every tenth, else one host.
fn policy(name: &str, i: usize, nodes: usize) -> Value {
    let selector = if i.is_multiple_of(10) {
        json!({format!("node-role.kubernetes.io/pool-{}", (i / 10) % POOLS): "",
            "rack": format!("r{}", (i / 10 / POOLS) % RACKS)})
    } else {
        json!({"kubernetes.io/hostname": format!("node-{:04}", i % nodes)})
    };
    let vlan = 2 + i % 4000;
    json!({"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy",
        "metadata": {"name": name}, "spec": {"nodeSelector": selector, "desiredState": {
            "interfaces": [{"name": format!("ens4.{vlan}"), "type": "vlan", "state": "up",
                "vlan": {"base-iface": "ens4", "id": vlan},
                "ipv4": {"enabled": true, "dhcp": false, "address": [
                    {"ip": format!("10.{}.{}.1", vlan / 256, vlan % 256), "prefix-length": 24}]}}]}}})
}

fn policies() -> ApiResource {
    resource(
        "nmstate.io",
        "v1",
        "NodeNetworkConfigurationPolicy",
        "nodenetworkconfigurationpolicies",
    )
}

/// `pools` pools (`pool-N`, selecting `node-role.kubernetes.io/pool-N`) and their nodes.
fn populate(api: &Api, pools: usize, nodes: usize) -> anyhow::Result<()> {
    let mcp = resource(MC_GROUP, "v1", "MachineConfigPool", "machineconfigpools");
    for p in 0..pools {
        api.create(
            &mcp,
            json!({"apiVersion": "machineconfiguration.openshift.io/v1",
            "kind": "MachineConfigPool", "metadata": {"name": format!("pool-{p}")},
            "spec": {"nodeSelector": {"matchLabels": {
                format!("node-role.kubernetes.io/pool-{p}"): ""}}}}),
        )?;
    }
    let nodes_r = resource("", "v1", "Node", "nodes");
    for i in 0..nodes {
        api.create(&nodes_r, node(i, pools))?;
    }
    Ok(())
}

fn controller_writes(server: &ApiStandIn) -> usize {
    CONTROLLER_WRITES.iter().map(|r| server.writes(r)).sum()
}

/// Waits until the controller has written something and then nothing for `quiet`.
fn settle(server: &ApiStandIn, quiet: Duration, limit: Duration) -> anyhow::Result<usize> {
    let start = Instant::now();
    let (mut last, mut since) = (controller_writes(server), Instant::now());
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let now = controller_writes(server);
        if now != last {
            (last, since) = (now, Instant::now());
        } else if now > 0 && since.elapsed() >= quiet {
            return Ok(now);
        }
        if start.elapsed() > limit {
            bail!("the controller did not settle within {limit:?} ({now} writes)");
        }
    }
}

/// `policy-controller run` against the stand-in, its log in `dir`.
fn start_controller(bin: &Path, dir: &Path, server: &ApiStandIn) -> anyhow::Result<Running> {
    let kubeconfig = dir.join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters: [{{name: s, cluster: {{server: \"{}\"}}}}]\n\
             users: [{{name: u, user: {{}}}}]\ncontexts: [{{name: c, context: {{cluster: s, user: u}}}}]\n\
             current-context: c\n",
            server.url()
        ),
    )?;
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("controller.log"))?;
    let child = std::process::Command::new(bin)
        // The production Lease (15 s, renewed every 2 s): a shorter one is lost while a
        // 5,000-Node reconcile keeps the runtime busy.
        .args(["run", "--identity", "bench", "--namespace", "bench"])
        .env("KUBECONFIG", &kubeconfig)
        .env("RUST_LOG", "warn")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .context("cannot start policy-controller")?;
    Ok(Running(child))
}

/// The paths of a stored MachineConfig's files, and its size as JSON.
fn mc_files(server: &ApiStandIn, name: &str) -> Option<(Vec<String>, usize)> {
    let mc = server.get(MC_GROUP, "machineconfigs", "", name)?;
    let files = mc["spec"]["config"]["storage"]["files"].as_array()?;
    let paths = files
        .iter()
        .filter_map(|f| f["path"].as_str().map(str::to_owned))
        .collect();
    Some((paths, serde_json::to_vec(&mc["spec"]).ok()?.len()))
}

fn p(v: &mut [Duration], q: f64) -> f64 {
    v.sort();
    let i = ((v.len() as f64 * q).ceil() as usize).clamp(1, v.len()) - 1;
    v[i].as_secs_f64() * 1000.0
}

/// Created policy -> its file in the pool's MachineConfig, `ROUNDS` times.
fn latency(api: &Api, server: &ApiStandIn, nodes: usize) -> anyhow::Result<Vec<Duration>> {
    let mut times = Vec::new();
    for k in 0..ROUNDS {
        let i = 1000 + k * 10; // a rack policy (i % 10 == 0), on a VLAN no other policy uses
        let name = format!("latency-{k:03}");
        let mc = format!("50-pool-{}-nmstate-policies", (i / 10) % POOLS);
        let file = format!("/etc/nmstate/openshift/policies/{name}.yml");
        let start = Instant::now();
        api.create(&policies(), policy(&name, i, nodes))?;
        while !mc_files(server, &mc).is_some_and(|(f, _)| f.contains(&file)) {
            if start.elapsed() > Duration::from_secs(30) {
                bail!("{name} not in {mc} after 30 s");
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        times.push(start.elapsed());
        std::thread::sleep(Duration::from_millis(150));
    }
    Ok(times)
}

/// 1,000 Nodes, 10 pools, 200 policies: latency, then the writes of a restart and of Node
/// updates no selector looks at.
fn at_1000(bin: &Path, dir: &Path) -> anyhow::Result<()> {
    const NODES: usize = 1000;
    let server = ApiStandIn::start()?;
    let api = Api::new(&server)?;
    populate(&api, POOLS, NODES)?;
    for i in 0..200 {
        api.create(&policies(), policy(&format!("p-{i:03}"), i, NODES))?;
    }
    let controller = start_controller(bin, dir, &server)?;
    let initial = settle(&server, Duration::from_secs(3), Duration::from_secs(300))?;
    let mut times = latency(&api, &server, NODES)?;
    let before = settle(&server, Duration::from_secs(3), Duration::from_secs(300))?;
    drop(controller);
    let _controller = start_controller(bin, dir, &server)?;
    // A restart: the new process relists everything and takes the Lease once its 15 s ran out.
    std::thread::sleep(Duration::from_secs(25));
    let restart = controller_writes(&server) - before;
    for i in 0..NODES {
        api.node_annotation(&format!("node-{i:04}"), "1")?;
    }
    std::thread::sleep(Duration::from_secs(3));
    let updates = controller_writes(&server) - before - restart;
    let (median, p99, max) = (p(&mut times, 0.5), p(&mut times, 0.99), p(&mut times, 1.0));
    println!(
        "policy-controller: {NODES} Nodes, {POOLS} pools, 200 policies ({initial} writes to reach them)"
    );
    println!(
        "policy created -> MachineConfig written, {ROUNDS} policies: median {median:.0} ms, p99 {p99:.0} ms, max {max:.0} ms (target: p99 <= 1000 ms; debounce 100 ms)"
    );
    println!("controller restart (relist, Lease taken over): {restart} writes (target: 0)");
    println!("{NODES} Node updates no selector looks at: {updates} writes (target: 0)");
    Ok(())
}

/// 5,000 Nodes and 500 policies: the controller's RSS once it has written everything.
fn at_5000(bin: &Path, dir: &Path) -> anyhow::Result<()> {
    const NODES: usize = 5000;
    let server = ApiStandIn::start()?;
    let api = Api::new(&server)?;
    populate(&api, POOLS, NODES)?;
    for i in 0..500 {
        api.create(&policies(), policy(&format!("p-{i:03}"), i, NODES))?;
    }
    let started = Instant::now();
    let controller = start_controller(bin, dir, &server)?;
    // Longer than the longest retry back-off (30 s), so a reconcile that failed has run again.
    let writes = settle(&server, Duration::from_secs(35), Duration::from_secs(900))?;
    let took = started.elapsed().as_secs_f64() - 35.0;
    let pid = controller.0.id();
    let (rss, hwm) = (status_kib(pid, "VmRSS:")?, status_kib(pid, "VmHWM:")?);
    let enactments = server
        .list("nmstate.io", "nodenetworkconfigurationenactments")
        .len();
    println!(
        "{NODES} Nodes, 500 policies, {enactments} enactments: {writes} writes in {took:.1} s; RSS {:.1} MiB, peak {:.1} MiB (target: <= 64 MiB)",
        rss as f64 / 1024.0,
        hwm as f64 / 1024.0
    );
    Ok(())
}

/// One policy selecting every node of a 1,000-node pool: its state's share of the
/// MachineConfig against one list line per node.
fn one_policy_for_a_pool(bin: &Path, dir: &Path) -> anyhow::Result<()> {
    const NODES: usize = 1000;
    let server = ApiStandIn::start()?;
    let api = Api::new(&server)?;
    populate(&api, 1, NODES)?;
    let mut all = policy("all-pool-0", 0, NODES);
    all["spec"]["nodeSelector"] = json!({"node-role.kubernetes.io/pool-0": ""});
    let state_bytes = serde_json::to_vec(&all["spec"]["desiredState"])?.len();
    api.create(&policies(), all)?;
    let _controller = start_controller(bin, dir, &server)?;
    settle(&server, Duration::from_secs(3), Duration::from_secs(300))?;
    let (files, size) =
        mc_files(&server, "50-pool-0-nmstate-policies").context("no MachineConfig")?;
    let states = files
        .iter()
        .filter(|f| f.ends_with("/all-pool-0.yml"))
        .count();
    let lists = files
        .iter()
        .filter(|f| f.contains("/policies/nodes/"))
        .count();
    println!(
        "a policy selecting all {NODES} nodes of a pool: its state ({state_bytes} B of JSON) in {states} file, {lists} node lists; MachineConfig {:.1} KiB of JSON (limit 1024 KiB; once per node would be >= {} KiB of state)",
        size as f64 / 1024.0,
        NODES * state_bytes / 1024
    );
    Ok(())
}

/// The controller's warnings so far (failed reconciles: 409s, lost Lease), and the first.
fn warnings(dir: &Path) -> String {
    let log = std::fs::read_to_string(dir.join("controller.log")).unwrap_or_default();
    let warns: Vec<&str> = log.lines().filter(|l| l.contains("WARN")).collect();
    match warns.first() {
        Some(first) => format!("{} controller warnings, the first: {first}", warns.len()),
        None => "no controller warnings".into(),
    }
}

pub fn run() -> anyhow::Result<()> {
    let bin = release_binary("policy-controller")?;
    let dir = integration::scratch_dir("bench-pc").map_err(anyhow::Error::msg)?;
    let result = at_1000(&bin, dir.path())
        .and_then(|()| one_policy_for_a_pool(&bin, dir.path()))
        .and_then(|()| at_5000(&bin, dir.path()));
    println!("{}", warnings(dir.path()));
    if result.is_err() {
        let log = std::fs::read_to_string(dir.path().join("controller.log")).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(20).collect();
        eprintln!(
            "controller log (last lines, newest first):\n{}",
            tail.join("\n")
        );
    }
    result
}
