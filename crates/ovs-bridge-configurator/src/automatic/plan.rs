//! The pure planner: (NM profiles and devices, kernel snapshot, input files) -> the profiles to
//! add and the activation order, with configure-ovs.sh's names and settings (reference §1.6-1.11,
//! §8.3).

use std::net::IpAddr;

use selection::Snapshot;
use selection::model::Family;
use selection::net::is_link_local_unicast;
use serde::Serialize;

use crate::br_ex::{BR_EX, BR_EX1, BridgeNames, SLAVE_CLONE_SUFFIX};
use crate::nm::profile::{self as p, ProfileView, Settings};
use crate::nm::setting::{
    Bond, Connection, ConnectionKey, Ethernet, Family as IpFamily, Ip, IpKey, OvsInterface,
    Setting, Team, Tun, Vlan,
};

/// `NM_VLAN_FLAG_REORDER_HEADERS`: the VLAN device strips the tag before handing a frame on.
const VLAN_REORDER_HEADERS: u32 = 1;

/// A stored profile as the planner sees it.
#[derive(Debug)]
pub struct Profile {
    pub settings: Settings,
    /// Active on some device right now.
    pub active: bool,
}

impl p::ProfileView for Profile {
    fn settings(&self) -> &Settings {
        &self.settings
    }
}

/// A NetworkManager device as the planner sees it.
#[derive(Clone, Debug)]
pub struct Device {
    pub interface: String,
    pub device_type: u32,
    pub active_uuid: Option<String>,
}

/// The input files (read by the caller; `None` = absent).
#[derive(Clone, Debug, Default)]
pub struct Files {
    /// `/etc/ovnk/default_bridge` (its content, untrimmed but for the newline).
    pub default_bridge: Option<String>,
    /// `/run/nodeip-configuration/primary-ip`.
    pub primary_ip: Option<IpAddr>,
    /// `/var/lib/ovnk/iface_default_hint`.
    pub hint: Option<String>,
    /// First line of `/etc/ovnk/extra_bridge`.
    pub extra_bridge: Option<String>,
}

/// Why no plan can be made.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("/etc/ovnk/default_bridge exists but is empty")]
    EmptyDefaultBridge,
    #[error(
        "unable to find the default gateway interface (no node-IP interface, no default route)"
    )]
    NoInterface,
    #[error("cannot find an active connection for interface {0}")]
    NoActiveConnection(String),
    #[error("interface {0} has no MAC address")]
    NoMac(String),
    #[error("VLAN profile {0} lacks vlan.id or vlan.parent")]
    BadVlan(String),
}

/// How the uplink was chosen (for `plan` output and logs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    DefaultBridgeFile,
    NodeIp,
    DefaultRoute,
    Hint,
}

/// The interface to bridge and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Choice {
    pub interface: String,
    pub reason: Reason,
}

/// br-ex is in place for `choice`: the node IP is on br-ex already, or `/etc/ovnk/default_bridge`
/// names the NIC whose active `ovs-if-phys0` makes it br-ex's port (the forced choice keeps naming
/// the NIC after the conversion; upstream then re-adds nothing, so a re-run changes nothing).
pub fn is_converted(choice: &Choice, profiles: &[Profile]) -> bool {
    let phys = BR_EX.uplink_profile();
    choice.interface == BR_EX.bridge
        || choice.reason == Reason::DefaultBridgeFile
            && profiles.iter().any(|x| {
                x.active
                    && x.id() == phys
                    && x.interface().as_deref() == Some(choice.interface.as_str())
            })
}

fn has_default_route(snap: &Snapshot, index: u32) -> bool {
    snap.main_routes()
        .any(|r| r.is_default() && r.oif == Some(index))
}

