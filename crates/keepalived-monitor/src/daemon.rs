//! The daemon: rebuild on every relevant change (netlink for address moves, inotify for the
//! node-IP files, the peer list and the mode files), apply once a candidate has been stable for
//! the debounce window.

use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::{RecursiveMode, Watcher};
use selection::netlink::{ChangeStream, NetlinkReader};
use selection::runfiles::read_ip_file;
use tokio::time::Instant;

use crate::apply;
use crate::build::{Inputs, build};
use crate::kube_source::NodeCache;
use crate::model::Keepalived;
use crate::peers;
use crate::settings::{PeerSource, Settings};

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
            PeerSource::Kubernetes(k) => Peers::Kubernetes(NodeCache::spawn(k, changed)),
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
) -> anyhow::Result<Keepalived> {
    let snapshot = reader.snapshot().await?;
    let ip = |v6| {
        read_ip_file(&s.node_ip_file(v6)).unwrap_or_else(|e| {
            tracing::warn!("ignoring {e}");
            None
        })
    };
    let peers = source.current()?;
    let inputs = Inputs {
        settings: s,
        snapshot: &snapshot,
        node_ipv4: ip(false),
        node_ipv6: ip(true),
        peers: &peers,
        mode: apply::desired_mode(s),
        remote_worker: s.remote_worker_file().exists(),
    };
    Ok(build(&inputs)?)
}

fn nearest_dir(p: &Path) -> PathBuf {
    let mut dir = p.parent().unwrap_or(Path::new("/")).to_path_buf();
    while !dir.is_dir() {
        match dir.parent() {
            Some(d) => dir = d.to_path_buf(),
            None => break,
        }
    }
    dir
}

fn notify_systemd(states: &[sd_notify::NotifyState]) {
    if let Err(e) = sd_notify::notify(states) {
        tracing::debug!("sd_notify: {e}");
    }
}

/// Runs until SIGTERM.
pub async fn run(s: Settings) -> anyhow::Result<()> {
    let vips: Vec<_> = s.api_vips.iter().chain(&s.ingress_vips).copied().collect();
    if let Err(e) = apply::remove_stale_vips(&vips).await {
        tracing::warn!("cannot check for stale VIPs: {e}");
    }
    let mut changes = ChangeStream::subscribe(Duration::from_millis(20))?;
    let mut reader = NetlinkReader::connect()?;
    let (tx, mut files) = tokio::sync::mpsc::unbounded_channel();
    let mut watcher = notify::recommended_watcher(move |ev| {
        let _ = tx.send(ev);
    })?;
    let (kube_tx, mut kube_changes) = tokio::sync::mpsc::unbounded_channel();
    let source = Peers::start(&s, kube_tx);
    let mut watched_files = vec![s.node_ip_file(false), s.mode_files()[0].clone()];
    watched_files.extend(source.file().map(Path::to_path_buf));
    let mut watched: Vec<PathBuf> = Vec::new();
    let mut rewatch = |watcher: &mut notify::RecommendedWatcher| {
        for f in &watched_files {
            let d = nearest_dir(f);
            if !watched.contains(&d) && watcher.watch(&d, RecursiveMode::NonRecursive).is_ok() {
                watched.push(d);
            }
        }
    };
    rewatch(&mut watcher);
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut live = std::fs::read_to_string(&s.output).unwrap_or_default();
    let mut pending: Option<(String, Instant)> = None;
    let mut rejected: Option<String> = None;
    let mut first = true;
    loop {
        match candidate(&s, &mut reader, &source).await {
            Ok(conf) => {
                let text = conf.render();
                if text == live || rejected.as_ref() == Some(&text) {
                    pending = None;
                } else if pending.as_ref().is_none_or(|(p, _)| *p != text) {
                    tracing::info!(
                        "configuration changed; applying once stable for {:?}",
                        s.debounce
                    );
                    pending = Some((text, Instant::now() + s.debounce));
                }
            }
            Err(e) => {
                tracing::warn!("{e}; keeping the current configuration");
                pending = None;
            }
        }
        if first {
            notify_systemd(&[sd_notify::NotifyState::Ready]);
            first = false;
        }
        let deadline = pending.as_ref().map(|(_, d)| *d);
        let due = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = term.recv() => break,
            c = changes.next() => tracing::debug!("network change: {c:?}"),
            _ = files.recv() => rewatch(&mut watcher),
            _ = kube_changes.recv() => tracing::debug!("node list changed"),
            _ = due => {
                let Some((text, _)) = pending.take() else { continue };
                match apply::validate(&s.output, &text) {
                    Ok(()) => {
                        apply::write(&s.output, &text).map_err(anyhow::Error::msg)?;
                        live = text;
                        rejected = None;
                        match apply::reload(&s.reload).await {
                            Ok(()) => tracing::info!("keepalived.conf written and keepalived reloaded"),
                            Err(e) => tracing::warn!("keepalived.conf written, reload failed: {e}"),
                        }
                        notify_systemd(&[sd_notify::NotifyState::Status("configuration applied")]);
                    }
                    Err(e) => {
                        tracing::error!("{e}; the live configuration stays");
                        rejected = Some(text);
                    }
                }
            }
        }
    }
    notify_systemd(&[sd_notify::NotifyState::Stopping]);
    Ok(())
}
