//! How a change to the node's network ends when it does not stay, and where its profiles live:
//! shared by the two ways a change is applied ([`crate::engine::checkpoint`] through nmstate,
//! [`crate::engine::reapply`] by the project itself).

use std::time::{Duration, Instant};

use crate::nm::NmError;

/// The change could not be made or verified (rolled back), or the commit failed.
#[derive(Debug, thiserror::Error)]
pub enum ChangeFailed {
    /// nmstate refused, failed or could not verify it.
    #[error("{0}")]
    Nmstate(nmstate::NmstateError),
    /// Writing or reapplying a profile.
    #[error("{0}")]
    NetworkManager(Box<NmError>),
    /// nmstate did not see the written change in place.
    #[error("{0}")]
    Verify(String),
    #[error("commit: {0}")]
    Commit(String),
    /// The kernel cannot create a kind of link the state adds: nothing was changed.
    #[error(transparent)]
    Unsupported(#[from] crate::engine::kernel_kinds::Unsupported),
    /// The change was not in place (written, activated, verified) within its deadline:
    /// rolled back.
    #[error("the change was not in place within {0:?} (live-change-timeout-secs)")]
    Deadline(Duration),
}

/// `change`, which must end within `deadline` (when there is one).
pub async fn within<T>(
    deadline: Option<Duration>,
    change: impl Future<Output = Result<T, ChangeFailed>>,
) -> Result<T, ChangeFailed> {
    match deadline {
        Some(d) => tokio::time::timeout(d, change)
            .await
            .unwrap_or(Err(ChangeFailed::Deadline(d))),
        None => change.await,
    }
}

/// Why the change did not stay: in both cases the node is back on the state before it.
#[derive(Debug)]
pub enum Failed<E> {
    Change(ChangeFailed),
    /// The change is in place, the caller's check failed (`E`, the check's error): rolled back.
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

/// Once a re-activated bond's ports collect and distribute at both ends, a frame crosses it at
/// once: what is left before the gateway answers is its neighbour resolution (the kernel asks
/// again every second) and an echo.
pub const AFTER_NEGOTIATION: Duration = Duration::from_secs(2);

/// The 802.3ad bonds a change re-activated (NetworkManager cannot move a bond into or out of an
/// OVS port without it): nothing crosses them until LACP is negotiated again, at the earliest
/// the kernel's 8 s after their first port's enslavement ([`crate::bond::negotiated`]).
#[derive(Debug, Default)]
pub struct Renegotiating(pub Vec<String>);

impl Renegotiating {
    /// The probes' limit from `start` (the change's end): `bound`, or until
    /// [`AFTER_NEGOTIATION`] after the bonds negotiate, whichever is later. Waits for them first
    /// (up to `bound` and [`AFTER_NEGOTIATION`]; the probes then have [`AFTER_NEGOTIATION`] more):
    /// until then no probe through them can pass, and one that does not go through them passes
    /// as well after.
    pub async fn probe_limit(&self, start: Instant, bound: Duration) -> Duration {
        if self.0.is_empty() {
            return bound;
        }
        let bonds = &self.0;
        let cap = bound + AFTER_NEGOTIATION;
        let at = match crate::bond::negotiated(bonds, cap.saturating_sub(start.elapsed())).await {
            Some(at) => {
                // An active-backup bond forwards at once; an 802.3ad one once LACP negotiated.
                tracing::info!(
                    "the re-activated bonds {bonds:?} forward {:.2} s after the change",
                    at.saturating_duration_since(start).as_secs_f64()
                );
                at
            }
            None => {
                tracing::warn!(
                    "the re-activated bonds {bonds:?} do not forward (LACP) within {cap:?} of \
                     the change"
                );
                Instant::now()
            }
        };
        // In tenths of a second: the limit is named in a failure.
        let after = at.saturating_duration_since(start) + AFTER_NEGOTIATION;
        bound.max(Duration::from_millis(
            after.as_millis().div_ceil(100) as u64 * 100,
        ))
    }
}
