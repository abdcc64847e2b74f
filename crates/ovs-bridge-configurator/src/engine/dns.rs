//! The node's static DNS (`dns-resolver.config`: name servers, search domains, options) as the
//! engine writes it: into the profile of the interface nmstate picks to hold it, with the keys
//! and priorities nmstate writes there (`ipv4.dns`, `dns-search`, `dns-options`,
//! `dns-priority` 40, and 50 for the other family's servers).
//!
//! Where no interface of the state takes DNS from DHCP or autoconf (the per-host file's shape),
//! nmstate's own apply also stores such servers in NetworkManager's global DNS, which makes
//! NetworkManager ignore every profile's DNS settings from then on (a second NIC's DHCP servers
//! among them) and lives outside the profiles, where a look at the keyfiles does not find it.
//! The engine writes the profile alone: the node's static DNS is the profiles' (beside what
//! DHCP gives other interfaces, as with nmstate's interface-level DNS), and `nmstatectl show`
//! reads it back as the file's `dns-resolver` (nmstate reads the profiles when no global DNS is
//! set). A node whose global DNS is already set keeps nmstate's apply for its DNS
//! changes ([`others_hold_none`]), as do a state that removes every server, link-local servers
//! and servers whose families interleave. The change is verified by NetworkManager's own DNS
//! configuration, what it hands to resolv.conf ([`not_in_place`]).

use std::net::IpAddr;

use serde_json::{Map, Value as Json};

use crate::engine::profile_change::{Uncovered, unknown_key};
use crate::engine::state::{IpConfig, State};
use crate::nm::dns::DnsEntry;
use crate::nm::profile::{Settings, uuid};
use crate::nm::setting::{DnsServers, Family, Ip, IpKey};
use crate::nm::{Device, Nm, NmError};

/// nmstate's priority for the family that holds the search domains, and for the other one.
const PRIORITY: i32 = 40;
const OTHER_FAMILY_PRIORITY: i32 = 50;
/// The keys of `dns-resolver.config` this module writes.
const CONFIG_KEYS: &[&str] = &["server", "search", "options"];
/// Interface types nmstate never puts DNS on (not kernel interfaces, or the loopback).
const USERSPACE_KINDS: &[&str] = &["ovs-bridge", "ipsec", "loopback"];

/// One family's DNS settings and the interface whose profile holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FamilyDns {
    pub iface: String,
    pub family: Family,
    pub servers: Vec<IpAddr>,
    pub search: Vec<String>,
    pub options: Vec<String>,
    pub priority: i32,
}

/// The node's DNS as `desired` asks for it, per family, with the interface that holds it; empty
/// when nmstate's diff `diff` does not change DNS.
pub fn placement(
    diff: &State,
    desired: &State,
    running: &State,
) -> Result<Vec<FamilyDns>, Uncovered> {
    if config(diff).is_none() {
        return Ok(Vec::new());
    }
    let asked = config(desired).unwrap_or_default();
    let now = config(running).unwrap_or_default();
    if let Some(key) = unknown_key(asked.keys().map(String::as_str), CONFIG_KEYS) {
        return Err(Uncovered(format!("dns-resolver's `{key}`")));
    }
    // `config: {}` is nmstate's "remove every static DNS setting".
    if asked.is_empty() {
        return Err(Uncovered("dns-resolver removing every DNS setting".into()));
    }
    // A key the desired state leaves out keeps the running value (nmstate's merge).
    let list = |key: &str| strings(asked.get(key).or_else(|| now.get(key)), key);
    let (servers, search, options) = (list("server")?, list("search")?, list("options")?);
    if servers.is_empty() {
        return Err(Uncovered(
            "dns-resolver without servers (nmstate keeps the automatic ones)".into(),
        ));
    }
    let servers = parsed(&servers)?;
    if interleaved(&servers) {
        return Err(Uncovered(
            "dns-resolver's servers alternating between IPv4 and IPv6".into(),
        ));
    }
    by_family(desired, &servers, (search, options))
}

/// `servers` split by family, each with its holder in `desired`; the family of the first server
/// takes `search` and `options` too, and the higher priority.
fn by_family(
    desired: &State,
    servers: &[IpAddr],
    (search, options): (Vec<String>, Vec<String>),
) -> Result<Vec<FamilyDns>, Uncovered> {
    let first = family_of(&servers[0]);
    let mut out = Vec::new();
    for family in [first, other(first)] {
        let of: Vec<IpAddr> = servers
            .iter()
            .filter(|s| family_of(s) == family)
            .copied()
            .collect();
        if of.is_empty() {
            continue;
        }
        let preferred = family == first;
        let (search, options, priority) = match preferred {
            true => (search.clone(), options.clone(), PRIORITY),
            false => (Vec::new(), Vec::new(), OTHER_FAMILY_PRIORITY),
        };
        out.push(FamilyDns {
            iface: holder(desired, family)?,
            family,
            servers: of,
            search,
            options,
            priority,
        });
    }
    Ok(out)
}

