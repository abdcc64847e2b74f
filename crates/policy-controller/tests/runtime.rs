//! `policy-controller run`'s runtime against the Kubernetes API stand-in: what it writes, what
//! it does not, and who writes when there are two replicas.

use std::time::Duration;

use integration::api_stand_in::ApiStandIn;
use integration::cluster::policies::true_condition;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, Patch, PatchParams, PostParams};
use policy_controller::api::{MachineConfig, MachineConfigPool, NodeNetworkConfigurationPolicy};
use policy_controller::runtime::leader::LeaseSettings;
use policy_controller::runtime::{self, Settings};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

const NMSTATE: &str = "nmstate.io";
const POLICIES: &str = "nodenetworkconfigurationpolicies";
const ENACTMENTS: &str = "nodenetworkconfigurationenactments";
const MC_GROUP: &str = "machineconfiguration.openshift.io";
const WORKER_MC: &str = "50-worker-nmstate-policies";

/// The stand-in with a worker pool of three nodes, and a client for it.
struct Cluster {
    server: ApiStandIn,
    client: kube::Client,
}

impl Cluster {
    async fn new() -> Cluster {
        let server = ApiStandIn::start().unwrap();
        let config = kube::Config::new(server.url().parse().unwrap());
        let client = kube::Client::try_from(config).unwrap();
        let c = Cluster { server, client };
        c.create::<MachineConfigPool>(json!({"apiVersion": "machineconfiguration.openshift.io/v1",
            "kind": "MachineConfigPool", "metadata": {"name": "worker"},
            "spec": {"nodeSelector": {"matchLabels": {"node-role.kubernetes.io/worker": ""}}}}))
            .await;
        for n in ["w0", "w1", "w2"] {
            c.create::<Node>(
                json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": n,
                "labels": {"node-role.kubernetes.io/worker": "", "kubernetes.io/hostname": n}}}),
            )
            .await;
        }
        c
    }

    async fn create<K>(&self, object: Value)
    where
        K: kube::Resource<DynamicType = ()>
            + Clone
            + serde::de::DeserializeOwned
            + serde::Serialize
            + std::fmt::Debug,
        K::Scope: Sized,
    {
        let api: Api<K> = Api::all(self.client.clone());
        let object: K = serde_json::from_value(object).unwrap();
        api.create(&PostParams::default(), &object).await.unwrap();
    }

    async fn policy(&self, name: &str, selector: Value, iface: &str, mtu: u32) {
        self.create::<NodeNetworkConfigurationPolicy>(json!({"apiVersion": "nmstate.io/v1",
            "kind": "NodeNetworkConfigurationPolicy", "metadata": {"name": name},
            "spec": {"nodeSelector": selector, "desiredState": {"interfaces": [{"name": iface,
                "type": "ethernet", "state": "up", "mtu": mtu}]}}}))
            .await;
    }

    async fn patch_node(&self, name: &str, patch: Value) {
        let nodes: Api<Node> = Api::all(self.client.clone());
        nodes
            .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .unwrap();
    }

    fn controller(&self, identity: &str) -> JoinHandle<()> {
        self.controller_until(identity, Duration::from_secs(1), std::future::pending())
    }

    /// A replica whose Lease lasts `duration`, running until `shutdown` (its SIGTERM).
    fn controller_until(
        &self,
        identity: &str,
        duration: Duration,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> JoinHandle<()> {
        let settings = Settings {
            lease: LeaseSettings {
                namespace: "policy".into(),
                name: "policy-controller".into(),
                identity: identity.into(),
                duration,
                retry: Duration::from_millis(100),
            },
            debounce: Duration::from_millis(20),
        };
        let client = self.client.clone();
        tokio::spawn(async move {
            runtime::run(client, settings, shutdown).await.unwrap();
        })
    }

    /// The files of the worker pool's MachineConfig, path -> decoded content.
    fn worker_files(&self) -> Option<Vec<(String, String)>> {
        let mc = self.server.get(MC_GROUP, "machineconfigs", "", WORKER_MC)?;
        let mc: MachineConfig = serde_json::from_value(mc).unwrap();
        Some(
            mc.spec
                .config
                .storage
                .files
                .iter()
                .map(|f| {
                    let b64 = f
                        .contents
                        .source
                        .as_deref()
                        .unwrap()
                        .trim_start_matches("data:;base64,");
                    use base64::Engine;
                    let text = base64::engine::general_purpose::STANDARD
                        .decode(b64)
                        .unwrap();
                    (f.path.clone(), String::from_utf8(text).unwrap())
                })
                .collect(),
        )
    }

    /// The condition that is True on a policy or enactment: (type, message).
    fn condition(&self, plural: &str, name: &str) -> Option<(String, String)> {
        true_condition(&self.server.get(NMSTATE, plural, "", name)?)
    }

    /// The controllers' writes: MachineConfigs, enactments, policy status.
    fn writes(&self) -> [usize; 4] {
        let w = |r: &str| self.server.writes(r);
        [
            w("machineconfigs"),
            w(ENACTMENTS),
            w("nodenetworkconfigurationenactments/status"),
            w("nodenetworkconfigurationpolicies/status"),
        ]
    }

    /// Waits up to 10 s for `identity` to hold the Lease.
    async fn wait_for_holder(&self, identity: &str) {
        for _ in 0..500 {
            if self.holder().await.as_deref() == Some(identity) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("{identity} did not take the Lease within 10 s");
    }

    async fn holder(&self) -> Option<String> {
        let leases: Api<Lease> = Api::namespaced(self.client.clone(), "policy");
        leases
            .get_opt("policy-controller")
            .await
            .ok()??
            .spec?
            .holder_identity
    }
}

/// Waits up to 10 s for `check` to hold.
async fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    for _ in 0..500 {
        if check() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("not within 10 s: {what}");
}

/// Waits until the writes stop changing for a second (longer than the debounce, a reconcile
/// and a lease renewal), and returns them.
async fn settled(c: &Cluster) -> [usize; 4] {
    let mut last = c.writes();
    let mut quiet = 0;
    while quiet < 10 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = c.writes();
        quiet = if now == last { quiet + 1 } else { 0 };
        last = now;
    }
    last
}

