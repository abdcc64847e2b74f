//! keepalived's liveness, as upstream's probe on the keepalived static pod: SIGUSR1 asks
//! keepalived for a data dump, which must hold "VRRP Instance" within 5 s; three failed probes in
//! a row restart keepalived.service. A hung keepalived keeps its VIP and stops advertising, so a
//! peer takes the VIP too, until something restarts it.
//!
//! Deliberate difference: upstream grepped whatever `/tmp/keepalived.data` held, so an old dump
//! passed for a keepalived that hung after writing it. The dump is removed before each probe
//! here; only a dump written in answer counts.

use std::path::{Path, PathBuf};
use std::time::Duration;

use nix::sys::signal::Signal;
use selection::service::DirWatcher;
use tokio::time::Instant;

use crate::systemd::{Systemd, SystemdError};

/// Upstream's probe: initial delay, period, timeout, failure threshold.
const INITIAL_DELAY: Duration = Duration::from_secs(20);
const PERIOD: Duration = Duration::from_secs(10);
const TIMEOUT: Duration = Duration::from_secs(5);
const FAILURE_THRESHOLD: u32 = 3;

/// The VRRP process's dump, in keepalived's `TMPDIR`.
pub const DATA_FILE: &str = "keepalived.data";

/// Probe bookkeeping for the keepalived process systemd runs; pure.
#[derive(Debug, Default)]
pub struct Liveness {
    /// The main pid being probed and when it was first seen.
    process: Option<(u32, Instant)>,
    failures: u32,
}

impl Liveness {
    /// Whether to probe now, given keepalived's main pid (0: not running). A new process gets
    /// the initial delay and a clean count.
    pub fn due(&mut self, pid: u32, now: Instant) -> bool {
        if pid == 0 {
            *self = Liveness::default();
            return false;
        }
        match self.process {
            Some((p, since)) if p == pid => now.duration_since(since) >= INITIAL_DELAY,
            _ => {
                *self = Liveness {
                    process: Some((pid, now)),
                    failures: 0,
                };
                false
            }
        }
    }

    /// One probe's outcome; true when keepalived must be restarted.
    pub fn observe(&mut self, answered: bool) -> bool {
        if answered {
            self.failures = 0;
            return false;
        }
        self.failures += 1;
        if self.failures < FAILURE_THRESHOLD {
            return false;
        }
        self.failures = 0;
        true
    }
}

/// Whether the dump at `data` answers the probe.
fn answered(data: &Path) -> bool {
    std::fs::read_to_string(data).is_ok_and(|t| t.contains("VRRP Instance"))
}

/// Why a probe could not run (which says nothing about keepalived: not a failed probe).
#[derive(Debug, thiserror::Error)]
enum ProbeError {
    #[error("cannot remove {}: {source}", path.display())]
    RemoveDump {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Signal(#[from] SystemdError),
    #[error("the file watcher stopped")]
    WatcherStopped,
}

/// One probe: remove the old dump, SIGUSR1 to keepalived's main process, wait (on inotify) up
/// to [`TIMEOUT`] for a dump holding "VRRP Instance".
async fn probe(
    systemd: &Systemd,
    data: &Path,
    watcher: &mut DirWatcher,
    wakes: &mut tokio::sync::mpsc::UnboundedReceiver<selection::service::Wake>,
) -> Result<bool, ProbeError> {
    match std::fs::remove_file(data) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(ProbeError::RemoveDump {
                path: data.to_owned(),
                source,
            });
        }
    }
    watcher.rewatch(None);
    while wakes.try_recv().is_ok() {}
    systemd.signal_main(Signal::SIGUSR1).await?;
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if answered(data) {
            return Ok(true);
        }
        match tokio::time::timeout_at(deadline, wakes.recv()).await {
            Err(_) => return Ok(false),
            Ok(None) => return Err(ProbeError::WatcherStopped),
            Ok(Some(_)) => {}
        }
    }
}

/// Probes keepalived.service every [`PERIOD`] while it runs with a configuration that has VRRP
/// instances (`conf`), and restarts it after [`FAILURE_THRESHOLD`] failed probes in a row.
/// keepalived writes its dump to `data` (its drop-in sets `TMPDIR` to the directory).
pub fn spawn(conf: PathBuf, data: PathBuf) -> Result<(), notify::Error> {
    let (mut watcher, mut wakes) = DirWatcher::new(vec![data.clone()])?;
    tokio::spawn(async move {
        let mut liveness = Liveness::default();
        let mut systemd = None;
        loop {
            tokio::time::sleep(PERIOD).await;
            if systemd.is_none() {
                match Systemd::connect().await {
                    Ok(c) => systemd = Some(c),
                    Err(e) => {
                        tracing::debug!("liveness: {e}");
                        continue;
                    }
                }
            }
            let Some(sd) = &systemd else { continue };
            let has_instances = std::fs::read_to_string(&conf)
                .is_ok_and(|t| t.lines().any(|l| l.starts_with("vrrp_instance ")));
            let pid = if has_instances {
                sd.main_pid().await
            } else {
                0
            };
            if !liveness.due(pid, Instant::now()) {
                continue;
            }
            let ok = match probe(sd, &data, &mut watcher, &mut wakes).await {
                Ok(ok) => ok,
                Err(e) => {
                    // Nothing is known about keepalived: not a failed probe.
                    tracing::warn!("liveness probe of keepalived (pid {pid}) could not run: {e}");
                    continue;
                }
            };
            if !ok {
                tracing::warn!(
                    "keepalived (pid {pid}) wrote no VRRP data within {TIMEOUT:?} of SIGUSR1"
                );
            }
            if liveness.observe(ok) {
                tracing::error!(
                    "keepalived (pid {pid}) failed {FAILURE_THRESHOLD} liveness probes in a row: \
                     restarting {}",
                    crate::systemd::UNIT
                );
                if let Err(e) = sd.restart().await {
                    tracing::error!("{e}");
                }
            }
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_process_waits_the_initial_delay() {
        let t0 = Instant::now();
        let mut l = Liveness::default();
        assert!(!l.due(0, t0), "not running");
        assert!(!l.due(100, t0));
        assert!(!l.due(100, t0 + Duration::from_secs(19)));
        assert!(l.due(100, t0 + INITIAL_DELAY));
        assert!(
            !l.due(200, t0 + Duration::from_secs(60)),
            "a restarted keepalived gets the delay again"
        );
        assert!(l.due(200, t0 + Duration::from_secs(80)));
    }

    #[test]
    fn three_failures_in_a_row_restart_and_a_success_resets() {
        let t0 = Instant::now();
        let mut l = Liveness::default();
        l.due(100, t0);
        assert!(!l.observe(false));
        assert!(!l.observe(false));
        assert!(!l.observe(true), "an answer resets the count");
        assert!(!l.observe(false));
        assert!(!l.observe(false));
        assert!(l.observe(false), "the third failure in a row");
        assert!(!l.observe(false), "counting starts again after a restart");
    }

    #[test]
    fn a_new_process_starts_with_a_clean_count() {
        let t0 = Instant::now();
        let mut l = Liveness::default();
        l.due(100, t0);
        l.observe(false);
        l.observe(false);
        l.due(0, t0 + Duration::from_secs(30));
        l.due(200, t0 + Duration::from_secs(40));
        assert!(!l.observe(false));
        assert!(!l.observe(false));
        assert!(l.observe(false));
    }
}
