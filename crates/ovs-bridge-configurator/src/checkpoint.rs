//! A desired NMState applied inside nmstate's checkpoint, checked, then committed or rolled
//! back: the core every NMState path shares (boot-time `apply-nmstate`, and the day-2 live
//! apply), each bringing its own checks (the br-ex check, the forwarding and other probes).
//! The checkpoint is kept alive while this process runs, so a crash is undone within its
//! timeout and a slow change never is.

use std::convert::Infallible;
use std::time::Duration;

use zbus::zvariant::OwnedObjectPath;

use crate::nm::Nm;

/// nmstate refused, failed or could not verify the state (it rolled back itself), or the commit
/// failed.
#[derive(Debug, thiserror::Error)]
pub enum NmstateFailed {
    #[error("{0}")]
    Apply(nmstate::NmstateError),
    #[error("commit: {0}")]
    Commit(nmstate::NmstateError),
}

/// Why the change did not stay: in both cases the node is back on the state before it.
#[derive(Debug)]
pub enum Failed<E> {
    Nmstate(NmstateFailed),
    /// nmstate applied it, the caller's check failed (`E`, the check's error): rolled back.
    Check(E),
}

/// Where an applied state's NetworkManager profiles live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lasting {
    /// Keyfiles under /etc: the state outlives a reboot.
    Persistent,
    /// In NetworkManager's memory (/run): the next boot has the profiles from before.
    UntilReboot,
}

/// Applies `state` with nmstate's own verification inside its checkpoint, runs `check`, and
/// commits only if it passes; the checkpoint is a dead man's switch (see [`keep_alive`]):
/// NetworkManager rolls the change back by itself `timeout` after this process stops showing
/// it is alive (killed, or NetworkManager unreachable), and never while it runs.
pub async fn apply<F, E>(
    nm: &Nm,
    mut state: nmstate::NetworkState,
    timeout: Duration,
    lasting: Lasting,
    check: F,
) -> Result<(), Failed<E>>
where
    F: AsyncFnOnce() -> Result<(), E>,
{
    // Checkpoints that are not this change's (none, while the change lock is held and nothing
    // but this tool makes checkpoints): never kept alive by it.
    let others = nm.checkpoints().await.unwrap_or_default();
    state
        .set_kernel_only(false)
        .set_verify_change(true)
        .set_commit(false)
        .set_memory_only(lasting == Lasting::UntilReboot)
        .set_timeout(timeout.as_secs() as u32);
    let change = async {
        state
            .apply_async()
            .await
            .map_err(|e| Failed::Nmstate(NmstateFailed::Apply(e)))?;
        // nmstate left its checkpoint open ("" = NetworkManager's only checkpoint).
        if let Err(e) = check().await {
            if let Err(e) = nmstate::NetworkState::checkpoint_rollback_async("").await {
                tracing::error!("rolling back nmstate's checkpoint: {e}");
            }
            return Err(Failed::Check(e));
        }
        nmstate::NetworkState::checkpoint_commit_async("")
            .await
            .map_err(|e| Failed::Nmstate(NmstateFailed::Commit(e)))
    };
    tokio::select! {
        result = change => result,
        never = keep_alive(nm, &others, timeout) => match never {},
    }
}

/// The dead man's switch: every third of `timeout`, the checkpoint this change made (nmstate
/// creates it inside its apply, with `timeout`) has its automatic rollback moved to `timeout`
/// from now. A slow change, a bond renegotiating or probes waiting out their bound are never
/// rolled back under it; a kill -9 at any moment is, at most `timeout` later. What it costs:
/// NetworkManager must answer one call every third of `timeout` (it does in milliseconds, also
/// while it activates devices); one that cannot for two thirds of it gets the change rolled back.
async fn keep_alive(nm: &Nm, others: &[OwnedObjectPath], timeout: Duration) -> Infallible {
    loop {
        tokio::time::sleep(timeout / 3).await;
        let checkpoints = match nm.checkpoints().await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!("cannot keep the change's checkpoint alive: {e}");
                continue;
            }
        };
        for cp in checkpoints.iter().filter(|c| !others.contains(c)) {
            // Committed or rolled back since it was listed: nothing left to keep.
            if let Err(e) = nm.checkpoint_extend(cp, timeout).await {
                tracing::debug!("checkpoint {}: {e}", cp.as_str());
            }
        }
    }
}
