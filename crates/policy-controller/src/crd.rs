//! The NodeNetworkConfigurationPolicy and NodeNetworkConfigurationEnactment
//! CustomResourceDefinitions, built from the types in [`crate::api`].
//!
//! Schema-compatible with kubernetes-nmstate's: the same group, versions, kinds, scope, short
//! names, printer columns, status subresource and field names, so its manifests are accepted and
//! `oc get nncp`/`oc get nnce` print the same columns. The policy is served as `v1` (stored) and
//! `v1beta1` (deprecated) with one schema, so no conversion is needed; the enactment is
//! `v1beta1`. The committed YAML in `manifests/` is this module's output (`tests/crds.rs` fails
//! when it differs).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionNames,
    CustomResourceDefinitionSpec, CustomResourceDefinitionVersion, CustomResourceSubresourceStatus,
    CustomResourceSubresources, CustomResourceValidation, JSONSchemaProps,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

use crate::api::{
    NMSTATE_GROUP, NodeNetworkConfigurationEnactment, NodeNetworkConfigurationPolicy,
};

/// The committed manifests: file name under `manifests/`, then its YAML.
pub fn manifests() -> Vec<(&'static str, String)> {
    [
        ("crd-policies.yaml", policy_crd()),
        ("crd-enactments.yaml", enactment_crd()),
    ]
    .into_iter()
    .map(|(file, crd)| (file, to_yaml(&crd)))
    .collect()
}

/// The YAML of a CRD, with a header that says where it comes from.
pub fn to_yaml(crd: &CustomResourceDefinition) -> String {
    let body = serde_saphyr::to_string(crd).expect("a CRD serializes");
    format!(
        "# Generated from crates/policy-controller/src/api.rs by src/crd.rs; do not edit.\n\
         # Regenerate: UPDATE_MANIFESTS=1 cargo test -p policy-controller --test crds\n{body}"
    )
}

/// `nodenetworkconfigurationpolicies.nmstate.io`: `v1` stored, `v1beta1` served and deprecated.
pub fn policy_crd() -> CustomResourceDefinition {
    let schema = openapi_schema::<NodeNetworkConfigurationPolicy>();
    let columns = vec![status_column(), reason_column()];
    let v1 = version("v1", true, &schema, &columns);
    let mut v1beta1 = version("v1beta1", false, &schema, &columns);
    v1beta1.deprecated = Some(true);
    crd(
        names(
            "NodeNetworkConfigurationPolicy",
            "nodenetworkconfigurationpolicies",
            "nncp",
        ),
        vec![v1, v1beta1],
    )
}

/// `nodenetworkconfigurationenactments.nmstate.io`: `v1beta1`.
pub fn enactment_crd() -> CustomResourceDefinition {
    let schema = openapi_schema::<NodeNetworkConfigurationEnactment>();
    let age = CustomResourceColumnDefinition {
        name: "Status Age".into(),
        description: Some("When the current condition became true".into()),
        json_path: r#".status.conditions[?(@.status=="True")].lastTransitionTime"#.into(),
        type_: "date".into(),
        ..Default::default()
    };
    let columns = vec![status_column(), age, reason_column()];
    crd(
        names(
            "NodeNetworkConfigurationEnactment",
            "nodenetworkconfigurationenactments",
            "nnce",
        ),
        vec![version("v1beta1", true, &schema, &columns)],
    )
}

fn crd(
    names: CustomResourceDefinitionNames,
    versions: Vec<CustomResourceDefinitionVersion>,
) -> CustomResourceDefinition {
    CustomResourceDefinition {
        metadata: ObjectMeta {
            name: Some(format!("{}.{NMSTATE_GROUP}", names.plural)),
            ..Default::default()
        },
        spec: CustomResourceDefinitionSpec {
            group: NMSTATE_GROUP.into(),
            names,
            scope: "Cluster".into(),
            versions,
            ..Default::default()
        },
        status: None,
    }
}

fn names(kind: &str, plural: &str, short: &str) -> CustomResourceDefinitionNames {
    CustomResourceDefinitionNames {
        kind: kind.into(),
        list_kind: Some(format!("{kind}List")),
        plural: plural.into(),
        singular: Some(kind.to_lowercase()),
        short_names: Some(vec![short.into()]),
        categories: None,
    }
}

fn version(
    name: &str,
    storage: bool,
    schema: &JSONSchemaProps,
    columns: &[CustomResourceColumnDefinition],
) -> CustomResourceDefinitionVersion {
    CustomResourceDefinitionVersion {
        name: name.into(),
        served: true,
        storage,
        additional_printer_columns: Some(columns.to_vec()),
        schema: Some(CustomResourceValidation {
            open_api_v3_schema: Some(schema.clone()),
        }),
        subresources: Some(CustomResourceSubresources {
            status: Some(CustomResourceSubresourceStatus(Value::Object(
                Default::default(),
            ))),
            scale: None,
        }),
        ..Default::default()
    }
}

/// `oc get` shows the type of the condition that is True ...
fn status_column() -> CustomResourceColumnDefinition {
    CustomResourceColumnDefinition {
        name: "Status".into(),
        description: Some("The condition that is true".into()),
        json_path: r#".status.conditions[?(@.status=="True")].type"#.into(),
        type_: "string".into(),
        ..Default::default()
    }
}

/// ... and its reason.
fn reason_column() -> CustomResourceColumnDefinition {
    CustomResourceColumnDefinition {
        name: "Reason".into(),
        description: Some("Why the condition is true".into()),
        json_path: r#".status.conditions[?(@.status=="True")].reason"#.into(),
        type_: "string".into(),
        ..Default::default()
    }
}

/// The structural OpenAPI v3 schema of `T`, as a CRD holds it: every subschema inline, no
/// `nullable` (an absent field is how these APIs say "none"), no defaults (the API server
/// would write them into every object) and no titles.
pub fn openapi_schema<T: JsonSchema>() -> JSONSchemaProps {
    let generator = SchemaSettings::openapi3()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    strip(&mut schema);
    serde_json::from_value(schema).expect("schemars emits a JSONSchemaProps")
}

fn strip(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for key in ["nullable", "default", "title", "$schema"] {
                map.remove(key);
            }
            map.values_mut().for_each(strip);
        }
        Value::Array(items) => items.iter_mut().for_each(strip),
        _ => {}
    }
}
