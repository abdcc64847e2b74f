//! A Kubernetes API stand-in over plain HTTP on 127.0.0.1, for controllers' tests: no
//! kube-apiserver can be installed from the registries this project reaches. It serves any
//! resource by group, version and plural, cluster-scoped or namespaced, and enforces what
//! kube-apiserver enforces for the calls controllers make (see [`store`]): create (409
//! AlreadyExists), get, list and watch with label selectors, update with optimistic concurrency
//! (409 Conflict on a stale resourceVersion), JSON merge patch, delete, the status subresource,
//! generation, watch from a resourceVersion with 410 Gone before the compaction point
//! ([`ApiStandIn::compact`]), and the metadata-only (`PartialObjectMetadata`) form of lists and
//! watches. Leases are ordinary resources.
//!
//! Not served: server-side apply and JSON patch (415), strategic merge patch beyond JSON merge
//! patch (a list is replaced whole), finalizers, garbage collection, admission, schemas,
//! discovery. [`ApiStandIn::writes`] counts the write requests received per resource, so a test
//! can assert that a client wrote nothing. The server runs on its own thread and runtime, so a
//! test's runtime cannot starve it; dropping it stops it.

pub mod client;
pub mod selector;
pub mod store;

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper::{Method, Request, Response};
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc, oneshot};

use selector::Selector;
use store::{ApiError, Event, Key, Resource, Store, Subresource};

type Body = BoxBody<Bytes, Infallible>;

/// The resources that have a status subresource unless a test says otherwise: the built-in
/// ones the controllers read and kubernetes-nmstate's and MCO's CRDs.
const STATUS_SUBRESOURCES: [(&str, &str); 5] = [
    ("", "nodes"),
    ("machineconfiguration.openshift.io", "machineconfigpools"),
    ("nmstate.io", "nodenetworkconfigurationpolicies"),
    ("nmstate.io", "nodenetworkconfigurationenactments"),
    ("nmstate.io", "nmstates"),
];

struct Shared {
    store: Mutex<Store>,
    events: broadcast::Sender<Arc<Event>>,
    writes: Mutex<BTreeMap<String, usize>>,
}

