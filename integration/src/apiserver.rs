//! A local Kubernetes API server stand-in over HTTPS: it serves a recorded Node list, each Node
//! by name, and a watch stream whose events the test sends, enough for a `kube` client's
//! list-then-watch and get; Events clients create are kept for the test to read. Listens on
//! 127.0.0.1 with a self-signed serving certificate. Clients authenticate as kubelet does: with
//! a client certificate from the server's client CA, kept in `pki/kubelet-client-current.pem`
//! (certificate and key in one file, a symlink kubelet swaps on rotation) that the written
//! kubeconfig names; any other certificate, or none, gets 401 (as kube-apiserver answers an
//! expired one). [`FakeApiServer::rotate_client_certificate`] does what kubelet's rotation and the
//! old certificate's expiry do. `/readyz` answers 200 or, after
//! [`FakeApiServer::set_ready`]`(false)`, 503 (a bootstrap apiserver going away).

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::broadcast;

/// One watch event: `ADDED`, `MODIFIED` or `DELETED` with the Node object.
#[derive(Clone, Debug)]
pub struct Event {
    pub kind: &'static str,
    pub node: Value,
}

struct State {
    nodes: Vec<Value>,
    resource_version: u64,
    ready: bool,
    /// The client certificate (DER) requests must present.
    accepted_client: Vec<u8>,
    /// Events created (`POST .../events`, either API group), as sent.
    posted_events: Vec<Value>,
}

/// The server; stops with its runtime on drop.
pub struct FakeApiServer {
    addr: SocketAddr,
    kubeconfig: PathBuf,
    pki: PathBuf,
    client_ca: rcgen::CertifiedIssuer<'static, rcgen::KeyPair>,
    rotations: u32,
    state: Arc<Mutex<State>>,
    events: broadcast::Sender<String>,
    _runtime: tokio::runtime::Runtime,
}

/// Sent on the event channel: every open watch ends (its connection closes).
const CLOSE_WATCHES: &str = "close";

/// A client certificate from `ca` (certificate and key in one PEM, as kubelet keeps them) and
/// the certificate's DER.
fn client_certificate(
    ca: &rcgen::CertifiedIssuer<'static, rcgen::KeyPair>,
    name: &str,
) -> Result<(String, Vec<u8>), String> {
    let mut params =
        rcgen::CertificateParams::new(Vec::<String>::new()).map_err(|e| e.to_string())?;
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, format!("system:node:{name}"));
    params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
    let key = rcgen::KeyPair::generate().map_err(|e| e.to_string())?;
    let cert = params.signed_by(&key, ca).map_err(|e| e.to_string())?;
    Ok((
        format!("{}{}", cert.pem(), key.serialize_pem()),
        cert.der().to_vec(),
    ))
}

/// A Node object with InternalIPs, optional OVN host-cidrs and a master label.
pub fn node(name: &str, master: bool, internal_ips: &[&str], host_cidrs: &[&str]) -> Value {
    let mut labels = serde_json::Map::new();
    labels.insert("kubernetes.io/hostname".into(), json!(name));
    if master {
        labels.insert("node-role.kubernetes.io/master".into(), json!(""));
    }
    let mut annotations = serde_json::Map::new();
    annotations.insert(
        "machineconfiguration.openshift.io/state".into(),
        json!("Done"),
    );
    if !host_cidrs.is_empty() {
        annotations.insert(
            "k8s.ovn.org/host-cidrs".into(),
            json!(serde_json::to_string(host_cidrs).unwrap()),
        );
    }
    let mut addresses: Vec<Value> = internal_ips
        .iter()
        .map(|a| json!({"type": "InternalIP", "address": a}))
        .collect();
    addresses.push(json!({"type": "Hostname", "address": name}));
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "uid": format!("uid-{name}"), "resourceVersion": "1", "labels": labels, "annotations": annotations},
        "status": {"addresses": addresses, "conditions": [{"type": "Ready", "status": "True"}], "nodeInfo": {"kubeletVersion": "v1.34.1", "machineID": "", "systemUUID": "", "bootID": "",
            "kernelVersion": "", "osImage": "", "containerRuntimeVersion": "", "kubeProxyVersion": "", "operatingSystem": "linux", "architecture": "amd64"}}
    })
}

