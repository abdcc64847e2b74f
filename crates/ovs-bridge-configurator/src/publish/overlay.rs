//! What the kernel changed since the last whole read, laid over that read's document: links
//! that appeared or went, and a link's MAC, MTU and addresses. `show` takes seconds on a
//! node with many interfaces (nmstate reads NetworkManager over D-Bus); two netlink dumps take
//! milliseconds, so a change reaches the API well within its budget, and the whole read that
//! follows brings what only NetworkManager knows (profiles, DHCP and the rest).
//!
//! Only the difference between two kernel views is laid over, never one view against the
//! document: nmstate's document and the kernel disagree in ways that are not changes (links
//! NetworkManager leaves out, OVS bridges that are not kernel links), and a difference between
//! two views of the same kernel is exactly what changed. Applying it is idempotent, so a whole
//! read that already saw part of the change is not harmed. Pure: no I/O.

use std::collections::BTreeSet;
use std::net::IpAddr;

use serde_json::{Map, Value, json};

use super::compact::CompactDocument;
use super::document::Document;
use super::kernel::{self, KernelLink, KernelView};

/// The type of the document's entries that share a kernel link's name without being it.
const NOT_A_KERNEL_LINK: &str = "ovs-bridge";

/// `base`, read when the kernel was `before`, with what changed up to `now`; `base` itself
/// when nothing did.
pub fn laid_over(
    base: &CompactDocument,
    before: &KernelView,
    now: &KernelView,
) -> Result<CompactDocument, serde_json::Error> {
    if before == now {
        return Ok(base.clone());
    }
    let mut current = base.state()?;
    overlay(&mut current, before, now);
    let doc = Document::from_state(current, base.versions().clone(), base.cut());
    Ok(CompactDocument::from(doc))
}

/// Lays the difference between `before` and `now` over `current` (`status.currentState`);
/// returns how many interfaces it touched.
pub fn overlay(current: &mut Value, before: &KernelView, now: &KernelView) -> usize {
    let mut touched = 0;
    for (name, was) in &before.links {
        match now.links.get(name) {
            None => touched += usize::from(remove(current, name)),
            Some(is) if is != was => touched += usize::from(change(current, name, was, is)),
            Some(_) => {}
        }
    }
    for (name, link) in &now.links {
        if !before.links.contains_key(name) && add(current, name, link) {
            touched += 1;
        }
    }
    touched
}

fn interfaces(current: &mut Value) -> Option<&mut Vec<Value>> {
    current.get_mut("interfaces")?.as_array_mut()
}

/// The entry for kernel link `name`.
fn entry<'a>(current: &'a mut Value, name: &str) -> Option<&'a mut Map<String, Value>> {
    interfaces(current)?
        .iter_mut()
        .filter_map(Value::as_object_mut)
        .find(|i| is_link(i, name))
}

fn is_link(i: &Map<String, Value>, name: &str) -> bool {
    i.get("name").and_then(Value::as_str) == Some(name)
        && i.get("type").and_then(Value::as_str) != Some(NOT_A_KERNEL_LINK)
}

/// Link `name` is gone: its entry and the routes through it.
fn remove(current: &mut Value, name: &str) -> bool {
    let Some(list) = interfaces(current) else {
        return false;
    };
    let len = list.len();
    list.retain(|i| !i.as_object().is_some_and(|i| is_link(i, name)));
    let removed = list.len() != len;
    for routes in ["running", "config"] {
        if let Some(Value::Array(r)) = current.pointer_mut(&format!("/routes/{routes}")) {
            r.retain(|r| r["next-hop-interface"].as_str() != Some(name));
        }
    }
    removed
}

/// A new link; one the document already shows (the read saw it) is left as it is, and so is a
/// veth: pods' veths come and go with every pod, and the whole read decides whether
/// NetworkManager manages it (the document leaves unmanaged ones out).
fn add(current: &mut Value, name: &str, link: &KernelLink) -> bool {
    if link.kind == "veth" || entry(current, name).is_some() {
        return false;
    }
    let Some(list) = interfaces(current) else {
        return false;
    };
    let state = if kernel::supported(&link.kind) {
        link.state
    } else {
        "ignore"
    };
    let mut i = json!({
        "name": name,
        "type": link.kind,
        "state": state,
        "mtu": link.mtu,
        "ipv4": ip_section(&link.addresses, true),
        "ipv6": ip_section(&link.addresses, false),
    });
    if !link.mac.is_empty() {
        i["mac-address"] = json!(link.mac);
    }
    list.push(i);
    true
}

fn ip_section(addresses: &BTreeSet<(IpAddr, u8)>, v4: bool) -> Value {
    let listed: Vec<Value> = addresses
        .iter()
        .filter(|(ip, _)| ip.is_ipv4() == v4)
        .map(|(ip, len)| address(ip, *len))
        .collect();
    if listed.is_empty() {
        json!({"enabled": false})
    } else {
        json!({"enabled": true, "address": listed})
    }
}

