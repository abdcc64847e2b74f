//! The watches: one reflector per kind the controller reads, and one stream of triggers that
//! says when something the core reads may have changed. A Node's heartbeat or a pool's machine
//! counts change objects without changing what the core reads; [`Relevance`] drops those.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use futures_util::stream::{BoxStream, StreamExt};
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::api::events::v1::Event as NodeEvent;
use kube::core::PartialObjectMeta;
use kube::runtime::WatchStreamExt;
use kube::runtime::reflector::{self, Store};
use kube::runtime::watcher::{self, Event};
use kube::{Api, Client, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::api::{
    MachineConfig, MachineConfigPool, NodeNetworkConfigurationEnactment,
    NodeNetworkConfigurationPolicy,
};
use crate::render::{MANAGED_BY, MANAGED_BY_LABEL};
use crate::rollout;

/// What the watches hold.
#[derive(Clone)]
pub struct Stores {
    pub policies: Store<NodeNetworkConfigurationPolicy>,
    pub pools: Store<MachineConfigPool>,
    pub nodes: Store<PartialObjectMeta<Node>>,
    pub owned: Store<MachineConfig>,
    pub enactments: Store<NodeNetworkConfigurationEnactment>,
    /// The Events nodes recorded on their Nodes ([`rollout::NODE_REPORTER`]'s only).
    pub node_events: Store<NodeEvent>,
}

impl Stores {
    /// Waits until every watch has listed once: before that an empty store would read as "no
    /// policies" and delete every MachineConfig.
    pub async fn ready(&self) {
        let _ = self.policies.wait_until_ready().await;
        let _ = self.pools.wait_until_ready().await;
        let _ = self.nodes.wait_until_ready().await;
        let _ = self.owned.wait_until_ready().await;
        let _ = self.enactments.wait_until_ready().await;
        let _ = self.node_events.wait_until_ready().await;
    }
}

/// Remembers a fingerprint of what the core reads of each object, so that an update that
/// changes none of it triggers nothing. A relist (after a 410 or a dropped watch) always
/// triggers: objects may have gone while the watch was down.
#[derive(Default)]
pub struct Relevance {
    seen: HashMap<String, u64>,
    relisting: HashMap<String, u64>,
}

impl Relevance {
    /// Whether `event` may change what the core reads.
    pub fn relevant<K: Resource>(
        &mut self,
        event: &Event<K>,
        fingerprint: impl Fn(&K) -> u64,
    ) -> bool {
        let name = |k: &K| k.meta().name.clone().unwrap_or_default();
        match event {
            Event::Apply(k) => self.seen.insert(name(k), fingerprint(k)) != Some(fingerprint(k)),
            Event::Delete(k) => {
                self.seen.remove(&name(k));
                true
            }
            Event::Init => {
                self.relisting.clear();
                false
            }
            Event::InitApply(k) => {
                self.relisting.insert(name(k), fingerprint(k));
                false
            }
            Event::InitDone => {
                self.seen = std::mem::take(&mut self.relisting);
                true
            }
        }
    }
}

fn hash_of(value: &impl Serialize) -> u64 {
    let mut h = DefaultHasher::new();
    serde_json::to_string(value)
        .unwrap_or_default()
        .hash(&mut h);
    h.finish()
}

/// A Node's UID, labels and MCO annotations.
pub fn node_fingerprint(n: &PartialObjectMeta<Node>) -> u64 {
    let m = &n.metadata;
    let mco: Vec<(&String, &String)> = m
        .annotations
        .iter()
        .flatten()
        .filter(|(k, _)| {
            [
                rollout::CURRENT_CONFIG,
                rollout::DESIRED_CONFIG,
                rollout::STATE,
                rollout::REASON,
            ]
            .contains(&k.as_str())
        })
        .collect();
    hash_of(&(&m.uid, &m.labels, mco))
}

/// A pool's node selector and whether its roll-out stopped.
pub fn pool_fingerprint(p: &MachineConfigPool) -> u64 {
    hash_of(&(&p.spec.node_selector, p.rollout_stopped()))
}

/// Starts the watches (driven by the returned stream) and returns their stores.
pub fn watch(client: &Client) -> (Stores, BoxStream<'static, bool>) {
    let all = || watcher::Config::default();
    let owned = all().labels(&format!("{MANAGED_BY_LABEL}={MANAGED_BY}"));
    let (policies, s1) = reflect(Api::all(client.clone()), all(), |_| 0, true);
    let (pools, s2) = reflect(Api::all(client.clone()), all(), pool_fingerprint, false);
    let (owned, s3) = reflect(Api::all(client.clone()), owned, |_| 0, true);
    let (enactments, s4) = reflect(Api::all(client.clone()), all(), |_| 0, true);
    let (nodes_store, writer) = reflector::store();
    let mut relevance = Relevance::default();
    let s5 = reflector::reflector(
        writer,
        watcher::watcher(Api::<PartialObjectMeta<Node>>::all(client.clone()), all()),
    )
    .default_backoff()
    .map(move |e| trigger(e, &mut relevance, node_fingerprint, false))
    .boxed();
    let (node_events, s6) = watch_node_events(client);
    let stores = Stores {
        policies,
        pools,
        nodes: nodes_store,
        owned,
        enactments,
        node_events,
    };
    (
        stores,
        futures_util::stream::select_all([s1, s2, s3, s4, s5, s6]).boxed(),
    )
}

/// Nodes record their Events in `default`, as kubelet does.
pub const NODE_EVENTS_NAMESPACE: &str = "default";

/// The Events of [`rollout::NODE_REPORTER`] in [`NODE_EVENTS_NAMESPACE`]: the other Events
/// there (kubelet's, the scheduler's) are dropped before the store, which holds only these.
fn watch_node_events(client: &Client) -> (Store<NodeEvent>, BoxStream<'static, bool>) {
    let api = Api::<NodeEvent>::namespaced(client.clone(), NODE_EVENTS_NAMESPACE);
    let ours = |e: &NodeEvent| e.reporting_controller.as_deref() == Some(rollout::NODE_REPORTER);
    let watch = watcher::watcher(api, watcher::Config::default()).filter(move |e| {
        std::future::ready(match e {
            Ok(Event::Apply(k) | Event::InitApply(k) | Event::Delete(k)) => ours(k),
            _ => true,
        })
    });
    let (store, writer) = reflector::store();
    let mut relevance = Relevance::default();
    let stream = reflector::reflector(writer, watch)
        .default_backoff()
        .map(move |e| trigger(e, &mut relevance, |_| 0, true))
        .boxed();
    (store, stream)
}

/// A reflector whose events become triggers; `always`: every event of this kind is one.
fn reflect<K>(
    api: Api<K>,
    config: watcher::Config,
    fingerprint: fn(&K) -> u64,
    always: bool,
) -> (Store<K>, BoxStream<'static, bool>)
where
    K: Resource<DynamicType = ()>
        + Clone
        + DeserializeOwned
        + std::fmt::Debug
        + Send
        + Sync
        + 'static,
{
    let (store, writer) = reflector::store();
    let mut relevance = Relevance::default();
    let stream = reflector::reflector(writer, watcher::watcher(api, config))
        .default_backoff()
        .map(move |e| trigger(e, &mut relevance, fingerprint, always))
        .boxed();
    (store, stream)
}

fn trigger<K: Resource<DynamicType = ()>>(
    event: Result<Event<K>, watcher::Error>,
    relevance: &mut Relevance,
    fingerprint: fn(&K) -> u64,
    always: bool,
) -> bool {
    match event {
        Ok(e) => {
            relevance.relevant(&e, fingerprint)
                || (always && !matches!(e, Event::Init | Event::InitApply(_)))
        }
        Err(e) => {
            tracing::warn!("watch of {}: {e}", K::plural(&()));
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn node(labels: &[(&str, &str)], annotations: &[(&str, &str)]) -> PartialObjectMeta<Node> {
        let mut n = PartialObjectMeta::<Node>::default();
        n.metadata.name = Some("w0".into());
        let map = |p: &[(&str, &str)]| -> BTreeMap<String, String> {
            p.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        n.metadata.labels = Some(map(labels));
        n.metadata.annotations = Some(map(annotations));
        n
    }

    #[test]
    fn a_heartbeat_that_changes_only_other_annotations_is_not_relevant() {
        let mut r = Relevance::default();
        let first = node(&[("role", "w")], &[(rollout::STATE, "Done")]);
        assert!(r.relevant(&Event::Apply(first), node_fingerprint));
        let mut beat = node(
            &[("role", "w")],
            &[(rollout::STATE, "Done"), ("volumes", "x")],
        );
        beat.metadata.resource_version = Some("9".into());
        assert!(!r.relevant(&Event::Apply(beat), node_fingerprint));
        let degraded = node(&[("role", "w")], &[(rollout::STATE, "Degraded")]);
        assert!(r.relevant(&Event::Apply(degraded), node_fingerprint));
        let moved = node(&[("role", "x")], &[(rollout::STATE, "Degraded")]);
        assert!(r.relevant(&Event::Apply(moved), node_fingerprint));
    }

    #[test]
    fn a_relist_triggers_once_it_is_complete() {
        let mut r = Relevance::default();
        assert!(!r.relevant(&Event::<PartialObjectMeta<Node>>::Init, node_fingerprint));
        assert!(!r.relevant(&Event::InitApply(node(&[], &[])), node_fingerprint));
        assert!(r.relevant(
            &Event::<PartialObjectMeta<Node>>::InitDone,
            node_fingerprint
        ));
        assert!(!r.relevant(&Event::Apply(node(&[], &[])), node_fingerprint));
    }
}
