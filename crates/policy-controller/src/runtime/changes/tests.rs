use super::*;
use crate::rollout::{CURRENT_CONFIG, DESIRED_CONFIG, STATE};
use serde_json::json;

/// A snapshot's lists hold references to the stores' objects.
fn refs<T>(v: &[T]) -> Vec<&T> {
    v.iter().collect()
}

fn t(second: i64) -> Time {
    Time(k8s_openapi::jiff::Timestamp::from_second(second).unwrap())
}

fn policy() -> NodeNetworkConfigurationPolicy {
    serde_json::from_value(json!({"apiVersion": "nmstate.io/v1",
        "kind": "NodeNetworkConfigurationPolicy",
        "metadata": {"name": "jumbo", "generation": 1, "resourceVersion": "5"},
        "spec": {"desiredState": {"interfaces": [{"name": "eth1", "type": "ethernet", "mtu": 9000}]}}}))
    .unwrap()
}

fn pool() -> MachineConfigPool {
    serde_json::from_value(json!({"metadata": {"name": "worker"},
        "spec": {"nodeSelector": {"matchLabels": {"node-role.kubernetes.io/worker": ""}}}}))
    .unwrap()
}

fn node(annotations: &[(&str, &str)]) -> ObjectMeta {
    serde_json::from_value(json!({"name": "w0", "uid": "u0",
        "labels": {"node-role.kubernetes.io/worker": ""},
        "annotations": annotations.iter().map(|(k, v)| (k.to_string(), json!(v)))
            .collect::<serde_json::Map<_, _>>()}))
    .unwrap()
}

/// What the API holds after the writes (resourceVersions aside).
fn stored(
    w: &Writes,
) -> (
    Vec<MachineConfig>,
    Vec<NodeNetworkConfigurationEnactment>,
    Vec<NodeNetworkConfigurationPolicy>,
) {
    (
        w.machine_configs.clone(),
        w.enactments.clone(),
        w.policy_status.clone(),
    )
}

#[test]
fn an_empty_api_gets_everything_once_and_a_resync_then_writes_nothing() {
    let (policies, pools, nodes) = ([policy()], [pool()], [node(&[])]);
    let rendered = BTreeMap::new();
    let empty = Snapshot {
        policies: &refs(&policies),
        pools: &pools,
        nodes: &refs(&nodes),
        owned: &[],
        enactments: &[],
        rendered: &rendered,
        node_events: &[],
    };
    let (_, first) = changes(&empty, &t(10)).unwrap();
    assert_eq!(
        (
            first.machine_configs.len(),
            first.enactments.len(),
            first.policy_status.len()
        ),
        (1, 1, 1)
    );
    let (owned, enactments, policies) = stored(&first);
    let after = Snapshot {
        policies: &refs(&policies),
        pools: &pools,
        nodes: &refs(&nodes),
        owned: &refs(&owned),
        enactments: &refs(&enactments),
        rendered: &rendered,
        node_events: &[],
    };
    let (_, again) = changes(&after, &t(20)).unwrap();
    assert!(again.is_empty(), "{again:?}");
}

#[test]
fn an_owned_machine_config_no_policy_needs_is_deleted() {
    let (pools, nodes) = ([pool()], [node(&[])]);
    let (_, first) = changes(
        &Snapshot {
            policies: &refs(&[policy()]),
            pools: &pools,
            nodes: &refs(&nodes),
            owned: &[],
            enactments: &[],
            rendered: &BTreeMap::new(),
            node_events: &[],
        },
        &t(1),
    )
    .unwrap();
    let mut owned = first.machine_configs.clone();
    owned[0].metadata.resource_version = Some("7".into());
    let (_, w) = changes(
        &Snapshot {
            policies: &[],
            pools: &pools,
            nodes: &refs(&nodes),
            owned: &refs(&owned),
            enactments: &refs(&first.enactments),
            rendered: &BTreeMap::new(),
            node_events: &[],
        },
        &t(2),
    )
    .unwrap();
    assert_eq!(
        w.delete_machine_configs,
        [(
            "50-worker-nmstate-policies".to_owned(),
            Some("7".to_owned())
        )]
    );
    assert_eq!(w.delete_enactments, ["w0.jumbo"]);
}

#[test]
fn a_node_done_on_a_rendered_config_carrying_the_policy_is_available() {
    let (policies, pools) = ([policy()], [pool()]);
    let plain = [node(&[])];
    let (_, first) = changes(
        &Snapshot {
            policies: &refs(&policies),
            pools: &pools,
            nodes: &refs(&plain),
            owned: &[],
            enactments: &[],
            rendered: &BTreeMap::new(),
            node_events: &[],
        },
        &t(1),
    )
    .unwrap();
    let rendered = BTreeMap::from([(
        "rendered-worker-1".to_owned(),
        first.machine_configs[0].clone(),
    )]);
    let done = [node(&[
        (CURRENT_CONFIG, "rendered-worker-1"),
        (DESIRED_CONFIG, "rendered-worker-1"),
        (STATE, "Done"),
    ])];
    let (_, w) = changes(
        &Snapshot {
            policies: &refs(&policies),
            pools: &pools,
            nodes: &refs(&done),
            owned: &refs(&first.machine_configs),
            enactments: &[],
            rendered: &rendered,
            node_events: &[],
        },
        &t(2),
    )
    .unwrap();
    let on = |c: &[crate::api::Condition]| {
        c.iter()
            .find(|c| c.status == "True")
            .map(|c| (c.type_.clone(), c.message.clone()))
    };
    assert_eq!(
        on(&w.enactments[0].status.conditions).unwrap().0,
        "Available"
    );
    let status = w.policy_status[0].status.as_ref().unwrap();
    assert_eq!(
        on(&status.conditions),
        Some((
            "Available".into(),
            "1/1 nodes successfully configured".into()
        ))
    );
}
