//! The slice of a Node object the peer source keeps. A real Node carries kilobytes the monitor
//! never reads (images, conditions, managed fields, OVN's other annotations); deserializing
//! whole `k8s_openapi` Nodes for a 5,000-node watch cost megabytes of RSS. This type reads only
//! the name, resource version, role labels, the MCO and OVN annotations used, the InternalIPs
//! and the kubelet version; serde skips the rest without keeping it.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Deserialize;

/// Labels that decide a node's role.
pub const MASTER_LABEL: &str = "node-role.kubernetes.io/master";
pub const ARBITER_LABEL: &str = "node-role.kubernetes.io/arbiter";
/// Annotations a peer reads.
pub const MCO_STATE: &str = "machineconfiguration.openshift.io/state";
pub const MCO_CURRENT: &str = "machineconfiguration.openshift.io/currentConfig";
pub const MCO_DESIRED: &str = "machineconfiguration.openshift.io/desiredConfig";
pub const HOST_CIDRS: &str = "k8s.ovn.org/host-cidrs";
pub const HOST_ADDRESSES: &str = "k8s.ovn.org/host-addresses";
const KEPT_LABELS: [&str; 2] = [MASTER_LABEL, ARBITER_LABEL];
const KEPT_ANNOTATIONS: [&str; 5] = [
    MCO_STATE,
    MCO_CURRENT,
    MCO_DESIRED,
    HOST_CIDRS,
    HOST_ADDRESSES,
];

/// A Node as the peer source sees it (`metadata` holds only the name, resource version and the
/// kept labels and annotations).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(from = "Wire")]
pub struct NodeView {
    pub metadata: ObjectMeta,
    /// `status.addresses` of type InternalIP, in order.
    pub internal_ips: Vec<String>,
    pub kubelet_version: Option<String>,
}

impl NodeView {
    pub fn label(&self, key: &str) -> bool {
        self.metadata
            .labels
            .as_ref()
            .is_some_and(|l| l.contains_key(key))
    }

    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.metadata
            .annotations
            .as_ref()?
            .get(key)
            .map(String::as_str)
    }
}

#[derive(Deserialize)]
struct Wire {
    #[serde(default)]
    metadata: WireMeta,
    #[serde(default)]
    status: WireStatus,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireMeta {
    name: Option<String>,
    resource_version: Option<String>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    annotations: BTreeMap<String, String>,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireStatus {
    #[serde(default)]
    addresses: Vec<WireAddress>,
    node_info: Option<WireNodeInfo>,
}

#[derive(Deserialize)]
struct WireAddress {
    #[serde(rename = "type")]
    type_: String,
    address: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireNodeInfo {
    kubelet_version: String,
}

impl From<Wire> for NodeView {
    fn from(w: Wire) -> NodeView {
        let keep = |map: BTreeMap<String, String>, keys: &[&str]| -> Option<BTreeMap<_, _>> {
            let kept: BTreeMap<_, _> = map
                .into_iter()
                .filter(|(k, _)| keys.contains(&k.as_str()))
                .collect();
            (!kept.is_empty()).then_some(kept)
        };
        NodeView {
            metadata: ObjectMeta {
                name: w.metadata.name,
                resource_version: w.metadata.resource_version,
                labels: keep(w.metadata.labels, &KEPT_LABELS),
                annotations: keep(w.metadata.annotations, &KEPT_ANNOTATIONS),
                ..ObjectMeta::default()
            },
            internal_ips: w
                .status
                .addresses
                .into_iter()
                .filter(|a| a.type_ == "InternalIP")
                .map(|a| a.address)
                .collect(),
            kubelet_version: w.status.node_info.map(|i| i.kubelet_version),
        }
    }
}

impl k8s_openapi::Resource for NodeView {
    const API_VERSION: &'static str = "v1";
    const GROUP: &'static str = "";
    const KIND: &'static str = "Node";
    const VERSION: &'static str = "v1";
    const URL_PATH_SEGMENT: &'static str = "nodes";
    type Scope = k8s_openapi::ClusterResourceScope;
}

impl k8s_openapi::ListableResource for NodeView {
    const LIST_KIND: &'static str = "NodeList";
}

impl k8s_openapi::Metadata for NodeView {
    type Ty = ObjectMeta;

    fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_used_parts_of_a_node_are_kept() {
        let n: NodeView = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "m0", "resourceVersion": "42", "uid": "u",
                "labels": {MASTER_LABEL: "", "kubernetes.io/hostname": "m0"},
                "annotations": {MCO_STATE: "Done", "k8s.ovn.org/node-subnets": "{\"default\":[]}"},
                "managedFields": [{"manager": "kubelet", "fieldsV1": {"f:status": {}}}]},
            "spec": {"podCIDR": "10.128.0.0/23"},
            "status": {"addresses": [{"type": "InternalIP", "address": "192.0.2.10"},
                                     {"type": "Hostname", "address": "m0"},
                                     {"type": "InternalIP", "address": "2001:db8::10"}],
                       "images": [{"names": ["quay.io/x"], "sizeBytes": 1}],
                       "nodeInfo": {"kubeletVersion": "v1.34.1", "osImage": "RHCOS"}}
        }))
        .unwrap();
        assert_eq!(n.metadata.name.as_deref(), Some("m0"));
        assert_eq!(n.metadata.resource_version.as_deref(), Some("42"));
        assert!(n.label(MASTER_LABEL));
        assert_eq!(n.metadata.labels.as_ref().unwrap().len(), 1);
        assert_eq!(n.annotation(MCO_STATE), Some("Done"));
        assert_eq!(n.metadata.annotations.as_ref().unwrap().len(), 1);
        assert!(n.metadata.managed_fields.is_none());
        assert_eq!(n.internal_ips, ["192.0.2.10", "2001:db8::10"]);
        assert_eq!(n.kubelet_version.as_deref(), Some("v1.34.1"));
        let bare: NodeView = serde_json::from_value(serde_json::json!({})).unwrap();
        assert_eq!(bare.metadata.name, None);
        assert!(bare.internal_ips.is_empty());
    }
}