/// `dns-resolver.config` of `state`, if it has one.
fn config(state: &State) -> Option<Map<String, Json>> {
    state
        .other
        .get("dns-resolver")?
        .get("config")?
        .as_object()
        .cloned()
}

/// A list of strings of `dns-resolver.config` (none: empty).
fn strings(v: Option<&Json>, key: &str) -> Result<Vec<String>, Uncovered> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    serde_json::from_value(v.clone()).map_err(|_| Uncovered(format!("dns-resolver's `{key}` {v}")))
}

/// The servers as addresses; a link-local one names its interface (`fe80::1%eth1`), which is
/// nmstate's to place.
fn parsed(servers: &[String]) -> Result<Vec<IpAddr>, Uncovered> {
    servers
        .iter()
        .map(|s| {
            s.parse()
                .map_err(|_| Uncovered(format!("dns-resolver's server {s}")))
        })
        .collect()
}

/// Whether the list goes from one family to the other and back (nmstate cannot keep that order
/// in two per-family lists either).
fn interleaved(servers: &[IpAddr]) -> bool {
    let switches = servers
        .windows(2)
        .filter(|w| w[0].is_ipv4() != w[1].is_ipv4())
        .count();
    switches > 1
}

fn family_of(a: &IpAddr) -> Family {
    if a.is_ipv4() { Family::V4 } else { Family::V6 }
}

fn other(f: Family) -> Family {
    match f {
        Family::V4 => Family::V6,
        Family::V6 => Family::V4,
    }
}

/// The interface of `desired` whose profile holds `family`'s servers, as nmstate picks it: the
/// first kernel interface of the state whose `family` section is static with an address, or
/// automatic without automatic DNS.
fn holder(desired: &State, family: Family) -> Result<String, Uncovered> {
    desired
        .interfaces
        .iter()
        .filter(|i| !i.is_absent())
        .filter(|i| {
            !i.kind
                .as_deref()
                .is_some_and(|k| USERSPACE_KINDS.contains(&k))
        })
        .find(|i| i.ip(family).is_some_and(holds_dns))
        .map(|i| i.name.clone())
        .ok_or_else(|| {
            Uncovered(format!(
                "dns-resolver's {} servers without an interface of the state with a static {0} \
                 to hold them",
                family.section()
            ))
        })
}

/// nmstate's "preferred for DNS": enabled, and static with an address or automatic with
/// `auto-dns: false`.
fn holds_dns(ip: &IpConfig) -> bool {
    let addresses = ip.address.as_ref().is_some_and(|a| !a.is_empty());
    ip.enabled != Some(false)
        && if ip.is_dynamic() {
            ip.auto_dns == Some(false)
        } else {
            addresses
        }
}

/// `settings` (the profile of the interface holding `dns`) with `dns` written in.
pub fn write(settings: &mut Settings, dns: &FamilyDns) {
    let servers = match dns.family {
        Family::V4 => DnsServers::V4(dns.servers.iter().filter_map(v4_wire).collect()),
        Family::V6 => DnsServers::V6(dns.servers.iter().filter_map(v6_wire).collect()),
    };
    // `dns-data` (NetworkManager's newer form) would win over `dns`.
    Ip::remove(settings, dns.family, &[IpKey::DnsData]);
    Ip {
        dns: Some(servers),
        dns_search: Some(dns.search.clone()),
        dns_options: Some(dns.options.clone()),
        dns_priority: Some(dns.priority),
        ..Ip::default()
    }
    .write(settings, dns.family);
}

/// An IPv4 server as `ipv4.dns` holds it (network byte order).
fn v4_wire(a: &IpAddr) -> Option<u32> {
    match a {
        IpAddr::V4(a) => Some(u32::from_ne_bytes(a.octets())),
        IpAddr::V6(_) => None,
    }
}

/// An IPv6 server as `ipv6.dns` holds it (16 bytes).
fn v6_wire(a: &IpAddr) -> Option<Vec<u8>> {
    match a {
        IpAddr::V6(a) => Some(a.octets().to_vec()),
        IpAddr::V4(_) => None,
    }
}

