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
