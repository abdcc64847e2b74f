//! MCO's part of a roll-out, reproduced for the harness cluster's pool `worker` with
//! `maxUnavailable: 1`, as the MachineConfig roll-out tests reproduce MCO's daemon (for the
//! policies' end-to-end test and the demo):
//!
//! - the controller renders the pool's MachineConfigs (those labelled with its role, merged in
//!   name order, a later file winning) into `rendered-worker-<hash>`, and points the nodes at it
//!   one at a time, in the order given;
//! - the daemon on that node marks the Node `Working`, writes the config's files (a file the new
//!   config no longer has is removed), restarts nmstate-configuration-live.service (the
//!   node-disruption policy's Restart action for /etc/nmstate/openshift) and marks the Node
//!   `Done` with its new currentConfig; a failed restart writes the previous files back and
//!   leaves the Node `Degraded` with a reason that names the unit;
//! - a pool with a degraded node updates no other node (`degradedMachineCount`); a new
//!   rendered config is tried on the degraded node first, as its daemon picks up a new
//!   desiredConfig.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};

use super::ClusterNode;
use crate::api_stand_in::client::{Kube, MC_GROUP};

pub const CURRENT: &str = "machineconfiguration.openshift.io/currentConfig";
pub const DESIRED: &str = "machineconfiguration.openshift.io/desiredConfig";
pub const STATE: &str = "machineconfiguration.openshift.io/state";
pub const REASON: &str = "machineconfiguration.openshift.io/reason";

/// The unit MCO restarts for a change under /etc/nmstate/openshift.
const LIVE_UNIT: &str = "nmstate-configuration-live.service";

/// A rendered config's files: absolute path -> content.
type Files = BTreeMap<String, String>;

/// One node's update: the unit's outcome and log, and how long it took.
#[derive(Debug)]
pub struct Update {
    pub node: String,
    pub ok: bool,
    pub log: String,
    /// When it started, and how long it took.
    pub started: Instant,
    pub took: Duration,
}

/// MCO for the pool `worker`, over `nodes` in the roll-out's order.
pub struct Mco<'a> {
    pub kube: &'a Kube,
    pub nodes: Vec<&'a ClusterNode>,
}

