//! NetworkManager profile settings (`a{sa{sv}}`, as `GetSettings` returns them) and the small
//! typed accessors the planner needs.

use std::collections::BTreeMap;

use zbus::zvariant::{OwnedValue, Value};

/// One setting section (`connection`, `ipv4`, ...).
pub type Section = BTreeMap<String, OwnedValue>;
/// A profile's settings. Ordered maps: the same profile always prints the same way.
pub type Settings = BTreeMap<String, Section>;

/// A value for a setting.
pub fn val<'a>(v: impl Into<Value<'a>>) -> OwnedValue {
    // Only values carrying file descriptors can fail to convert; settings never do.
    OwnedValue::try_from(v.into()).expect("setting values carry no file descriptors")
}

fn value<'s>(s: &'s Settings, section: &str, key: &str) -> Option<&'s OwnedValue> {
    s.get(section)?.get(key)
}

pub fn get_str(s: &Settings, section: &str, key: &str) -> Option<String> {
    match &**value(s, section, key)? {
        Value::Str(v) => Some(v.to_string()),
        _ => None,
    }
}

pub fn get_bool(s: &Settings, section: &str, key: &str) -> Option<bool> {
    match &**value(s, section, key)? {
        Value::Bool(v) => Some(*v),
        _ => None,
    }
}

pub fn get_u32(s: &Settings, section: &str, key: &str) -> Option<u32> {
    match &**value(s, section, key)? {
        Value::U32(v) => Some(*v),
        _ => None,
    }
}

/// The string pairs of a `a{ss}` setting (`bond.options`).
pub fn get_str_map(s: &Settings, section: &str, key: &str) -> BTreeMap<String, String> {
    let Some(v) = value(s, section, key) else {
        return BTreeMap::new();
    };
    let Ok(v) = v.try_clone() else {
        return BTreeMap::new();
    };
    <std::collections::HashMap<String, String>>::try_from(v)
        .map(|m| m.into_iter().collect())
        .unwrap_or_default()
}

/// Number of elements of an array setting (0 when absent).
pub fn array_len(s: &Settings, section: &str, key: &str) -> usize {
    match value(s, section, key).map(|v| &**v) {
        Some(Value::Array(a)) => a.len(),
        _ => 0,
    }
}

/// Whether `s` configures `family` (`ipv4`, `ipv6`) at all (not: no section, as a port has, or
/// `disabled`).
pub fn configures_ip(s: &Settings, family: &str) -> bool {
    s.contains_key(family) && get_str(s, family, "method").as_deref() != Some("disabled")
}

/// Whether a setting is present at all (NM only sends non-default values).
pub fn has(s: &Settings, section: &str, key: &str) -> bool {
    value(s, section, key).is_some()
}

pub fn set<'a>(s: &mut Settings, section: &str, key: &str, v: impl Into<Value<'a>>) {
    s.entry(section.to_owned())
        .or_default()
        .insert(key.to_owned(), val(v));
}

pub fn remove(s: &mut Settings, section: &str, key: &str) {
    if let Some(sec) = s.get_mut(section) {
        sec.remove(key);
    }
}

/// Deep copy (`OwnedValue` holds no file descriptors in settings).
pub fn clone_settings(s: &Settings) -> Settings {
    s.iter()
        .map(|(k, sec)| {
            let sec = sec
                .iter()
                .map(|(k, v)| (k.clone(), v.try_clone().expect("no fds")))
                .collect();
            (k.clone(), sec)
        })
        .collect()
}

/// `connection.id`, `.uuid`, `.type`, `.interface-name`, `.master`, `.slave-type`.
pub fn id(s: &Settings) -> String {
    get_str(s, "connection", "id").unwrap_or_default()
}

pub fn uuid(s: &Settings) -> String {
    get_str(s, "connection", "uuid").unwrap_or_default()
}

pub fn kind(s: &Settings) -> String {
    get_str(s, "connection", "type").unwrap_or_default()
}

pub fn interface(s: &Settings) -> Option<String> {
    get_str(s, "connection", "interface-name")
}

pub fn master(s: &Settings) -> Option<String> {
    get_str(s, "connection", "master")
}

/// NM's `autoconnect` defaults to true when absent.
pub fn autoconnect(s: &Settings) -> bool {
    get_bool(s, "connection", "autoconnect").unwrap_or(true)
}

fn render_value(v: &Value<'_>) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::U8(n) => n.to_string(),
        Value::I32(n) => n.to_string(),
        Value::U32(n) => n.to_string(),
        Value::I64(n) => n.to_string(),
        Value::U64(n) => n.to_string(),
        Value::Array(a) => {
            let bytes: Option<Vec<u8>> = a
                .iter()
                .map(|x| if let Value::U8(b) = x { Some(*b) } else { None })
                .collect();
            match bytes {
                Some(b) if !b.is_empty() => selection::net::mac_text(&b),
                _ => a.iter().map(render_value).collect::<Vec<_>>().join(","),
            }
        }
        Value::Dict(d) => {
            let m: std::collections::BTreeMap<String, String> = d
                .iter()
                .map(|(k, v)| (render_value(k), render_value(v)))
                .collect();
            m.into_iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(";")
        }
        Value::Value(inner) => render_value(inner),
        other => format!("{other:?}"),
    }
}

/// Named accessors for what holds a profile's settings (NetworkManager's stored profiles, the
/// planner's view of them).
pub trait ProfileView {
    fn settings(&self) -> &Settings;
    fn id(&self) -> String {
        id(self.settings())
    }
    fn uuid(&self) -> String {
        uuid(self.settings())
    }
    /// `connection.type`.
    fn kind(&self) -> String {
        kind(self.settings())
    }
    /// `connection.interface-name`.
    fn interface(&self) -> Option<String> {
        interface(self.settings())
    }
}

/// Keyfile-style text (`[section]` then `key=value`), for `plan` output and troubleshooting.
pub fn render(s: &Settings) -> String {
    let mut out = String::new();
    // `[connection]` first, as in a keyfile; the rest in name order.
    let sections = s
        .iter()
        .filter(|(k, _)| *k == "connection")
        .chain(s.iter().filter(|(k, _)| *k != "connection"));
    for (section, keys) in sections {
        out.push_str(&format!("[{section}]\n"));
        for (k, v) in keys {
            out.push_str(&format!("{k}={}\n", render_value(v)));
        }
        out.push('\n');
    }
    out
}

/// JSON for `plan --json`.
pub fn to_json(s: &Settings) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for (section, keys) in s {
        let mut sec = serde_json::Map::new();
        for (k, v) in keys {
            sec.insert(k.clone(), serde_json::Value::String(render_value(v)));
        }
        out.insert(section.clone(), serde_json::Value::Object(sec));
    }
    serde_json::Value::Object(out)
}