/// Interface choice (reference §1.6): `/etc/ovnk/default_bridge`, the interface holding the
/// node IP, the lowest-metric IPv4 (then IPv6) default route, with the remembered hint winning
/// when it also has a default route. The extra-bridge interface and `br-ex1` are never chosen.
///
/// Decisions: the extra-bridge exclusion compares names exactly (upstream used a substring
/// grep on route lines); multipath default routes are skipped explicitly (upstream's parser did
/// not recognise them either); the wait for a default route (12 x 5 s upstream) is the caller's,
/// driven by netlink events.
pub fn choose(snap: &Snapshot, files: &Files) -> Result<Option<Choice>, PlanError> {
    if let Some(forced) = &files.default_bridge {
        if forced.trim().is_empty() {
            return Err(PlanError::EmptyDefaultBridge);
        }
        return Ok(Some(Choice {
            interface: forced.trim().to_owned(),
            reason: Reason::DefaultBridgeFile,
        }));
    }
    let excluded =
        |name: &str| name == BR_EX1.bridge || files.extra_bridge.as_deref() == Some(name);
    if let Some(ip) = files.primary_ip {
        // Walk holders in ifindex order, skipping excluded interfaces.
        let holder = snap.link_indices().into_iter().find_map(|i| {
            let name = snap.link_name(i);
            (!excluded(&name) && snap.addresses_on(i).any(|a| a.ip == ip)).then_some(name)
        });
        if let Some(interface) = holder {
            return Ok(Some(Choice {
                interface,
                reason: Reason::NodeIp,
            }));
        }
    }
    let mut found = None;
    for family in [Family::Ipv4, Family::Ipv6] {
        let mut defaults: Vec<_> = snap
            .main_routes()
            .filter(|r| r.is_default() && r.family == family && !r.multipath)
            .filter_map(|r| r.oif.map(|i| (r.metric, i)))
            .filter(|(_, i)| !excluded(&snap.link_name(*i)))
            .collect();
        defaults.sort();
        if let Some((_, i)) = defaults.first() {
            found = Some(snap.link_name(*i));
            break;
        }
    }
    let Some(found) = found else { return Ok(None) };
    let bridges = [BR_EX.bridge, BR_EX1.bridge];
    if let Some(hint) = files.hint.as_deref().map(str::trim) {
        let valid = !hint.is_empty() && !bridges.contains(&hint) && !excluded(hint);
        let link = snap.links.iter().find(|l| l.name == hint);
        if valid
            && hint != found
            && !bridges.contains(&found.as_str())
            && link.is_some_and(|l| has_default_route(snap, l.index))
        {
            return Ok(Some(Choice {
                interface: hint.to_owned(),
                reason: Reason::Hint,
            }));
        }
    }
    Ok(Some(Choice {
        interface: found,
        reason: Reason::DefaultRoute,
    }))
}

/// The node IP nodeip-selector chose when no interface carries it (so `choice` fell back to a
/// default route or the hint): the uplink that had it is on its way back, a DHCP lease not
/// renewed yet or, after a run killed mid-apply, the network NetworkManager is still restoring
/// from the abandoned checkpoint (seen: br-ex built on the storage NIC's lower-metric route
/// while ens3 waited for its lease). Decision: the caller waits for it within the same budget as
/// for a default route, then falls back as upstream does at once.
pub fn awaited_node_ip(files: &Files, choice: &Choice) -> Option<IpAddr> {
    matches!(choice.reason, Reason::DefaultRoute | Reason::Hint)
        .then_some(files.primary_ip)
        .flatten()
}

/// The remembered interface the default-route choice passed over only because it has no default
/// route yet: upstream keeps polling (within its 12 x 5 s budget) until it gets one, so a NIC
/// whose DHCP answers later than another's does not lose br-ex across a reboot.
pub fn awaited_hint(snap: &Snapshot, files: &Files, choice: &Choice) -> Option<String> {
    if choice.reason != Reason::DefaultRoute {
        return None;
    }
    let hint = files.hint.as_deref()?.trim();
    let excluded = [BR_EX.bridge, BR_EX1.bridge].contains(&hint)
        || files.extra_bridge.as_deref() == Some(hint)
        || [BR_EX.bridge, BR_EX1.bridge].contains(&choice.interface.as_str());
    let link = snap.links.iter().find(|l| l.name == hint)?;
    (!hint.is_empty()
        && !excluded
        && hint != choice.interface
        && !has_default_route(snap, link.index))
    .then(|| hint.to_owned())
}

