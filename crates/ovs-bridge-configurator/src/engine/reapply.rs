//! The project's own apply of a desired state. What it covers (the one list of it; any other
//! change goes through nmstate's own apply):
//! - a change to existing interfaces ([`profile_change`]): MTU, IP settings, static routes,
//!   becoming a port of an OVS bridge or leaving one;
//! - the profiles it adds ([`profile_new`]): a new VLAN on an interface that exists, a NIC
//!   without a profile, an OVS internal interface;
//! - OVS bridges ([`profile_ovs`], planned with [`crate::engine::plan_ports`]): a new bridge over
//!   interfaces that exist and its ports, new ports of one that exists.
//!
//! nmstate reads the running state and validates and merges the desired one against it
//! (`gen_diff`); the project writes the changed profiles and reapplies them with
//! `NM_DEVICE_REAPPLY_FLAGS_PRESERVE_EXTERNAL_IP`, adds and activates the new ones, inside its
//! own checkpoint, and verifies them in the kernel ([`in_kernel`]; nmstate's `gen_diff` again
//! where only NetworkManager's state shows it).
//! nmstate's own apply reapplies without that flag, which removes every address and route
//! NetworkManager did not configure: on br-ex, keepalived's VIPs (keepalived then gives them up)
//! and OVN-Kubernetes' masquerade address and routes.
//!
//! What it relies on of nmstate is its public, documented API: `NetworkState::retrieve_async`
//! with `set_running_config_only`, `gen_diff` (what `nmstatectl show`/`apply` themselves use),
//! and the YAML/JSON schema of states; nothing of its NetworkManager plugin.

use std::time::{Duration, Instant};

use nmstate::NetworkState;
use selection::netlink::{ChangeStream, NetlinkReader};
use serde_json::Value as Json;
use zbus::zvariant::OwnedObjectPath;

use crate::engine::change::{ChangeFailed, Failed, Lasting, Renegotiating, within};
use crate::engine::dns::{self, FamilyDns};
use crate::engine::in_kernel;
use crate::engine::keeper::{Keeper, Recorded};
use crate::engine::plan_ports::{
    existing_bridges_port_changes, implied_moves, kept_ports, new_ports, ports_known, ports_moved,
};
use crate::engine::profile_change::{self, IfaceChange, Uncovered};
use crate::engine::profile_new;
use crate::engine::profile_ovs::{self, BridgeChange};
use crate::engine::state::{Iface, IpConfig, State};
use crate::engine::undo::{ACTIVATION_BOUND, Undo, nm_failed, write};
use crate::nm::profile::{self, Settings};
use crate::nm::setting::{Connection, Family, Ip, Setting};
use crate::nm::{DEVICE_TYPE_OVS_BRIDGE, DEVICE_TYPE_OVS_PORT, Nm, Store};

/// How long a written change may take to be in place (an address NetworkManager sets a moment
/// after the reapply returns, a DHCP method reaching its lease).
const VERIFY_BOUND: Duration = Duration::from_secs(10);
/// How often verification reads the state again within that bound.
const VERIFY_EVERY: Duration = Duration::from_millis(100);

/// Settings carrying secrets, which GetSettings does not return: a profile holding one is left
/// to nmstate, which reads the secrets before it writes.
const SECRET_SETTINGS: &[&str] = &[
    "802-1x",
    "802-11-wireless-security",
    "macsec",
    "wireguard",
    "vpn",
    "pppoe",
    "gsm",
    "cdma",
    "adsl",
];

/// One profile to rewrite and the device to reapply it on.
#[derive(Debug)]
pub struct Rewrite {
    pub iface: String,
    device: OwnedObjectPath,
    profile: OwnedObjectPath,
    settings: Settings,
    /// The profile before the change, and where it was stored.
    old: Settings,
    old_store: Store,
    /// It becomes a port of an OVS bridge or stops being one: activated, as a changed
    /// controller cannot be reapplied.
    moved: bool,
    /// What the kernel shows once it is in place (None: nmstate's verification tells).
    expected: Option<in_kernel::Expected>,
}

/// One profile to add and activate, for an interface no profile names yet ([`profile_new`]).
#[derive(Debug)]
pub struct Create {
    pub iface: String,
    settings: Settings,
    expected: Option<in_kernel::Expected>,
}

impl Create {
    /// Whether it is activated by itself (not: a new bridge's internal interface, which its
    /// port brings up).
    fn activated_alone(&self) -> bool {
        profile::kind(&self.settings) != "ovs-interface"
    }
}

