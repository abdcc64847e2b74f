//! What a day-2 change does to the profiles of interfaces that exist: nmstate's diff (the part
//! of the desired state that differs from the running one, after nmstate's own validation and
//! merge) turned into the NetworkManager settings the project writes and reapplies itself
//! ([`crate::engine::reapply`]). Covered: an existing interface's MTU, its IPv4/IPv6 method,
//! static addresses and automatic-configuration switches, and the static routes through it:
//! what a day-2 change of br-ex is. Anything else in the diff is [`Uncovered`], and goes through
//! nmstate's own apply.
//!
//! Read from nmstate's YAML/JSON form ([`crate::engine::state`]), not from its types' fields:
//! nmstate documents the schema as its API and keeps it across releases.

use std::collections::BTreeMap;
use std::net::IpAddr;

use serde::Deserialize;
use serde_json::{Map, Value as Json};

use crate::engine::state::{Iface, IpConfig, RouteEntry, State, VlanConfig};
use crate::nm::profile::Settings;
use crate::nm::setting::{
    AddressData, Connection, ConnectionKey, Ethernet, Family, Ip, IpKey, OvsInterface, RouteData,
    Setting,
};

/// A part of the diff this module does not turn into profile settings (named for the log).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Uncovered(pub String);

/// One existing interface's new settings, in nmstate's terms.
#[derive(Debug, Clone, PartialEq)]
pub struct IfaceChange {
    pub name: String,
    pub mtu: Option<u32>,
    /// The whole `ipv4` / `ipv6` section as it is to be (running config overlaid with the diff).
    pub ipv4: Option<IpConfig>,
    pub ipv6: Option<IpConfig>,
    /// Every static route through the interface as it is to be, when they change.
    pub routes4: Option<Vec<Route>>,
    pub routes6: Option<Vec<Route>>,
    /// The OVS bridge the interface becomes a port of (one the same change creates or gives a
    /// new port: the caller checks that).
    pub controller: Option<String>,
    /// It stops being a port of an OVS bridge (the caller sets its IP stacks off).
    pub detached: bool,
}

/// A static route as NetworkManager stores it (`route-data`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub dest: IpAddr,
    pub prefix: u8,
    pub next_hop: Option<IpAddr>,
    pub metric: u32,
    pub table: u32,
}

/// The keys of an interface of the diff this module writes. Those of its IP sections and of its
/// routes are the typed keys of [`IpConfig`] and [`RouteEntry`].
const IFACE_KEYS: &[&str] = &["name", "type", "state", "mtu", "ipv4", "ipv6", "controller"];

/// The first of `keys` that is not one of `known`.
pub fn unknown_key<'k>(mut keys: impl Iterator<Item = &'k str>, known: &[&str]) -> Option<&'k str> {
    keys.find(|k| !known.contains(k))
}

/// The changes `diff` (nmstate's `gen_diff` of `desired` against `running`) makes to interfaces
/// that exist in `running` (read with `set_running_config_only`: no dynamic addresses or routes,
/// which are not the profile's), and the routes it puts through `new` interfaces (those the
/// same change creates, left out of `diff`'s interfaces).
pub fn changes(
    diff: &State,
    desired: &State,
    running: &State,
    new: &[&str],
) -> Result<Vec<IfaceChange>, Uncovered> {
    // `dns-resolver` is written by [`crate::engine::dns`].
    if let Some(key) = diff
        .other
        .iter()
        .find(|(k, v)| *k != "dns-resolver" && !is_empty(v))
        .map(|(k, _)| k)
    {
        return Err(Uncovered(format!("`{key}`")));
    }
    let mut out: BTreeMap<String, IfaceChange> = BTreeMap::new();
    for iface in &diff.interfaces {
        let change = iface_change(iface, running)?;
        out.insert(change.name.clone(), change);
    }
    for (dev, changed) in changed_routes_by_device(diff, running, new)? {
        let (v4, v6) = routes_to_be(&dev, &changed, desired, running)?;
        let change = out
            .entry(dev.clone())
            .or_insert_with(|| IfaceChange::new(&dev));
        change.routes4 = Some(v4);
        change.routes6 = Some(v6);
    }
    Ok(out.into_values().collect())
}