/// The plan for one bridge.
#[derive(Debug)]
pub struct BridgePlan {
    pub names: BridgeNames,
    pub interface: String,
    /// The uplink's active profile.
    pub original_uuid: String,
    /// New profiles, in creation order.
    pub add: Vec<Settings>,
    pub warnings: Vec<String>,
}

/// Everything to do.
#[derive(Debug)]
pub struct Plan {
    pub choice: Choice,
    /// The node IP already sits on br-ex: nothing to build, only make sure it is active.
    pub already_converted: bool,
    pub bridges: Vec<BridgePlan>,
    /// UUIDs of profiles to delete (the br-ex1 set when the extra-bridge file went away).
    pub remove: Vec<String>,
    /// Profile ids, in activation order.
    pub activate: Vec<String>,
}

/// Builds the plan. `new_uuid` makes UUIDs (injected so plans are reproducible in tests).
pub fn plan(
    profiles: &[Profile],
    devices: &[Device],
    snap: &Snapshot,
    files: &Files,
    new_uuid: &mut dyn FnMut() -> String,
) -> Result<Plan, PlanError> {
    let choice = choose(snap, files)?.ok_or(PlanError::NoInterface)?;
    let mut bridges = Vec::new();
    let already_converted = is_converted(&choice, profiles);
    if !already_converted {
        bridges.push(bridge_plan(
            BR_EX,
            &choice.interface,
            profiles,
            devices,
            snap,
            new_uuid,
        )?);
    }
    let mut remove = Vec::new();
    match &files.extra_bridge {
        Some(extra) if !extra_bridge_exists(profiles) => {
            bridges.push(bridge_plan(
                BR_EX1, extra, profiles, devices, snap, new_uuid,
            )?);
        }
        None => remove = extra_bridge_profiles(profiles),
        Some(_) => {}
    }
    let activate = activation_order(profiles, &bridges, files.extra_bridge.is_some());
    Ok(Plan {
        choice,
        already_converted,
        bridges,
        remove,
        activate,
    })
}

/// The extra bridge's ovs-bridge and uplink profiles both exist (a re-run keeps them).
fn extra_bridge_exists(profiles: &[Profile]) -> bool {
    let exists = |id: &str| profiles.iter().any(|x| x.id() == id);
    exists(BR_EX1.bridge) && exists(&BR_EX1.uplink_profile())
}

/// UUIDs of the extra bridge's profiles: removed once its file is gone.
fn extra_bridge_profiles(profiles: &[Profile]) -> Vec<String> {
    let ids = BR_EX1.profile_ids();
    profiles
        .iter()
        .filter(|x| ids.contains(&x.id()))
        .map(|x| x.uuid())
        .collect()
}

/// Profile ids in activation order: the bridges and their uplinks, the bond/team port clones
/// (existing and new), then the bridges' internal interfaces.
fn activation_order(profiles: &[Profile], bridges: &[BridgePlan], extra: bool) -> Vec<String> {
    let mut activate = vec![BR_EX.bridge_profile(), BR_EX.uplink_profile()];
    if extra {
        activate.extend([BR_EX1.bridge_profile(), BR_EX1.uplink_profile()]);
    }
    let mut clones: Vec<String> = profiles
        .iter()
        .map(|x| x.id())
        .chain(bridges.iter().flat_map(|b| b.add.iter().map(p::id)))
        .filter(|id| id.ends_with(SLAVE_CLONE_SUFFIX))
        .collect();
    clones.dedup();
    activate.extend(clones);
    activate.push(BR_EX.interface_profile());
    if extra {
        activate.push(BR_EX1.interface_profile());
    }
    activate
}

