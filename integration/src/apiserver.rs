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

/// The CA that signs kubelet's client certificates.
fn client_ca() -> Result<rcgen::CertifiedIssuer<'static, rcgen::KeyPair>, String> {
    let mut params =
        rcgen::CertificateParams::new(Vec::<String>::new()).map_err(|e| e.to_string())?;
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "kube-csr-signer (test)");
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let key = rcgen::KeyPair::generate().map_err(|e| e.to_string())?;
    rcgen::CertifiedIssuer::self_signed(params, key).map_err(|e| e.to_string())
}

/// TLS with the `serving` certificate and optional client certificates from `client_ca`, as
/// kube-apiserver: a request without one is anonymous.
fn tls_acceptor(
    serving: &rcgen::CertifiedKey<rcgen::KeyPair>,
    client_ca: &rcgen::CertifiedIssuer<'static, rcgen::KeyPair>,
) -> Result<tokio_rustls::TlsAcceptor, String> {
    let key_der = rustls::pki_types::PrivateKeyDer::try_from(serving.signing_key.serialize_der())
        .map_err(|e| e.to_string())?;
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(client_ca.der().clone())
        .map_err(|e| e.to_string())?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
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
        .with_single_cert(vec![serving.cert.der().clone()], key_der)
        .map_err(|e| e.to_string())?;
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(tls)))
}

/// Accepts connections until the runtime stops, serving each with its client certificate.
async fn accept(
    listener: tokio::net::TcpListener,
    acceptor: tokio_rustls::TlsAcceptor,
    state: Arc<Mutex<State>>,
    events: broadcast::Sender<String>,
) {
    while let Ok((tcp, _)) = listener.accept().await {
        // As kube-apiserver (Go sets TCP_NODELAY on every connection): without it a
        // response's head and body segments wait for the client's delayed ACK, 40 ms
        // a request.
        let _ = tcp.set_nodelay(true);
        let (acceptor, state, events) = (acceptor.clone(), state.clone(), events.clone());
        tokio::spawn(async move {
            if let Ok(tls) = acceptor.accept(tcp).await {
                let client = tls
                    .get_ref()
                    .1
                    .peer_certificates()
                    .and_then(|c| c.first())
                    .map(|c| c.to_vec());
                let _ = serve(tls, client, state, events).await;
            }
        });
    }
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
        let serving = rcgen::generate_simple_self_signed(vec![
            "127.0.0.1".into(),
            "localhost".into(),
            host.to_owned(),
        ])
        .map_err(|e| e.to_string())?;
        let client_ca = client_ca()?;
        let (client_pem, client_der) = client_certificate(&client_ca, "node")?;
        let acceptor = tls_acceptor(&serving, &client_ca)?;
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
        runtime.spawn(accept(listener, acceptor, state.clone(), events.clone()));
        let mut api = FakeApiServer {
            addr,
            kubeconfig: dir.join("kubeconfig"),
            pki: dir.join("pki"),
            client_ca,
            rotations: 0,
            state,
            events,
            _runtime: runtime,
        };
        api.install_client_certificate(&client_pem)?;
        api.write_kubeconfig(server, &serving.cert.pem())?;
        Ok(api)
    }

    /// The kubeconfig kubelet has: `server`, trusting `ca_pem`, with the rotating client
    /// certificate file.
    fn write_kubeconfig(&self, server: &str, ca_pem: &str) -> Result<(), String> {
        let current = self.pki.join("kubelet-client-current.pem");
        let ca = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, ca_pem);
        let mut f = std::fs::File::create(&self.kubeconfig).map_err(|e| e.to_string())?;
        write!(
            f,
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://{server}\n    certificate-authority-data: {ca}\n\
             users:\n- name: u\n  user:\n    client-certificate: {cur}\n    client-key: {cur}\n\
             contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n",
            cur = current.display()
        )
        .map_err(|e| e.to_string())
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
    while let Some(request) = read_request(&mut stream).await? {
        match answer(&request, client.as_deref(), &state) {
            Answer::Respond(status, content_type, body) => {
                respond(&mut stream, status, content_type, &body).await?;
            }
            // A watch keeps the connection until its end.
            Answer::Watch => return watch(&mut stream, &events).await,
        }
    }
    Ok(())
}