/// What the own apply would do: the profiles it rewrites, the interfaces it adds, the OVS
/// bridges it adds or gives new ports, and the OVS ports' profiles it deletes (none: nothing to
/// change).
#[derive(Debug)]
pub struct Plan {
    pub rewrites: Vec<Rewrite>,
    pub creates: Vec<Create>,
    pub bridges: Vec<BridgeChange>,
    /// The profile (UUID) of the OVS port each detached interface leaves, by interface.
    pub orphans: Vec<(String, String)>,
    /// The stored profiles of OVS ports that new ports of a bridge already have, by interface.
    pub kept_ports: Vec<(String, OwnedObjectPath, Settings)>,
    /// The node's static DNS, written into its holders' profiles (verified in NetworkManager).
    pub dns: Vec<FamilyDns>,
}

/// The running configuration as nmstate reads it (no dynamic addresses or routes: not the
/// profiles').
pub(crate) async fn read_running() -> Result<NetworkState, ChangeFailed> {
    let mut now = NetworkState::new();
    now.set_running_config_only(true).set_include_secrets(false);
    now.retrieve_async().await.map_err(ChangeFailed::Nmstate)?;
    Ok(now)
}

fn json(state: &NetworkState) -> Result<Json, ChangeFailed> {
    serde_json::to_value(state).map_err(|e| ChangeFailed::Verify(format!("nmstate's state: {e}")))
}

/// `state` as the engine reads it; one it cannot read is nmstate's to apply.
fn plan_view(state: &NetworkState) -> Result<State, Stop> {
    State::from_json(json(state)?)
        .map_err(|e| Uncovered(format!("nmstate's state as the engine reads it ({e})")).into())
}

/// A failed call to NetworkManager, as the change's failure.
/// Why planning stops: the change is not covered (nmstate applies it), or reading what the plan
/// needs failed.
enum Stop {
    Uncovered(Uncovered),
    Failed(ChangeFailed),
}

impl From<Uncovered> for Stop {
    fn from(u: Uncovered) -> Stop {
        Stop::Uncovered(u)
    }
}

impl From<ChangeFailed> for Stop {
    fn from(e: ChangeFailed) -> Stop {
        Stop::Failed(e)
    }
}

/// The new interfaces' profiles to add, and the new profiles of interfaces that exist.
type NewProfiles = Vec<(Settings, IfaceChange)>;

/// The own apply's plan for `desired`, or why it is not covered (then nmstate applies it).
pub async fn plan(
    nm: &Nm,
    desired: &NetworkState,
    lasting: Lasting,
) -> Result<Result<Plan, Uncovered>, ChangeFailed> {
    match plan_or_stop(nm, desired, lasting).await {
        Ok(plan) => Ok(Ok(plan)),
        Err(Stop::Uncovered(u)) => Ok(Err(u)),
        Err(Stop::Failed(e)) => Err(e),
    }
}

/// [`plan`]'s steps: the new interfaces, the running state and nmstate's diff against it, the
/// bridges' port changes, then the profiles of interfaces that exist, each step stopping at what
/// it does not cover.
async fn plan_or_stop(nm: &Nm, desired: &NetworkState, lasting: Lasting) -> Result<Plan, Stop> {
    let devices = nm.devices().await.map_err(nm_failed)?;
    // A new interface other than a VLAN on one that exists is nmstate's to create: said without
    // reading the whole state (seconds on a slow node) for nothing.
    let asked = plan_view(desired)?;
    let is_device = |name: &str| devices.iter().any(|d| d.interface == name);
    let (mut creates, mut bridges) = new_interfaces(&asked, is_device)?;
    let (now, diff) = running_and_diff(desired).await?;
    let running = plan_view(&now)?;
    creates.extend(nic_profiles(nm, &devices, &asked, &running).await?);
    bridges.extend(existing_bridges_port_changes(&asked, &running, is_device)?);
    let stored = stored_for_port_changes(nm, &bridges).await?;
    let kept_ports = kept_ports(&stored, &mut bridges);
    ports_known(&bridges, &creates, is_device)?;
    new_ports(&bridges, &mut creates)?;
    let diff = without_new_interfaces(plan_view(&diff)?, &creates, &bridges);
    let new: Vec<&str> = creates.iter().map(|(_, c)| c.name.as_str()).collect();
    let mut changes = profile_change::changes(&diff, &asked, &running, &new)?;
    implied_moves(&bridges, &mut changes, &running, is_device)?;
    ports_moved(&bridges, &changes, is_device)?;
    let dns = dns::placement(&diff, &asked, &running)?;
    dns::others_hold_none(nm, &devices, &dns)
        .await
        .map_err(nm_failed)??;
    let (mut rewrites, orphans) =
        detachments(nm, &devices, &stored, &bridges, &running, lasting).await?;
    let edits = Edits {
        changes: &changes,
        dns: &dns,
    };
    rewrites.extend(rewrites_of(nm, &devices, edits, &mut creates, &running).await?);
    let creates = creates
        .into_iter()
        .map(|(settings, change)| Create {
            iface: change.name.clone(),
            expected: in_kernel::expected(&change, &running),
            settings,
        })
        .collect();
    Ok(Plan {
        rewrites,
        creates,
        bridges,
        orphans,
        kept_ports,
        dns,
    })
}

