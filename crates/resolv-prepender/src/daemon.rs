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

/// Runs until SIGTERM or SIGINT.
pub async fn run(settings: Settings) -> anyhow::Result<()> {
    selection::atomic::clean_up_interrupted_writes(&[&settings.output, &settings.resolved_dropin]);
    let watched = Watched::new(&settings);
    let files: Vec<PathBuf> = watched.all().map(Path::to_path_buf).collect();
    let (mut watcher, mut rx) = DirWatcher::new(files)?;
    // Watch first, then read: nothing changed in between is missed.
    watcher.rewatch(watched.mounted_output());
    follow::spawn(settings.br_ex_up_flag.clone());
    let first = one_pass(&settings).await;
    notify_systemd(&[
        sd_notify::NotifyState::Ready,
        sd_notify::NotifyState::Status(&first),
    ]);

    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut guard = ReassertGuard::default();
    let mut paused_until: Option<Instant> = None;
    loop {
        let resume = async {
            match paused_until {
                Some(t) => tokio::time::sleep_until(t).await,
                None => std::future::pending().await,
            }
        };
        let (mut inputs_changed, mut output_changed) = (false, false);
        tokio::select! {
            _ = term.recv() => break,
            _ = tokio::signal::ctrl_c() => break,
            _ = resume => {
                paused_until = None;
                inputs_changed = true;
            }
            ev = rx.recv() => {
                // A dead watcher is a failure: exit non-zero so Restart=on-failure restarts us.
                let Some(ev) = ev else {
                    anyhow::bail!("the file watcher stopped delivering events");
                };
                let mut note = |ev: Wake| match ev {
                    Wake::Rescan => {
                        inputs_changed = true;
                        output_changed = true;
                    }
                    Wake::Paths(paths) => {
                        for p in &paths {
                            match watched.classify(p) {
                                Some(true) => inputs_changed = true,
                                Some(false) => output_changed = true,
                                None => {}
                            }
                        }
                    }
                };
                note(ev);
                let deadline = Instant::now() + SETTLE;
                while let Ok(Some(ev)) = tokio::time::timeout_at(deadline, rx.recv()).await {
                    note(ev);
                }
            }
        }
        if !inputs_changed && !output_changed {
            continue;
        }
        watcher.rewatch(watched.mounted_output());
        if !inputs_changed && paused_until.is_some() {
            continue; // someone else keeps rewriting the output; not fighting until the pause ends
        }
        let before = std::fs::read(&settings.output).ok();
        let status = one_pass(&settings).await;
        let rewritten = before != std::fs::read(&settings.output).ok();
        if !inputs_changed && rewritten {
            paused_until = guard.record(Instant::now());
            if paused_until.is_some() {
                tracing::warn!(
                    "{} keeps being rewritten by someone else; not re-asserting for {:?}",
                    settings.output.display(),
                    REASSERT_WINDOW
                );
            }
        }
        notify_systemd(&[sd_notify::NotifyState::Status(&status)]);
    }
    notify_systemd(&[sd_notify::NotifyState::Stopping]);
    tracing::info!("stopping");
    Ok(())
}

/// A pass whose errors are logged: bad input leaves the output untouched and waits for the
/// next change.
async fn one_pass(settings: &Settings) -> String {
    match pass::run(settings).await {
        Ok(outcome) => {
            match &outcome {
                Outcome::Applied { changed: false, .. } | Outcome::Mirrored { changed: false } => {
                    tracing::debug!("{outcome}")
                }
                _ => tracing::info!("{outcome}"),
            }
            outcome.to_string()
        }
        Err(e) => {
            tracing::error!("{e}; {} left as it is", settings.output.display());
            format!("error: {e}")
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
