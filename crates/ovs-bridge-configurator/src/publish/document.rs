//! The NodeNetworkState document, pure: the node's state as `show` prints it, with secrets
//! redacted as `collect` redacts NMState files, cut to the API's object size limit, and a
//! fingerprint that ignores what changes by itself (address lifetimes), so that only a real
//! change is written.

use std::hash::{Hash, Hasher};
use std::time::SystemTime;

use serde_json::{Value, json};

use crate::redact;

pub const GROUP: &str = "nmstate.io";
pub const VERSION: &str = "v1beta1";
pub const API_VERSION: &str = "nmstate.io/v1beta1";
pub const KIND: &str = "NodeNetworkState";
pub const PLURAL: &str = "nodenetworkstates";
/// Who writes (the requests' `fieldManager`, the object's `managed-by` label).
pub const MANAGER: &str = "ovs-bridge-configurator";
const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";

/// The largest `status.currentState` written, as JSON. etcd refuses a request over 1.5 MiB
/// (`--max-request-bytes`, 1,572,864) and kube-apiserver refuses a larger body; the rest of the
/// object (metadata, managedFields, the other status fields) needs well under the margin.
pub const SIZE_LIMIT: usize = 1_400_000;

/// Keys whose values change by themselves, without anyone changing the network: the kernel
/// counts an address's remaining lifetimes down every second, and a Linux bridge's running
/// garbage-collection and hello timers. Published, never compared.
pub const VOLATILE: &[&str] = &[
    "valid-life-time",
    "preferred-life-time",
    "gc-timer",
    "hello-timer",
];

/// The lists a cut shortens.
const CUT_ORDER: &[&[&str]] = &[
    &["routes", "running"],
    &["routes", "config"],
    &["route-rules", "config"],
    &["interfaces"],
];

/// What the document reports besides the state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Versions {
    /// `hostNetworkManagerVersion`: the host's NetworkManager (its D-Bus `Version`).
    pub network_manager: Option<String>,
    /// `handlerNmstateVersion`: the nmstate library that read the state.
    pub nmstate: String,
}

/// What a document cannot be.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error("the node's state as NMState YAML does not parse after redaction: {0}")]
    Parse(serde_yaml::Error),
}

/// One list a cut shortened.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shortened {
    pub list: String,
    pub kept: usize,
    pub of: usize,
}

/// A NodeNetworkState's content, ready to write.
#[derive(Debug, Clone)]
pub struct Document {
    current: Value,
    versions: Versions,
    cut: Vec<Shortened>,
    fingerprint: u64,
}

impl Document {
    /// From the node's state as NMState YAML (`node_state::to_yaml`, what `show` prints).
    pub fn new(state_yaml: &str, versions: Versions) -> Result<Document, DocumentError> {
        Document::with_limit(state_yaml, versions, SIZE_LIMIT)
    }

    pub fn with_limit(
        state_yaml: &str,
        versions: Versions,
        limit: usize,
    ) -> Result<Document, DocumentError> {
        // `redact::nmstate`, its line pass and its parsed tree, around the one parse.
        let lines = redact::nmstate_lines(state_yaml);
        let current = super::parse::state(&lines).map_err(DocumentError::Parse)?;
        drop(lines);
        Ok(Document::finish(current, versions, limit, &[]))
    }

    /// From `status.currentState` as JSON: a document changed after its read, which went
    /// through [`Document::new`] and was cut as `earlier` says (a state already cut reports
    /// that cut).
    pub fn from_state(current: Value, versions: Versions, earlier: &[Shortened]) -> Document {
        Document::finish(current, versions, SIZE_LIMIT, earlier)
    }

