//! The plan carried out inside a NetworkManager checkpoint: profiles added and activated in
//! order, the dead man's switch kept, a failure or SIGTERM rolled back.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use selection::netlink::{ChangeStream, NetlinkReader};
use zbus::zvariant::OwnedObjectPath;

use crate::automatic::error::ConvertError;
use crate::automatic::error::NotReady;
use crate::automatic::gather::Gathered;
use crate::automatic::plan::{self, Plan};
use crate::automatic::verify::bridge_carries_node_ip;
use crate::br_ex::BR_EX1;

use crate::nm::keep_alive::{Kept, keep_alive};
use crate::nm::profile::{self as p, ProfileView, Settings as NmSettings};
use crate::nm::setting::{Connection, Setting};
use crate::nm::{ActiveState, Nm, NmError, Store};
use crate::ovsdb;
use crate::probe;
use crate::recover::reconnect;
use crate::settings::Settings;

/// How long a bond/team port may take to come up implicitly with its master.
const PORT_IMPLICIT_WAIT: Duration = Duration::from_secs(5);
/// Pause between two activation attempts of one profile (upstream: `sleep 5`).
const ACTIVATION_RETRY_WAIT: Duration = Duration::from_secs(5);

/// What carrying out a plan takes from the settings.
pub(crate) struct Terms {
    /// NetworkManager rolls back by itself when the run does not commit within this; kept
    /// moving ahead while the plan runs.
    checkpoint: Duration,
    /// The probes to pass after the change (those that passed before it), within `forwarding`.
    probes: probe::Targets,
    forwarding: Duration,
    activation: Activation,
    /// The added profiles are written to disk once committed.
    persist: bool,
    /// Where the generated profiles are copied when the run fails.
    troubleshooting_dir: PathBuf,
}

impl Terms {
    /// At boot: the boot's probes (kubelet is not running, so no node readiness).
    pub(crate) fn from_settings(s: &Settings) -> Terms {
        Terms {
            checkpoint: s.checkpoint_timeout,
            probes: probe::Targets::at_boot(s),
            forwarding: s.forwarding_timeout,
            activation: Activation {
                timeout: s.activation_timeout,
                attempts: s.activation_attempts,
            },
            persist: s.persist,
            troubleshooting_dir: s.troubleshooting_dir.clone(),
        }
    }
}

/// How one profile is activated: up to `attempts` attempts, each waiting up to `timeout`.
#[derive(Clone, Copy)]
struct Activation {
    timeout: Duration,
    attempts: u32,
}

/// The profiles this run added, by id: their D-Bus paths and the settings last written.
type Added = BTreeMap<String, (OwnedObjectPath, NmSettings)>;

/// Runs the plan inside a checkpoint; on any failure (or SIGTERM) rolls back, removes what was
/// added and keeps a copy of the generated profiles for troubleshooting.
pub(crate) async fn execute(
    nm: &Nm,
    terms: &Terms,
    g: &Gathered,
    plan: &Plan,
    changes: &mut ChangeStream,
    reader: &mut NetlinkReader,
) -> Result<(), ConvertError> {
    let selected = probe::select(&terms.probes, &g.snapshot).await;
    let cp = nm.checkpoint_create(&[], terms.checkpoint).await?;
    let mut added = Added::new();
    let result = tokio::select! {
        r = async {
            steps(nm, terms.activation, g, plan, &mut added, changes, reader).await?;
            // Ready means forwarding: an active bond or VLAN is not yet one that carries traffic.
            probe::await_after(reader, &selected, Instant::now(), terms.forwarding).await?;
            Ok(())
        } => r,
        e = keep_alive(nm, Kept::Own(&cp), terms.checkpoint) => Err(ConvertError::Checkpoint(e)),
        e = terminated() => Err(e),
    };
    match result {
        Ok(()) => commit(nm, terms.persist, plan, &cp, &added).await,
        Err(e) => {
            roll_back(nm, terms, plan, &cp, &added, reader, &e).await;
            Err(e)
        }
    }
}

/// After success: destroys the checkpoint (keeping the change), tunes vmxnet3 uplinks and, when
/// asked to persist, writes the added profiles to disk.
async fn commit(
    nm: &Nm,
    persist: bool,
    plan: &Plan,
    cp: &OwnedObjectPath,
    added: &Added,
) -> Result<(), ConvertError> {
    nm.checkpoint_destroy(cp)
        .await
        .map_err(ConvertError::Uncommitted)?;
    for b in &plan.bridges {
        if let Err(e) = crate::automatic::nic::vmxnet3_allmulticast(&b.interface).await {
            tracing::warn!("{e}");
        }
    }
    if persist {
        for (path, settings) in added.values() {
            nm.update(path, settings, Store::Disk).await?;
        }
    }
    Ok(())
}

