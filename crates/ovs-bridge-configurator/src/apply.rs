//! The effects: gather state, clean up leftovers, execute a plan inside a NetworkManager
//! checkpoint, verify through netlink, commit or roll back.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use selection::Snapshot;
use selection::atomic::{touch, write_atomic};
use selection::netlink::{ChangeStream, NetlinkReader};
use selection::runfiles::read_ip_file;
use zbus::zvariant::OwnedObjectPath;

use crate::nm::{ActiveState, Nm, NmError, Store};
use crate::ovsdb;
use crate::plan::{self, BR_EX, BR_EX1, Files, Plan, PlanError, is_ours};
use crate::probe;
use crate::profile::{self as p, ProfileView, Settings as NmSettings};
use crate::settings::Settings;

use crate::outcome::NotReady;
pub(crate) use crate::outcome::io;
pub use crate::outcome::{ApplyError, Outcome};
pub use crate::recover::cleanup;
use crate::recover::{reconnect, roll_back_abandoned};

/// How long to wait for a default route to appear when there is none (upstream: 12 x 5 s).
const DEFAULT_ROUTE_WAIT: Duration = Duration::from_secs(60);
/// How long the first global IPv6 address on the bridge may stay tentative (upstream: 60 tries).
const IPV6_USABLE_WAIT: Duration = Duration::from_secs(60);
/// How long a bond/team port may take to come up implicitly with its master.
const PORT_IMPLICIT_WAIT: Duration = Duration::from_secs(5);
/// How long the routes and addresses may take to settle on the bridge after activation.
const SETTLE_WAIT: Duration = Duration::from_secs(10);
/// Pause between two activation attempts of one profile (upstream: `sleep 5`).
const ACTIVATION_RETRY_WAIT: Duration = Duration::from_secs(5);

/// Everything the planner reads.
pub struct Gathered {
    pub profiles: Vec<(OwnedObjectPath, plan::Profile)>,
    pub devices: Vec<(OwnedObjectPath, plan::Device)>,
    pub snapshot: Snapshot,
    pub files: Files,
    /// The node IPs per family nodeip-selector wrote (`ipv4`, `ipv6`): on a dual-stack node
    /// kubelet gets both, so br-ex must carry both before the run ends.
    pub node_ips: Vec<IpAddr>,
}

impl Gathered {
    /// The plan for what was gathered; `new_uuid` names the profiles it creates.
    pub fn plan(&self, new_uuid: &mut dyn FnMut() -> String) -> Result<plan::Plan, PlanError> {
        let profiles = self.planner_profiles();
        let devices: Vec<plan::Device> = self.devices.iter().map(|(_, d)| d.clone()).collect();
        plan::plan(&profiles, &devices, &self.snapshot, &self.files, new_uuid)
    }

    /// The profiles without their D-Bus paths, as the pure planner takes them.
    fn planner_profiles(&self) -> Vec<plan::Profile> {
        self.profiles
            .iter()
            .map(|(_, x)| plan::Profile {
                settings: p::clone_settings(&x.settings),
                active: x.active,
            })
            .collect()
    }

    fn path_of(&self, id: &str) -> Option<&OwnedObjectPath> {
        self.profiles
            .iter()
            .find(|(_, x)| x.id() == id)
            .map(|(path, _)| path)
    }
}

fn read_text(path: &Path) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|t| t.trim_end_matches('\n').to_owned())
}

/// Reads NM, the kernel and the input files.
pub async fn gather(
    nm: &Nm,
    reader: &mut NetlinkReader,
    s: &Settings,
) -> Result<Gathered, ApplyError> {
    let devices: Vec<(OwnedObjectPath, plan::Device)> = nm
        .devices()
        .await?
        .into_iter()
        .map(|d| {
            (
                d.path,
                plan::Device {
                    interface: d.interface,
                    device_type: d.device_type,
                    active_uuid: d.active_uuid,
                },
            )
        })
        .collect();
    let active: Vec<&str> = devices
        .iter()
        .filter_map(|(_, d)| d.active_uuid.as_deref())
        .collect();
    let profiles = nm
        .profiles()
        .await?
        .into_iter()
        .map(|x| {
            let is_active = active.contains(&x.uuid().as_str());
            (
                x.path,
                plan::Profile {
                    settings: x.settings,
                    active: is_active,
                },
            )
        })
        .collect();
    let primary_ip = read_ip_file(&s.node_ip_files().primary_ip()).unwrap_or_else(|e| {
        tracing::warn!("ignoring {e}");
        None
    });
    let files = Files {
        default_bridge: std::fs::read_to_string(s.default_bridge()).ok(),
        primary_ip,
        hint: read_text(&s.hint()),
        extra_bridge: read_text(&s.extra_bridge())
            .and_then(|t| t.lines().next().map(str::to_owned)),
    };
    let ip_files = s.node_ip_files();
    let node_ips = [ip_files.ipv4(), ip_files.ipv6()]
        .iter()
        .filter_map(|f| read_ip_file(f).ok().flatten())
        .collect();
    Ok(Gathered {
        profiles,
        devices,
        snapshot: reader.snapshot().await?,
        files,
        node_ips,
    })
}

