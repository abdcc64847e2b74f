//! Helpers shared by the integration tests.

/// A `peers.toml` listing one master per address.
pub fn peer_list(addresses: &[&str]) -> String {
    addresses
        .iter()
        .map(|a| format!("[[node]]\nname = \"n{a}\"\nrole = \"master\"\naddresses = [\"{a}\"]\n"))
        .collect()
}
