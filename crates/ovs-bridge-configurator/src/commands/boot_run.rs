//! How the boot-time runs (`apply`, `apply-nmstate`) are held and repeated: one at a time under
//! the change lock, retried as upstream retries them, failing with one error that says which
//! path failed.

use std::time::Duration;

use crate::automatic::ConvertError;
use crate::lock::{self, LockError};
use crate::nmstate::DeclarativeError;
use crate::outcome::Outcome;
use crate::ovsdb::OvsError;
use crate::settings::Settings;

/// How long a boot-time run waits for a live apply (or another run) to finish changing the
/// network: a live apply ends within its forwarding timeout plus nmstate's own work.
const BOOT_LOCK_WAIT: Duration = Duration::from_secs(120);

/// Why a boot-time run failed. The node keeps (or gets back) the network it had.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Convert(#[from] ConvertError),
    #[error(transparent)]
    Declarative(#[from] DeclarativeError),
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("taking the change lock: {0}")]
    LockTask(tokio::task::JoinError),
    #[error("terminated by a signal")]
    Terminated,
}

impl RunError {
    /// A malformed NMState file, or one this node's kernel cannot apply: waiting changes
    /// nothing.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            RunError::Declarative(
                DeclarativeError::Invalid { .. } | DeclarativeError::Unsupported { .. }
            )
        )
    }

    /// A SIGTERM ends the run; socket permissions do not change by waiting (the unit lacks a
    /// grant).
    fn is_final(&self) -> bool {
        matches!(
            self,
            RunError::Terminated
                | RunError::Convert(ConvertError::Terminated)
                | RunError::Convert(ConvertError::Ovs(OvsError::Access { .. }))
                | RunError::Declarative(DeclarativeError::Ovs(OvsError::Access { .. }))
        ) || self.is_bad_input()
    }
}

/// One boot-time run (`what`), holding the change lock (see [`lock`]) while it runs.
pub async fn locked<F>(s: &Settings, what: &'static str, run: &F) -> Result<Outcome, RunError>
where
    F: AsyncFn(&Settings) -> Result<Outcome, RunError>,
{
    let path = lock::path(&s.run_dir);
    let held =
        tokio::task::spawn_blocking(move || lock::ChangeLock::acquire(&path, what, BOOT_LOCK_WAIT))
            .await
            .map_err(RunError::LockTask)??;
    let outcome = run(s).await;
    drop(held);
    outcome
}

/// Upstream's policy by default: a failed run is retried every 15 minutes until it succeeds (a
/// SIGTERM during the wait ends it with a failure). The change lock is held per attempt, not
/// across the wait.
pub async fn with_retry<F>(s: &Settings, what: &'static str, run: F) -> Result<Outcome, RunError>
where
    F: AsyncFn(&Settings) -> Result<Outcome, RunError>,
{
    loop {
        let e = match locked(s, what, &run).await {
            Ok(outcome) => return Ok(outcome),
            Err(e) if e.is_final() => return Err(e),
            Err(e) => e,
        };
        let Some(wait) = s.retry else {
            return Err(e);
        };
        tracing::error!("{e}; retrying in {}s", wait.as_secs());
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .map_err(|e| RunError::Convert(ConvertError::Signal(e)))?;
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = term.recv() => return Err(RunError::Terminated),
        }
    }
}

/// Removes `/etc/cno/mtu-migration` unless `mtu-migration.service` is enabled, as both upstream
/// scripts do first thing: the MTU migration's state must not outlive the migration.
pub(crate) fn clean_mtu_migration(s: &Settings) -> std::io::Result<()> {
    let dir = s.mtu_migration_dir();
    if !dir.exists() {
        return Ok(());
    }
    let enabled = std::process::Command::new("systemctl")
        .args(["is-enabled", "--quiet", "mtu-migration.service"])
        .status()
        .is_ok_and(|st| st.success());
    if !enabled {
        tracing::info!(
            "removing {}: mtu-migration.service is not enabled",
            dir.display()
        );
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(())
}
