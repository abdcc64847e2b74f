//! One pool's MachineConfig: each policy's state once, and each node's list of policies.
//!
//! The files (Ignition, mode 0600 since NMState may carry credentials, overwrite on):
//! - `/etc/nmstate/openshift/policies/<policy>.yml`: the policy's `desiredState`, as YAML with
//!   sorted keys, for every policy that applies to at least one node of the pool;
//! - `/etc/nmstate/openshift/policies/nodes/<node>`: the names of the policies that apply to
//!   that node, one per line, in merge order; only for nodes with at least one.
//!
//! Bytes are deterministic: the same policies, pools and nodes render the same object, so the
//! runtime can compare and write nothing on a resync.

use std::collections::BTreeMap;

use base64::Engine;
use serde_json::Value;

use crate::api::{
    FileContents, IgnitionConfig, IgnitionFile, IgnitionVersion, MCO_API_VERSION, MachineConfig,
    MachineConfigSpec, ROLE_LABEL, Storage,
};

/// The directory of policy state files; under `/etc/nmstate/openshift`, so MCO's
/// node-disruption policy for that directory restarts `nmstate-configuration-live.service`.
pub const POLICY_DIR: &str = "/etc/nmstate/openshift/policies";
/// The directory of per-node policy lists.
pub const NODE_DIR: &str = "/etc/nmstate/openshift/policies/nodes";
/// Marks the MachineConfigs this controller owns (both kinds are cluster-scoped, so an owner
/// reference to one policy would not fit a MachineConfig that carries many).
pub const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";
pub const MANAGED_BY: &str = "onprem-policy-controller";
/// The largest MachineConfig written, as JSON: well under etcd's ~1.5 MB per object, leaving
/// room for metadata and managed fields.
pub const SIZE_LIMIT: usize = 1 << 20;
/// The Ignition spec version of the rendered config (files only; every MCO 4.x accepts it).
const IGNITION_VERSION: &str = "3.2.0";
/// rw for root only.
const FILE_MODE: u32 = 0o600;

/// The MachineConfig name for a pool: after MCO's own `00-`/`01-` configs, before the usual
/// `99-` user ones.
pub fn name_for(pool: &str) -> String {
    format!("50-{pool}-nmstate-policies")
}

/// The path of a policy's state file.
pub fn policy_path(policy: &str) -> String {
    format!("{POLICY_DIR}/{policy}.yml")
}

/// The path of a node's policy list.
pub fn node_path(node: &str) -> String {
    format!("{NODE_DIR}/{node}")
}

/// What goes into one pool's MachineConfig.
pub struct PoolContent<'a> {
    pub pool: &'a str,
    /// Node name -> the policies that apply to it, in merge order.
    pub lists: BTreeMap<&'a str, Vec<&'a str>>,
    /// Policy name -> its (canonical) desired state.
    pub states: BTreeMap<&'a str, &'a Value>,
}

/// The MachineConfig for the content, as the controller writes it.
pub fn machine_config(content: &PoolContent) -> Result<MachineConfig, RenderError> {
    let mut files = Vec::with_capacity(content.states.len() + content.lists.len());
    for (policy, state) in &content.states {
        let yaml = serde_saphyr::to_string(state).map_err(|e| RenderError::Yaml {
            policy: policy.to_string(),
            message: e.to_string(),
        })?;
        files.push(file(policy_path(policy), yaml.as_bytes()));
    }
    for (node, policies) in &content.lists {
        let mut text = policies.join("\n");
        text.push('\n');
        files.push(file(node_path(node), text.as_bytes()));
    }
    let mut mc = MachineConfig {
        api_version: MCO_API_VERSION.into(),
        kind: "MachineConfig".into(),
        spec: MachineConfigSpec {
            config: IgnitionConfig {
                ignition: IgnitionVersion {
                    version: IGNITION_VERSION.into(),
                },
                storage: Storage { files },
            },
        },
        ..MachineConfig::default()
    };
    mc.metadata.name = Some(name_for(content.pool));
    mc.metadata.labels = Some(BTreeMap::from([
        (ROLE_LABEL.to_owned(), content.pool.to_owned()),
        (MANAGED_BY_LABEL.to_owned(), MANAGED_BY.to_owned()),
    ]));
    Ok(mc)
}

fn file(path: String, bytes: &[u8]) -> IgnitionFile {
    IgnitionFile {
        path,
        mode: Some(FILE_MODE),
        overwrite: Some(true),
        contents: FileContents {
            source: Some(data_url(bytes)),
        },
    }
}

