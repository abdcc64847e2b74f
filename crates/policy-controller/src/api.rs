//! The objects the controller reads and writes, as serde types.
//!
//! NodeNetworkConfigurationPolicy and NodeNetworkConfigurationEnactment follow
//! kubernetes-nmstate's API field for field (`nmstate.io`, cluster-scoped), so its manifests and
//! `oc get nncp`/`oc get nnce` work unchanged. MachineConfig and MachineConfigPool carry only the
//! fields the controller uses; unknown fields are ignored when reading, so MCO's full objects
//! parse. `kube::Resource` is implemented by hand rather than derived: kube's derive requires a
//! `spec`, which kubernetes-nmstate's schema leaves optional and the enactment does not have.
//!
//! The policy and enactment types derive their OpenAPI schema ([`crate::crd`] builds the
//! CustomResourceDefinitions from it); doc comments on them become the schema's descriptions.

use std::borrow::Cow;
use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::schema;

/// kubernetes-nmstate's API group.
pub const NMSTATE_GROUP: &str = "nmstate.io";
/// The policy versions kubernetes-nmstate serves (v1 stored, v1beta1 deprecated; same schema).
pub const POLICY_API_VERSIONS: [&str; 2] = ["nmstate.io/v1", "nmstate.io/v1beta1"];
/// MCO's API group and version for MachineConfigs and pools.
pub const MCO_API_VERSION: &str = "machineconfiguration.openshift.io/v1";
/// The label MCO's pools select MachineConfigs by.
pub const ROLE_LABEL: &str = "machineconfiguration.openshift.io/role";
/// Enactment labels kubernetes-nmstate sets, so `oc get nnce -l nmstate.io/policy=X` works.
pub const ENACTMENT_POLICY_LABEL: &str = "nmstate.io/policy";
pub const ENACTMENT_NODE_LABEL: &str = "nmstate.io/node";

/// One entry of `status.conditions`, as kubernetes-nmstate writes it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "schema::date_time")]
    pub last_heartbeat_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "schema::date_time")]
    pub last_transition_time: Option<Time>,
}

/// A NodeNetworkConfigurationPolicy: the NMState its nodes should have, and which nodes.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct NodeNetworkConfigurationPolicy {
    #[serde(rename = "apiVersion", default)]
    #[schemars(schema_with = "schema::api_version")]
    pub api_version: String,
    #[serde(default)]
    #[schemars(schema_with = "schema::kind")]
    pub kind: String,
    #[serde(default)]
    #[schemars(schema_with = "schema::object")]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: PolicySpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<PolicyStatus>,
}

/// Which nodes, and the NMState they should have.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicySpec {
    /// Node labels, all of which a node must carry (exact matches, no expressions); empty
    /// selects every node of every pool.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(schema_with = "schema::node_selector")]
    pub node_selector: BTreeMap<String, String>,
    /// kubernetes-nmstate's per-node templating: a policy that uses it is refused here.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub capture: BTreeMap<String, String>,
    /// The NMState to apply on the selected nodes (checked by nmstate's own parser).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "schema::preserved_object")]
    pub desired_state: Option<Value>,
    /// Accepted and ignored: the MachineConfigPool's own maxUnavailable paces the roll-out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "schema::int_or_string")]
    pub max_unavailable: Option<IntOrString>,
}

/// The policy's outcome over all the nodes it selects.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyStatus {
    /// Available, Degraded, Progressing and Ignored, with "N/M nodes ..." messages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// kubernetes-nmstate's handler lock bookkeeping; never written here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable_node_count: Option<i64>,
    /// kubernetes-nmstate's handler lock bookkeeping, per policy generation; never written here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable_node_count_map: Option<BTreeMap<String, i64>>,
    /// kubernetes-nmstate's handler lock bookkeeping; never written here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "schema::date_time")]
    pub last_unavailable_node_count_update: Option<Time>,
}

/// A NodeNetworkConfigurationEnactment `<node>.<policy>`: one policy's outcome on one node.
// kubernetes-nmstate's schema keeps unknown fields at the top of an enactment; so does ours.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))]
pub struct NodeNetworkConfigurationEnactment {
    #[serde(rename = "apiVersion", default)]
    #[schemars(schema_with = "schema::api_version")]
    pub api_version: String,
    #[serde(default)]
    #[schemars(schema_with = "schema::kind")]
    pub kind: String,
    #[serde(default)]
    #[schemars(schema_with = "schema::object")]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub status: EnactmentStatus,
}

/// The policy's outcome on this node.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnactmentStatus {
    /// The state kubernetes-nmstate's handler rendered for the node; not written here (the
    /// policy's own desiredState is what the node applies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "schema::preserved_object")]
    pub desired_state: Option<Value>,
    /// When and by which version the desired state was rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desired_state_meta_info: Option<EnactmentMetaInfo>,
    /// kubernetes-nmstate's resolved captures; never written here (capture is refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "schema::captured_states")]
    pub captured_states: Option<BTreeMap<String, Value>>,
    /// The policy's generation this status is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_generation: Option<i64>,
    /// Pending, Progressing, Available, Failing or Aborted, with the node's reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// NMState features the desired state uses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub features: Option<Vec<String>>,
    /// kubernetes-nmstate's handler retries; never written here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_count: Option<BTreeMap<String, i64>>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EnactmentMetaInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "schema::date_time")]
    pub time: Option<Time>,
}