    /// Redacted, without pods' veths, cut to `limit` (or reporting the `earlier` cut), and
    /// fingerprinted.
    fn finish(
        mut current: Value,
        versions: Versions,
        limit: usize,
        earlier: &[Shortened],
    ) -> Document {
        redact::hide_nmstate_secrets(&mut current);
        without_pod_veths(&mut current);
        let mut cut = cut_to(&mut current, limit);
        if cut.is_empty() {
            cut = earlier.to_vec();
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        hash_stable(&current, &mut h);
        versions.hash(&mut h);
        cut.hash(&mut h);
        Document {
            current,
            versions,
            cut,
            fingerprint: h.finish(),
        }
    }

    /// Equal for two documents that differ only in what changes by itself.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// `status.currentState`.
    pub fn current_state(&self) -> &Value {
        &self.current
    }

    /// The lists the size limit shortened (empty: the whole state is there).
    pub fn cut(&self) -> &[Shortened] {
        &self.cut
    }

    /// The `status` written at `at`.
    pub fn status(&self, at: SystemTime) -> Value {
        let mut status = status_besides_state(&self.versions, &self.cut, at);
        status["currentState"] = self.current.clone();
        status
    }

    /// What [`super::compact::CompactDocument`] keeps of it.
    pub(super) fn into_parts(self) -> (Value, Versions, Vec<Shortened>, u64) {
        (self.current, self.versions, self.cut, self.fingerprint)
    }
}

/// The `status` written at `at`, all but `currentState`.
pub(super) fn status_besides_state(
    versions: &Versions,
    cut: &[Shortened],
    at: SystemTime,
) -> Value {
    let mut status = json!({
        "lastSuccessfulUpdateTime": timestamp(at),
        "handlerNmstateVersion": versions.nmstate,
    });
    if let Some(nm) = &versions.network_manager {
        status["hostNetworkManagerVersion"] = json!(nm);
    }
    if !cut.is_empty() {
        status["conditions"] = json!([{
            "type": "Truncated",
            "status": "True",
            "reason": "ObjectSizeLimit",
            "message": cut_note(cut),
            "lastTransitionTime": timestamp(at),
        }]);
    }
    status
}

/// The object created for `node` (status is written separately, through its subresource),
/// owned by the Node so that it goes with it.
pub fn new_object(node: &str, node_uid: &str) -> Value {
    json!({
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {
            "name": node,
            "labels": {MANAGED_BY_LABEL: MANAGER},
            "ownerReferences": [{
                "apiVersion": "v1",
                "kind": "Node",
                "name": node,
                "uid": node_uid,
            }],
        },
    })
}

/// The whole object for a status update at `resource_version`.
pub fn status_update(node: &str, resource_version: &str, doc: &Document, at: SystemTime) -> Value {
    json!({
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {"name": node, "resourceVersion": resource_version},
        "status": doc.status(at),
    })
}

/// RFC 3339 in UTC to the second, as Kubernetes writes `metav1.Time`.
pub fn timestamp(at: SystemTime) -> String {
    k8s_openapi::jiff::Timestamp::try_from(at)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}

/// The note a cut document carries.
pub fn cut_note(cut: &[Shortened]) -> String {
    let lists: Vec<String> = cut
        .iter()
        .map(|s| format!("{}: {} of {}", s.list, s.kept, s.of))
        .collect();
    format!(
        "status.currentState is cut to fit the API's object size limit ({SIZE_LIMIT} bytes of \
         JSON); kept {}. `ovs-bridge-configurator show` on the node prints all of it",
        lists.join(", ")
    )
}

/// Leaves out what kubernetes-nmstate's handler leaves out of the document: veths that
/// NetworkManager does not manage (`state: ignore`: the host ends of pods' interfaces, which
/// come and go with every pod) and the routes through them. Without this every pod started or
/// stopped on the node would be a write.
fn without_pod_veths(current: &mut Value) {
    let Some(Value::Array(ifaces)) = current.get_mut("interfaces") else {
        return;
    };
    let mut gone = std::collections::BTreeSet::new();
    ifaces.retain(|i| {
        let pod = i["type"] == "veth" && i["state"] == "ignore";
        if pod && let Some(name) = i["name"].as_str() {
            gone.insert(name.to_owned());
        }
        !pod
    });
    if gone.is_empty() {
        return;
    }
    for list in ["config", "running"] {
        if let Some(Value::Array(routes)) = current.pointer_mut(&format!("/routes/{list}")) {
            routes.retain(|r| {
                r["next-hop-interface"]
                    .as_str()
                    .is_none_or(|n| !gone.contains(n))
            });
        }
    }
}

/// Hashes `v` with the volatile keys left out.
fn hash_stable(v: &Value, h: &mut impl Hasher) {
    match v {
        Value::Object(m) => {
            h.write_u8(b'{');
            for (k, v) in m.iter().filter(|(k, _)| !VOLATILE.contains(&k.as_str())) {
                k.hash(h);
                hash_stable(v, h);
            }
            h.write_u8(b'}');
        }
        Value::Array(a) => {
            h.write_u8(b'[');
            a.iter().for_each(|v| hash_stable(v, h));
            h.write_u8(b']');
        }
        other => other.to_string().hash(h),
    }
}

fn json_len(v: &Value) -> usize {
    serde_json::to_vec(v).map_or(0, |b| b.len())
}

/// Shortens the lists of [`CUT_ORDER`] from their ends, the largest first (the routing table of
/// a node with many routes, the interfaces of one with many interfaces; a short list is never
/// emptied to save a few bytes), until `current` fits `limit`.
fn cut_to(current: &mut Value, limit: usize) -> Vec<Shortened> {
    let mut size = json_len(current);
    let mut cut: Vec<Shortened> = Vec::new();
    while size > limit {
        let largest = CUT_ORDER
            .iter()
            .filter_map(|path| Some((path, json_len(list_at(current, path)?))))
            .filter(|(_, len)| *len > 2)
            .max_by_key(|(_, len)| *len);
        let Some((path, _)) = largest else { break };
        let list = list_at(current, path).expect("found above");
        let of = list.as_array().map_or(0, Vec::len);
        let Value::Array(items) = list else { break };
        while size > limit && !items.is_empty() {
            let last = items.pop().expect("not empty");
            size -= json_len(&last) + 1;
        }
        let name = path.join(".");
        match cut.iter_mut().find(|s| s.list == name) {
            Some(s) => s.kept = items.len(),
            None => cut.push(Shortened {
                list: name,
                kept: items.len(),
                of,
            }),
        }
    }
    cut
}

fn list_at<'a>(current: &'a mut Value, path: &[&str]) -> Option<&'a mut Value> {
    let v = path.iter().try_fold(current, |v, k| v.get_mut(*k))?;
    v.is_array().then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATE: &str = "interfaces:
- name: ens3
  type: ethernet
  state: up
  ipv4:
    enabled: true
    dhcp: true
    address:
    - ip: 192.0.2.10
      prefix-length: 24
      valid-life-time: 3599sec
      preferred-life-time: 3599sec
routes:
  running:
  - destination: 0.0.0.0/0
    next-hop-address: 192.0.2.1
    next-hop-interface: ens3
";

    fn versions() -> Versions {
        Versions {
            network_manager: Some("1.52.0".into()),
            nmstate: "2.2.62".into(),
        }
    }

    fn doc(yaml: &str) -> Document {
        Document::new(yaml, versions()).unwrap()
    }

    #[test]
    fn an_address_lifetime_counting_down_is_no_change() {
        let later = STATE.replace("3599sec", "3187sec");
        assert_eq!(doc(STATE).fingerprint(), doc(&later).fingerprint());
        // ... while the lifetime is still published.
        assert!(
            doc(&later)
                .status(SystemTime::UNIX_EPOCH)
                .to_string()
                .contains("3187sec")
        );
    }

    #[test]
    fn pods_veths_and_their_routes_are_left_out_as_kubernetes_nmstate_does() {
        let yaml = "interfaces:\n- name: ens3\n  type: ethernet\n  state: up\n\
                    - name: 0a1b2c3d4e5f6a7\n  type: veth\n  state: ignore\n\
                    - name: veth-managed\n  type: veth\n  state: up\n\
                    routes:\n  running:\n  - destination: 10.128.0.5/32\n    \
                    next-hop-interface: 0a1b2c3d4e5f6a7\n  - destination: 0.0.0.0/0\n    \
                    next-hop-interface: ens3\n";
        let d = doc(yaml);
        let text = d.current_state().to_string();
        assert!(
            !text.contains("0a1b2c3d4e5f6a7") && !text.contains("10.128.0.5"),
            "{text}"
        );
        assert!(
            text.contains("veth-managed") && text.contains("0.0.0.0/0"),
            "{text}"
        );
        // A pod coming or going is no change.
        let without_pod = "interfaces:\n- name: ens3\n  type: ethernet\n  state: up\n\
                           - name: veth-managed\n  type: veth\n  state: up\n\
                           routes:\n  running:\n  - destination: 0.0.0.0/0\n    \
                           next-hop-interface: ens3\n";
        assert_eq!(d.fingerprint(), doc(without_pod).fingerprint());
    }

    #[test]
    fn a_linux_bridge_s_running_timers_are_no_change() {
        let bridge = |gc: u32, hello: u32| {
            format!(
                "interfaces:\n- name: br0\n  type: linux-bridge\n  state: up\n  bridge:\n    \
                 options:\n      gc-timer: {gc}\n      hello-timer: {hello}\n      \
                 mac-ageing-time: 300\n"
            )
        };
        assert_eq!(
            doc(&bridge(29988, 187)).fingerprint(),
            doc(&bridge(29769, 44)).fingerprint()
        );
        let ageing = bridge(1, 1).replace("300", "30");
        assert_ne!(doc(&bridge(1, 1)).fingerprint(), doc(&ageing).fingerprint());
    }

    #[test]
    fn a_new_address_a_new_nm_version_or_another_route_is_a_change() {
        let base = doc(STATE).fingerprint();
        assert_ne!(
            base,
            doc(&STATE.replace("192.0.2.10", "192.0.2.11")).fingerprint()
        );
        assert_ne!(
            base,
            doc(&STATE.replace("192.0.2.1\n", "192.0.2.254\n")).fingerprint()
        );
        let mut v = versions();
        v.network_manager = Some("1.52.1".into());
        assert_ne!(base, Document::new(STATE, v).unwrap().fingerprint());
    }

    #[test]
    fn the_status_carries_what_kubernetes_nmstate_publishes() {
        let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_795_000_000);
        let s = doc(STATE).status(at);
        assert_eq!(s["lastSuccessfulUpdateTime"], "2026-11-18T11:06:40Z");
        assert_eq!(s["hostNetworkManagerVersion"], "1.52.0");
        assert_eq!(s["handlerNmstateVersion"], "2.2.62");
        assert_eq!(s["currentState"]["interfaces"][0]["name"], "ens3");
        assert!(s.get("conditions").is_none(), "{s}");
    }

    #[test]
    fn a_secret_nmstate_would_show_is_redacted_as_collect_redacts_it() {
        let yaml = "interfaces:\n- name: eth1\n  type: ethernet\n  802.1x:\n    identity: u\n    \
                    password: EAPPASS\n- name: m0\n  type: macsec\n  macsec:\n    mka-cak: CAK1\n    \
                    mka-ckn: abc\n";
        let text = doc(yaml).status(SystemTime::UNIX_EPOCH).to_string();
        assert!(
            !text.contains("EAPPASS") && !text.contains("CAK1"),
            "{text}"
        );
        assert!(
            text.contains(redact::REDACTED) && text.contains("abc"),
            "{text}"
        );
    }

    #[test]
    fn the_object_is_owned_by_its_node() {
        let o = new_object("worker-0", "uid-1");
        assert_eq!(o["metadata"]["name"], "worker-0");
        assert_eq!(o["metadata"]["ownerReferences"][0]["kind"], "Node");
        assert_eq!(o["metadata"]["ownerReferences"][0]["uid"], "uid-1");
        let u = status_update("worker-0", "42", &doc(STATE), SystemTime::UNIX_EPOCH);
        assert_eq!(u["metadata"]["resourceVersion"], "42");
        assert_eq!(u["kind"], KIND);
    }

    fn big_state(routes: usize, ifaces: usize) -> String {
        let mut y = String::from("interfaces:\n");
        for i in 0..ifaces {
            y.push_str(&format!(
                "- name: veth{i}\n  type: veth\n  state: up\n  mtu: 1500\n"
            ));
        }
        y.push_str("routes:\n  running:\n");
        for i in 0..routes {
            y.push_str(&format!(
                "  - destination: 10.{}.{}.0/24\n    next-hop-interface: veth0\n",
                i / 256 % 256,
                i % 256
            ));
        }
        y
    }

    #[test]
    fn a_document_past_the_size_limit_is_cut_with_a_note_not_refused() {
        let d = Document::with_limit(&big_state(20_000, 50), versions(), 100_000).unwrap();
        assert!(json_len(d.current_state()) <= 100_000);
        assert_eq!(d.cut().len(), 1, "{:?}", d.cut());
        assert_eq!(d.cut()[0].list, "routes.running");
        assert_eq!(d.cut()[0].of, 20_000);
        // Every interface is kept: the routes went first.
        assert_eq!(
            d.current_state()["interfaces"].as_array().unwrap().len(),
            50
        );
        let s = d.status(SystemTime::UNIX_EPOCH);
        assert_eq!(s["conditions"][0]["type"], "Truncated");
        let note = s["conditions"][0]["message"].as_str().unwrap();
        assert!(
            note.contains("routes.running") && note.contains("of 20000"),
            "{note}"
        );
    }

    #[test]
    fn a_node_with_many_interfaces_keeps_its_few_routes() {
        let d = Document::with_limit(&big_state(10, 5_000), versions(), 50_000).unwrap();
        assert!(json_len(d.current_state()) <= 50_000);
        let lists: Vec<&str> = d.cut().iter().map(|s| s.list.as_str()).collect();
        assert_eq!(lists, ["interfaces"]);
        let routes = d.current_state()["routes"]["running"].as_array().unwrap();
        assert_eq!(routes.len(), 10);
    }

    #[test]
    fn a_document_within_the_limit_is_whole() {
        assert!(doc(&big_state(100, 100)).cut().is_empty());
    }
}