/// One HTTP request: its method, its path with the query, its body.
struct Request {
    method: String,
    path: String,
    body: Vec<u8>,
}

/// The next request on the connection; `None` once the client closed it.
async fn read_request<S: tokio::io::AsyncRead + Unpin>(
    stream: &mut BufReader<S>,
) -> std::io::Result<Option<Request>> {
    let mut line = String::new();
    if stream.read_line(&mut line).await? == 0 {
        return Ok(None);
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
    let mut words = line.split_whitespace();
    Ok(Some(Request {
        method: words.next().unwrap_or("GET").to_owned(),
        path: words.next().unwrap_or("/").to_owned(),
        body,
    }))
}

/// What a request gets: a response (status, content type and body) or the watch stream.
enum Answer {
    Respond(&'static str, &'static str, String),
    Watch,
}

/// A JSON response.
fn json_answer(status: &'static str, body: String) -> Answer {
    Answer::Respond(status, "application/json", body)
}

/// Routes `request` as kube-apiserver would for the calls the clients make.
fn answer(request: &Request, client: Option<&[u8]>, state: &Mutex<State>) -> Answer {
    let path = request.path.as_str();
    if path == "/readyz" {
        if state.lock().unwrap().ready {
            return Answer::Respond("200 OK", "text/plain", "ok".into());
        }
        return Answer::Respond("503 Service Unavailable", "text/plain", "not ready".into());
    }
    // Checked per request, as kube-apiserver does: a rotation refuses kept-alive
    // connections' next requests too.
    if client != Some(state.lock().unwrap().accepted_client.as_slice()) {
        let body = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}"#;
        return json_answer("401 Unauthorized", body.into());
    }
    // An Event created in a namespace (core/v1 or events.k8s.io/v1): kept, echoed back.
    if request.method == "POST" && path.split('?').next().unwrap_or("").ends_with("/events") {
        let event: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        state.lock().unwrap().posted_events.push(event.clone());
        return json_answer("201 Created", event.to_string());
    }
    if !path.starts_with("/api/v1/nodes") {
        let body = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","code":404}"#;
        return json_answer("404 Not Found", body.into());
    }
    if let Some(name) = path
        .strip_prefix("/api/v1/nodes/")
        .map(|rest| rest.split('?').next().unwrap_or(rest))
    {
        return node_by_name(&state.lock().unwrap(), name);
    }
    if path.contains("watch=true") {
        return Answer::Watch;
    }
    json_answer("200 OK", node_list(&state.lock().unwrap(), path))
}

/// One Node by name (GET /api/v1/nodes/<name>), or 404 as the real server answers.
fn node_by_name(state: &State, name: &str) -> Answer {
    match state.nodes.iter().find(|n| n["metadata"]["name"] == name) {
        Some(n) => json_answer("200 OK", n.to_string()),
        None => json_answer(
            "404 Not Found",
            format!(
                r#"{{"kind":"Status","apiVersion":"v1","status":"Failure","message":"nodes \"{name}\" not found","reason":"NotFound","code":404}}"#
            ),
        ),
    }
}

/// The Node list, paginated as the real server does (`limit`, `continue`; the token is an
/// offset here).
fn node_list(state: &State, path: &str) -> String {
    let from: usize = query(path, "continue")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let limit: usize = query(path, "limit")
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let to = from.saturating_add(limit).min(state.nodes.len());
    let mut metadata = json!({"resourceVersion": state.resource_version.to_string()});
    if to < state.nodes.len() {
        metadata["continue"] = json!(to.to_string());
    }
    json!({"apiVersion": "v1", "kind": "NodeList", "metadata": metadata, "items": &state.nodes[from.min(to)..to]})
        .to_string()
}

/// The watch stream: every event sent from now on, one JSON line per chunk, until the watches
/// are closed.
async fn watch<S: tokio::io::AsyncWrite + Unpin>(
    stream: &mut S,
    events: &broadcast::Sender<String>,
) -> std::io::Result<()> {
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
    Ok(())
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
