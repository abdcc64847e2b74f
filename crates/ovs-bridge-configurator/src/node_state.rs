//! The node's network as NMState, for an administrator to look before a live apply: `show`
//! (what kubernetes-nmstate publishes as NodeNetworkState) and `diff` (the part of a desired
//! state that differs from now, i.e. what `apply-live` would change).

use nmstate::{NetworkState, NmstateError};

/// Why the node's network could not be shown or compared.
#[derive(Debug, thiserror::Error)]
pub enum NodeStateError {
    #[error("reading the node's network through nmstate: {0}")]
    Read(NmstateError),
    #[error("writing NMState YAML: {0}")]
    Yaml(serde_yaml::Error),
    #[error("comparing with the node's network: {0}")]
    Diff(NmstateError),
}

/// The node's network now (running state, secrets hidden).
pub async fn current() -> Result<NetworkState, NodeStateError> {
    let mut now = NetworkState::new();
    now.set_include_secrets(false);
    now.retrieve_async().await.map_err(NodeStateError::Read)?;
    Ok(now.clone())
}

/// `state` as NMState YAML.
pub fn to_yaml(state: &NetworkState) -> Result<String, NodeStateError> {
    serde_yaml::to_string(state).map_err(NodeStateError::Yaml)
}

/// `state` as the NodeNetworkState document kubernetes-nmstate publishes for `node`
/// (`status.currentState`, and when it was read as `lastSuccessfulUpdateTime`).
pub fn node_network_state(
    node: &str,
    state: &NetworkState,
    read_at: std::time::SystemTime,
) -> Result<String, NodeStateError> {
    let current = serde_yaml::to_value(state).map_err(NodeStateError::Yaml)?;
    let at = k8s_openapi::jiff::Timestamp::try_from(read_at)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default();
    let doc = serde_yaml::to_value(serde_json::json!({
        "apiVersion": "nmstate.io/v1beta1",
        "kind": "NodeNetworkState",
        "metadata": {"name": node},
        "status": {"lastSuccessfulUpdateTime": at},
    }))
    .map_err(NodeStateError::Yaml)?;
    let mut doc = doc;
    doc["status"]["currentState"] = current;
    serde_yaml::to_string(&doc).map_err(NodeStateError::Yaml)
}

/// What of `desired` differs from `now` (None: applying it would change nothing).
pub fn diff(
    desired: &NetworkState,
    now: &NetworkState,
) -> Result<Option<NetworkState>, NodeStateError> {
    let changed = desired.gen_diff(now).map_err(NodeStateError::Diff)?;
    Ok((!changed.is_empty()).then_some(changed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(yaml: &str) -> NetworkState {
        NetworkState::new_from_yaml(yaml).unwrap()
    }

    const NOW: &str = "interfaces:
- name: ens4
  type: ethernet
  state: up
  mtu: 1500
- name: ens5
  type: ethernet
  state: up
  mtu: 1500
";

    #[test]
    fn only_what_differs_is_shown() {
        let want = state(
            "interfaces:
- name: ens4
  type: ethernet
  state: up
  mtu: 9000
- name: ens5
  type: ethernet
  state: up
  mtu: 1500
",
        );
        let changed = diff(&want, &state(NOW)).unwrap().expect("a change");
        let yaml = to_yaml(&changed).unwrap();
        assert!(yaml.contains("ens4") && yaml.contains("9000"), "{yaml}");
        assert!(!yaml.contains("ens5"), "{yaml}");
    }

    #[test]
    fn the_same_state_is_no_change() {
        assert!(diff(&state(NOW), &state(NOW)).unwrap().is_none());
    }

    #[test]
    fn a_node_network_state_document_carries_the_state_as_kubernetes_nmstate_publishes_it() {
        let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_795_000_000);
        let text = node_network_state("master-0", &state(NOW), at).unwrap();
        let doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        assert_eq!(doc["apiVersion"], "nmstate.io/v1beta1");
        assert_eq!(doc["kind"], "NodeNetworkState");
        assert_eq!(doc["metadata"]["name"], "master-0");
        assert_eq!(
            doc["status"]["lastSuccessfulUpdateTime"],
            "2026-11-18T11:06:40Z"
        );
        let current = serde_yaml::to_string(&doc["status"]["currentState"]).unwrap();
        assert_eq!(state(&current), state(NOW), "{text}");
    }
}
