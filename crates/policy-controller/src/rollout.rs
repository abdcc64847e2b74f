//! What MCO says about one node's roll-out, read from the Node's annotations and from the
//! rendered configs those annotations name.
//!
//! MCO's daemon keeps four annotations on each Node: `currentConfig` and `desiredConfig` (names
//! of rendered MachineConfigs), `state` (`Done`, `Working`, `Degraded`, `Unreconcilable`) and
//! `reason` (why it is degraded). Whether a rendered config carries a policy for a node is
//! decided from its files: it carries the node's list and the policy's state file exactly as
//! this controller renders them now. A change to another node's list or another policy's file
//! therefore does not make this node's enactment look pending.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;

use crate::api::MachineConfig;
use crate::render;

pub const CURRENT_CONFIG: &str = "machineconfiguration.openshift.io/currentConfig";
pub const DESIRED_CONFIG: &str = "machineconfiguration.openshift.io/desiredConfig";
pub const STATE: &str = "machineconfiguration.openshift.io/state";
pub const REASON: &str = "machineconfiguration.openshift.io/reason";

/// MCO's daemon state on a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McdState {
    Done,
    Working,
    /// `Degraded` or `Unreconcilable`: the update failed on this node.
    Degraded,
    /// No annotation yet, or a value this controller does not know.
    Unknown,
}

/// The Node's MCO annotations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McoNode<'a> {
    pub current_config: Option<&'a str>,
    pub desired_config: Option<&'a str>,
    pub state: McdState,
    pub reason: &'a str,
}

/// Reads MCO's annotations from a Node's annotation map.
pub fn mco_node(annotations: &BTreeMap<String, String>) -> McoNode<'_> {
    let get = |k: &str| annotations.get(k).map(String::as_str);
    let state = match get(STATE) {
        Some("Done") => McdState::Done,
        Some("Working") => McdState::Working,
        Some("Degraded" | "Unreconcilable") => McdState::Degraded,
        _ => McdState::Unknown,
    };
    McoNode {
        current_config: get(CURRENT_CONFIG),
        desired_config: get(DESIRED_CONFIG),
        state,
        reason: get(REASON).unwrap_or_default(),
    }
}

/// A MachineConfig's files as path -> data URL, built once per rendered config.
pub fn files(mc: &MachineConfig) -> BTreeMap<&str, &str> {
    mc.spec
        .config
        .storage
        .files
        .iter()
        .filter_map(|f| Some((f.path.as_str(), f.contents.source.as_deref()?)))
        .collect()
}

/// The policies, of those given, that `rendered` carries for `node` as `ours` has them.
pub fn carried<'p>(
    rendered: &BTreeMap<&str, &str>,
    ours: &BTreeMap<&str, &str>,
    node: &str,
    policies: impl IntoIterator<Item = &'p str>,
) -> BTreeSet<String> {
    let same = |path: &str| {
        let want = ours.get(path);
        want.is_some() && rendered.get(path) == want
    };
    if !same(&render::node_path(node)) {
        return BTreeSet::new();
    }
    policies
        .into_iter()
        .filter(|p| same(&render::policy_path(p)))
        .map(str::to_owned)
        .collect()
}

/// The controller name of the Events the node's `apply-nmstate --live` records on its Node
/// when it refuses or rolls back a change.
pub const NODE_REPORTER: &str = "ovs-bridge-configurator";

/// The latest Warning Event the node itself recorded on Node `node` since `since` (when the
/// config it failed to apply was rendered), as `<reason>: <note>`.
///
/// MCO's `reason` annotation for a failed Restart action names only the unit ("restarting
/// nmstate-configuration-live.service failed"); the node's own Event says which probe failed
/// after how long, or the guard's or nmstate's error. An Event older than the config cannot be
/// about it (an earlier roll-out's failure).
pub fn node_failure(events: &[&Event], node: &str, since: Option<Timestamp>) -> Option<String> {
    events
        .iter()
        .filter(|e| {
            e.reporting_controller.as_deref() == Some(NODE_REPORTER)
                && e.type_.as_deref() == Some("Warning")
                && e.regarding.as_ref().is_some_and(|r| {
                    r.kind.as_deref() == Some("Node") && r.name.as_deref() == Some(node)
                })
                && since.is_none_or(|t| last_seen(e).is_some_and(|seen| seen >= t))
        })
        .max_by_key(|e| last_seen(e))
        .map(|e| {
            format!(
                "{}: {}",
                e.reason.as_deref().unwrap_or_default(),
                e.note.as_deref().unwrap_or_default()
            )
        })
}

