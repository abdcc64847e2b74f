//! The dead man's switch every change of the node's network runs under: the checkpoint's
//! automatic rollback is moved `timeout` ahead every third of it for as long as the change runs.
//! A slow change, a bond renegotiating or probes waiting out their bound are never rolled back
//! under it; a kill -9 at any moment is, at most `timeout` later. What it costs: NetworkManager
//! must answer one call every third of `timeout` (it does in milliseconds, also while it
//! activates devices); one that cannot for two thirds of it gets the change rolled back.

use std::time::Duration;

use zbus::zvariant::OwnedObjectPath;

use crate::nm::{Nm, NmError};

/// Which checkpoints a change keeps alive.
#[derive(Clone, Copy)]
pub enum Kept<'a> {
    /// The one this process made: when it cannot be extended, the change cannot go on safely.
    Own(&'a OwnedObjectPath),
    /// Every checkpoint but `others` (those that existed before the change): the one nmstate's
    /// apply makes inside this process comes and goes with nmstate's own steps, so one that is
    /// gone or cannot be listed for a moment is said and the switch goes on.
    AllBut(&'a [OwnedObjectPath]),
}

/// Keeps `kept` alive until the caller drops this future; returns only when its own checkpoint
/// cannot be extended.
pub async fn keep_alive(nm: &Nm, kept: Kept<'_>, timeout: Duration) -> NmError {
    loop {
        tokio::time::sleep(timeout / 3).await;
        match kept {
            Kept::Own(cp) => {
                if let Err(e) = nm.checkpoint_extend(cp, timeout).await {
                    return e;
                }
                tracing::debug!(
                    "checkpoint rollback moved to {}s from now",
                    timeout.as_secs()
                );
            }
            Kept::AllBut(others) => extend_all_but(nm, others, timeout).await,
        }
    }
}

/// Extends every checkpoint but `others`, saying what could not be.
async fn extend_all_but(nm: &Nm, others: &[OwnedObjectPath], timeout: Duration) {
    let checkpoints = match nm.checkpoints().await {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!("cannot keep the change's checkpoint alive: {e}");
            return;
        }
    };
    for cp in checkpoints.iter().filter(|c| !others.contains(c)) {
        // Committed or rolled back since it was listed: nothing left to keep.
        if let Err(e) = nm.checkpoint_extend(cp, timeout).await {
            tracing::debug!("checkpoint {}: {e}", cp.as_str());
        }
    }
}
