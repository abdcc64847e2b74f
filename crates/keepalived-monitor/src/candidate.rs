//! A candidate keepalived.conf from every input the render reads: the network (netlink), the
//! node-IP files, the peer list (a file or the Node objects) and the mode. The daemon builds one
//! on every wake; `render` and `check` build one once.

use std::path::{Path, PathBuf};

use selection::netlink::{NetlinkError, NetlinkReader};
use selection::runfiles::read_ip_file;

use crate::apply;
use crate::build::{BuildError, Inputs, build};
use crate::kube_source::NodeCache;
use crate::migration::mode_of;
use crate::model::{Keepalived, Mode, Role};
use crate::peers::{self, PeersError};
use crate::retry::Retry;
use crate::settings::{PeerSource, Settings};

/// The running peer source: where [`peers::Peers`] come from now.
pub enum PeerFeed {
    File(PathBuf),
    Kubernetes(NodeCache),
}

impl PeerFeed {
    /// Starts the source; `changed` is poked after each change of the Kubernetes cache.
    pub fn start(s: &Settings, changed: tokio::sync::mpsc::UnboundedSender<()>) -> PeerFeed {
        match &s.peers {
            PeerSource::File(p) => PeerFeed::File(p.clone()),
            PeerSource::Kubernetes(k) => {
                PeerFeed::Kubernetes(NodeCache::spawn(k, s.api_port, changed))
            }
        }
    }

    pub fn current(&self) -> Result<peers::Peers, CandidateError> {
        match self {
            PeerFeed::File(p) => Ok(peers::read(p)?),
            PeerFeed::Kubernetes(c) => c.peers().ok_or(CandidateError::NoNodeList),
        }
    }

    /// The file to watch, for the file source.
    pub fn file(&self) -> Option<&Path> {
        match self {
            PeerFeed::File(p) => Some(p),
            PeerFeed::Kubernetes(_) => None,
        }
    }
}

/// Why no candidate could be built (the last good configuration stays).
#[derive(Debug, thiserror::Error)]
pub enum CandidateError {
    #[error(transparent)]
    Netlink(#[from] NetlinkError),
    #[error(transparent)]
    Peers(#[from] PeersError),
    #[error("waiting for the first complete node list")]
    NoNodeList,
    #[error(transparent)]
    Build(#[from] BuildError),
}

impl Retry for CandidateError {
    /// Addresses, files and the node list change by themselves; a cluster name without VRIDs
    /// or a malformed peer list needs a fix.
    fn worth_retrying(&self) -> bool {
        match self {
            CandidateError::Peers(e) => e.worth_retrying(),
            CandidateError::Build(BuildError::NoVrid(_)) => false,
            CandidateError::Netlink(_) | CandidateError::NoNodeList | CandidateError::Build(_) => {
                true
            }
        }
    }
}

/// Reads every input and builds a candidate.
pub async fn candidate(
    s: &Settings,
    reader: &mut NetlinkReader,
    source: &PeerFeed,
    mode: Mode,
) -> Result<Keepalived, CandidateError> {
    let snapshot = reader.snapshot().await?;
    let files = s.node_ip_files();
    let ip = |path: PathBuf| {
        read_ip_file(&path).unwrap_or_else(|e| {
            tracing::warn!("ignoring {e}");
            None
        })
    };
    let peers = match source.current() {
        Ok(p) => p,
        // As upstream, the bootstrap renders at once, before the API behind its VIP answers:
        // it lists every master it knows (none yet) and serves the VIP meanwhile.
        Err(e) if s.role == Role::Bootstrap => {
            tracing::debug!("{e}; rendering the bootstrap without peers");
            peers::Peers::default()
        }
        Err(e) => return Err(e),
    };
    let inputs = Inputs {
        settings: s,
        snapshot: &snapshot,
        node_ipv4: ip(files.ipv4()),
        node_ipv6: ip(files.ipv6()),
        peers: &peers,
        mode,
        remote_worker: files.remote_worker().exists(),
    };
    Ok(build(&inputs)?)
}

/// Upstream's "upgrade flow": a node keeps the mode its live file uses; only a migration changes
/// it. Without a live file the mode files (then the configured mode) decide, so a fresh node of
/// a cluster already migrated starts in the cluster's mode.
pub fn current_mode(s: &Settings, live: &str) -> Mode {
    mode_of(live).unwrap_or_else(|| apply::desired_mode(s))
}
