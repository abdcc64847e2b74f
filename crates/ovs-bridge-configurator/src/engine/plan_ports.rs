//! Which interfaces a change of OVS bridges' port lists moves, adds and lets go, checked
//! against what exists ([`crate::engine::reapply`] plans the rest): the new ports of a bridge
//! hold its new internal interface, a new VLAN or an interface that exists, which moves under
//! it (nmstate's diff names such a move only for an interface the desired state lists); an
//! interface a bridge no longer lists is detached; a port that still has a stored profile uses
//! it again.

use zbus::zvariant::OwnedObjectPath;

use crate::engine::profile_change::{self, IfaceChange, Uncovered};
use crate::engine::profile_ovs::{self, BridgeChange};
use crate::engine::state::State;
use crate::nm::Profile;
use crate::nm::profile::{self, Settings};
use crate::nm::setting::{Connection, Family, Ip, Setting};

/// Every new port of a bridge holds its new internal interface, a new VLAN or an interface that
/// exists, and every new internal interface is a port of a new bridge (else nmstate's to
/// create).
pub fn ports_known(
    bridges: &[BridgeChange],
    creates: &[(Settings, IfaceChange)],
    is_device: impl Fn(&str) -> bool,
) -> Result<(), Uncovered> {
    let created = |name: &str| {
        creates.iter().any(|(s, c)| {
            c.name == name && ["ovs-interface", "vlan"].contains(&profile::kind(s).as_str())
        })
    };
    for b in bridges {
        if let Some(p) = b.ports.iter().find(|p| !created(p) && !is_device(p)) {
            return Err(Uncovered(format!("{}'s new port {p}", b.name)));
        }
    }
    match creates.iter().find(|(s, c)| {
        profile::kind(s) == "ovs-interface" && !bridges.iter().any(|b| b.ports.contains(&c.name))
    }) {
        Some((_, c)) => Err(Uncovered(format!(
            "new OVS interface {} on a bridge that exists",
            c.name
        ))),
        None => Ok(()),
    }
}

/// Every interface that exists and a bridge's new port holds moves under it in `changes`,
/// nothing else moves under a bridge, and an interface a bridge lets go is not changed
/// otherwise.
pub fn ports_moved(
    bridges: &[BridgeChange],
    changes: &[IfaceChange],
    is_device: impl Fn(&str) -> bool,
) -> Result<(), Uncovered> {
    for c in changes {
        if let Some(to) = &c.controller
            && !bridges
                .iter()
                .any(|b| b.name == *to && b.ports.contains(&c.name))
        {
            return Err(Uncovered(format!("{} moved under {to}", c.name)));
        }
    }
    for b in bridges {
        let moved = |p: &String| {
            changes
                .iter()
                .any(|c| c.name == *p && c.controller.as_deref() == Some(b.name.as_str()))
        };
        if let Some(p) = b.ports.iter().find(|p| is_device(p) && !moved(p)) {
            return Err(Uncovered(format!("{}'s port {p} left where it is", b.name)));
        }
        if let Some(d) = b
            .detached
            .iter()
            .find(|d| changes.iter().any(|c| c.name == **d))
        {
            return Err(Uncovered(format!(
                "{d} detached from {} and changed",
                b.name
            )));
        }
    }
    Ok(())
}

/// The moves under a bridge that its port list implies (nmstate's diff shows a controller only
/// for an interface the desired state lists): an interface that exists and that a bridge's new
/// port holds becomes its port. One with IP configuration is nmstate's (it drops it, and the
/// routes through it, as it moves the interface).
pub fn implied_moves(
    bridges: &[BridgeChange],
    changes: &mut Vec<IfaceChange>,
    running: &State,
    is_device: impl Fn(&str) -> bool,
) -> Result<(), Uncovered> {
    for b in bridges {
        for p in b.ports.iter().filter(|p| is_device(p)) {
            let now = running.iface(p);
            // A port of another controller (another bridge, a bond) is nmstate's to take from it.
            let controller = now.and_then(|i| i.controller.as_deref());
            if let Some(from) = controller.filter(|c| !c.is_empty()) {
                return Err(Uncovered(format!("{p} moving from {from} to {}", b.name)));
            }
            if let Some(c) = changes.iter_mut().find(|c| c.name == *p) {
                c.controller.get_or_insert_with(|| b.name.clone());
                continue;
            }
            if let Some(family) = [Family::V4, Family::V6].into_iter().find(|f| {
                now.and_then(|i| i.ip(*f))
                    .is_some_and(|ip| ip.enabled == Some(true))
            }) {
                return Err(Uncovered(format!(
                    "{p}'s {} configuration as it moves under {}",
                    family.section(),
                    b.name
                )));
            }
            changes.push(IfaceChange {
                controller: Some(b.name.clone()),
                ..IfaceChange::new(p)
            });
        }
    }
    Ok(())
}