/// The automatic conversion (configure-ovs.sh's job), run by `apply` once no NMState file is
/// to be applied and none was.
pub async fn convert(s: &Settings) -> Result<Outcome, ApplyError> {
    touch(&s.executed_marker()).map_err(|e| io("touch", &s.executed_marker(), e))?;
    let nm = Nm::connect(s.dbus_timeout).await?;
    roll_back_abandoned(&nm, s.activation_timeout).await?;
    let mut changes = ChangeStream::subscribe(Duration::from_millis(20))?;
    let mut reader = NetlinkReader::connect()?;
    // The remembered interface became the extra bridge's: forget it and rebuild everything.
    if let (Some(hint), Some(extra)) = (read_text(&s.hint()), read_text(&s.extra_bridge()))
        && hint.trim() == extra.lines().next().unwrap_or_default().trim()
    {
        tracing::info!("the hint names the extra-bridge interface {hint}: full reconfiguration");
        let _ = std::fs::remove_file(s.hint());
        let _ = std::fs::remove_file(s.boot_marker());
    }
    if !s.boot_marker().exists() {
        seed_hint(&nm, s).await?;
        tracing::info!(
            "first run of this boot: removing a previous boot's bridge before rebuilding"
        );
        cleanup(&nm, s.activation_timeout).await?;
        touch(&s.boot_marker()).map_err(|e| io("touch", &s.boot_marker(), e))?;
    }
    let mut g = gather(&nm, &mut reader, s).await?;
    let deadline = Instant::now() + DEFAULT_ROUTE_WAIT;
    while Instant::now() < deadline {
        match plan::choose(&g.snapshot, &g.files)? {
            None => tracing::info!(
                "no node-IP interface and no default route yet; waiting for a network change"
            ),
            Some(c) => match (
                plan::awaited_node_ip(&g.files, &c),
                plan::awaited_hint(&g.snapshot, &g.files, &c),
            ) {
                (Some(ip), _) => tracing::info!(
                    "the node IP {ip} ({}) is on no interface yet ({} has a default route): \
                     waiting for it",
                    s.node_ip_files().primary_ip().display(),
                    c.interface
                ),
                (None, Some(hint)) => tracing::info!(
                    "{} has a default route, but br-ex was on {hint} ({}): waiting for {hint}'s \
                     default route",
                    c.interface,
                    s.hint().display()
                ),
                (None, None) => break,
            },
        }
        let _ = tokio::time::timeout(deadline - Instant::now(), changes.next()).await;
        g = gather(&nm, &mut reader, s).await?;
    }
    let choice = plan::choose(&g.snapshot, &g.files)?.ok_or(PlanError::NoInterface)?;
    if !plan::is_converted(&choice, &g.planner_profiles())
        && g.profiles.iter().any(|(_, x)| is_ours(&x.id()))
    {
        tracing::info!(
            "br-ex is not carrying the node IP: removing the previous attempt before proceeding"
        );
        cleanup(&nm, s.activation_timeout).await?;
        g = gather(&nm, &mut reader, s).await?;
    }
    let plan = g.plan(&mut || uuid::Uuid::new_v4().to_string())?;
    for w in plan.bridges.iter().flat_map(|b| &b.warnings) {
        tracing::warn!("{w}");
    }
    let nothing_to_do = plan.already_converted && plan.bridges.is_empty() && plan.remove.is_empty();
    let outcome = if nothing_to_do && all_active(&g, &plan) {
        tracing::info!(
            "br-ex already carries the node IP and every profile is active: nothing to do"
        );
        Outcome::AlreadyConverted
    } else {
        execute(&nm, s, &g, &plan, &mut changes, &mut reader).await?;
        Outcome::Converted {
            interface: plan.choice.interface.clone(),
        }
    };
    if let Outcome::Converted { interface } = &outcome
        && interface != BR_EX.bridge
    {
        // Decision: written on every conversion, also when the node IP chose the interface
        // (upstream only wrote it on the default-route path, so a node with primary-ip got it
        // on its second run of a boot, if ever). OVN-Kubernetes reads this file.
        write_atomic(&s.hint(), format!("{interface}\n").as_bytes(), 0o644)
            .map_err(|e| io("write", &s.hint(), e))?;
    }
    tracing::info!("D-Bus calls: {}", nm.calls());
    Ok(outcome)
}

