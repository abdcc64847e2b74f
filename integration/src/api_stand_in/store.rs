//! The stand-in's storage and the rules kube-apiserver enforces on it, without HTTP: one
//! resourceVersion counter for every object (as etcd's revision), optimistic concurrency, the
//! status subresource, generation, an event history for watches, and a compaction point.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::selector::Selector;

/// A resource as its URL names it. Objects are stored by group and plural: every served
/// version reads and writes the same objects, as kube-apiserver's conversion does for versions
/// with one schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    pub group: String,
    pub version: String,
    pub plural: String,
}

impl Resource {
    pub fn api_version(&self) -> String {
        match self.group.as_str() {
            "" => self.version.clone(),
            g => format!("{g}/{}", self.version),
        }
    }
}

/// Where an object lives: its resource's group and plural, namespace ("" when cluster-scoped)
/// and name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub group: String,
    pub plural: String,
    pub namespace: String,
    pub name: String,
}

impl Key {
    pub fn new(r: &Resource, namespace: &str, name: &str) -> Key {
        Key {
            group: r.group.clone(),
            plural: r.plural.clone(),
            namespace: namespace.to_owned(),
            name: name.to_owned(),
        }
    }
}

/// The main endpoint or `.../status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subresource {
    Main,
    Status,
}

/// A refused call, as kube-apiserver words it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApiError {
    NotFound(String),
    AlreadyExists(String),
    Conflict(String),
    Gone(String),
    BadRequest(String),
    UnsupportedMediaType(String),
}

impl ApiError {
    pub fn code(&self) -> u16 {
        match self {
            ApiError::NotFound(_) => 404,
            ApiError::AlreadyExists(_) | ApiError::Conflict(_) => 409,
            ApiError::Gone(_) => 410,
            ApiError::BadRequest(_) => 400,
            ApiError::UnsupportedMediaType(_) => 415,
        }
    }

    /// The `metav1.Status` body.
    pub fn status(&self) -> Value {
        let (reason, message) = match self {
            ApiError::NotFound(m) => ("NotFound", m),
            ApiError::AlreadyExists(m) => ("AlreadyExists", m),
            ApiError::Conflict(m) => ("Conflict", m),
            ApiError::Gone(m) => ("Expired", m),
            ApiError::BadRequest(m) => ("BadRequest", m),
            ApiError::UnsupportedMediaType(m) => ("UnsupportedMediaType", m),
        };
        json!({"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure",
               "message": message, "reason": reason, "code": self.code()})
    }
}

/// What happened to an object; `old` lets a watch with a selector turn a change that moves an
/// object out of (into) its selection into DELETED (ADDED), as kube-apiserver does.
#[derive(Clone, Debug)]
pub struct Event {
    pub revision: u64,
    pub key: Key,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

impl Event {
    /// The event a watcher with `selector` sees, if any: (type, object).
    pub fn seen_by(&self, selector: &Selector) -> Option<(&'static str, &Value)> {
        fn matching<'a>(o: &'a Option<Value>, s: &Selector) -> Option<&'a Value> {
            o.as_ref().filter(|o| s.matches(o))
        }
        match (matching(&self.old, selector), matching(&self.new, selector)) {
            (None, Some(n)) => Some(("ADDED", n)),
            (Some(_), Some(n)) => Some(("MODIFIED", n)),
            (Some(o), None) => Some(("DELETED", self.new.as_ref().unwrap_or(o))),
            (None, None) => None,
        }
    }
}

/// Every object, the history since the compaction point, and the resources that have a status
/// subresource (by group and plural).
#[derive(Debug, Default)]
pub struct Store {
    revision: u64,
    compacted: u64,
    uids: u64,
    objects: BTreeMap<Key, Value>,
    history: Vec<Event>,
    with_status: BTreeSet<(String, String)>,
}

fn meta(o: &Value) -> &Value {
    &o["metadata"]
}

fn meta_str<'a>(o: &'a Value, field: &str) -> &'a str {
    meta(o)[field].as_str().unwrap_or_default()
}

fn meta_mut(o: &mut Value) -> &mut Map<String, Value> {
    if !o["metadata"].is_object() {
        o["metadata"] = json!({});
    }
    o["metadata"]
        .as_object_mut()
        .expect("metadata is an object")
}

impl Store {
    /// Marks a resource as having a status subresource (as its CRD or built-in type says).
    pub fn add_status_subresource(&mut self, group: &str, plural: &str) {
        self.with_status
            .insert((group.to_owned(), plural.to_owned()));
    }