/// MCO's MachineConfig, reduced to its Ignition files.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineConfig {
    #[serde(rename = "apiVersion", default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: MachineConfigSpec,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineConfigSpec {
    #[serde(default)]
    pub config: IgnitionConfig,
}

/// An Ignition 3.x config with files only.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IgnitionConfig {
    #[serde(default)]
    pub ignition: IgnitionVersion,
    #[serde(default)]
    pub storage: Storage,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IgnitionVersion {
    #[serde(default)]
    pub version: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Storage {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<IgnitionFile>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IgnitionFile {
    pub path: String,
    /// Decimal, as Ignition's JSON has it (0o600 = 384).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overwrite: Option<bool>,
    #[serde(default)]
    pub contents: FileContents,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FileContents {
    /// A data URL (`data:;base64,...` here; MCO's own files also use `data:,` percent-encoded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// MCO's MachineConfigPool: which nodes it holds, and whether its roll-out has stopped.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MachineConfigPool {
    #[serde(rename = "apiVersion", default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: PoolSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<PoolStatus>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<LabelSelector>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolStatus {
    #[serde(default)]
    pub degraded_machine_count: i64,
}

impl MachineConfigPool {
    /// MCO updates no further node of a pool that has a degraded one: the roll-out stopped.
    pub fn rollout_stopped(&self) -> bool {
        self.status
            .as_ref()
            .is_some_and(|s| s.degraded_machine_count > 0)
    }
}

/// Implements `kube::Resource` for a cluster-scoped type with `metadata: ObjectMeta`.
macro_rules! cluster_resource {
    ($ty:ty, $group:expr, $version:expr, $kind:expr, $plural:expr) => {
        impl kube::Resource for $ty {
            type DynamicType = ();
            type Scope = kube::core::ClusterResourceScope;

            fn kind(_: &()) -> Cow<'_, str> {
                Cow::Borrowed($kind)
            }
            fn group(_: &()) -> Cow<'_, str> {
                Cow::Borrowed($group)
            }
            fn version(_: &()) -> Cow<'_, str> {
                Cow::Borrowed($version)
            }
            fn plural(_: &()) -> Cow<'_, str> {
                Cow::Borrowed($plural)
            }
            fn meta(&self) -> &ObjectMeta {
                &self.metadata
            }
            fn meta_mut(&mut self) -> &mut ObjectMeta {
                &mut self.metadata
            }
        }
    };
}

const MCO_GROUP: &str = "machineconfiguration.openshift.io";

cluster_resource!(
    NodeNetworkConfigurationPolicy,
    NMSTATE_GROUP,
    "v1",
    "NodeNetworkConfigurationPolicy",
    "nodenetworkconfigurationpolicies"
);
cluster_resource!(
    NodeNetworkConfigurationEnactment,
    NMSTATE_GROUP,
    "v1beta1",
    "NodeNetworkConfigurationEnactment",
    "nodenetworkconfigurationenactments"
);
cluster_resource!(
    MachineConfig,
    MCO_GROUP,
    "v1",
    "MachineConfig",
    "machineconfigs"
);
cluster_resource!(
    MachineConfigPool,
    MCO_GROUP,
    "v1",
    "MachineConfigPool",
    "machineconfigpools"
);

#[cfg(test)]
mod tests {
    use super::*;
    use kube::Resource;

    #[test]
    fn a_kubernetes_nmstate_policy_manifest_parses_field_for_field() {
        let policy: NodeNetworkConfigurationPolicy = serde_json::from_value(serde_json::json!({
            "apiVersion": "nmstate.io/v1",
            "kind": "NodeNetworkConfigurationPolicy",
            "metadata": {"name": "vlan100", "generation": 3},
            "spec": {
                "nodeSelector": {"node-role.kubernetes.io/worker": ""},
                "maxUnavailable": "50%",
                "desiredState": {"interfaces": [{"name": "eth1.100", "type": "vlan"}]}
            },
            "status": {"conditions": [{
                "type": "Available", "status": "True", "reason": "SuccessfullyConfigured",
                "message": "3/3 nodes successfully configured",
                "lastHeartbeatTime": "2026-01-02T03:04:05Z",
                "lastTransitionTime": "2026-01-02T03:04:05Z"
            }], "unavailableNodeCount": 0}
        }))
        .unwrap();
        assert_eq!(
            policy.spec.node_selector["node-role.kubernetes.io/worker"],
            ""
        );
        assert_eq!(
            policy.spec.max_unavailable,
            Some(IntOrString::String("50%".into()))
        );
        let status = policy.status.unwrap();
        assert_eq!(status.conditions[0].reason, "SuccessfullyConfigured");
        assert!(status.conditions[0].last_transition_time.is_some());
    }

    #[test]
    fn the_api_paths_are_kubernetes_nmstates_and_mcos() {
        assert_eq!(
            NodeNetworkConfigurationPolicy::url_path(&(), None),
            "/apis/nmstate.io/v1/nodenetworkconfigurationpolicies"
        );
        assert_eq!(
            NodeNetworkConfigurationEnactment::api_version(&()),
            "nmstate.io/v1beta1"
        );
        assert_eq!(
            MachineConfig::url_path(&(), None),
            "/apis/machineconfiguration.openshift.io/v1/machineconfigs"
        );
    }

    #[test]
    fn a_pool_with_a_degraded_machine_has_stopped_its_roll_out() {
        let mut pool = MachineConfigPool::default();
        assert!(!pool.rollout_stopped());
        pool.status = Some(PoolStatus {
            degraded_machine_count: 1,
        });
        assert!(pool.rollout_stopped());
    }
}
