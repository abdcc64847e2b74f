//! The project's own apply of a change to existing interfaces (what [`profile_change`] covers:
//! MTU, IP settings, static routes): nmstate reads the running state, validates and merges the
//! desired one against it (`gen_diff`) and later verifies it; the project writes the changed
//! profiles and reapplies them with `NM_DEVICE_REAPPLY_FLAGS_PRESERVE_EXTERNAL_IP`, inside its
//! own checkpoint. nmstate's own apply reapplies without that flag, which removes every address
//! and route NetworkManager did not configure: on br-ex, keepalived's VIPs (keepalived then gives
//! them up) and OVN-Kubernetes' masquerade address and routes.
//!
//! What it relies on of nmstate is its public, documented API: `NetworkState::retrieve_async`
//! with `set_running_config_only`, `gen_diff` (what `nmstatectl show`/`apply` themselves use),
//! and the YAML/JSON schema of states; nothing of its NetworkManager plugin.

use std::time::{Duration, Instant};

use nmstate::NetworkState;
use zbus::zvariant::OwnedObjectPath;

use crate::checkpoint::{ChangeFailed, Failed, Lasting};
use crate::nm::{DEVICE_TYPE_OVS_BRIDGE, DEVICE_TYPE_OVS_PORT, Nm};
use crate::profile::{self, Settings};
use crate::profile_change::{self, IfaceChange, Uncovered};

/// How long nmstate may take to see a written change in place (an address NetworkManager sets a
/// moment after the reapply returns, a DHCP method reaching its lease).
const VERIFY_BOUND: Duration = Duration::from_secs(10);
/// How often verification reads the state again within that bound.
const VERIFY_EVERY: Duration = Duration::from_millis(100);
/// How long an activation (where NetworkManager refuses a reapply) may take.
const ACTIVATION_BOUND: Duration = Duration::from_secs(30);

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
}

/// What the own apply would do: the profiles it rewrites (none: nothing to change).
#[derive(Debug)]
pub struct Plan {
    pub rewrites: Vec<Rewrite>,
}

/// The running configuration as nmstate reads it (no dynamic addresses or routes: not the
/// profiles').
async fn running() -> Result<NetworkState, ChangeFailed> {
    let mut now = NetworkState::new();
    now.set_running_config_only(true).set_include_secrets(false);
    now.retrieve_async().await.map_err(ChangeFailed::Nmstate)?;
    Ok(now)
}

fn json(state: &NetworkState) -> Result<serde_json::Value, ChangeFailed> {
    serde_json::to_value(state).map_err(|e| ChangeFailed::Verify(format!("nmstate's state: {e}")))
}

/// The own apply's plan for `desired`, or why it is not covered (then nmstate applies it).
pub async fn plan(
    nm: &Nm,
    desired: &NetworkState,
) -> Result<Result<Plan, Uncovered>, ChangeFailed> {
    // nmstate's own apply reports its own errors (it reads and merges the same way), so a state
    // nmstate cannot read or compare here is left to it.
    let now = match running().await {
        Ok(now) => now,
        Err(e) => return Ok(Err(Uncovered(format!("reading the running state ({e})")))),
    };
    let diff = match desired.gen_diff(&now) {
        Ok(d) => d,
        Err(e) => {
            return Ok(Err(Uncovered(format!(
                "comparing with the running state ({e})"
            ))));
        }
    };
    let changes = match profile_change::changes(&json(&diff)?, &json(&now)?) {
        Ok(c) => c,
        Err(u) => return Ok(Err(u)),
    };
    let devices = nm
        .devices()
        .await
        .map_err(|e| ChangeFailed::NetworkManager(Box::new(e)))?;
    let mut rewrites = Vec::new();
    for change in &changes {
        match rewrite(nm, &devices, change).await? {
            Ok(Some(r)) => rewrites.push(r),
            Ok(None) => {}
            Err(u) => return Ok(Err(u)),
        }
    }
    Ok(Ok(Plan { rewrites }))
}