fn has(files: &Option<Vec<(String, String)>>, path: &str) -> bool {
    files.iter().flatten().any(|(p, _)| p == path)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_created_writes_the_pools_machine_config_with_its_file() {
    let c = Cluster::new().await;
    let _ctl = c.controller("a");
    c.policy("jumbo", json!({}), "eth1", 9000).await;
    eventually("the MachineConfig", || c.worker_files().is_some()).await;
    let files = c.worker_files().unwrap();
    let state = files
        .iter()
        .find(|(p, _)| p == "/etc/nmstate/openshift/policies/jumbo.yml")
        .unwrap();
    assert!(state.1.contains("mtu: 9000"), "{}", state.1);
    let list = files
        .iter()
        .find(|(p, _)| p == "/etc/nmstate/openshift/policies/nodes/w1")
        .unwrap();
    assert_eq!(list.1, "jumbo\n");
    eventually("the policy's status", || {
        c.condition(POLICIES, "jumbo").is_some()
    })
    .await;
    assert_eq!(c.condition(ENACTMENTS, "w0.jumbo").unwrap().0, "Pending");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_or_a_heartbeat_writes_nothing() {
    let c = Cluster::new().await;
    c.policy("jumbo", json!({}), "eth1", 9000).await;
    let first = c.controller("a");
    eventually("the policy's status", || {
        c.condition(POLICIES, "jumbo").is_some()
    })
    .await;
    let before = settled(&c).await;
    first.abort();
    let _second = c.controller("b");
    c.wait_for_holder("b").await;
    c.patch_node("w0", json!({"metadata": {"annotations": {"volumes.kubernetes.io/controller-managed-attach-detach": "true"}}})).await;
    let nodes: Api<Node> = Api::all(c.client.clone());
    let beat = json!({"status": {"conditions": [{"type": "Ready", "status": "True",
        "lastHeartbeatTime": "2026-01-01T00:00:10Z"}]}});
    nodes
        .patch_status("w1", &PatchParams::default(), &Patch::Merge(&beat))
        .await
        .unwrap();
    assert_eq!(
        settled(&c).await,
        before,
        "the restart or the heartbeat wrote"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_label_that_moves_a_node_into_a_policy_re_renders() {
    let c = Cluster::new().await;
    let _ctl = c.controller("a");
    c.policy("vlan", json!({"net": "vlan"}), "eth1", 9000).await;
    c.patch_node("w0", json!({"metadata": {"labels": {"net": "vlan"}}}))
        .await;
    eventually("w0's list", || {
        has(
            &c.worker_files(),
            "/etc/nmstate/openshift/policies/nodes/w0",
        )
    })
    .await;
    assert!(!has(
        &c.worker_files(),
        "/etc/nmstate/openshift/policies/nodes/w1"
    ));
    c.patch_node("w1", json!({"metadata": {"labels": {"net": "vlan"}}}))
        .await;
    eventually("w1's list", || {
        has(
            &c.worker_files(),
            "/etc/nmstate/openshift/policies/nodes/w1",
        )
    })
    .await;
    eventually("w1's enactment", || {
        c.condition(ENACTMENTS, "w1.vlan").is_some()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_conflicting_policies_name_each_other_and_neither_reaches_the_shared_node() {
    let c = Cluster::new().await;
    let _ctl = c.controller("a");
    c.policy("a-jumbo", json!({}), "eth1", 9000).await;
    c.policy(
        "b-small",
        json!({"kubernetes.io/hostname": "w1"}),
        "eth1",
        1500,
    )
    .await;
    eventually("both Degraded", || {
        let d = |p| {
            c.condition(POLICIES, p)
                .is_some_and(|(t, _)| t == "Degraded")
        };
        d("a-jumbo") && d("b-small")
    })
    .await;
    let (_, a) = c.condition(POLICIES, "a-jumbo").unwrap();
    let (_, b) = c.condition(POLICIES, "b-small").unwrap();
    assert!(
        a.contains("conflicts with policy b-small on interface eth1 key mtu"),
        "{a}"
    );
    assert!(b.contains("conflicts with policy a-jumbo"), "{b}");
    let files = c.worker_files();
    assert!(
        !has(&files, "/etc/nmstate/openshift/policies/nodes/w1"),
        "{files:?}"
    );
    assert!(!has(&files, "/etc/nmstate/openshift/policies/b-small.yml"));
    assert_eq!(c.condition(ENACTMENTS, "w1.a-jumbo").unwrap().0, "Failing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mco_annotations_make_enactments_available_or_failing_and_the_policy_follows() {
    let c = Cluster::new().await;
    let _ctl = c.controller("a");
    c.policy("jumbo", json!({}), "eth1", 9000).await;
    eventually("the MachineConfig", || c.worker_files().is_some()).await;
    let mut rendered = c
        .server
        .get(MC_GROUP, "machineconfigs", "", WORKER_MC)
        .unwrap();
    rendered["metadata"] = json!({"name": "rendered-worker-1"});
    c.create::<MachineConfig>(rendered).await;
    let done = json!({"metadata": {"annotations": {
        "machineconfiguration.openshift.io/currentConfig": "rendered-worker-1",
        "machineconfiguration.openshift.io/desiredConfig": "rendered-worker-1",
        "machineconfiguration.openshift.io/state": "Done"}}});
    for n in ["w0", "w1", "w2"] {
        c.patch_node(n, done.clone()).await;
    }
    eventually("Available 3/3", || {
        c.condition(POLICIES, "jumbo")
            == Some((
                "Available".into(),
                "3/3 nodes successfully configured".into(),
            ))
    })
    .await;
    assert_eq!(c.condition(ENACTMENTS, "w2.jumbo").unwrap().0, "Available");
    c.patch_node("w0", json!({"metadata": {"annotations": {
        "machineconfiguration.openshift.io/currentConfig": "rendered-worker-0",
        "machineconfiguration.openshift.io/state": "Degraded",
        "machineconfiguration.openshift.io/reason": "restarting nmstate-configuration-live.service failed"}}}))
        .await;
    eventually("w0 Failing with MCO's reason", || {
        c.condition(ENACTMENTS, "w0.jumbo")
            .is_some_and(|(t, m)| t == "Failing" && m.contains("live.service failed"))
    })
    .await;
    // The node's own Event on its Node says more: the enactment carries it.
    let note = "rolled back: gateway 192.0.2.1 unanswered after 8 s";
    let events: Api<k8s_openapi::api::events::v1::Event> =
        Api::namespaced(c.client.clone(), "default");
    let event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "w0.1", "namespace": "default"},
        "eventTime": "2026-11-29T05:00:00.000000Z", "type": "Warning",
        "reportingController": "ovs-bridge-configurator", "reportingInstance": "w0",
        "action": "Apply", "reason": "NMStateRolledBack", "note": note,
        "regarding": {"apiVersion": "v1", "kind": "Node", "name": "w0"}});
    events
        .create(
            &PostParams::default(),
            &serde_json::from_value(event).unwrap(),
        )
        .await
        .unwrap();
    eventually("w0 Failing with the node's Event", || {
        c.condition(ENACTMENTS, "w0.jumbo")
            .is_some_and(|(_, m)| m == format!("NMStateRolledBack: {note}"))
    })
    .await;
    eventually("the policy Degraded", || {
        c.condition(POLICIES, "jumbo")
            .is_some_and(|(t, m)| t == "Degraded" && m.starts_with("1/3 nodes failed"))
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_leader_writes_and_a_killed_leader_is_replaced_without_writing_twice() {
    let c = Cluster::new().await;
    let leader = c.controller("a");
    c.wait_for_holder("a").await;
    let _follower = c.controller("b");
    c.policy("first", json!({}), "eth1", 9000).await;
    eventually("the first policy's status", || {
        c.condition(POLICIES, "first").is_some()
    })
    .await;
    let [mcs, ..] = settled(&c).await;
    assert_eq!(mcs, 1, "both replicas wrote the MachineConfig");
    assert_eq!(c.holder().await.as_deref(), Some("a"));
    leader.abort();
    c.policy("second", json!({}), "eth2", 1500).await;
    let second = || {
        c.worker_files()
            .is_some_and(|f| f.iter().any(|(p, _)| p.ends_with("/second.yml")))
    };
    eventually("the follower writes the second policy", second).await;
    eventually("the second policy's status", || {
        c.condition(POLICIES, "second").is_some()
    })
    .await;
    let [mcs, ..] = settled(&c).await;
    assert_eq!(mcs, 2, "a MachineConfig write was repeated");
    assert_eq!(c.holder().await.as_deref(), Some("b"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_stopped_gives_the_lease_up_and_the_other_takes_over_at_once() {
    let c = Cluster::new().await;
    let lasting = Duration::from_secs(30);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let leader = c.controller_until("a", lasting, async {
        let _ = stopped.await;
    });
    c.wait_for_holder("a").await;
    let _follower = c.controller_until("b", lasting, std::future::pending());
    let t0 = tokio::time::Instant::now();
    stop.send(()).unwrap();
    leader.await.unwrap();
    c.wait_for_holder("b").await;
    // Not the lease's 30 s: the follower's next retry after the release.
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    c.policy("after", json!({}), "eth1", 9000).await;
    eventually("the new leader writes", || {
        c.condition(POLICIES, "after").is_some()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn it_refuses_to_start_where_kubernetes_nmstates_operator_has_an_nmstate_object() {
    let c = Cluster::new().await;
    let resource = kube::api::ApiResource {
        group: NMSTATE.into(),
        version: "v1".into(),
        api_version: "nmstate.io/v1".into(),
        kind: "NMState".into(),
        plural: "nmstates".into(),
    };
    let api: Api<kube::api::DynamicObject> = Api::all_with(c.client.clone(), &resource);
    let nmstate = kube::api::DynamicObject::new("nmstate", &resource);
    api.create(&PostParams::default(), &nmstate).await.unwrap();
    let settings = Settings {
        lease: LeaseSettings {
            namespace: "policy".into(),
            name: "policy-controller".into(),
            identity: "a".into(),
            duration: Duration::from_secs(1),
            retry: Duration::from_millis(100),
        },
        debounce: Duration::from_millis(20),
    };
    let err = runtime::run(c.client.clone(), settings, std::future::pending())
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("kubernetes-nmstate's operator is installed"),
        "{err}"
    );
    assert!(
        c.server
            .all_writes()
            .keys()
            .all(|k| k == "nodes" || k == "machineconfigpools" || k == "nmstates")
    );
}
