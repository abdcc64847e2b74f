//! The declarative mode (upstream nmstate-configuration.sh + nmstate.service): the user's
//! NMState file defines br-ex; it is applied by the NMState [`engine`] (one checkpoint,
//! verification, rollback on failure) and recorded in `applied`.
//!
//! Everything happens inside that one checkpoint: the file is applied over whatever bridge the
//! node has (the automatic one included; NetworkManager refuses a second checkpoint over the same
//! devices, so the clean-up cannot come first in a checkpoint of its own), then, still
//! uncommitted, the automatic mode's leftovers are removed, br-ex must carry the node IP and the
//! probes that passed before must pass again (`probe`). Any failure rolls the node back to the
//! bridge it had.

use std::path::{Path, PathBuf};
use std::time::Duration;

use selection::atomic::write_atomic;
use selection::netlink::NetlinkReader;
use zbus::zvariant::OwnedObjectPath;

use crate::br_ex::{BR_EX, BR_EX1, is_ours};
use crate::engine::change::{ChangeFailed, Failed, Lasting};
use crate::nm::profile::ProfileView;
use crate::nm::{ActiveState, Nm};
use crate::nmstate::DeclarativeError;
use crate::nmstate::checks::{self, CheckFailed, Checks};
use crate::nmstate::rolled_back::{self, Subject};
use crate::outcome::Outcome;
use crate::ovsdb;
use crate::probe;
use crate::recover::{reconnect, roll_back_abandoned, settle};
use crate::settings::Settings;

const HOST_FILE: Subject = Subject::HostFile;

/// A pending NMState file.
#[derive(Debug, PartialEq, Eq)]
pub struct Pending {
    pub path: PathBuf,
    pub content: String,
}

/// The short host name (`hostname -s`).
fn short_hostname() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    name.trim().split('.').next().unwrap_or_default().to_owned()
}

fn non_empty(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok().filter(|t| !t.is_empty())
}

/// The files looked for, in order: `<short hostname>.yml`, then `cluster.yml`.
pub fn candidates(s: &Settings) -> [PathBuf; 2] {
    let dir = s.nmstate_dir();
    [
        dir.join(format!("{}.yml", short_hostname())),
        dir.join("cluster.yml"),
    ]
}

/// The [`candidates`], for messages: `A, B`.
pub fn candidates_shown(s: &Settings) -> String {
    let shown: Vec<String> = candidates(s)
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    shown.join(", ")
}

/// `<short hostname>.yml`, else `cluster.yml` (non-empty), unless `applied` already holds
/// exactly that content.
pub fn pending(s: &Settings) -> Option<Pending> {
    let dir = s.nmstate_dir();
    tracing::debug!("NMState files looked for: {}", candidates_shown(s));
    let path = candidates(s).into_iter().find(|p| non_empty(p).is_some())?;
    let content = non_empty(&path)?;
    let applied = std::fs::read_to_string(dir.join("applied")).ok();
    (applied.as_deref() != Some(content.as_str())).then_some(Pending { path, content })
}

/// Parses `p`: a malformed file is rejected before anything changes.
pub fn parse(p: &Pending) -> Result<nmstate::NetworkState, DeclarativeError> {
    crate::engine::desired::parse(&p.content).map_err(|message| DeclarativeError::Invalid {
        path: p.path.display().to_string(),
        message,
    })
}