/// `mode=active-backup` with `fail_over_mac` 1/active/2/follow: the bond moves its MAC itself.
fn bond_keeps_own_mac(options: &std::collections::BTreeMap<String, String>) -> bool {
    options
        .get("mode")
        .is_some_and(|m| m == "active-backup" || m == "1")
        && options
            .get("fail_over_mac")
            .is_some_and(|f| ["1", "active", "2", "follow"].contains(&f.as_str()))
}

/// A team in activebackup with hwaddr_policy by_active/only_active moves its MAC itself.
fn team_keeps_own_mac(config: &str) -> bool {
    let Ok(json) = serde_json::from_str::<serde_json::Value>(config) else {
        return false;
    };
    let runner = &json["runner"];
    runner["name"] == "activebackup"
        && ["by_active", "only_active"]
            .iter()
            .any(|p| runner["hwaddr_policy"] == *p)
}

/// The `connection` setting every new profile starts from.
fn connection(id: &str, uuid: &str, kind: &str, iface: &str) -> Connection {
    Connection {
        id: Some(id.into()),
        uuid: Some(uuid.into()),
        kind: Some(kind.into()),
        interface_name: Some(iface.into()),
        // Created inactive; switched to autoconnect once active (activation list only).
        autoconnect: Some(false),
        ..Connection::default()
    }
}

/// One step of the activation (reference §1.11).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Pass 1, for each bond/team port clone: let LACP settle, then switch autoconnect on, before
    /// anything is activated: when NM re-activates ports implicitly it must pick the clones, never
    /// the original port profiles, which would pull the old bond up.
    PreparePort(String),
    /// Pass 2, in the activation order: activate (a port first gets a chance to come up with its
    /// master), then switch autoconnect on (ports have it from pass 1).
    Activate { id: String, port: bool },
}

/// The steps that activate `order` (profile ids); `is_port` tells bond/team ports.
pub fn activation_steps(order: &[String], is_port: impl Fn(&str) -> bool) -> Vec<Step> {
    let prepare = order
        .iter()
        .filter(|id| is_port(id))
        .map(|id| Step::PreparePort(id.clone()));
    let activate = order.iter().map(|id| Step::Activate {
        id: id.clone(),
        port: is_port(id),
    });
    prepare.chain(activate).collect()
}

/// What every new profile of one bridge shares.
struct Uplink<'a> {
    names: BridgeNames,
    iface: &'a str,
    /// The uplink's active profile.
    old: &'a Settings,
    mtu: u32,
    /// `XX:XX:..`, the uplink's MAC (br-ex takes it over).
    mac: String,
}

/// The plan for bridge `names` on uplink `iface`: its five profiles and the uplink's bond/team
/// port clones, each added only when no profile of its name exists yet.
fn bridge_plan(
    names: BridgeNames,
    iface: &str,
    profiles: &[Profile],
    devices: &[Device],
    snap: &Snapshot,
    new_uuid: &mut dyn FnMut() -> String,
) -> Result<BridgePlan, PlanError> {
    let link = snap.links.iter().find(|l| l.name == iface);
    let mac = link
        .map(|l| l.mac.clone())
        .filter(|m| !m.is_empty())
        .ok_or_else(|| PlanError::NoMac(iface.into()))?;
    let mtu = link.map(|l| l.mtu).filter(|m| *m > 0).unwrap_or(1500);
    let original = active_profile(iface, profiles, devices)?;
    let u = Uplink {
        names,
        iface,
        old: &original.settings,
        mtu,
        mac: selection::net::mac_text(&mac),
    };
    let old_uuid = p::uuid(u.old);
    let mut new = NewProfiles {
        profiles,
        new_uuid,
        add: Vec::new(),
    };
    new.unless_present(names.bridge_profile(), |id, uuid| {
        bridge_profile(&u, id, uuid)
    });
    new.unless_present(names.uplink_port_profile(), |id, uuid| {
        let mut s = ovs_port_profile(&u, id, uuid, iface);
        Connection {
            autoconnect_slaves: Some(1),
            ..Connection::default()
        }
        .write(&mut s);
        s
    });
    new.unless_present(names.interface_port_profile(), |id, uuid| {
        ovs_port_profile(&u, id, uuid, names.bridge)
    });
    let (phys, kind, clone_mac) = uplink_kind(u.old, devices)?;
    new.unless_present(names.uplink_profile(), |id, uuid| {
        uplink_settings(&u, id, uuid, (&phys, kind, clone_mac))
    });
    port_clones(&mut new, &old_uuid, iface);
    let warnings = low_mtu_warning(&u).into_iter().collect();
    new.unless_present(names.interface_profile(), |id, uuid| {
        interface_settings(&u, id, uuid, snap)
    });
    Ok(BridgePlan {
        names,
        interface: iface.into(),
        original_uuid: old_uuid,
        add: new.add,
        warnings,
    })
}

