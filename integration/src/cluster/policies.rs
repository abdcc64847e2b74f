//! The cluster half of day 2 beside the harness cluster: an API stand-in that the nodes reach as
//! their kubelet's API server (on the machine network's router address) and the host's clients
//! reach on 127.0.0.1; the pool `worker` and a Node object per node (Ready); two replicas of the
//! real `policy-controller run`; and what an administrator reads back (`oc get nncp`, `oc get
//! nnce`). MCO's part is [`super::mco`].

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::mco::{Mco, decoded};
use super::{Binaries, Cluster, ClusterNode};
use crate::api_stand_in::client::{Kube, MC_GROUP, NMSTATE};
use crate::api_stand_in::{ApiStandIn, kubeconfig};
use crate::node::ROUTER;
use crate::process::{Daemon, wait_for};

pub const POLICIES: &str = "nodenetworkconfigurationpolicies";
pub const ENACTMENTS: &str = "nodenetworkconfigurationenactments";
/// The pool's MachineConfig the controller owns.
pub const POOL_MC: &str = "50-worker-nmstate-policies";
/// The controllers' Lease, in their namespace.
const LEASE_NS: &str = "onprem-policy-controller";
/// The replicas' lease: short, so a killed leader is replaced within seconds.
const LEASE_SECONDS: &str = "4";

/// The label every node of the pool `worker` has.
pub fn workers() -> Value {
    json!({"node-role.kubernetes.io/worker": ""})
}

/// A NodeNetworkConfigurationPolicy object.
pub fn policy(name: &str, selector: Value, state: Value) -> Value {
    json!({"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy",
        "metadata": {"name": name}, "spec": {"nodeSelector": selector, "desiredState": state}})
}

/// The condition that is True on an object (a policy, an enactment): (type, message).
pub fn true_condition(object: &Value) -> Option<(String, String)> {
    let on = object["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["status"] == "True")?;
    Some((
        on["type"].as_str()?.to_owned(),
        on["message"].as_str().unwrap_or("").to_owned(),
    ))
}

/// The API, its objects and the controllers; dropping it stops them.
pub struct PolicyApi {
    pub kube: Kube,
    /// The replicas by identity.
    pub replicas: Vec<(String, Daemon)>,
    _dir: tempfile::TempDir,
}

impl std::fmt::Debug for PolicyApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.replicas.iter().map(|(id, _)| id.as_str()).collect();
        f.debug_struct("PolicyApi")
            .field("url", &self.kube.server.url())
            .field("replicas", &ids)
            .finish()
    }
}