/// The profiles of the interfaces of `desired` no device has yet: new OVS bridges, and new VLANs
/// on interfaces that exist or OVS internal interfaces.
fn new_interfaces(
    desired: &State,
    is_device: impl Fn(&str) -> bool,
) -> Result<(NewProfiles, Vec<BridgeChange>), Uncovered> {
    let mut creates = Vec::new();
    let mut bridges = Vec::new();
    for iface in &desired.interfaces {
        let name = iface.name.as_str();
        if iface.is_absent() || is_device(name) {
            continue;
        }
        let kind = iface.kind.as_deref();
        if kind == Some("ovs-bridge") {
            bridges.push(profile_ovs::new_bridge(iface)?);
            continue;
        }
        let vlan = iface.vlan.as_ref();
        let parent = vlan
            .and_then(|v| v.base_iface.as_deref())
            .unwrap_or_default();
        if kind == Some("vlan") && !is_device(parent) {
            return Err(Uncovered(format!(
                "new interface {name} on new interface {parent}"
            )));
        }
        creates.push(profile_new::new_profile(iface, None)?);
    }
    Ok((creates, bridges))
}

/// The running state and nmstate's diff of `desired` against it. nmstate's own apply reports
/// its own errors (it reads and merges the same way), so a state nmstate cannot read or compare
/// here is left to it.
async fn running_and_diff(
    desired: &NetworkState,
) -> Result<(NetworkState, NetworkState), Uncovered> {
    let now = read_running()
        .await
        .map_err(|e| Uncovered(format!("reading the running state ({e})")))?;
    let diff = desired
        .gen_diff(&now)
        .map_err(|e| Uncovered(format!("comparing with the running state ({e})")))?;
    Ok((now, diff))
}

/// The stored profiles, read once where a bridge that exists changes its ports: its ports'
/// profiles to use again, a detached interface's other profiles. None where every bridge is new.
async fn stored_for_port_changes(
    nm: &Nm,
    bridges: &[BridgeChange],
) -> Result<Vec<crate::nm::Profile>, ChangeFailed> {
    if bridges.iter().all(|b| b.new) {
        return Ok(Vec::new());
    }
    nm.profiles().await.map_err(nm_failed)
}

/// nmstate's `diff` without the interfaces the plan writes new profiles for (`creates`, and the
/// OVS bridges of `bridges`): nmstate validated them with the rest, and what they are is written
/// by [`profile_new`] and [`profile_ovs`].
fn without_new_interfaces(
    mut diff: State,
    creates: &[(Settings, IfaceChange)],
    bridges: &[BridgeChange],
) -> State {
    let created = |i: &Iface| creates.iter().any(|(_, c)| i.name == c.name);
    let bridge = |i: &Iface| {
        i.kind.as_deref() == Some("ovs-bridge") && bridges.iter().any(|b| i.name == b.name)
    };
    diff.interfaces.retain(|i| !created(i) && !bridge(i));
    diff
}

/// The rewrites that take the interfaces `bridges` let go out of them, and the UUIDs of the OVS
/// ports' profiles they leave, by interface.
async fn detachments(
    nm: &Nm,
    devices: &[crate::nm::Device],
    stored: &[crate::nm::Profile],
    bridges: &[BridgeChange],
    running: &State,
    lasting: Lasting,
) -> Result<(Vec<Rewrite>, Vec<(String, String)>), Stop> {
    let mut rewrites = Vec::new();
    let mut orphans = Vec::new();
    for b in bridges {
        for name in &b.detached {
            let (r, orphan) = detach(nm, devices, stored, name, running, lasting).await?;
            rewrites.push(r);
            orphans.push((name.clone(), orphan));
        }
    }
    Ok((rewrites, orphans))
}

/// What the plan writes into the profiles of the interfaces it keeps or adds: their changes and
/// the node's DNS.
#[derive(Clone, Copy)]
struct Edits<'a> {
    changes: &'a [IfaceChange],
    dns: &'a [FamilyDns],
}

impl<'a> Edits<'a> {
    /// The DNS settings the profile of `name` holds.
    fn dns_of(self, name: &str) -> Vec<&'a FamilyDns> {
        self.dns.iter().filter(|d| d.iface == name).collect()
    }

    /// Every change, and an empty one for each DNS holder no change names.
    fn with_dns_holders(self) -> Vec<IfaceChange> {
        let mut all = self.changes.to_vec();
        for d in self.dns {
            if !all.iter().any(|c| c.name == d.iface) {
                all.push(IfaceChange::new(&d.iface));
            }
        }
        all
    }
}