/// Without a hint file (a node converted by a version that did not write it), the previous
/// boot's `ovs-if-phys0` still names the NIC br-ex was on: remember it before the clean-up
/// removes the profile, so br-ex does not move to another NIC with a default route.
async fn seed_hint(nm: &Nm, s: &Settings) -> Result<(), ApplyError> {
    if s.hint().exists() {
        return Ok(());
    }
    let phys = BR_EX.uplink_profile();
    let Some(nic) = nm
        .profiles()
        .await?
        .iter()
        .filter(|x| x.id() == phys)
        .find_map(|x| x.interface())
    else {
        return Ok(());
    };
    tracing::info!(
        "no {}: seeding it with {nic}, the NIC of the previous boot's {phys}",
        s.hint().display()
    );
    write_atomic(&s.hint(), format!("{nic}\n").as_bytes(), 0o644)
        .map_err(|e| io("write", &s.hint(), e))
}

fn all_active(g: &Gathered, plan: &Plan) -> bool {
    plan.activate
        .iter()
        .all(|id| g.profiles.iter().any(|(_, x)| x.id() == *id && x.active))
}

/// Runs the plan inside a checkpoint; on any failure (or SIGTERM) rolls back, removes what was
/// added and keeps a copy of the generated profiles for troubleshooting.
async fn execute(
    nm: &Nm,
    s: &Settings,
    g: &Gathered,
    plan: &Plan,
    changes: &mut ChangeStream,
    reader: &mut NetlinkReader,
) -> Result<(), ApplyError> {
    let selected = probe::select(&probe::Targets::at_boot(s), &g.snapshot).await;
    let cp = nm.checkpoint_create(&[], s.checkpoint_timeout).await?;
    let mut added: BTreeMap<String, (OwnedObjectPath, NmSettings)> = BTreeMap::new();
    let result = tokio::select! {
        r = async {
            steps(nm, s, g, plan, &mut added, changes, reader).await?;
            // Ready means forwarding: an active bond or VLAN is not yet one that carries traffic.
            probe::await_after(reader, &selected, Instant::now(), s.forwarding_timeout).await?;
            Ok(())
        } => r,
        e = keep_checkpoint(nm, &cp, s.checkpoint_timeout) => Err(e),
        e = terminated() => Err(e),
    };
    match result {
        Ok(()) => {
            nm.checkpoint_destroy(&cp)
                .await
                .map_err(ApplyError::Uncommitted)?;
            for b in &plan.bridges {
                if let Err(e) = crate::nic::vmxnet3_allmulticast(&b.interface).await {
                    tracing::warn!("{e}");
                }
            }
            if s.persist {
                for (path, settings) in added.values() {
                    nm.update(path, settings, Store::Disk).await?;
                }
            }
            Ok(())
        }
        Err(e) => {
            tracing::error!("{e}; rolling back to the previous network configuration");
            crate::troubleshoot::dump_profiles(s, plan);
            crate::troubleshoot::log_state(
                nm,
                reader,
                !matches!(&e, ApplyError::Checkpoint(c) if c.is_unanswered()),
            )
            .await;
            if let Err(r) = nm.checkpoint_rollback(&cp).await {
                tracing::error!("checkpoint rollback failed: {r}");
                if r.is_unanswered() {
                    // Every further call would wait as long again. The checkpoint was last
                    // extended at most one timeout ago: NetworkManager restores the previous
                    // network by itself once it runs again and that timeout has passed.
                    tracing::error!(
                        "NetworkManager is not answering: it rolls back by itself within {}s of \
                         running again",
                        s.checkpoint_timeout.as_secs()
                    );
                    return Err(e);
                }
            }
            if nm.follow_restart().await {
                tracing::warn!(
                    "NetworkManager was restarted during the apply and its checkpoint is gone: \
                     removing this run's profiles by UUID and reconnecting the uplink"
                );
            }
            for (id, (_, settings)) in &added {
                // DELETE_NEW_CONNECTIONS already removed them; this covers a rollback that could
                // not run (NetworkManager restarted and lost the checkpoint).
                if nm.delete_uuid(&p::uuid(settings)).await.unwrap_or(false) {
                    tracing::info!("removed {id}");
                }
            }
            for b in &plan.bridges {
                if let Err(o) = ovsdb::delete_bridge(b.names.bridge) {
                    tracing::error!("{o}");
                }
            }
            let uplinks: Vec<String> = plan.bridges.iter().map(|b| b.interface.clone()).collect();
            reconnect(nm, &uplinks, s.activation_timeout).await;
            Err(e)
        }
    }
}