/// The profile active on `iface` (not an OVS port or interface of an earlier attempt).
fn active_profile<'a>(
    iface: &str,
    profiles: &'a [Profile],
    devices: &[Device],
) -> Result<&'a Profile, PlanError> {
    let find = |uuid: &str| profiles.iter().find(|x| x.uuid() == uuid);
    devices
        .iter()
        .filter(|d| d.interface == iface)
        .filter_map(|d| d.active_uuid.as_deref().and_then(find))
        .find(|x| !["ovs-port", "ovs-interface"].contains(&x.kind().as_str()))
        .ok_or_else(|| PlanError::NoActiveConnection(iface.into()))
}

/// The profiles one bridge adds, in creation order; an existing profile of the same name is
/// kept (a re-run adds only what is missing).
struct NewProfiles<'a, 'u> {
    profiles: &'a [Profile],
    new_uuid: &'u mut dyn FnMut() -> String,
    add: Vec<Settings>,
}

impl NewProfiles<'_, '_> {
    /// The UUID of profile `id`: the existing one's, or a new one's that `build` makes from
    /// the id and a fresh UUID.
    fn unless_present(&mut self, id: String, build: impl FnOnce(&str, &str) -> Settings) -> String {
        if let Some(x) = self.profiles.iter().find(|x| x.id() == id) {
            return x.uuid();
        }
        let uuid = (self.new_uuid)();
        self.add.push(build(&id, &uuid));
        uuid
    }
}

/// Bond/team ports of the uplink (its profile `old_uuid` or interface `iface` as master),
/// active or set to autoconnect, are re-homed as clones under the new physical port.
fn port_clones(new: &mut NewProfiles, old_uuid: &str, iface: &str) {
    let profiles = new.profiles;
    for x in profiles {
        let s = &x.settings;
        let m = p::master(s);
        let ours = m.as_deref() == Some(old_uuid) || m.as_deref() == Some(iface);
        if !ours || !(x.active || p::autoconnect(s)) {
            continue;
        }
        let clone_id = format!("{}{SLAVE_CLONE_SUFFIX}", p::id(s));
        new.unless_present(clone_id, |id, uuid| port_clone(s, id, uuid, iface));
    }
}

/// A warning when the uplink's MTU is too small for IPv6 and IPv6 is not switched off.
fn low_mtu_warning(u: &Uplink) -> Option<String> {
    let v6 = Ip::of(u.old, IpFamily::V6)
        .method
        .unwrap_or_else(|| "auto".into());
    (u.mtu < 1280 && v6 != "disabled" && v6 != "ignore").then(|| {
        format!(
            "MTU {} of {} is below IPv6's minimum of 1280",
            u.mtu, u.iface
        )
    })
}

