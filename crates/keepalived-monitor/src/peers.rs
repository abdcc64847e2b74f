//! The peer list: which nodes exist, which are masters (API backends), and their addresses.
//! Source `file`: a TOML list (`/etc/keepalived-monitor/peers.toml`).

use std::net::IpAddr;
use std::path::Path;

use serde::Deserialize;

use crate::model::Role;
use crate::retry::Retry;

/// One node.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Peer {
    pub name: String,
    pub role: Role,
    /// InternalIP addresses, in the order the node reports them.
    pub addresses: Vec<IpAddr>,
    /// OVN-Kubernetes' `k8s.ovn.org/host-cidrs` (else `host-addresses`) addresses.
    #[serde(default)]
    pub ovn_addresses: Vec<IpAddr>,
    /// `status.nodeInfo.kubeletVersion` and the MCO `state`, `currentConfig` and
    /// `desiredConfig` annotations (upgrade detection). A Node MCO has not annotated yet has
    /// state `""`; a peer-list node without them is not managed by MCO.
    #[serde(default)]
    pub kubelet_version: Option<String>,
    #[serde(default)]
    pub mco_state: Option<String>,
    #[serde(default)]
    pub mco_current_config: Option<String>,
    #[serde(default)]
    pub mco_desired_config: Option<String>,
}

impl Peer {
    /// IPv4-mapped IPv6 addresses as IPv4: upstream's family checks (Go's `To4`) and its text
    /// both treat them so; kept mapped, the family check and the printed text would disagree
    /// and an IPv4 address would land in an IPv6 instance.
    pub fn canonicalize(mut self) -> Self {
        for a in self.addresses.iter_mut().chain(&mut self.ovn_addresses) {
            *a = a.to_canonical();
        }
        self
    }
}

impl Peers {
    /// Upstream's `IsUpgradeStillRunning` (kubelet versions differ, or a node's MCO state is
    /// not `Done`), and also while a node has no MCO state yet or its `currentConfig` is not its
    /// `desiredConfig`: MCO is still rolling a configuration out (a mode switch in the middle of
    /// it could split the cluster between modes). An empty list counts as "not running" (as
    /// upstream).
    pub fn upgrade_running(&self) -> bool {
        let first = self.nodes.first().map(|n| &n.kubelet_version);
        self.nodes.iter().any(|n| {
            Some(&n.kubelet_version) != first
                || n.mco_state.as_deref().is_some_and(|s| s != "Done")
                || n.mco_current_config != n.mco_desired_config
        })
    }
}

/// All nodes, in the source's order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Peers {
    #[serde(default, rename = "node")]
    pub nodes: Vec<Peer>,
}

/// A peer list that cannot be used; the last good configuration stays.
#[derive(Debug, thiserror::Error)]
pub enum PeersError {
    #[error("cannot read peer list {}: {source}", path.display())]
    Read {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    /// The file is not a valid peer list: bad input (exit 2 for `render` and `check`).
    #[error("invalid peer list {}: {source}", path.display())]
    Invalid {
        path: std::path::PathBuf,
        source: ParseError,
    },
}

/// Why a peer list is not valid.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("line {line}: {message}")]
    Toml { line: usize, message: String },
    #[error("node {0} has no address")]
    NoAddress(String),
}

impl Retry for PeersError {
    /// A file being replaced may be missing for a moment; a malformed one stays so until
    /// someone fixes it.
    fn worth_retrying(&self) -> bool {
        matches!(self, PeersError::Read { .. })
    }
}

/// Reads the TOML peer list.
pub fn read(path: &Path) -> Result<Peers, PeersError> {
    let text = std::fs::read_to_string(path).map_err(|source| PeersError::Read {
        path: path.to_owned(),
        source,
    })?;
    parse(&text).map_err(|source| PeersError::Invalid {
        path: path.to_owned(),
        source,
    })
}

/// Parses a TOML peer list; the error names the line. Every node needs an address.
pub fn parse(text: &str) -> Result<Peers, ParseError> {
    let mut peers: Peers = toml::from_str(text).map_err(|e| ParseError::Toml {
        line: e
            .span()
            .map_or(1, |s| text[..s.start].matches('\n').count() + 1),
        message: e.message().to_owned(),
    })?;
    peers.nodes = peers.nodes.into_iter().map(Peer::canonicalize).collect();
    if let Some(n) = peers
        .nodes
        .iter()
        .find(|n| n.addresses.is_empty() && n.ovn_addresses.is_empty())
    {
        return Err(ParseError::NoAddress(n.name.clone()));
    }
    Ok(peers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peer_list_errors_name_the_line_or_the_node() {
        let ok = "[[node]]\nname = \"m0\"\nrole = \"master\"\naddresses = [\"192.0.2.20\"]\n";
        assert_eq!(parse(ok).unwrap().nodes[0].name, "m0");
        assert_eq!(parse("").unwrap(), Peers::default());
        let e = parse("[[node]]\nname = \"m0\"\nrole = \"king\"\naddresses = []\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("line 3: unknown variant `king`"), "{e}");
        // Found by fuzzing: an IPv4-mapped address is IPv4, in family and in text.
        let mapped = parse(
            "[[node]]\nname = \"m0\"\nrole = \"master\"\naddresses = [\"::ffff:192.0.2.20\"]\n",
        )
        .unwrap();
        assert_eq!(
            mapped.nodes[0].addresses,
            ["192.0.2.20".parse::<IpAddr>().unwrap()]
        );
        let e = parse("[[node]]\nname = \"m0\"\nrole = \"master\"\naddresses = []\n").unwrap_err();
        assert_eq!(e.to_string(), "node m0 has no address");
    }
}
