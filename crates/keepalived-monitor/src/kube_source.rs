//! Peer source `kubernetes`: one watch on Node objects through the kubelet's kubeconfig (list,
//! then watch; re-listed with back-off after failures), kept as an ordered cache. The client is
//! rebuilt when its credentials change or are refused, and moves between the kubeconfig's
//! server and the local API server when one keeps failing ([`crate::kube_client`]).
//!
//! As upstream's node cache (OCPBUGS-42805): an update keeps the node's position, a new node is
//! appended, a deletion removes it; while the API is unreachable the last complete list stays,
//! and before the first complete list there are no peers (nothing is rendered from a partial one).

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use kube::{Api, Client};
use selection::service::{DirWatcher, Wake};

use crate::kube_client::{ClientError, Endpoint, client, credential_files, unauthorized};
use crate::kube_node::{
    ARBITER_LABEL, HOST_ADDRESSES, HOST_CIDRS, MASTER_LABEL, MCO_CURRENT, MCO_DESIRED, MCO_STATE,
    NodeView,
};

use crate::model::Role;
use crate::peers::{Peer, Peers};

/// A Node as a peer: InternalIPs in order, the OVN annotation addresses, the role by label.
pub fn peer_of(node: &NodeView) -> Peer {
    let role = if node.label(MASTER_LABEL) {
        Role::Master
    } else if node.label(ARBITER_LABEL) {
        Role::Arbiter
    } else {
        Role::Worker
    };
    let addresses = node
        .internal_ips
        .iter()
        .filter_map(|a| a.parse().ok())
        .collect();
    // host-cidrs holds CIDRs, host-addresses plain IPs; both are JSON lists in a string.
    let parse = |key: &str| -> Option<Vec<IpAddr>> {
        let list: Vec<String> = serde_json::from_str(node.annotation(key)?).ok()?;
        Some(
            list.iter()
                .filter_map(|x| x.split('/').next()?.parse().ok())
                .collect(),
        )
    };
    let ovn_addresses = parse(HOST_CIDRS)
        .or_else(|| parse(HOST_ADDRESSES))
        .unwrap_or_default();
    let annotation = |key| node.annotation(key).map(str::to_owned);
    Peer {
        name: node.metadata.name.clone().unwrap_or_default(),
        role,
        addresses,
        ovn_addresses,
        kubelet_version: node.kubelet_version.clone(),
        // Every Node is MCO's: one it has not annotated yet (just joined) is not `Done`.
        mco_state: Some(annotation(MCO_STATE).unwrap_or_default()),
        mco_current_config: annotation(MCO_CURRENT),
        mco_desired_config: annotation(MCO_DESIRED),
    }
    .canonicalize()
}

#[derive(Default)]
struct Cache {
    nodes: Vec<Peer>,
    /// Set once a complete list arrived.
    complete: bool,
    /// Nodes of a re-list in progress.
    staging: Vec<Peer>,
}

impl Cache {
    /// Whether the node's peer view changed (status heartbeats do not change it).
    fn upsert(&mut self, p: Peer) -> bool {
        match self.nodes.iter_mut().find(|n| n.name == p.name) {
            Some(n) if *n == p => false,
            Some(n) => {
                *n = p;
                true
            }
            None => {
                self.nodes.push(p);
                true
            }
        }
    }
}

/// The shared cache; the watch task updates it and pokes `changed`.
#[derive(Clone, Default)]
pub struct NodeCache {
    inner: Arc<Mutex<Cache>>,
}

impl NodeCache {
    /// The peers, once a complete node list has been seen.
    pub fn peers(&self) -> Option<Peers> {
        let c = self.inner.lock().expect("node cache lock");
        c.complete.then(|| Peers {
            nodes: c.nodes.clone(),
        })
    }

