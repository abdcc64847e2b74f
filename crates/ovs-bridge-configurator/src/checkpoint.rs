//! A desired NMState applied inside nmstate's checkpoint, checked, then committed or rolled
//! back: the core every NMState path shares (boot-time `apply-nmstate`, and the day-2 live
//! apply), each bringing its own checks (the br-ex check, the forwarding and other probes).

use std::time::Duration;

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

/// Applies `state` with nmstate's own verification and a checkpoint of `timeout` (NetworkManager
/// rolls back by itself if this process dies before committing), runs `check`, and commits only
/// if it passes.
pub async fn apply<F, E>(
    mut state: nmstate::NetworkState,
    timeout: Duration,
    lasting: Lasting,
    check: F,
) -> Result<(), Failed<E>>
where
    F: AsyncFnOnce() -> Result<(), E>,
{
    state
        .set_kernel_only(false)
        .set_verify_change(true)
        .set_commit(false)
        .set_memory_only(lasting == Lasting::UntilReboot)
        .set_timeout(timeout.as_secs() as u32);
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
}
