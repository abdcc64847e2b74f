//! The publisher's side of the API: the kubelet's credentials (as the probes and
//! keepalived-monitor use them), the Node's uid for the owner reference, the object created
//! once, its status replaced on every write; and the one check that makes it stand aside:
//! kubernetes-nmstate's operator deploys its handler (which publishes NodeNetworkStates) for an
//! `nmstate.io/v1` NMState object, the same signal the policy controller refuses to start by.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use k8s_openapi::api::core::v1::Node;
use kube::api::{ApiResource, DynamicObject, ListParams, PostParams};
use kube::core::{Request, Resource};
use kube::{Api, Client};

use super::compact::CompactDocument;
use super::document;
use super::state::Failure;
use crate::probe::api;

/// Why a write did not happen.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("the API server is away ({0}); keeping the latest document")]
    Away(String),
    #[error("the API server refused the NodeNetworkState ({code}): {message}")]
    Refused { code: u16, message: String },
    #[error(
        "kubernetes-nmstate's handler publishes NodeNetworkStates on this cluster (NMState \
         {0:?} exists): not publishing"
    )]
    KubernetesNmstate(String),
}

impl WriteError {
    pub fn failure(&self) -> Failure {
        match self {
            WriteError::Away(_) => Failure::Away,
            WriteError::Refused { .. } => Failure::Refused,
            WriteError::KubernetesNmstate(_) => Failure::StandAside,
        }
    }
}

impl From<kube::Error> for WriteError {
    fn from(e: kube::Error) -> WriteError {
        match e {
            // A 5xx (and 429) is the server's trouble, not the document's.
            kube::Error::Api(s) if (400..500).contains(&s.code) && s.code != 429 => {
                WriteError::Refused {
                    code: s.code,
                    message: s.message,
                }
            }
            e => WriteError::Away(e.to_string()),
        }
    }
}

fn resource(group: &str, version: &str, kind: &str, plural: &str) -> ApiResource {
    ApiResource {
        group: group.into(),
        version: version.into(),
        api_version: format!("{group}/{version}"),
        kind: kind.into(),
        plural: plural.into(),
    }
}

/// This node's NodeNetworkState in the API.
pub struct Cluster {
    kubeconfig: PathBuf,
    node: String,
    limit: Duration,
    client: Option<Client>,
    /// The object's resourceVersion after our last write (none: read it first).
    resource_version: Option<String>,
}

impl Cluster {
    pub fn new(kubeconfig: PathBuf, node: String, limit: Duration) -> Cluster {
        Cluster {
            kubeconfig,
            node,
            limit,
            client: None,
            resource_version: None,
        }
    }

    pub fn kubeconfig(&self) -> &std::path::Path {
        &self.kubeconfig
    }

    /// Writes `doc` as read at `at`; within the limit, or [`WriteError::Away`].
    pub async fn publish(
        &mut self,
        doc: &CompactDocument,
        at: SystemTime,
    ) -> Result<(), WriteError> {
        let r = match tokio::time::timeout(self.limit * 3, self.try_publish(doc, at)).await {
            Ok(r) => r,
            Err(_) => Err(WriteError::Away(format!(
                "no answer within {:?}",
                self.limit
            ))),
        };
        if r.is_err() {
            // A fresh client next time: the kubelet's certificate may have rotated, the
            // server may be another one behind the VIP; the object is read again.
            self.client = None;
            self.resource_version = None;
        }
        r
    }

    async fn try_publish(
        &mut self,
        doc: &CompactDocument,
        at: SystemTime,
    ) -> Result<(), WriteError> {
        let client = self.client().await?;
        stand_aside_for_kubernetes_nmstate(&client).await?;
        let nns: Api<DynamicObject> = Api::all_with(client.clone(), &nns_resource());
        let rv = match self.resource_version.take() {
            Some(rv) => rv,
            None => self.existing_or_new(&client, &nns).await?,
        };
        match self.replace_status(&client, &rv, doc, at).await {
            // Someone else wrote it, or it was deleted: read (or create) it and retry once.
            Err(kube::Error::Api(s)) if s.code == 409 || s.code == 404 => {
                let rv = self.existing_or_new(&client, &nns).await?;
                self.replace_status(&client, &rv, doc, at).await?;
            }
            r => {
                r?;
            }
        }
        Ok(())
    }

