//! `keep-undo --lock PATH` (hidden): the process a change of the node's network leaves behind,
//! which undoes the change if the change's own process dies before it is over
//! ([`crate::engine::keeper`]). Started by the change, never by hand.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use tokio::signal::unix::{SignalKind, signal};

use crate::engine::keeper::{self, Heard};
use crate::lock::ChangeLock;
use crate::nm::Nm;
use crate::settings::Settings;

/// How long to wait for the change lock: a change started right after the kill fails at once
/// (its devices are still in the killed change's checkpoint) and lets go of it.
const LOCK_WAIT: Duration = Duration::from_secs(30);

pub async fn exec(s: &Settings, lock: &Path) -> anyhow::Result<ExitCode> {
    let change = std::os::unix::process::parent_id();
    // Held, never read, until this ends: systemd stopping the unit of a killed change sends
    // SIGTERM (or Ctrl-C, SIGINT) to what is left of it, this process included.
    let _term = signal(SignalKind::terminate())?;
    let _int = signal(SignalKind::interrupt())?;
    let heard = tokio::task::spawn_blocking(|| keeper::listen(std::io::stdin().lock())).await??;
    let Heard::Orphaned(Some(undo)) = heard else {
        return Ok(ExitCode::SUCCESS);
    };
    tracing::warn!("the change's process (pid {change}) ended before the change was over");
    let lock: PathBuf = lock.to_owned();
    let _lock =
        tokio::task::spawn_blocking(move || ChangeLock::acquire(&lock, "keep-undo", LOCK_WAIT))
            .await??;
    let nm = Nm::connect(s.dbus_timeout).await?;
    if !nm.checkpoints().await?.contains(undo.checkpoint()) {
        tracing::info!("its checkpoint is gone (committed, or rolled back): nothing to undo");
        return Ok(ExitCode::SUCCESS);
    }
    let start = Instant::now();
    match undo.run(&nm).await {
        Some(how) => {
            tracing::info!(
                "the killed change was undone in {:.2}s: {how}",
                start.elapsed().as_secs_f64()
            );
            Ok(ExitCode::SUCCESS)
        }
        None => Ok(ExitCode::FAILURE),
    }
}
