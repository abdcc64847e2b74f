//! Ports kept up while their controller goes away, said explicitly for nmstate.
//!
//! Removing a bond, a Linux bridge or an OVS bridge and keeping its ports (the controller
//! `state: absent`, each port `state: up` without a `controller`) is how kubernetes-nmstate's
//! users undo its examples. nmstate's apply decides such a port's controller from the profile it
//! has now: in memory (`apply-live`'s default, profiles until reboot) it skips the port's
//! activation ("its controller br1 desire to be down or absent"), the port goes down with its
//! controller and verification fails, where plain `nmstatectl apply` succeeds. Said explicitly
//! (`controller: ""`, nmstate's documented "detach from the current controller"), the port is
//! activated on its own either way.

use nmstate::NetworkState;

/// Gives every port that `desired` keeps up, names no controller for, and whose controller in
/// `current` it removes or takes down, `controller: ""`; the ports it changed.
pub fn from_removed_controllers(desired: &mut NetworkState, current: &NetworkState) -> Vec<String> {
    let going: Vec<String> = desired
        .interfaces
        .iter()
        .filter(|i| i.is_absent() || i.is_down())
        .map(|i| i.name().to_owned())
        .collect();
    let mut detached = Vec::new();
    if going.is_empty() {
        return detached;
    }
    for iface in desired.interfaces.iter_mut() {
        if !iface.is_up() || iface.base_iface().controller.is_some() {
            continue;
        }
        let was = current
            .interfaces
            .get_iface(iface.name(), iface.iface_type())
            .and_then(|c| c.base_iface().controller.clone());
        if was.is_some_and(|c| going.contains(&c)) {
            iface.base_iface_mut().controller = Some(String::new());
            detached.push(iface.name().to_owned());
        }
    }
    detached
}

/// Whether `desired` removes or takes down any interface (only then is the current state read).
pub fn removes_any(desired: &NetworkState) -> bool {
    desired
        .interfaces
        .iter()
        .any(|i| i.is_absent() || i.is_down())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(yaml: &str) -> NetworkState {
        serde_yaml::from_str(yaml).unwrap()
    }

    #[test]
    fn ports_kept_while_their_controller_goes_are_detached_explicitly() {
        let current = state(
            "interfaces:
- {name: br1, type: linux-bridge, state: up, bridge: {port: [{name: eth3}]}}
- {name: eth3, type: ethernet, state: up, controller: br1}
- {name: eth4, type: ethernet, state: up, controller: bond9}
- {name: eth5, type: ethernet, state: up, controller: br1}
",
        );
        let mut desired = state(
            "interfaces:
- {name: br1, type: linux-bridge, state: absent}
- {name: eth3, type: ethernet, state: up}
- {name: eth4, type: ethernet, state: up}
- {name: eth5, type: ethernet, state: up, controller: br2}
",
        );
        assert!(removes_any(&desired));
        let detached = from_removed_controllers(&mut desired, &current);
        assert_eq!(detached, ["eth3"]);
        let eth3 = desired
            .interfaces
            .get_iface("eth3", nmstate::InterfaceType::Ethernet)
            .unwrap();
        assert_eq!(eth3.base_iface().controller.as_deref(), Some(""));
    }

    #[test]
    fn a_state_that_removes_nothing_is_left_alone() {
        let desired = state("interfaces:\n- {name: eth3, type: ethernet, state: up}\n");
        assert!(!removes_any(&desired));
    }
}
