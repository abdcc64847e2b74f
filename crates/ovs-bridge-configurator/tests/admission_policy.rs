//! The NodeNetworkState admission policy (`manifests/node-network-state-policy.yaml`) evaluated
//! as kube-apiserver evaluates a ValidatingAdmissionPolicy: its match conditions, then its
//! validations, with `request`, `object` and `oldObject` bound, by a CEL interpreter. Node A's
//! credentials may write node A's document; node B's are refused; other users are not matched.

use std::sync::Arc;

use cel::{Context, Env, Value};
use serde_json::json;

const POLICY: &str = include_str!("../manifests/node-network-state-policy.yaml");

/// The policy's `spec` (the first document of the file).
fn spec() -> serde_yaml::Value {
    let first = serde_yaml::Deserializer::from_str(POLICY)
        .next()
        .expect("a policy");
    let doc: serde_yaml::Value = serde::Deserialize::deserialize(first).unwrap();
    assert_eq!(doc["kind"], "ValidatingAdmissionPolicy");
    doc["spec"].clone()
}

fn expressions(spec: &serde_yaml::Value, list: &str) -> Vec<String> {
    spec[list]
        .as_sequence()
        .unwrap_or_else(|| panic!("{list} in the policy"))
        .iter()
        .map(|c| c["expression"].as_str().unwrap().to_owned())
        .collect()
}

fn eval(expr: &str, vars: &serde_json::Value) -> Value {
    let env = Arc::new(Env::stdlib());
    let program = env
        .compile(expr)
        .unwrap_or_else(|e| panic!("{expr}: {e:?}"));
    let mut ctx = Context::with_env(env);
    for (name, v) in vars.as_object().unwrap() {
        ctx.add_variable_from_value(name.clone(), cel::to_value(v).unwrap());
    }
    program
        .execute(&ctx)
        .unwrap_or_else(|e| panic!("{expr}: {e:?}"))
}

fn truth(expr: &str, vars: &serde_json::Value) -> bool {
    match eval(expr, vars) {
        Value::Bool(b) => b,
        other => panic!("{expr} gave {other:?}, not a bool"),
    }
}

/// What kube-apiserver decides for `username` in `groups` doing `operation` on node A's
/// document: `None` when the policy does not apply, else whether it is admitted.
fn admitted(username: &str, groups: &[&str], operation: &str) -> Option<bool> {
    let nns = json!({
        "apiVersion": "nmstate.io/v1beta1",
        "kind": "NodeNetworkState",
        "metadata": {"name": "node-a"},
        "status": {"currentState": {"interfaces": []}},
    });
    let (object, old) = match operation {
        "CREATE" => (nns.clone(), serde_json::Value::Null),
        "DELETE" => (serde_json::Value::Null, nns.clone()),
        _ => (nns.clone(), nns.clone()),
    };
    let vars = json!({
        "request": {
            "operation": operation,
            "name": "node-a",
            "userInfo": {"username": username, "groups": groups},
        },
        "object": object,
        "oldObject": old,
    });
    let spec = spec();
    if !expressions(&spec, "matchConditions")
        .iter()
        .all(|e| truth(e, &vars))
    {
        return None;
    }
    let ok = expressions(&spec, "validations")
        .iter()
        .all(|e| truth(e, &vars));
    if !ok {
        // The message kube-apiserver would return must evaluate too.
        let msg = spec["validations"][0]["messageExpression"]
            .as_str()
            .unwrap();
        let Value::String(m) = eval(msg, &vars) else {
            panic!("{msg} is not a string")
        };
        assert!(m.contains(username), "{m}");
    }
    Some(ok)
}

const NODES: &[&str] = &["system:nodes", "system:authenticated"];

#[test]
fn node_a_may_write_its_own_node_network_state() {
    for op in ["CREATE", "UPDATE"] {
        assert_eq!(
            admitted("system:node:node-a", NODES, op),
            Some(true),
            "{op}"
        );
    }
}

#[test]
fn node_b_is_refused_on_node_a_s_node_network_state() {
    for op in ["CREATE", "UPDATE", "DELETE"] {
        assert_eq!(
            admitted("system:node:node-b", NODES, op),
            Some(false),
            "{op}"
        );
    }
    // A name that merely starts like node A's is another node.
    assert_eq!(
        admitted("system:node:node-a2", NODES, "UPDATE"),
        Some(false)
    );
}

#[test]
fn other_users_are_left_to_rbac() {
    let handler = "system:serviceaccount:nmstate:nmstate-handler";
    assert_eq!(
        admitted(handler, &["system:serviceaccounts"], "UPDATE"),
        None
    );
    assert_eq!(
        admitted("kube:admin", &["system:cluster-admins"], "UPDATE"),
        None
    );
}

#[test]
fn the_policy_is_bound_to_deny_and_covers_the_status_subresource() {
    let spec = spec();
    let resources = &spec["matchConstraints"]["resourceRules"][0]["resources"];
    let resources: Vec<&str> = resources
        .as_sequence()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert_eq!(resources, ["nodenetworkstates", "nodenetworkstates/status"]);
    let binding = serde_yaml::Deserializer::from_str(POLICY).nth(1).unwrap();
    let binding: serde_yaml::Value = serde::Deserialize::deserialize(binding).unwrap();
    assert_eq!(binding["kind"], "ValidatingAdmissionPolicyBinding");
    assert_eq!(
        binding["spec"]["policyName"],
        "node-network-state-node-restriction"
    );
    assert_eq!(binding["spec"]["validationActions"][0], "Deny");
}