    async fn client(&mut self) -> Result<Client, WriteError> {
        if let Some(c) = &self.client {
            return Ok(c.clone());
        }
        if !self.kubeconfig.exists() {
            return Err(WriteError::Away(format!(
                "no kubeconfig at {} yet",
                self.kubeconfig.display()
            )));
        }
        let (client, _) = api::client(&self.kubeconfig, self.limit)
            .await
            .map_err(WriteError::Away)?;
        self.client = Some(client.clone());
        Ok(client)
    }

    /// The object's resourceVersion, creating it (owned by the Node) when it does not exist.
    async fn existing_or_new(
        &self,
        client: &Client,
        nns: &Api<DynamicObject>,
    ) -> Result<String, WriteError> {
        // Its metadata only: the status it holds is as large as the document.
        if let Some(o) = nns.get_metadata_opt(&self.node).await? {
            return Ok(o.metadata.resource_version.unwrap_or_default());
        }
        let node = Api::<Node>::all(client.clone()).get(&self.node).await?;
        let uid = node.metadata.uid.unwrap_or_default();
        let obj: DynamicObject = serde_json::from_value(document::new_object(&self.node, &uid))
            .map_err(|e| WriteError::Away(format!("building the object: {e}")))?;
        let created = nns.create(&params(), &obj).await?;
        tracing::info!("created NodeNetworkState {} owned by its Node", self.node);
        Ok(created.metadata.resource_version.unwrap_or_default())
    }

    /// The status replaced with `doc`'s, its body built from the document's text (no parsed
    /// copy of the state), the answer read for its resourceVersion only.
    async fn replace_status(
        &mut self,
        client: &Client,
        rv: &str,
        doc: &CompactDocument,
        at: SystemTime,
    ) -> Result<(), kube::Error> {
        let body = doc.status_update_json(&self.node, rv, at).into_bytes();
        let url = DynamicObject::url_path(&nns_resource(), None);
        let request = Request::new(url)
            .replace_subresource("status", &self.node, &params(), body)
            .map_err(kube::Error::BuildRequest)?;
        let written: Written = client.request(request).await?;
        self.resource_version = written.metadata.resource_version;
        Ok(())
    }
}

/// What a write's answer is read for.
#[derive(serde::Deserialize)]
struct Written {
    metadata: WrittenMetadata,
}

#[derive(serde::Deserialize)]
struct WrittenMetadata {
    #[serde(rename = "resourceVersion")]
    resource_version: Option<String>,
}

fn nns_resource() -> ApiResource {
    resource(
        document::GROUP,
        document::VERSION,
        document::KIND,
        document::PLURAL,
    )
}

fn params() -> PostParams {
    PostParams {
        field_manager: Some(document::MANAGER.into()),
        ..PostParams::default()
    }
}

/// [`WriteError::KubernetesNmstate`] when an NMState object exists.
async fn stand_aside_for_kubernetes_nmstate(client: &Client) -> Result<(), WriteError> {
    let api: Api<DynamicObject> = Api::all_with(
        client.clone(),
        &resource("nmstate.io", "v1", "NMState", "nmstates"),
    );
    match api.list_metadata(&ListParams::default().limit(1)).await {
        Ok(list) => match list.items.first() {
            Some(o) => Err(WriteError::KubernetesNmstate(
                o.metadata.name.clone().unwrap_or_default(),
            )),
            None => Ok(()),
        },
        // No such resource: kubernetes-nmstate's operator is not installed.
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
        Err(e) => Err(e.into()),
    }
}
