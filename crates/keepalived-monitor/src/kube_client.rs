//! The Kubernetes client over a node's life: built from the kubelet's kubeconfig and rebuilt when
//! kubelet rotates its client certificate (the kubeconfig or a file it names changes, or the API
//! answers 401), and pointed at `https://localhost:<api-port>` with the same credentials when
//! the kubeconfig's server (api-int, behind the API VIP this node may be about to hold) does not
//! answer, as upstream falls back.

use std::path::{Path, PathBuf};

use kube::config::Kubeconfig;
use kube::{Client, Config};

/// Where the client sends its requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// The kubeconfig's server.
    Kubeconfig,
    /// The local API server, verified against the kubeconfig server's name.
    Localhost(u16),
}

impl Endpoint {
    /// The other endpoint, tried when this one keeps failing.
    pub fn other(self, api_port: u16) -> Endpoint {
        match self {
            Endpoint::Kubeconfig => Endpoint::Localhost(api_port),
            Endpoint::Localhost(_) => Endpoint::Kubeconfig,
        }
    }
}

/// The kubeconfig and every file it names (client certificate and key, CA, token file): a
/// change to any of them means new credentials.
pub fn credential_files(kubeconfig: &Path) -> Vec<PathBuf> {
    let mut files = vec![kubeconfig.to_path_buf()];
    // A kubeconfig that cannot be read names nothing yet; its own change is watched.
    let Ok(k) = Kubeconfig::read_from(kubeconfig) else {
        return files;
    };
    let clusters = k
        .clusters
        .iter()
        .filter_map(|c| c.cluster.as_ref())
        .filter_map(|c| c.certificate_authority.clone());
    let users = k
        .auth_infos
        .iter()
        .filter_map(|a| a.auth_info.as_ref())
        .flat_map(|a| {
            [&a.client_certificate, &a.client_key, &a.token_file]
                .into_iter()
                .flatten()
                .cloned()
        });
    files.extend(clusters.chain(users).map(PathBuf::from));
    files.sort();
    files.dedup();
    files
}

/// Why no client could be built from the kubeconfig.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot build a Kubernetes client from {}: {source}", path.display())]
    Kubeconfig {
        path: PathBuf,
        source: kube::config::KubeconfigError,
    },
    #[error("cannot build a Kubernetes client from {}: {source}", path.display())]
    Client { path: PathBuf, source: kube::Error },
}

/// A client for `endpoint` from the kubeconfig at `path`, reading every credential file anew.
pub async fn client(path: &Path, endpoint: Endpoint) -> Result<Client, ClientError> {
    let kubeconfig = |source| ClientError::Kubeconfig {
        path: path.to_owned(),
        source,
    };
    let mut config = Config::from_custom_kubeconfig(
        Kubeconfig::read_from(path).map_err(kubeconfig)?,
        &Default::default(),
    )
    .await
    .map_err(kubeconfig)?;
    if let Endpoint::Localhost(port) = endpoint {
        // The serving certificate is api-int's: verify it for that name, not for localhost.
        if config.tls_server_name.is_none() {
            config.tls_server_name = config.cluster_url.host().map(str::to_owned);
        }
        config.cluster_url = format!("https://localhost:{port}")
            .parse()
            .expect("https://localhost:<u16> is a URI");
    }
    // Upstream's API client timeout (OCPBUGS-2994); watches set their own.
    config.read_timeout = Some(std::time::Duration::from_secs(300));
    config.connect_timeout = Some(std::time::Duration::from_secs(30));
    Client::try_from(config).map_err(|source| ClientError::Client {
        path: path.to_owned(),
        source,
    })
}

/// Whether the API server refused these credentials (an expired or rotated-away client
/// certificate): only new credentials help.
pub fn unauthorized(e: &kube::runtime::watcher::Error) -> bool {
    use kube::runtime::watcher::Error as W;
    match e {
        W::InitialListFailed(e) | W::WatchStartFailed(e) | W::WatchFailed(e) => {
            matches!(e, kube::Error::Api(s) if s.code == 401)
        }
        W::WatchError(s) => s.code == 401,
        W::NoResourceVersion => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_credential_files_are_the_kubeconfig_and_what_it_names() {
        let d = tempfile::tempdir().unwrap();
        let k = d.path().join("kubeconfig");
        std::fs::write(
            &k,
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    \
             server: https://api-int.ostest.test:6443\n    certificate-authority: ca.crt\n\
             users:\n- name: u\n  user:\n    client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem\n    \
             client-key: /var/lib/kubelet/pki/kubelet-client-current.pem\n\
             contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n",
        )
        .unwrap();
        let mut want = vec![
            k.clone(),
            d.path().join("ca.crt"),
            PathBuf::from("/var/lib/kubelet/pki/kubelet-client-current.pem"),
        ];
        want.sort();
        assert_eq!(credential_files(&k), want);
        assert_eq!(
            credential_files(&d.path().join("missing")),
            [d.path().join("missing")]
        );
    }
}