fn address(ip: &IpAddr, prefix_len: u8) -> Value {
    json!({"ip": ip.to_string(), "prefix-length": prefix_len})
}

/// What changed on a link the document shows. Its `state` is left to the whole read:
/// nmstate takes it from NetworkManager where NetworkManager manages the link (an activated
/// bridge without carrier is `up`, an unmanaged link `ignore`), not from the kernel.
fn change(current: &mut Value, name: &str, was: &KernelLink, is: &KernelLink) -> bool {
    let Some(i) = entry(current, name) else {
        return false;
    };
    if was.mac != is.mac && !is.mac.is_empty() {
        i.insert("mac-address".into(), json!(is.mac));
    }
    if was.mtu != is.mtu {
        i.insert("mtu".into(), json!(is.mtu));
    }
    for (family, v4) in [("ipv4", true), ("ipv6", false)] {
        let gone = was.addresses.difference(&is.addresses);
        let new = is.addresses.difference(&was.addresses);
        let (gone, new): (Vec<_>, Vec<_>) = (
            gone.filter(|(ip, _)| ip.is_ipv4() == v4).collect(),
            new.filter(|(ip, _)| ip.is_ipv4() == v4).collect(),
        );
        if !gone.is_empty() || !new.is_empty() {
            readdress(i, family, &gone, &new);
        }
    }
    true
}