/// The change one interface of the diff makes to the interface of `running` it names: its MTU,
/// its IP sections merged with the running ones, the OVS bridge it moves under.
fn iface_change(iface: &Iface, running: &State) -> Result<IfaceChange, Uncovered> {
    let name = iface.name.as_str();
    let Some(now) = running
        .interfaces
        .iter()
        .find(|i| i.name == name && iface.kind.as_deref().is_none_or(|t| i.is_of_type(t)))
    else {
        return Err(Uncovered(format!("new interface {name}")));
    };
    // nmstate's diff lists a VLAN's `vlan` section with the rest of a changed VLAN: nothing to
    // write when every key it gives is the running one's.
    let same_vlan = iface.vlan.as_ref().is_some_and(|v| vlan_in_place(v, now));
    let keys = iface.keys().filter(|k| !(same_vlan && *k == "vlan"));
    if let Some(key) = unknown_key(keys, IFACE_KEYS) {
        return Err(Uncovered(format!("{name}'s `{key}`")));
    }
    if iface.not_up() {
        return Err(Uncovered(format!("{name} {}", iface.state_json())));
    }
    let mut change = IfaceChange::new(name);
    change.mtu = mtu_of(iface.mtu, name)?;
    for (family, slot) in [
        (Family::V4, &mut change.ipv4),
        (Family::V6, &mut change.ipv6),
    ] {
        if let Some(ip) = iface.ip(family) {
            *slot = Some(merged_ip(now.ip(family), ip, name, family)?);
        }
    }
    if let Some(c) = &iface.controller {
        if c.is_empty() {
            return Err(Uncovered(format!("{name} detached from its controller")));
        }
        change.controller = Some(c.clone());
    }
    Ok(change)
}

/// Whether every key of `desired` (a `vlan` section) is `running`'s.
fn vlan_in_place(desired: &VlanConfig, running: &Iface) -> bool {
    let Some(now) = &running.vlan else {
        return false;
    };
    desired
        .base_iface
        .as_ref()
        .is_none_or(|b| now.base_iface.as_ref() == Some(b))
        && desired.id.is_none_or(|id| now.id == Some(id))
        && desired
            .other
            .iter()
            .all(|(k, v)| now.other.get(k) == Some(v))
}

/// The routes of the diff that change something, by the interface they go through (one that
/// runs or one of `new`).
fn changed_routes_by_device<'d>(
    diff: &'d State,
    running: &State,
    new: &[&str],
) -> Result<BTreeMap<String, Vec<&'d RouteEntry>>, Uncovered> {
    let mut via: BTreeMap<String, Vec<&RouteEntry>> = BTreeMap::new();
    for r in &diff.routes.config {
        if let Some(key) = r.other.keys().next() {
            return Err(Uncovered(format!("a route's `{key}`")));
        }
        let Some(dev) = r.next_hop_interface.as_deref() else {
            return Err(Uncovered("a route without next-hop-interface".into()));
        };
        if running.iface(dev).is_none() && !new.contains(&dev) {
            return Err(Uncovered(format!("a route through new interface {dev}")));
        }
        // nmstate's diff lists a desired route left without a metric or table even when it is
        // in place (it compares the running route's metric with none): not a change.
        if !r.is_absent() && running.routes.config.iter().any(|c| route_in_place(c, r)) {
            continue;
        }
        via.entry(dev.to_owned()).or_default().push(r);
    }
    Ok(via)
}

/// Every static route through `dev` as it is to be, IPv4 then IPv6: the running ones that
/// `changed` does not remove, and every desired one. One that a desired `state: absent` also
/// matches stays (nmstate's rule); one in place is not written twice.
fn routes_to_be(
    dev: &str,
    changed: &[&RouteEntry],
    desired: &State,
    running: &State,
) -> Result<(Vec<Route>, Vec<Route>), Uncovered> {
    let kept = running
        .routes
        .config
        .iter()
        .filter(|r| r.is_through(dev))
        .filter(|r| {
            !changed
                .iter()
                .any(|c| c.is_absent() && same_route_but_state(c, r))
        });
    let added = desired.present_routes().filter(|r| r.is_through(dev));
    let mut v4 = Vec::new();
    let mut v6 = Vec::new();
    for r in kept.chain(added) {
        let route = route_of(r)?;
        let family = if route.dest.is_ipv4() {
            &mut v4
        } else {
            &mut v6
        };
        if !family.contains(&route) {
            family.push(route);
        }
    }
    Ok((v4, v6))
}

