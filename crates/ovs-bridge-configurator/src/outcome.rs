//! How a run ends: what it did, or why it failed (the node keeping or getting back its network).
//! Shared by the boot-time drivers (`apply`, `declarative`), so neither imports the other's.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

pub use crate::engine::CheckFailed;
use crate::nm::NmError;
use crate::ovsdb;
use crate::plan::PlanError;

/// A failed run. The node keeps (or gets back) its original network.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error(transparent)]
    Nm(#[from] NmError),
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error(transparent)]
    Ovs(#[from] ovsdb::OvsError),
    #[error("netlink: {0}")]
    Netlink(#[from] selection::netlink::NetlinkError),
    #[error(transparent)]
    Verify(#[from] NotReady),
    #[error("taking the change lock: {0}")]
    LockTask(tokio::task::JoinError),
    #[error("cannot {what} {}: {error}", path.display())]
    File {
        what: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot install a signal handler: {0}")]
    Signal(std::io::Error),
    #[error("terminated by a signal")]
    Terminated,
    #[error("cannot keep the checkpoint open: {0}")]
    Checkpoint(NmError),
    #[error(
        "the checkpoint was gone at commit time ({0}): NetworkManager restarted during the apply, \
         or its rollback timeout passed and it restored the previous configuration; run again"
    )]
    Uncommitted(NmError),
    #[error(transparent)]
    Declarative(#[from] DeclarativeError),
    #[error(transparent)]
    Probe(#[from] crate::probe::Failed),
    #[error(transparent)]
    Lock(#[from] crate::lock::LockError),
}

pub(crate) fn io(what: &'static str, path: &Path, error: std::io::Error) -> ApplyError {
    ApplyError::File {
        what,
        path: path.to_owned(),
        error,
    }
}

/// What a successful run did.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The user's NMState file was applied and recorded.
    DeclarativeApplied,
    /// `/etc/nmstate/openshift/applied` exists and nothing is pending: NMState owns br-ex.
    Declarative,
    /// `apply-nmstate` found no NMState file: the automatic mode builds br-ex.
    NoNmstateFile,
    /// br-ex already carried the node IP and every profile was active.
    AlreadyConverted,
    Converted {
        interface: String,
    },
}

/// Why a declarative apply failed.
#[derive(Debug, thiserror::Error)]
pub enum DeclarativeError {
    /// The file is not valid NMState: nothing was changed.
    #[error("invalid NMState file {path}: {message}")]
    Invalid { path: String, message: String },
    /// nmstate could not apply or verify it and rolled back to the previous network.
    #[error("applying {path} failed and was rolled back: {source}")]
    Apply {
        path: String,
        source: crate::engine::change::ChangeFailed,
    },
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
}

/// What a converted bridge still lacks when the verification's time is up.
#[derive(Debug, thiserror::Error)]
pub enum NotReady {
    #[error("no port of {0} came up")]
    NoPort(String),
    #[error("{bridge} does not exist")]
    NoBridge { bridge: &'static str },
    #[error("{ip} is not on {bridge}")]
    NoAddress { ip: IpAddr, bridge: &'static str },
    #[error("no default route via {bridge} with metric {metric}")]
    NoDefaultRoute { bridge: &'static str, metric: u32 },
    #[error("the first global IPv6 address on {bridge} is not usable yet")]
    Ipv6Tentative { bridge: &'static str },
}
