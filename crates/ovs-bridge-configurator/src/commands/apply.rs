//! `apply` (ovs-configuration.service): applies a per-host NMState file written since
//! `apply-nmstate` ran, and otherwise, unless NMState owns br-ex, runs the automatic conversion.

use std::process::ExitCode;

use crate::automatic::error::io;
use crate::automatic::{self, ConvertError};
use crate::commands::boot_run::{self, RunError, clean_mtu_migration};
use crate::commands::failure::failure;
use crate::nmstate::per_host::{self, Moment};
use crate::outcome::Outcome;
use crate::ovsdb;
use crate::settings::Settings;

pub async fn exec(s: &Settings) -> anyhow::Result<ExitCode> {
    let outcome = boot_run::with_retry(s, "apply", once)
        .await
        .map_err(failure)?;
    tracing::info!("done: {outcome:?}");
    Ok(ExitCode::SUCCESS)
}

/// One run of `apply`.
async fn once(s: &Settings) -> Result<Outcome, RunError> {
    ovsdb::clear_ovn_remote().map_err(ConvertError::from)?;
    clean_mtu_migration(s).map_err(|e| io("remove", &s.mtu_migration_dir(), e))?;
    // nmstate-configuration.service applied it earlier in the boot; this covers a node whose
    // MCO still runs upstream's nmstate-configuration unit, and a file written since.
    if let Some(done) = per_host::apply_pending(s, Moment::Boot).await? {
        return Ok(done);
    }
    if s.nmstate_dir().join("applied").exists() {
        tracing::info!(
            "Skipping: NMState owns br-ex ({} exists)",
            s.nmstate_dir().join("applied").display()
        );
        return Ok(Outcome::Declarative);
    }
    Ok(automatic::convert(s).await?)
}
