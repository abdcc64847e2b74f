//! A desired NMState as a user wrote it (`apply-live`, `diff`, the files under
//! /etc/nmstate/openshift): nmstate's parser, and nothing it would quietly ignore. nmstate only
//! warns about an interface type it does not know and then leaves that interface alone, so a
//! typo in `type:` would be "applied" and change nothing: here it is bad input, named.

use nmstate::{Interface, NetworkState};

/// `yaml` as a desired state, or why not (one line, naming the part).
pub fn parse(yaml: &str) -> Result<NetworkState, String> {
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
