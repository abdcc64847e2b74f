//! How applying the per-host NMState file fails.

use std::path::PathBuf;

use crate::engine::change::ChangeFailed;
use crate::nm::NmError;
use crate::nmstate::checks::CheckFailed;
use crate::ovsdb::OvsError;

/// Why applying the per-host NMState file failed. Apart from `Invalid` and `AlreadyRolledBack`
/// (nothing was changed), the node has the network it had before.
#[derive(Debug, thiserror::Error)]
pub enum DeclarativeError {
    /// The file is not valid NMState: nothing was changed.
    #[error("invalid NMState file {path}: {message}")]
    Invalid { path: String, message: String },
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
    Policies(Box<crate::nmstate::policies::PolicyError>),
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

impl From<crate::nmstate::policies::PolicyError> for DeclarativeError {
    fn from(e: crate::nmstate::policies::PolicyError) -> DeclarativeError {
        DeclarativeError::Policies(Box::new(e))
    }
}