impl FakeApiServer {
    /// Starts serving `nodes` on an ephemeral port; writes a kubeconfig trusting its certificate
    /// into `dir`.
    pub fn start(dir: &Path, nodes: Vec<Value>) -> Result<FakeApiServer, String> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        Self::start_on(dir, nodes, listener)
    }

    /// As [`FakeApiServer::start`], on a listener the caller bound (in a node's namespace, say).
    pub fn start_on(
        dir: &Path,
        nodes: Vec<Value>,
        listener: std::net::TcpListener,
    ) -> Result<FakeApiServer, String> {
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        Self::start_as(dir, nodes, listener, &format!("127.0.0.1:{port}"))
    }

    /// As [`FakeApiServer::start_on`], with `server` (`host:port`) as the kubeconfig's server
    /// (api-int's name or address, say, while the server listens elsewhere); the serving
    /// certificate is valid for its host too.
    pub fn start_as(
        dir: &Path,
        nodes: Vec<Value>,
        listener: std::net::TcpListener,
        server: &str,
    ) -> Result<FakeApiServer, String> {
        let host = server.rsplit_once(':').map_or(server, |(h, _)| h);
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let cert = rcgen::generate_simple_self_signed(vec![
            "127.0.0.1".into(),
            "localhost".into(),
            host.to_owned(),
        ])
        .map_err(|e| e.to_string())?;
        let cert_pem = cert.cert.pem();
        let key_der = rustls::pki_types::PrivateKeyDer::try_from(cert.signing_key.serialize_der())
            .map_err(|e| e.to_string())?;
        // The client CA and kubelet's first client certificate.
        let mut ca_params =
            rcgen::CertificateParams::new(Vec::<String>::new()).map_err(|e| e.to_string())?;
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "kube-csr-signer (test)");
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let ca_key = rcgen::KeyPair::generate().map_err(|e| e.to_string())?;
        let client_ca =
            rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).map_err(|e| e.to_string())?;
        let (client_pem, client_der) = client_certificate(&client_ca, "node")?;
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(client_ca.der().clone())
            .map_err(|e| e.to_string())?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        // Optional client certificates, as kube-apiserver: a request without one is anonymous.
        let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
            Arc::new(roots),
            provider.clone(),
        )
        .allow_unauthenticated()
        .build()
        .map_err(|e| e.to_string())?;
        let tls = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_client_cert_verifier(verifier)
            .with_single_cert(vec![cert.cert.der().clone()], key_der)
            .map_err(|e| e.to_string())?;
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let listener = {
            let _guard = runtime.enter();
            tokio::net::TcpListener::from_std(listener).map_err(|e| e.to_string())?
        };
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let state = Arc::new(Mutex::new(State {
            nodes,
            resource_version: 1,
            ready: true,
            accepted_client: client_der,
            posted_events: Vec::new(),
        }));
        let (events, _) = broadcast::channel(1024);
        let (st, ev) = (state.clone(), events.clone());
        runtime.spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                // As kube-apiserver (Go sets TCP_NODELAY on every connection): without it a
                // response's head and body segments wait for the client's delayed ACK, 40 ms
                // a request.
                let _ = tcp.set_nodelay(true);
                let (acceptor, st, ev) = (acceptor.clone(), st.clone(), ev.clone());
                tokio::spawn(async move {
                    if let Ok(tls) = acceptor.accept(tcp).await {
                        let client = tls
                            .get_ref()
                            .1
                            .peer_certificates()
                            .and_then(|c| c.first())
                            .map(|c| c.to_vec());
                        let _ = serve(tls, client, st, ev).await;
                    }
                });
            }
        });
        let pki = dir.join("pki");
        let mut api = FakeApiServer {
            addr,
            kubeconfig: dir.join("kubeconfig"),
            pki,
            client_ca,
            rotations: 0,
            state,
            events,
            _runtime: runtime,
        };
        api.install_client_certificate(&client_pem)?;
        let current = api.pki.join("kubelet-client-current.pem");
        let ca = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, cert_pem);
        let mut f = std::fs::File::create(&api.kubeconfig).map_err(|e| e.to_string())?;
        write!(
            f,
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://{server}\n    certificate-authority-data: {ca}\n\
             users:\n- name: u\n  user:\n    client-certificate: {cur}\n    client-key: {cur}\n\
             contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n",
            cur = current.display()
        )
        .map_err(|e| e.to_string())?;
        Ok(api)
    }

    /// Writes `pem` as kubelet does: a new `kubelet-client-<n>.pem`, then the
    /// `kubelet-client-current.pem` symlink swapped to it by rename.
    pub fn install_client_certificate(&mut self, pem: &str) -> Result<(), String> {
        self.rotations += 1;
        std::fs::create_dir_all(&self.pki).map_err(|e| e.to_string())?;
        let file = self
            .pki
            .join(format!("kubelet-client-{}.pem", self.rotations));
        std::fs::write(&file, pem).map_err(|e| e.to_string())?;
        let tmp = self.pki.join(".kubelet-client-current.pem.tmp");
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&file, &tmp).map_err(|e| e.to_string())?;
        std::fs::rename(&tmp, self.pki.join("kubelet-client-current.pem"))
            .map_err(|e| e.to_string())
    }

    /// The API server's side of a client certificate rotation once the old certificate expired:
    /// a new certificate is issued and from now on only it is accepted (the old one gets 401),
    /// and open watches end. Returns the new certificate and key (one PEM) for the test to
    /// [`FakeApiServer::install_client_certificate`], as kubelet would.
    pub fn rotate_client_certificate(&mut self) -> Result<String, String> {
        let (pem, der) = client_certificate(&self.client_ca, "node")?;
        self.state.lock().unwrap().accepted_client = der;
        let _ = self.events.send(CLOSE_WATCHES.into());
        Ok(pem)
    }

    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The Events clients created, oldest first.
    pub fn posted_events(&self) -> Vec<Value> {
        self.state.lock().unwrap().posted_events.clone()
    }

    /// Makes `/readyz` answer 200 (`true`) or 503.
    pub fn set_ready(&self, ready: bool) {
        self.state.lock().unwrap().ready = ready;
    }

    /// Applies `e` to the stored list and sends it to every open watch.
    pub fn send(&self, e: Event) {
        let mut st = self.state.lock().unwrap();
        st.resource_version += 1;
        let name = e.node["metadata"]["name"].clone();
        let pos = st.nodes.iter().position(|n| n["metadata"]["name"] == name);
        match (e.kind, pos) {
            ("DELETED", Some(p)) => {
                st.nodes.remove(p);
            }
            ("DELETED", None) => {}
            (_, Some(p)) => st.nodes[p] = e.node.clone(),
            (_, None) => st.nodes.push(e.node.clone()),
        }
        let mut node = e.node;
        node["metadata"]["resourceVersion"] = json!(st.resource_version.to_string());
        let _ = self
            .events
            .send(json!({"type": e.kind, "object": node}).to_string());
    }
}

