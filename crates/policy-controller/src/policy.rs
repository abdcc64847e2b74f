//! A policy as the core sees it: its name, its node selector, and either its desired state
//! (checked by nmstate's parser, keys sorted) or why it is refused. A refused policy is reported
//! Degraded with that reason and contributes nothing to any MachineConfig.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::api::{NodeNetworkConfigurationPolicy, POLICY_API_VERSIONS};

/// Why a policy is not rendered at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("unknown apiVersion {0:?} (served: nmstate.io/v1, nmstate.io/v1beta1)")]
    ApiVersion(String),
    #[error("name {0:?} is not a DNS subdomain")]
    Name(String),
    #[error(
        "spec.capture ({0}) is not supported: state is the same on every node the policy selects"
    )]
    Capture(String),
    #[error("spec.desiredState is missing")]
    Missing,
    #[error("spec.desiredState is not an object")]
    NotAnObject,
    #[error("spec.desiredState is not valid NMState: {0}")]
    Nmstate(String),
}

/// A validated policy.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    pub name: String,
    pub generation: Option<i64>,
    pub node_selector: BTreeMap<String, String>,
    pub state: Result<Value, Refusal>,
}

impl Policy {
    /// Checks what the API server does not: the version, `capture`, and the state's NMState
    /// schema. The state's keys are sorted so that everything rendered from it is deterministic
    /// whichever way serde_json's maps are built.
    pub fn from_nncp(nncp: &NodeNetworkConfigurationPolicy) -> Policy {
        let name = nncp.metadata.name.clone().unwrap_or_default();
        Policy {
            state: check(nncp, &name),
            generation: nncp.metadata.generation,
            node_selector: nncp.spec.node_selector.clone(),
            name,
        }
    }

    /// The desired state, when the policy is not refused.
    pub fn desired(&self) -> Option<&Value> {
        self.state.as_ref().ok()
    }
}

fn check(nncp: &NodeNetworkConfigurationPolicy, name: &str) -> Result<Value, Refusal> {
    // Objects read from the API always carry their version; files may leave it out.
    let version = nncp.api_version.as_str();
    if !version.is_empty() && !POLICY_API_VERSIONS.contains(&version) {
        return Err(Refusal::ApiVersion(version.to_owned()));
    }
    if !is_dns_subdomain(name) {
        return Err(Refusal::Name(name.to_owned()));
    }
    if !nncp.spec.capture.is_empty() {
        let names: Vec<&str> = nncp.spec.capture.keys().map(String::as_str).collect();
        return Err(Refusal::Capture(names.join(", ")));
    }
    let state = nncp.spec.desired_state.as_ref().ok_or(Refusal::Missing)?;
    if !state.is_object() {
        return Err(Refusal::NotAnObject);
    }
    serde_json::from_value::<nmstate::NetworkState>(state.clone())
        .map_err(|e| Refusal::Nmstate(e.to_string()))?;
    Ok(canonical(state))
}

/// A copy with every object's keys in ascending order.
pub fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let sorted: Map<String, Value> = keys
                .into_iter()
                .map(|k| (k.clone(), canonical(&map[k])))
                .collect();
            Value::Object(sorted)
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// Kubernetes object names of cluster-scoped kinds (RFC 1123 subdomain): also safe as file
/// names on the node.
pub fn is_dns_subdomain(name: &str) -> bool {
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    name.len() <= 253 && name.split('.').all(label_ok)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    pub(crate) fn nncp(name: &str, selector: &[(&str, &str)], state: Value) -> Policy {
        Policy::from_nncp(&raw(name, selector, state))
    }

    pub(crate) fn raw(
        name: &str,
        selector: &[(&str, &str)],
        state: Value,
    ) -> NodeNetworkConfigurationPolicy {
        let mut p = NodeNetworkConfigurationPolicy {
            api_version: "nmstate.io/v1".into(),
            ..Default::default()
        };
        p.metadata.name = Some(name.into());
        p.metadata.generation = Some(1);
        p.spec.node_selector = selector
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        p.spec.desired_state = Some(state);
        p
    }

    fn vlan() -> Value {
        json!({"interfaces": [{"name": "eth1.100", "type": "vlan", "state": "up",
            "vlan": {"base-iface": "eth1", "id": 100}}]})
    }

    #[test]
    fn a_valid_policy_keeps_its_state_with_sorted_keys() {
        let p = nncp("vlan", &[], vlan());
        let text = serde_json::to_string(p.desired().unwrap()).unwrap();
        assert!(text.starts_with(r#"{"interfaces":[{"name":"eth1.100","state":"up","#));
    }

    #[test]
    fn capture_is_refused_naming_the_captures() {
        let mut raw = raw("c", &[], vlan());
        raw.spec
            .capture
            .insert("gw".into(), "routes.running".into());
        let p = Policy::from_nncp(&raw);
        assert_eq!(p.state, Err(Refusal::Capture("gw".into())));
    }

    #[test]
    fn an_unknown_api_version_is_refused() {
        let mut raw = raw("v", &[], vlan());
        raw.api_version = "nmstate.io/v2".into();
        let e = Policy::from_nncp(&raw).state.unwrap_err();
        assert!(e.to_string().contains("\"nmstate.io/v2\""), "{e}");
    }

    #[test]
    fn a_state_nmstate_refuses_is_refused_with_nmstates_words() {
        let p = nncp("bad", &[], json!({"interfacez": []}));
        let e = p.state.unwrap_err().to_string();
        assert!(e.contains("interfacez"), "{e}");
        let p = nncp("list", &[], json!([1]));
        assert_eq!(p.state, Err(Refusal::NotAnObject));
        let mut raw = raw("none", &[], json!({}));
        raw.spec.desired_state = None;
        assert_eq!(Policy::from_nncp(&raw).state, Err(Refusal::Missing));
    }

    #[test]
    fn names_that_could_escape_a_directory_are_refused() {
        assert!(is_dns_subdomain("worker-0.example.com"));
        for bad in ["", "../x", "a/b", "A", "-a", "a..b"] {
            assert!(!is_dns_subdomain(bad), "{bad}");
        }
        let p = nncp("../etc", &[], vlan());
        assert_eq!(p.state, Err(Refusal::Name("../etc".into())));
    }
}