/// The rewrites of the profiles `edits` changes. A change to a new interface (routes through
/// it, DNS it holds) is written into its new profile in `creates` instead.
async fn rewrites_of(
    nm: &Nm,
    devices: &[crate::nm::Device],
    edits: Edits<'_>,
    creates: &mut [(Settings, IfaceChange)],
    running: &State,
) -> Result<Vec<Rewrite>, Stop> {
    let mut rewrites = Vec::new();
    for change in edits.with_dns_holders() {
        let dns = edits.dns_of(&change.name);
        if let Some((settings, created)) = creates.iter_mut().find(|(_, c)| c.name == change.name) {
            if change.routes4.is_some() || change.routes6.is_some() {
                created.routes4.clone_from(&change.routes4);
                created.routes6.clone_from(&change.routes6);
                profile_change::apply_to(settings, created)?;
            }
            dns.iter().for_each(|d| dns::write(settings, d));
            continue;
        }
        rewrites.extend(rewrite(nm, devices, &change, &dns, running).await?);
    }
    Ok(rewrites)
}

/// The rewrite that takes `name` out of its OVS bridge (no controller, its IP stacks off, as
/// nmstate writes it) and the UUID of the OVS port's profile it leaves. nmstate deletes that
/// profile, and every other profile for the same interface, in a change that outlives a reboot
/// (see [`write_and_activate`]); another profile for the interface is then nmstate's to delete.
async fn detach(
    nm: &Nm,
    devices: &[crate::nm::Device],
    stored: &[crate::nm::Profile],
    name: &str,
    running: &State,
    lasting: Lasting,
) -> Result<(Rewrite, String), Stop> {
    let change = IfaceChange {
        ipv4: Some(IpConfig::disabled()),
        ipv6: Some(IpConfig::disabled()),
        detached: true,
        ..IfaceChange::new(name)
    };
    let Some(r) = rewrite(nm, devices, &change, &[], running).await? else {
        return Err(Uncovered(format!("{name}'s profile, already detached")).into());
    };
    let master = Connection::of(&r.old).master.unwrap_or_default();
    let Some(port) = devices
        .iter()
        .filter(|d| d.device_type == DEVICE_TYPE_OVS_PORT)
        .filter_map(|d| Some((d, d.active_uuid.as_ref()?)))
        .find(|(d, uuid)| d.interface == master || **uuid == master)
        .map(|(_, uuid)| uuid.clone())
    else {
        return Err(Uncovered(format!("{name}'s OVS port {master:?}")).into());
    };
    if lasting == Lasting::UntilReboot {
        return Ok((r, port));
    }
    let (kind, uuid) = (profile::kind(&r.old), profile::uuid(&r.old));
    if let Some(other) = stored.iter().find(|p| {
        profile::interface(&p.settings).as_deref() == Some(name)
            && profile::kind(&p.settings) == kind
            && profile::uuid(&p.settings) != uuid
    }) {
        return Err(Uncovered(format!(
            "{name}'s other profile {}, which nmstate deletes",
            profile::id(&other.settings)
        ))
        .into());
    }
    Ok((r, port))
}

/// New profiles for the NICs no profile is active on that `desired` brings up, when no stored
/// profile names them (one that does is nmstate's to pick and activate).
async fn nic_profiles(
    nm: &Nm,
    devices: &[crate::nm::Device],
    desired: &State,
    running: &State,
) -> Result<NewProfiles, Stop> {
    let profileless: Vec<(&crate::nm::Device, &Iface)> = devices
        .iter()
        .filter(|d| d.active_uuid.is_none() && NIC_TYPES.contains(&d.device_type))
        .filter_map(|d| Some((d, desired.iface(&d.interface).filter(|i| !i.is_absent())?)))
        .collect();
    if profileless.is_empty() {
        return Ok(Vec::new());
    }
    let profiles = nm.profiles().await.map_err(nm_failed)?;
    let mut out = Vec::new();
    for (d, asked) in profileless {
        let name = d.interface.as_str();
        if profiles
            .iter()
            .any(|p| profile::interface(&p.settings).as_deref() == Some(name))
        {
            return Err(Uncovered(format!("{name}'s inactive profile")).into());
        }
        // Without a profile the running configuration may not show it: what nmstate merges
        // with then is the kernel's (IPv4 off, IPv6 on where the kernel has it: link-local).
        let now = running.iface(name).cloned().unwrap_or_else(|| Iface {
            name: name.to_owned(),
            kind: Some("ethernet".to_owned()),
            ipv4: Some(IpConfig::disabled()),
            ipv6: Some(IpConfig {
                enabled: Some(kernel_ipv6(name)),
                ..IpConfig::default()
            }),
            ..Iface::default()
        });
        out.push(profile_new::new_profile(asked, Some(&now))?);
    }
    Ok(out)
}