/// Uncovered where `placed` would not be the node's whole DNS once written: NetworkManager's
/// global DNS is set (it overrides every profile's), or a profile active on one of `devices`,
/// other than the holders', holds static DNS settings of a family (nmstate clears or moves
/// them).
pub async fn others_hold_none(
    nm: &Nm,
    devices: &[Device],
    placed: &[FamilyDns],
) -> Result<Result<(), Uncovered>, NmError> {
    if placed.is_empty() {
        return Ok(Ok(()));
    }
    if nm.global_dns_set().await? {
        return Ok(Err(Uncovered(
            "dns-resolver while NetworkManager's global DNS is set".into(),
        )));
    }
    let profiles = nm.profiles().await?;
    for d in devices {
        let Some(p) = profiles
            .iter()
            .find(|p| d.active_uuid.as_deref() == Some(uuid(&p.settings).as_str()))
        else {
            continue;
        };
        for family in [Family::V4, Family::V6] {
            let holder = placed
                .iter()
                .any(|x| x.iface == d.interface && x.family == family);
            if !holder && Ip::of(&p.settings, family).has_static_dns() {
                return Ok(Err(Uncovered(format!(
                    "{}'s {} DNS settings beside dns-resolver's",
                    d.interface,
                    family.section()
                ))));
            }
        }
    }
    Ok(Ok(()))
}