/// When an Event was last observed: its series' last time, else its own time, else its
/// object's creation.
fn last_seen(e: &Event) -> Option<Timestamp> {
    let series = e.series.as_ref().map(|s| s.last_observed_time.0);
    let time = series.or(e.event_time.as_ref().map(|t| t.0));
    time.or(e.metadata.creation_timestamp.as_ref().map(|t| t.0))
}

/// One node's roll-out as the status computation needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRollout {
    pub state: McdState,
    pub reason: String,
    /// The node's own account of its last failure ([`node_failure`]), if it recorded one.
    pub node_failure: Option<String>,
    /// Policies the node's desiredConfig carries for it as rendered now.
    pub desired_carries: BTreeSet<String>,
    /// Policies the node's currentConfig carries for it as rendered now.
    pub current_carries: BTreeSet<String>,
    /// The pool has a degraded node: MCO updates no further node.
    pub pool_stopped: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotations(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn mco_annotations_map_to_the_daemon_state() {
        let a = annotations(&[
            (STATE, "Degraded"),
            (REASON, "failed"),
            (DESIRED_CONFIG, "rendered-worker-2"),
        ]);
        let n = mco_node(&a);
        assert_eq!(n.state, McdState::Degraded);
        assert_eq!(
            (n.reason, n.desired_config),
            ("failed", Some("rendered-worker-2"))
        );
        assert_eq!(
            mco_node(&annotations(&[(STATE, "Unreconcilable")])).state,
            McdState::Degraded
        );
        assert_eq!(mco_node(&annotations(&[])).state, McdState::Unknown);
    }

    fn event(node: &str, controller: &str, type_: &str, at: &str, note: &str) -> Event {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": format!("{node}.{at}"), "namespace": "default"},
            "eventTime": at, "reportingController": controller, "reportingInstance": node,
            "type": type_, "reason": "NMStateRolledBack", "note": note, "action": "Apply",
            "regarding": {"kind": "Node", "name": node, "apiVersion": "v1"}}))
        .unwrap()
    }

    #[test]
    fn the_nodes_latest_own_warning_is_its_failure() {
        let events = [
            event(
                "w0",
                NODE_REPORTER,
                "Warning",
                "2026-11-29T05:00:00.000000Z",
                "older",
            ),
            event(
                "w0",
                NODE_REPORTER,
                "Warning",
                "2026-11-29T05:10:00.000000Z",
                "newest",
            ),
            event(
                "w0",
                "kubelet",
                "Warning",
                "2026-11-29T05:20:00.000000Z",
                "kubelet's",
            ),
            event(
                "w0",
                NODE_REPORTER,
                "Normal",
                "2026-11-29T05:30:00.000000Z",
                "normal",
            ),
            event(
                "w1",
                NODE_REPORTER,
                "Warning",
                "2026-11-29T05:40:00.000000Z",
                "w1's",
            ),
        ];
        let events: Vec<&Event> = events.iter().collect();
        assert_eq!(
            node_failure(&events, "w0", None).as_deref(),
            Some("NMStateRolledBack: newest")
        );
        assert_eq!(node_failure(&events, "w2", None), None);
        // Rendered after the newest: no Event is about that config.
        let later: Timestamp = "2026-11-29T05:15:00Z".parse().unwrap();
        assert_eq!(node_failure(&events, "w0", Some(later)), None);
        let earlier: Timestamp = "2026-11-29T05:05:00Z".parse().unwrap();
        assert!(node_failure(&events, "w0", Some(earlier)).is_some());
    }

    #[test]
    fn a_rendered_config_carries_a_policy_only_with_the_nodes_list_and_its_file_as_ours() {
        let ours = BTreeMap::from([
            (
                "/etc/nmstate/openshift/policies/nodes/w0",
                "data:;base64,YQo=",
            ),
            ("/etc/nmstate/openshift/policies/a.yml", "data:;base64,A"),
            ("/etc/nmstate/openshift/policies/b.yml", "data:;base64,B2"),
        ]);
        let mut rendered = ours.clone();
        rendered.insert("/etc/nmstate/openshift/policies/b.yml", "data:;base64,B1");
        let c = carried(&rendered, &ours, "w0", ["a", "b"]);
        assert_eq!(c, BTreeSet::from(["a".to_owned()]));
        rendered.remove("/etc/nmstate/openshift/policies/nodes/w0");
        assert!(carried(&rendered, &ours, "w0", ["a"]).is_empty());
    }
}
