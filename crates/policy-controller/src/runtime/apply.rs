//! Sending one reconcile's writes, each only while this replica leads, and keeping the
//! rendered MachineConfigs the nodes' annotations name.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{DeleteParams, PostParams, Preconditions};
use kube::{Api, Client};

use super::changes::Writes;
use super::leader::Leadership;
use crate::api::{
    MachineConfig, NodeNetworkConfigurationEnactment, NodeNetworkConfigurationPolicy,
};
use crate::rollout;

/// Why a reconcile's writes stopped.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("lost the lease: {0} writes not sent")]
    NotLeading(usize),
    #[error("{what}: {source}")]
    Api {
        what: String,
        #[source]
        source: kube::Error,
    },
}

impl WriteError {
    /// A 409 means the watches are behind the API: the next event brings the object's
    /// current version and the reconcile starts from it.
    pub fn is_conflict(&self) -> bool {
        matches!(self, WriteError::Api { source: kube::Error::Api(s), .. } if s.code == 409)
    }
}

fn api_error(what: impl Into<String>) -> impl FnOnce(kube::Error) -> WriteError {
    let what = what.into();
    move |source| WriteError::Api { what, source }
}

/// Sends the writes: MachineConfigs first (what the nodes apply), then enactments, then the
/// policies' summaries. Returns how many were sent.
pub async fn apply(
    client: &Client,
    leader: &Leadership,
    writes: Writes,
) -> Result<usize, WriteError> {
    let total = writes.machine_configs.len()
        + writes.delete_machine_configs.len()
        + writes.enactments.len()
        + writes.delete_enactments.len()
        + writes.policy_status.len();
    let mut sent = 0;
    let mut guard = || match leader.is_leading() {
        true => {
            sent += 1;
            Ok(())
        }
        false => Err(WriteError::NotLeading(total - sent)),
    };
    let mcs: Api<MachineConfig> = Api::all(client.clone());
    for mc in &writes.machine_configs {
        guard()?;
        machine_config(&mcs, mc).await?;
    }
    for (name, rv) in &writes.delete_machine_configs {
        guard()?;
        delete(&mcs, name, rv.clone()).await?;
    }
    let nnces: Api<NodeNetworkConfigurationEnactment> = Api::all(client.clone());
    for e in &writes.enactments {
        guard()?;
        enactment(&nnces, e).await?;
    }
    for name in &writes.delete_enactments {
        guard()?;
        delete(&nnces, name, None).await?;
    }
    let policies: Api<NodeNetworkConfigurationPolicy> = Api::all(client.clone());
    for p in &writes.policy_status {
        guard()?;
        let name = p.metadata.name.as_deref().unwrap_or_default();
        policies
            .replace_status(name, &PostParams::default(), p)
            .await
            .map_err(api_error(format!("status of policy {name}")))?;
        tracing::info!("policy {name}: status written");
    }
    Ok(total)
}

async fn machine_config(api: &Api<MachineConfig>, mc: &MachineConfig) -> Result<(), WriteError> {
    let name = mc.metadata.name.as_deref().unwrap_or_default();
    let what = format!("MachineConfig {name}");
    match mc.metadata.resource_version {
        None => api
            .create(&PostParams::default(), mc)
            .await
            .map_err(api_error(&what))?,
        Some(_) => api
            .replace(name, &PostParams::default(), mc)
            .await
            .map_err(api_error(&what))?,
    };
    tracing::info!("{what} written");
    Ok(())
}

async fn enactment(
    api: &Api<NodeNetworkConfigurationEnactment>,
    e: &NodeNetworkConfigurationEnactment,
) -> Result<(), WriteError> {
    let name = e.metadata.name.as_deref().unwrap_or_default();
    let what = format!("enactment {name}");
    let mut e = e.clone();
    if e.metadata.resource_version.is_none() {
        // The status subresource drops status on create: create, then write the status.
        let created = api
            .create(&PostParams::default(), &e)
            .await
            .map_err(api_error(&what))?;
        e.metadata = created.metadata;
    }
    api.replace_status(name, &PostParams::default(), &e)
        .await
        .map_err(api_error(&what))?;
    tracing::debug!("{what} written");
    Ok(())
}

async fn delete<K>(api: &Api<K>, name: &str, rv: Option<String>) -> Result<(), WriteError>
where
    K: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let dp = DeleteParams {
        preconditions: rv.map(|rv| Preconditions {
            resource_version: Some(rv),
            uid: None,
        }),
        ..DeleteParams::default()
    };
    match api.delete(name, &dp).await {
        Ok(_) => {}
        Err(kube::Error::Api(s)) if s.code == 404 => {}
        Err(e) => return Err(api_error(format!("delete {name}"))(e)),
    }
    tracing::info!("{name} deleted");
    Ok(())
}

/// The rendered MachineConfigs the nodes' currentConfig and desiredConfig name. MCO names a
/// rendered config after a hash of its content and never changes it, so each is read once and
/// kept while a node names it.
#[derive(Default)]
pub struct Rendered(BTreeMap<String, MachineConfig>);

impl Rendered {
    pub fn get(&self) -> &BTreeMap<String, MachineConfig> {
        &self.0
    }

    /// Reads the ones not yet kept; forgets those no node names.
    pub async fn refresh(
        &mut self,
        client: &Client,
        nodes: &[&ObjectMeta],
    ) -> Result<(), WriteError> {
        let named: BTreeSet<String> = nodes
            .iter()
            .flat_map(|n| n.annotations.iter().flatten())
            .filter(|(k, _)| *k == rollout::CURRENT_CONFIG || *k == rollout::DESIRED_CONFIG)
            .map(|(_, v)| v.clone())
            .collect();
        self.0.retain(|name, _| named.contains(name));
        let api: Api<MachineConfig> = Api::all(client.clone());
        let missing: Vec<&String> = named.iter().filter(|n| !self.0.contains_key(*n)).collect();
        for name in missing {
            let mc = api
                .get_opt(name)
                .await
                .map_err(api_error(format!("rendered MachineConfig {name}")))?;
            if let Some(mc) = mc {
                self.0.insert(name.clone(), mc);
            }
        }
        Ok(())
    }
}