/// After failure `e`: leaves the evidence, rolls the checkpoint back and removes whatever of
/// this run survived it, then reconnects the uplinks.
async fn roll_back(
    nm: &Nm,
    terms: &Terms,
    plan: &Plan,
    cp: &OwnedObjectPath,
    added: &Added,
    reader: &mut NetlinkReader,
    e: &ConvertError,
) {
    tracing::error!("{e}; rolling back to the previous network configuration");
    crate::automatic::troubleshoot::dump_profiles(&terms.troubleshooting_dir, plan);
    crate::automatic::troubleshoot::log_state(
        nm,
        reader,
        !matches!(e, ConvertError::Checkpoint(c) if c.is_unanswered()),
    )
    .await;
    if !rollback_checkpoint(nm, terms.checkpoint, cp).await {
        return;
    }
    if nm.follow_restart().await {
        tracing::warn!(
            "NetworkManager was restarted during the apply and its checkpoint is gone: \
             removing this run's profiles by UUID and reconnecting the uplink"
        );
    }
    remove_what_was_added(nm, plan, added).await;
    let uplinks: Vec<String> = plan.bridges.iter().map(|b| b.interface.clone()).collect();
    reconnect(nm, &uplinks, terms.activation.timeout).await;
}

/// Rolls the checkpoint (whose rollback timeout is `timeout`) back; false when NetworkManager
/// does not answer, so that nothing more is asked of it.
async fn rollback_checkpoint(nm: &Nm, timeout: Duration, cp: &OwnedObjectPath) -> bool {
    let Err(r) = nm.checkpoint_rollback(cp).await else {
        return true;
    };
    tracing::error!("checkpoint rollback failed: {r}");
    if !r.is_unanswered() {
        return true;
    }
    // Every further call would wait as long again. The checkpoint was last extended at most one
    // timeout ago: NetworkManager restores the previous network by itself once it runs again and
    // that timeout has passed.
    tracing::error!(
        "NetworkManager is not answering: it rolls back by itself within {}s of running again",
        timeout.as_secs()
    );
    false
}

/// Removes this run's profiles and OVS bridges that the rollback left behind.
async fn remove_what_was_added(nm: &Nm, plan: &Plan, added: &Added) {
    for (id, (_, settings)) in added {
        // DELETE_NEW_CONNECTIONS already removed them; this covers a rollback that could not
        // run (NetworkManager restarted and lost the checkpoint).
        if nm.delete_uuid(&p::uuid(settings)).await.unwrap_or(false) {
            tracing::info!("removed {id}");
        }
    }
    for b in &plan.bridges {
        if let Err(o) = ovsdb::delete_bridge(b.names.bridge) {
            tracing::error!("{o}");
        }
    }
}

/// SIGTERM (systemd's stop) or SIGINT (Ctrl-C by hand): both end the run with a rollback.
async fn terminated() -> ConvertError {
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
            ConvertError::Terminated
        }
        (Err(e), _) | (_, Err(e)) => ConvertError::Signal(e),
    }
}

/// The profiles to activate, by id, in the plan's order: the ones this run added and those
/// that already existed.
type ToActivate<'a> = BTreeMap<&'a String, (OwnedObjectPath, NmSettings)>;

/// The plan's changes, in order: the dropped extra bridge removed, the new profiles added, all
/// activated, then the bridge checked in the kernel.
async fn steps(
    nm: &Nm,
    activation: Activation,
    g: &Gathered,
    plan: &Plan,
    added: &mut Added,
    changes: &mut ChangeStream,
    reader: &mut NetlinkReader,
) -> Result<(), ConvertError> {
    if !plan.remove.is_empty() {
        remove_extra_bridge(nm, activation.timeout, g, plan).await?;
    }
    for settings in plan.bridges.iter().flat_map(|b| &b.add) {
        let path = nm.add(settings).await?;
        added.insert(p::id(settings), (path, p::clone_settings(settings)));
    }
    let to_activate = to_activate(g, plan, added);
    activate_all(nm, activation, plan, &to_activate, added).await?;
    bridge_carries_node_ip(plan, g, changes, reader).await
}

/// Deletes the extra bridge's profiles and OVS bridge (its file went away) and reconnects the
/// interface it was on, waiting up to `activation` for it.
async fn remove_extra_bridge(
    nm: &Nm,
    activation: Duration,
    g: &Gathered,
    plan: &Plan,
) -> Result<(), ConvertError> {
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
    reconnect(nm, &uplinks, activation).await;
    Ok(())
}

