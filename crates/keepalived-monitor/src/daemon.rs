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
use crate::debounce::Debounce;
use crate::kube_source::NodeCache;
use crate::migration::{Migration, Step, mode_of};
use crate::model::Keepalived;
use crate::peers;
use crate::settings::{Mode, PeerSource, Reload, Role, Settings};
use crate::{check_scripts, liveness, redirect, watchdog};

/// The peer list as the configured source has it now.
pub enum Peers {
    File(PathBuf),
    Kubernetes(NodeCache),
}

impl Peers {
    /// Starts the source; `changed` is poked after each change of the Kubernetes cache.
    pub fn start(s: &Settings, changed: tokio::sync::mpsc::UnboundedSender<()>) -> Peers {
        match &s.peers {
            PeerSource::File(p) => Peers::File(p.clone()),
            PeerSource::Kubernetes(k) => {
                Peers::Kubernetes(NodeCache::spawn(k, s.api_port, changed))
            }
        }
    }

    pub fn current(&self) -> anyhow::Result<peers::Peers> {
        match self {
            Peers::File(p) => Ok(peers::read(p)?),
            Peers::Kubernetes(c) => c
                .peers()
                .ok_or_else(|| anyhow::anyhow!("waiting for the first complete node list")),
        }
    }

    /// The file to watch, for the file source.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Peers::File(p) => Some(p),
            Peers::Kubernetes(_) => None,
        }
    }
}

/// Reads every input and builds a candidate; errors keep the last good configuration.
pub async fn candidate(
    s: &Settings,
    reader: &mut NetlinkReader,
    source: &Peers,
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

/// Back-off when `keepalived -t` cannot run at all.
const FIRST_VALIDATE_RETRY: Duration = Duration::from_secs(1);
const MAX_VALIDATE_RETRY: Duration = Duration::from_secs(60);

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
    let source = Peers::start(&s, kube_tx);
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
    let mut mode = current_mode(&s, &on_disk);
    // What keepalived runs (or will, once confirmed): a candidate equal to it is not applied.
    let mut live = if confirm { String::new() } else { on_disk };
    let mut migration = Migration::new(SystemTime::now());
    // A migration's reload waits for its wall-clock instant.
    let mut switch_at: Option<Instant> = None;
    // Set while the bootstrap watchdog has keepalived stopped: files are still written, but
    // keepalived is not started until the API is back.
    let mut api_down = false;
    let mut pending = Debounce::new(s.debounce);
    let mut rejected: Option<String> = None;
    let mut validate_retry = FIRST_VALIDATE_RETRY;
    let mut first = true;
    loop {
        match candidate(&s, &mut reader, &source, mode).await {
            Ok(conf) => {
                let text = conf.render();
                if text == live || rejected.as_ref() == Some(&text) {
                    pending.clear();
                    switch_at = None;
                } else if let Some(due) = pending.offer(text, Instant::now(), switch_at) {
                    tracing::info!(
                        "configuration changed; applying in {:?}",
                        due - Instant::now()
                    );
                }
            }
            Err(e) => {
                tracing::warn!("{e}; keeping the current configuration");
                pending.clear();
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
                let current = (!live.is_empty()).then_some(mode);
                let upgrade = || source.current().map(|p| p.upgrade_running()).map_err(|e| e.to_string());
                if let Step::Switch { at, mode: to } = migration.tick(SystemTime::now(), current, apply::desired_mode(&s), upgrade) {
                    tracing::info!("preparing the switch to {to:?} mode");
                    // One mode for the whole file: every per-VIP instance switches (upstream
                    // migration set only its top-level flag, leaving nested ones behind; reference §4.5).
                    mode = to;
                    switch_at = Some(instant_of(at));
                }
            }
            Some(e) = api_events.recv() => match e {
                watchdog::Event::Stop if !api_down => match apply::stop(&s.reload).await {
                    Ok(()) => {
                        tracing::warn!("local API down: keepalived stopped");
                        api_down = true;
                    }
                    Err(e) => tracing::error!("local API down, cannot stop keepalived: {e}"),
                },
                watchdog::Event::Stop => {}
                watchdog::Event::Start => {
                    api_down = false;
                    match apply::reload(&s.reload).await {
                        Ok(()) => tracing::info!("local API back: keepalived started"),
                        Err(e) => tracing::error!("local API back, cannot start keepalived: {e}"),
                    }
                }
            },
            _ = sleep_until(pending.deadline()) => {
                let Some(text) = pending.take_due(Instant::now()) else { continue };
                switch_at = None;
                match apply::validate(&s.output, &text) {
                    Ok(()) => {
                        validate_retry = FIRST_VALIDATE_RETRY;
                        apply::write(&s.output, &text).map_err(anyhow::Error::msg)?;
                        if s.reload == Reload::Systemd {
                            selection::atomic::touch(&marker)
                                .with_context(|| format!("cannot create {}", marker.display()))?;
                        }
                        live = text;
                        rejected = None;
                        if api_down {
                            tracing::info!("keepalived.conf written; keepalived stays stopped until the local API is back");
                        } else {
                            match apply::reload(&s.reload).await {
                                Ok(()) => tracing::info!("keepalived.conf written and keepalived reloaded"),
                                Err(e) => tracing::warn!("keepalived.conf written, reload failed: {e}"),
                            }
                        }
                        notify_systemd(&[sd_notify::NotifyState::Status("configuration applied")]);
                    }
                    Err(e @ apply::ValidateError::CannotRun(_)) => {
                        // Nothing is known about the candidate: try it again later.
                        let now = Instant::now();
                        tracing::warn!("{e}; retrying in {validate_retry:?}");
                        pending.offer(text, now, Some(now + validate_retry));
                        validate_retry = (validate_retry * 2).min(MAX_VALIDATE_RETRY);
                    }
                    Err(e) => {
                        tracing::error!("{e}; the live configuration stays");
                        rejected = Some(text);
                        // A rejected migration switch leaves the mode of the live file.
                        mode = current_mode(&s, &live);
                    }
                }
            }
        }
    }
    notify_systemd(&[sd_notify::NotifyState::Stopping]);
    Ok(())
}
