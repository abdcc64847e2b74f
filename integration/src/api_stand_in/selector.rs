//! `labelSelector` and `fieldSelector` query parameters as kube-apiserver reads them.

use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

/// A label selector, plus the field selectors clients use (`metadata.name`,
/// `metadata.namespace`, equality only); the empty selector matches everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selector {
    labels: Vec<Requirement>,
    fields: Vec<(String, String)>,
}

/// Splits on commas outside parentheses.
fn terms(text: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0, 0, Vec::new());
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out.into_iter()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect()
}

fn set(text: &str) -> Option<Vec<String>> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    Some(inner.split(',').map(|v| v.trim().to_owned()).collect())
}

fn requirement(term: &str) -> Option<Requirement> {
    if let Some((k, v)) = term.split_once("!=") {
        return Some(Requirement::NotEquals(k.trim().into(), v.trim().into()));
    }
    if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
        return Some(Requirement::Equals(k.trim().into(), v.trim().into()));
    }
    if let Some((k, rest)) = term.split_once(" notin ") {
        return Some(Requirement::NotIn(k.trim().into(), set(rest)?));
    }
    if let Some((k, rest)) = term.split_once(" in ") {
        return Some(Requirement::In(k.trim().into(), set(rest)?));
    }
    match term.strip_prefix('!') {
        Some(k) => Some(Requirement::DoesNotExist(k.trim().into())),
        None if !term.contains(' ') => Some(Requirement::Exists(term.into())),
        None => None,
    }
}

impl Selector {
    /// Parses a `labelSelector`; `None` for one kube-apiserver would refuse.
    pub fn parse(labels: &str) -> Option<Selector> {
        let labels = terms(labels)
            .into_iter()
            .map(requirement)
            .collect::<Option<_>>()?;
        Some(Selector {
            labels,
            fields: Vec::new(),
        })
    }

    /// Adds a `fieldSelector`; `None` for a field this stand-in does not index.
    pub fn with_fields(mut self, fields: &str) -> Option<Selector> {
        for term in terms(fields) {
            let (k, v) = term.split_once("==").or_else(|| term.split_once('='))?;
            if !matches!(k.trim(), "metadata.name" | "metadata.namespace") {
                return None;
            }
            self.fields.push((k.trim().into(), v.trim().into()));
        }
        Some(self)
    }

    pub fn matches(&self, object: &Value) -> bool {
        let label = |k: &str| object["metadata"]["labels"][k].as_str();
        let labels_ok = self.labels.iter().all(|r| match r {
            Requirement::Equals(k, v) => label(k) == Some(v),
            Requirement::NotEquals(k, v) => label(k) != Some(v),
            Requirement::In(k, vs) => label(k).is_some_and(|l| vs.iter().any(|v| v == l)),
            Requirement::NotIn(k, vs) => label(k).is_none_or(|l| vs.iter().all(|v| v != l)),
            Requirement::Exists(k) => label(k).is_some(),
            Requirement::DoesNotExist(k) => label(k).is_none(),
        });
        let field = |k: &str| {
            let f = k.trim_start_matches("metadata.");
            object["metadata"][f]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        };
        labels_ok && self.fields.iter().all(|(k, v)| field(k) == *v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(labels: Value) -> Value {
        json!({"metadata": {"name": "n0", "labels": labels}})
    }

    #[test]
    fn every_operator_selects_as_kube_apiserver_does() {
        let n = node(json!({"role": "worker", "zone": "a"}));
        let yes = [
            "role=worker",
            "role==worker",
            "zone!=b",
            "zone in (a, b)",
            "zone notin (b)",
            "role",
            "!gpu",
            "role=worker,zone in (a)",
            "",
        ];
        for s in yes {
            assert!(Selector::parse(s).unwrap().matches(&n), "{s}");
        }
        let no = [
            "role=master",
            "zone!=a",
            "zone in (b,c)",
            "zone notin (a)",
            "gpu",
            "!zone",
        ];
        for s in no {
            assert!(!Selector::parse(s).unwrap().matches(&n), "{s}");
        }
    }

    #[test]
    fn notin_and_not_equals_select_objects_without_the_label() {
        let n = node(json!({}));
        assert!(Selector::parse("zone notin (a)").unwrap().matches(&n));
        assert!(Selector::parse("zone!=a").unwrap().matches(&n));
    }

    #[test]
    fn a_field_selector_on_the_name_selects_one_object() {
        let s = Selector::default().with_fields("metadata.name=n0").unwrap();
        assert!(s.matches(&node(json!({}))));
        let other = Selector::default().with_fields("metadata.name=n1").unwrap();
        assert!(!other.matches(&node(json!({}))));
        assert!(Selector::default().with_fields("spec.nodeName=x").is_none());
    }

    #[test]
    fn a_malformed_selector_is_refused() {
        assert!(Selector::parse("zone in a").is_none());
    }
}