impl Mco<'_> {
    /// Renders the pool's config and rolls it out until every node has it or the pool stops;
    /// the updates made, in order.
    pub fn roll_out(&self) -> Vec<Update> {
        let (target, files) = self.render();
        let mut done = Vec::new();
        loop {
            let next = match self.degraded() {
                Some(n) if self.annotation(n, DESIRED) == target => break,
                Some(n) => n,
                None => match self
                    .nodes
                    .iter()
                    .find(|n| self.annotation(n, CURRENT) != target)
                {
                    Some(n) => *n,
                    None => break,
                },
            };
            let update = self.update(next, &target, &files);
            let ok = update.ok;
            done.push(update);
            self.pool_status();
            if !ok {
                break;
            }
        }
        done
    }

    /// Nodes that never had a config start at the pool's current one, as after installation.
    pub fn adopt(&self) {
        let (target, _) = self.render();
        for n in &self.nodes {
            self.annotate(
                n,
                &[(CURRENT, &target), (DESIRED, &target), (STATE, "Done")],
            );
        }
        self.pool_status();
    }

    /// The pool's rendered config (created when new): its name and files.
    fn render(&self) -> (String, Files) {
        let mut sources = self
            .kube
            .list(MC_GROUP, "machineconfigs")
            .into_iter()
            .filter(|mc| {
                mc["metadata"]["labels"]["machineconfiguration.openshift.io/role"] == "worker"
            })
            .collect::<Vec<_>>();
        sources.sort_by_key(|mc| mc["metadata"]["name"].as_str().map(str::to_owned));
        let mut files = Files::new();
        for mc in &sources {
            files.extend(decoded(mc));
        }
        let mut h = DefaultHasher::new();
        files.hash(&mut h);
        let name = format!("rendered-worker-{:016x}", h.finish());
        if self.kube.get(MC_GROUP, "machineconfigs", &name).is_none() {
            let entries: Vec<Value> = files
                .iter()
                .map(|(path, text)| json!({"path": path, "mode": 0o600, "contents": {"source":
                    format!("data:;base64,{}", base64::engine::general_purpose::STANDARD.encode(text))}}))
                .collect();
            self.kube
                .create(json!({"apiVersion": "machineconfiguration.openshift.io/v1",
                "kind": "MachineConfig", "metadata": {"name": name},
                "spec": {"config": {"ignition": {"version": "3.2.0"},
                    "storage": {"files": entries}}}}));
        }
        (name, files)
    }

    /// One node's update from its current config to `target`.
    fn update(&self, node: &ClusterNode, target: &str, files: &Files) -> Update {
        let t0 = Instant::now();
        let current = self.annotation(node, CURRENT);
        let previous = self.files_of(&current);
        self.annotate(node, &[(DESIRED, target), (STATE, "Working"), (REASON, "")]);
        write_files(node, &previous, files);
        let (status, log) = node.apply_nmstate_live().unwrap();
        if status.success() {
            self.annotate(node, &[(CURRENT, target), (STATE, "Done")]);
        } else {
            write_files(node, files, &previous);
            let reason = format!("could not apply update: restarting {LIVE_UNIT} failed: {status}");
            self.annotate(node, &[(STATE, "Degraded"), (REASON, &reason)]);
        }
        Update {
            node: node.name(),
            ok: status.success(),
            log,
            started: t0,
            took: t0.elapsed(),
        }
    }

    /// The files of a rendered config in the API.
    fn files_of(&self, rendered: &str) -> Files {
        self.kube
            .get(MC_GROUP, "machineconfigs", rendered)
            .map(|mc| decoded(&mc))
            .unwrap_or_default()
    }

    fn degraded(&self) -> Option<&ClusterNode> {
        self.nodes
            .iter()
            .find(|n| self.annotation(n, STATE) == "Degraded")
            .copied()
    }

    fn annotation(&self, node: &ClusterNode, key: &str) -> String {
        self.kube
            .get("", "nodes", &node.name())
            .and_then(|n| {
                n["metadata"]["annotations"][key]
                    .as_str()
                    .map(str::to_owned)
            })
            .unwrap_or_default()
    }

    fn annotate(&self, node: &ClusterNode, pairs: &[(&str, &str)]) {
        let annotations: serde_json::Map<String, Value> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect();
        self.kube.patch(
            "v1",
            "Node",
            &node.name(),
            json!({"metadata": {"annotations": annotations}}),
        );
    }

    /// The pool's machine counts, as MCO's controller keeps them.
    fn pool_status(&self) {
        let degraded = self
            .nodes
            .iter()
            .filter(|n| self.annotation(n, STATE) == "Degraded")
            .count();
        let count = self.nodes.len();
        self.kube.patch_status(
            "machineconfiguration.openshift.io/v1",
            "MachineConfigPool",
            "worker",
            json!({"status": {"machineCount": count, "degradedMachineCount": degraded}}),
        );
    }
}

/// A MachineConfig's files, decoded.
pub fn decoded(mc: &Value) -> Files {
    mc["spec"]["config"]["storage"]["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| {
            let source = f["contents"]["source"].as_str()?;
            let b64 = source.strip_prefix("data:;base64,")?;
            let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
            Some((
                f["path"].as_str()?.to_owned(),
                String::from_utf8(bytes).ok()?,
            ))
        })
        .collect()
}

/// The daemon's file writes going from `from` to `to`: each file of `to` written (a temporary
/// file renamed into place), each file only `from` has removed.
fn write_files(node: &ClusterNode, from: &Files, to: &Files) {
    use std::os::unix::fs::PermissionsExt;
    for path in from.keys().filter(|p| !to.contains_key(*p)) {
        let _ = std::fs::remove_file(node.etc_file(path).unwrap());
    }
    for (path, text) in to {
        let file = node.etc_file(path).unwrap();
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let tmp = file.with_extension("mcdtmp");
        std::fs::write(&tmp, text).unwrap();
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::rename(&tmp, &file).unwrap();
    }
}
