//! NetworkManager's settings as types: a struct per setting (`connection`, `ipv4`/`ipv6`,
//! `vlan`, ...) with a typed field per key the planner and the engine read or write, read from
//! and written into a profile's `a{sa{sv}}` ([`Settings`]). Only the keys a type names are read
//! or written: every other key of the profile stays as NetworkManager sent it, so an updated
//! profile keeps what this tool does not know. A field that is `None` is absent (NetworkManager
//! sends only values that differ from the default) and is left alone on write.

use std::collections::{BTreeMap, HashMap};

use zbus::zvariant::{OwnedValue, Value};

use crate::nm::profile::{Section, Settings, val};

/// A key's value as D-Bus carries it.
pub trait Field: Sized {
    /// The value, if it has this field's D-Bus type.
    fn read(v: &Value<'_>) -> Option<Self>;
    /// The value as NetworkManager takes it.
    fn value(&self) -> OwnedValue;
}

impl Field for String {
    fn read(v: &Value<'_>) -> Option<Self> {
        match v {
            Value::Str(s) => Some(s.to_string()),
            _ => None,
        }
    }
    fn value(&self) -> OwnedValue {
        val(self.as_str())
    }
}

impl Field for bool {
    fn read(v: &Value<'_>) -> Option<Self> {
        match v {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn value(&self) -> OwnedValue {
        val(*self)
    }
}

impl Field for u32 {
    fn read(v: &Value<'_>) -> Option<Self> {
        match v {
            Value::U32(n) => Some(*n),
            _ => None,
        }
    }
    fn value(&self) -> OwnedValue {
        val(*self)
    }
}

impl Field for i32 {
    fn read(v: &Value<'_>) -> Option<Self> {
        match v {
            Value::I32(n) => Some(*n),
            _ => None,
        }
    }
    fn value(&self) -> OwnedValue {
        val(*self)
    }
}

/// `a{ss}`: `bond.options`.
impl Field for BTreeMap<String, String> {
    fn read(v: &Value<'_>) -> Option<Self> {
        let owned = OwnedValue::try_from(v.try_clone().ok()?).ok()?;
        HashMap::<String, String>::try_from(owned)
            .ok()
            .map(|m| m.into_iter().collect())
    }
    fn value(&self) -> OwnedValue {
        let m: HashMap<&str, &str> = self.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        val(m)
    }
}

/// An address of `address-data` (`aa{sv}`: `address`, `prefix`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressData {
    pub address: String,
    pub prefix: u32,
}

impl Field for Vec<AddressData> {
    fn read(v: &Value<'_>) -> Option<Self> {
        let Value::Array(a) = v else { return None };
        a.iter()
            .map(|entry| {
                let dict = dict_of(entry)?;
                Some(AddressData {
                    address: String::read(dict.get("address")?)?,
                    prefix: u32::read(dict.get("prefix")?)?,
                })
            })
            .collect()
    }
    fn value(&self) -> OwnedValue {
        let data: Vec<HashMap<&str, Value>> = self
            .iter()
            .map(|a| {
                HashMap::from([
                    ("address", a.address.as_str().into()),
                    ("prefix", a.prefix.into()),
                ])
            })
            .collect();
        val(data)
    }
}

/// A route of `route-data` (`aa{sv}`: `dest`, `prefix`, `next-hop`, `metric`, `table`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteData {
    pub dest: String,
    pub prefix: u32,
    pub next_hop: Option<String>,
    pub metric: Option<u32>,
    pub table: Option<u32>,
}

impl Field for Vec<RouteData> {
    fn read(v: &Value<'_>) -> Option<Self> {
        let Value::Array(a) = v else { return None };
        a.iter()
            .map(|entry| {
                let dict = dict_of(entry)?;
                let opt_u32 = |k: &str| dict.get(k).and_then(|v| u32::read(v));
                Some(RouteData {
                    dest: String::read(dict.get("dest")?)?,
                    prefix: u32::read(dict.get("prefix")?)?,
                    next_hop: dict.get("next-hop").and_then(|v| String::read(v)),
                    metric: opt_u32("metric"),
                    table: opt_u32("table"),
                })
            })
            .collect()
    }
    fn value(&self) -> OwnedValue {
        let data: Vec<HashMap<&str, Value>> = self
            .iter()
            .map(|r| {
                let mut m = HashMap::from([
                    ("dest", r.dest.as_str().into()),
                    ("prefix", r.prefix.into()),
                ]);
                if let Some(nh) = &r.next_hop {
                    m.insert("next-hop", nh.as_str().into());
                }
                if let Some(metric) = r.metric {
                    m.insert("metric", metric.into());
                }
                if let Some(table) = r.table {
                    m.insert("table", table.into());
                }
                m
            })
            .collect();
        val(data)
    }
}

/// The static nameservers of `ipv4.dns` (`au`, network byte order) or `ipv6.dns` (`aay`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DnsServers {
    V4(Vec<u32>),
    V6(Vec<Vec<u8>>),
}

