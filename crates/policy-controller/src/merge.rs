//! Several policies on one node: their union, or the conflict that forbids it.
//!
//! The rules, in the order the policies are merged (ascending policy name):
//! - `interfaces`: entries are the same interface when their `name` is the same (an
//!   `ovs-interface` is apart from the bridge or port of the same name, as in NMState). Two
//!   entries of one interface merge key by key; they conflict when they give one leaf path
//!   (`mtu`, `ipv4.address`, `vlan.id`; a list is one leaf) different values, or when one is a
//!   prefix of the other's (`ipv4` set whole by one, `ipv4.dhcp` by the other). An interface
//!   one policy removes (`state: absent`) conflicts with any other policy's entry for it.
//! - `routes.config` and `route-rules.config`: the union of the entries (an entry both give is
//!   kept once). An entry one policy removes (`state: absent`) conflicts with an entry of the
//!   other policy that it matches (every field the removal names has the same value).
//! - every other key (`dns-resolver`, `ovs-db`, `ovn`, `hostname`, the other keys of `routes`
//!   and `route-rules`): merged key by key with the leaf-path rule above.
//!
//! Conflicts are pairwise: a set of policies no two of which conflict merges without one,
//! whatever the order. The order only decides where entries appear in the merged lists.

use serde_json::{Map, Value};

use crate::policy::canonical;

/// Two policies want different values for one thing.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Conflict {
    /// What both set: `interface eth1`, `dns-resolver`, `route {"destination":...}`.
    pub subject: String,
    /// The leaf path under it, e.g. `ipv4.address`, `mtu`, `state`.
    pub key: String,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} key {}", self.subject, self.key)
    }
}

/// The union of the states in the order given, keys sorted; or the first conflict and the index
/// of the state that brought it.
pub fn merge(states: &[&Value]) -> Result<Value, (usize, Conflict)> {
    let mut acc = Map::new();
    for (i, state) in states.iter().enumerate() {
        if let Value::Object(next) = state {
            merge_state(&mut acc, next).map_err(|c| (i, c))?;
        }
    }
    Ok(canonical(&Value::Object(acc)))
}

/// The conflict between two states, if any.
pub fn conflict(a: &Value, b: &Value) -> Option<Conflict> {
    merge(&[a, b]).err().map(|(_, c)| c)
}

fn merge_state(acc: &mut Map<String, Value>, next: &Map<String, Value>) -> Result<(), Conflict> {
    for (key, value) in next {
        match (key.as_str(), acc.get_mut(key)) {
            (_, None) => {
                acc.insert(key.clone(), value.clone());
            }
            ("interfaces", Some(Value::Array(have))) => merge_interfaces(have, value)?,
            ("routes", Some(Value::Object(have))) => merge_listed(have, value, "route")?,
            ("route-rules", Some(Value::Object(have))) => merge_listed(have, value, "route rule")?,
            (_, Some(have)) => merge_leaves(have, value, key, "")?,
        }
    }
    Ok(())
}

/// Same interface: same name, and both or neither an `ovs-interface`.
fn same_interface(a: &Value, b: &Value) -> bool {
    let ovs = |v: &Value| v.get("type").and_then(Value::as_str) == Some("ovs-interface");
    a.get("name").is_some() && a.get("name") == b.get("name") && ovs(a) == ovs(b)
}

fn merge_interfaces(have: &mut Vec<Value>, next: &Value) -> Result<(), Conflict> {
    for entry in next.as_array().into_iter().flatten() {
        let Some(existing) = have.iter_mut().find(|h| same_interface(h, entry)) else {
            have.push(entry.clone());
            continue;
        };
        let name = entry
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let subject = format!("interface {name}");
        let absent = |v: &Value| v.get("state").and_then(Value::as_str) == Some("absent");
        if (absent(existing) || absent(entry)) && existing.get("state") != entry.get("state") {
            return Err(Conflict {
                subject,
                key: "state".into(),
            });
        }
        merge_leaves(existing, entry, &subject, "")?;
    }
    Ok(())
}