/// Takes `gone` out of the family's `address` list and appends `new` (those not listed yet).
fn readdress(
    i: &mut Map<String, Value>,
    family: &str,
    gone: &[&(IpAddr, u8)],
    new: &[&(IpAddr, u8)],
) {
    let section = i.entry(family).or_insert_with(|| json!({}));
    let Some(section) = section.as_object_mut() else {
        return;
    };
    let same = |v: &Value, (ip, len): &(IpAddr, u8)| {
        v["ip"].as_str().and_then(|s| s.parse::<IpAddr>().ok()) == Some(*ip)
            && v["prefix-length"].as_u64() == Some(u64::from(*len))
    };
    let list = section.entry("address").or_insert_with(|| json!([]));
    let Some(list) = list.as_array_mut() else {
        return;
    };
    list.retain(|v| !gone.iter().any(|g| same(v, g)));
    for n in new {
        if !list.iter().any(|v| same(v, n)) {
            list.push(address(&n.0, n.1));
        }
    }
    let any = !list.is_empty();
    if any {
        section.insert("enabled".into(), json!(true));
    } else {
        section.remove("address");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(kind: &str, addresses: &[(&str, u8)]) -> KernelLink {
        KernelLink {
            kind: kind.into(),
            state: "up",
            mac: "02:00:00:00:00:01".into(),
            mtu: 1500,
            addresses: addresses
                .iter()
                .map(|(ip, len)| (ip.parse().unwrap(), *len))
                .collect(),
        }
    }

    fn view(links: &[(&str, KernelLink)]) -> KernelView {
        KernelView {
            links: links
                .iter()
                .map(|(n, l)| ((*n).to_owned(), l.clone()))
                .collect(),
        }
    }

    /// A document as `show` gives it: br-ex (bridge and interface) and vl1 with one address.
    fn document() -> Value {
        json!({
            "interfaces": [
                {"name": "br-ex", "type": "ovs-bridge", "state": "up"},
                {"name": "br-ex", "type": "ovs-interface", "state": "up", "mtu": 1500,
                 "ipv4": {"enabled": true, "dhcp": false,
                          "address": [{"ip": "192.0.2.10", "prefix-length": 24}]}},
                {"name": "vl1", "type": "vlan", "state": "up", "mtu": 1500,
                 "vlan": {"base-iface": "ens4", "id": 1},
                 "ipv4": {"enabled": true,
                          "address": [{"ip": "198.51.100.1", "prefix-length": 24}]}},
            ],
            "routes": {"running": [
                {"destination": "203.0.113.0/24", "next-hop-interface": "vl1"},
                {"destination": "0.0.0.0/0", "next-hop-interface": "br-ex"},
            ]},
        })
    }

    fn base() -> KernelView {
        view(&[
            ("br-ex", link("ovs-interface", &[("192.0.2.10", 24)])),
            ("vl1", link("vlan", &[("198.51.100.1", 24)])),
        ])
    }

    #[test]
    fn nothing_changed_leaves_the_document_as_it_is() {
        let mut doc = document();
        assert_eq!(overlay(&mut doc, &base(), &base()), 0);
        assert_eq!(doc, document());
    }

    #[test]
    fn a_new_link_is_added_with_its_kernel_settings() {
        let mut now = base();
        let mut mv = link("mac-vlan", &[("198.19.0.1", 24), ("fe80::1", 64)]);
        mv.mtu = 9000;
        now.links.insert("bv0".into(), mv);
        let mut doc = document();
        assert_eq!(overlay(&mut doc, &base(), &now), 1);
        let added = &doc["interfaces"][3];
        assert_eq!(added["name"], "bv0");
        assert_eq!(added["type"], "mac-vlan");
        assert_eq!(added["mtu"], 9000);
        assert_eq!(added["mac-address"], "02:00:00:00:00:01");
        assert_eq!(added["ipv4"]["address"][0]["ip"], "198.19.0.1");
        assert_eq!(added["ipv6"]["address"][0]["prefix-length"], 64);
    }

    #[test]
    fn a_new_link_of_a_kind_nmstate_does_not_support_is_ignored() {
        let mut now = base();
        now.links.insert("wg0".into(), link("wireguard", &[]));
        let mut doc = document();
        overlay(&mut doc, &base(), &now);
        assert_eq!(doc["interfaces"][3]["state"], "ignore");
    }

    #[test]
    fn a_new_veth_or_one_the_read_already_saw_is_left_to_the_read() {
        let mut now = base();
        now.links.insert("c0ffee".into(), link("veth", &[]));
        let mut seen = document();
        seen["interfaces"][2]["name"] = json!("vl2");
        now.links.insert("vl2".into(), link("vlan", &[]));
        let mut doc = seen.clone();
        assert_eq!(overlay(&mut doc, &base(), &now), 0);
        assert_eq!(doc, seen);
    }

    #[test]
    fn a_link_gone_takes_its_entry_and_routes_but_not_an_ovs_bridge_of_its_name() {
        let mut doc = document();
        let now = view(&[]);
        assert_eq!(overlay(&mut doc, &base(), &now), 2);
        let left = doc["interfaces"].as_array().unwrap();
        assert_eq!(left.len(), 1);
        assert_eq!(left[0]["type"], "ovs-bridge");
        assert_eq!(doc["routes"]["running"], json!([]));
    }

    #[test]
    fn addresses_and_mtu_follow_the_kernel_and_state_is_left_to_the_read() {
        let mut now = base();
        let vl1 = now.links.get_mut("vl1").unwrap();
        vl1.addresses = [
            ("198.51.100.1".parse().unwrap(), 24),
            ("2001:db8::1".parse().unwrap(), 64),
        ]
        .into();
        vl1.mtu = 1400;
        vl1.state = "down";
        now.links.get_mut("br-ex").unwrap().addresses.clear();
        let mut doc = document();
        assert_eq!(overlay(&mut doc, &base(), &now), 2);
        let vl1 = &doc["interfaces"][2];
        assert_eq!(vl1["mtu"], 1400);
        assert_eq!(vl1["state"], "up");
        assert_eq!(vl1["ipv4"]["address"].as_array().unwrap().len(), 1);
        assert_eq!(
            vl1["ipv6"],
            json!({"enabled": true, "address": [{"ip": "2001:db8::1", "prefix-length": 64}]})
        );
        // The last address gone: the list goes, what NetworkManager says of the family stays.
        assert_eq!(
            doc["interfaces"][1]["ipv4"],
            json!({"enabled": true, "dhcp": false})
        );
    }

    #[test]
    fn a_document_laid_over_keeps_the_fingerprint_of_the_same_state_read_whole() {
        use super::super::document::Versions;
        let versions = Versions {
            network_manager: Some("1.52.0".into()),
            nmstate: "2.2.62".into(),
        };
        let yaml = serde_yaml::to_string(&document()).unwrap();
        let read = CompactDocument::from(Document::new(&yaml, versions.clone()).unwrap());
        let mut now = base();
        now.links.get_mut("vl1").unwrap().mtu = 9000;
        let changed = laid_over(&read, &base(), &now).unwrap();
        assert_ne!(changed.fingerprint(), read.fingerprint());
        // The kernel back as it was: the same state as the read, the same fingerprint.
        let back = laid_over(&changed, &now, &base()).unwrap();
        assert_eq!(back.fingerprint(), read.fingerprint());
        assert_eq!(back.state().unwrap(), read.state().unwrap());
    }

    #[test]
    fn laying_the_same_change_twice_changes_nothing_more() {
        let mut now = base();
        now.links
            .insert("bv0".into(), link("mac-vlan", &[("198.19.0.1", 24)]));
        now.links
            .get_mut("vl1")
            .unwrap()
            .addresses
            .insert(("198.18.0.1".parse().unwrap(), 24));
        let mut once = document();
        overlay(&mut once, &base(), &now);
        let mut twice = once.clone();
        overlay(&mut twice, &base(), &now);
        assert_eq!(once, twice);
    }
}