impl Field for DnsServers {
    fn read(v: &Value<'_>) -> Option<Self> {
        let Value::Array(a) = v else { return None };
        // The element type tells the families apart, also for an empty array.
        if a.element_signature().to_string() == "u" {
            return a
                .iter()
                .map(|x| u32::read(x))
                .collect::<Option<Vec<u32>>>()
                .map(DnsServers::V4);
        }
        a.iter()
            .map(|x| match x {
                Value::Array(bytes) => bytes
                    .iter()
                    .map(|b| if let Value::U8(b) = b { Some(*b) } else { None })
                    .collect(),
                _ => None,
            })
            .collect::<Option<Vec<Vec<u8>>>>()
            .map(DnsServers::V6)
    }
    fn value(&self) -> OwnedValue {
        match self {
            DnsServers::V4(a) => val(a.clone()),
            DnsServers::V6(a) => val(a.clone()),
        }
    }
}

/// `as`: search domains, DNS options.
impl Field for Vec<String> {
    fn read(v: &Value<'_>) -> Option<Self> {
        let Value::Array(a) = v else { return None };
        a.iter().map(|x| String::read(x)).collect()
    }
    fn value(&self) -> OwnedValue {
        val(self.clone())
    }
}

/// The `a{sv}` inside an array element, by key.
fn dict_of<'a>(v: &'a Value<'a>) -> Option<HashMap<String, &'a Value<'a>>> {
    let Value::Dict(d) = v else { return None };
    d.iter()
        .map(|(k, v)| {
            let k = String::read(k)?;
            let v = match v {
                Value::Value(inner) => &**inner,
                other => other,
            };
            Some((k, v))
        })
        .collect()
}

/// The typed value of `key` in `section`, when present with the field's type.
fn read<T: Field>(section: Option<&Section>, key: &str) -> Option<T> {
    T::read(section?.get(key)?)
}

