//! Enactment and policy status, computed from the plan and each node's roll-out.
//!
//! An enactment (`<node>.<policy>`) for a policy placed on a node:
//! - left out by a conflict or the size limit: **Failing** (`FailedToConfigure`), saying why;
//! - the node's currentConfig carries it and MCO's state is `Done`: **Available**
//!   (`SuccessfullyConfigured`);
//! - its desiredConfig carries it and the state is `Degraded`: **Failing** (`FailedToConfigure`)
//!   with the node's own Event (which probe failed after how long, or the guard's or nmstate's
//!   error), else MCO's reason (which names only the unit), cut to 1 kB;
//! - its desiredConfig carries it otherwise: **Progressing** (`ConfigurationProgressing`);
//! - not yet targeted and the pool has a degraded node: **Aborted** (`ConfigurationAborted`):
//!   MCO stopped the roll-out before this node;
//! - not yet targeted: **Pending** (`MaxUnavailableLimitReached`): waiting for MCO's turn.
//!
//! A policy: refused -> Degraded naming the policy and the error; no node in a pool selected ->
//! `NoMatchingNode`; any conflict, size refusal, failure or abort -> Degraded
//! (`FailedToConfigure`) with "f/M nodes failed to configure, roll-out stopped" and what
//! failed where; any pending or progressing -> Progressing; else Available with "N/M nodes
//! successfully configured". M counts the selected nodes that are in a pool.

use std::collections::BTreeMap;

use crate::api::{
    ENACTMENT_NODE_LABEL, ENACTMENT_POLICY_LABEL, EnactmentStatus,
    NodeNetworkConfigurationEnactment,
};
use crate::conditions::{Verdict, bounded};
use crate::plan::{Placement, PolicyPlan};
use crate::policy::Policy;
use crate::render::SIZE_LIMIT;
use crate::rollout::{McdState, NodeRollout};
use crate::select::Node;

/// Where one enactment stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Enactment {
    Pending,
    Progressing,
    Available,
    Failing(String),
    Aborted,
}

/// The enactment of `policy` on a node where it has `placement`.
pub fn enactment(policy: &str, placement: &Placement, rollout: Option<&NodeRollout>) -> Enactment {
    let rollout = match placement {
        Placement::Conflict { other, conflict } => {
            return Enactment::Failing(format!(
                "conflicts with policy {other} on {conflict}: neither is applied on this node"
            ));
        }
        Placement::TooLarge { .. } => return Enactment::Failing(too_large(placement)),
        Placement::Applied => match rollout {
            Some(r) => r,
            None => return Enactment::Pending,
        },
    };
    let current = rollout.current_carries.contains(policy);
    let desired = rollout.desired_carries.contains(policy);
    match (rollout.state, current, desired) {
        (McdState::Done, true, _) => Enactment::Available,
        (McdState::Degraded, _, true) => Enactment::Failing(bounded(
            rollout.node_failure.as_deref().unwrap_or(&rollout.reason),
        )),
        (_, _, true) => Enactment::Progressing,
        _ if rollout.pool_stopped => Enactment::Aborted,
        _ => Enactment::Pending,
    }
}

fn too_large(placement: &Placement) -> String {
    match placement {
        Placement::TooLarge {
            machine_config,
            size,
        } => format!(
            "left out of MachineConfig {machine_config}: it would be {size} bytes of JSON, \
             over the limit of {SIZE_LIMIT}"
        ),
        _ => String::new(),
    }
}

/// The enactment's five conditions, in kubernetes-nmstate's order; exactly one is True.
pub fn enactment_verdicts(e: &Enactment) -> Vec<Verdict> {
    let (on, reason, message) = match e {
        Enactment::Available => ("Available", "SuccessfullyConfigured", String::new()),
        Enactment::Failing(m) => ("Failing", "FailedToConfigure", m.clone()),
        Enactment::Progressing => ("Progressing", "ConfigurationProgressing", String::new()),
        Enactment::Pending => ("Pending", "MaxUnavailableLimitReached", String::new()),
        Enactment::Aborted => (
            "Aborted",
            "ConfigurationAborted",
            "MCO stopped the roll-out before this node: its pool has a degraded node".into(),
        ),
    };
    ["Available", "Failing", "Progressing", "Pending", "Aborted"]
        .into_iter()
        .map(|t| Verdict {
            type_: t,
            status: if t == on { "True" } else { "False" },
            reason,
            message: if t == on {
                message.clone()
            } else {
                String::new()
            },
        })
        .collect()
}