impl PolicyApi {
    /// Starts the API for `c`'s nodes and the two controller replicas from `bins`.
    pub fn start(c: &Cluster, bins: &Binaries) -> Result<PolicyApi, String> {
        let listener =
            c.up.ns
                .run_in(|| std::net::TcpListener::bind((ROUTER, 0)))?
                .map_err(|e| format!("listen on {ROUTER}: {e}"))?;
        let node_url = format!(
            "http://{}",
            listener.local_addr().map_err(|e| e.to_string())?
        );
        let server = ApiStandIn::start_also_on(vec![listener]).map_err(|e| e.to_string())?;
        let kube = Kube::new(server);
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
            n.set_kubeconfig(&node_url)?;
        }
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let replicas = start_replicas(&kube, bins, dir.path())?;
        Ok(PolicyApi {
            kube,
            replicas,
            _dir: dir,
        })
    }

    /// MCO for the pool, rolling out to `nodes` in that order.
    pub fn mco<'a>(&'a self, nodes: Vec<&'a ClusterNode>) -> Mco<'a> {
        Mco {
            kube: &self.kube,
            nodes,
        }
    }

    /// The Lease's holder.
    pub fn leader(&self) -> Option<String> {
        let lease = self.kube.server.get(
            "coordination.k8s.io",
            "leases",
            LEASE_NS,
            "policy-controller",
        )?;
        lease["spec"]["holderIdentity"].as_str().map(str::to_owned)
    }

    /// The condition that is True on a policy or an enactment: (type, message).
    pub fn condition(&self, plural: &str, name: &str) -> Option<(String, String)> {
        true_condition(&self.kube.get(NMSTATE, plural, name)?)
    }

    /// The enactment `<node>.<policy>`'s True condition.
    pub fn enactment(&self, node: &str, policy: &str) -> Option<(String, String)> {
        self.condition(ENACTMENTS, &format!("{node}.{policy}"))
    }

    /// Waits up to 20 s for policy `name`'s True condition to be `kind` with a message for
    /// which `check` holds; the message.
    pub fn wait_policy(
        &self,
        name: &str,
        kind: &str,
        check: impl Fn(&str) -> bool,
    ) -> Result<String, String> {
        let mut seen = None;
        self.wait(&format!("policy {name} {kind}"), || {
            seen = self.condition(POLICIES, name);
            seen.as_ref().is_some_and(|(t, m)| t == kind && check(m))
        })?;
        Ok(seen.map(|s| s.1).unwrap_or_default())
    }

    /// Creates a policy and waits until the leader has put it in the MachineConfig.
    pub fn apply_policy(&self, object: Value) -> Result<(), String> {
        let name = object["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        self.kube.create(object);
        self.wait(
            &format!("policy {name} in the pool's MachineConfig"),
            || self.policy_file(&name).is_some(),
        )
    }

    /// `policy`'s state file as the pool's MachineConfig carries it.
    pub fn policy_file(&self, policy: &str) -> Option<String> {
        let mc = self.kube.get(MC_GROUP, "machineconfigs", POOL_MC)?;
        decoded(&mc).remove(&format!("/etc/nmstate/openshift/policies/{policy}.yml"))
    }

    /// The paths of the pool's MachineConfig's files.
    pub fn pool_files(&self) -> Vec<String> {
        self.kube
            .get(MC_GROUP, "machineconfigs", POOL_MC)
            .map(|mc| decoded(&mc).into_keys().collect())
            .unwrap_or_default()
    }

    /// Waits until the API has had no write but the Lease's renewals for a second: the
    /// controller has caught up.
    pub fn settle(&self) -> Result<(), String> {
        let writes = || {
            let mut w = self.kube.server.all_writes();
            w.remove("leases");
            w
        };
        let mut last = (writes(), Instant::now());
        self.wait("the controller settled", || {
            let now = writes();
            if now != last.0 {
                last = (now, Instant::now());
            }
            last.1.elapsed() >= Duration::from_secs(1)
        })
    }

    /// Waits up to 20 s for `check`; an error naming `what` and showing [`PolicyApi::context`].
    pub fn wait(&self, what: &str, mut check: impl FnMut() -> bool) -> Result<(), String> {
        if wait_for(Duration::from_secs(20), &mut check) {
            return Ok(());
        }
        Err(format!("{what}: not within 20 s\n{}", self.context()))
    }

    /// Every policy's and enactment's conditions, the MachineConfig's files and the
    /// controllers' last log lines: what to look at when something is not as expected.
    pub fn context(&self) -> String {
        let conditions: Vec<String> = [POLICIES, ENACTMENTS]
            .iter()
            .flat_map(|plural| self.kube.list(NMSTATE, plural))
            .map(|o| {
                let name = o["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                format!("{name}: {}", o["status"]["conditions"])
            })
            .collect();
        let logs: String = self
            .replicas
            .iter()
            .map(|(id, d)| format!("--- {id}\n{}", d.log_tail(30)))
            .collect();
        format!(
            "{}\nMachineConfig files: {:?}\n{logs}",
            conditions.join("\n"),
            self.pool_files()
        )
    }
}

/// The two replicas of `policy-controller run`, each a process with its own log in `dir`.
fn start_replicas(
    kube: &Kube,
    bins: &Binaries,
    dir: &Path,
) -> Result<Vec<(String, Daemon)>, String> {
    let config = dir.join("controller.kubeconfig");
    std::fs::write(&config, kubeconfig(&kube.server.url())).map_err(|e| e.to_string())?;
    let bin = bins.get("policy-controller");
    ["replica-a", "replica-b"]
        .into_iter()
        .map(|id| {
            let mut cmd = std::process::Command::new(&bin);
            cmd.args(["run", "--namespace", LEASE_NS, "--identity", id])
                .args(["--lease-duration", LEASE_SECONDS, "--lease-retry", "1"])
                .env("KUBECONFIG", &config)
                .env("RUST_LOG", "info");
            let log = dir.join(format!("{id}.log"));
            Ok((id.to_owned(), Daemon::spawn(id, &mut cmd, &log)?))
        })
        .collect()
}