impl Shared {
    fn store(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The running stand-in.
pub struct ApiStandIn {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ApiStandIn {
    /// Listens on an ephemeral port of 127.0.0.1.
    pub fn start() -> std::io::Result<ApiStandIn> {
        ApiStandIn::start_also_on(Vec::new())
    }

    /// Listens on an ephemeral port of 127.0.0.1 and serves `more` as well: listeners bound
    /// elsewhere, such as in a test network's namespace ([`crate::Netns::run_in`]), so nodes
    /// there reach the same API.
    pub fn start_also_on(more: Vec<std::net::TcpListener>) -> std::io::Result<ApiStandIn> {
        let mut store = Store::default();
        for (group, plural) in STATUS_SUBRESOURCES {
            store.add_status_subresource(group, plural);
        }
        let shared = Arc::new(Shared {
            store: Mutex::new(store),
            events: broadcast::channel(4096).0,
            writes: Mutex::default(),
        });
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let mut listeners = vec![listener];
        listeners.extend(more);
        for l in &listeners {
            l.set_nonblocking(true)?;
        }
        let (stop, stopped) = oneshot::channel();
        let served = shared.clone();
        let thread = std::thread::Builder::new()
            .name("api-stand-in".into())
            .spawn(move || serve(listeners, served, stopped))?;
        Ok(ApiStandIn {
            addr,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT`, for a client's cluster URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Write requests (POST, PUT, PATCH, DELETE) received for `resource`: a plural
    /// (`machineconfigs`) or a plural and subresource (`nodenetworkconfigurationpolicies/status`).
    pub fn writes(&self, resource: &str) -> usize {
        let writes = self.shared.writes.lock().unwrap_or_else(|e| e.into_inner());
        writes.get(resource).copied().unwrap_or(0)
    }

    /// Every write request received, by resource.
    pub fn all_writes(&self) -> BTreeMap<String, usize> {
        self.shared
            .writes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Forgets the watch history up to now: a watch from an older resourceVersion gets 410.
    pub fn compact(&self) {
        self.shared.store().compact();
    }

    /// Gives a resource a status subresource.
    pub fn add_status_subresource(&self, group: &str, plural: &str) {
        self.shared.store().add_status_subresource(group, plural);
    }

    /// The stored object, as a client would get it.
    pub fn get(&self, group: &str, plural: &str, namespace: &str, name: &str) -> Option<Value> {
        let key = Key {
            group: group.into(),
            plural: plural.into(),
            namespace: namespace.into(),
            name: name.into(),
        };
        self.shared.store().get(&key).ok()
    }

    /// Every stored object of a resource, in name order.
    pub fn list(&self, group: &str, plural: &str) -> Vec<Value> {
        let r = Resource {
            group: group.into(),
            version: String::new(),
            plural: plural.into(),
        };
        self.shared.store().list(&r, None, &Selector::default())
    }
}

/// A kubeconfig for `server` (`http://...`) without credentials: the stand-in asks for none.
pub fn kubeconfig(server: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: stand-in\n  cluster:\n    server: {server}\n\
         users:\n- name: anyone\n  user: {{}}\ncontexts:\n- name: stand-in\n  context:\n    \
         cluster: stand-in\n    user: anyone\ncurrent-context: stand-in\n"
    )
}

impl Drop for ApiStandIn {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(
    listeners: Vec<std::net::TcpListener>,
    shared: Arc<Shared>,
    stopped: oneshot::Receiver<()>,
) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime for the API stand-in");
    rt.block_on(async move {
        for listener in listeners {
            let listener = tokio::net::TcpListener::from_std(listener).expect("a tokio listener");
            tokio::spawn(accept(listener, shared.clone()));
        }
        let _ = stopped.await;
    });
    rt.shutdown_timeout(Duration::from_millis(100));
}

/// Serves every connection `listener` accepts.
async fn accept(listener: tokio::net::TcpListener, shared: Arc<Shared>) {
    while let Ok((stream, _)) = listener.accept().await {
        let shared = shared.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let shared = shared.clone();
                async move { Ok::<_, Infallible>(handle(&shared, req).await) }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, service)
                .await;
        });
    }
}

/// What a request's path names.
#[derive(Debug, PartialEq)]
struct Target {
    resource: Resource,
    namespace: Option<String>,
    name: Option<String>,
    sub: Subresource,
}

fn target(path: &str) -> Option<Target> {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, version, rest) = match segs.as_slice() {
        ["api", v, rest @ ..] => ("", *v, rest),
        ["apis", g, v, rest @ ..] => (*g, *v, rest),
        _ => return None,
    };
    let (namespace, rest) = match rest {
        ["namespaces", ns, rest @ ..] if !rest.is_empty() => (Some(ns.to_string()), rest),
        _ => (None, rest),
    };
    let (plural, name, sub) = match rest {
        [plural] => (*plural, None, Subresource::Main),
        [plural, name] => (*plural, Some(name.to_string()), Subresource::Main),
        [plural, name, "status"] => (*plural, Some(name.to_string()), Subresource::Status),
        _ => return None,
    };
    Some(Target {
        resource: Resource {
            group: group.into(),
            version: version.into(),
            plural: plural.into(),
        },
        namespace,
        name,
        sub,
    })
}

fn json_response(code: u16, body: &Value) -> Response<Body> {
    Response::builder()
        .status(code)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())).boxed())
        .expect("a valid response")
}

fn error(e: &ApiError) -> Response<Body> {
    json_response(e.code(), &e.status())
}

/// The request as the handlers need it.
struct Call {
    method: Method,
    target: Target,
    query: BTreeMap<String, String>,
    metadata_only: bool,
    content_type: String,
    body: Value,
}

async fn call(req: Request<Incoming>) -> Result<Call, ApiError> {
    let target = target(req.uri().path())
        .ok_or_else(|| ApiError::NotFound(format!("no route for {}", req.uri().path())))?;
    let query = form_urlencoded::parse(req.uri().query().unwrap_or_default().as_bytes())
        .into_owned()
        .collect();
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let metadata_only = header("accept").contains("as=PartialObjectMetadata");
    let content_type = header("content-type");
    let method = req.method().clone();
    let bytes = req
        .into_body()
        .collect()
        .await
        .map_err(|e| ApiError::BadRequest(e.to_string()))?
        .to_bytes();
    let body = match bytes.is_empty() {
        true => Value::Null,
        false => serde_json::from_slice(&bytes)
            .map_err(|e| ApiError::BadRequest(format!("the body is not JSON: {e}")))?,
    };
    Ok(Call {
        method,
        target,
        query,
        metadata_only,
        content_type,
        body,
    })
}