/// `br-ex`: the ovs-bridge, bringing its ports up with it.
fn bridge_profile(u: &Uplink, id: &str, uuid: &str) -> Settings {
    let mut s = Settings::new();
    Connection {
        autoconnect_slaves: Some(1),
        ..connection(id, uuid, "ovs-bridge", u.names.bridge)
    }
    .write(&mut s);
    Ethernet {
        mtu: Some(u.mtu),
        ..Ethernet::default()
    }
    .write(&mut s);
    s.insert("ovs-bridge".into(), Default::default());
    let auto = Ip {
        method: Some("auto".into()),
        ..Ip::default()
    };
    auto.write(&mut s, IpFamily::V4);
    auto.write(&mut s, IpFamily::V6);
    s
}

/// `ovs-port-phys0` (the uplink's port) or `ovs-port-br-ex` (the internal interface's).
fn ovs_port_profile(u: &Uplink, id: &str, uuid: &str, iface: &str) -> Settings {
    let mut s = Settings::new();
    Connection {
        master: Some(u.names.bridge.into()),
        slave_type: Some("ovs-bridge".into()),
        ..connection(id, uuid, "ovs-port", iface)
    }
    .write(&mut s);
    s.insert("ovs-port".into(), Default::default());
    s
}

/// The uplink's kind-specific settings (ethernet, bond, team, VLAN, tun, bridge), its NM type,
/// and whether br-ex's port must clone the MAC (not when the bond or team moves it itself).
fn uplink_kind(
    old: &Settings,
    devices: &[Device],
) -> Result<(Settings, &'static str, bool), PlanError> {
    Ok(match p::kind(old).as_str() {
        "vlan" => (vlan_uplink(old, devices)?, "vlan", true),
        "bond" => {
            let (phys, clone_mac) = bond_uplink(old);
            (phys, "bond", clone_mac)
        }
        "team" => {
            let (phys, clone_mac) = team_uplink(old);
            (phys, "team", clone_mac)
        }
        "tun" => (tun_uplink(old), "tun", true),
        "bridge" => (Settings::new(), "bridge", true),
        _ => (Settings::new(), "802-3-ethernet", true),
    })
}

/// A VLAN uplink's settings: its id, its parent (as a device name) and its flags and protocol.
fn vlan_uplink(old: &Settings, devices: &[Device]) -> Result<Settings, PlanError> {
    let vlan = Vlan::of(old);
    let (Some(id), Some(parent)) = (vlan.id, vlan.parent) else {
        return Err(PlanError::BadVlan(p::id(old)));
    };
    // A parent given as a profile UUID becomes that profile's device.
    let parent = devices
        .iter()
        .find(|d| d.active_uuid.as_deref() == Some(parent.as_str()))
        .map_or(parent, |d| d.interface.clone());
    // Always REORDER_HEADERS: over D-Bus an unset vlan.flags is 0, and without it the
    // VLAN device hands OVS's kernel datapath frames with the tag still inline, which it
    // parses 4 bytes off, so nothing is forwarded (seen on a real kernel). configure-ovs
    // gets the flag from nmcli's default and drops the original's other flags; we keep
    // those (GVRP, loose binding, MVRP) and its 802.1ad protocol.
    let mut phys = Settings::new();
    Vlan {
        id: Some(id),
        parent: Some(parent),
        flags: Some(vlan.flags.unwrap_or(0) | VLAN_REORDER_HEADERS),
        protocol: vlan.protocol,
    }
    .write(&mut phys);
    Ok(phys)
}

/// A bond uplink's options, and whether br-ex's port must clone the MAC.
fn bond_uplink(old: &Settings) -> (Settings, bool) {
    let mut phys = Settings::new();
    let options = Bond::of(old).options.unwrap_or_default();
    let clone_mac = !bond_keeps_own_mac(&options);
    if !options.is_empty() {
        Bond {
            options: Some(options),
        }
        .write(&mut phys);
    }
    (phys, clone_mac)
}

