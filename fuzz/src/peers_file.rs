//! The TOML peer list. Properties: never panics; an accepted list has an address for every node.

use keepalived_monitor::peers::parse;

pub fn check(data: &[u8]) {
    let Some(text) = crate::text(data) else {
        return;
    };
    if let Ok(peers) = parse(text) {
        for n in &peers.nodes {
            assert!(
                !(n.addresses.is_empty() && n.ovn_addresses.is_empty()),
                "node {} accepted without an address",
                n.name
            );
        }
    }
}
