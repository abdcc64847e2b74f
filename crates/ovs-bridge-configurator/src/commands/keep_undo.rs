//! `keep-undo` (hidden): the process a change of the node's network leaves behind, which undoes
//! the change if the change's own process dies before it is over ([`crate::engine::keeper`]).
//! Started by the change, never by hand; it holds the change lock the change passed on
//! ([`crate::lock::pass_to`]) until it ends.

use std::process::ExitCode;
use std::time::Instant;

use tokio::signal::unix::{SignalKind, signal};

use crate::engine::keeper::{self, Heard};
use crate::nm::Nm;
use crate::nm::keep_alive::{Kept, keep_alive};
use crate::settings::Settings;

pub async fn exec(s: &Settings) -> anyhow::Result<ExitCode> {
    let change = std::os::unix::process::parent_id();
    // Held, never read, until this ends: systemd stopping what is left of a killed unit sends
    // SIGTERM, Ctrl-C SIGINT and a closed terminal SIGHUP to this process too.
    let _signals = [
        SignalKind::terminate(),
        SignalKind::interrupt(),
        SignalKind::hangup(),
    ]
    .map(signal);
    let heard = tokio::task::spawn_blocking(|| keeper::listen(std::io::stdin().lock())).await??;
    let Heard::Orphaned(Some(undo)) = heard else {
        return Ok(ExitCode::SUCCESS);
    };
    tracing::warn!(
        "the pipe from the change's process (pid {change}) closed before the change was over"
    );
    let nm = Nm::connect(s.dbus_timeout).await?;
    let (cp, timeout) = (undo.checkpoint(), undo.timeout());
    // Moving NetworkManager's own rollback ahead tells whether the checkpoint still exists.
    if let Err(e) = nm.checkpoint_extend(cp, timeout).await {
        tracing::info!("its checkpoint is gone ({e}): committed or rolled back, nothing to undo");
        return Ok(ExitCode::SUCCESS);
    }
    let start = Instant::now();
    let undone = tokio::select! {
        how = undo.run(&nm) => how,
        e = keep_alive(&nm, Kept::Own(cp), timeout) => {
            tracing::error!("cannot hold its checkpoint off ({e}): NetworkManager rolls it back");
            None
        }
    };
    let Some(how) = undone else {
        return Ok(ExitCode::FAILURE);
    };
    tracing::info!(
        "the killed change was undone in {:.2}s: {how}",
        start.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