fn data_url(bytes: &[u8]) -> String {
    format!(
        "data:;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// The body the controller sends: the object as compact JSON.
pub fn to_json(mc: &MachineConfig) -> Result<Vec<u8>, RenderError> {
    serde_json::to_vec(mc).map_err(|e| RenderError::Json(e.to_string()))
}

/// The policies to leave out of a pool's MachineConfig so that it fits, largest share first
/// (ties by name), given its size as rendered.
pub fn too_large<'a>(content: &PoolContent<'a>, size: usize) -> Vec<&'a str> {
    let mut shares: Vec<(usize, &str)> = content
        .states
        .iter()
        .map(|(p, state)| (share(content, p, state), *p))
        .collect();
    shares.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let mut left = size;
    let mut dropped = Vec::new();
    for (bytes, policy) in shares {
        if left <= SIZE_LIMIT {
            break;
        }
        left = left.saturating_sub(bytes);
        dropped.push(policy);
    }
    dropped
}

/// About what one policy adds to the JSON: its file entry, and its name in each node's list
/// (base64 makes 4 bytes of 3).
fn share(content: &PoolContent, policy: &str, state: &Value) -> usize {
    let entry = serde_json::to_vec(&file(policy_path(policy), state.to_string().as_bytes()))
        .map_or(0, |v| v.len());
    let listed = content
        .lists
        .values()
        .filter(|l| l.contains(&policy))
        .count();
    entry + listed * (policy.len() + 1) * 4 / 3
}

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("cannot write policy {policy} as YAML: {message}")]
    Yaml { policy: String, message: String },
    #[error("cannot write the MachineConfig as JSON: {0}")]
    Json(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decode(source: &str) -> String {
        let b64 = source.strip_prefix("data:;base64,").unwrap();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap();
        String::from_utf8(bytes).unwrap()
    }

    fn content<'a>(state: &'a Value, nodes: &[&'a str]) -> PoolContent<'a> {
        PoolContent {
            pool: "worker",
            lists: nodes.iter().map(|n| (*n, vec!["vlan"])).collect(),
            states: BTreeMap::from([("vlan", state)]),
        }
    }

    #[test]
    fn a_policy_on_many_nodes_is_carried_once_with_a_list_per_node() {
        let state = json!({"interfaces": [{"name": "eth1.100", "type": "vlan"}]});
        let mc = machine_config(&content(&state, &["w0", "w1", "w2"])).unwrap();
        let files = &mc.spec.config.storage.files;
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/etc/nmstate/openshift/policies/vlan.yml",
                "/etc/nmstate/openshift/policies/nodes/w0",
                "/etc/nmstate/openshift/policies/nodes/w1",
                "/etc/nmstate/openshift/policies/nodes/w2",
            ]
        );
        assert_eq!(
            decode(files[1].contents.source.as_deref().unwrap()),
            "vlan\n"
        );
        assert_eq!(files[0].mode, Some(384));
    }

    #[test]
    fn the_state_file_is_yaml_that_reads_back_as_the_policys_state() {
        let state = json!({"interfaces": [{"name": "eth1", "mtu": 9000, "description": "yes",
            "ipv4": {"enabled": true, "address": [{"ip": "192.0.2.5", "prefix-length": 24}]}}]});
        let mc = machine_config(&content(&state, &["w0"])).unwrap();
        let yaml = decode(
            mc.spec.config.storage.files[0]
                .contents
                .source
                .as_deref()
                .unwrap(),
        );
        let back: Value = serde_saphyr::from_str(&yaml).unwrap();
        assert_eq!(back, state);
    }

    #[test]
    fn the_machine_config_is_named_labelled_and_owned_for_its_pool() {
        let state = json!({});
        let mc = machine_config(&content(&state, &["w0"])).unwrap();
        assert_eq!(
            mc.metadata.name.as_deref(),
            Some("50-worker-nmstate-policies")
        );
        let labels = mc.metadata.labels.unwrap();
        assert_eq!(labels[ROLE_LABEL], "worker");
        assert_eq!(labels[MANAGED_BY_LABEL], MANAGED_BY);
        assert_eq!(mc.api_version, "machineconfiguration.openshift.io/v1");
    }

    #[test]
    fn rendering_twice_gives_identical_bytes() {
        let state = json!({"interfaces": [{"name": "eth1", "mtu": 9000}]});
        let a = to_json(&machine_config(&content(&state, &["w1", "w0"])).unwrap()).unwrap();
        let b = to_json(&machine_config(&content(&state, &["w0", "w1"])).unwrap()).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn the_largest_share_is_left_out_first_until_it_fits() {
        let big = json!({"description": "x".repeat(SIZE_LIMIT)});
        let small = json!({"description": "y"});
        let c = PoolContent {
            pool: "worker",
            lists: BTreeMap::from([("w0", vec!["big", "small"])]),
            states: BTreeMap::from([("big", &big), ("small", &small)]),
        };
        let size = to_json(&machine_config(&c).unwrap()).unwrap().len();
        assert!(size > SIZE_LIMIT);
        assert_eq!(too_large(&c, size), ["big"]);
        assert!(too_large(&c, SIZE_LIMIT).is_empty());
    }
}
