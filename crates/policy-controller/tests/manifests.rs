//! The RBAC and Deployment manifests are least privilege and match what `policy-controller run`
//! does: the writes the runtime sends against the API stand-in are exactly the writes the
//! roles grant, and the Deployment runs two replicas of `run` as the bound service account.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use clap::Parser;
use integration::api_stand_in::ApiStandIn;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding};
use policy_controller::cli::{Cli, Command};
use policy_controller::commands::run::settings;
use policy_controller::runtime::{self, leader::LeaseSettings};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

const WRITE_VERBS: [&str; 6] = [
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
    "*",
];
const NMSTATE: &str = "nmstate.io";
const MCO: &str = "machineconfiguration.openshift.io";

fn documents(file: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("manifests")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    serde_saphyr::from_multiple(&text).unwrap()
}

/// The one object of `kind` in `file`, as its typed form.
fn one<K: DeserializeOwned>(file: &str, kind: &str) -> K {
    only(file, kind, |_| true)
}

/// The one object of `kind` named `name` in `file`, as its typed form.
fn named<K: DeserializeOwned>(file: &str, kind: &str, name: &str) -> K {
    only(file, kind, |d| d["metadata"]["name"] == name)
}

fn only<K: DeserializeOwned>(file: &str, kind: &str, pick: impl Fn(&Value) -> bool) -> K {
    let mut found: Vec<Value> = documents(file)
        .into_iter()
        .filter(|d| d["kind"] == kind && pick(d))
        .collect();
    assert_eq!(found.len(), 1, "{file}: one such {kind}");
    serde_json::from_value(found.remove(0)).unwrap()
}

/// (group, resource, verb) of every rule, resource names left out.
fn grants(rules: &[PolicyRule]) -> BTreeSet<(String, String, String)> {
    let mut out = BTreeSet::new();
    for r in rules {
        for g in r.api_groups.iter().flatten() {
            for res in r.resources.iter().flatten() {
                for v in &r.verbs {
                    out.insert((g.clone(), res.clone(), v.clone()));
                }
            }
        }
    }
    out
}

fn writes_of(grants: &BTreeSet<(String, String, String)>) -> BTreeSet<(&str, &str, &str)> {
    grants
        .iter()
        .filter(|(_, _, v)| WRITE_VERBS.contains(&v.as_str()))
        .map(|(g, r, v)| (g.as_str(), r.as_str(), v.as_str()))
        .collect()
}

fn cluster_role() -> ClusterRole {
    one("rbac.yaml", "ClusterRole")
}

fn lease_role() -> Role {
    named("rbac.yaml", "Role", "policy-controller-lease")
}

#[test]
fn no_rule_uses_a_wildcard_or_reaches_secrets() {
    let rules = [
        cluster_role().rules.unwrap_or_default(),
        lease_role().rules.unwrap_or_default(),
    ]
    .concat();
    for (g, r, v) in grants(&rules) {
        assert!(![&g, &r, &v].iter().any(|s| s.contains('*')), "{g} {r} {v}");
        assert!(
            !["secrets", "configmaps", "pods"].contains(&r.as_str()),
            "{r}"
        );
    }
    assert!(rules.iter().all(|r| r.non_resource_urls.is_none()));
}

#[test]
fn the_cluster_role_writes_only_machineconfigs_policy_status_and_enactments() {
    let granted = grants(&cluster_role().rules.unwrap_or_default());
    let expected = BTreeSet::from([
        (MCO, "machineconfigs", "create"),
        (MCO, "machineconfigs", "update"),
        (MCO, "machineconfigs", "delete"),
        (NMSTATE, "nodenetworkconfigurationpolicies/status", "update"),
        (NMSTATE, "nodenetworkconfigurationenactments", "create"),
        (NMSTATE, "nodenetworkconfigurationenactments", "delete"),
        (
            NMSTATE,
            "nodenetworkconfigurationenactments/status",
            "update",
        ),
    ]);
    assert_eq!(writes_of(&granted), expected);
    // The policies themselves, pools and nodes are only read.
    for (g, r) in [
        (NMSTATE, "nodenetworkconfigurationpolicies"),
        (MCO, "machineconfigpools"),
        ("", "nodes"),
    ] {
        let verbs: BTreeSet<&str> = granted
            .iter()
            .filter(|(gg, rr, _)| gg == g && rr == r)
            .map(|(_, _, v)| v.as_str())
            .collect();
        assert_eq!(verbs, BTreeSet::from(["get", "list", "watch"]), "{r}");
    }
}

