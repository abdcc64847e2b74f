//! The day-2 path (`apply-live`): a desired NMState applied to the running node now, without a
//! reboot. Refused when it takes the node's own plumbing away ([`guard`]) unless forced; one
//! change at a time ([`lock`]); applied by the NMState [`engine`] and committed only if, within
//! the live probe timeout, br-ex still carries the node IP and every probe that passed before the
//! change passes again ([`probe`]: gateways, nameservers, API server, node readiness); otherwise
//! rolled back, naming what failed.
//!
//! Persistence is deliberate: by default the change lives in NetworkManager's memory (profiles
//! under /run) and the next boot has the profiles from before it; `--persist` writes keyfiles
//! under /etc instead. Neither writes under /etc/nmstate: its files are MCO's (its drift monitor
//! degrades a node whose files differ from the MachineConfig), and the boot-time `apply-nmstate`
//! applies them only when they change, so a persisted live change is not undone at the next
//! boot, and the `applied` marker still names the last MCO file applied.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use selection::netlink::NetlinkReader;
use selection::runfiles::read_ip_file;

use crate::engine::change::{ChangeFailed, Failed, Lasting};
use crate::engine::guard;
use crate::lock::{self, ChangeLock, LockError};
use crate::nm::{Nm, Unreachable};
use crate::nmstate::checks::{self, CheckFailed, Checks};
use crate::probe;
use crate::settings::Settings;

/// A desired state and where it came from (a path, or `stdin`), for messages.
#[derive(Debug)]
pub struct Desired {
    pub origin: String,
    pub content: String,
}

impl Desired {
    /// The state, if it is NMState at all.
    pub fn parse(&self) -> Result<nmstate::NetworkState, LiveError> {
        crate::engine::desired::parse(&self.content).map_err(|message| LiveError::Invalid {
            origin: self.origin.clone(),
            message,
        })
    }
}

/// Why a live apply did not leave the change in place; the node has the state it had before.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// Not valid NMState: nothing was changed.
    #[error("invalid NMState from {origin}: {message}")]
    Invalid { origin: String, message: String },
    /// The guard rails refused it: nothing was changed.
    #[error("{origin} is refused without --force: {}", reasons.join("; "))]
    Refused {
        origin: String,
        reasons: Vec<String>,
    },
    #[error(transparent)]
    Lock(#[from] LockError),
    /// NetworkManager cannot be reached: nothing was changed.
    #[error("{0}")]
    Unreachable(Box<Unreachable>),
    #[error("netlink: {0}")]
    Netlink(#[from] selection::netlink::NetlinkError),
    /// The kernel cannot create a kind of link it adds: nothing was changed.
    #[error("{origin} cannot be applied on this node: {source}")]
    Unsupported {
        origin: String,
        source: crate::engine::kernel_kinds::Unsupported,
    },
    /// nmstate refused or could not verify it, its deadline passed, or the commit failed:
    /// rolled back.
    #[error("applying {origin} failed and was rolled back: {source}")]
    Apply {
        origin: String,
        source: ChangeFailed,
    },
    /// br-ex lost the node IP or a probe failed after the change: rolled back.
    #[error("{origin} was rolled back after {:.1}s: {source}", after.as_secs_f64())]
    Probe {
        origin: String,
        source: CheckFailed,
        after: Duration,
    },
}

impl LiveError {
    /// Bad input (exit 2): the state itself is wrong, or not for this node's kernel; waiting
    /// or retrying changes nothing.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            LiveError::Invalid { .. } | LiveError::Refused { .. } | LiveError::Unsupported { .. }
        )
    }
}

/// How a live apply is asked to behave (the command's flags).
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Apply even what the guard rails refuse.
    pub force: bool,
    pub lasting: Lasting,
    /// How long to wait for another change of the network to finish.
    pub lock_wait: Duration,
}

/// Applies `d` now; returns how long apply -> committed took.
pub async fn apply_live(s: &Settings, d: &Desired, o: Options) -> Result<Duration, LiveError> {
    let source = d.origin.clone();
    let state = d.parse()?;
    let reasons = guard::refusals(&state, &node_ips(s));
    if !reasons.is_empty() && !o.force {
        return Err(LiveError::Refused {
            origin: source,
            reasons,
        });
    }
    for r in &reasons {
        tracing::warn!("applying {source} although {r} (--force)");
    }
    let _lock = ChangeLock::acquire(&lock::path(&s.run_dir), "apply-live", o.lock_wait)?;
    apply_held(s, &source, state, Probing::live(s, o.lasting)).await
}

/// The node IPs the guard rails keep on br-ex (`primary-ip`, `ipv4`, `ipv6`).
pub fn node_ips(s: &Settings) -> Vec<IpAddr> {
    let files = s.node_ip_files();
    let mut node_ips: Vec<_> = [files.primary_ip(), files.ipv4(), files.ipv6()]
        .iter()
        .filter_map(|f| read_ip_file(f).ok().flatten())
        .collect();
    node_ips.dedup();
    node_ips
}

/// What a change is checked against and how long it may take: the probes, their bound, the
/// checkpoint's timeout, the change's deadline, and where its profiles live.
#[derive(Debug, Clone)]
pub struct Probing {
    pub targets: probe::Targets,
    pub bound: Duration,
    pub checkpoint: Duration,
    /// How long the change itself may take before it is rolled back.
    pub deadline: Option<Duration>,
    pub lasting: Lasting,
}

impl Probing {
    /// `apply-live`'s: the live probes (node readiness included) and the live timeouts.
    pub fn live(s: &Settings, lasting: Lasting) -> Probing {
        Probing {
            targets: probe::Targets::live(s),
            bound: s.live_probe_timeout,
            checkpoint: s.live_checkpoint_timeout,
            deadline: Some(s.live_change_timeout),
            lasting,
        }
    }
}

/// Applies `state` (already guarded) with the engine, committed only if br-ex keeps the node IP
/// and the probes of `p` pass again; the caller holds the change lock. Returns how long apply
/// -> committed took.
pub async fn apply_held(
    s: &Settings,
    origin: &str,
    state: nmstate::NetworkState,
    p: Probing,
) -> Result<Duration, LiveError> {
    let start = Instant::now();
    let nm = Nm::connect_running(s.dbus_timeout)
        .await
        .map_err(|e| LiveError::Unreachable(Box::new(e)))?;
    let mut reader = NetlinkReader::connect()?;
    let before = reader.snapshot().await?;
    let checks = Checks {
        targets: p.targets,
        bound: p.bound,
        deadline: p.deadline,
        before: &before,
        reader: &mut reader,
    };
    let no_step = async || Ok(());
    checks::apply_checked(s, &nm, state, p.checkpoint, p.lasting, checks, no_step)
        .await
        .map_err(|e| match e {
            Failed::Change(ChangeFailed::Unsupported(source)) => LiveError::Unsupported {
                origin: origin.to_owned(),
                source,
            },
            Failed::Change(e) => LiveError::Apply {
                origin: origin.to_owned(),
                source: e,
            },
            Failed::Check(e) => LiveError::Probe {
                origin: origin.to_owned(),
                source: e,
                after: start.elapsed(),
            },
        })?;
    Ok(start.elapsed())
}