/// `routes`/`route-rules`: `config` is a union, the other keys merge by leaf path.
fn merge_listed(have: &mut Map<String, Value>, next: &Value, kind: &str) -> Result<(), Conflict> {
    let subject = format!("{kind}s");
    for (key, value) in next.as_object().into_iter().flatten() {
        match (key.as_str(), have.get_mut(key)) {
            (_, None) => {
                have.insert(key.clone(), value.clone());
            }
            ("config", Some(Value::Array(entries))) => union(entries, value, kind)?,
            (_, Some(existing)) => merge_leaves(existing, value, &subject, key)?,
        }
    }
    Ok(())
}

fn union(entries: &mut Vec<Value>, next: &Value, kind: &str) -> Result<(), Conflict> {
    for entry in next.as_array().into_iter().flatten() {
        if entries.contains(entry) {
            continue;
        }
        if let Some(hit) = entries
            .iter()
            .find(|e| removes(e, entry) || removes(entry, e))
        {
            let removal = if is_absent(hit) { hit } else { entry };
            return Err(Conflict {
                subject: format!("{kind} {}", describe(removal)),
                key: "state".into(),
            });
        }
        entries.push(entry.clone());
    }
    Ok(())
}

fn is_absent(entry: &Value) -> bool {
    entry.get("state").and_then(Value::as_str) == Some("absent")
}

/// `removal` is `state: absent` and every other field it names has the same value in `entry`,
/// which is not itself a removal.
fn removes(removal: &Value, entry: &Value) -> bool {
    let (Some(fields), false) = (removal.as_object(), is_absent(entry)) else {
        return false;
    };
    is_absent(removal)
        && fields
            .iter()
            .filter(|(k, _)| k.as_str() != "state")
            .all(|(k, v)| entry.get(k) == Some(v))
}

/// A route or rule as one short line: its fields other than `state`.
fn describe(entry: &Value) -> String {
    let mut fields = entry.as_object().cloned().unwrap_or_default();
    fields.remove("state");
    Value::Object(fields).to_string()
}

