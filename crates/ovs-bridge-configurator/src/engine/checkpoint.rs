//! A desired NMState applied inside a checkpoint, checked, then committed or rolled back: the
//! core every NMState path shares (boot-time `apply-nmstate`, and the day-2 live apply), each
//! bringing its own checks (the br-ex check, the forwarding and other probes). A change the
//! project's own apply covers (listed in [`reapply`]) is written and reapplied by the project
//! itself, keeping addresses and routes NetworkManager did not configure; any other change goes
//! through nmstate's own apply. The checkpoint is kept alive while this process runs, so a
//! crash is undone within its timeout and a slow change never is.

use std::time::Duration;

use crate::engine::change::{ChangeFailed, Failed, Lasting, Renegotiating, within};
use crate::engine::{detach, kernel_kinds, reapply};
use crate::nm::Nm;
use crate::nm::keep_alive::{Kept, keep_alive};

/// Applies `state` (the own reapply where it covers the change, nmstate's apply otherwise),
/// verified, inside a checkpoint, runs `check` with what `prepare` (run while the change is
/// planned, before anything changes) found, and commits only if it passes; the checkpoint
/// is a dead man's switch ([`keep_alive`]):
/// NetworkManager rolls the change back by itself `timeout` after this process stops showing
/// it is alive (killed, or NetworkManager unreachable), and never while it runs.
///
/// Before anything changes, the kernel is asked whether it can create each kind of link the
/// state adds ([`kernel_kinds`]): one it cannot ends the change at once. With a `deadline`, the
/// change itself (written, activated, verified: whichever path applies it) must be in place
/// within it, or it is undone as a failed change is; the check's own bound counts from there.
/// A change of the own apply is undone by the process it leaves behind if this one dies
/// before it is over ([`crate::engine::keeper`]); nmstate's apply leaves that to its checkpoint.
pub async fn within_checkpoint<P, T, F, E>(
    nm: &Nm,
    state: nmstate::NetworkState,
    (timeout, deadline): (Duration, Option<Duration>),
    lasting: Lasting,
    prepare: P,
    check: F,
) -> Result<(), Failed<E>>
where
    P: Future<Output = T>,
    F: AsyncFnOnce(T, Renegotiating) -> Result<(), E>,
{
    kernel_kinds::check(&state)
        .await
        .map_err(|e| Failed::Change(e.into()))?;
    // Checkpoints that are not this change's (none, while the change lock is held and nothing
    // but this tool makes checkpoints): never kept alive by it.
    let others = nm.checkpoints().await.unwrap_or_default();
    // Boxed: the change's future nests every step of both paths, deeper than rustc's layout
    // queries go by default for the commands that await it.
    let change = Box::pin(async {
        // What the check needs (the probes that pass before the change) is found out while the
        // change is planned: both only read, and both wait (on answers, on a state read).
        let (plan, prepared) = tokio::join!(reapply::plan(nm, &state, lasting), prepare);
        let check = async move |renegotiating| check(prepared, renegotiating).await;
        match plan.map_err(Failed::Change)? {
            Ok(plan) => {
                let rewritten: Vec<&str> = plan.rewrites.iter().map(|r| r.iface.as_str()).collect();
                let added: Vec<&str> = plan.creates.iter().map(|c| c.iface.as_str()).collect();
                let bridges: Vec<&str> = plan.bridges.iter().map(|b| b.name.as_str()).collect();
                tracing::info!(
                    "rewriting and reapplying the profiles of {rewritten:?}, adding profiles for \
                     {added:?} and for the new OVS bridges or new bridge ports of {bridges:?}"
                );
                let bounds = (timeout, deadline);
                reapply::write_activate_check(nm, &state, plan, bounds, lasting, check).await
            }
            Err(why) => {
                tracing::info!("applying through nmstate ({why} is not covered by the reapply)");
                through_nmstate(state, (timeout, deadline), lasting, check).await
            }
        }
    });
    tokio::select! {
        result = change => result,
        e = keep_alive(nm, Kept::AllBut(&others), timeout) => {
            Err(Failed::Change(ChangeFailed::NetworkManager(Box::new(e))))
        }
    }
}

/// nmstate's own apply with its verification, leaving its checkpoint open for `check`; past
/// `deadline` its checkpoint is rolled back.
async fn through_nmstate<F, E>(
    mut state: nmstate::NetworkState,
    (timeout, deadline): (Duration, Option<Duration>),
    lasting: Lasting,
    check: F,
) -> Result<(), Failed<E>>
where
    F: AsyncFnOnce(Renegotiating) -> Result<(), E>,
{
    if detach::removes_any(&state) {
        let current = reapply::read_running().await.map_err(Failed::Change)?;
        let detached = detach::from_removed_controllers(&mut state, &current);
        if !detached.is_empty() {
            tracing::info!("{detached:?} kept up on their own while their controller goes");
        }
    }
    state
        .set_kernel_only(false)
        .set_verify_change(true)
        .set_commit(false)
        .set_memory_only(lasting == Lasting::UntilReboot)
        .set_timeout(timeout.as_secs() as u32);
    let applied = within(deadline, async {
        state.apply_async().await.map_err(ChangeFailed::Nmstate)?;
        Ok(())
    })
    .await;
    if let Err(e) = applied {
        // nmstate rolls its checkpoint back itself on its own failures; one cut off by the
        // deadline is left open, and rolled back here (none open: nothing to roll back).
        if matches!(e, ChangeFailed::Deadline(_))
            && let Err(e) = nmstate::NetworkState::checkpoint_rollback_async("").await
        {
            tracing::warn!("rolling back nmstate's checkpoint after the deadline: {e}");
        }
        return Err(Failed::Change(e));
    }
    // nmstate left its checkpoint open ("" = NetworkManager's only checkpoint). Which bonds its
    // apply re-activated is not known here: the probes' bound counts from its end alone.
    if let Err(e) = check(Renegotiating::default()).await {
        if let Err(e) = nmstate::NetworkState::checkpoint_rollback_async("").await {
            tracing::error!("rolling back nmstate's checkpoint: {e}");
        }
        return Err(Failed::Check(e));
    }
    nmstate::NetworkState::checkpoint_commit_async("")
        .await
        .map_err(|e| Failed::Change(ChangeFailed::Commit(e.to_string())))
}