#[test]
fn the_node_events_role_only_reads_events_where_nodes_record_them() {
    let role: Role = named("rbac.yaml", "Role", "policy-controller-node-events");
    assert_eq!(
        role.metadata.namespace.as_deref(),
        Some(policy_controller::runtime::watches::NODE_EVENTS_NAMESPACE)
    );
    let want = BTreeSet::from([
        ("events.k8s.io".into(), "events".into(), "list".into()),
        ("events.k8s.io".into(), "events".into(), "watch".into()),
    ]);
    assert_eq!(grants(role.rules.as_deref().unwrap_or_default()), want);
    let binding: RoleBinding = named("rbac.yaml", "RoleBinding", "policy-controller-node-events");
    assert_eq!(binding.role_ref.name, "policy-controller-node-events");
    let lease: RoleBinding = named("rbac.yaml", "RoleBinding", "policy-controller-lease");
    assert_eq!(binding.subjects, lease.subjects, "the same service account");
}

#[test]
fn the_role_writes_only_the_lease_run_uses_in_the_deployments_namespace() {
    let role = lease_role();
    let deployment: Deployment = one("deployment.yaml", "Deployment");
    let namespace = deployment.metadata.namespace.clone().unwrap();
    assert_eq!(role.metadata.namespace.as_deref(), Some(namespace.as_str()));
    let cli = Cli::try_parse_from(["policy-controller", "run", "--identity", "x"]).unwrap();
    let Command::Run(args) = cli.command else {
        unreachable!("a run command")
    };
    let lease = settings(&args).unwrap().lease;
    for rule in role.rules.iter().flatten() {
        assert_eq!(rule.api_groups, Some(vec!["coordination.k8s.io".into()]));
        assert_eq!(rule.resources, Some(vec!["leases".into()]));
        // `create` cannot be limited by name; everything else is this one Lease.
        if rule.verbs != ["create"] {
            assert_eq!(rule.resource_names, Some(vec![lease.name.clone()]));
            assert_eq!(rule.verbs, ["get", "update"]);
        }
    }
}

#[test]
fn the_deployment_runs_two_replicas_of_run_as_the_bound_service_account() {
    let deployment: Deployment = one("deployment.yaml", "Deployment");
    let namespace = deployment.metadata.namespace.clone().unwrap();
    let spec = deployment.spec.unwrap();
    assert_eq!(spec.replicas, Some(2));
    let pod = spec.template.spec.unwrap();
    let account = pod.service_account_name.clone().unwrap();
    let binding: ClusterRoleBinding = one("rbac.yaml", "ClusterRoleBinding");
    let lease_binding: RoleBinding = named("rbac.yaml", "RoleBinding", "policy-controller-lease");
    assert_eq!(binding.role_ref.name, cluster_role().metadata.name.unwrap());
    assert_eq!(
        lease_binding.role_ref.name,
        lease_role().metadata.name.unwrap()
    );
    for subjects in [binding.subjects, lease_binding.subjects] {
        let s = &subjects.unwrap()[0];
        assert_eq!(
            (s.kind.as_str(), s.name.as_str()),
            ("ServiceAccount", &*account)
        );
        assert_eq!(s.namespace.as_deref(), Some(namespace.as_str()));
    }
    let [container] = &pod.containers[..] else {
        panic!("one container")
    };
    let command = container.command.clone().unwrap_or_default();
    assert_eq!(command, ["/usr/bin/policy-controller", "run"]);
    let argv = command.iter().chain(container.args.iter().flatten());
    let cli = Cli::try_parse_from(argv).unwrap();
    assert!(matches!(cli.command, Command::Run(_)));
    let env: BTreeSet<(String, String)> = container
        .env
        .iter()
        .flatten()
        .map(|e| {
            let f = e.value_from.as_ref().and_then(|v| v.field_ref.as_ref());
            (
                e.name.clone(),
                f.map(|f| f.field_path.clone()).unwrap_or_default(),
            )
        })
        .collect();
    assert!(env.contains(&("POD_NAME".into(), "metadata.name".into())));
    assert!(env.contains(&("POD_NAMESPACE".into(), "metadata.namespace".into())));
    let sc = container.security_context.clone().unwrap();
    assert_eq!(sc.allow_privilege_escalation, Some(false));
    assert_eq!(sc.read_only_root_filesystem, Some(true));
}

/// The stand-in's write counts per resource (`plural` or `plural/status`).
fn counts(server: &ApiStandIn) -> std::collections::BTreeMap<String, usize> {
    server.all_writes()
}