/// The enactment object for a node and a policy, with its conditions already computed.
pub fn enactment_object(
    node: &Node,
    policy: &Policy,
    conditions: Vec<crate::api::Condition>,
) -> NodeNetworkConfigurationEnactment {
    let mut e = NodeNetworkConfigurationEnactment {
        api_version: "nmstate.io/v1beta1".into(),
        kind: "NodeNetworkConfigurationEnactment".into(),
        ..Default::default()
    };
    e.metadata.name = Some(format!("{}.{}", node.name, policy.name));
    e.metadata.labels = Some(BTreeMap::from([
        (ENACTMENT_POLICY_LABEL.to_owned(), policy.name.clone()),
        (ENACTMENT_NODE_LABEL.to_owned(), node.name.clone()),
    ]));
    // Owned by the Node, as kubernetes-nmstate does: deleting the Node deletes its enactments.
    e.metadata.owner_references = node.uid.as_ref().map(|uid| {
        vec![
            k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
                api_version: "v1".into(),
                kind: "Node".into(),
                name: node.name.clone(),
                uid: uid.clone(),
                ..Default::default()
            },
        ]
    });
    e.status = EnactmentStatus {
        desired_state: policy.desired().cloned(),
        policy_generation: policy.generation,
        conditions,
        ..Default::default()
    };
    e
}

/// Counts of a policy's enactments.
#[derive(Default)]
struct Tally<'a> {
    available: usize,
    failed: usize,
    aborted: usize,
    pending: usize,
    /// The first failing node by name and its message.
    first_failure: Option<(&'a str, &'a str)>,
}

fn tally(enactments: &BTreeMap<String, Enactment>) -> Tally<'_> {
    let mut t = Tally::default();
    for (node, e) in enactments {
        match e {
            Enactment::Available => t.available += 1,
            Enactment::Failing(m) => {
                t.failed += 1;
                t.first_failure.get_or_insert((node, m));
            }
            Enactment::Aborted => t.aborted += 1,
            Enactment::Pending => t.pending += 1,
            Enactment::Progressing => {}
        }
    }
    t
}

/// The policy's four conditions (Available, Degraded, Progressing, Ignored), from its plan and
/// its enactments by node name.
pub fn policy_verdicts(
    policy: &Policy,
    plan: &PolicyPlan,
    enactments: &BTreeMap<String, Enactment>,
) -> Vec<Verdict> {
    if let Err(refusal) = &policy.state {
        return four(Kind::Failed, format!("policy {}: {refusal}", policy.name));
    }
    let unpooled = match plan.unpooled {
        0 => String::new(),
        n => format!(", {n} selected nodes are in no MachineConfigPool"),
    };
    if plan.nodes.is_empty() {
        return four(
            Kind::NoMatch,
            format!("Policy does not match any node{unpooled}"),
        );
    }
    let total = plan.nodes.len();
    let t = tally(enactments);
    if t.failed + t.aborted > 0 {
        return four(Kind::Failed, failure_message(plan, &t, total));
    }
    if t.available < total {
        let pending = match t.pending {
            0 => String::new(),
            n => format!(", {n} pending"),
        };
        let message = format!(
            "Policy is progressing {}/{total} nodes finished{pending}{unpooled}",
            t.available
        );
        return four(Kind::Progressing, message);
    }
    let message = format!(
        "{}/{total} nodes successfully configured{unpooled}",
        t.available
    );
    four(Kind::Success, message)
}

/// "1/3 nodes failed to configure, roll-out stopped (2 aborted); w0: <why>", conflicts and size
/// refusals grouped with the number of nodes each affects.
fn failure_message(plan: &PolicyPlan, t: &Tally, total: usize) -> String {
    let mut groups: BTreeMap<String, usize> = BTreeMap::new();
    for placed in plan.nodes.values() {
        let text = match &placed.placement {
            Placement::Applied => continue,
            Placement::Conflict { other, conflict } => {
                format!("conflicts with policy {other} on {conflict}")
            }
            other => too_large(other),
        };
        *groups.entry(text).or_default() += 1;
    }
    let mut message = format!("{}/{total} nodes failed to configure", t.failed);
    if t.aborted > 0 {
        message.push_str(&format!(", roll-out stopped ({} aborted)", t.aborted));
    }
    if groups.is_empty()
        && let Some((node, why)) = t.first_failure
    {
        message.push_str(&format!("; {node}: {why}"));
    }
    for (text, nodes) in groups {
        let s = if nodes == 1 { "" } else { "s" };
        message.push_str(&format!("; {text} ({nodes} node{s})"));
    }
    message
}