/// Serves one connection whose client presented `client` (a certificate's DER), if any.
async fn serve<S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin>(
    stream: S,
    client: Option<Vec<u8>>,
    state: Arc<Mutex<State>>,
    events: broadcast::Sender<String>,
) -> std::io::Result<()> {
    let mut stream = BufReader::new(stream);
    loop {
        let mut request = String::new();
        if stream.read_line(&mut request).await? == 0 {
            return Ok(());
        }
        let mut length = 0;
        loop {
            let mut header = String::new();
            if stream.read_line(&mut header).await? == 0 || header == "\r\n" {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        stream.read_exact(&mut body).await?;
        let method = request
            .split_whitespace()
            .next()
            .unwrap_or("GET")
            .to_owned();
        let path = request.split_whitespace().nth(1).unwrap_or("/").to_owned();
        if path == "/readyz" {
            let ready = state.lock().unwrap().ready;
            let (status, body) = if ready {
                ("200 OK", "ok")
            } else {
                ("503 Service Unavailable", "not ready")
            };
            respond(&mut stream, status, "text/plain", body).await?;
            continue;
        }
        // Checked per request, as kube-apiserver does: a rotation refuses kept-alive
        // connections' next requests too.
        let authenticated =
            client.as_deref() == Some(state.lock().unwrap().accepted_client.as_slice());
        if !authenticated {
            let body = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}"#;
            respond(&mut stream, "401 Unauthorized", "application/json", body).await?;
            continue;
        }
        // An Event created in a namespace (core/v1 or events.k8s.io/v1): kept, echoed back.
        if method == "POST" && path.split('?').next().unwrap_or("").ends_with("/events") {
            let event: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            state.lock().unwrap().posted_events.push(event.clone());
            respond(
                &mut stream,
                "201 Created",
                "application/json",
                &event.to_string(),
            )
            .await?;
            continue;
        }
        if !path.starts_with("/api/v1/nodes") {
            let body = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","code":404}"#;
            respond(&mut stream, "404 Not Found", "application/json", body).await?;
            continue;
        }
        // One Node by name (GET /api/v1/nodes/<name>), or 404 as the real server answers.
        if let Some(name) = path
            .strip_prefix("/api/v1/nodes/")
            .map(|rest| rest.split('?').next().unwrap_or(rest))
        {
            let node = state
                .lock()
                .unwrap()
                .nodes
                .iter()
                .find(|n| n["metadata"]["name"] == name)
                .cloned();
            match node {
                Some(n) => {
                    respond(&mut stream, "200 OK", "application/json", &n.to_string()).await?
                }
                None => {
                    let body = format!(
                        r#"{{"kind":"Status","apiVersion":"v1","status":"Failure","message":"nodes \"{name}\" not found","reason":"NotFound","code":404}}"#
                    );
                    respond(&mut stream, "404 Not Found", "application/json", &body).await?;
                }
            }
            continue;
        }
        if path.contains("watch=true") {
            let mut rx = events.subscribe();
            stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").await?;
            stream.flush().await?;
            while let Ok(line) = rx.recv().await {
                if line == CLOSE_WATCHES {
                    break;
                }
                let chunk = format!("{line}\n");
                stream
                    .write_all(format!("{:x}\r\n{chunk}\r\n", chunk.len()).as_bytes())
                    .await?;
                stream.flush().await?;
            }
            return Ok(());
        }
        // Paginated as the real server does (`limit`, `continue`; the token is an offset here).
        let body = {
            let st = state.lock().unwrap();
            let from: usize = query(&path, "continue")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            let limit: usize = query(&path, "limit")
                .and_then(|v| v.parse().ok())
                .unwrap_or(usize::MAX);
            let to = from.saturating_add(limit).min(st.nodes.len());
            let mut metadata = json!({"resourceVersion": st.resource_version.to_string()});
            if to < st.nodes.len() {
                metadata["continue"] = json!(to.to_string());
            }
            json!({"apiVersion": "v1", "kind": "NodeList", "metadata": metadata, "items": &st.nodes[from.min(to)..to]})
                .to_string()
        };
        respond(&mut stream, "200 OK", "application/json", &body).await?;
    }
}

/// The value of `key` in the request path's query string.
fn query<'a>(path: &'a str, key: &str) -> Option<&'a str> {
    let (_, q) = path.split_once('?')?;
    q.split('&')
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
}

async fn respond<S: tokio::io::AsyncWrite + Unpin>(
    stream: &mut S,
    status: &str,
    content_type: &str,
    body: &str,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.flush().await
}
