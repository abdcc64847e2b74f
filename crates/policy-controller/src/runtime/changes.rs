//! The writes one reconcile needs: the pure core's result compared with what the API holds.
//! Pure, like the core: the runtime hands in what its watches hold and sends what comes out.
//! Nothing equal to what is stored is written, so a resync, a restart or an unrelated change
//! produces no writes at all.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};

use crate::api::{
    MachineConfig, MachineConfigPool, NodeNetworkConfigurationEnactment,
    NodeNetworkConfigurationPolicy, PolicyStatus,
};
use crate::plan::{Cluster, Plan, plan};
use crate::policy::Policy;
use crate::render::{MANAGED_BY, MANAGED_BY_LABEL, RenderError};
use crate::rollout::{self, NodeRollout};
use crate::select::{self, Node};
use crate::{conditions, status};

/// What the API holds, as the watches see it.
pub struct Snapshot<'a> {
    pub policies: &'a [&'a NodeNetworkConfigurationPolicy],
    pub pools: &'a [MachineConfigPool],
    /// Node metadata: name, UID, labels, MCO's annotations.
    pub nodes: &'a [&'a ObjectMeta],
    /// The MachineConfigs that carry this controller's label.
    pub owned: &'a [&'a MachineConfig],
    pub enactments: &'a [&'a NodeNetworkConfigurationEnactment],
    /// The rendered MachineConfigs the nodes' annotations name, by name.
    pub rendered: &'a BTreeMap<String, MachineConfig>,
    /// The Events nodes recorded on their Node objects (`default` namespace).
    pub node_events: &'a [&'a Event],
}

/// The writes, each carrying the resourceVersion it was computed from (a stale one is refused
/// by the API with 409, and the next reconcile starts from what is there).
#[derive(Debug, Default)]
pub struct Writes {
    /// MachineConfigs to create (no resourceVersion) or replace.
    pub machine_configs: Vec<MachineConfig>,
    /// Owned MachineConfigs no policy needs any more, with their resourceVersion.
    pub delete_machine_configs: Vec<(String, Option<String>)>,
    /// Policies whose status changed, their new status set.
    pub policy_status: Vec<NodeNetworkConfigurationPolicy>,
    /// Enactments to create (no resourceVersion) then give a status, or whose status changed.
    pub enactments: Vec<NodeNetworkConfigurationEnactment>,
    /// Enactments whose node or policy no longer pairs.
    pub delete_enactments: Vec<String>,
}

impl Writes {
    pub fn is_empty(&self) -> bool {
        self.machine_configs.is_empty()
            && self.delete_machine_configs.is_empty()
            && self.policy_status.is_empty()
            && self.enactments.is_empty()
            && self.delete_enactments.is_empty()
    }
}

/// Computes the plan for the snapshot and everything that differs from what is stored.
pub fn changes(s: &Snapshot, now: &Time) -> Result<(Plan, Writes), RenderError> {
    let policies: Vec<Policy> = s.policies.iter().map(|p| Policy::from_nncp(p)).collect();
    let nodes: Vec<Node> = s.nodes.iter().filter_map(|m| Node::from_meta(m)).collect();
    let plan = plan(&Cluster {
        policies: &policies,
        pools: s.pools,
        nodes: &nodes,
    })?;
    let mut writes = Writes::default();
    machine_configs(&plan, s.owned, &mut writes);
    let rollouts = rollouts(s, &plan, &nodes);
    statuses(s, &policies, &nodes, &plan, &rollouts, now, &mut writes);
    Ok((plan, writes))
}

/// Creates, replaces (only where the spec or our labels differ) and deletes.
fn machine_configs(plan: &Plan, owned: &[&MachineConfig], writes: &mut Writes) {
    let stored: BTreeMap<&str, &MachineConfig> = owned
        .iter()
        .filter_map(|mc| Some((mc.metadata.name.as_deref()?, *mc)))
        .collect();
    for want in &plan.machine_configs {
        let name = want.metadata.name.as_deref().unwrap_or_default();
        let Some(have) = stored.get(name) else {
            writes.machine_configs.push(want.clone());
            continue;
        };
        let labels = want.metadata.labels.iter().flatten();
        let have_labels = have.metadata.labels.clone().unwrap_or_default();
        let labelled = labels.clone().all(|(k, v)| have_labels.get(k) == Some(v));
        if have.spec == want.spec && labelled {
            continue;
        }
        let mut next = (*have).clone();
        next.spec = want.spec.clone();
        next.metadata.labels = Some(have_labels.into_iter().chain(labels.map(clone2)).collect());
        writes.machine_configs.push(next);
    }
    let wanted: BTreeSet<&str> = plan
        .machine_configs
        .iter()
        .filter_map(|mc| mc.metadata.name.as_deref())
        .collect();
    for (name, mc) in stored {
        let ours = mc.metadata.labels.iter().flatten();
        let managed = ours
            .clone()
            .any(|(k, v)| k == MANAGED_BY_LABEL && v == MANAGED_BY);
        if managed && !wanted.contains(name) {
            let rv = mc.metadata.resource_version.clone();
            writes.delete_machine_configs.push((name.to_owned(), rv));
        }
    }
}

