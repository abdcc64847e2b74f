//! The NNCP and NNCE CustomResourceDefinitions: the committed YAML is what the types generate,
//! they serve kubernetes-nmstate's API (group, versions, kinds, names, columns, fields), and
//! manifests written for kubernetes-nmstate parse with the crate's types and pass the schema.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use policy_controller::api::{NodeNetworkConfigurationEnactment, NodeNetworkConfigurationPolicy};
use policy_controller::crd;
use policy_controller::policy::Policy;
use serde_json::Value;

fn manifests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("manifests")
}

#[test]
fn the_committed_crds_are_what_the_types_generate() {
    let update = std::env::var_os("UPDATE_MANIFESTS").is_some();
    let mut stale = Vec::new();
    for (file, yaml) in crd::manifests() {
        let path = manifests_dir().join(file);
        if update {
            std::fs::write(&path, &yaml).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(yaml.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "{} differ from what crates/policy-controller/src/api.rs generates; regenerate with \
         `UPDATE_MANIFESTS=1 cargo test -p policy-controller --test crds`",
        stale.join(", ")
    );
}

#[test]
fn the_committed_crds_parse_as_crds() {
    for (file, _) in crd::manifests() {
        let text = std::fs::read_to_string(manifests_dir().join(file)).unwrap();
        let parsed: CustomResourceDefinition = serde_saphyr::from_str(&text).unwrap();
        assert_eq!(parsed.spec.group, "nmstate.io", "{file}");
    }
}

/// (name, served, storage, deprecated) of each version.
fn versions(crd: &CustomResourceDefinition) -> Vec<(String, bool, bool, bool)> {
    let v = &crd.spec.versions;
    v.iter()
        .map(|v| {
            let deprecated = v.deprecated.unwrap_or(false);
            (v.name.clone(), v.served, v.storage, deprecated)
        })
        .collect()
}

/// (name, type, jsonPath) of each printer column of each version, and whether each version has
/// the status subresource.
fn columns_and_status(crd: &CustomResourceDefinition) -> (Vec<Vec<[String; 3]>>, Vec<bool>) {
    let columns = crd
        .spec
        .versions
        .iter()
        .map(|v| {
            let cols = v.additional_printer_columns.clone().unwrap_or_default();
            cols.into_iter()
                .map(|c| [c.name, c.type_, c.json_path])
                .collect()
        })
        .collect();
    let status = crd.spec.versions.iter().map(|v| {
        let s = v.subresources.as_ref().and_then(|s| s.status.as_ref());
        s.is_some_and(|s| s.0 == serde_json::json!({}))
    });
    (columns, status.collect())
}

const TRUE_TYPE: &str = r#".status.conditions[?(@.status=="True")].type"#;
const TRUE_REASON: &str = r#".status.conditions[?(@.status=="True")].reason"#;
const TRUE_SINCE: &str = r#".status.conditions[?(@.status=="True")].lastTransitionTime"#;

fn col(name: &str, type_: &str, path: &str) -> [String; 3] {
    [name.into(), type_.into(), path.into()]
}

#[test]
fn the_policy_crd_serves_kubernetes_nmstates_names_versions_and_columns() {
    let crd = crd::policy_crd();
    assert_eq!(
        crd.metadata.name.as_deref(),
        Some("nodenetworkconfigurationpolicies.nmstate.io")
    );
    let n = &crd.spec.names;
    assert_eq!(n.kind, "NodeNetworkConfigurationPolicy");
    assert_eq!(
        n.list_kind.as_deref(),
        Some("NodeNetworkConfigurationPolicyList")
    );
    assert_eq!(n.plural, "nodenetworkconfigurationpolicies");
    assert_eq!(
        n.singular.as_deref(),
        Some("nodenetworkconfigurationpolicy")
    );
    assert_eq!(n.short_names, Some(vec!["nncp".to_owned()]));
    assert_eq!(crd.spec.scope, "Cluster");
    assert_eq!(
        versions(&crd),
        [
            ("v1".into(), true, true, false),
            ("v1beta1".into(), true, false, true)
        ]
    );
    let expected = vec![
        col("Status", "string", TRUE_TYPE),
        col("Reason", "string", TRUE_REASON),
    ];
    let (columns, status) = columns_and_status(&crd);
    assert_eq!(columns, [expected.clone(), expected]);
    assert_eq!(status, [true, true]);
    let schemas: Vec<_> = crd.spec.versions.iter().map(|v| &v.schema).collect();
    assert_eq!(schemas[0], schemas[1], "one schema for both versions");
}

#[test]
fn the_enactment_crd_serves_kubernetes_nmstates_names_version_and_columns() {
    let crd = crd::enactment_crd();
    assert_eq!(
        crd.metadata.name.as_deref(),
        Some("nodenetworkconfigurationenactments.nmstate.io")
    );
    let n = &crd.spec.names;
    assert_eq!(n.kind, "NodeNetworkConfigurationEnactment");
    assert_eq!(
        n.list_kind.as_deref(),
        Some("NodeNetworkConfigurationEnactmentList")
    );
    assert_eq!(n.plural, "nodenetworkconfigurationenactments");
    assert_eq!(
        n.singular.as_deref(),
        Some("nodenetworkconfigurationenactment")
    );
    assert_eq!(n.short_names, Some(vec!["nnce".to_owned()]));
    assert_eq!(crd.spec.scope, "Cluster");
    assert_eq!(versions(&crd), [("v1beta1".into(), true, true, false)]);
    let (columns, status) = columns_and_status(&crd);
    assert_eq!(
        columns,
        [vec![
            col("Status", "string", TRUE_TYPE),
            col("Status Age", "date", TRUE_SINCE),
            col("Reason", "string", TRUE_REASON),
        ]]
    );
    assert_eq!(status, [true]);
}

fn schema_of(crd: &CustomResourceDefinition) -> JSONSchemaProps {
    let v = &crd.spec.versions[0];
    let s = v.schema.as_ref().and_then(|s| s.open_api_v3_schema.clone());
    s.expect("a schema")
}

fn additional(s: &JSONSchemaProps) -> Option<&JSONSchemaProps> {
    match s.additional_properties.as_ref()? {
        JSONSchemaPropsOrBool::Schema(s) => Some(s),
        JSONSchemaPropsOrBool::Bool(_) => None,
    }
}

fn items(s: &JSONSchemaProps) -> Option<&JSONSchemaProps> {
    match s.items.as_ref()? {
        JSONSchemaPropsOrArray::Schema(s) => Some(s),
        JSONSchemaPropsOrArray::Schemas(_) => None,
    }
}

/// Every declared path with its marks: `a.b[]` for items, `a.*` for map values, then
/// ` preserve`, ` int-or-string` and ` required` where the schema says so.
fn paths(s: &JSONSchemaProps, at: &str, out: &mut BTreeSet<String>) {
    if s.x_kubernetes_preserve_unknown_fields == Some(true) && !at.is_empty() {
        out.insert(format!("{at} preserve"));
    }
    if s.x_kubernetes_int_or_string == Some(true) {
        out.insert(format!("{at} int-or-string"));
    }
    let join = |k: &str| {
        if at.is_empty() {
            k.to_owned()
        } else {
            format!("{at}.{k}")
        }
    };
    for (k, sub) in s.properties.iter().flatten() {
        out.insert(join(k));
        paths(sub, &join(k), out);
    }
    for k in s.required.iter().flatten() {
        out.insert(format!("{} required", join(k)));
    }
    if let Some(sub) = items(s) {
        paths(sub, &format!("{at}[]"), out);
    }
    if let Some(sub) = additional(s) {
        out.insert(join("*"));
        paths(sub, &join("*"), out);
    }
}

fn declared(crd: &CustomResourceDefinition) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    paths(&schema_of(crd), "", &mut out);
    out
}

const CONDITION_PATHS: [&str; 8] = [
    "status.conditions",
    "status.conditions[].type",
    "status.conditions[].type required",
    "status.conditions[].status",
    "status.conditions[].status required",
    "status.conditions[].reason",
    "status.conditions[].message",
    "status.conditions[].lastHeartbeatTime",
];

#[test]
fn the_policy_schema_has_kubernetes_nmstates_fields() {
    let expected: BTreeSet<String> = [
        "apiVersion",
        "kind",
        "metadata",
        "spec",
        "spec.capture",
        "spec.capture.*",
        "spec.desiredState",
        "spec.desiredState preserve",
        "spec.maxUnavailable",
        "spec.maxUnavailable int-or-string",
        "spec.nodeSelector",
        "spec.nodeSelector.*",
        "status",
        "status.conditions[].lastTransitionTime",
        "status.lastUnavailableNodeCountUpdate",
        "status.unavailableNodeCount",
        "status.unavailableNodeCountMap",
        "status.unavailableNodeCountMap.*",
    ]
    .into_iter()
    .chain(CONDITION_PATHS)
    .map(String::from)
    .collect();
    assert_eq!(declared(&crd::policy_crd()), expected);
}

#[test]
fn the_enactment_schema_has_kubernetes_nmstates_fields() {
    let expected: BTreeSet<String> = [
        "apiVersion",
        "kind",
        "metadata",
        "status",
        "status.capturedStates",
        "status.capturedStates.*",
        "status.capturedStates.*.metaInfo",
        "status.capturedStates.*.metaInfo.time",
        "status.capturedStates.*.metaInfo.version",
        "status.capturedStates.*.state",
        "status.capturedStates.*.state preserve",
        "status.conditions[].lastTransitionTime",
        "status.desiredState",
        "status.desiredState preserve",
        "status.desiredStateMetaInfo",
        "status.desiredStateMetaInfo.time",
        "status.desiredStateMetaInfo.version",
        "status.features",
        "status.policyGeneration",
        "status.retryCount",
        "status.retryCount.*",
    ]
    .into_iter()
    .chain(CONDITION_PATHS)
    .map(String::from)
    .collect();
    assert_eq!(declared(&crd::enactment_crd()), expected);
    let root = schema_of(&crd::enactment_crd());
    assert_eq!(root.x_kubernetes_preserve_unknown_fields, Some(true));
}

/// What kube-apiserver would refuse or prune in `v` under `s` (structural schemas: a field the
/// schema does not declare is pruned unless unknown fields are preserved there).
fn violations(v: &Value, s: &JSONSchemaProps, at: &str, out: &mut Vec<String>) {
    if s.x_kubernetes_int_or_string == Some(true) {
        if !(v.is_i64() || v.is_string()) {
            out.push(format!("{at}: not an integer or a string"));
        }
        return;
    }
    let ok = match s.type_.as_deref() {
        Some("object") => v.is_object(),
        Some("array") => v.is_array(),
        Some("string") => v.is_string(),
        Some("integer") => v.is_i64(),
        Some("boolean") => v.is_boolean(),
        _ => true,
    };
    if !ok {
        out.push(format!("{at}: not of type {:?}", s.type_));
        return;
    }
    if s.format.as_deref() == Some("date-time")
        && serde_json::from_value::<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>(v.clone())
            .is_err()
    {
        out.push(format!("{at}: not a date-time"));
    }
    if let Some(list) = v.as_array() {
        for (i, e) in list.iter().enumerate() {
            items(s).inspect(|sub| violations(e, sub, &format!("{at}[{i}]"), out));
        }
    }
    let Some(map) = v.as_object() else { return };
    for k in s.required.iter().flatten() {
        if !map.contains_key(k) {
            out.push(format!("{at}.{k}: required"));
        }
    }
    for (k, e) in map {
        let declared = s.properties.as_ref().and_then(|p| p.get(k));
        match declared.or_else(|| additional(s)) {
            Some(sub) => violations(e, sub, &format!("{at}.{k}"), out),
            None if s.x_kubernetes_preserve_unknown_fields == Some(true) => {}
            None => out.push(format!("{at}.{k}: unknown field, pruned")),
        }
    }
}

fn check(v: &Value, crd: &CustomResourceDefinition) -> Vec<String> {
    let mut out = Vec::new();
    let schema = schema_of(crd);
    for (k, e) in v.as_object().into_iter().flatten() {
        match schema.properties.as_ref().and_then(|p| p.get(k)) {
            // The API server validates metadata itself.
            Some(_) if k == "metadata" => {}
            Some(sub) => violations(e, sub, k, &mut out),
            None if schema.x_kubernetes_preserve_unknown_fields == Some(true) => {}
            None => out.push(format!("{k}: unknown field, pruned")),
        }
    }
    out
}

fn examples() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/kubernetes-nmstate");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let v: Value = serde_saphyr::from_str(&text).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), v)
        })
        .collect()
}