    fn has_status(&self, key: &Key) -> bool {
        self.with_status
            .contains(&(key.group.clone(), key.plural.clone()))
    }

    /// The current revision: a list's resourceVersion.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Forgets the history up to now: a watch from an older resourceVersion gets 410 Gone.
    pub fn compact(&mut self) {
        self.compacted = self.revision;
        self.history.clear();
    }

    pub fn get(&self, key: &Key) -> Result<Value, ApiError> {
        self.objects.get(key).cloned().ok_or_else(|| not_found(key))
    }

    /// The objects of a resource in a namespace (`None`: all namespaces) that match.
    pub fn list(&self, r: &Resource, namespace: Option<&str>, selector: &Selector) -> Vec<Value> {
        self.objects
            .iter()
            .filter(|(k, _)| k.group == r.group && k.plural == r.plural)
            .filter(|(k, _)| namespace.is_none_or(|ns| k.namespace == ns))
            .filter(|(_, o)| selector.matches(o))
            .map(|(_, o)| o.clone())
            .collect()
    }

    /// The events after `revision` for the resource, or Gone when they were compacted.
    pub fn events_since(&self, revision: u64, r: &Resource) -> Result<Vec<Event>, ApiError> {
        if revision < self.compacted {
            return Err(ApiError::Gone(format!(
                "too old resource version: {revision} ({})",
                self.compacted
            )));
        }
        Ok(self
            .history
            .iter()
            .filter(|e| e.revision > revision && e.key.group == r.group && e.key.plural == r.plural)
            .cloned()
            .collect())
    }

    pub fn create(&mut self, key: Key, mut obj: Value) -> Result<(Value, Event), ApiError> {
        if self.objects.contains_key(&key) {
            return Err(ApiError::AlreadyExists(format!(
                "{} \"{}\" already exists",
                key.plural, key.name
            )));
        }
        if self.has_status(&key) {
            obj.as_object_mut().map(|o| o.remove("status"));
        }
        self.uids += 1;
        let m = meta_mut(&mut obj);
        m.insert("name".into(), json!(key.name));
        if !key.namespace.is_empty() {
            m.insert("namespace".into(), json!(key.namespace));
        }
        m.insert("uid".into(), json!(format!("stand-in-uid-{}", self.uids)));
        m.insert("generation".into(), json!(1));
        m.insert("creationTimestamp".into(), json!("2026-01-01T00:00:00Z"));
        Ok(self.commit(key, None, Some(obj)))
    }

    /// PUT: `incoming` replaces the object (its spec and metadata on the main endpoint, its
    /// status on `.../status`); a stale non-empty resourceVersion is a Conflict.
    pub fn update(
        &mut self,
        key: &Key,
        incoming: Value,
        sub: Subresource,
    ) -> Result<(Value, Option<Event>), ApiError> {
        let current = self.get(key)?;
        let rv = meta_str(&incoming, "resourceVersion");
        if !rv.is_empty() && rv != meta_str(&current, "resourceVersion") {
            return Err(ApiError::Conflict(format!(
                "Operation cannot be fulfilled on {} \"{}\": the object has been modified; \
                 please apply your changes to the latest version and try again",
                key.plural, key.name
            )));
        }
        let next = self.next_version(key, &current, incoming, sub);
        if next == current {
            return Ok((current, None));
        }
        let (obj, event) = self.commit(key.clone(), Some(current), Some(next));
        Ok((obj, Some(event)))
    }

    /// The object `incoming` makes of `current`: what the endpoint may change, server-owned
    /// metadata kept, generation bumped when anything but metadata and status changed.
    fn next_version(&self, key: &Key, current: &Value, incoming: Value, sub: Subresource) -> Value {
        let with_status = self.has_status(key);
        let mut next = match sub {
            Subresource::Status => {
                let mut n = current.clone();
                n["status"] = incoming.get("status").cloned().unwrap_or(Value::Null);
                n
            }
            Subresource::Main => {
                let mut n = incoming;
                if with_status {
                    match current.get("status") {
                        Some(s) => n["status"] = s.clone(),
                        None => {
                            n.as_object_mut().map(|o| o.remove("status"));
                        }
                    }
                }
                n
            }
        };
        if next.get("status") == Some(&Value::Null) {
            next.as_object_mut().map(|o| o.remove("status"));
        }
        let keep = [
            "name",
            "namespace",
            "uid",
            "creationTimestamp",
            "resourceVersion",
        ];
        let m = meta_mut(&mut next);
        for field in keep {
            match current["metadata"].get(field) {
                Some(v) => m.insert(field.into(), v.clone()),
                None => m.remove(field),
            };
        }
        let generation = current["metadata"]["generation"].as_i64().unwrap_or(1);
        let bumped = spec_of(&next, with_status) != spec_of(current, with_status);
        meta_mut(&mut next).insert("generation".into(), json!(generation + i64::from(bumped)));
        next
    }