/// Declares a setting: its struct, its section name, a key enum for removals, and the reads and
/// writes of its fields.
macro_rules! setting {
    (
        $(#[$doc:meta])*
        $name:ident, $key_enum:ident, $section:literal {
            $( $(#[$fdoc:meta])* $field:ident / $variant:ident : $ty:ty = $key:literal, )*
        }
        $( only removed { $( $(#[$rdoc:meta])* $rvariant:ident = $rkey:literal, )* } )?
    ) => {
        $(#[$doc])*
        #[derive(Debug, Default, Clone, PartialEq)]
        pub struct $name {
            $( $(#[$fdoc])* pub $field: Option<$ty>, )*
        }

        /// The keys of this setting, to remove one or ask whether it is there.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $key_enum {
            $( $variant, )*
            $( $( $(#[$rdoc])* $rvariant, )* )?
        }

        impl $key_enum {
            /// The key's name in the profile.
            pub fn name(self) -> &'static str {
                match self {
                    $( $key_enum::$variant => $key, )*
                    $( $( $key_enum::$rvariant => $rkey, )* )?
                }
            }
        }

        impl $name {
            /// The setting's name in a profile.
            pub const SECTION: &'static str = $section;

            /// Reads the keys this type knows from `s` (a section of another name, for the
            /// settings that come in two families).
            pub fn from_section(s: &Settings, section: &str) -> Self {
                let sec = s.get(section);
                $name { $( $field: read(sec, $key), )* }
            }

            /// Writes the fields that are set into `s`'s section `section`, creating it.
            pub fn write_section(&self, s: &mut Settings, section: &str) {
                let sec = s.entry(section.to_owned()).or_default();
                $( if let Some(v) = &self.$field { sec.insert($key.to_owned(), v.value()); } )*
            }

            /// Whether `s`'s section `section` holds `key`, whatever its value.
            pub fn has_in_section(s: &Settings, section: &str, key: $key_enum) -> bool {
                s.get(section).is_some_and(|sec| sec.contains_key(key.name()))
            }

            /// Removes `keys` from `s`'s section `section`.
            pub fn remove_section(s: &mut Settings, section: &str, keys: &[$key_enum]) {
                if let Some(sec) = s.get_mut(section) {
                    for k in keys {
                        sec.remove(k.name());
                    }
                }
            }
        }
    };
}

setting! {
    /// `connection`: what every profile has, and how it is a port of another.
    Connection, ConnectionKey, "connection" {
        id / Id: String = "id",
        uuid / Uuid: String = "uuid",
        /// `type`.
        kind / Type: String = "type",
        interface_name / InterfaceName: String = "interface-name",
        master / Master: String = "master",
        slave_type / SlaveType: String = "slave-type",
        controller / Controller: String = "controller",
        port_type / PortType: String = "port-type",
        autoconnect / Autoconnect: bool = "autoconnect",
        autoconnect_priority / AutoconnectPriority: i32 = "autoconnect-priority",
        autoconnect_slaves / AutoconnectSlaves: i32 = "autoconnect-slaves",
        multi_connect / MultiConnect: i32 = "multi-connect",
        lldp / Lldp: i32 = "lldp",
    }
}

setting! {
    /// `ipv4` or `ipv6`: one family's IP configuration.
    Ip, IpKey, "ipv4" {
        method / Method: String = "method",
        may_fail / MayFail: bool = "may-fail",
        route_metric / RouteMetric: i64 = "route-metric",
        address_data / AddressData: Vec<AddressData> = "address-data",
        route_data / RouteData: Vec<RouteData> = "route-data",
        gateway / Gateway: String = "gateway",
        dns / Dns: DnsServers = "dns",
        dns_search / DnsSearch: Vec<String> = "dns-search",
        dns_data / DnsData: Vec<String> = "dns-data",
        dns_options / DnsOptions: Vec<String> = "dns-options",
        dns_priority / DnsPriority: i32 = "dns-priority",
        ignore_auto_dns / IgnoreAutoDns: bool = "ignore-auto-dns",
        ignore_auto_routes / IgnoreAutoRoutes: bool = "ignore-auto-routes",
        never_default / NeverDefault: bool = "never-default",
        route_table / RouteTable: u32 = "route-table",
        dhcp_client_id / DhcpClientId: String = "dhcp-client-id",
        dhcp_duid / DhcpDuid: String = "dhcp-duid",
        addr_gen_mode / AddrGenMode: i32 = "addr-gen-mode",
        dhcp_timeout / DhcpTimeout: i32 = "dhcp-timeout",
    }
    only removed {
        /// The deprecated form NetworkManager still sends beside `address-data`; it wins over
        /// `address-data` when both are sent.
        Addresses = "addresses",
        /// The deprecated form beside `route-data`.
        Routes = "routes",
    }
}

setting! {
    /// `802-3-ethernet`.
    Ethernet, EthernetKey, "802-3-ethernet" {
        mtu / Mtu: u32 = "mtu",
        assigned_mac_address / AssignedMacAddress: String = "assigned-mac-address",
    }
}

setting! {
    /// `vlan`.
    Vlan, VlanKey, "vlan" {
        id / Id: u32 = "id",
        parent / Parent: String = "parent",
        flags / Flags: u32 = "flags",
        protocol / Protocol: String = "protocol",
    }
}

setting! {
    /// `bond`.
    Bond, BondKey, "bond" {
        options / Options: BTreeMap<String, String> = "options",
    }
}

setting! {
    /// `team`.
    Team, TeamKey, "team" {
        config / Config: String = "config",
    }
}

setting! {
    /// `tun`.
    Tun, TunKey, "tun" {
        mode / Mode: u32 = "mode",
    }
}

setting! {
    /// `ovs-interface`.
    OvsInterface, OvsInterfaceKey, "ovs-interface" {
        /// `type`: `internal`, `system`, `patch`, `dpdk`.
        kind / Type: String = "type",
    }
}

impl Field for i64 {
    fn read(v: &Value<'_>) -> Option<Self> {
        match v {
            Value::I64(n) => Some(*n),
            _ => None,
        }
    }
    fn value(&self) -> OwnedValue {
        val(*self)
    }
}

/// The settings every kind of this module reads and writes in its own section.
pub trait Setting: Sized {
    /// The section's name.
    const NAME: &'static str;
    /// Reads the keys this type knows from `s`.
    fn of(s: &Settings) -> Self;
    /// Writes the fields that are set into `s`.
    fn write(&self, s: &mut Settings);
}

macro_rules! fixed_section {
    ($($name:ident),*) => {$(
        impl Setting for $name {
            const NAME: &'static str = $name::SECTION;
            fn of(s: &Settings) -> Self {
                $name::from_section(s, $name::SECTION)
            }
            fn write(&self, s: &mut Settings) {
                self.write_section(s, $name::SECTION)
            }
        }
    )*};
}

fixed_section!(Connection, Ethernet, Vlan, Bond, Team, Tun, OvsInterface);

/// An IP family's section: `ipv4` or `ipv6`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    V4,
    V6,
}

impl Family {
    /// The section's name.
    pub fn section(self) -> &'static str {
        match self {
            Family::V4 => "ipv4",
            Family::V6 => "ipv6",
        }
    }
}

impl Ip {
    /// The IP configuration of `family` in `s`.
    pub fn of(s: &Settings, family: Family) -> Ip {
        Ip::from_section(s, family.section())
    }

    /// Writes the fields that are set into `s`'s `family` section.
    pub fn write(&self, s: &mut Settings, family: Family) {
        self.write_section(s, family.section())
    }

    /// Removes `keys` from `s`'s `family` section.
    pub fn remove(s: &mut Settings, family: Family, keys: &[IpKey]) {
        Ip::remove_section(s, family.section(), keys)
    }

    /// Whether `s`'s `family` section holds `key`.
    pub fn has(s: &Settings, family: Family, key: IpKey) -> bool {
        Ip::has_in_section(s, family.section(), key)
    }

    /// Whether this configures the family at all (not: no section, as a port has, or
    /// `disabled`).
    pub fn configures(s: &Settings, family: Family) -> bool {
        s.contains_key(family.section()) && Ip::of(s, family).method.as_deref() != Some("disabled")
    }

    /// Whether it holds static DNS settings (servers, search domains, options).
    pub fn has_static_dns(&self) -> bool {
        let servers = match &self.dns {
            Some(DnsServers::V4(a)) => a.len(),
            Some(DnsServers::V6(a)) => a.len(),
            None => 0,
        };
        let len = |v: &Option<Vec<String>>| v.as_ref().map_or(0, Vec::len);
        servers + len(&self.dns_search) + len(&self.dns_data) + len(&self.dns_options) > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nm::profile;

    #[test]
    fn a_write_keeps_the_keys_the_type_does_not_know_and_the_wire_types() {
        let mut s = Settings::new();
        profile::set(&mut s, "connection", "zone", "trusted");
        Connection {
            id: Some("ovs-if-phys0".into()),
            master: Some("ovs-port-phys0".into()),
            autoconnect_slaves: Some(1),
            ..Connection::default()
        }
        .write(&mut s);
        Ethernet {
            mtu: Some(9000),
            ..Ethernet::default()
        }
        .write(&mut s);
        Ip {
            route_metric: Some(48),
            ..Ip::default()
        }
        .write(&mut s, Family::V6);
        assert_eq!(
            profile::get_str(&s, "connection", "zone").as_deref(),
            Some("trusted")
        );
        assert!(matches!(
            &*s["connection"]["autoconnect-slaves"],
            Value::I32(1)
        ));
        assert!(matches!(&*s["802-3-ethernet"]["mtu"], Value::U32(9000)));
        assert!(matches!(&*s["ipv6"]["route-metric"], Value::I64(48)));
        assert_eq!(Connection::of(&s).master.as_deref(), Some("ovs-port-phys0"));
    }

    #[test]
    fn addresses_routes_and_nameservers_read_back_as_written() {
        let mut s = Settings::new();
        let ip = Ip {
            method: Some("manual".into()),
            address_data: Some(vec![AddressData {
                address: "192.0.2.10".into(),
                prefix: 24,
            }]),
            route_data: Some(vec![RouteData {
                dest: "198.51.100.0".into(),
                prefix: 24,
                next_hop: Some("192.0.2.1".into()),
                metric: Some(48),
                table: None,
            }]),
            dns: Some(DnsServers::V4(vec![0x0102_00c0])),
            dns_search: Some(vec!["example.com".into()]),
            ..Ip::default()
        };
        ip.write(&mut s, Family::V4);
        assert_eq!(Ip::of(&s, Family::V4), ip);
        assert!(Ip::of(&s, Family::V4).has_static_dns());
        assert!(!Ip::of(&s, Family::V6).has_static_dns());
    }

    #[test]
    fn an_empty_nameserver_list_keeps_its_family() {
        let mut s = Settings::new();
        profile::set(&mut s, "ipv6", "dns", Vec::<Vec<u8>>::new());
        profile::set(&mut s, "ipv4", "dns", Vec::<u32>::new());
        assert_eq!(Ip::of(&s, Family::V6).dns, Some(DnsServers::V6(vec![])));
        assert_eq!(Ip::of(&s, Family::V4).dns, Some(DnsServers::V4(vec![])));
    }

    #[test]
    fn a_value_of_another_type_reads_as_absent_and_removal_takes_only_the_named_keys() {
        let mut s = Settings::new();
        profile::set(&mut s, "vlan", "id", "not a number");
        profile::set(&mut s, "ipv4", "addresses", vec![vec![1u32, 24, 0]]);
        profile::set(&mut s, "ipv4", "method", "manual");
        assert_eq!(Vlan::of(&s).id, None);
        assert!(Ip::has(&s, Family::V4, IpKey::Addresses));
        Ip::remove(&mut s, Family::V4, &[IpKey::Addresses, IpKey::Routes]);
        assert!(!Ip::has(&s, Family::V4, IpKey::Addresses));
        assert_eq!(Ip::of(&s, Family::V4).method.as_deref(), Some("manual"));
        assert!(Ip::configures(&s, Family::V4));
        assert!(!Ip::configures(&s, Family::V6));
    }

    #[test]
    fn bond_options_are_string_pairs() {
        let mut s = Settings::new();
        let options = BTreeMap::from([("mode".to_owned(), "802.3ad".to_owned())]);
        Bond {
            options: Some(options.clone()),
        }
        .write(&mut s);
        assert_eq!(Bond::of(&s).options, Some(options));
    }
}
