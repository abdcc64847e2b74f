//! Field schemas the derive cannot infer (`#[schemars(schema_with = ...)]` in [`crate::api`]).

use schemars::{Schema, SchemaGenerator, json_schema};

/// `apiVersion`, as every Kubernetes object has it.
pub fn api_version(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "description":
        "The versioned schema of this representation of an object."})
}

/// `kind`, as every Kubernetes object has it.
pub fn kind(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "description":
        "The REST resource this object represents."})
}

/// An object the API server validates itself (`metadata`).
pub fn object(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "object"})
}

/// An object kept whole: NMState, which nmstate's parser checks, not the API server.
pub fn preserved_object(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
}

/// An RFC 3339 timestamp (`metav1.Time`).
pub fn date_time(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "format": "date-time"})
}

/// A count or a percentage (`intstr.IntOrString`).
pub fn int_or_string(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "x-kubernetes-int-or-string": true
    })
}

/// Label key to value; keys must be label keys, as kubernetes-nmstate checks them.
pub fn node_selector(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "additionalProperties": {"type": "string"},
        "maxProperties": 256,
        "x-kubernetes-validations": [{
            "rule": "self.all(k, !format.qualifiedName().validate(k).hasValue())",
            "message": "every nodeSelector key must be a label key (a qualified name)"
        }]
    })
}

/// kubernetes-nmstate's resolved captures: name to a state and when it was taken.
pub fn captured_states(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "additionalProperties": {
            "type": "object",
            "properties": {
                "state": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                "metaInfo": {"type": "object", "properties": {
                    "time": {"type": "string", "format": "date-time"},
                    "version": {"type": "string"}
                }}
            }
        }
    })
}
