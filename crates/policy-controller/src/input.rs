//! Reading policies, pools and nodes from files for `render`: YAML or JSON, one object, a
//! `List` (what `oc get -o yaml` prints), a sequence of objects, or several documents; a
//! directory is read file by file (`*.yaml`, `*.yml`, `*.json`, by name). Anything else is an
//! error naming the file and the value, so `render` exits 2 having printed nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::api::{MachineConfigPool, NodeNetworkConfigurationPolicy};
use crate::policy::{Policy, is_dns_subdomain};
use crate::select::Node;

/// Bad input: the file and what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", file.display())]
pub struct InputError {
    pub file: PathBuf,
    pub problem: String,
}

fn bad(file: &Path, problem: impl Into<String>) -> InputError {
    InputError {
        file: file.to_owned(),
        problem: problem.into(),
    }
}

/// The objects in one file's text, lists unpacked, empty documents skipped.
pub fn parse_objects(text: &str, file: &Path) -> Result<Vec<Value>, InputError> {
    let docs: Vec<Value> = serde_saphyr::from_multiple(text)
        .map_err(|e| bad(file, format!("not YAML or JSON: {e}")))?;
    let mut objects = Vec::new();
    for doc in docs {
        match doc {
            Value::Null => {}
            Value::Array(items) => objects.extend(items),
            Value::Object(ref map) if map.get("items").is_some_and(Value::is_array) => {
                if let Some(Value::Array(items)) = doc.get("items") {
                    objects.extend(items.iter().cloned());
                }
            }
            Value::Object(_) => objects.push(doc),
            other => return Err(bad(file, format!("expected an object, found {other}"))),
        }
    }
    Ok(objects)
}

/// The files to read for a path: itself, or a directory's YAML and JSON files by name.
fn files_of(path: &Path) -> Result<Vec<PathBuf>, InputError> {
    if !path.is_dir() {
        return Ok(vec![path.to_owned()]);
    }
    let entries = std::fs::read_dir(path).map_err(|e| bad(path, e.to_string()))?;
    let mut files = Vec::new();
    for entry in entries {
        let p = entry.map_err(|e| bad(path, e.to_string()))?.path();
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or_default();
        if matches!(ext, "yaml" | "yml" | "json") && p.is_file() {
            files.push(p);
        }
    }
    files.sort();
    Ok(files)
}

/// Every object of the given kind under the paths, with the file it came from.
fn read_kind(paths: &[PathBuf], kind: &str) -> Result<Vec<(PathBuf, Value)>, InputError> {
    let mut out = Vec::new();
    for path in paths {
        for file in files_of(path)? {
            let text = std::fs::read_to_string(&file).map_err(|e| bad(&file, e.to_string()))?;
            for object in parse_objects(&text, &file)? {
                let found = object
                    .get("kind")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if found != kind {
                    return Err(bad(
                        &file,
                        format!("kind {found:?} where {kind} was expected"),
                    ));
                }
                out.push((file.clone(), object));
            }
        }
    }
    Ok(out)
}

/// Deserializes an object, naming it on error, and checks its name once per kind.
fn typed<T: DeserializeOwned>(
    file: &Path,
    object: Value,
    seen: &mut BTreeSet<String>,
) -> Result<(String, T), InputError> {
    let name = object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .ok_or_else(|| bad(file, "an object without metadata.name"))?
        .to_owned();
    if !is_dns_subdomain(&name) {
        return Err(bad(file, format!("name {name:?} is not a DNS subdomain")));
    }
    if !seen.insert(name.clone()) {
        return Err(bad(file, format!("{name} is given twice")));
    }
    let value = serde_path_to_error::deserialize(object)
        .map_err(|e| bad(file, format!("{name}: {}: {}", e.path(), e.inner())))?;
    Ok((name, value))
}

/// The policies under the paths, validated as the controller validates them.
pub fn policies(paths: &[PathBuf]) -> Result<Vec<Policy>, InputError> {
    let mut seen = BTreeSet::new();
    read_kind(paths, "NodeNetworkConfigurationPolicy")?
        .into_iter()
        .map(|(file, object)| {
            let (_, nncp) = typed::<NodeNetworkConfigurationPolicy>(&file, object, &mut seen)?;
            Ok(Policy::from_nncp(&nncp))
        })
        .collect()
}