/// Pushes the checkpoint's automatic rollback `timeout` ahead every third of it, for as long as
/// the apply runs: NetworkManager then rolls back only when this process is gone or it cannot
/// reach NetworkManager, never because a slow link made the work outlast a fixed budget.
async fn keep_checkpoint(nm: &Nm, cp: &OwnedObjectPath, timeout: Duration) -> ApplyError {
    loop {
        tokio::time::sleep(timeout / 3).await;
        if let Err(e) = nm.checkpoint_extend(cp, timeout).await {
            return ApplyError::Checkpoint(e);
        }
        tracing::debug!(
            "checkpoint rollback moved to {}s from now",
            timeout.as_secs()
        );
    }
}

/// SIGTERM (systemd's stop) or SIGINT (Ctrl-C by hand): both end the run with a rollback.
async fn terminated() -> ApplyError {
    use tokio::signal::unix::{SignalKind, signal};
    match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(mut term), Ok(mut int)) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            ApplyError::Terminated
        }
        (Err(e), _) | (_, Err(e)) => ApplyError::Signal(e),
    }
}

async fn steps(
    nm: &Nm,
    s: &Settings,
    g: &Gathered,
    plan: &Plan,
    added: &mut BTreeMap<String, (OwnedObjectPath, NmSettings)>,
    changes: &mut ChangeStream,
    reader: &mut NetlinkReader,
) -> Result<(), ApplyError> {
    if !plan.remove.is_empty() {
        let mut uplinks = Vec::new();
        for uuid in &plan.remove {
            let Some((path, x)) = g.profiles.iter().find(|(_, x)| x.uuid() == *uuid) else {
                continue;
            };
            tracing::info!("removing {} (no extra bridge configured any more)", x.id());
            if x.id() == BR_EX1.uplink_profile() {
                uplinks.extend(x.interface());
            }
            nm.delete(path).await?;
        }
        ovsdb::delete_bridge(BR_EX1.bridge)?;
        reconnect(nm, &uplinks, s.activation_timeout).await;
    }
    for settings in plan.bridges.iter().flat_map(|b| &b.add) {
        let path = nm.add(settings).await?;
        added.insert(p::id(settings), (path, p::clone_settings(settings)));
    }
    let to_activate: BTreeMap<&String, (OwnedObjectPath, NmSettings)> = plan
        .activate
        .iter()
        .filter_map(|id| {
            let path = added
                .get(id)
                .map(|(path, _)| path.clone())
                .or_else(|| g.path_of(id).cloned())?;
            let settings = match added.get(id) {
                Some((_, s)) => p::clone_settings(s),
                None => g
                    .profiles
                    .iter()
                    .find(|(_, x)| x.id() == *id)
                    .map(|(_, x)| p::clone_settings(&x.settings))
                    .unwrap_or_default(),
            };
            Some((id, (path, settings)))
        })
        .collect();
    let order: Vec<String> = plan
        .activate
        .iter()
        .filter(|id| to_activate.contains_key(id))
        .cloned()
        .collect();
    let port = |id: &str| {
        to_activate
            .get(&id.to_owned())
            .is_some_and(|(_, s)| is_port(s))
    };
    let mut ports_up: BTreeMap<String, usize> = BTreeMap::new();
    let mut port_masters: Vec<String> = Vec::new();
    for step in plan::activation_steps(&order, port) {
        match step {
            plan::Step::PreparePort(id) => {
                let (path, settings) = &to_activate[&id];
                if let Some(iface) = p::interface(settings) {
                    crate::bond::wait_lacp(&iface).await;
                }
                autoconnect(nm, path, &id, settings, added).await?;
            }
            plan::Step::Activate { id, port } => {
                let (path, settings) = &to_activate[&id];
                let uuid = p::uuid(settings);
                let master = p::master(settings).unwrap_or_default();
                if port {
                    if !port_masters.contains(&master) {
                        port_masters.push(master.clone());
                    }
                    // A chance to come up implicitly with the master before being activated
                    // explicitly (the fail_over_mac=follow race).
                    wait_implicit(nm, &uuid, PORT_IMPLICIT_WAIT).await?;
                }
                match (activate(nm, path, &uuid, &id, s).await, port) {
                    (Ok(()), true) => *ports_up.entry(master).or_default() += 1,
                    (Ok(()), false) => {}
                    // A bond survives with one port up (OCPBUGS-1503).
                    (Err(e), true) => tracing::warn!("port {id} did not come up: {e}"),
                    (Err(e), false) => return Err(e.into()),
                }
                // Switched on once active, so NM brings it back by itself later (activation
                // list only).
                if !port {
                    autoconnect(nm, path, &id, settings, added).await?;
                }
            }
        }
    }
    if let Some(m) = port_masters
        .iter()
        .find(|m| ports_up.get(*m).copied().unwrap_or(0) == 0)
    {
        return Err(NotReady::NoPort(m.clone()).into());
    }
    verify(plan, g, changes, reader).await
}