/// `NM_DEVICE_TYPE_ETHERNET` and `NM_DEVICE_TYPE_VETH`: devices an ethernet profile activates on.
const NIC_TYPES: [u32; 2] = [1, 20];

/// Whether the kernel runs IPv6 on `iface` (`disable_ipv6` is 0).
fn kernel_ipv6(iface: &str) -> bool {
    std::fs::read_to_string(format!("/proc/sys/net/ipv6/conf/{iface}/disable_ipv6"))
        .is_ok_and(|v| v.trim() == "0")
}

/// The profile active on `change`'s interface with `change` and the DNS it holds (`dns`)
/// written in (None: it already says so).
async fn rewrite(
    nm: &Nm,
    devices: &[crate::nm::Device],
    change: &IfaceChange,
    dns: &[&FamilyDns],
    running: &State,
) -> Result<Option<Rewrite>, Stop> {
    let name = &change.name;
    let (device, uuid) = addresses_device(devices, name)?;
    let stored = nm.profile_by_uuid(uuid).await.map_err(nm_failed)?;
    let (path, old) = (stored.path, stored.settings);
    // A keyfile under /run (or none) is an in-memory profile: put back there, the keyfile a
    // persisted change wrote under /etc deleted.
    let old_store = if stored.filename.is_empty() || stored.filename.starts_with("/run/") {
        Store::MemoryOnly
    } else {
        Store::Disk
    };
    if let Some(secret) = SECRET_SETTINGS.iter().find(|s| old.contains_key(**s)) {
        return Err(Uncovered(format!("{name}'s profile has {secret} secrets")).into());
    }
    let mut new = profile::clone_settings(&old);
    profile_change::apply_to(&mut new, change)?;
    dns.iter().for_each(|d| dns::write(&mut new, d));
    dns_stays(&old, &new, name)?;
    Ok((new != old).then(|| Rewrite {
        iface: name.clone(),
        device: device.path.clone(),
        profile: path,
        settings: new,
        old,
        old_store,
        moved: change.controller.is_some() || change.detached,
        expected: in_kernel::expected(change, running),
    }))
}

/// The one device of interface `name` that carries its addresses and MTU, and the UUID of the
/// profile active on it. br-ex is three devices to NetworkManager with a profile each (bridge,
/// port, interface), and with OVS's userspace datapath a fourth, the tap it sees as an
/// unmanaged tun device: the addresses and the MTU are the interface's.
fn addresses_device<'d>(
    devices: &'d [crate::nm::Device],
    name: &str,
) -> Result<(&'d crate::nm::Device, &'d String), Uncovered> {
    let on: Vec<(&crate::nm::Device, &String)> = devices
        .iter()
        .filter(|d| {
            d.interface == *name
                && ![DEVICE_TYPE_OVS_BRIDGE, DEVICE_TYPE_OVS_PORT].contains(&d.device_type)
        })
        .filter_map(|d| Some((d, d.active_uuid.as_ref()?)))
        .collect();
    let [(device, uuid)] = on[..] else {
        return Err(Uncovered(format!(
            "{name} having {} active profiles for its addresses",
            on.len()
        )));
    };
    Ok((device, uuid))
}

/// Uncovered where the rewrite `new` of profile `old` (of interface `name`) drops the IP
/// configuration of a family whose static DNS settings `old` holds. nmstate keeps the node's
/// static DNS servers when the interface whose profile holds them loses its IP configuration
/// (it writes them into another interface's profile, which it picks by its own rules): such a
/// change is nmstate's, or the node would boot without them.
fn dns_stays(old: &Settings, new: &Settings, name: &str) -> Result<(), Uncovered> {
    match [Family::V4, Family::V6]
        .into_iter()
        .find(|f| has_dns(old, *f) && !Ip::configures(new, *f))
    {
        Some(family) => Err(Uncovered(format!(
            "{name}'s {} DNS settings, which nmstate moves with its IP configuration",
            family.section()
        ))),
        None => Ok(()),
    }
}

/// Whether `s` holds static DNS settings (servers, search domains, options) for `family`.
fn has_dns(s: &Settings, family: Family) -> bool {
    Ip::of(s, family).has_static_dns()
}

