//! The daemon: a pass at start and after every relevant file change, no polling.

use std::path::{Path, PathBuf};
use std::time::Duration;

use selection::service::{DirWatcher, Wake, notify_systemd};
use tokio::time::Instant;

use crate::follow;
use crate::pass::{self, Outcome};
use crate::settings::Settings;

/// Events within this window are handled together (NM writes a temp file, then renames it).
const SETTLE: Duration = Duration::from_millis(5);
/// Re-assertions caused only by someone else rewriting the output, allowed per window before
/// the daemon stops fighting for the rest of it.
const REASSERT_LIMIT: usize = 5;
const REASSERT_WINDOW: Duration = Duration::from_secs(10);

/// Files whose changes trigger a pass.
struct Watched {
    inputs: Vec<PathBuf>,
    output: PathBuf,
}

impl Watched {
    fn new(s: &Settings) -> Self {
        Watched {
            inputs: vec![
                s.upstream.clone(),
                s.node_ip_file.clone(),
                s.env_file.clone(),
            ],
            output: s.output.clone(),
        }
    }

    fn all(&self) -> impl Iterator<Item = &Path> {
        self.inputs
            .iter()
            .chain(std::iter::once(&self.output))
            .map(PathBuf::as_path)
    }

    /// The output when it is a mount point (bind-mounted into a container): writes to it do
    /// not show up in its directory's events, so it is watched itself.
    fn mounted_output(&self) -> Option<&Path> {
        selection::atomic::is_mount_point(&self.output)
            .unwrap_or(false)
            .then_some(self.output.as_path())
    }

    /// Which kind of file an event path concerns: an input (or a directory on its way), the
    /// output, or nothing of ours.
    fn classify(&self, p: &Path) -> Option<bool> {
        if self.inputs.iter().any(|f| f == p || f.starts_with(p)) {
            return Some(true);
        }
        (self.output == p || self.output.starts_with(p)).then_some(false)
    }
}

/// Limits re-assertions caused only by someone else rewriting the output: more than
/// [`REASSERT_LIMIT`] within [`REASSERT_WINDOW`] pauses them for a window, so two writers never
/// fight in a tight loop.
#[derive(Debug, Default)]
struct ReassertGuard {
    recent: Vec<Instant>,
}

impl ReassertGuard {
    /// Records a re-assertion at `now`; returns when to resume if the daemon should pause.
    fn record(&mut self, now: Instant) -> Option<Instant> {
        self.recent
            .retain(|t| now.duration_since(*t) < REASSERT_WINDOW);
        self.recent.push(now);
        if self.recent.len() > REASSERT_LIMIT {
            self.recent.clear();
            return Some(now + REASSERT_WINDOW);
        }
        None
    }
}

/// Why the daemon exits non-zero (systemd's Restart=on-failure restarts it).
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error("cannot watch the input files: {0}")]
    Watch(#[from] notify::Error),
    #[error("cannot catch SIGTERM: {0}")]
    Signal(#[from] std::io::Error),
    #[error("the file watcher stopped delivering events")]
    WatcherStopped,
}

/// Runs until SIGTERM or SIGINT.
pub async fn run(settings: Settings) -> Result<(), DaemonError> {
    selection::atomic::clean_up_interrupted_writes(&[&settings.output, &settings.resolved_dropin]);
    // Watch first, then read: nothing changed in between is missed.
    let mut wakes = Wakes::subscribe(&settings)?;
    follow::spawn(settings.br_ex_up_flag.clone());
    let (first, _) = one_pass(&settings).await;
    notify_systemd(&[
        sd_notify::NotifyState::Ready,
        sd_notify::NotifyState::Status(&first),
    ]);
    let mut reasserting = Reasserting::default();
    loop {
        let changed = match wakes.next(reasserting.paused_until).await? {
            Woken::Stop => break,
            Woken::Resumed => {
                reasserting.paused_until = None;
                Changed {
                    inputs: true,
                    output: false,
                }
            }
            Woken::Changed(c) if c == Changed::default() => continue,
            Woken::Changed(c) => c,
        };
        wakes.rewatch();
        if let Some(status) = reasserting.pass(&settings, changed).await {
            notify_systemd(&[sd_notify::NotifyState::Status(&status)]);
        }
    }
    notify_systemd(&[sd_notify::NotifyState::Stopping]);
    tracing::info!("stopping");
    Ok(())
}

/// Which kinds of watched file a wake concerns.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Changed {
    inputs: bool,
    output: bool,
}

impl Changed {
    fn note(&mut self, watched: &Watched, ev: Wake) {
        match ev {
            Wake::Rescan => {
                self.inputs = true;
                self.output = true;
            }
            Wake::Paths(paths) => {
                for p in &paths {
                    match watched.classify(p) {
                        Some(true) => self.inputs = true,
                        Some(false) => self.output = true,
                        None => {}
                    }
                }
            }
        }
    }
}

