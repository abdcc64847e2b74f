//! `policy-controller render` as a user runs it: files in, MachineConfigs out.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use policy_controller::api::MachineConfig;
use policy_controller::plan::{Cluster, plan};
use policy_controller::{input, render};

const POOLS: &str = "apiVersion: v1
kind: List
items:
- apiVersion: machineconfiguration.openshift.io/v1
  kind: MachineConfigPool
  metadata: {name: master}
  spec:
    nodeSelector: {matchLabels: {node-role.kubernetes.io/master: ''}}
- apiVersion: machineconfiguration.openshift.io/v1
  kind: MachineConfigPool
  metadata: {name: worker}
  spec:
    nodeSelector: {matchLabels: {node-role.kubernetes.io/worker: ''}}
    maxUnavailable: 1
  status: {degradedMachineCount: 0, machineCount: 2}
";

const NODES: &str = "apiVersion: v1
kind: Node
metadata:
  name: worker-0
  labels: {node-role.kubernetes.io/worker: '', kubernetes.io/hostname: worker-0}
status: {conditions: [{type: Ready, status: 'True'}]}
---
apiVersion: v1
kind: Node
metadata:
  name: worker-1
  labels: {node-role.kubernetes.io/worker: '', kubernetes.io/hostname: worker-1}
";

fn policy(name: &str, selector: &str, mtu: u32) -> String {
    format!(
        "apiVersion: nmstate.io/v1
kind: NodeNetworkConfigurationPolicy
metadata: {{name: {name}}}
spec:
  nodeSelector: {selector}
  desiredState:
    interfaces:
    - name: eth1.100
      type: vlan
      state: up
      mtu: {mtu}
      vlan: {{base-iface: eth1, id: 100}}
"
    )
}

struct Files {
    _dir: tempfile::TempDir,
    policies: PathBuf,
    pools: PathBuf,
    nodes: PathBuf,
}

fn files(policies: &[(&str, String)]) -> Files {
    let dir = tempfile::tempdir().unwrap();
    let pdir = dir.path().join("policies");
    std::fs::create_dir(&pdir).unwrap();
    for (name, text) in policies {
        std::fs::write(pdir.join(format!("{name}.yaml")), text).unwrap();
    }
    let pools = dir.path().join("pools.yaml");
    std::fs::write(&pools, POOLS).unwrap();
    let nodes = dir.path().join("nodes.yaml");
    std::fs::write(&nodes, NODES).unwrap();
    Files {
        policies: pdir,
        pools,
        nodes,
        _dir: dir,
    }
}

fn render(f: &Files, extra: &[&str]) -> Output {
    let arg = |p: &Path| p.as_os_str().to_owned();
    Command::new(env!("CARGO_BIN_EXE_policy-controller"))
        .arg("render")
        .arg("--policies")
        .arg(arg(&f.policies))
        .arg("--pools")
        .arg(arg(&f.pools))
        .arg("--nodes")
        .arg(arg(&f.nodes))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn render_prints_exactly_what_the_controller_writes() {
    let f = files(&[(
        "vlan",
        policy("vlan", "{node-role.kubernetes.io/worker: ''}", 1500),
    )]);
    let json = render(&f, &["--json"]);
    assert!(
        json.status.success(),
        "{}",
        String::from_utf8_lossy(&json.stderr)
    );
    let policies = input::policies(std::slice::from_ref(&f.policies)).unwrap();
    let pools = input::pools(&f.pools).unwrap();
    let nodes = input::nodes(&f.nodes).unwrap();
    let cluster = Cluster {
        policies: &policies,
        pools: &pools,
        nodes: &nodes,
    };
    let mc = &plan(&cluster).unwrap().machine_configs[0];
    let mut body = render::to_json(mc).unwrap();
    body.push(b'\n');
    assert_eq!(json.stdout, body);

    let yaml = render(&f, &[]);
    assert!(yaml.status.success());
    let text = String::from_utf8(yaml.stdout).unwrap();
    let read: Vec<MachineConfig> = serde_saphyr::from_multiple(&text).unwrap();
    assert_eq!(&read, std::slice::from_ref(mc));
    assert!(text.contains("name: 50-worker-nmstate-policies"), "{text}");
    assert!(
        yaml.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&yaml.stderr)
    );
}

#[test]
fn conflicting_and_unmatched_policies_are_reported_on_stderr() {
    let f = files(&[
        ("a", policy("a", "{}", 9000)),
        ("b", policy("b", "{kubernetes.io/hostname: worker-1}", 1500)),
        ("gpu", policy("gpu", "{gpu: 'true'}", 1500)),
    ]);
    let out = render(&f, &[]);
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines,
        [
            "policy a: Degraded (FailedToConfigure): 1/2 nodes failed to configure; \
             conflicts with policy b on interface eth1.100 key mtu (1 node)",
            "policy b: Degraded (FailedToConfigure): 1/1 nodes failed to configure; \
             conflicts with policy a on interface eth1.100 key mtu (1 node)",
            "policy gpu: Ignored (NoMatchingNode): Policy does not match any node",
        ]
    );
}

#[test]
fn bad_input_exits_2_with_one_line_naming_the_file_and_prints_nothing() {
    let f = files(&[("p", policy("p", "{zone: [a]}", 1500))]);
    let out = render(&f, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("p.yaml: p: spec.nodeSelector.zone: invalid type"),
        "{stderr}"
    );
}

#[test]
fn run_refuses_a_renewal_period_too_long_for_the_lease_before_reaching_any_cluster() {
    let out = Command::new(env!("CARGO_BIN_EXE_policy-controller"))
        .args([
            "run",
            "--identity",
            "a",
            "--lease-duration",
            "2",
            "--lease-retry",
            "1",
        ])
        .env("KUBECONFIG", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("--lease-retry (1 s) must be under half"),
        "{stderr}"
    );
}