/// What of nmstate's diff `diff` (its JSON) of the desired state against the running one
/// (`running`) is not in place yet, as nmstate's JSON text (None: all of it is): nmstate's own
/// verification, but for the routes it lists although they are in place (see
/// [`route_in_place`]).
pub fn diff_not_in_place(diff: &Json, desired: &State, running: &State) -> Option<String> {
    let mut left = Map::new();
    for (key, v) in diff.as_object().into_iter().flatten() {
        if key != "routes" && !is_empty(v) {
            left.insert(key.clone(), v.clone());
        }
    }
    let diff_routes = diff["routes"]["config"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let routes: Vec<Json> = diff_routes
        .iter()
        .filter(|r| {
            // One the engine cannot read is left as it is, named.
            let Ok(r) = RouteEntry::deserialize(*r) else {
                return true;
            };
            if r.is_absent() {
                // A running route a desired `state: absent` matches stays when it is also
                // desired (nmstate's rule).
                !desired.present_routes().any(|d| route_in_place(&r, d))
            } else {
                !running.routes.config.iter().any(|c| route_in_place(c, &r))
            }
        })
        .cloned()
        .collect();
    if !routes.is_empty() {
        left.insert("routes".into(), Json::Array(routes));
    }
    (!left.is_empty()).then(|| Json::Object(left).to_string())
}

fn is_empty(v: &Json) -> bool {
    v.is_null()
        || v.as_array().is_some_and(Vec::is_empty)
        || v.as_object().is_some_and(Map::is_empty)
        || v.as_str().is_some_and(str::is_empty)
}

impl IfaceChange {
    /// No change yet to interface `name`.
    pub fn new(name: &str) -> IfaceChange {
        IfaceChange {
            name: name.to_owned(),
            mtu: None,
            ipv4: None,
            ipv6: None,
            routes4: None,
            routes6: None,
            controller: None,
            detached: false,
        }
    }
}

/// Whether the running route `current` is the desired route `desired`: every field the desired
/// one gives is the same (a metric of -1 or a table of 0, nmstate's "the default", and a missing
/// field match any).
pub fn route_in_place(current: &RouteEntry, desired: &RouteEntry) -> bool {
    fn same<T: PartialEq>(current: &Option<T>, desired: &Option<T>) -> bool {
        desired.is_none() || current == desired
    }
    let table = match desired.table_id {
        Some(0) => true,
        Some(t) if t == i64::from(MAIN_TABLE) => current.table_id.is_none_or(|c| c == t),
        _ => same(&current.table_id, &desired.table_id),
    };
    same(&current.destination, &desired.destination)
        && same(&current.next_hop_interface, &desired.next_hop_interface)
        && same(&current.next_hop_address, &desired.next_hop_address)
        && (desired.metric == Some(-1) || same(&current.metric, &desired.metric))
        && table
        && desired
            .other
            .iter()
            .all(|(k, v)| current.other.get(k) == Some(v))
}

/// The same route, `state` aside (nmstate's diff names a removed route by its full entry).
fn same_route_but_state(a: &RouteEntry, b: &RouteEntry) -> bool {
    let strip = |r: &RouteEntry| RouteEntry {
        state: None,
        ..r.clone()
    };
    strip(a) == strip(b)
}

/// The running `ipv4`/`ipv6` section `now` overlaid with the diff's (the diff carries what
/// changes).
pub fn merged_ip(
    now: Option<&IpConfig>,
    diff: &IpConfig,
    name: &str,
    family: Family,
) -> Result<IpConfig, Uncovered> {
    let mut now = now.cloned().unwrap_or_default();
    // What else nmstate reads back with the running state (the kernel's forwarding switch, the
    // prefix route's metric...) stays as the profile has it: only the diff's keys must be known.
    now.other.clear();
    let ip = now.overlaid(diff);
    if let Some(key) = ip.other.keys().next() {
        return Err(Uncovered(format!("{name}'s {} `{key}`", family.section())));
    }
    if ip.enabled == Some(false) {
        // Only `enabled: false` counts then; the rest is what nmstate shows of a disabled stack.
        return Ok(IpConfig::disabled());
    }
    Ok(ip)
}

/// An interface's `mtu` (None: the state does not set it).
pub fn mtu_of(mtu: Option<u64>, name: &str) -> Result<Option<u32>, Uncovered> {
    mtu.map(|m| u32::try_from(m).map_err(|_| Uncovered(format!("{name}'s mtu {m}"))))
        .transpose()
}

/// A route of nmstate's state as NetworkManager stores it (nmstate's defaults filled in).
pub fn route_of(r: &RouteEntry) -> Result<Route, Uncovered> {
    let bad = || Uncovered(format!("route {r}"));
    let dest = r.destination.as_deref().ok_or_else(bad)?;
    let (ip, prefix) = dest.split_once('/').ok_or_else(bad)?;
    let next_hop = match r.next_hop_address.as_deref() {
        None | Some("" | "0.0.0.0" | "::") => None,
        Some(a) => Some(a.parse().map_err(|_| bad())?),
    };
    // A value given, but for nmstate's "the default" markers (`unset`).
    let given = |n: Option<i64>, unset: &[i64]| match n {
        Some(n) if !unset.contains(&n) => u32::try_from(n).map(Some).map_err(|_| bad()),
        _ => Ok(None),
    };
    let dest: IpAddr = ip.parse().map_err(|_| bad())?;
    // What a route without a metric or table means in NMState: nmstate stores it with metric 0
    // (IPv4; 1024, the kernel's default, for IPv6) in the main table, not with the profile's
    // route metric, so a static default route wins over a DHCP one. Kept, deliberately: the same
    // YAML must mean the same routes whichever engine applies it.
    let default_metric = if dest.is_ipv4() { 0 } else { 1024 };
    Ok(Route {
        dest,
        prefix: prefix.parse().map_err(|_| bad())?,
        next_hop,
        metric: given(r.metric, &[-1])?.unwrap_or(default_metric),
        table: given(r.table_id, &[-1, 0])?.unwrap_or(MAIN_TABLE),
    })
}

/// The kernel's main routing table.
const MAIN_TABLE: u32 = 254;

/// `settings` (an interface's profile, as GetSettings gives it, secrets included) with `change`
/// written in; every other setting is kept as it was.
pub fn apply_to(settings: &mut Settings, change: &IfaceChange) -> Result<(), Uncovered> {
    if let Some(mtu) = change.mtu {
        Ethernet {
            mtu: Some(mtu),
            ..Ethernet::default()
        }
        .write(settings);
    }
    for (family, ip, routes) in [
        (Family::V4, &change.ipv4, &change.routes4),
        (Family::V6, &change.ipv6, &change.routes6),
    ] {
        // Both IP sections are there once it is written (an empty one: NetworkManager's
        // defaults).
        Ip::default().write(settings, family);
        // The older forms of address-data and route-data: GetSettings returns both, and
        // NetworkManager takes the older one when both are given.
        Ip::remove(settings, family, &[IpKey::Addresses, IpKey::Routes]);
        if let Some(ip) = ip {
            write_ip(settings, family, ip).map_err(|e| {
                Uncovered(format!("{}'s {}: {}", change.name, family.section(), e.0))
            })?;
        }
        if let Some(routes) = routes {
            // As nmstate stores routes: the default route a `gateway` makes is one of the
            // routes (the running configuration shows it as one, with the profile's metric).
            Ip::remove(settings, family, &[IpKey::Gateway]);
            Ip {
                route_data: Some(routes.iter().map(route_data).collect()),
                ..Ip::default()
            }
            .write(settings, family);
        }
    }
    if change.controller.is_some() {
        make_port(settings, &change.name);
    }
    if change.detached {
        make_detached(settings);
    }
    Ok(())
}

/// `settings` taken out of its bridge, as nmstate writes it: no controller, nothing of OVS, and
/// a port's own ports brought up with it only if it is a controller itself.
fn make_detached(settings: &mut Settings) {
    use ConnectionKey::{AutoconnectSlaves, Controller, Master, PortType, SlaveType};
    Connection::remove_section(
        settings,
        Connection::NAME,
        &[Master, SlaveType, Controller, PortType],
    );
    settings.remove(OvsInterface::NAME);
    settings.remove("ovs-external-ids");
    if !is_controller(settings) {
        Connection::remove_section(settings, Connection::NAME, &[AutoconnectSlaves]);
    }
}

/// `settings` (the profile of interface `name`) made a port of an OVS bridge, as nmstate writes
/// one: its controller is the OVS port of its own name, and it has no IP configuration.
pub fn make_port(settings: &mut Settings, name: &str) {
    settings.remove(Family::V4.section());
    settings.remove(Family::V6.section());
    Connection {
        master: Some(name.to_owned()),
        slave_type: Some("ovs-port".to_owned()),
        // nmstate writes a controller it touches to bring its own ports up with it.
        autoconnect_slaves: is_controller(settings).then_some(1),
        ..Connection::default()
    }
    .write(settings);
}

fn is_controller(settings: &Settings) -> bool {
    ["bond", "team"].contains(&crate::nm::profile::kind(settings).as_str())
}

/// Writes nmstate's `ipv4`/`ipv6` section `ip` into the profile's `family` section: the method,
/// the static addresses and the automatic configuration's switches.
fn write_ip(s: &mut Settings, family: Family, ip: &IpConfig) -> Result<(), Uncovered> {
    let addresses = static_addresses_of(ip);
    let method = ip_method(family, ip, addresses.is_empty())?;
    let automatic = method == "auto" || method == "dhcp";
    // nmstate's `auto-*: false` are NetworkManager's `ignore-*` / `never-default`.
    let ignores = |auto: Option<bool>| automatic && auto == Some(false);
    let route_table = ip
        .auto_route_table_id
        .filter(|_| automatic)
        .map(|t| u32::try_from(t).map_err(|_| Uncovered(format!("auto-route-table-id {t}"))))
        .transpose()?;
    Ip {
        method: Some(method.to_owned()),
        address_data: Some(addresses),
        ignore_auto_dns: Some(ignores(ip.auto_dns)),
        ignore_auto_routes: Some(ignores(ip.auto_routes)),
        never_default: Some(ignores(ip.auto_gateway)),
        route_table,
        route_metric: ip.auto_route_metric.filter(|_| automatic),
        ..Ip::default()
    }
    .write(s, family);
    Ok(())
}

/// The static addresses of nmstate's IP section `ip`.
fn static_addresses_of(ip: &IpConfig) -> Vec<AddressData> {
    ip.address
        .iter()
        .flatten()
        .map(|a| AddressData {
            address: a.ip.clone(),
            prefix: a.prefix_length,
        })
        .collect()
}

/// NetworkManager's `method` for nmstate's IP section `ip` of `family` (`no_address`: it lists
/// no static address).
fn ip_method(family: Family, ip: &IpConfig, no_address: bool) -> Result<&'static str, Uncovered> {
    let enabled = ip.enabled.unwrap_or(true);
    let dhcp = ip.dhcp.unwrap_or(false);
    let autoconf = ip.autoconf.unwrap_or(false);
    Ok(match (family, enabled, dhcp, autoconf, no_address) {
        (_, false, ..) => "disabled",
        (Family::V4, _, true, _, _) => "auto",
        (Family::V6, _, _, true, _) => "auto",
        (Family::V6, _, true, false, _) => "dhcp",
        (_, _, false, false, false) => "manual",
        (Family::V6, _, false, false, true) => "link-local",
        // An enabled IPv4 stack with neither DHCP nor an address: nmstate's own rules decide.
        _ => return Err(Uncovered("enabled without DHCP or an address".into())),
    })
}