#[test]
fn kubernetes_nmstate_policies_parse_pass_the_schema_and_are_not_refused() {
    let crd = crd::policy_crd();
    let policies: Vec<_> = examples()
        .into_iter()
        .filter(|(_, v)| v["kind"] == "NodeNetworkConfigurationPolicy")
        .collect();
    assert!(policies.len() >= 4, "{policies:?}");
    for (file, v) in policies {
        assert_eq!(check(&v, &crd), Vec::<String>::new(), "{file}");
        let nncp: NodeNetworkConfigurationPolicy =
            serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{file}: {e}"));
        let policy = Policy::from_nncp(&nncp);
        assert!(policy.state.is_ok(), "{file}: {:?}", policy.state);
        let back = serde_json::to_value(&nncp).unwrap();
        assert_eq!(back["spec"], v["spec"], "{file}: the spec round-trips");
        assert_eq!(
            back["status"], v["status"],
            "{file}: the status round-trips"
        );
    }
}

#[test]
fn kubernetes_nmstate_enactments_parse_and_pass_the_schema() {
    let crd = crd::enactment_crd();
    let mut seen = 0;
    for (file, v) in examples() {
        if v["kind"] != "NodeNetworkConfigurationEnactment" {
            continue;
        }
        assert_eq!(check(&v, &crd), Vec::<String>::new(), "{file}");
        let nnce: NodeNetworkConfigurationEnactment =
            serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(serde_json::to_value(&nnce).unwrap()["status"], v["status"]);
        seen += 1;
    }
    assert_eq!(seen, 1);
}

#[test]
fn the_schema_check_finds_a_misspelt_field_and_a_wrong_type() {
    let v = serde_json::json!({"apiVersion": "nmstate.io/v1",
        "kind": "NodeNetworkConfigurationPolicy", "metadata": {"name": "x"},
        "spec": {"desiredstate": {}, "maxUnavailable": true,
            "nodeSelector": {"a": 1}},
        "status": {"conditions": [{"type": "Available"}]}});
    assert_eq!(
        check(&v, &crd::policy_crd()),
        [
            "spec.desiredstate: unknown field, pruned",
            "spec.maxUnavailable: not an integer or a string",
            "spec.nodeSelector.a: not of type Some(\"string\")",
            "status.conditions[0].status: required",
        ]
    );
}