    /// PATCH with a JSON merge patch (RFC 7386); a resourceVersion in the patch is a
    /// precondition, as kube-apiserver treats it.
    pub fn patch(
        &mut self,
        key: &Key,
        patch: &Value,
        sub: Subresource,
    ) -> Result<(Value, Option<Event>), ApiError> {
        let mut merged = self.get(key)?;
        merge_patch(&mut merged, patch);
        let precondition = patch["metadata"]["resourceVersion"].as_str();
        let m = meta_mut(&mut merged);
        match precondition {
            Some(rv) => m.insert("resourceVersion".into(), json!(rv)),
            None => m.remove("resourceVersion"),
        };
        self.update(key, merged, sub)
    }

    /// DELETE, with an optional resourceVersion precondition.
    pub fn delete(
        &mut self,
        key: &Key,
        precondition: Option<&str>,
    ) -> Result<(Value, Event), ApiError> {
        let current = self.get(key)?;
        if precondition.is_some_and(|rv| rv != meta_str(&current, "resourceVersion")) {
            return Err(ApiError::Conflict(format!(
                "Precondition failed for {} \"{}\": the resourceVersion does not match",
                key.plural, key.name
            )));
        }
        Ok(self.commit(key.clone(), Some(current), None))
    }

    /// Stores the new value (or removes the object), stamps the next revision and records the
    /// event.
    fn commit(&mut self, key: Key, old: Option<Value>, new: Option<Value>) -> (Value, Event) {
        self.revision += 1;
        let rv = json!(self.revision.to_string());
        let new = new.map(|mut n| {
            meta_mut(&mut n).insert("resourceVersion".into(), rv.clone());
            n
        });
        match &new {
            Some(n) => self.objects.insert(key.clone(), n.clone()),
            None => self.objects.remove(&key),
        };
        let event = Event {
            revision: self.revision,
            key,
            old: old.clone(),
            new: new.clone(),
        };
        self.history.push(event.clone());
        let shown = new.or(old).expect("an event has an object");
        (shown, event)
    }
}

fn not_found(key: &Key) -> ApiError {
    ApiError::NotFound(format!("{} \"{}\" not found", key.plural, key.name))
}

/// The object without metadata (and without status where status is a subresource): what a
/// change to bumps the generation.
fn spec_of(o: &Value, with_status: bool) -> Value {
    let mut o = o.clone();
    if let Some(map) = o.as_object_mut() {
        map.remove("metadata");
        if with_status {
            map.remove("status");
        }
    }
    o
}