/// A team uplink's config (whitespace removed), and whether br-ex's port must clone the MAC.
fn team_uplink(old: &Settings) -> (Settings, bool) {
    let mut phys = Settings::new();
    let config = Team::of(old).config.unwrap_or_default();
    let clone_mac = !team_keeps_own_mac(&config);
    let compact: String = config.chars().filter(|c| !c.is_whitespace()).collect();
    if !compact.is_empty() {
        Team {
            config: Some(compact),
        }
        .write(&mut phys);
    }
    (phys, clone_mac)
}

/// A tun uplink's mode.
fn tun_uplink(old: &Settings) -> Settings {
    let mut phys = Settings::new();
    if let Some(mode) = Tun::of(old).mode {
        Tun { mode: Some(mode) }.write(&mut phys);
    }
    phys
}

/// `ovs-if-phys0`: the uplink as a port of br-ex, keeping its kind.
fn uplink_settings(
    u: &Uplink,
    id: &str,
    uuid: &str,
    (phys, kind, clone_mac): (&Settings, &str, bool),
) -> Settings {
    let mut s = p::clone_settings(phys);
    Connection {
        // The port's interface name, as nmstate names it (see `interface_profile`).
        master: Some(u.iface.into()),
        slave_type: Some("ovs-port".into()),
        autoconnect_priority: Some(100),
        autoconnect_slaves: Some(1),
        ..connection(id, uuid, kind, u.iface)
    }
    .write(&mut s);
    Ethernet {
        mtu: Some(u.mtu),
        assigned_mac_address: clone_mac.then(|| u.mac.clone()),
    }
    .write(&mut s);
    // configure-ovs copies a non-default `connection.lldp`; NetworkManager sends only those.
    Connection {
        lldp: Connection::of(u.old).lldp,
        ..Connection::default()
    }
    .write(&mut s);
    s
}

/// `<port>-slave-ovs-clone`: a bond/team port profile re-homed under `ovs-if-phys0` (the bond
/// or team `master`, named by its interface as nmstate names it; see `interface_profile`).
fn port_clone(port: &Settings, id: &str, uuid: &str, master: &str) -> Settings {
    let mut c = p::clone_settings(port);
    Connection {
        id: Some(id.into()),
        uuid: Some(uuid.into()),
        master: Some(master.into()),
        autoconnect_priority: Some(100),
        autoconnect: Some(false),
        ..Connection::default()
    }
    .write(&mut c);
    c
}

/// `ovs-if-br-ex`: the internal interface that takes over the uplink's addressing, MAC and MTU,
/// with the bridge's route metric.
///
/// A deliberate difference from configure-ovs.sh: a port's `master` is its controller's
/// interface name (the OVS port `br-ex`, the uplink's port, the bond), where nmcli stores the
/// controller profile's UUID. nmstate writes the name whenever it changes one of these profiles,
/// and NetworkManager cannot reapply a changed controller: a day-2 change of br-ex (its MTU, an
/// address, a route) would re-activate br-ex and drop traffic for a moment. With the name
/// already there, nmstate's change is reapplied in place. NetworkManager resolves either form to
/// the same controller.
fn interface_settings(u: &Uplink, id: &str, uuid: &str, snap: &Snapshot) -> Settings {
    let old = u.old;
    let method = |family| Ip::of(old, family).method.unwrap_or_else(|| "auto".into());
    let (v4, v6) = (method(IpFamily::V4), method(IpFamily::V6));
    let static_path = v4 == "manual"
        || v6 == "manual"
        || has_addresses(old, IpFamily::V4)
        || has_addresses(old, IpFamily::V6);
    let mut s = if static_path {
        static_addressing(old)
    } else {
        dynamic_addressing(old, &v4, &v6, u.iface, snap)
    };
    Connection {
        master: Some(u.names.bridge.into()),
        slave_type: Some("ovs-port".into()),
        ..connection(id, uuid, "ovs-interface", u.names.bridge)
    }
    .write(&mut s);
    OvsInterface {
        kind: Some("internal".into()),
    }
    .write(&mut s);
    Ethernet {
        mtu: Some(u.mtu),
        assigned_mac_address: Some(u.mac.clone()),
    }
    .write(&mut s);
    let metric = Ip {
        route_metric: Some(i64::from(u.names.metric)),
        ..Ip::default()
    };
    metric.write(&mut s, IpFamily::V4);
    metric.write(&mut s, IpFamily::V6);
    s
}