/// The port changes of the OVS bridges of `desired` that exist (`running`): new ports, and
/// interfaces let go.
pub fn existing_bridges_port_changes(
    desired: &State,
    running: &State,
    is_device: impl Fn(&str) -> bool,
) -> Result<Vec<BridgeChange>, Uncovered> {
    let is_bridge = |i: &&crate::engine::state::Iface| i.kind.as_deref() == Some("ovs-bridge");
    let mut out = Vec::new();
    for iface in desired.interfaces.iter().filter(is_bridge) {
        let name = iface.name.as_str();
        if iface.is_absent() || !is_device(name) {
            continue;
        }
        let Some(now) = running
            .interfaces
            .iter()
            .filter(is_bridge)
            .find(|i| i.name == name)
        else {
            return Err(Uncovered(format!("OVS bridge {name} as it runs")));
        };
        out.extend(profile_ovs::bridge_port_changes(iface, now)?);
    }
    Ok(out)
}

/// The stored profiles (of `stored`) of the OVS ports that new ports of bridges that exist
/// already have (an interface detached until the next boot leaves its port's profile, as
/// nmstate does), taken out of `bridges`' profiles to add: used again, as nmstate modifies such
/// a profile rather than add another for the same port.
pub fn kept_ports(
    stored: &[Profile],
    bridges: &mut [BridgeChange],
) -> Vec<(String, OwnedObjectPath, Settings)> {
    let mut kept = Vec::new();
    for b in bridges.iter_mut().filter(|b| !b.new) {
        b.profiles.retain(|port| {
            let name = profile::interface(port);
            let Some(p) = stored.iter().find(|p| {
                profile::kind(&p.settings) == "ovs-port"
                    && profile::interface(&p.settings) == name
                    && Connection::of(&p.settings).master.as_deref() == Some(b.name.as_str())
            }) else {
                return true;
            };
            kept.push((
                name.unwrap_or_default(),
                p.path.clone(),
                profile::clone_settings(&p.settings),
            ));
            false
        });
    }
    kept
}

/// The new VLANs that are new ports of a bridge, written as its ports (no IP of their own).
pub fn new_ports(
    bridges: &[BridgeChange],
    creates: &mut [(Settings, IfaceChange)],
) -> Result<(), Uncovered> {
    for b in bridges {
        for (settings, change) in creates.iter_mut() {
            if profile::kind(settings) != "vlan" || !b.ports.contains(&change.name) {
                continue;
            }
            if let Some(family) = [Family::V4, Family::V6]
                .into_iter()
                .find(|f| Ip::configures(settings, *f))
            {
                return Err(Uncovered(format!(
                    "{}'s {} configuration as a port of {}",
                    change.name,
                    family.section(),
                    b.name
                )));
            }
            profile_change::make_port(settings, &change.name);
            change.controller = Some(b.name.clone());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A state or an interface from nmstate's JSON.
    fn from_json<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> T {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_new_port_that_exists_moves_under_its_bridge_unless_it_has_ip() {
        let bridge = || {
            profile_ovs::bridge_port_changes(
                &from_json(
                    serde_json::json!({"name": "br-ex", "type": "ovs-bridge", "state": "up",
                    "bridge": {"port": [{"name": "ens4"}, {"name": "br-ex"}]}}),
                ),
                &from_json(serde_json::json!({"name": "br-ex", "type": "ovs-bridge",
                    "bridge": {"port": [{"name": "ens3"}, {"name": "br-ex"}]}})),
            )
            .unwrap()
            .unwrap()
        };
        let running = |v4: bool| -> State {
            from_json(
                serde_json::json!({"interfaces": [{"name": "ens4", "type": "ethernet",
                "ipv4": {"enabled": v4}, "ipv6": {"enabled": false}}]}),
            )
        };
        let mut changes = Vec::new();
        implied_moves(&[bridge()], &mut changes, &running(false), |_| true).unwrap();
        let moved = IfaceChange {
            controller: Some("br-ex".into()),
            ..IfaceChange::new("ens4")
        };
        assert_eq!(changes, [moved]);
        // Listed in the change too: it moves with the rest of its change.
        let mut changes = vec![IfaceChange {
            mtu: Some(9000),
            ..IfaceChange::new("ens4")
        }];
        implied_moves(&[bridge()], &mut changes, &running(true), |_| true).unwrap();
        assert_eq!(changes[0].controller.as_deref(), Some("br-ex"));
        let mut changes = Vec::new();
        assert_eq!(
            implied_moves(&[bridge()], &mut changes, &running(true), |_| true),
            Err(Uncovered(
                "ens4's ipv4 configuration as it moves under br-ex".into()
            ))
        );
        // A port of another bridge.
        let mut elsewhere = running(false);
        elsewhere.interfaces[0].controller = Some("br-ex1".into());
        assert_eq!(
            implied_moves(&[bridge()], &mut Vec::new(), &elsewhere, |_| true),
            Err(Uncovered("ens4 moving from br-ex1 to br-ex".into()))
        );
    }
}