/// Writes and activates `plan` inside a checkpoint (`timeout`), verifies it (in the kernel, or
/// `desired` with nmstate's `gen_diff`) all within `deadline` if there is one, runs `check`, and
/// commits only if all of that passed; undoes it otherwise ([`Undo`]). What undoes it is sent
/// before each step to a [`Keeper`], which undoes the change the same way if this process is
/// killed before it is over.
pub async fn write_activate_check<F, E>(
    nm: &Nm,
    desired: &NetworkState,
    plan: Plan,
    (timeout, deadline): (Duration, Option<Duration>),
    lasting: Lasting,
    check: F,
) -> Result<(), Failed<E>>
where
    F: AsyncFnOnce(Renegotiating) -> Result<(), E>,
{
    // Over every device, as nmstate's: a rollback leaves a device whose profile did not change
    // as it is.
    let cp = nm
        .checkpoint_create(&[], timeout)
        .await
        .map_err(|e| Failed::Change(nm_failed(e)))?;
    let store = match lasting {
        Lasting::Persistent => Store::Disk,
        Lasting::UntilReboot => Store::Memory,
    };
    let put_back = plan.bridges.is_empty() && !plan.rewrites.iter().any(|r| r.moved);
    let undo = Undo::new(cp.clone(), put_back, timeout);
    let mut record = Recorded::new(undo, Keeper::spawn());
    let change = async {
        let renegotiating = write_and_activate(nm, &plan, store, &mut record).await?;
        verify(nm, desired, &plan).await?;
        Ok(renegotiating)
    };
    let outcome = match within(deadline, change).await {
        Err(e) => Err(Failed::Change(e)),
        Ok(renegotiating) => check(renegotiating).await.map_err(Failed::Check),
    };
    if outcome.is_ok() {
        let committed = nm
            .checkpoint_destroy(&cp)
            .await
            .map_err(|e| Failed::Change(ChangeFailed::Commit(e.to_string())));
        record.over();
        return committed;
    }
    if let Some(how) = record.undo().run(nm).await {
        tracing::info!("undone: {how}");
    }
    record.over();
    outcome
}

/// Verifies the written `plan`: in the kernel where every change says what the kernel shows,
/// else `desired` with nmstate's `gen_diff`; its DNS in NetworkManager's DNS configuration.
async fn verify(nm: &Nm, desired: &NetworkState, plan: &Plan) -> Result<(), ChangeFailed> {
    let in_kernel: Option<Vec<&in_kernel::Expected>> = plan
        .rewrites
        .iter()
        .map(|r| r.expected.as_ref())
        .chain(plan.creates.iter().map(|c| c.expected.as_ref()))
        .collect();
    match in_kernel {
        Some(expected) => verify_in_kernel(&expected).await?,
        None => verify_with_nmstate(desired).await?,
    }
    verify_dns(nm, &plan.dns).await
}

/// Waits until NetworkManager uses every name server of `placed` on its holder, reading its DNS
/// configuration every [`VERIFY_EVERY`] within [`VERIFY_BOUND`].
async fn verify_dns(nm: &Nm, placed: &[FamilyDns]) -> Result<(), ChangeFailed> {
    let start = Instant::now();
    while !placed.is_empty() {
        let entries = nm.dns_entries().await.map_err(nm_failed)?;
        let Some(left) = dns::not_in_place(placed, &entries) else {
            tracing::info!("DNS in place in {:.2}s", start.elapsed().as_secs_f64());
            break;
        };
        if start.elapsed() >= VERIFY_BOUND {
            return Err(ChangeFailed::Verify(format!(
                "not in place {}s after it was written: {left}",
                VERIFY_BOUND.as_secs()
            )));
        }
        tokio::time::sleep(VERIFY_EVERY).await;
    }
    Ok(())
}

/// Writes `plan` (in `store`): the rewrites that stay where they are, the bridges' and new
/// interfaces' profiles, what moves under a bridge or out of one, the OVS ports left empty
/// deleted; then activates the new bridges, the detached interfaces, the new interfaces (a new
/// port comes up with the interface it holds) and the moved ones, as nmstate orders them. What
/// is written and added is recorded (before it is written) for the undo; the bonds it
/// re-activated are returned.
async fn write_and_activate(
    nm: &Nm,
    plan: &Plan,
    store: Store,
    record: &mut Recorded,
) -> Result<Renegotiating, ChangeFailed> {
    // The activations from before anything is written: a new port that comes up by itself (or
    // with its bridge) starts another one for the interface it holds.
    let earlier = nm.active_paths().await.map_err(nm_failed)?;
    for r in plan.rewrites.iter().filter(|r| !r.moved) {
        record.update(|u| u.rewriting(&r.iface, (&r.profile, &r.device), &r.old, r.old_store));
        write(nm, (&r.profile, &r.device), &r.settings, store).await?;
    }
    let bridges = add_bridges(nm, plan, store, record).await?;
    let creates = add_creates(nm, plan, store, record).await?;
    let moved: Vec<&Rewrite> = plan.rewrites.iter().filter(|r| r.moved).collect();
    for r in &moved {
        record.update(|u| u.rewriting(&r.iface, (&r.profile, &r.device), &r.old, r.old_store));
        nm.update(&r.profile, &r.settings, store)
            .await
            .map_err(nm_failed)?;
    }
    if store == Store::Disk {
        settle_ovs_ports(nm, plan, store).await?;
    }
    // A bridge brings its ports up, and they their internal interfaces. Each activation is
    // waited for before the next is asked for: one asked for while the bridge's is still under
    // way can fail. A detached interface comes before the new ones: a new VLAN on it needs it.
    for (id, path) in &bridges {
        nm.activate(path, id, ACTIVATION_BOUND)
            .await
            .map_err(nm_failed)?;
        tracing::info!("{id} added and activated with its ports");
    }
    activate_in_order(nm, plan, (moved, &earlier), &creates).await
}