enum Kind {
    Success,
    Progressing,
    Failed,
    NoMatch,
}

/// kubernetes-nmstate's four policy conditions for each outcome, the message on the True one.
fn four(kind: Kind, message: String) -> Vec<Verdict> {
    let (statuses, reasons, on) = match kind {
        Kind::Success => (
            ["True", "False", "False", "False"],
            ["SuccessfullyConfigured"; 4],
            0,
        ),
        Kind::Failed => (
            ["False", "True", "False", "False"],
            [
                "FailedToConfigure",
                "FailedToConfigure",
                "ConfigurationProgressing",
                "FailedToConfigure",
            ],
            1,
        ),
        Kind::Progressing => (
            ["Unknown", "Unknown", "True", "False"],
            ["ConfigurationProgressing"; 4],
            2,
        ),
        Kind::NoMatch => (
            ["False", "False", "False", "True"],
            ["NoMatchingNode"; 4],
            3,
        ),
    };
    ["Available", "Degraded", "Progressing", "Ignored"]
        .into_iter()
        .enumerate()
        .map(|(i, type_)| Verdict {
            type_,
            status: statuses[i],
            reason: reasons[i],
            message: if i == on {
                message.clone()
            } else {
                String::new()
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::Conflict;
    use crate::plan::Placed;
    use crate::plan::tests::{iface, node};
    use crate::policy::tests::nncp;
    use std::collections::BTreeSet;

    fn rollout(state: McdState, current: &[&str], desired: &[&str], stopped: bool) -> NodeRollout {
        let set = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<BTreeSet<_>>();
        NodeRollout {
            state,
            reason: "restarting nmstate-configuration-live.service failed".into(),
            node_failure: None,
            current_carries: set(current),
            desired_carries: set(desired),
            pool_stopped: stopped,
        }
    }

    fn applied(nodes: &[&str]) -> PolicyPlan {
        PolicyPlan {
            nodes: nodes
                .iter()
                .map(|n| {
                    (
                        n.to_string(),
                        Placed {
                            pool: "worker".into(),
                            placement: Placement::Applied,
                        },
                    )
                })
                .collect(),
            unpooled: 0,
        }
    }

    fn message(v: &[Verdict]) -> (&'static str, &'static str, &str) {
        let on = v.iter().find(|v| v.status == "True").unwrap();
        (on.type_, on.reason, on.message.as_str())
    }

    #[test]
    fn each_mco_state_maps_to_its_enactment() {
        let a = Placement::Applied;
        let done = rollout(McdState::Done, &["p"], &["p"], false);
        assert_eq!(enactment("p", &a, Some(&done)), Enactment::Available);
        let working = rollout(McdState::Working, &[], &["p"], false);
        assert_eq!(enactment("p", &a, Some(&working)), Enactment::Progressing);
        let mut failed = rollout(McdState::Degraded, &[], &["p"], true);
        assert!(
            matches!(enactment("p", &a, Some(&failed)), Enactment::Failing(m) if m.contains("live.service failed"))
        );
        // The node's own Event, when it recorded one, says more than MCO's reason.
        failed.node_failure = Some("NMStateRolledBack: gateway 192.0.2.1 unanswered".into());
        assert!(
            matches!(enactment("p", &a, Some(&failed)), Enactment::Failing(m) if m.starts_with("NMStateRolledBack: gateway"))
        );
        let waiting = rollout(McdState::Done, &[], &[], false);
        assert_eq!(enactment("p", &a, Some(&waiting)), Enactment::Pending);
        let stopped = rollout(McdState::Done, &[], &[], true);
        assert_eq!(enactment("p", &a, Some(&stopped)), Enactment::Aborted);
        assert_eq!(enactment("p", &a, None), Enactment::Pending);
    }

    #[test]
    fn a_failure_reason_is_at_most_one_kilobyte() {
        let mut r = rollout(McdState::Degraded, &[], &["p"], false);
        r.reason = "x".repeat(5000);
        let Enactment::Failing(m) = enactment("p", &Placement::Applied, Some(&r)) else {
            panic!("not failing");
        };
        assert!(m.len() <= 1024);
    }

    #[test]
    fn every_node_done_makes_the_policy_available_with_n_of_m() {
        let p = nncp("vlan", &[], iface("eth1", 9000));
        let e = BTreeMap::from([
            ("w0".into(), Enactment::Available),
            ("w1".into(), Enactment::Available),
        ]);
        let v = policy_verdicts(&p, &applied(&["w0", "w1"]), &e);
        assert_eq!(
            message(&v),
            (
                "Available",
                "SuccessfullyConfigured",
                "2/2 nodes successfully configured"
            )
        );
    }

    #[test]
    fn one_failure_degrades_the_policy_naming_the_node_and_the_stop() {
        let p = nncp("vlan", &[], iface("eth1", 9000));
        let e = BTreeMap::from([
            (
                "w0".into(),
                Enactment::Failing("probe gateway unanswered".into()),
            ),
            ("w1".into(), Enactment::Aborted),
            ("w2".into(), Enactment::Aborted),
        ]);
        let v = policy_verdicts(&p, &applied(&["w0", "w1", "w2"]), &e);
        assert_eq!(
            message(&v),
            (
                "Degraded",
                "FailedToConfigure",
                "1/3 nodes failed to configure, roll-out stopped (2 aborted); w0: probe gateway unanswered"
            )
        );
    }

    #[test]
    fn a_pending_node_keeps_the_policy_progressing() {
        let p = nncp("vlan", &[], iface("eth1", 9000));
        let e = BTreeMap::from([
            ("w0".into(), Enactment::Available),
            ("w1".into(), Enactment::Pending),
        ]);
        let v = policy_verdicts(&p, &applied(&["w0", "w1"]), &e);
        assert_eq!(
            message(&v),
            (
                "Progressing",
                "ConfigurationProgressing",
                "Policy is progressing 1/2 nodes finished, 1 pending"
            )
        );
    }

    #[test]
    fn a_policy_selecting_no_node_says_no_matching_node() {
        let p = nncp("gpu", &[], iface("eth1", 9000));
        let v = policy_verdicts(&p, &PolicyPlan::default(), &BTreeMap::new());
        assert_eq!(
            message(&v),
            (
                "Ignored",
                "NoMatchingNode",
                "Policy does not match any node"
            )
        );
        assert!(v.iter().any(|c| c.type_ == "Available"
            && c.status == "False"
            && c.reason == "NoMatchingNode"));
    }

    #[test]
    fn a_refused_policy_is_degraded_naming_itself_and_the_error() {
        let p = nncp("bad", &[], serde_json::json!({"interfacez": []}));
        let v = policy_verdicts(&p, &PolicyPlan::default(), &BTreeMap::new());
        let (t, _, m) = message(&v);
        assert_eq!(t, "Degraded");
        assert!(
            m.starts_with("policy bad: spec.desiredState is not valid NMState"),
            "{m}"
        );
    }

    #[test]
    fn a_conflict_names_the_other_policy_the_interface_and_the_key() {
        let p = nncp("a", &[], iface("eth1", 9000));
        let conflict = Placement::Conflict {
            other: "b".into(),
            conflict: Conflict {
                subject: "interface eth1".into(),
                key: "mtu".into(),
            },
        };
        let mut plan = applied(&["w0"]);
        plan.nodes.insert(
            "w1".into(),
            Placed {
                pool: "worker".into(),
                placement: conflict.clone(),
            },
        );
        let e = BTreeMap::from([
            ("w0".into(), Enactment::Available),
            ("w1".into(), enactment("a", &conflict, None)),
        ]);
        let v = policy_verdicts(&p, &plan, &e);
        let (t, _, m) = message(&v);
        assert_eq!(t, "Degraded");
        assert_eq!(
            m,
            "1/2 nodes failed to configure; conflicts with policy b on interface eth1 key mtu (1 node)"
        );
    }

    #[test]
    fn the_enactment_object_is_named_node_dot_policy_and_owned_by_the_node() {
        let p = nncp("vlan", &[], iface("eth1", 9000));
        let e = enactment_object(&node("w0", "worker"), &p, Vec::new());
        assert_eq!(e.metadata.name.as_deref(), Some("w0.vlan"));
        assert_eq!(
            e.metadata.labels.as_ref().unwrap()[ENACTMENT_POLICY_LABEL],
            "vlan"
        );
        assert_eq!(
            e.metadata.owner_references.as_ref().unwrap()[0].uid,
            "uid-w0"
        );
        assert_eq!(e.status.policy_generation, Some(1));
        assert_eq!(e.status.desired_state, p.desired().cloned());
    }
}
