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
}
