//! A desired NMState as a user wrote it (`apply-live`, `diff`, the files under
//! /etc/nmstate/openshift): nmstate's parser, and nothing it would quietly ignore. nmstate only
//! warns about an interface type it does not know and then leaves that interface alone, so a
//! typo in `type:` would be "applied" and change nothing: here it is bad input, named.
//!
//! A kubernetes-nmstate `NodeNetworkConfigurationPolicy` manifest is taken as it is: its
//! `spec.desiredState` is the state, so a kubernetes-nmstate user's files carry over.

use nmstate::{Interface, NetworkState};
use serde_yaml::Value;

const POLICY_KIND: &str = "NodeNetworkConfigurationPolicy";
/// The API versions kubernetes-nmstate serves its policies under.
const POLICY_API_VERSIONS: &[&str] = &["nmstate.io/v1", "nmstate.io/v1beta1"];

/// `yaml` (NMState, or a NodeNetworkConfigurationPolicy) as a desired state, or why not (one
/// line, naming the part).
pub fn parse(yaml: &str) -> Result<NetworkState, String> {
    match policy_state(yaml)? {
        Some((name, state)) => {
            state_of(&state).map_err(|e| format!("{POLICY_KIND} {name}: spec.desiredState: {e}"))
        }
        None => state_of(yaml),
    }
}

/// A policy's name and its `spec.desiredState` as YAML; `None` for anything that is not a
/// policy (it is read as NMState).
fn policy_state(yaml: &str) -> Result<Option<(String, String)>, String> {
    let Ok(doc) = serde_yaml::from_str::<Value>(yaml) else {
        return Ok(None);
    };
    if doc.get("kind").and_then(Value::as_str) != Some(POLICY_KIND) {
        return Ok(None);
    }
    let name = doc
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("(no name)")
        .to_owned();
    let api = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    if !POLICY_API_VERSIONS.contains(&api) {
        return Err(format!(
            "{POLICY_KIND} {name}: apiVersion {api:?} is not one of {POLICY_API_VERSIONS:?}"
        ));
    }
    let spec = doc.get("spec");
    // kubernetes-nmstate fills a captured state in before applying; nothing here does.
    if spec.and_then(|s| s.get("capture")).is_some() {
        return Err(format!(
            "{POLICY_KIND} {name}: spec.capture is not supported (give the state itself)"
        ));
    }
    if spec.and_then(|s| s.get("nodeSelector")).is_some() {
        tracing::warn!(
            "{POLICY_KIND} {name}: its nodeSelector is not looked at: the state is applied to \
             this node"
        );
    }
    let state = spec
        .and_then(|s| s.get("desiredState"))
        .ok_or_else(|| format!("{POLICY_KIND} {name}: no spec.desiredState"))?;
    let state = serde_yaml::to_string(state).map_err(|e| format!("{POLICY_KIND} {name}: {e}"))?;
    Ok(Some((name, state)))
}

fn state_of(yaml: &str) -> Result<NetworkState, String> {
    let state = NetworkState::new_from_yaml(yaml).map_err(|e| e.to_string())?;
    for iface in state.interfaces.to_vec() {
        // An interface written without a type is one nmstate resolves to the existing one's;
        // one written with a type it does not know keeps that type only in what it carries over.
        let Interface::Unknown(unknown) = iface else {
            continue;
        };
        let written = serde_json::to_value(unknown).map_err(|e| e.to_string())?;
        if let Some(kind) = written.get("type").and_then(|t| t.as_str())
            && kind != "unknown"
        {
            return Err(format!(
                "interface {}: type {kind:?} is not one nmstate knows (it would leave the \
                 interface as it is)",
                iface.name()
            ));
        }
    }
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interface_of_a_type_nmstate_does_not_know_is_refused_by_name() {
        let e = parse("interfaces:\n- name: eth9\n  type: bogus\n  state: up\n").unwrap_err();
        assert!(
            e.contains("interface eth9") && e.contains("\"bogus\""),
            "{e}"
        );
    }

    const POLICY: &str = "apiVersion: nmstate.io/v1
kind: NodeNetworkConfigurationPolicy
metadata:
  name: vlan-102
spec:
  desiredState:
    interfaces:
    - name: eth1.102
      type: vlan
      state: up
      vlan:
        base-iface: eth1
        id: 102
";

    #[test]
    fn a_policys_desired_state_is_the_state() {
        let state = parse(POLICY).unwrap();
        let names: Vec<String> = state
            .interfaces
            .to_vec()
            .iter()
            .map(|i| i.name().to_owned())
            .collect();
        assert_eq!(names, ["eth1.102"]);
        parse(&POLICY.replace("nmstate.io/v1", "nmstate.io/v1beta1")).unwrap();
    }

    #[test]
    fn a_policy_that_cannot_be_applied_is_named() {
        for (policy, want) in [
            (
                POLICY.replace("type: vlan", "type: vlann"),
                "NodeNetworkConfigurationPolicy vlan-102: spec.desiredState: interface eth1.102",
            ),
            (
                POLICY.replace("id: 102", "id: [102]"),
                "NodeNetworkConfigurationPolicy vlan-102: spec.desiredState:",
            ),
            (
                POLICY.replace("nmstate.io/v1", "nmstate.io/v2"),
                "apiVersion \"nmstate.io/v2\"",
            ),
            (
                POLICY.replace("  desiredState:", "  capture:\n    x: y\n  desiredState:"),
                "spec.capture is not supported",
            ),
            (
                POLICY.replace("desiredState", "desiredStates"),
                "no spec.desiredState",
            ),
        ] {
            let e = parse(&policy).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn known_types_and_an_interface_without_a_type_are_taken() {
        for yaml in [
            "interfaces:\n- name: br-ex\n  type: ovs-interface\n  mtu: 1400\n",
            "interfaces:\n- name: eth1\n  mtu: 1400\n",
            "routes:\n  config: []\n",
        ] {
            parse(yaml).unwrap_or_else(|e| panic!("{yaml}: {e}"));
        }
    }
}