/// Applies `p` (parsed as `state`) with the NMState [`engine`], `clean_up` (removing the
/// automatic bridge's leftovers) and `checks` run before committing, and records the file. A
/// failure anywhere rolls back.
pub async fn apply_file<F>(
    s: &Settings,
    nm: &Nm,
    checkpoint_timeout: Duration,
    p: &Pending,
    state: nmstate::NetworkState,
    checks: Checks<'_>,
    clean_up: F,
) -> Result<(), DeclarativeError>
where
    F: AsyncFnOnce() -> Result<(), CheckFailed>,
{
    let path = p.path.display().to_string();
    checks::apply_checked(
        s,
        nm,
        state,
        checkpoint_timeout,
        Lasting::Persistent,
        checks,
        clean_up,
    )
    .await
    .map_err(|e| match e {
        Failed::Change(ChangeFailed::Unsupported(source)) => {
            DeclarativeError::Unsupported { path, source }
        }
        Failed::Change(source) => DeclarativeError::Apply { path, source },
        Failed::Check(source) => DeclarativeError::Unusable { path, source },
    })?;
    // As upstream: the file is copied into /etc/nmstate (nmstate.service re-applies it on
    // later boots) and to `applied`, a copy of the content other tools compare against.
    let base = p
        .path
        .file_name()
        .map(PathBuf::from)
        .unwrap_or_else(|| "cluster.yml".into());
    let copy = s.etc_dir.join("nmstate").join(base);
    for target in [copy, s.nmstate_dir().join("applied")] {
        write_atomic(&target, p.content.as_bytes(), 0o644).map_err(|error| {
            DeclarativeError::Write {
                path: target.clone(),
                error,
            }
        })?;
    }
    Ok(())
}

/// When a pending file is applied: it decides the probes, their bound and the checkpoint's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    /// By the boot-time units, before kubelet: the boot's probes within
    /// `forwarding-timeout-secs` (a new 802.3ad bond may need seconds to forward).
    Boot,
    /// On a running node, once MCO changed the file (`apply-nmstate --live`, which MCO's daemon
    /// restarts nmstate-configuration-live.service for): the live probes, node readiness included, within
    /// `live-probe-timeout-secs`, as `apply-live`.
    Running,
}

impl Moment {
    /// The probes, their bound, and the checkpoint's timeout (how long after a crash
    /// NetworkManager rolls back: short on a running node, as `apply-live`).
    pub(crate) fn probes(self, s: &Settings) -> (probe::Targets, Duration, Duration) {
        match self {
            Moment::Boot => (
                probe::Targets::at_boot(s),
                s.forwarding_timeout,
                s.checkpoint_timeout,
            ),
            Moment::Running => (
                probe::Targets::live(s),
                s.live_probe_timeout,
                s.live_checkpoint_timeout,
            ),
        }
    }

    /// How long the change itself may take: on a running node the live deadline; at boot, as
    /// long as NetworkManager's activations take (the boot's own retries bound it).
    pub(crate) fn deadline(self, s: &Settings) -> Option<Duration> {
        match self {
            Moment::Boot => None,
            Moment::Running => Some(s.live_change_timeout),
        }
    }
}

/// Applies the user's NMState file when one is pending.
pub async fn apply_pending(s: &Settings, at: Moment) -> Result<Option<Outcome>, DeclarativeError> {
    let Some(pending) = pending(s) else {
        return Ok(None);
    };
    if at == Moment::Running
        && let Some(earlier) = rolled_back::earlier(s, HOST_FILE, &pending.path, &pending.content)
    {
        return Err(DeclarativeError::AlreadyRolledBack {
            path: earlier.path,
            at: earlier.at,
            why: earlier.why,
            record: rolled_back::record(s, HOST_FILE),
        });
    }
    tracing::info!("applying the NMState file {}", pending.path.display());
    let (targets, bound, checkpoint) = at.probes(s);
    let state = parse(&pending)?;
    // nmstate's OVS plugin needs OVSDB: say why now rather than as a plugin failure mid-apply.
    ovsdb::check_access()?;
    let nm = Nm::connect(s.dbus_timeout).await?;
    roll_back_abandoned(&nm, s.activation_timeout).await?;
    let defines_br_ex1 = state
        .interfaces
        .to_vec()
        .iter()
        .any(|i| i.name() == BR_EX1.bridge);
    let before = active_bridge_profiles(&nm).await?;
    let mut reader = NetlinkReader::connect()?;
    let now = reader.snapshot().await?;
    let checks = Checks {
        targets,
        bound,
        deadline: at.deadline(s),
        before: &now,
        reader: &mut reader,
    };
    let clean_up = async || -> Result<(), CheckFailed> {
        remove_leftovers(&nm, s, defines_br_ex1)
            .await
            .map_err(|e| CheckFailed::Leftovers(Box::new(e)))
    };
    if let Err(e) = apply_file(s, &nm, checkpoint, &pending, state, checks, clean_up).await {
        tracing::error!("{e}");
        restore_bridges(&nm, &before, s).await;
        if at == Moment::Running
            && let Some(why) = why_rolled_back(&e)
        {
            rolled_back::remember(s, HOST_FILE, &pending.path, &pending.content, &why);
        }
        return Err(e);
    }
    if at == Moment::Running {
        rolled_back::forget(s, HOST_FILE);
    }
    Ok(Some(Outcome::DeclarativeApplied))
}