fn clone2((k, v): (&String, &String)) -> (String, String) {
    (k.clone(), v.clone())
}

/// Each pooled node's roll-out, read from its MCO annotations and the rendered configs they
/// name, compared with the pool's MachineConfig as planned now.
fn rollouts(s: &Snapshot, plan: &Plan, nodes: &[Node]) -> BTreeMap<String, NodeRollout> {
    let ours: BTreeMap<&str, BTreeMap<&str, &str>> = plan
        .machine_configs
        .iter()
        .filter_map(|mc| Some((mc.metadata.name.as_deref()?, rollout::files(mc))))
        .collect();
    let stopped: BTreeMap<&str, bool> = s
        .pools
        .iter()
        .filter_map(|p| Some((p.metadata.name.as_deref()?, p.rollout_stopped())))
        .collect();
    let empty = BTreeMap::new();
    let no_annotations = BTreeMap::new();
    let mut out = BTreeMap::new();
    for (meta, node) in s.nodes.iter().zip(nodes) {
        let mco = rollout::mco_node(meta.annotations.as_ref().unwrap_or(&no_annotations));
        let Some(pool) = select::pool_of(&node.labels, s.pools) else {
            continue;
        };
        let files = ours
            .get(crate::render::name_for(pool).as_str())
            .unwrap_or(&empty);
        let policies: Vec<&str> = plan.policies.keys().map(String::as_str).collect();
        // When the config the node is asked to apply was rendered: the node's Events about it
        // are no older.
        let rendered_at = |mco: &rollout::McoNode| {
            let mc = s.rendered.get(mco.desired_config?)?;
            mc.metadata.creation_timestamp.as_ref().map(|t| t.0)
        };
        let carries = |config: Option<&str>| {
            config
                .and_then(|c| s.rendered.get(c))
                .map(|mc| {
                    rollout::carried(&rollout::files(mc), files, &node.name, policies.clone())
                })
                .unwrap_or_default()
        };
        let r = NodeRollout {
            state: mco.state,
            reason: mco.reason.to_owned(),
            node_failure: (mco.state == rollout::McdState::Degraded)
                .then(|| rollout::node_failure(s.node_events, &node.name, rendered_at(&mco)))
                .flatten(),
            desired_carries: carries(mco.desired_config),
            current_carries: carries(mco.current_config),
            pool_stopped: stopped.get(pool).copied().unwrap_or(false),
        };
        out.insert(node.name.clone(), r);
    }
    out
}

/// Enactment and policy statuses that differ from what is stored, and stale enactments.
fn statuses(
    s: &Snapshot,
    policies: &[Policy],
    nodes: &[Node],
    plan: &Plan,
    rollouts: &BTreeMap<String, NodeRollout>,
    now: &Time,
    writes: &mut Writes,
) {
    let stored: BTreeMap<&str, &NodeNetworkConfigurationEnactment> = s
        .enactments
        .iter()
        .filter_map(|e| Some((e.metadata.name.as_deref()?, *e)))
        .collect();
    let nodes: BTreeMap<&str, &Node> = nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    let mut wanted = BTreeSet::new();
    for (raw, policy) in s.policies.iter().zip(policies) {
        let Some(placed) = plan.policies.get(&policy.name) else {
            continue;
        };
        let mut enactments = BTreeMap::new();
        for (node_name, p) in &placed.nodes {
            let e = status::enactment(&policy.name, &p.placement, rollouts.get(node_name));
            if let Some(node) = nodes.get(node_name.as_str()) {
                let name = format!("{node_name}.{}", policy.name);
                let have = stored.get(name.as_str()).copied();
                enactment_write(node, policy, &e, have, now, writes);
                wanted.insert(name);
            }
            enactments.insert(node_name.clone(), e);
        }
        let verdicts = status::policy_verdicts(policy, placed, &enactments);
        policy_write(raw, &verdicts, now, writes);
    }
    for name in stored.keys().filter(|n| !wanted.contains(**n)) {
        writes.delete_enactments.push((*name).to_owned());
    }
}

fn enactment_write(
    node: &Node,
    policy: &Policy,
    e: &status::Enactment,
    have: Option<&NodeNetworkConfigurationEnactment>,
    now: &Time,
    writes: &mut Writes,
) {
    let old = have
        .map(|h| h.status.conditions.as_slice())
        .unwrap_or_default();
    let conditions = conditions::update(old, &status::enactment_verdicts(e), now);
    let mut want = status::enactment_object(node, policy, conditions);
    if let Some(have) = have {
        if have.status == want.status {
            return;
        }
        want.metadata = have.metadata.clone();
    }
    writes.enactments.push(want);
}

fn policy_write(
    raw: &NodeNetworkConfigurationPolicy,
    verdicts: &[conditions::Verdict],
    now: &Time,
    writes: &mut Writes,
) {
    let old = raw.status.clone().unwrap_or_default();
    let next = PolicyStatus {
        conditions: conditions::update(&old.conditions, verdicts, now),
        ..old.clone()
    };
    if raw.status.is_some() && next == old {
        return;
    }
    let mut updated = raw.clone();
    updated.status = Some(next);
    writes.policy_status.push(updated);
}

#[cfg(test)]
mod tests;
