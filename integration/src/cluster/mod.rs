//! Three on-prem nodes on one machine network, each booting the four daemons in unit order:
//! the end-to-end scenario the cluster test asserts on and `cargo xtask demo` shows.
//!
//! - upstream: router, DHCPv4 and DNS for 198.51.100.0/24 and 2001:db8:1::/64 (static IPv6);
//! - node N: namespace with OVS-enabled NetworkManager (MCO's `rc-manager=unmanaged`), OVS, an
//!   uplink `ens3` (DHCPv4 + static IPv6), keepalived, and a CoreDNS stand-in (dnsmasq) on its
//!   node IP answering for the cluster domain;
//! - nodes 2 and 3 also have `eth1` on a storage network whose default route has metric 50,
//!   lower than the machine network's: the trap upstream's default-route logic falls into.
//!   Node 2 has `NODEIP_HINT` pointing at the machine network; node 3 relies on the VIPs.
//!
//! The daemons run as processes inside each node's namespace and file-system view, in the order
//! the units impose (proven in real systemd by xtask's boot tests): `nodeip-selector set`, then
//! `ovs-bridge-configurator apply`, then `keepalived-monitor`, whose first render starts
//! keepalived through the harness's keepalived.service stand-in
//! ([`crate::keepalived::KeepalivedService`]); `resolv-prepender` runs from the start.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::keepalived::holds;
use crate::netns::{Netns, scratch_dir};
use crate::node::{Node, Upstream, node_address, node_address6};
use crate::process::wait_for;

pub mod day2;
pub mod mco;
mod node;
pub mod policies;
mod timeline;

pub use node::ClusterNode;
pub use timeline::{Event, log_events, parse_utc};

/// The API and ingress VIPs (machine network).
pub const API_VIP: &str = "198.51.100.5";
pub const INGRESS_VIP: &str = "198.51.100.4";
/// The storage network's router (nodes 2 and 3 have a lower-metric default route through it).
pub const STORAGE_ROUTER: &str = "203.0.113.1";
/// How many nodes the cluster has.
pub const NODES: u8 = 3;

/// MCO's on-prem NetworkManager setting: NM writes /run/NetworkManager/resolv.conf and leaves
/// /etc/resolv.conf to resolv-prepender.
const NM_KNI_CONF: (&str, &str) = ("99-kni.conf", "[main]\ndns=default\nrc-manager=unmanaged\n");

/// The four daemons' binaries (a directory holding all of them).
#[derive(Clone, Debug)]
pub struct Binaries(pub PathBuf);

impl Binaries {
    fn get(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

/// The whole cluster; dropping it tears everything down.
#[derive(Debug)]
pub struct Cluster {
    pub nodes: Vec<ClusterNode>,
    _storage: Netns,
    pub up: Upstream,
    started: SystemTime,
    /// The peer list every keepalived-monitor reads.
    pub peers: PathBuf,
    dir: tempfile::TempDir,
}

impl Cluster {
    /// Builds the networks and the nodes (NetworkManager up, uplink configured) without
    /// booting the daemons; `progress` hears what happens.
    pub fn create(bins: &Binaries, progress: &(dyn Fn(String) + Sync)) -> Result<Cluster, String> {
        for d in [
            "nodeip-selector",
            "ovs-bridge-configurator",
            "resolv-prepender",
            "keepalived-monitor",
        ] {
            if !bins.0.join(d).exists() {
                return Err(format!("{d} not found in {}", bins.0.display()));
            }
        }
        let started = SystemTime::now();
        let dir = scratch_dir("cluster")?;
        // The upstream DNS knows the zone but not the API name: an answer for it can only come
        // from a node's own resolver.
        let mut up = Upstream::start(NODES, &[])?;
        let storage = Netns::new("storage")?;
        storage.bridge("br1")?;
        storage.addr("br1", &format!("{STORAGE_ROUTER}/24"), &[])?;
        let peers = dir.path().join("peers.toml");
        std::fs::write(&peers, peer_list(&(1..=NODES).collect::<Vec<_>>()))
            .map_err(|e| e.to_string())?;
        let mut nodes = Vec::new();
        for index in 1..=NODES {
            let node = Node::start_with(&mut up, index, &[NM_KNI_CONF])?;
            let n = ClusterNode::new(
                node,
                index,
                bins.clone(),
                dir.path().join(format!("node{index}")),
            );
            n.prepare(&storage, &peers)?;
            progress(format!("node{index}: namespace {} ready", n.node.ns.name()));
            nodes.push(n);
        }
        Ok(Cluster {
            nodes,
            _storage: storage,
            up,
            started,
            peers,
            dir,
        })
    }

    /// Boots every node's daemons in unit order, the nodes in parallel; returns once each
    /// node's keepalived runs and its resolver answers.
    pub fn boot(&mut self, progress: &(dyn Fn(String) + Sync)) -> Result<(), String> {
        std::thread::scope(|s| {
            let handles: Vec<_> = self
                .nodes
                .iter_mut()
                .map(|n| s.spawn(move || n.boot(progress)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("boot thread panicked".into()))
                })
                .collect::<Result<Vec<()>, String>>()
        })?;
        Ok(())
    }

    /// The nodes (1-based indices) whose br-ex holds `vip`.
    pub fn holders(&self, vip: &str) -> Vec<u8> {
        self.nodes
            .iter()
            .filter(|n| holds(&n.node.ns, "br-ex", vip))
            .map(|n| n.index)
            .collect()
    }

    /// Waits until exactly one node holds `vip` and returns it.
    pub fn wait_single_holder(&self, vip: &str, timeout: Duration) -> Result<u8, String> {
        let mut last = Vec::new();
        if wait_for(timeout, || {
            last = self.holders(vip);
            last.len() == 1
        }) {
            Ok(last[0])
        } else {
            Err(format!("{vip} held by nodes {last:?}"))
        }
    }

    /// Rewrites the shared peer list with the given nodes (atomically, as an operator's tool
    /// or the API would change it).
    pub fn set_peers(&self, nodes: &[u8]) -> Result<(), String> {
        let tmp = self.dir.path().join("peers.toml.new");
        std::fs::write(&tmp, peer_list(nodes)).map_err(|e| e.to_string())?;
        std::fs::rename(&tmp, &self.peers).map_err(|e| e.to_string())
    }

    /// When the cluster was created: the zero of its timeline.
    pub fn started(&self) -> SystemTime {
        self.started
    }

    /// Every daemon's log lines of every node, in time order, relative to the cluster's start.
    pub fn timeline(&self) -> Vec<Event> {
        let mut events: Vec<Event> = self
            .nodes
            .iter()
            .flat_map(|n| n.events(self.started))
            .collect();
        events.sort_by_key(|e| e.at);
        events
    }
}

/// The peer list (`[[node]]` tables) naming the given nodes as masters.
fn peer_list(nodes: &[u8]) -> String {
    nodes
        .iter()
        .map(|&i| {
            format!(
                "[[node]]\nname = \"master-{i}\"\nrole = \"master\"\naddresses = [\"{}\", \"{}\"]\n",
                node_address(i),
                node_address6(i)
            )
        })
        .collect()
}

/// The daemons whose logs make the timeline.
pub const DAEMONS: [&str; 4] = [
    "nodeip-selector",
    "ovs-bridge-configurator",
    "resolv-prepender",
    "keepalived-monitor",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peer_list_names_each_node_with_both_families() {
        let p = peer_list(&[1, 3]);
        assert!(p.contains("name = \"master-1\""));
        assert!(p.contains("\"198.51.100.13\", \"2001:db8:1::13\""));
        assert!(!p.contains("master-2"));
    }
}