/// Adds the profiles of `plan`'s bridges (in `store`), recorded in `record`; the new bridges'
/// own profiles to activate, by id.
async fn add_bridges(
    nm: &Nm,
    plan: &Plan,
    store: Store,
    record: &mut Recorded,
) -> Result<Vec<(String, OwnedObjectPath)>, ChangeFailed> {
    let mut bridges = Vec::new();
    for b in &plan.bridges {
        for (i, settings) in b.profiles.iter().enumerate() {
            record.update(|u| u.adding(&b.name, settings));
            let path = nm.add_stored(settings, store).await.map_err(nm_failed)?;
            if b.new && i == 0 {
                bridges.push((profile::id(settings), path));
            }
        }
    }
    Ok(bridges)
}

/// Adds the profiles of `plan`'s new interfaces (in `store`), recorded in `record`; those
/// activated by themselves, with their paths.
async fn add_creates<'p>(
    nm: &Nm,
    plan: &'p Plan,
    store: Store,
    record: &mut Recorded,
) -> Result<Vec<(&'p Create, OwnedObjectPath)>, ChangeFailed> {
    let mut creates = Vec::new();
    for c in &plan.creates {
        record.update(|u| u.adding(&c.iface, &c.settings));
        let path = nm.add_stored(&c.settings, store).await.map_err(nm_failed)?;
        tracing::info!("{}: {} added", c.iface, profile::id(&c.settings));
        if c.activated_alone() {
            creates.push((c, path));
        }
    }
    Ok(creates)
}

/// Deletes the profiles of the OVS ports `plan`'s detached interfaces leave empty and writes
/// back those its new ports use again, for a change that outlives a reboot. nmstate's choice,
/// kept deliberately: an OVS port left empty keeps its profile in a change until the next boot
/// (NetworkManager takes the port out of OVS and the next boot has it as it was), and loses it
/// in one that outlives a reboot; a port that has a profile keeps it.
async fn settle_ovs_ports(nm: &Nm, plan: &Plan, store: Store) -> Result<(), ChangeFailed> {
    for (iface, uuid) in &plan.orphans {
        nm.delete_uuid(uuid).await.map_err(nm_failed)?;
        tracing::info!("{iface}: the profile of the OVS port it left deleted");
    }
    for (iface, path, settings) in &plan.kept_ports {
        nm.update(path, settings, store).await.map_err(nm_failed)?;
        tracing::info!("{iface}: its OVS port's profile kept");
    }
    Ok(())
}

/// Activates, one after the other, the `moved` interfaces that leave their bridge, the new
/// interfaces `creates`, then the interfaces that move under a bridge (waiting for those a new
/// port brought up: an activation not among the `earlier` ones); the bonds re-activated.
async fn activate_in_order(
    nm: &Nm,
    plan: &Plan,
    (moved, earlier): (Vec<&Rewrite>, &[OwnedObjectPath]),
    creates: &[(&Create, OwnedObjectPath)],
) -> Result<Renegotiating, ChangeFailed> {
    let (detached, moved): (Vec<&Rewrite>, Vec<&Rewrite>) = moved
        .into_iter()
        .partition(|r| plan.orphans.iter().any(|(iface, _)| *iface == r.iface));
    let detached_from = "detached from its OVS bridge";
    let moved_under = "moved under its new OVS port";
    // Each step: the interface, its profile and settings, what it does, and whether it moves
    // under a bridge.
    let steps = (detached.iter().map(|r| {
        (
            r.iface.as_str(),
            &r.profile,
            &r.settings,
            detached_from,
            false,
        )
    }))
    .chain(
        creates
            .iter()
            .map(|(c, path)| (c.iface.as_str(), path, &c.settings, "activated", false)),
    )
    .chain(
        moved
            .iter()
            .map(|r| (r.iface.as_str(), &r.profile, &r.settings, moved_under, true)),
    );
    // A bond re-activated (moved under a port or out of one) negotiates LACP again: the probes
    // allow for it rather than this waiting for it.
    let mut renegotiating = Renegotiating::default();
    for (iface, path, settings, what, moving) in steps {
        let id = profile::id(settings);
        let how = match activate(nm, (path, settings), moving, earlier).await? {
            true => " (with its port)",
            false => "",
        };
        tracing::info!("{iface}: {id} {what}{how}");
        if profile::kind(settings) == "bond" {
            renegotiating.0.push(iface.to_owned());
        }
    }
    Ok(renegotiating)
}