/// Deep merge of objects; any other pair of different values at one path is a conflict.
fn merge_leaves(have: &mut Value, next: &Value, subject: &str, path: &str) -> Result<(), Conflict> {
    match (have, next) {
        (Value::Object(have), Value::Object(next)) => {
            for (key, value) in next {
                let sub = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match have.get_mut(key) {
                    Some(existing) => merge_leaves(existing, value, subject, &sub)?,
                    None => {
                        have.insert(key.clone(), value.clone());
                    }
                }
            }
            Ok(())
        }
        (have, next) if *have == *next => Ok(()),
        _ => Err(Conflict {
            subject: subject.to_owned(),
            key: if path.is_empty() {
                "(whole value)".into()
            } else {
                path.to_owned()
            },
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn iface(extra: Value) -> Value {
        let mut e = json!({"name": "eth1", "type": "ethernet", "state": "up"});
        if let (Some(e), Some(x)) = (e.as_object_mut(), extra.as_object()) {
            e.extend(x.clone());
        }
        json!({"interfaces": [e]})
    }

    #[test]
    fn different_keys_of_one_interface_merge() {
        let a = iface(json!({"mtu": 9000}));
        let b = iface(
            json!({"ipv4": {"enabled": true, "address": [{"ip": "192.0.2.5", "prefix-length": 24}]}}),
        );
        let merged = merge(&[&a, &b]).unwrap();
        assert_eq!(merged["interfaces"][0]["mtu"], 9000);
        assert_eq!(
            merged["interfaces"][0]["ipv4"]["address"][0]["ip"],
            "192.0.2.5"
        );
        assert_eq!(merged["interfaces"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn one_key_set_to_two_values_is_a_conflict_naming_interface_and_key() {
        let a = iface(json!({"ipv4": {"address": [{"ip": "192.0.2.5", "prefix-length": 24}]}}));
        let b = iface(json!({"ipv4": {"address": [{"ip": "192.0.2.6", "prefix-length": 24}]}}));
        let c = conflict(&a, &b).unwrap();
        assert_eq!(c.subject, "interface eth1");
        assert_eq!(c.key, "ipv4.address");
        let m = conflict(&iface(json!({"mtu": 1500})), &iface(json!({"mtu": 9000}))).unwrap();
        assert_eq!(m.key, "mtu");
    }

    #[test]
    fn the_same_value_twice_is_no_conflict() {
        let a = iface(json!({"mtu": 9000}));
        assert_eq!(conflict(&a, &a.clone()), None);
    }

    #[test]
    fn a_whole_value_against_a_part_of_it_is_a_conflict() {
        let a = iface(json!({"ipv4": false}));
        let b = iface(json!({"ipv4": {"dhcp": true}}));
        assert_eq!(conflict(&a, &b).unwrap().key, "ipv4");
    }

    #[test]
    fn removing_an_interface_conflicts_with_configuring_it() {
        let gone = json!({"interfaces": [{"name": "eth1", "state": "absent"}]});
        let set = json!({"interfaces": [{"name": "eth1", "mtu": 9000}]});
        assert_eq!(conflict(&gone, &set).unwrap().key, "state");
        assert_eq!(conflict(&gone, &gone.clone()), None);
    }

    #[test]
    fn an_ovs_interface_is_apart_from_the_bridge_of_its_name() {
        let bridge = json!({"interfaces": [{"name": "br1", "type": "ovs-bridge", "state": "up"}]});
        let port = json!({"interfaces": [{"name": "br1", "type": "ovs-interface", "state": "up", "mtu": 9000}]});
        let merged = merge(&[&bridge, &port]).unwrap();
        assert_eq!(merged["interfaces"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn routes_are_a_union_and_a_removal_of_an_added_route_conflicts() {
        let r = |dest: &str| json!({"destination": dest, "next-hop-interface": "eth1", "next-hop-address": "192.0.2.1"});
        let a = json!({"routes": {"config": [r("198.51.100.0/24")]}});
        let b = json!({"routes": {"config": [r("203.0.113.0/24"), r("198.51.100.0/24")]}});
        let merged = merge(&[&a, &b]).unwrap();
        assert_eq!(merged["routes"]["config"].as_array().unwrap().len(), 2);
        let gone =
            json!({"routes": {"config": [{"destination": "198.51.100.0/24", "state": "absent"}]}});
        let c = conflict(&a, &gone).unwrap();
        assert_eq!(c.subject, r#"route {"destination":"198.51.100.0/24"}"#);
        assert_eq!(c.key, "state");
    }

    #[test]
    fn dns_servers_set_differently_conflict_by_leaf_path() {
        let a = json!({"dns-resolver": {"config": {"server": ["192.0.2.53"]}}});
        let b = json!({"dns-resolver": {"config": {"server": ["198.51.100.53"], "search": ["example.com"]}}});
        let c = conflict(&a, &b).unwrap();
        assert_eq!(
            (c.subject.as_str(), c.key.as_str()),
            ("dns-resolver", "config.server")
        );
        let s = json!({"dns-resolver": {"config": {"search": ["example.com"]}}});
        assert!(conflict(&a, &s).is_none());
    }

    #[test]
    fn merge_order_decides_where_entries_appear_not_whether_they_merge() {
        let a = json!({"interfaces": [{"name": "a", "state": "up"}]});
        let b = json!({"interfaces": [{"name": "b", "state": "up"}]});
        let ab = merge(&[&a, &b]).unwrap();
        let ba = merge(&[&b, &a]).unwrap();
        assert_eq!(ab["interfaces"][0]["name"], "a");
        assert_eq!(ba["interfaces"][0]["name"], "b");
    }
}
