//! How the automatic conversion fails: the error it returns and what a bridge still lacked.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use crate::automatic::plan::PlanError;
use crate::nm::NmError;
use crate::ovsdb;

/// Why the automatic conversion failed. The node keeps (or gets back) its original network.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
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
    #[error(transparent)]
    File(#[from] FileError),
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
    Probe(#[from] crate::probe::Failed),
}

/// A file the run writes or removes could not be: what was done, to which file.
#[derive(Debug, thiserror::Error)]
#[error("cannot {what} {}: {error}", path.display())]
pub struct FileError {
    what: &'static str,
    path: PathBuf,
    error: std::io::Error,
}

impl FileError {
    /// `what` ("touch", "write", "remove") failed on `path`.
    pub(crate) fn new(what: &'static str, path: &Path, error: std::io::Error) -> FileError {
        FileError {
            what,
            path: path.to_owned(),
            error,
        }
    }
}

/// [`FileError`] as a [`ConvertError`], for the boot commands' own files.
pub(crate) fn io(what: &'static str, path: &Path, error: std::io::Error) -> ConvertError {
    FileError::new(what, path, error).into()
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