    /// Applies one watch event; whether the peers readers see changed.
    fn apply(&self, event: Event<NodeView>) -> bool {
        let mut c = self.inner.lock().expect("node cache lock");
        match event {
            Event::Init => {
                c.staging.clear();
                false
            }
            Event::InitApply(n) => {
                let p = peer_of(&n);
                c.staging.push(p);
                false
            }
            Event::InitDone => {
                // Keep the previous order for nodes that stayed; append new ones in list
                // order (upstream's cache order, which the rendered peer lists follow).
                let fresh = std::mem::take(&mut c.staging);
                let index: HashMap<&str, usize> = fresh
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (p.name.as_str(), i))
                    .collect();
                let mut kept = vec![false; fresh.len()];
                let mut ordered: Vec<Peer> = Vec::with_capacity(fresh.len());
                for old in &c.nodes {
                    if let Some(&i) = index.get(old.name.as_str()) {
                        kept[i] = true;
                        ordered.push(fresh[i].clone());
                    }
                }
                ordered.extend(
                    fresh
                        .iter()
                        .zip(&kept)
                        .filter(|(_, k)| !**k)
                        .map(|(p, _)| p.clone()),
                );
                let changed = !c.complete || c.nodes != ordered;
                c.nodes = ordered;
                c.complete = true;
                release_freed_memory();
                changed
            }
            Event::Apply(n) => c.upsert(peer_of(&n)),
            Event::Delete(n) => {
                let name = n.metadata.name.unwrap_or_default();
                let before = c.nodes.len();
                c.nodes.retain(|p| p.name != name);
                c.nodes.len() != before
            }
        }
    }

    /// Starts the watch with the kubeconfig at `path` (falling back to the local API server on
    /// `api_port`); `changed` gets a message after every change to the cache.
    pub fn spawn(
        path: &Path,
        api_port: u16,
        changed: tokio::sync::mpsc::UnboundedSender<()>,
    ) -> NodeCache {
        let cache = NodeCache::default();
        let (c, path) = (cache.clone(), path.to_owned());
        tokio::spawn(async move {
            let mut delay = FIRST_RETRY;
            let mut endpoint = Endpoint::Kubeconfig;
            loop {
                // Watched before the client reads them, so no rotation slips in between.
                let files = credential_files(&path);
                let stop = match (DirWatcher::new(files), client(&path, endpoint).await) {
                    (Ok((mut watcher, mut wakes)), Ok(client)) => {
                        watcher.rewatch(None);
                        let (stop, worked) = c.follow(client, &changed, &mut wakes).await;
                        if worked {
                            delay = FIRST_RETRY;
                        }
                        stop
                    }
                    (Err(e), _) => Stop::Failing(Failure::Credentials(e)),
                    (_, Err(e)) => Stop::Failing(Failure::Client(e)),
                };
                match stop {
                    Stop::CredentialsChanged => {
                        tracing::info!(
                            "{} or a file it names changed: rebuilding the Kubernetes client",
                            path.display()
                        );
                        delay = FIRST_RETRY;
                        // Let a rotation's writes settle (kubelet writes, then swaps a link).
                        tokio::time::sleep(FIRST_RETRY).await;
                        continue;
                    }
                    Stop::Unauthorized => tracing::warn!(
                        "the API server refused the credentials of {} (401): rebuilding the \
                         client from it in {delay:?}",
                        path.display()
                    ),
                    Stop::Failing(e) => {
                        let next = endpoint.other(api_port);
                        tracing::warn!(
                            "{e} (via {endpoint:?}); keeping the last known nodes, trying {next:?} \
                             in {delay:?}"
                        );
                        endpoint = next;
                    }
                }
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(MAX_RETRY);
            }
        });
        cache
    }

    /// Lists then watches Nodes with `client` into the cache until the credentials change, are
    /// refused, or the endpoint keeps failing; and whether any event came through.
    async fn follow(
        &self,
        client: Client,
        changed: &tokio::sync::mpsc::UnboundedSender<()>,
        credentials: &mut tokio::sync::mpsc::UnboundedReceiver<Wake>,
    ) -> (Stop, bool) {
        let stream = watcher::watcher(Api::<NodeView>::all(client), watcher::Config::default())
            .default_backoff();
        let mut stream = std::pin::pin!(stream);
        let (mut failures, mut worked) = (0, false);
        let stop = loop {
            tokio::select! {
                w = credentials.recv() => break match w {
                    Some(_) => Stop::CredentialsChanged,
                    None => Stop::Failing(Failure::CredentialsWatchStopped),
                },
                ev = stream.next() => match ev {
                    None => break Stop::Failing(Failure::WatchEnded),
                    Some(Ok(ev)) => {
                        // `Init` starts every (re)list attempt, failing ones included.
                        if !matches!(ev, Event::Init) {
                            (failures, worked) = (0, true);
                        }
                        if self.apply(ev) {
                            let _ = changed.send(());
                        }
                    }
                    Some(Err(e)) if unauthorized(&e) => break Stop::Unauthorized,
                    Some(Err(e)) => {
                        failures += 1;
                        if failures >= ENDPOINT_FAILURES {
                            break Stop::Failing(Failure::Watch(e));
                        }
                        tracing::warn!("node watch: {e}; keeping the last known nodes");
                    }
                }
            }
        };
        (stop, worked)
    }
}