/// The plan's activation list resolved to paths and settings; ids that name no profile are
/// left out.
fn to_activate<'a>(g: &Gathered, plan: &'a Plan, added: &Added) -> ToActivate<'a> {
    plan.activate
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
        .collect()
}

/// Runs the activation steps in the plan's order; fails when a profile that is no bond/team
/// port does not come up, or when a bond or team got none of its ports up.
async fn activate_all(
    nm: &Nm,
    activation: Activation,
    plan: &Plan,
    to_activate: &ToActivate<'_>,
    added: &mut Added,
) -> Result<(), ConvertError> {
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
    let mut ports = PortsUp::default();
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
                activate_step(
                    nm,
                    activation,
                    (path, settings),
                    &id,
                    port,
                    added,
                    &mut ports,
                )
                .await?;
            }
        }
    }
    match ports.master_without_port() {
        Some(m) => Err(NotReady::NoPort(m.clone()).into()),
        None => Ok(()),
    }
}

/// Pass 2 for profile `id`: activates it (a bond/team port after a chance to come up with its
/// master, and counted in `ports`), then switches autoconnect on for a profile that is no port.
async fn activate_step(
    nm: &Nm,
    activation: Activation,
    (path, settings): (&OwnedObjectPath, &NmSettings),
    id: &str,
    port: bool,
    added: &mut Added,
    ports: &mut PortsUp,
) -> Result<(), ConvertError> {
    let uuid = p::uuid(settings);
    let master = p::master(settings).unwrap_or_default();
    if port {
        ports.expect(&master);
        // A chance to come up implicitly with the master before being activated explicitly
        // (the fail_over_mac=follow race).
        wait_implicit(nm, &uuid, PORT_IMPLICIT_WAIT).await?;
    }
    match (activate(nm, path, &uuid, id, activation).await, port) {
        (Ok(()), true) => ports.up(master),
        (Ok(()), false) => {}
        // A bond survives with one port up.
        (Err(e), true) => tracing::warn!("port {id} did not come up: {e}"),
        (Err(e), false) => return Err(e.into()),
    }
    // Switched on once active, so NM brings it back by itself later (activation list only).
    if !port {
        autoconnect(nm, path, id, settings, added).await?;
    }
    Ok(())
}

/// The bond/team masters whose ports were activated, in order, and how many came up for each.
#[derive(Default)]
struct PortsUp {
    masters: Vec<String>,
    up: BTreeMap<String, usize>,
}

impl PortsUp {
    /// A port of `master` is about to be activated.
    fn expect(&mut self, master: &str) {
        if !self.masters.iter().any(|m| m == master) {
            self.masters.push(master.to_owned());
        }
    }

    /// A port of `master` came up.
    fn up(&mut self, master: String) {
        *self.up.entry(master).or_default() += 1;
    }

    /// The first master none of whose ports came up.
    fn master_without_port(&self) -> Option<&String> {
        self.masters
            .iter()
            .find(|m| self.up.get(*m).copied().unwrap_or(0) == 0)
    }
}

fn is_port(settings: &NmSettings) -> bool {
    matches!(
        Connection::of(settings).slave_type.as_deref(),
        Some("bond" | "team")
    )
}

/// Sets `connection.autoconnect=yes` on profile `id` (in memory; persisted after the commit).
async fn autoconnect(
    nm: &Nm,
    path: &OwnedObjectPath,
    id: &str,
    settings: &NmSettings,
    added: &mut Added,
) -> Result<(), NmError> {
    let mut on = p::clone_settings(settings);
    Connection {
        autoconnect: Some(true),
        ..Connection::default()
    }
    .write(&mut on);
    nm.update(path, &on, Store::Memory).await?;
    if let Some(a) = added.get_mut(id) {
        a.1 = on;
    }
    Ok(())
}

/// Activates profile `id` with upstream's persistence: up to `activation-attempts` attempts
/// (10), 5 s apart, each waiting up to `activation-timeout-secs`. A NetworkManager that does not
/// answer at all is not retried: every further call would wait as long again.
async fn activate(
    nm: &Nm,
    path: &OwnedObjectPath,
    uuid: &str,
    id: &str,
    activation: Activation,
) -> Result<(), NmError> {
    let mut attempt = 1;
    loop {
        match activate_once(nm, path, uuid, id, activation.timeout).await {
            Ok(()) => return Ok(()),
            Err(e) if e.is_unanswered() => return Err(e),
            Err(e) if attempt >= activation.attempts => {
                return Err(NmError::GaveUp {
                    id: id.into(),
                    attempts: attempt,
                    last: Box::new(e),
                });
            }
            Err(e) => {
                tracing::warn!(
                    "{id}: attempt {attempt} of {} failed ({e}); trying again in {}s",
                    activation.attempts,
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