/// A route as `route-data` holds it.
fn route_data(r: &Route) -> RouteData {
    RouteData {
        dest: r.dest.to_string(),
        prefix: u32::from(r.prefix),
        next_hop: r.next_hop.map(|h| h.to_string()),
        metric: Some(r.metric),
        table: Some(r.table),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nm::profile;
    use nmstate::NetworkState;

    fn state(s: &NetworkState) -> State {
        State::from_json(serde_json::to_value(s).unwrap()).unwrap()
    }

    /// A converted node's running configuration as nmstate shows it (`show -r`, trimmed).
    const RUNNING: &str = "interfaces:
- name: br-ex
  type: ovs-interface
  state: up
  mtu: 1500
  ipv4:
    enabled: true
    dhcp: true
    auto-dns: true
    auto-gateway: true
    auto-routes: true
  ipv6:
    enabled: false
- name: br-ex
  type: ovs-bridge
  state: up
  bridge:
    port:
    - name: br-ex
    - name: ens4
- name: ens4
  type: ethernet
  state: up
  mtu: 1500
  ipv4:
    enabled: false
  ipv6:
    enabled: false
routes:
  config:
  - destination: 192.0.2.0/24
    next-hop-address: 198.51.100.1
    next-hop-interface: br-ex
";

    fn changes_for(desired: &str) -> Result<Vec<IfaceChange>, Uncovered> {
        let running = NetworkState::new_from_yaml(RUNNING).unwrap();
        let desired = NetworkState::new_from_yaml(desired).unwrap();
        let diff = desired.gen_diff(&running).unwrap();
        changes(&state(&diff), &state(&desired), &state(&running), &[])
    }

    fn route(dest: &str, prefix: u8, via: &str) -> Route {
        Route {
            dest: dest.parse().unwrap(),
            prefix,
            next_hop: Some(via.parse().unwrap()),
            metric: 0,
            table: 254,
        }
    }

    #[test]
    fn an_mtu_change_of_br_ex_is_its_interface_profiles_mtu_alone() {
        let c = changes_for(
            "interfaces:\n- name: br-ex\n  type: ovs-interface\n  state: up\n  mtu: 1400\n",
        )
        .unwrap();
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].name, "br-ex");
        assert_eq!(c[0].mtu, Some(1400));
        assert_eq!((c[0].routes4.as_ref(), c[0].routes6.as_ref()), (None, None));
    }

    #[test]
    fn a_new_route_joins_the_routes_already_through_its_interface() {
        let c = changes_for(
            "routes:\n  config:\n  - destination: 203.0.113.0/24\n    \
             next-hop-address: 198.51.100.1\n    next-hop-interface: br-ex\n",
        )
        .unwrap();
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(
            c[0].routes4.as_deref(),
            Some(
                &[
                    route("192.0.2.0", 24, "198.51.100.1"),
                    route("203.0.113.0", 24, "198.51.100.1")
                ][..]
            )
        );
        assert_eq!(c[0].mtu, None);
    }

    #[test]
    fn an_absent_route_leaves_and_the_others_stay() {
        let c = changes_for(
            "routes:\n  config:\n  - destination: 192.0.2.0/24\n    state: absent\n  \
             - destination: 0.0.0.0/0\n    next-hop-address: 198.51.100.77\n    \
             next-hop-interface: br-ex\n",
        )
        .unwrap();
        assert_eq!(
            c[0].routes4.as_deref(),
            Some(&[route("0.0.0.0", 0, "198.51.100.77")][..]),
            "{c:?}"
        );
    }

    #[test]
    fn static_addresses_replace_dhcp() {
        let c = changes_for(
            "interfaces:\n- name: br-ex\n  type: ovs-interface\n  state: up\n  ipv4:\n    \
             enabled: true\n    dhcp: false\n    address:\n    - ip: 198.51.100.10\n      \
             prefix-length: 24\n",
        )
        .unwrap();
        let mut settings = Settings::new();
        apply_to(&mut settings, &c[0]).unwrap();
        assert_eq!(
            profile::get_str(&settings, "ipv4", "method").as_deref(),
            Some("manual")
        );
        assert_eq!(profile::array_len(&settings, "ipv4", "address-data"), 1);
    }

    #[test]
    fn a_route_in_place_is_no_change_and_verifies() {
        let desired = "routes:\n  config:\n  - destination: 192.0.2.0/24\n    \
                       next-hop-address: 198.51.100.1\n    next-hop-interface: br-ex\n";
        let running = RUNNING.replace(
            "next-hop-interface: br-ex\n",
            "next-hop-interface: br-ex\n    metric: 0\n    table-id: 254\n",
        );
        let running = NetworkState::new_from_yaml(&running).unwrap();
        let desired = NetworkState::new_from_yaml(desired).unwrap();
        let diff = desired.gen_diff(&running).unwrap();
        let diff_json = serde_json::to_value(&diff).unwrap();
        let [diff, desired, running] = [&diff, &desired, &running].map(state);
        let c = changes(&diff, &desired, &running, &[]).unwrap();
        assert!(
            c.iter()
                .all(|c| c.routes4.as_deref().is_none_or(|r| r.len() == 1)),
            "{c:?}"
        );
        assert_eq!(diff_not_in_place(&diff_json, &desired, &running), None);
    }

    #[test]
    fn a_vlans_own_section_as_it_runs_is_nothing_to_write_and_a_new_id_is_named() {
        let vlan = |id: u64, protocol: Option<&str>| Iface {
            name: "bond0.100".into(),
            kind: Some("vlan".into()),
            vlan: Some(VlanConfig {
                base_iface: Some("bond0".into()),
                id: Some(id),
                other: protocol
                    .map(|p| Map::from_iter([("protocol".to_owned(), Json::from(p))]))
                    .unwrap_or_default(),
            }),
            ..Iface::default()
        };
        let running = State {
            interfaces: vec![vlan(100, Some("802.1q"))],
            ..State::default()
        };
        let desired = |v: Iface| Iface {
            mtu: Some(1400),
            ..v
        };
        let c = iface_change(&desired(vlan(100, None)), &running).unwrap();
        assert_eq!(c.mtu, Some(1400));
        iface_change(&desired(vlan(100, Some("802.1q"))), &running).unwrap();
        for other in [vlan(101, None), vlan(100, Some("802.1ad"))] {
            assert_eq!(
                iface_change(&desired(other), &running).unwrap_err().0,
                "bond0.100's `vlan`"
            );
        }
    }

    #[test]
    fn what_the_reapply_does_not_cover_is_named() {
        let new_vlan = "interfaces:\n- name: ens4.100\n  type: vlan\n  state: up\n  vlan:\n    \
                        base-iface: ens4\n    id: 100\n";
        assert_eq!(
            changes_for(new_vlan),
            Err(Uncovered("new interface ens4.100".into()))
        );
        let bridge_ports = "interfaces:\n- name: br-ex\n  type: ovs-bridge\n  state: up\n  \
                            bridge:\n    port:\n    - name: br-ex\n";
        assert!(changes_for(bridge_ports).is_err());
        let rules = "route-rules:\n  config:\n  - ip-to: 192.0.2.0/24\n    route-table: 100\n";
        assert_eq!(changes_for(rules), Err(Uncovered("`route-rules`".into())));
        // DNS is the engine's DNS module's.
        let dns = "dns-resolver:\n  config:\n    server:\n    - 192.0.2.53\n";
        assert_eq!(changes_for(dns), Ok(Vec::new()));
    }

    /// The per-host file's shape on a node whose bond carries the node IP: the bond moves
    /// under the new bridge (no IP of its own, its default route gone) and the route goes
    /// through the new internal interface.
    #[test]
    fn a_bond_moves_under_a_new_bridge_and_the_route_through_its_interface() {
        let running = NetworkState::new_from_yaml(
            "interfaces:
- name: bond0
  type: bond
  state: up
  link-aggregation:
    mode: 802.3ad
    options:
      miimon: 100
      lacp_rate: fast
    port: [e0, e1]
  ipv4:
    enabled: true
    dhcp: false
    address:
    - ip: 198.51.100.20
      prefix-length: 24
  ipv6:
    enabled: false
routes:
  config:
  - destination: 0.0.0.0/0
    next-hop-address: 198.51.100.1
    next-hop-interface: bond0
    metric: 300
    table-id: 254
",
        )
        .unwrap();
        // The per-host file the real-kernel test and the benchmark apply.
        let desired = NetworkState::new_from_yaml(
            &integration::real_kernel::uplink::nmstate_br_ex_on_bond(["e0", "e1"]),
        )
        .unwrap();
        let mut diff = serde_json::to_value(desired.gen_diff(&running).unwrap()).unwrap();
        // What the caller writes itself: the new interfaces.
        diff["interfaces"]
            .as_array_mut()
            .unwrap()
            .retain(|i| i["name"] != "br-ex");
        let diff = State::from_json(diff).unwrap();
        let c = changes(&diff, &state(&desired), &state(&running), &["br-ex"]).unwrap();
        let [bond, br_ex] = &c[..] else {
            panic!("{c:?}")
        };
        assert_eq!(bond.name, "bond0");
        assert_eq!(bond.controller.as_deref(), Some("br-ex"));
        assert_eq!(bond.routes4.as_deref(), Some(&[][..]));
        assert_eq!(br_ex.routes4.as_ref().map(Vec::len), Some(1));
        let mut settings = Settings::new();
        profile::set(&mut settings, "ipv4", "method", "manual");
        apply_to(&mut settings, bond).unwrap();
        assert_eq!(
            profile::get_str(&settings, "connection", "master").as_deref(),
            Some("bond0")
        );
        assert_eq!(
            profile::get_str(&settings, "connection", "slave-type").as_deref(),
            Some("ovs-port")
        );
        assert!(!settings.contains_key("ipv4"));
    }

    #[test]
    fn the_profile_keeps_what_the_change_does_not_touch() {
        let mut settings = Settings::new();
        profile::set(&mut settings, "connection", "id", "ovs-if-br-ex");
        profile::set(&mut settings, "ipv4", "dhcp-timeout", 2_147_483_647i32);
        profile::set(&mut settings, "ipv4", "routes", vec![vec![1u32, 24, 1, 0]]);
        let change = IfaceChange {
            routes4: Some(vec![route("203.0.113.0", 24, "198.51.100.1")]),
            routes6: Some(vec![]),
            mtu: Some(1400),
            ..IfaceChange::new("br-ex")
        };
        apply_to(&mut settings, &change).unwrap();
        assert_eq!(
            profile::get_u32(&settings, "802-3-ethernet", "mtu"),
            Some(1400)
        );
        assert_eq!(profile::array_len(&settings, "ipv4", "route-data"), 1);
        assert_eq!(profile::array_len(&settings, "ipv4", "routes"), 0);
        assert!(settings["ipv4"].contains_key("dhcp-timeout"));
        assert_eq!(
            profile::get_str(&settings, "connection", "id").as_deref(),
            Some("ovs-if-br-ex")
        );
    }

    #[test]
    fn a_detached_port_has_no_controller_nothing_of_ovs_and_no_ip() {
        let mut settings = Settings::new();
        profile::set(&mut settings, "connection", "type", "802-3-ethernet");
        profile::set(&mut settings, "connection", "master", "ens3");
        profile::set(&mut settings, "connection", "slave-type", "ovs-port");
        profile::set(&mut settings, "connection", "autoconnect-slaves", 1i32);
        profile::set(&mut settings, "ovs-interface", "type", "system");
        let off = Some(IpConfig::disabled());
        let change = IfaceChange {
            ipv4: off.clone(),
            ipv6: off,
            detached: true,
            ..IfaceChange::new("ens3")
        };
        apply_to(&mut settings, &change).unwrap();
        for key in ["master", "slave-type", "autoconnect-slaves"] {
            assert!(!settings["connection"].contains_key(key), "{key}");
        }
        assert!(!settings.contains_key("ovs-interface"));
        for family in ["ipv4", "ipv6"] {
            assert_eq!(
                profile::get_str(&settings, family, "method").as_deref(),
                Some("disabled")
            );
        }
    }
}