/// One wake of the loop.
enum Woken {
    /// SIGTERM or SIGINT.
    Stop,
    /// The pause of re-assertions ended: a pass, as if an input changed.
    Resumed,
    /// Watched files changed (a burst within [`SETTLE`] is one wake).
    Changed(Changed),
}

/// What the loop waits on: the watched files and the signals.
struct Wakes {
    watched: Watched,
    watcher: DirWatcher,
    events: tokio::sync::mpsc::UnboundedReceiver<Wake>,
    term: tokio::signal::unix::Signal,
}

impl Wakes {
    fn subscribe(s: &Settings) -> Result<Wakes, DaemonError> {
        let watched = Watched::new(s);
        let files: Vec<PathBuf> = watched.all().map(Path::to_path_buf).collect();
        let (watcher, events) = DirWatcher::new(files)?;
        let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        let mut wakes = Wakes {
            watched,
            watcher,
            events,
            term,
        };
        wakes.rewatch();
        Ok(wakes)
    }

    /// Watches again what moved (a directory on its way, the output when it is a mount point).
    fn rewatch(&mut self) {
        self.watcher.rewatch(self.watched.mounted_output());
    }

    /// The next wake; `paused_until` is when a pause of re-assertions ends.
    async fn next(&mut self, paused_until: Option<Instant>) -> Result<Woken, DaemonError> {
        let resume = async {
            match paused_until {
                Some(t) => tokio::time::sleep_until(t).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = self.term.recv() => Ok(Woken::Stop),
            _ = tokio::signal::ctrl_c() => Ok(Woken::Stop),
            _ = resume => Ok(Woken::Resumed),
            ev = self.events.recv() => {
                // A dead watcher is a failure: exit non-zero so Restart=on-failure restarts us.
                let ev = ev.ok_or(DaemonError::WatcherStopped)?;
                let mut changed = Changed::default();
                changed.note(&self.watched, ev);
                let deadline = Instant::now() + SETTLE;
                while let Ok(Some(ev)) = tokio::time::timeout_at(deadline, self.events.recv()).await {
                    changed.note(&self.watched, ev);
                }
                Ok(Woken::Changed(changed))
            }
        }
    }
}

/// The output re-asserted against someone else's rewrites, paused while they keep at it.
#[derive(Debug, Default)]
struct Reasserting {
    guard: ReassertGuard,
    paused_until: Option<Instant>,
}

impl Reasserting {
    /// A pass for `changed`, unless only the output changed during a pause (not fighting until
    /// it ends); returns the status to report.
    async fn pass(&mut self, s: &Settings, changed: Changed) -> Option<String> {
        if !changed.inputs && self.paused_until.is_some() {
            return None;
        }
        // What the pass says it wrote, not a comparison of the file before and after: the
        // other writer may have rewritten it again in between.
        let (status, wrote) = one_pass(s).await;
        if !changed.inputs && wrote {
            self.paused_until = self.guard.record(Instant::now());
            if self.paused_until.is_some() {
                tracing::warn!(
                    "{} keeps being rewritten by someone else; not re-asserting for {:?}",
                    s.output.display(),
                    REASSERT_WINDOW
                );
            }
        }
        Some(status)
    }
}

/// A pass whose errors are logged: bad input leaves the output untouched and waits for the
/// next change. Returns the status to report and whether the pass wrote.
async fn one_pass(settings: &Settings) -> (String, bool) {
    match pass::run(settings).await {
        Ok(outcome) => {
            match &outcome {
                Outcome::Applied { changed: false, .. } | Outcome::Mirrored { changed: false } => {
                    tracing::debug!("{outcome}")
                }
                _ => tracing::info!("{outcome}"),
            }
            (outcome.to_string(), outcome.wrote())
        }
        Err(e) => {
            tracing::error!("{e}; {} left as it is", settings.output.display());
            (format!("error: {e}"), false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_pauses_after_the_limit_within_the_window_only() {
        let mut g = ReassertGuard::default();
        let t0 = Instant::now();
        for i in 0..REASSERT_LIMIT {
            assert_eq!(g.record(t0 + Duration::from_millis(i as u64)), None);
        }
        let resume = g.record(t0 + Duration::from_millis(10)).expect("pause");
        assert_eq!(resume, t0 + Duration::from_millis(10) + REASSERT_WINDOW);
        // Spread out over more than the window: never pauses.
        let mut g = ReassertGuard::default();
        for i in 0..20u32 {
            assert_eq!(g.record(t0 + REASSERT_WINDOW / 4 * i), None);
        }
    }
}