/// The profile active on `change`'s interface with `change` written in (None: it already says
/// so).
async fn rewrite(
    nm: &Nm,
    devices: &[crate::nm::Device],
    change: &IfaceChange,
) -> Result<Result<Option<Rewrite>, Uncovered>, ChangeFailed> {
    let name = &change.name;
    // br-ex is three devices to NetworkManager (bridge, port, interface): the addresses and the
    // MTU are the interface's.
    let mut on = devices.iter().filter(|d| {
        d.interface == *name
            && ![DEVICE_TYPE_OVS_BRIDGE, DEVICE_TYPE_OVS_PORT].contains(&d.device_type)
    });
    let (Some(device), None) = (on.next(), on.next()) else {
        return Ok(Err(Uncovered(format!(
            "{name} is not one NetworkManager device"
        ))));
    };
    let Some(uuid) = &device.active_uuid else {
        return Ok(Err(Uncovered(format!("{name} has no active profile"))));
    };
    let (path, old) = nm
        .profile_by_uuid(uuid)
        .await
        .map_err(|e| ChangeFailed::NetworkManager(Box::new(e)))?;
    if let Some(secret) = SECRET_SETTINGS.iter().find(|s| old.contains_key(**s)) {
        return Ok(Err(Uncovered(format!(
            "{name}'s profile has {secret} secrets"
        ))));
    }
    let mut new = profile::clone_settings(&old);
    if let Err(u) = profile_change::apply_to(&mut new, change) {
        return Ok(Err(u));
    }
    Ok(Ok((new != old).then(|| Rewrite {
        iface: name.clone(),
        device: device.path.clone(),
        profile: path,
        settings: new,
    })))
}

/// Applies `plan` inside a checkpoint over its devices, verifies `desired` with nmstate, runs
/// `check`, and commits only if all of that passed; rolls back otherwise.
pub async fn apply<F, E>(
    nm: &Nm,
    desired: &NetworkState,
    plan: Plan,
    timeout: Duration,
    lasting: Lasting,
    check: F,
) -> Result<(), Failed<E>>
where
    F: AsyncFnOnce() -> Result<(), E>,
{
    let devices: Vec<OwnedObjectPath> = plan.rewrites.iter().map(|r| r.device.clone()).collect();
    let cp = nm
        .checkpoint_create(&devices, timeout)
        .await
        .map_err(|e| Failed::Change(ChangeFailed::NetworkManager(Box::new(e))))?;
    let changed = async {
        for r in &plan.rewrites {
            write(nm, r, lasting).await?;
        }
        verify(desired).await
    };
    let outcome = match changed.await {
        Err(e) => Err(Failed::Change(e)),
        Ok(()) => check().await.map_err(Failed::Check),
    };
    match outcome {
        Ok(()) => nm
            .checkpoint_destroy(&cp)
            .await
            .map_err(|e| Failed::Change(ChangeFailed::Commit(e.to_string()))),
        Err(e) => {
            if let Err(r) = nm.checkpoint_rollback(&cp).await {
                tracing::error!("rolling back the change's checkpoint: {r}");
            }
            Err(e)
        }
    }
}

/// Writes one profile (in memory or to disk) and reapplies it, or activates it where
/// NetworkManager refuses to reapply (as nmstate does).
async fn write(nm: &Nm, r: &Rewrite, lasting: Lasting) -> Result<(), ChangeFailed> {
    let id = profile::get_str(&r.settings, "connection", "id").unwrap_or_default();
    nm.update(&r.profile, &r.settings, lasting == Lasting::Persistent)
        .await
        .map_err(|e| ChangeFailed::NetworkManager(Box::new(e)))?;
    if let Err(e) = nm.reapply(&r.device).await {
        tracing::info!("{}: {e}; activating {id} instead", r.iface);
        nm.activate(&r.profile, &id, ACTIVATION_BOUND)
            .await
            .map_err(|e| ChangeFailed::NetworkManager(Box::new(e)))?;
    } else {
        tracing::info!("{}: {id} rewritten and reapplied", r.iface);
    }
    Ok(())
}

/// Waits until nmstate sees `desired` in place (an empty `gen_diff` against the running state,
/// its own verification), reading it again every [`VERIFY_EVERY`] within [`VERIFY_BOUND`].
async fn verify(desired: &NetworkState) -> Result<(), ChangeFailed> {
    let start = Instant::now();
    loop {
        let diff = desired
            .gen_diff(&running().await?)
            .map_err(ChangeFailed::Nmstate)?;
        if diff.is_empty() {
            tracing::info!("verified in {:.2}s", start.elapsed().as_secs_f64());
            return Ok(());
        }
        if start.elapsed() >= VERIFY_BOUND {
            let still = serde_json::to_string(&diff).unwrap_or_default();
            return Err(ChangeFailed::Verify(format!(
                "not in place {}s after it was written, still different: {still}",
                VERIFY_BOUND.as_secs()
            )));
        }
        tokio::time::sleep(VERIFY_EVERY).await;
    }
}