fn is_port(settings: &NmSettings) -> bool {
    matches!(
        p::get_str(settings, "connection", "slave-type").as_deref(),
        Some("bond" | "team")
    )
}

/// Sets `connection.autoconnect=yes` on profile `id` (in memory; persisted after the commit).
async fn autoconnect(
    nm: &Nm,
    path: &OwnedObjectPath,
    id: &str,
    settings: &NmSettings,
    added: &mut BTreeMap<String, (OwnedObjectPath, NmSettings)>,
) -> Result<(), NmError> {
    let mut on = p::clone_settings(settings);
    p::set(&mut on, "connection", "autoconnect", true);
    nm.update(path, &on, Store::Memory).await?;
    if let Some(a) = added.get_mut(id) {
        a.1 = on;
    }
    Ok(())
}

/// Activates profile `id` with upstream's persistence: up to `activation-attempts` attempts
/// (10), 5 s apart, each waiting up to `activation-timeout-secs`. A NetworkManager that does not
/// answer at all is not retried: every further call would wait as long again.
pub(crate) async fn activate(
    nm: &Nm,
    path: &OwnedObjectPath,
    uuid: &str,
    id: &str,
    s: &Settings,
) -> Result<(), NmError> {
    let mut attempt = 1;
    loop {
        match activate_once(nm, path, uuid, id, s.activation_timeout).await {
            Ok(()) => return Ok(()),
            Err(e) if e.is_unanswered() => return Err(e),
            Err(e) if attempt >= s.activation_attempts => {
                return Err(NmError::GaveUp {
                    id: id.into(),
                    attempts: attempt,
                    last: Box::new(e),
                });
            }
            Err(e) => {
                tracing::warn!(
                    "{id}: attempt {attempt} of {} failed ({e}); trying again in {}s",
                    s.activation_attempts,
                    ACTIVATION_RETRY_WAIT.as_secs()
                );
                tokio::time::sleep(ACTIVATION_RETRY_WAIT).await;
                attempt += 1;
            }
        }
    }
}