/// Why the file's change was rolled back: nmstate could not apply it, or its result is not a
/// usable br-ex. `None` for a failure that says nothing about the file's content.
fn why_rolled_back(e: &DeclarativeError) -> Option<String> {
    match e {
        DeclarativeError::Apply { source, .. } => Some(source.to_string()),
        DeclarativeError::Unusable { source, .. } => Some(source.to_string()),
        _ => None,
    }
}

/// `apply-nmstate --live`, run by nmstate-configuration-live.service when MCO's daemon restarts
/// it after changing a file under /etc/nmstate/openshift. MCO ships every host's file to every
/// node: [`pending`] looks only at this node's `<short hostname>.yml`, else `cluster.yml`, so
/// another host's file changes nothing here. A file that changed again while it was applied (a
/// second write during the run) is applied again before returning.
pub async fn apply_changed(s: &Settings) -> Result<Outcome, DeclarativeError> {
    let mut outcome = None;
    while let Some(done) = apply_pending(s, Moment::Running).await? {
        outcome = Some(done);
    }
    if let Some(done) = outcome {
        return Ok(done);
    }
    tracing::info!(
        "nothing to apply: {} unchanged since applied, absent or empty",
        candidates_shown(s)
    );
    Ok(if s.nmstate_dir().join("applied").exists() {
        Outcome::Declarative
    } else {
        Outcome::NoNmstateFile
    })
}

/// This tool's active profiles, in the order they are activated: bridges, then ports' uplinks,
/// then the bridges' interfaces (which carry the IP). OVS ports come up with their bridge.
async fn active_bridge_profiles(
    nm: &Nm,
) -> Result<Vec<(OwnedObjectPath, String)>, DeclarativeError> {
    let active = nm.active_uuids().await?;
    let rank = |id: &str| match id {
        _ if id == BR_EX.bridge || id == BR_EX1.bridge => 0,
        _ if id == BR_EX.interface_profile() || id == BR_EX1.interface_profile() => 2,
        _ => 1,
    };
    let mut out: Vec<(OwnedObjectPath, String)> = nm
        .profiles()
        .await?
        .into_iter()
        .map(|x| (x.id(), x.uuid(), x.path))
        .filter(|(id, uuid, _)| {
            let port = [BR_EX, BR_EX1]
                .iter()
                .any(|b| *id == b.uplink_port_profile() || *id == b.interface_port_profile());
            is_ours(id) && !port && active.contains(uuid)
        })
        .map(|(id, _, path)| (path, id))
        .collect();
    out.sort_by_key(|(_, id)| rank(id));
    Ok(out)
}

