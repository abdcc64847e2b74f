//! What a live change may not do unless forced: take away the node's own plumbing. br-ex
//! removed or taken down, the node IP moved off br-ex (an explicit address list on br-ex
//! without it, or the node IP on another interface), or OVN-Kubernetes' own OVS pieces touched
//! (its integration bridge, management port, tunnel ports and the patch ports between br-ex and
//! br-int): each cuts the node off the cluster in a way no probe of this node can see in time.
//! Pure: the desired state and the node IPs in, one line per refusal out.

use std::net::IpAddr;

use nmstate::{Interface, NetworkState};

use crate::br_ex::BR_EX;

/// Interfaces OVN-Kubernetes creates and owns (exact names).
const OVN_OWNED: [&str; 2] = ["br-int", "ovn-k8s-mp0"];
/// Name prefixes of the interfaces OVN-Kubernetes creates (tunnels, patch ports).
const OVN_OWNED_PREFIXES: [&str; 3] = ["genev_sys_", "patch-br-int-to-", "patch-br-ex_"];

/// Why `desired` may not be applied live without `--force`; empty when it may.
pub fn refusals(desired: &NetworkState, node_ips: &[IpAddr]) -> Vec<String> {
    let ifaces = desired.interfaces.to_vec();
    let mut why = Vec::new();
    for iface in &ifaces {
        let name = iface.name();
        if name == BR_EX.bridge && iface.is_absent() {
            why.push(format!(
                "it removes {name}, the bridge the node IP lives on"
            ));
        } else if name == BR_EX.bridge && iface.is_down() {
            why.push(format!(
                "it takes {name} down, the bridge the node IP lives on"
            ));
        }
        if OVN_OWNED.contains(&name) || OVN_OWNED_PREFIXES.iter().any(|p| name.starts_with(p)) {
            why.push(format!("it touches {name}, which OVN-Kubernetes owns"));
        }
        for ip in node_ips {
            let listed = explicit_addresses(iface, ip.is_ipv4());
            if name == BR_EX.bridge && listed.as_ref().is_some_and(|l| !l.contains(ip)) {
                why.push(format!("it moves the node IP {ip} off {name}"));
            }
            if name != BR_EX.bridge && listed.is_some_and(|l| l.contains(ip)) {
                why.push(format!("it puts the node IP {ip} on {name}"));
            }
        }
    }
    why
}

/// The addresses of one family `iface` is given explicitly (static, no DHCP); `None` when the
/// desired state leaves them to DHCP, autoconf or the current state.
fn explicit_addresses(iface: &Interface, v4: bool) -> Option<Vec<IpAddr>> {
    let base = iface.base_iface();
    let (dynamic, addresses) = if v4 {
        let ip = base.ipv4.as_ref()?;
        (ip.dhcp == Some(true), ip.addresses.as_ref())
    } else {
        let ip = base.ipv6.as_ref()?;
        (
            ip.dhcp == Some(true) || ip.autoconf == Some(true),
            ip.addresses.as_ref(),
        )
    };
    if dynamic {
        return None;
    }
    Some(addresses?.iter().map(|a| a.ip).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NODE_IP: &str = "198.51.100.11";

    fn refused(yaml: &str) -> Vec<String> {
        let state = NetworkState::new_from_yaml(yaml).unwrap();
        refusals(&state, &[NODE_IP.parse().unwrap()])
    }

    #[test]
    fn an_additive_change_is_allowed() {
        let why = refused(
            "interfaces:
- name: ens4.100
  type: vlan
  state: up
  vlan: {base-iface: ens4, id: 100}
  ipv4: {enabled: true, dhcp: false, address: [{ip: 192.0.2.20, prefix-length: 24}]}
- name: br-ex
  type: ovs-interface
  state: up
  mtu: 1400
",
        );
        assert!(why.is_empty(), "{why:?}");
    }

    #[test]
    fn br_ex_removed_or_down_is_refused() {
        let why = refused("interfaces:\n- name: br-ex\n  type: ovs-bridge\n  state: absent\n");
        assert_eq!(why, ["it removes br-ex, the bridge the node IP lives on"]);
        let why = refused("interfaces:\n- name: br-ex\n  type: ovs-interface\n  state: down\n");
        assert_eq!(
            why,
            ["it takes br-ex down, the bridge the node IP lives on"]
        );
    }

    #[test]
    fn the_node_ip_moved_off_br_ex_is_refused() {
        let why = refused(
            "interfaces:
- name: br-ex
  type: ovs-interface
  state: up
  ipv4: {enabled: true, dhcp: false, address: [{ip: 198.51.100.99, prefix-length: 24}]}
- name: ens4
  type: ethernet
  state: up
  ipv4: {enabled: true, dhcp: false, address: [{ip: 198.51.100.11, prefix-length: 24}]}
",
        );
        assert_eq!(
            why,
            [
                "it moves the node IP 198.51.100.11 off br-ex",
                "it puts the node IP 198.51.100.11 on ens4"
            ]
        );
    }

    #[test]
    fn br_ex_on_dhcp_or_keeping_the_node_ip_is_allowed() {
        let why = refused(
            "interfaces:
- name: br-ex
  type: ovs-interface
  state: up
  ipv4: {enabled: true, dhcp: true}
",
        );
        assert!(why.is_empty(), "{why:?}");
        let why = refused(
            "interfaces:
- name: br-ex
  type: ovs-interface
  state: up
  ipv4:
    enabled: true
    dhcp: false
    address: [{ip: 198.51.100.11, prefix-length: 24}, {ip: 192.0.2.5, prefix-length: 24}]
",
        );
        assert!(why.is_empty(), "{why:?}");
    }

    #[test]
    fn ovn_kubernetes_pieces_are_refused() {
        let why = refused(
            "interfaces:
- name: br-int
  type: ovs-bridge
  state: absent
- name: patch-br-ex_node1-to-br-int
  type: ovs-interface
  state: absent
",
        );
        assert_eq!(
            why,
            [
                "it touches br-int, which OVN-Kubernetes owns",
                "it touches patch-br-ex_node1-to-br-int, which OVN-Kubernetes owns"
            ]
        );
    }
}