/// Whether `old` has addresses of `family`, in `address-data` or the deprecated `addresses`.
fn has_addresses(old: &Settings, family: IpFamily) -> bool {
    Ip::of(old, family)
        .address_data
        .is_some_and(|a| !a.is_empty())
        // `addresses` has no field in `nm::setting` (only its removal): counted as sent.
        || p::array_len(old, family.section(), IpKey::Addresses.name()) > 0
}

/// configure-ovs clones the original (addresses, gateway, routes, DNS, DHCP options and all) and
/// retypes it; here the clone is a settings transformation.
fn static_addressing(old: &Settings) -> Settings {
    let mut s = p::clone_settings(old);
    Connection::remove_section(&mut s, Connection::NAME, &[ConnectionKey::MultiConnect]);
    // NM ignores `address-data`/`gateway` when the deprecated forms are sent too.
    for family in [IpFamily::V4, IpFamily::V6] {
        Ip::remove(&mut s, family, &[IpKey::Addresses, IpKey::Routes]);
    }
    s
}

/// DHCP/SLAAC: the methods, waiting for each family the uplink had, and the client identity and
/// DNS settings that keep the same lease.
fn dynamic_addressing(
    old: &Settings,
    v4: &str,
    v6: &str,
    iface: &str,
    snap: &Snapshot,
) -> Settings {
    let (had_v4, had_v6) = families_held(iface, snap);
    let (old4, old6) = (Ip::of(old, IpFamily::V4), Ip::of(old, IpFamily::V6));
    let mut s = Settings::new();
    // Wait for each family the uplink had (dual stack: both).
    Ip {
        method: Some(v4.into()),
        may_fail: had_v4.then_some(false),
        dhcp_client_id: old4.dhcp_client_id,
        dns: old4.dns,
        ignore_auto_dns: old4.ignore_auto_dns,
        ..Ip::default()
    }
    .write(&mut s, IpFamily::V4);
    Ip {
        method: Some(v6.into()),
        may_fail: had_v6.then_some(false),
        dhcp_duid: old6.dhcp_duid,
        addr_gen_mode: old6.addr_gen_mode,
        ignore_auto_dns: old6.ignore_auto_dns,
        ..Ip::default()
    }
    .write(&mut s, IpFamily::V6);
    copy_v6_dns(old, &mut s);
    s
}

/// Whether `iface` holds an IPv4 address, and a global IPv6 one.
fn families_held(iface: &str, snap: &Snapshot) -> (bool, bool) {
    let iface_index = snap.links.iter().find(|l| l.name == iface).map(|l| l.index);
    let mut addrs = snap
        .addresses
        .iter()
        .filter(|a| Some(a.ifindex) == iface_index);
    let v4 = addrs.clone().any(|a| a.ip.is_ipv4());
    let v6 = addrs.any(|a| a.ip.is_ipv6() && !is_link_local_unicast(a.ip));
    (v4, v6)
}

/// `ipv6.dns` copied as sent: `nm::setting` reads an empty `aay` as IPv4's `au` and would
/// write it back so.
fn copy_v6_dns(old: &Settings, s: &mut Settings) {
    let section = IpFamily::V6.section();
    let key = IpKey::Dns.name();
    if let Some(dns) = old.get(section).and_then(|sec| sec.get(key)) {
        s.entry(section.into())
            .or_default()
            .insert(key.into(), dns.try_clone().expect("no fds"));
    }
}
