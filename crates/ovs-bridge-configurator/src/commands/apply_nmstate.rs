//! `apply-nmstate`: at boot (nmstate-configuration.service, before network-online.target) the
//! per-host NMState file, if one is pending; with `--live` (nmstate-configuration-live.service,
//! restarted by MCO's daemon) this node's changed file, once, with the live probes, and a
//! Warning Event on the Node when it is refused or rolled back.

use std::process::ExitCode;

use crate::automatic::error::io;
use crate::commands::boot_run::clean_mtu_migration;
use crate::commands::boot_run::{self, RunError};
use crate::commands::failure::failure;
use crate::commands::node_event;
use crate::nmstate::per_host::{self, Moment};
use crate::outcome::Outcome;
use crate::settings::Settings;

pub async fn exec(s: &Settings, live: bool) -> anyhow::Result<ExitCode> {
    let outcome = if live {
        let changed = async |s: &Settings| Ok(per_host::apply_changed(s).await?);
        match boot_run::locked(s, "apply-nmstate --live", &changed).await {
            Ok(outcome) => outcome,
            Err(e) => {
                node_event::warn(s, node_event::reason(&e), &e.to_string()).await;
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
