//! Desired states the live-apply tests hand to `apply-live`: kubernetes-nmstate's
//! NodeNetworkConfigurationPolicy manifests as its users write them, and the change that cuts a
//! node off.

/// A change that cuts the node off: its default route moved to a next hop that is not there
/// (198.51.100.77, on the machine network of the harness and of the real-kernel node alike).
pub const DEAD_DEFAULT_ROUTE: &str = "routes:
  config:
  - destination: 0.0.0.0/0
    state: absent
  - destination: 0.0.0.0/0
    next-hop-address: 198.51.100.77
    next-hop-interface: br-ex
";

/// A new OVS internal interface `name` on br-ex (which keeps its ports ens3 and br-ex) with IPv6
/// link-local addressing only: an additive change with an address that one policy can give
/// every node (a static address differs per node), standing in for a VLAN where the kernel has
/// no 8021q. It leaves `ipv4` unsaid, so another policy can add an address without a conflict.
pub fn link_local_interface(name: &str) -> serde_json::Value {
    let port = |n: &str| serde_json::json!({ "name": n });
    serde_json::json!({"interfaces": [
        {"name": "br-ex", "type": "ovs-bridge", "state": "up",
         "bridge": {"port": [port("ens3"), port("br-ex"), port(name)]}},
        {"name": name, "type": "ovs-interface", "state": "up",
         "ipv6": {"enabled": true, "autoconf": false, "dhcp": false}}]})
}

/// A policy `name` (nmstate.io/`api`) selecting node1, whose desired state is `interfaces` (an
/// NMState interface list, unindented).
pub fn policy(api: &str, name: &str, interfaces: &str) -> String {
    let state: String = interfaces.lines().map(|l| format!("    {l}\n")).collect();
    format!(
        "apiVersion: nmstate.io/{api}\nkind: NodeNetworkConfigurationPolicy\nmetadata:\n  \
         name: {name}\nspec:\n  nodeSelector:\n    kubernetes.io/hostname: node1\n  \
         desiredState:\n    interfaces:\n{state}"
    )
}