/// What of `placed` NetworkManager does not use yet (None: all of it), from its DNS
/// configuration `entries`: each family's servers, in order, with its priority and search
/// domains, on the entry of its holder.
pub fn not_in_place(placed: &[FamilyDns], entries: &[DnsEntry]) -> Option<String> {
    let left: Vec<String> = placed
        .iter()
        .filter(|d| {
            !entries.iter().any(|e| {
                e.interface == d.iface
                    && e.servers == d.servers
                    && e.priority == d.priority
                    && d.search.iter().all(|s| e.domains.contains(s))
            })
        })
        .map(|d| {
            let servers: Vec<String> = d.servers.iter().map(IpAddr::to_string).collect();
            format!(
                "{} name servers [{}] on {} (priority {}, search {:?})",
                d.family.section(),
                servers.join(", "),
                d.iface,
                d.priority,
                d.search
            )
        })
        .collect();
    (!left.is_empty()).then(|| left.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nm::profile::get_str;
    use serde_json::json;

    fn state(v: Json) -> State {
        State::from_json(v).unwrap()
    }

    fn br_ex(ipv6: Json) -> Json {
        json!([
            {"name": "br-ex", "type": "ovs-bridge", "state": "up",
             "bridge": {"port": [{"name": "ens3"}, {"name": "br-ex"}]}},
            {"name": "ens3", "type": "ethernet", "state": "up",
             "ipv4": {"enabled": false}, "ipv6": {"enabled": false}},
            {"name": "br-ex", "type": "ovs-interface", "state": "up",
             "ipv4": {"enabled": true, "dhcp": false,
                      "address": [{"ip": "192.0.2.10", "prefix-length": 24}]},
             "ipv6": ipv6}
        ])
    }

    fn dns(config: Json) -> Json {
        json!({"config": config})
    }

    #[test]
    fn servers_go_to_the_first_static_interface_of_their_family() {
        let v6 = json!({"enabled": true, "dhcp": false, "autoconf": false,
            "address": [{"ip": "2001:db8::10", "prefix-length": 64}]});
        let config = dns(json!({"server": ["2001:db8::53", "192.0.2.53"],
            "search": ["example.test"]}));
        let desired = state(json!({"interfaces": br_ex(v6), "dns-resolver": config}));
        let diff = state(json!({"dns-resolver": config}));
        let placed = placement(&diff, &desired, &State::default()).unwrap();
        assert_eq!(placed.len(), 2);
        let (v6, v4) = (&placed[0], &placed[1]);
        assert_eq!((v6.iface.as_str(), v6.family), ("br-ex", Family::V6));
        assert_eq!(v6.search, ["example.test"]);
        assert_eq!(v6.priority, 40);
        assert_eq!(v4.servers, ["192.0.2.53".parse::<IpAddr>().unwrap()]);
        assert!(v4.search.is_empty());
        assert_eq!(v4.priority, 50);
        let mut s = Settings::new();
        write(&mut s, v4);
        assert_eq!(
            Ip::of(&s, Family::V4).dns,
            Some(DnsServers::V4(vec![u32::from_ne_bytes([192, 0, 2, 53])]))
        );
        assert_eq!(Ip::of(&s, Family::V4).dns_priority, Some(50));
        // In place once NetworkManager uses each family's servers on its holder, with their
        // priority and the search domains.
        let entry = |iface: &str, servers: &[&str], priority: i32| DnsEntry {
            interface: iface.into(),
            servers: servers.iter().map(|s| s.parse().unwrap()).collect(),
            domains: vec!["example.test".into()],
            priority,
        };
        let v6_in_place = entry("br-ex", &["2001:db8::53"], 40);
        let left = not_in_place(&placed, std::slice::from_ref(&v6_in_place)).unwrap();
        assert!(
            left.starts_with("ipv4 name servers [192.0.2.53] on br-ex"),
            "{left}"
        );
        let all = [v6_in_place.clone(), entry("br-ex", &["192.0.2.53"], 50)];
        assert_eq!(not_in_place(&placed, &all), None);
        let other_priority = [v6_in_place.clone(), entry("br-ex", &["192.0.2.53"], 40)];
        assert!(not_in_place(&placed, &other_priority).is_some());
        let no_search = DnsEntry {
            domains: Vec::new(),
            ..v6_in_place
        };
        assert!(not_in_place(&placed, &[no_search, all[1].clone()]).is_some());
        let elsewhere = entry("ens3", &["192.0.2.53"], 50);
        assert!(not_in_place(&placed, &[all[0].clone(), elsewhere]).is_some());
    }

    #[test]
    fn no_dns_change_places_nothing_and_a_missing_key_keeps_the_running_one() {
        let desired = state(json!({"interfaces": br_ex(json!({"enabled": false})),
            "dns-resolver": dns(json!({"server": ["192.0.2.53"]}))}));
        assert!(
            placement(&State::default(), &desired, &State::default())
                .unwrap()
                .is_empty()
        );
        let running = state(json!({"dns-resolver": dns(json!({"search": ["kept.test"]}))}));
        let placed = placement(&desired, &desired, &running).unwrap();
        assert_eq!(placed[0].search, ["kept.test"]);
        let mut s = Settings::new();
        write(&mut s, &placed[0]);
        assert_eq!(get_str(&s, "ipv4", "method"), None);
    }

    #[test]
    fn what_nmstate_places_by_its_own_rules_is_named() {
        let ifaces = br_ex(json!({"enabled": false}));
        for (config, want) in [
            (json!({"server": []}), "without servers"),
            (json!({"server": ["fe80::1%ens3"]}), "server fe80::1%ens3"),
            (
                json!({"server": ["192.0.2.1", "2001:db8::1", "192.0.2.2"]}),
                "alternating",
            ),
            (json!({"server": ["2001:db8::53"]}), "ipv6 servers without"),
            (
                json!({"server": ["192.0.2.1"], "priority": 5}),
                "`priority`",
            ),
            (json!({}), "removing every DNS setting"),
        ] {
            let desired = state(json!({"interfaces": ifaces, "dns-resolver": dns(config)}));
            let e = placement(&desired, &desired, &State::default()).unwrap_err();
            assert!(e.0.contains(want), "{}", e.0);
        }
    }

    /// nmstate's own diff says whether DNS changes.
    #[test]
    fn nmstates_diff_carries_a_dns_change_and_nothing_once_it_is_in_place() {
        use nmstate::NetworkState;
        let yaml = |servers: &str| {
            format!("dns-resolver:\n  config:\n    server: [{servers}]\n    search: [a.test]\n")
        };
        let view = |s: &NetworkState| State::from_json(serde_json::to_value(s).unwrap()).unwrap();
        let running = NetworkState::new_from_yaml(&yaml("192.0.2.53")).unwrap();
        let same = NetworkState::new_from_yaml(&yaml("192.0.2.53")).unwrap();
        let other = NetworkState::new_from_yaml(&yaml("192.0.2.54")).unwrap();
        assert_eq!(config(&view(&same.gen_diff(&running).unwrap())), None);
        let diff = view(&other.gen_diff(&running).unwrap());
        assert_eq!(config(&diff).unwrap()["server"], json!(["192.0.2.54"]));
    }

    #[test]
    fn dhcp_holds_dns_only_without_automatic_dns() {
        let dhcp = |auto_dns: Option<bool>| IpConfig {
            dhcp: Some(true),
            auto_dns,
            ..IpConfig::default()
        };
        assert!(!holds_dns(&dhcp(None)));
        assert!(holds_dns(&dhcp(Some(false))));
        assert!(!holds_dns(&IpConfig::disabled()));
        // Static needs an address, in either family (nmstate's `is_static`).
        assert!(!holds_dns(&IpConfig::default()));
    }
}
