//! `apply` (ovs-configuration.service): applies a per-host NMState file written since
//! `apply-nmstate` ran, and otherwise, unless NMState owns br-ex, runs the automatic conversion.
//! Then, on br-ex however it was built, the node's policies (every boot, before kubelet); their
//! failure is said and leaves br-ex as built.

use std::process::ExitCode;

use crate::automatic::error::io;
use crate::automatic::{self, ConvertError};
use crate::commands::boot_run::{self, RunError, clean_mtu_migration};
use crate::commands::failure::failure;
use crate::commands::node_event;
use crate::nmstate::per_host::{self, Moment};
use crate::nmstate::policies::{self, Applied};
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

/// One run of `apply`: br-ex, then the node's policies on it.
async fn once(s: &Settings) -> Result<Outcome, RunError> {
    let outcome = br_ex(s).await?;
    policies_at_boot(s).await;
    Ok(outcome)
}

/// br-ex from the per-host file or the automatic conversion.
async fn br_ex(s: &Settings) -> Result<Outcome, RunError> {
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

/// The node's policies on the br-ex just built, with the boot's probes. A node without a list
/// file has none. A failure (refused, rolled back, unreadable) does not fail the unit: br-ex is
/// as built and kubelet starts, as on a node without policies; it is logged and told to the Node
/// as a Warning Event, and the next live run (`apply-nmstate --live`) tries the policies again.
async fn policies_at_boot(s: &Settings) {
    match policies::apply(s, Moment::Boot, true).await {
        Ok(Applied::Committed { names, took }) => tracing::info!(
            "policies {} applied and committed in {:.2}s",
            names.join(", "),
            took.as_secs_f64()
        ),
        Ok(_) => {}
        Err(e) => {
            tracing::error!("{e}; br-ex is as built and the node starts without these policies");
            node_event::warn(s, e.event_reason(), &e.to_string()).await;
        }
    }
}