async fn handle(shared: &Arc<Shared>, req: Request<Incoming>) -> Response<Body> {
    let call = match call(req).await {
        Ok(c) => c,
        Err(e) => return error(&e),
    };
    if call.method != Method::GET {
        let mut key = call.target.resource.plural.clone();
        if call.target.sub == Subresource::Status {
            key.push_str("/status");
        }
        let mut writes = shared.writes.lock().unwrap_or_else(|e| e.into_inner());
        *writes.entry(key).or_default() += 1;
    }
    let watch = matches!(
        call.query.get("watch").map(String::as_str),
        Some("true" | "1")
    );
    let result = match (&call.method, call.target.name.as_deref()) {
        (&Method::GET, None) if watch => return watch_stream(shared, &call),
        (&Method::GET, None) => list(shared, &call),
        (&Method::GET, Some(_)) => read(shared, &call),
        (&Method::POST, None) => create(shared, &call),
        (&Method::PUT, Some(_)) => write(shared, &call),
        (&Method::PATCH, Some(_)) => write(shared, &call),
        (&Method::DELETE, Some(_)) => delete(shared, &call),
        _ => Err(ApiError::BadRequest(format!(
            "{} is not served here",
            call.method
        ))),
    };
    match result {
        Ok((code, body)) => json_response(code, &body),
        Err(e) => error(&e),
    }
}

fn key_of(call: &Call, name: &str) -> Key {
    let ns = call.target.namespace.as_deref().unwrap_or_default();
    Key::new(&call.target.resource, ns, name)
}

/// The object as served: in the requested version, or only its metadata.
fn shown(call: &Call, mut object: Value) -> Value {
    if call.metadata_only {
        return json!({"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata",
                      "metadata": object["metadata"].take()});
    }
    object["apiVersion"] = json!(call.target.resource.api_version());
    object
}

fn selector(call: &Call) -> Result<Selector, ApiError> {
    let labels = call.query.get("labelSelector").map(String::as_str);
    let bad = |s: &str| ApiError::BadRequest(format!("unable to parse requirement: {s}"));
    let selector = Selector::parse(labels.unwrap_or_default()).ok_or_else(|| bad("labels"))?;
    match call.query.get("fieldSelector") {
        Some(f) => selector.with_fields(f).ok_or_else(|| bad(f)),
        None => Ok(selector),
    }
}

type Outcome = Result<(u16, Value), ApiError>;

fn list(shared: &Shared, call: &Call) -> Outcome {
    let selector = selector(call)?;
    let store = shared.store();
    let items: Vec<Value> = store
        .list(
            &call.target.resource,
            call.target.namespace.as_deref(),
            &selector,
        )
        .into_iter()
        .map(|o| shown(call, o))
        .collect();
    let kind = match call.metadata_only {
        true => "PartialObjectMetadataList".to_owned(),
        false => {
            items
                .first()
                .and_then(|o| o["kind"].as_str())
                .unwrap_or("")
                .to_owned()
                + "List"
        }
    };
    let api_version = match call.metadata_only {
        true => "meta.k8s.io/v1".to_owned(),
        false => call.target.resource.api_version(),
    };
    Ok((
        200,
        json!({"apiVersion": api_version, "kind": kind,
        "metadata": {"resourceVersion": store.revision().to_string()}, "items": items}),
    ))
}

fn read(shared: &Shared, call: &Call) -> Outcome {
    let name = call.target.name.as_deref().unwrap_or_default();
    let object = shared.store().get(&key_of(call, name))?;
    Ok((200, shown(call, object)))
}

/// Publishes a write's event. Callers hold the store's lock, so a watch that subscribes under
/// the same lock misses nothing and sees nothing twice.
fn publish(shared: &Shared, event: Option<Event>) {
    if let Some(e) = event {
        let _ = shared.events.send(Arc::new(e));
    }
}

fn create(shared: &Shared, call: &Call) -> Outcome {
    let meta = &call.body["metadata"];
    let name = match (meta["name"].as_str(), meta["generateName"].as_str()) {
        (Some(n), _) if !n.is_empty() => n.to_owned(),
        (_, Some(prefix)) => format!("{prefix}{}", shared.store().revision() + 1),
        _ => return Err(ApiError::BadRequest("metadata.name: Required value".into())),
    };
    let store = &mut shared.store();
    let (object, event) = store.create(key_of(call, &name), call.body.clone())?;
    publish(shared, Some(event));
    Ok((201, shown(call, object)))
}

fn write(shared: &Shared, call: &Call) -> Outcome {
    let key = key_of(call, call.target.name.as_deref().unwrap_or_default());
    let store = &mut shared.store();
    let (object, event) = if call.method == Method::PUT {
        store.update(&key, call.body.clone(), call.target.sub)?
    } else {
        match call.content_type.split(';').next().unwrap_or_default() {
            "application/merge-patch+json" | "application/strategic-merge-patch+json" => {
                store.patch(&key, &call.body, call.target.sub)?
            }
            other => {
                return Err(ApiError::UnsupportedMediaType(format!(
                    "the stand-in serves JSON merge patches only, not {other}"
                )));
            }
        }
    };
    publish(shared, event);
    Ok((200, shown(call, object)))
}

