//! How a change to the node's network ends when it does not stay, and where its profiles live:
//! shared by the two ways a change is applied ([`crate::engine::checkpoint`] through nmstate,
//! [`crate::engine::reapply`] by the project itself).

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