async fn create(client: &kube::Client, group: &str, plural: &str, object: Value) {
    let (g, v) = object["apiVersion"]
        .as_str()
        .unwrap()
        .rsplit_once('/')
        .unwrap_or(("", "v1"));
    let resource = kube::api::ApiResource {
        group: group.into(),
        version: v.into(),
        api_version: object["apiVersion"].as_str().unwrap().into(),
        kind: object["kind"].as_str().unwrap().into(),
        plural: plural.into(),
    };
    assert_eq!(g, group);
    let api: kube::Api<kube::api::DynamicObject> = kube::Api::all_with(client.clone(), &resource);
    let object = serde_json::from_value(object).unwrap();
    api.create(&Default::default(), &object).await.unwrap();
}

/// Polls `check` for up to 10 s.
async fn eventually(what: &str, check: impl Fn() -> bool) {
    for _ in 0..500 {
        if check() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("not within 10 s: {what}");
}

fn policy(name: &str, mtu: u32) -> Value {
    json!({"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy",
        "metadata": {"name": name}, "spec": {"desiredState": {"interfaces": [
            {"name": "eth1", "type": "ethernet", "state": "up", "mtu": mtu}]}}})
}

/// A stand-in holding a worker pool of one node, and a client of it.
async fn cluster() -> (ApiStandIn, kube::Client) {
    let server = ApiStandIn::start().unwrap();
    let config = kube::Config::new(server.url().parse().unwrap());
    let client = kube::Client::try_from(config).unwrap();
    let pool = json!({"apiVersion": "machineconfiguration.openshift.io/v1",
        "kind": "MachineConfigPool", "metadata": {"name": "worker"},
        "spec": {"nodeSelector": {"matchLabels": {"node-role.kubernetes.io/worker": ""}}}});
    create(&client, MCO, "machineconfigpools", pool).await;
    let node = json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "w0", "labels": {"node-role.kubernetes.io/worker": ""}}});
    create(&client, "", "nodes", node).await;
    (server, client)
}

/// The runtime with the manifests' Lease name and namespace.
fn controller(client: &kube::Client) -> tokio::task::JoinHandle<Result<(), runtime::RuntimeError>> {
    let settings = runtime::Settings {
        lease: LeaseSettings {
            namespace: "onprem-policy-controller".into(),
            name: "policy-controller".into(),
            identity: "a".into(),
            duration: Duration::from_secs(1),
            retry: Duration::from_millis(100),
        },
        debounce: Duration::from_millis(20),
    };
    tokio::spawn(runtime::run(
        client.clone(),
        settings,
        std::future::pending(),
    ))
}

/// A policy created, a second one, both deleted: what the runtime writes on the way, by
/// resource (the test's own writes of pools, nodes and policies are left out).
async fn runtime_writes() -> BTreeSet<String> {
    let (server, client) = cluster().await;
    let run = controller(&client);
    let w = |r: &str| server.writes(r);
    let nncps = "nodenetworkconfigurationpolicies";
    create(&client, NMSTATE, nncps, policy("a", 9000)).await;
    eventually("a's status", || {
        w("nodenetworkconfigurationpolicies/status") >= 1
    })
    .await;
    create(&client, NMSTATE, nncps, policy("b", 9000)).await;
    eventually("the MachineConfig replaced", || w("machineconfigs") >= 2).await;
    eventually("b's enactment status", || {
        w("nodenetworkconfigurationenactments/status") >= 2
    })
    .await;
    let policies: kube::Api<policy_controller::api::NodeNetworkConfigurationPolicy> =
        kube::Api::all(client.clone());
    for p in ["a", "b"] {
        policies.delete(p, &Default::default()).await.unwrap();
    }
    eventually("the MachineConfig and enactments deleted", || {
        server.list(MCO, "machineconfigs").is_empty()
            && server
                .list(NMSTATE, "nodenetworkconfigurationenactments")
                .is_empty()
    })
    .await;
    run.abort();
    let mut written = counts(&server);
    for (own, n) in [("machineconfigpools", 1), ("nodes", 1), (nncps, 4)] {
        if written[own] == n {
            written.remove(own);
        }
    }
    written.into_keys().collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_the_runtime_writes_is_exactly_what_the_roles_grant() {
    let written = runtime_writes().await;
    let granted: BTreeSet<String> = [cluster_role().rules, lease_role().rules]
        .into_iter()
        .flatten()
        .flat_map(|rules| {
            writes_of(&grants(&rules))
                .into_iter()
                .map(|(_, r, _)| r.to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(written, granted);
}
