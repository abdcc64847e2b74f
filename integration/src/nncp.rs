//! kubernetes-nmstate's NodeNetworkConfigurationPolicy manifests, as its users write them, for
//! the tests that hand them to `apply-live`.

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
