//! How applying the per-host NMState file, or the node's policies, fails.

use std::path::PathBuf;

use crate::engine::change::ChangeFailed;
use crate::nm::NmError;
use policy_controller::merge::Conflict;

use crate::nmstate::checks::CheckFailed;
use crate::nmstate::live::LiveError;
use crate::ovsdb::OvsError;

/// Why applying the per-host NMState file failed. Apart from `Invalid` and `AlreadyRolledBack`
/// (nothing was changed), the node has the network it had before.
#[derive(Debug, thiserror::Error)]
pub enum DeclarativeError {
    /// The file is not valid NMState: nothing was changed.
    #[error("invalid NMState file {path}: {message}")]
    Invalid { path: String, message: String },
    /// The kernel cannot create a kind of link it adds: nothing was changed.
    #[error("{path} cannot be applied on this node: {source}")]
    Unsupported {
        path: String,
        source: crate::engine::kernel_kinds::Unsupported,
    },
    /// nmstate could not apply or verify it and rolled back to the previous network.
    #[error("applying {path} failed and was rolled back: {source}")]
    Apply { path: String, source: ChangeFailed },
    /// It applied, but the result is not a usable br-ex: rolled back.
    #[error("{path} was rolled back: {source}")]
    Unusable { path: String, source: CheckFailed },
    #[error("cannot write {}: {error}", path.display())]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The same content was applied live and rolled back before: not applied again.
    #[error(
        "{path} was rolled back at {at} ({why}); it is not applied again until it changes \
         (remove {} to try the same content again). The network is as before",
        record.display()
    )]
    AlreadyRolledBack {
        path: String,
        at: String,
        why: String,
        record: PathBuf,
    },
    /// The node's policies were not applied (refused, rolled back or unreadable): br-ex and the
    /// day-1 file's state are as they were.
    #[error(transparent)]
    Policies(Box<PolicyError>),
    #[error(transparent)]
    Nm(Box<NmError>),
    #[error(transparent)]
    Ovs(#[from] OvsError),
    #[error("netlink: {0}")]
    Netlink(#[from] selection::netlink::NetlinkError),
}

impl From<NmError> for DeclarativeError {
    fn from(e: NmError) -> DeclarativeError {
        DeclarativeError::Nm(Box::new(e))
    }
}

impl From<PolicyError> for DeclarativeError {
    fn from(e: PolicyError) -> DeclarativeError {
        DeclarativeError::Policies(Box::new(e))
    }
}

/// Why the node's policies are not applied. Apart from `Live`'s rollbacks nothing was changed;
/// in every case the node has the network it had.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("cannot read {}: {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    /// A name in the list, or a policy's state, is not usable.
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("{}: policy {policy} conflicts with policy {with} on {conflict}", list.display())]
    Conflict {
        list: PathBuf,
        policy: String,
        with: String,
        conflict: Conflict,
    },
    /// The guard rails refuse the merged state (never forced here).
    #[error("{origin} are refused on this node: {}. The network is as before", reasons.join("; "))]
    Refused {
        origin: String,
        reasons: Vec<String>,
    },
    #[error(transparent)]
    Live(#[from] LiveError),
    /// The same merged state was rolled back before: not applied again.
    #[error(
        "{origin} were rolled back at {at} ({why}); they are not applied again until the list or \
         a policy changes (remove {} to try the same state again). The network is as before",
        record.display()
    )]
    AlreadyRolledBack {
        origin: String,
        at: String,
        why: String,
        record: PathBuf,
    },
    #[error("cannot write {}: {error}", path.display())]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl PolicyError {
    /// The Warning Event's reason on the Node.
    pub fn event_reason(&self) -> &'static str {
        match self {
            PolicyError::Read { .. } | PolicyError::Invalid { .. } => "NMStatePolicyInvalid",
            PolicyError::Conflict { .. } => "NMStatePolicyConflict",
            PolicyError::Refused { .. } => "NMStatePolicyRefused",
            PolicyError::Live(LiveError::Apply { .. } | LiveError::Probe { .. }) => {
                "NMStatePolicyRolledBack"
            }
            PolicyError::AlreadyRolledBack { .. } => "NMStatePolicyRolledBackEarlier",
            _ => "NMStatePolicyNotApplied",
        }
    }
}