/// After a rollback: NetworkManager (seen on 1.42) restores the profiles but re-activates an OVS
/// stack's pieces at once, and the interface that carries the IP can fail on its still-activating
/// port, or (seen on a real kernel, under load) stay in `ip-config` with nothing more logged.
/// Once the devices settled, whatever of the previous bridge is not activated is activated again,
/// in order, with a fresh `ActivateConnection` (waiting on a stuck activation would wait forever);
/// if that is not enough the whole bridge is, from its bridge profile down. Each step is bounded
/// by a third of the activation timeout, so the restore ends: a node must not wait minutes
/// without its bridge for a retry policy meant for first boot.
async fn restore_bridges(nm: &Nm, before: &[(OwnedObjectPath, String)], s: &Settings) {
    if before.is_empty() {
        return;
    }
    let step = s.activation_timeout / 3;
    settle(nm, step).await;
    let mut down = not_activated(nm, before).await;
    if !down.is_empty() {
        reactivate(nm, "what is down of the bridge the node had", &down, step).await;
        down = not_activated(nm, before).await;
    }
    if !down.is_empty() {
        reactivate(nm, "the whole bridge the node had", before, step).await;
        down = not_activated(nm, before).await;
    }
    if !down.is_empty() {
        tracing::error!(
            "the previous bridge did not come back: {} not activated",
            ids(&down)
        );
    }
}

/// A fresh activation of each of `profiles`, in order, each waited for up to `timeout`.
async fn reactivate(
    nm: &Nm,
    what: &str,
    profiles: &[(OwnedObjectPath, String)],
    timeout: Duration,
) {
    tracing::info!("re-activating {what}: {}", ids(profiles));
    for (path, id) in profiles {
        if let Err(e) = nm.activate(path, id, timeout).await {
            tracing::warn!("{e}");
        }
    }
}

fn ids(profiles: &[(OwnedObjectPath, String)]) -> String {
    let ids: Vec<&str> = profiles.iter().map(|(_, id)| id.as_str()).collect();
    ids.join(", ")
}

/// The profiles of `profiles` whose activation is not (yet) complete, in their order.
async fn not_activated(
    nm: &Nm,
    profiles: &[(OwnedObjectPath, String)],
) -> Vec<(OwnedObjectPath, String)> {
    let (Ok(active), Ok(all)) = (nm.active_connections().await, nm.profiles().await) else {
        tracing::error!("cannot check the restored bridge: NetworkManager does not answer");
        return Vec::new();
    };
    profiles
        .iter()
        .filter(|(path, _)| {
            let uuid = all.iter().find(|x| x.path == *path).map(|x| x.uuid());
            uuid.is_some_and(|uuid| {
                !active
                    .iter()
                    .any(|a| a.uuid == uuid && a.state == ActiveState::Activated)
            })
        })
        .cloned()
        .collect()
}

/// After nmstate applied the file (inside its checkpoint): the automatic mode's profiles nmstate
/// did not take over (inactive now), br-ex1 and its profiles unless the file defines it, and the
/// SDN era's br0. The extra bridge's NIC gets its original profile back.
async fn remove_leftovers(
    nm: &Nm,
    s: &Settings,
    keep_br_ex1: bool,
) -> Result<(), DeclarativeError> {
    let active = nm.active_uuids().await?;
    let br_ex1_ids = BR_EX1.profile_ids();
    let mut uplinks = Vec::new();
    for x in nm.profiles().await? {
        let id = x.id();
        let of_br_ex1 = br_ex1_ids.contains(&id);
        let idle = !active.contains(&x.uuid());
        if !is_ours(&id) || !(idle || of_br_ex1 && !keep_br_ex1) {
            continue;
        }
        if id == BR_EX1.uplink_profile() {
            uplinks.extend(x.interface());
        }
        tracing::info!("removing {id}: the NMState file owns br-ex now");
        nm.delete(&x.path).await?;
    }
    if !keep_br_ex1 {
        ovsdb::delete_bridge(BR_EX1.bridge)?;
    }
    ovsdb::delete_bridge("br0")?;
    reconnect(nm, &uplinks, s.activation_timeout).await;
    Ok(())
}