/// Waits up to `limit` for profile `uuid` to be activated by NM on its own.
async fn wait_implicit(nm: &Nm, uuid: &str, limit: Duration) -> Result<(), NmError> {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if nm.is_activated(uuid).await? {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

async fn activate_once(
    nm: &Nm,
    path: &OwnedObjectPath,
    uuid: &str,
    id: &str,
    timeout: Duration,
) -> Result<(), NmError> {
    // Activating br-ex brings up its ports and the physical interface (autoconnect-slaves):
    // wait for those instead of activating them a second time.
    match nm
        .active_connections()
        .await?
        .into_iter()
        .find(|a| a.uuid == uuid)
    {
        Some(a) if a.state == ActiveState::Activated => {
            tracing::debug!("{id} already activated");
            Ok(())
        }
        Some(a) => nm.wait_active(&a.path, id, timeout).await,
        None => nm.activate(path, id, timeout).await,
    }
}

/// The bridge carries the node IP and the default route with our metric (or, as upstream
/// accepts, with the metric a static default route of the uplink had), and its first global
/// IPv6 address is usable; waits for the kernel state through netlink events.
async fn verify(
    plan: &Plan,
    g: &Gathered,
    changes: &mut ChangeStream,
    reader: &mut NetlinkReader,
) -> Result<(), ApplyError> {
    for b in &plan.bridges {
        let before = &g.snapshot;
        let uplink = before
            .links
            .iter()
            .find(|l| l.name == b.interface)
            .map(|l| l.index);
        let mut expected: Vec<IpAddr> = match g.files.primary_ip {
            Some(ip)
                if before
                    .addresses
                    .iter()
                    .any(|a| a.ip == ip && Some(a.ifindex) == uplink) =>
            {
                vec![ip]
            }
            _ => before
                .addresses
                .iter()
                .filter(|a| Some(a.ifindex) == uplink && a.ip.is_ipv4())
                .map(|a| a.ip)
                .collect(),
        };
        // The other family's node IP too, when the uplink had it (dual stack): NetworkManager may
        // add it to br-ex a moment after the first family, and kubelet must not start before.
        for ip in &g.node_ips {
            let on_uplink = before
                .addresses
                .iter()
                .any(|a| a.ip == *ip && Some(a.ifindex) == uplink);
            if on_uplink && !expected.contains(ip) {
                expected.push(*ip);
            }
        }
        // The bridge's metric, and the uplink's own default-route metrics: a route the profile
        // lists with an explicit metric keeps it on the bridge.
        let mut metrics: Vec<u32> = before
            .main_routes()
            .filter(|r| r.is_default() && r.oif == uplink && uplink.is_some())
            .map(|r| r.metric)
            .collect();
        let had_default = !metrics.is_empty();
        let bridge = b.names.bridge;
        let metric = b.names.metric;
        metrics.push(metric);
        let ok = |snap: &Snapshot| -> Result<(), NotReady> {
            let Some(idx) = snap
                .links
                .iter()
                .find(|l| l.name == bridge)
                .map(|l| l.index)
            else {
                return Err(NotReady::NoBridge { bridge });
            };
            for ip in &expected {
                if !snap
                    .addresses
                    .iter()
                    .any(|a| a.ip == *ip && a.ifindex == idx)
                {
                    return Err(NotReady::NoAddress { ip: *ip, bridge });
                }
            }
            if had_default
                && !snap
                    .main_routes()
                    .any(|r| r.is_default() && r.oif == Some(idx) && metrics.contains(&r.metric))
            {
                return Err(NotReady::NoDefaultRoute { bridge, metric });
            }
            let tentative = snap
                .addresses
                .iter()
                .find(|a| {
                    a.ifindex == idx
                        && a.ip.is_ipv6()
                        && !selection::net::is_link_local_unicast(a.ip)
                })
                .is_some_and(|a| a.is_tentative() || a.is_dadfailed());
            if tentative {
                return Err(NotReady::Ipv6Tentative { bridge });
            }
            Ok(())
        };
        let limit = if g.snapshot.addresses.iter().any(|a| a.ip.is_ipv6()) {
            IPV6_USABLE_WAIT
        } else {
            SETTLE_WAIT
        };
        let deadline = Instant::now() + limit;
        loop {
            let snap = reader.snapshot().await?;
            match ok(&snap) {
                Ok(()) => break,
                Err(why) if Instant::now() >= deadline => return Err(why.into()),
                Err(why) => {
                    tracing::debug!("waiting: {why}");
                    let _ = tokio::time::timeout(deadline - Instant::now(), changes.next()).await;
                }
            }
        }
    }
    Ok(())
}