/// A complete list of thousands of Nodes leaves megabytes of freed pages (the pages' JSON, the
/// transient views) that glibc keeps mapped unless asked: hand them back to the kernel.
fn release_freed_memory() {
    #[cfg(target_env = "gnu")]
    // SAFETY: malloc_trim has no preconditions; it only releases free heap memory.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// What keeps failing with one endpoint: the other is tried next.
#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error("cannot watch the credential files: {0}")]
    Credentials(notify::Error),
    #[error(transparent)]
    Client(ClientError),
    #[error("the credential file watch stopped")]
    CredentialsWatchStopped,
    #[error("the node watch ended")]
    WatchEnded,
    #[error("node watch: {0}")]
    Watch(kube::runtime::watcher::Error),
}

/// Why a client's watch ended.
enum Stop {
    CredentialsChanged,
    Unauthorized,
    Failing(Failure),
}

/// Back-off between client rebuilds.
const FIRST_RETRY: std::time::Duration = std::time::Duration::from_secs(1);
const MAX_RETRY: std::time::Duration = std::time::Duration::from_secs(30);
/// Consecutive failures (the watcher's own back-off between them) before the other endpoint
/// is tried.
const ENDPOINT_FAILURES: u32 = 3;

#[cfg(test)]
mod tests {
    use super::*;

    fn node(json: serde_json::Value) -> NodeView {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn a_node_mco_has_not_annotated_counts_as_an_upgrade() {
        let annotated = node(serde_json::json!({
            "metadata": {"name": "m0", "labels": {MASTER_LABEL: ""}, "annotations": {
                MCO_STATE: "Done", MCO_CURRENT: "rendered-master-2", MCO_DESIRED: "rendered-master-2",
                "k8s.ovn.org/host-cidrs": "[\"192.0.2.10/24\",\"2001:db8::10/128\"]"}},
            "status": {"addresses": [{"type": "InternalIP", "address": "192.0.2.10"},
                                     {"type": "Hostname", "address": "m0"}],
                       "nodeInfo": {"kubeletVersion": "v1.34.1", "architecture": "", "bootID": "",
                        "containerRuntimeVersion": "", "kernelVersion": "", "kubeProxyVersion": "",
                        "machineID": "", "operatingSystem": "", "osImage": "", "systemUUID": ""}}
        }));
        let p = peer_of(&annotated);
        assert_eq!(p.role, Role::Master);
        assert_eq!(p.addresses, ["192.0.2.10".parse::<IpAddr>().unwrap()]);
        assert_eq!(p.ovn_addresses.len(), 2);
        assert_eq!(p.mco_state.as_deref(), Some("Done"));
        assert_eq!(p.mco_current_config, p.mco_desired_config);
        let fresh = node(serde_json::json!({"metadata": {"name": "w9"}}));
        let q = peer_of(&fresh);
        assert_eq!(q.role, Role::Worker);
        assert_eq!(q.mco_state.as_deref(), Some(""));
        let mut both = Peers {
            nodes: vec![p.clone(), q],
        };
        both.nodes[1].kubelet_version = p.kubelet_version.clone();
        assert!(both.upgrade_running(), "a node without MCO state");
        assert!(!Peers { nodes: vec![p] }.upgrade_running());
    }
}