fn delete(shared: &Shared, call: &Call) -> Outcome {
    let key = key_of(call, call.target.name.as_deref().unwrap_or_default());
    let precondition = call.body["preconditions"]["resourceVersion"].as_str();
    let store = &mut shared.store();
    let (object, event) = store.delete(&key, precondition)?;
    publish(shared, Some(event));
    Ok((200, shown(call, object)))
}

/// A chunked stream of watch events: the history after the given resourceVersion (or ADDED
/// for every object when none is given), then live events until `timeoutSeconds`.
fn watch_stream(shared: &Arc<Shared>, call: &Call) -> Response<Body> {
    let selector = match selector(call) {
        Ok(s) => s,
        Err(e) => return error(&e),
    };
    let from = call
        .query
        .get("resourceVersion")
        .and_then(|v| v.parse::<u64>().ok());
    let (tx, rx) = mpsc::channel::<Bytes>(256);
    let (backlog, live) = {
        let store = shared.store();
        let backlog = match from.filter(|rv| *rv > 0) {
            Some(rv) => store.events_since(rv, &call.target.resource),
            None => Ok(initial(&store, call, &selector)),
        };
        (backlog, shared.events.subscribe())
    };
    let render = renderer(call, selector);
    let timeout = call
        .query
        .get("timeoutSeconds")
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    tokio::spawn(async move {
        let lines = match backlog {
            Ok(events) => events.iter().filter_map(&render).collect(),
            Err(e) => vec![line("ERROR", e.status())],
        };
        for l in lines {
            if tx.send(l).await.is_err() {
                return;
            }
        }
        let live = forward(live, &tx, &render);
        let _ = tokio::time::timeout(Duration::from_secs(timeout), live).await;
    });
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        let chunk = rx.recv().await?;
        Some((Ok::<_, Infallible>(Frame::data(chunk)), rx))
    });
    Response::builder()
        .status(200)
        .header("content-type", "application/json")
        .body(BodyExt::boxed(StreamBody::new(stream)))
        .expect("a valid response")
}

fn line(kind: &str, object: Value) -> Bytes {
    Bytes::from(json!({"type": kind, "object": object}).to_string() + "\n")
}

/// The watch line a watcher of `call` gets for an event, if any.
fn renderer(call: &Call, selector: Selector) -> impl Fn(&Event) -> Option<Bytes> + Send + 'static {
    let filter = Filter {
        resource: call.target.resource.clone(),
        namespace: call.target.namespace.clone(),
        selector,
    };
    let metadata_only = call.metadata_only;
    move |e: &Event| {
        let (kind, object) = filter.seen(e)?;
        let mut object = object.clone();
        if metadata_only {
            object = json!({"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata",
                            "metadata": object["metadata"].take()});
        } else {
            object["apiVersion"] = json!(filter.resource.api_version());
        }
        Some(line(kind, object))
    }
}

/// Synthetic ADDED events for what exists now (a watch without a resourceVersion).
fn initial(store: &Store, call: &Call, selector: &Selector) -> Vec<Event> {
    let ns = call.target.namespace.as_deref();
    store
        .list(&call.target.resource, ns, selector)
        .into_iter()
        .map(|o| Event {
            revision: store.revision(),
            key: key_of(call, o["metadata"]["name"].as_str().unwrap_or_default()),
            old: None,
            new: Some(o),
        })
        .collect()
}

/// Live events until the client goes away or the stand-in falls behind (the client then
/// watches again from its last resourceVersion).
async fn forward(
    mut live: broadcast::Receiver<Arc<Event>>,
    tx: &mpsc::Sender<Bytes>,
    render: &impl Fn(&Event) -> Option<Bytes>,
) {
    while let Ok(event) = live.recv().await {
        if let Some(l) = render(&event)
            && tx.send(l).await.is_err()
        {
            return;
        }
    }
}

/// Which events a watch sees.
struct Filter {
    resource: Resource,
    namespace: Option<String>,
    selector: Selector,
}

impl Filter {
    fn seen<'e>(&self, e: &'e Event) -> Option<(&'static str, &'e Value)> {
        let ours = e.key.group == self.resource.group
            && e.key.plural == self.resource.plural
            && self
                .namespace
                .as_ref()
                .is_none_or(|ns| *ns == e.key.namespace);
        if !ours {
            return None;
        }
        e.seen_by(&self.selector)
    }
}

#[cfg(test)]
mod tests;
