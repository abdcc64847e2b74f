//! The API-server and node-readiness probes (kubernetes-nmstate's): a GET of this node's Node
//! object with a fresh client from the kubelet's kubeconfig (the kubeconfig's server: api-int
//! on a node). Any answer from the server counts for the API server, also a refusal (a node
//! may not read every object); the node counts as ready when its `Ready` condition is `True`.
//! Before kubelet joined (a first boot) there is no such kubeconfig: the bootstrap one
//! (`/etc/kubernetes/kubeconfig`, whose server is api-int too) stands in for the API server;
//! its user may not read Nodes, so readiness is not probed then. Without either, neither is.

use std::path::{Path, PathBuf};
use std::time::Duration;

use k8s_openapi::api::core::v1::Node;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Api, Client, Config};

/// What one look at the API server found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// The server answered; `ready`: the node's Ready condition is True.
    Answered { server: String, ready: bool },
    /// No answer (or no client could be built): why.
    Silent { server: String, why: String },
}

/// One GET of node `node` through a client built now from the first of `kubeconfigs` that
/// exists, within `limit`; None when none does.
pub async fn look(kubeconfigs: &[PathBuf], node: &str, limit: Duration) -> Option<Seen> {
    let kubeconfig = kubeconfigs.iter().find(|k| k.exists())?;
    let (client, server) = match client(kubeconfig, limit).await {
        Ok(c) => c,
        Err(why) => {
            return Some(Seen::Silent {
                server: kubeconfig.display().to_string(),
                why,
            });
        }
    };
    Some(match get(client, node, limit).await {
        Ok(ready) => Seen::Answered { server, ready },
        Err(why) => Seen::Silent { server, why },
    })
}

/// A client from `kubeconfig` whose requests give up after `limit`, and the server it talks to.
pub async fn client(kubeconfig: &Path, limit: Duration) -> Result<(Client, String), String> {
    let k = Kubeconfig::read_from(kubeconfig)
        .map_err(|e| format!("cannot read the kubeconfig: {e}"))?;
    let mut config = Config::from_custom_kubeconfig(k, &KubeConfigOptions::default())
        .await
        .map_err(|e| format!("cannot use the kubeconfig: {e}"))?;
    let server = config.cluster_url.to_string();
    config.connect_timeout = Some(limit);
    config.read_timeout = Some(limit);
    let client = Client::try_from(config).map_err(|e| e.to_string())?;
    Ok((client, server))
}

/// Whether the node is ready, if the server answered at all.
async fn get(client: Client, node: &str, limit: Duration) -> Result<bool, String> {
    let nodes: Api<Node> = Api::all(client);
    match tokio::time::timeout(limit, nodes.get(node)).await {
        Err(_) => Err(format!("no answer within {limit:?}")),
        Ok(Ok(n)) => Ok(is_ready(&n)),
        // An HTTP answer (403, 404, ...) is the server answering.
        Ok(Err(kube::Error::Api(_))) => Ok(false),
        Ok(Err(e)) => Err(e.to_string()),
    }
}

fn is_ready(n: &Node) -> bool {
    n.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}