/// The MachineConfigPools in the file.
pub fn pools(path: &Path) -> Result<Vec<MachineConfigPool>, InputError> {
    let mut seen = BTreeSet::new();
    read_kind(&[path.to_owned()], "MachineConfigPool")?
        .into_iter()
        .map(|(file, object)| Ok(typed(&file, object, &mut seen)?.1))
        .collect()
}

/// A Node as read: only its metadata matters.
#[derive(serde::Deserialize)]
struct NodeObject {
    metadata: ObjectMeta,
}

/// The Nodes in the file.
pub fn nodes(path: &Path) -> Result<Vec<Node>, InputError> {
    let mut seen = BTreeSet::new();
    read_kind(&[path.to_owned()], "Node")?
        .into_iter()
        .map(|(file, object)| {
            let (name, node) = typed::<NodeObject>(&file, object, &mut seen)?;
            Node::from_meta(&node.metadata).ok_or_else(|| bad(&file, format!("{name}: no name")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    const POLICY: &str = "apiVersion: nmstate.io/v1
kind: NodeNetworkConfigurationPolicy
metadata: {name: NAME}
spec:
  desiredState:
    interfaces: [{name: eth1, type: ethernet, state: up}]
";

    #[test]
    fn lists_sequences_and_documents_all_yield_their_objects() {
        let f = Path::new("x.yaml");
        let list = "kind: List\nitems: [{kind: Node}, {kind: Node}]\n";
        assert_eq!(parse_objects(list, f).unwrap().len(), 2);
        assert_eq!(parse_objects("- {kind: Node}\n", f).unwrap().len(), 1);
        assert_eq!(
            parse_objects("kind: Node\n---\nkind: Node\n---\n", f)
                .unwrap()
                .len(),
            2
        );
        assert_eq!(parse_objects(r#"{"kind": "Node"}"#, f).unwrap().len(), 1);
    }

    #[test]
    fn a_directory_is_read_file_by_file() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "b.yaml", &POLICY.replace("NAME", "b"));
        write(d.path(), "a.yml", &POLICY.replace("NAME", "a"));
        write(d.path(), "notes.txt", "not read");
        let names: Vec<String> = policies(&[d.path().to_owned()])
            .unwrap()
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn a_wrong_kind_names_the_file_and_the_kind() {
        let d = tempfile::tempdir().unwrap();
        let p = write(d.path(), "p.yaml", "kind: ConfigMap\nmetadata: {name: x}\n");
        let e = policies(std::slice::from_ref(&p)).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "{}: kind \"ConfigMap\" where NodeNetworkConfigurationPolicy was expected",
                p.display()
            )
        );
    }

    #[test]
    fn a_bad_value_names_the_file_the_object_and_the_value() {
        let d = tempfile::tempdir().unwrap();
        let text = POLICY.replace("NAME", "p") + "  nodeSelector: {zone: [a]}\n";
        let p = write(d.path(), "p.yaml", &text);
        let e = policies(&[p]).unwrap_err().to_string();
        assert!(
            e.ends_with(
                "p.yaml: p: spec.nodeSelector.zone: invalid type: sequence, expected a string"
            ),
            "{e}"
        );
        let n = write(d.path(), "n.yaml", "kind: Node\nmetadata: {name: ../w0}\n");
        let e = nodes(&n).unwrap_err().to_string();
        assert!(e.ends_with("name \"../w0\" is not a DNS subdomain"), "{e}");
    }

    #[test]
    fn a_name_given_twice_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let text = format!(
            "{}---\n{}",
            POLICY.replace("NAME", "a"),
            POLICY.replace("NAME", "a")
        );
        let p = write(d.path(), "p.yaml", &text);
        assert!(
            policies(&[p])
                .unwrap_err()
                .to_string()
                .ends_with("a is given twice")
        );
    }

    #[test]
    fn a_policy_with_an_unknown_version_is_read_and_refused_not_an_input_error() {
        let d = tempfile::tempdir().unwrap();
        let text = POLICY
            .replace("NAME", "v")
            .replace("nmstate.io/v1", "nmstate.io/v9");
        let p = write(d.path(), "p.yaml", &text);
        let read = policies(&[p]).unwrap();
        assert!(read[0].state.is_err());
    }
}