/// RFC 7386: objects merge key by key, `null` removes, anything else replaces.
pub fn merge_patch(target: &mut Value, patch: &Value) {
    let Some(patch) = patch.as_object() else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = json!({});
    }
    let map = target.as_object_mut().expect("just made an object");
    for (k, v) in patch {
        if v.is_null() {
            map.remove(k);
        } else {
            merge_patch(map.entry(k.clone()).or_insert(Value::Null), v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(group: &str, plural: &str) -> Resource {
        Resource {
            group: group.into(),
            version: "v1".into(),
            plural: plural.into(),
        }
    }

    fn policies() -> (Store, Key) {
        let mut s = Store::default();
        s.add_status_subresource("nmstate.io", "nodenetworkconfigurationpolicies");
        let key = Key::new(
            &res("nmstate.io", "nodenetworkconfigurationpolicies"),
            "",
            "p",
        );
        let obj = json!({"metadata": {"name": "p"}, "spec": {"a": 1}, "status": {"x": 1}});
        s.create(key.clone(), obj).unwrap();
        (s, key)
    }

    fn rv(o: &Value) -> String {
        meta_str(o, "resourceVersion").to_owned()
    }

    #[test]
    fn a_stale_resource_version_is_a_conflict_and_changes_nothing() {
        let (mut s, key) = policies();
        let first = s.get(&key).unwrap();
        let mut a = first.clone();
        a["spec"]["a"] = json!(2);
        s.update(&key, a, Subresource::Main).unwrap();
        let mut stale = first;
        stale["spec"]["a"] = json!(3);
        let err = s.update(&key, stale, Subresource::Main).unwrap_err();
        assert_eq!(err.code(), 409);
        assert_eq!(s.get(&key).unwrap()["spec"]["a"], 2);
    }

    #[test]
    fn creating_a_name_twice_is_already_exists() {
        let (mut s, key) = policies();
        let err = s.create(key, json!({"metadata": {}})).unwrap_err();
        assert_eq!(err.status()["reason"], "AlreadyExists");
    }

    #[test]
    fn the_main_endpoint_ignores_status_and_the_status_endpoint_changes_only_status() {
        let (mut s, key) = policies();
        assert!(
            s.get(&key).unwrap().get("status").is_none(),
            "create kept status"
        );
        let mut o = s.get(&key).unwrap();
        o["status"] = json!({"x": 2});
        let (after, event) = s.update(&key, o, Subresource::Main).unwrap();
        assert!(after.get("status").is_none() && event.is_none());
        let mut o = s.get(&key).unwrap();
        o["status"] = json!({"x": 3});
        o["spec"]["a"] = json!(9);
        let (after, _) = s.update(&key, o, Subresource::Status).unwrap();
        assert_eq!(
            (after["status"]["x"].clone(), after["spec"]["a"].clone()),
            (json!(3), json!(1))
        );
        assert_eq!(
            after["metadata"]["generation"], 1,
            "a status write bumped the generation"
        );
    }

    #[test]
    fn a_spec_change_bumps_the_generation_and_a_no_op_bumps_nothing() {
        let (mut s, key) = policies();
        let before = s.get(&key).unwrap();
        let (same, event) = s.update(&key, before.clone(), Subresource::Main).unwrap();
        assert!(event.is_none() && rv(&same) == rv(&before));
        let mut o = before;
        o["metadata"]["labels"] = json!({"l": "v"});
        let (labelled, _) = s.update(&key, o, Subresource::Main).unwrap();
        assert_eq!(labelled["metadata"]["generation"], 1);
        let (patched, _) = s
            .patch(&key, &json!({"spec": {"a": 5}}), Subresource::Main)
            .unwrap();
        assert_eq!(patched["metadata"]["generation"], 2);
    }

    #[test]
    fn a_merge_patch_merges_removes_with_null_and_honours_a_resource_version() {
        let (mut s, key) = policies();
        let patch = json!({"spec": {"b": 2, "a": null}});
        let (o, _) = s.patch(&key, &patch, Subresource::Main).unwrap();
        assert_eq!(o["spec"], json!({"b": 2}));
        let stale = json!({"metadata": {"resourceVersion": "1"}, "spec": {"c": 1}});
        assert_eq!(
            s.patch(&key, &stale, Subresource::Main).unwrap_err().code(),
            409
        );
    }

    #[test]
    fn events_before_the_compaction_point_are_gone() {
        let (mut s, key) = policies();
        let r = res("nmstate.io", "nodenetworkconfigurationpolicies");
        assert_eq!(s.events_since(0, &r).unwrap().len(), 1);
        s.patch(&key, &json!({"spec": {"a": 2}}), Subresource::Main)
            .unwrap();
        s.compact();
        assert_eq!(s.events_since(1, &r).unwrap_err().code(), 410);
        s.patch(&key, &json!({"spec": {"a": 3}}), Subresource::Main)
            .unwrap();
        let after = s.events_since(s.revision() - 1, &r).unwrap();
        assert_eq!(after.len(), 1);
    }

    #[test]
    fn a_change_that_moves_an_object_out_of_a_selection_is_a_deletion_for_that_watcher() {
        let mut s = Store::default();
        let r = res("", "nodes");
        let key = Key::new(&r, "", "n");
        s.create(key.clone(), json!({"metadata": {"labels": {"role": "w"}}}))
            .unwrap();
        let (_, e) = s
            .patch(
                &key,
                &json!({"metadata": {"labels": {"role": "m"}}}),
                Subresource::Main,
            )
            .unwrap();
        let sel = Selector::parse("role=w").unwrap();
        assert_eq!(e.unwrap().seen_by(&sel).unwrap().0, "DELETED");
    }

    #[test]
    fn deleting_with_a_stale_precondition_is_a_conflict() {
        let (mut s, key) = policies();
        assert_eq!(s.delete(&key, Some("0")).unwrap_err().code(), 409);
        s.delete(&key, None).unwrap();
        assert_eq!(s.get(&key).unwrap_err().code(), 404);
    }
}
