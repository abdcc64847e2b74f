//! `apply-nmstate`: at boot (nmstate-configuration.service, before network-online.target) the
//! per-host NMState file, if one is pending; with `--live` (nmstate-configuration-live.service,
//! restarted by MCO's daemon) this node's changed file, once, then this node's policies when
//! their merged state changed (or the file was applied), with the live probes, and a Warning
//! Event on the Node when either is refused or rolled back.

use std::process::ExitCode;

use crate::automatic::error::io;
use crate::commands::boot_run::clean_mtu_migration;
use crate::commands::boot_run::{self, RunError};
use crate::commands::failure::failure;
use crate::commands::node_event;
use crate::nmstate::DeclarativeError;
use crate::nmstate::per_host::{self, Moment};
use crate::nmstate::policies;
use crate::outcome::Outcome;
use crate::settings::Settings;

pub async fn exec(s: &Settings, live: bool) -> anyhow::Result<ExitCode> {
    let outcome = if live {
        match boot_run::locked(s, "apply-nmstate --live", &changed).await {
            Ok(outcome) => outcome,
            Err(e) => {
                node_event::warn(s, event_reason(&e), &e.to_string()).await;
                return Err(failure(e));
            }
        }
    } else {
        boot_run::with_retry(s, "apply-nmstate", at_boot)
            .await
            .map_err(failure)?
    };
    tracing::info!("done: {outcome:?}");
    Ok(ExitCode::SUCCESS)
}

/// The live run: this node's day-1 file when it changed, then its policies on top.
async fn changed(s: &Settings) -> Result<Outcome, RunError> {
    let outcome = per_host::apply_changed(s).await?;
    let day1_applied = outcome == Outcome::DeclarativeApplied;
    let applied = policies::apply(s, Moment::Running, day1_applied)
        .await
        .map_err(DeclarativeError::from)?;
    tracing::info!("policies: {applied:?}");
    Ok(outcome)
}

/// The Event's reason: the policies' own, or the per-host file's.
fn event_reason(e: &RunError) -> &'static str {
    match e {
        RunError::Declarative(DeclarativeError::Policies(p)) => p.event_reason(),
        _ => node_event::reason(e),
    }
}

/// One boot-time run: only the per-host file, as upstream's nmstate-configuration.sh and
/// nmstate.service.
async fn at_boot(s: &Settings) -> Result<Outcome, RunError> {
    clean_mtu_migration(s).map_err(|e| io("remove", &s.mtu_migration_dir(), e))?;
    if let Some(done) = per_host::apply_pending(s, Moment::Boot).await? {
        return Ok(done);
    }
    if s.nmstate_dir().join("applied").exists() {
        tracing::info!("the NMState file is applied already");
        return Ok(Outcome::Declarative);
    }
    tracing::info!(
        "no NMState file ({} absent or empty): ovs-configuration.service builds br-ex",
        per_host::candidates_shown(s)
    );
    Ok(Outcome::NoNmstateFile)
}