/// Activates `profile` (`settings`'s), or waits for its activation when it moves under a bridge
/// (`moving`) whose new port brought it up (not one of the `earlier` activations): activated
/// once more, a bond would release and enslave its ports a second time, and LACP start over.
/// Whether its port brought it up.
async fn activate(
    nm: &Nm,
    (profile, settings): (&OwnedObjectPath, &Settings),
    moving: bool,
    earlier: &[OwnedObjectPath],
) -> Result<bool, ChangeFailed> {
    let id = profile::id(settings);
    let by_port = match moving {
        true => nm
            .port_activation(&profile::uuid(settings), earlier)
            .await
            .map_err(nm_failed)?,
        false => None,
    };
    match &by_port {
        Some(ac) => nm.wait_active(ac, &id, ACTIVATION_BOUND).await,
        None => nm.activate(profile, &id, ACTIVATION_BOUND).await,
    }
    .map_err(nm_failed)?;
    Ok(by_port.is_some())
}

/// Waits until the kernel shows every change of `expected` ([`in_kernel`]): checked at once,
/// again on each netlink event, and at least every [`VERIFY_EVERY`], within [`VERIFY_BOUND`].
async fn verify_in_kernel(expected: &[&in_kernel::Expected]) -> Result<(), ChangeFailed> {
    let start = Instant::now();
    let failed = |e: selection::netlink::NetlinkError| ChangeFailed::Verify(e.to_string());
    // Subscribed before the first read: no change between the read and the wait is missed.
    let mut events = ChangeStream::subscribe(Duration::ZERO).map_err(failed)?;
    let mut reader = NetlinkReader::connect().map_err(failed)?;
    let tables = in_kernel::tables(expected);
    loop {
        let snap = reader.snapshot().await.map_err(failed)?;
        let mut routes = Vec::new();
        for t in &tables {
            routes.extend(reader.routes_in(*t).await.map_err(failed)?);
        }
        let left: Vec<String> = expected
            .iter()
            .filter_map(|e| in_kernel::not_in_kernel_yet(e, &snap, &routes))
            .collect();
        if left.is_empty() {
            tracing::info!("verified in {:.2}s", start.elapsed().as_secs_f64());
            return Ok(());
        }
        if start.elapsed() >= VERIFY_BOUND {
            return Err(ChangeFailed::Verify(format!(
                "not in place {}s after it was written: {}",
                VERIFY_BOUND.as_secs(),
                left.join("; ")
            )));
        }
        let _ = tokio::time::timeout(VERIFY_EVERY, events.next()).await;
    }
}

/// Waits until nmstate sees `desired` in place (an empty `gen_diff` against the running state,
/// its own verification), reading it again every [`VERIFY_EVERY`] within [`VERIFY_BOUND`].
async fn verify_with_nmstate(desired: &NetworkState) -> Result<(), ChangeFailed> {
    let start = Instant::now();
    let asked = verify_view(desired)?;
    loop {
        let now = read_running().await?;
        let diff = desired.gen_diff(&now).map_err(ChangeFailed::Nmstate)?;
        let running = verify_view(&now)?;
        let Some(still) = profile_change::diff_not_in_place(&json(&diff)?, &asked, &running) else {
            tracing::info!("verified in {:.2}s", start.elapsed().as_secs_f64());
            return Ok(());
        };
        if start.elapsed() >= VERIFY_BOUND {
            return Err(ChangeFailed::Verify(format!(
                "not in place {}s after it was written, still different: {still}",
                VERIFY_BOUND.as_secs()
            )));
        }
        tokio::time::sleep(VERIFY_EVERY).await;
    }
}

/// `state` as the engine reads it, to verify a change with.
fn verify_view(state: &NetworkState) -> Result<State, ChangeFailed> {
    State::from_json(json(state)?)
        .map_err(|e| ChangeFailed::Verify(format!("nmstate's state: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_settings_are_seen_and_a_port_or_a_disabled_stack_has_no_ip() {
        let mut s = Settings::new();
        profile::set(&mut s, "ipv4", "method", "manual");
        assert!(!has_dns(&s, Family::V4));
        profile::set(&mut s, "ipv4", "dns", vec![0x0164_33c6u32]);
        assert!(has_dns(&s, Family::V4) && !has_dns(&s, Family::V6));
        assert!(profile::configures_ip(&s, "ipv4") && !profile::configures_ip(&s, "ipv6"));
        profile::set(&mut s, "ipv4", "method", "disabled");
        assert!(!profile::configures_ip(&s, "ipv4"));
    }
}
