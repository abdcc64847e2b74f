//! Which nodes a policy selects and which pool each node is in.
//!
//! A policy's `nodeSelector` is kubernetes-nmstate's: every listed label must be on the node
//! with exactly that value. A pool's `spec.nodeSelector` is a full Kubernetes label selector.
//! A node belongs to the one pool MCO puts it in: `master` when the master pool selects it,
//! else the one custom pool that does, else `worker`; a node two custom pools select is in none
//! (MCO refuses to update it), and so is a node no pool selects.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    LabelSelector, LabelSelectorRequirement, ObjectMeta,
};

use crate::api::MachineConfigPool;

/// What the core needs of a Node: its name, UID (for the enactment's owner) and labels.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    pub uid: Option<String>,
    pub labels: BTreeMap<String, String>,
}

impl Node {
    /// None for metadata without a name (never the case for objects read from the API).
    pub fn from_meta(meta: &ObjectMeta) -> Option<Node> {
        Some(Node {
            name: meta.name.clone()?,
            uid: meta.uid.clone(),
            labels: meta.labels.clone().unwrap_or_default(),
        })
    }
}

/// kubernetes-nmstate's rule: all pairs present with equal values (an empty selector selects
/// every node).
pub fn policy_selects(
    selector: &BTreeMap<String, String>,
    labels: &BTreeMap<String, String>,
) -> bool {
    selector.iter().all(|(k, v)| labels.get(k) == Some(v))
}

/// Kubernetes' label selector semantics; an unknown operator matches nothing.
pub fn selector_matches(selector: &LabelSelector, labels: &BTreeMap<String, String>) -> bool {
    let labels_ok = selector
        .match_labels
        .iter()
        .flatten()
        .all(|(k, v)| labels.get(k) == Some(v));
    let exprs_ok = selector
        .match_expressions
        .iter()
        .flatten()
        .all(|r| requirement_matches(r, labels));
    labels_ok && exprs_ok
}

fn requirement_matches(r: &LabelSelectorRequirement, labels: &BTreeMap<String, String>) -> bool {
    let value = labels.get(&r.key);
    let listed = || value.is_some_and(|v| r.values.iter().flatten().any(|x| x == v));
    match r.operator.as_str() {
        "In" => listed(),
        "NotIn" => !listed(),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        _ => false,
    }
}

/// A selector that selects nothing: absent, or with neither labels nor expressions (MCO skips
/// such pools rather than giving them every node).
fn is_empty(selector: Option<&LabelSelector>) -> bool {
    selector.is_none_or(|s| {
        s.match_labels.as_ref().is_none_or(BTreeMap::is_empty)
            && s.match_expressions.as_ref().is_none_or(Vec::is_empty)
    })
}

/// The name of the pool MCO puts the node in, if any.
pub fn pool_of<'a>(
    labels: &BTreeMap<String, String>,
    pools: &'a [MachineConfigPool],
) -> Option<&'a str> {
    let matching: Vec<&str> = pools
        .iter()
        .filter(|p| !is_empty(p.spec.node_selector.as_ref()))
        .filter(|p| {
            p.spec
                .node_selector
                .as_ref()
                .is_some_and(|s| selector_matches(s, labels))
        })
        .filter_map(|p| p.metadata.name.as_deref())
        .collect();
    let custom: Vec<&str> = matching
        .iter()
        .copied()
        .filter(|n| *n != "master" && *n != "worker")
        .collect();
    if matching.contains(&"master") {
        return Some("master");
    }
    match custom.as_slice() {
        [one] => Some(one),
        [] => matching.contains(&"worker").then_some("worker"),
        _ => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    pub(crate) fn role_pool(name: &str) -> MachineConfigPool {
        let mut p = MachineConfigPool::default();
        p.metadata.name = Some(name.into());
        p.spec.node_selector = Some(LabelSelector {
            match_labels: Some(labels(&[(&format!("node-role.kubernetes.io/{name}"), "")])),
            match_expressions: None,
        });
        p
    }

    fn expr(key: &str, op: &str, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: Some(values.iter().map(|v| v.to_string()).collect()),
        }
    }

    #[test]
    fn a_policy_selector_needs_every_label_with_its_exact_value() {
        let node = labels(&[("a", "1"), ("b", "2")]);
        assert!(policy_selects(&labels(&[("a", "1")]), &node));
        assert!(policy_selects(&labels(&[]), &node));
        assert!(!policy_selects(&labels(&[("a", "2")]), &node));
        assert!(!policy_selects(&labels(&[("a", "1"), ("c", "")]), &node));
    }

    #[test]
    fn pool_selectors_follow_kubernetes_operators() {
        let node = labels(&[("zone", "a"), ("gpu", "")]);
        let sel = |e: Vec<LabelSelectorRequirement>| LabelSelector {
            match_labels: None,
            match_expressions: Some(e),
        };
        assert!(selector_matches(
            &sel(vec![expr("zone", "In", &["a", "b"])]),
            &node
        ));
        assert!(!selector_matches(
            &sel(vec![expr("zone", "NotIn", &["a"])]),
            &node
        ));
        assert!(selector_matches(
            &sel(vec![expr("rack", "NotIn", &["a"])]),
            &node
        ));
        assert!(selector_matches(
            &sel(vec![expr("gpu", "Exists", &[])]),
            &node
        ));
        assert!(!selector_matches(
            &sel(vec![expr("gpu", "DoesNotExist", &[])]),
            &node
        ));
        assert!(!selector_matches(
            &sel(vec![expr("zone", "Near", &["a"])]),
            &node
        ));
    }

    #[test]
    fn a_node_is_in_the_pool_mco_puts_it_in() {
        let pools = [
            role_pool("master"),
            role_pool("worker"),
            role_pool("infra"),
            role_pool("gpu"),
        ];
        let worker = labels(&[("node-role.kubernetes.io/worker", "")]);
        assert_eq!(pool_of(&worker, &pools), Some("worker"));
        let infra = labels(&[
            ("node-role.kubernetes.io/worker", ""),
            ("node-role.kubernetes.io/infra", ""),
        ]);
        assert_eq!(pool_of(&infra, &pools), Some("infra"));
        let compact = labels(&[
            ("node-role.kubernetes.io/worker", ""),
            ("node-role.kubernetes.io/master", ""),
        ]);
        assert_eq!(pool_of(&compact, &pools), Some("master"));
        let both = labels(&[
            ("node-role.kubernetes.io/infra", ""),
            ("node-role.kubernetes.io/gpu", ""),
        ]);
        assert_eq!(pool_of(&both, &pools), None);
        assert_eq!(pool_of(&labels(&[]), &pools), None);
    }

    #[test]
    fn a_pool_without_a_selector_holds_no_node() {
        let mut empty = role_pool("worker");
        empty.spec.node_selector = Some(LabelSelector::default());
        assert_eq!(pool_of(&labels(&[("x", "")]), &[empty]), None);
    }
}
