//! The cluster runtime around the pure core: watch, recompute, write the difference.
//!
//! Every replica watches (so a new leader starts warm); only the lease holder writes. Any
//! relevant change schedules one reconcile after a short debounce; a reconcile reads the
//! watches' stores, computes [`changes::changes`] and sends [`apply::apply`]. It is level-based:
//! a new leader, a restart or a relist recomputes from what the API holds, so a leader killed
//! mid-reconcile loses nothing and what it did write is not written again.

pub mod apply;
pub mod changes;
pub mod leader;
pub mod watches;

use std::time::Duration;

use futures_util::{FutureExt, StreamExt};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use kube::api::{ApiResource, DynamicObject, ListParams};
use kube::{Api, Client};
use tokio::time::Instant;

use apply::{Rendered, WriteError};
use changes::Snapshot;
use leader::{Leadership, LeaseSettings};
use watches::Stores;

/// What `run` needs besides the client.
#[derive(Clone, Debug)]
pub struct Settings {
    pub lease: LeaseSettings,
    /// How long to gather further changes before reconciling.
    pub debounce: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error(
        "kubernetes-nmstate's operator is installed (NMState {0:?} exists): it owns \
         NodeNetworkConfigurationPolicies, and two controllers of one API would fight; not starting"
    )]
    KubernetesNmstate(String),
    #[error("cannot tell whether kubernetes-nmstate's operator is installed: {0}")]
    Preflight(#[source] kube::Error),
    #[error("the watches ended")]
    WatchesEnded,
}

/// kubernetes-nmstate's operator deploys its handler for an `nmstate.io/v1` NMState object: one
/// existing is the signal that it, not this controller, acts on the policies.
pub async fn refuse_beside_kubernetes_nmstate(client: &Client) -> Result<(), RuntimeError> {
    let resource = ApiResource {
        group: "nmstate.io".into(),
        version: "v1".into(),
        api_version: "nmstate.io/v1".into(),
        kind: "NMState".into(),
        plural: "nmstates".into(),
    };
    let api: Api<DynamicObject> = Api::all_with(client.clone(), &resource);
    match api.list_metadata(&ListParams::default().limit(1)).await {
        Ok(list) => match list.items.first() {
            Some(o) => Err(RuntimeError::KubernetesNmstate(
                o.metadata.name.clone().unwrap_or_default(),
            )),
            None => Ok(()),
        },
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
        Err(e) => Err(RuntimeError::Preflight(e)),
    }
}

/// Runs until `shutdown` completes or the watches end.
pub async fn run(
    client: Client,
    settings: Settings,
    shutdown: impl Future<Output = ()>,
) -> Result<(), RuntimeError> {
    refuse_beside_kubernetes_nmstate(&client).await?;
    let leases: Api<Lease> = Api::namespaced(client.clone(), &settings.lease.namespace);
    let (leadership, election) = leader::elect(leases.clone(), settings.lease.clone());
    let (stores, triggers) = watches::watch(&client);
    let control = Control {
        client,
        stores,
        leadership,
        debounce: settings.debounce,
        rendered: Rendered::default(),
    };
    tokio::select! {
        () = election => Ok(()),
        r = control.run(triggers) => r,
        () = shutdown => {
            give_up(&leases, &settings.lease).await;
            Ok(())
        }
    }
}

/// On shutdown, the lease is given up (the other replica takes over at its next retry, not a
/// lease's duration later); a failure is only said: the lease then expires as it would.
async fn give_up(leases: &Api<Lease>, s: &leader::LeaseSettings) {
    match leader::release(leases, s).await {
        Ok(true) => tracing::info!("gave up the Lease {}/{}", s.namespace, s.name),
        Ok(false) => {}
        Err(e) => tracing::warn!("cannot give up the Lease {}/{}: {e}", s.namespace, s.name),
    }
}

/// The reconcile loop's state.
struct Control {
    client: Client,
    stores: Stores,
    leadership: Leadership,
    debounce: Duration,
    rendered: Rendered,
}

/// Back-off after a failed reconcile: 0.5 s doubling to 30 s.
fn retry_after(failures: u32) -> Duration {
    Duration::from_millis(500)
        .saturating_mul(1 << failures.min(6))
        .min(Duration::from_secs(30))
}

impl Control {
    async fn run(
        mut self,
        mut triggers: futures_util::stream::BoxStream<'static, bool>,
    ) -> Result<(), RuntimeError> {
        // The first reconcile follows the last watch's initial list (its InitDone triggers).
        let mut due: Option<Instant> = None;
        let mut failures = 0;
        loop {
            let wake = due.unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
            tokio::select! {
                t = triggers.next() => match t {
                    Some(true) => { due.get_or_insert(Instant::now() + self.debounce); }
                    Some(false) => {}
                    None => return Err(RuntimeError::WatchesEnded),
                },
                () = self.leadership.changed() => due = Some(Instant::now()),
                () = tokio::time::sleep_until(wake), if due.is_some() => {
                    due = None;
                    match self.reconcile().await {
                        Ok(()) => failures = 0,
                        Err(e) => {
                            failures += 1;
                            tracing::warn!("reconcile: {e}");
                            due = Some(Instant::now() + retry_after(failures));
                        }
                    }
                }
            }
        }
    }

    /// One pass, when leading and once every watch has listed.
    async fn reconcile(&mut self) -> Result<(), WriteError> {
        if !self.leadership.is_leading() || !self.stores_ready() {
            return Ok(());
        }
        // The stores' objects are borrowed, not copied: a copy of every Node and enactment on
        // each reconcile is most of the controller's peak memory on a large cluster.
        let (policies, owned, enactments) = (
            self.stores.policies.state(),
            self.stores.owned.state(),
            self.stores.enactments.state(),
        );
        let node_objects = self.stores.nodes.state();
        let node_events = self.stores.node_events.state();
        let pools = cloned(&self.stores.pools);
        let nodes: Vec<&ObjectMeta> = node_objects.iter().map(|n| &n.metadata).collect();
        self.rendered.refresh(&self.client, &nodes).await?;
        let snapshot = Snapshot {
            policies: &borrowed(&policies),
            pools: &pools,
            nodes: &nodes,
            owned: &borrowed(&owned),
            enactments: &borrowed(&enactments),
            rendered: self.rendered.get(),
            node_events: &borrowed(&node_events),
        };
        let (_, writes) = match changes::changes(&snapshot, &now()) {
            Ok(w) => w,
            Err(e) => {
                tracing::error!("render: {e}");
                return Ok(());
            }
        };
        if writes.is_empty() {
            tracing::debug!("reconciled: nothing to write");
            return Ok(());
        }
        let sent = apply::apply(&self.client, &self.leadership, writes).await?;
        tracing::info!("reconciled: {sent} writes");
        Ok(())
    }

    fn stores_ready(&self) -> bool {
        self.stores.ready().now_or_never().is_some()
    }
}

fn borrowed<K>(objects: &[std::sync::Arc<K>]) -> Vec<&K> {
    objects.iter().map(|o| &**o).collect()
}

fn cloned<K: Clone + kube::runtime::reflector::Lookup>(
    store: &kube::runtime::reflector::Store<K>,
) -> Vec<K>
where
    K::DynamicType: Eq + std::hash::Hash + Clone,
{
    store.state().iter().map(|k| (**k).clone()).collect()
}

/// Now, to the second: condition timestamps are stored to the second, so a condition written
/// now compares equal when read back.
fn now() -> Time {
    let t = k8s_openapi::jiff::Timestamp::now();
    Time(k8s_openapi::jiff::Timestamp::from_second(t.as_second()).unwrap_or(t))
}
