//! The daemon: rebuild on every relevant change (netlink for address moves, inotify for the
//! node-IP files, the peer list and the mode files), apply once a candidate has been stable for
//! the debounce window.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::Context;

use selection::netlink::{ChangeStream, NetlinkReader};
use selection::runfiles::read_ip_file;
use selection::service::{DirWatcher, notify_systemd};
use tokio::time::Instant;

use crate::apply;
use crate::build::{Inputs, build};
use crate::kube_source::NodeCache;
use crate::migration::{Migration, Step, mode_of};
use crate::model::{Keepalived, Mode, Role};
use crate::peers;
use crate::settings::{PeerSource, Reload, Settings};
use crate::state::{ApiAction, MonitorState};
use crate::{check_scripts, liveness, redirect, watchdog};

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

    pub fn current(&self) -> anyhow::Result<peers::Peers> {
        match self {
            PeerFeed::File(p) => Ok(peers::read(p)?),
            PeerFeed::Kubernetes(c) => c
                .peers()
                .ok_or_else(|| anyhow::anyhow!("waiting for the first complete node list")),
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

/// Reads every input and builds a candidate; errors keep the last good configuration.
pub async fn candidate(
    s: &Settings,
    reader: &mut NetlinkReader,
    source: &PeerFeed,
    mode: Mode,
) -> anyhow::Result<Keepalived> {
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

/// The monotonic instant at which the wall clock reads `t` (now, if past).
fn instant_of(t: SystemTime) -> Instant {
    Instant::now() + t.duration_since(SystemTime::now()).unwrap_or_default()
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// `keepalived -t` of the pending candidate, started (in a blocking thread) as soon as the
/// candidate is offered: by the end of the debounce window it is usually done, so the reload
/// follows the window at once instead of after another `keepalived -t` of a large file.
struct Validation {
    text: String,
    result: tokio::task::JoinHandle<Result<(), apply::ValidateError>>,
}

impl Validation {
    fn start(output: &Path, text: String) -> Validation {
        let (output, candidate) = (output.to_owned(), text.clone());
        Validation {
            text,
            result: tokio::task::spawn_blocking(move || apply::validate(&output, &candidate)),
        }
    }

    /// The verdict on `text`: the one started for it, or a fresh run.
    async fn of(
        started: Option<Validation>,
        output: &Path,
        text: &str,
    ) -> Result<(), apply::ValidateError> {
        let v = match started {
            Some(v) if v.text == text => v,
            _ => Validation::start(output, text.to_owned()),
        };
        v.result
            .await
            .unwrap_or_else(|e| Err(apply::ValidateError::CannotRun(e.to_string())))
    }
}

/// Runs until SIGTERM.
pub async fn run(s: Settings) -> anyhow::Result<()> {
    if s.user_managed_lb {
        // Upstream disables the keepalived pod; keepalived.service's drop-in starts only on this
        // boot's `rendered` marker, which is never written, so neither runs.
        let why =
            "the cluster uses a user-managed load balancer: keepalived is not used on this node";
        tracing::info!("{why}");
        let _ = std::fs::remove_file(s.keepalived_run_dir.join(apply::RENDERED_MARKER));
        notify_systemd(&[
            sd_notify::NotifyState::Ready,
            sd_notify::NotifyState::Status(why),
        ]);
        return Ok(());
    }
    tracing::info!(
        "started: {:?} of cluster {}, keepalived told through {:?}",
        s.role,
        s.cluster_name,
        s.reload
    );
    selection::atomic::clean_up_interrupted_writes(&[&s.output]);
    check_scripts::write(&s).with_context(|| {
        format!(
            "cannot write the check scripts into {}",
            s.keepalived_dir.display()
        )
    })?;
    // HAProxy's redirect rules for the first API VIP, as chk_ocp_lb's flag (every role, as
    // upstream: only masters run HAProxy, elsewhere the flag just stays absent).
    if let Some(vip) = s.api_vips.first() {
        redirect::spawn(
            s.keepalived_run_dir.join(check_scripts::REDIRECT_FLAG),
            *vip,
        );
    }
    // keepalived.service starts only on a file this monitor validated in this boot (its drop-in
    // waits for the marker): a file from the previous boot is confirmed before it is used.
    let marker = s.keepalived_run_dir.join(apply::RENDERED_MARKER);
    let confirm = s.reload == Reload::Systemd && !marker.exists();
    if s.reload == Reload::Systemd {
        liveness::spawn(
            s.output.clone(),
            s.keepalived_run_dir.join(liveness::DATA_FILE),
        )?;
    }
    let mut changes = ChangeStream::subscribe(Duration::from_millis(20))?;
    let mut reader = NetlinkReader::connect()?;
    let (kube_tx, mut kube_changes) = tokio::sync::mpsc::unbounded_channel();
    let source = PeerFeed::start(&s, kube_tx);
    let (api_tx, mut api_events) = tokio::sync::mpsc::unbounded_channel();
    if s.role == Role::Bootstrap {
        watchdog::spawn(s.api_port, api_tx)?;
    }
    // Every input a render reads: the node-IP files, the remote-worker marker, both mode files
    // and the peer list file.
    let run = s.node_ip_files();
    let mut watched_files = vec![run.ipv4(), run.ipv6(), run.remote_worker()];
    watched_files.extend(s.mode_files());
    watched_files.extend(source.file().map(Path::to_path_buf));
    // Every wake re-reads all inputs, so a Rescan needs nothing special.
    let (mut watcher, mut files) = DirWatcher::new(watched_files)?;
    watcher.rewatch(None);
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let on_disk = std::fs::read_to_string(&s.output).unwrap_or_default();
    let mode = current_mode(&s, &on_disk);
    let mut state = MonitorState::new(
        if confirm { String::new() } else { on_disk },
        mode,
        s.debounce,
    );
    let mut migration = Migration::new(SystemTime::now());
    let mut first = true;
    let mut validation: Option<Validation> = None;
    loop {
        match candidate(&s, &mut reader, &source, state.mode()).await {
            Ok(conf) => {
                let now = Instant::now();
                let text = conf.render();
                if let Some(due) = state.candidate(text.clone(), now) {
                    tracing::info!("configuration changed; applying in {:?}", due - now);
                    validation = Some(Validation::start(&s.output, text));
                }
            }
            Err(e) => {
                tracing::warn!("{e}; keeping the current configuration");
                state.no_candidate();
            }
        }
        if first {
            notify_systemd(&[sd_notify::NotifyState::Ready]);
            first = false;
        }
        tokio::select! {
            _ = term.recv() => break,
            c = changes.next() => match c {
                Some(c) => tracing::debug!("network change: {c:?}"),
                // Without it address moves go unseen: exit, systemd restarts the monitor.
                None => anyhow::bail!("the netlink change stream closed"),
            },
            ev = files.recv() => {
                // A dead watcher is a failure: exit non-zero so systemd restarts us.
                if ev.is_none() {
                    anyhow::bail!("the file watcher stopped delivering events");
                }
                while files.try_recv().is_ok() {}
                watcher.rewatch(None);
            }
            // `Some`: with the file source the sender is gone, and a closed channel would be
            // ready forever (a busy loop).
            Some(()) = kube_changes.recv() => {
                // One rebuild for a burst of watch events.
                while kube_changes.try_recv().is_ok() {}
                tracing::debug!("node list changed");
            }
            _ = tokio::time::sleep_until(instant_of(migration.wake_at())) => {
                let upgrade = || source.current().map(|p| p.upgrade_running()).map_err(|e| e.to_string());
                if let Step::Switch { at, mode: to } = migration.tick(SystemTime::now(), state.live_mode(), apply::desired_mode(&s), upgrade) {
                    tracing::info!("preparing the switch to {to:?} mode");
                    // One mode for the whole file: every per-VIP instance switches (upstream
                    // migration set only its top-level flag, leaving nested ones behind; reference §4.5).
                    state.switch(to, instant_of(at));
                }
            }
            Some(e) = api_events.recv() => match state.api(e) {
                Some(ApiAction::Stop) => match apply::stop(&s.reload).await {
                    Ok(()) => {
                        tracing::warn!("local API down: keepalived stopped");
                        state.set_api_down(true);
                    }
                    Err(e) => tracing::error!("local API down, cannot stop keepalived: {e}"),
                },
                Some(ApiAction::Start) => {
                    state.set_api_down(false);
                    match apply::reload(&s.reload).await {
                        Ok(()) => tracing::info!("local API back: keepalived started"),
                        Err(e) => tracing::error!("local API back, cannot start keepalived: {e}"),
                    }
                }
                None => {}
            },
            _ = sleep_until(state.deadline()) => {
                let now = Instant::now();
                let Some(text) = state.due(now) else { continue };
                match Validation::of(validation.take(), &s.output, &text).await {
                    Ok(()) => {
                        apply::write(&s.output, &text).map_err(anyhow::Error::msg)?;
                        if s.reload == Reload::Systemd {
                            selection::atomic::touch(&marker)
                                .with_context(|| format!("cannot create {}", marker.display()))?;
                        }
                        if state.applied(text) {
                            match apply::reload(&s.reload).await {
                                Ok(()) => tracing::info!("keepalived.conf written and keepalived reloaded"),
                                Err(e) => tracing::warn!("keepalived.conf written, reload failed: {e}"),
                            }
                        } else {
                            tracing::info!("keepalived.conf written; keepalived stays stopped until the local API is back");
                        }
                        notify_systemd(&[sd_notify::NotifyState::Status("configuration applied")]);
                    }
                    Err(e @ apply::ValidateError::CannotRun(_)) => {
                        // Nothing is known about the candidate: try it again later.
                        let wait = state.cannot_validate(text, now);
                        tracing::warn!("{e}; retrying in {wait:?}");
                    }
                    Err(e) => {
                        tracing::error!("{e}; the live configuration stays");
                        let live_mode = current_mode(&s, state.live());
                        state.rejected(text, live_mode);
                    }
                }
            }
        }
    }
    notify_systemd(&[sd_notify::NotifyState::Stopping]);
    Ok(())
}
