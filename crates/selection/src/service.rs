//! What every daemon binary needs around its work: the async runtime, systemd's notify
//! protocol, watching files through their directories, and short-lived netlink connections.

use std::collections::BTreeSet;
use std::future::Future;
use std::path::{Path, PathBuf};

use anyhow::Context;
use notify::{EventKind, RecursiveMode, Watcher};
use tokio::sync::mpsc;

use crate::netlink::NetlinkError;

/// The single-threaded runtime every daemon runs on (netlink sockets belong to the thread's
/// namespace; nothing here needs more than one thread).
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("async runtime")
}

/// Tells systemd (`Type=notify`) about readiness and status; outside systemd it does nothing.
pub fn notify_systemd(states: &[sd_notify::NotifyState]) {
    if let Err(e) = sd_notify::notify(states) {
        tracing::debug!("sd_notify: {e}");
    }
}

/// Runs `f` with a fresh rtnetlink handle; the connection's task is stopped when `f` is done,
/// whatever it returned, or when the future is dropped.
pub async fn with_netlink<T, F, Fut>(f: F) -> Result<T, NetlinkError>
where
    F: FnOnce(rtnetlink::Handle) -> Fut,
    Fut: Future<Output = T>,
{
    let (conn, handle, _) = rtnetlink::new_connection().map_err(NetlinkError::Socket)?;
    let _task = AbortOnDrop(tokio::spawn(conn));
    Ok(f(handle).await)
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What woke a daemon's file watch.
#[derive(Debug, PartialEq, Eq)]
pub enum Wake {
    /// These watched files (or directories on their way) changed.
    Paths(Vec<PathBuf>),
    /// Events were lost (inotify's queue overflowed, notify's Rescan) or the watch failed:
    /// re-read everything.
    Rescan,
}

/// Watches files through their directories: replacing a file by rename (how NetworkManager,
/// kubelet and our own atomic writes work) keeps being seen, and a file whose directory does
/// not exist yet is watched through its nearest existing ancestor until [`DirWatcher::rewatch`]
/// moves the watch down. Reads and events about other files never wake the daemon. When the
/// receiver yields `None` the watcher is dead, which a daemon must treat as a failure.
pub struct DirWatcher {
    watcher: notify::RecommendedWatcher,
    files: Vec<PathBuf>,
    watched: BTreeSet<PathBuf>,
}

impl DirWatcher {
    /// Starts watching for `files`; call [`DirWatcher::rewatch`] to place the watches.
    pub fn new(files: Vec<PathBuf>) -> notify::Result<(Self, mpsc::UnboundedReceiver<Wake>)> {
        let (tx, rx) = mpsc::unbounded_channel();
        let wanted = files.clone();
        let watcher = notify::recommended_watcher(move |ev: notify::Result<notify::Event>| {
            let wake = match ev {
                Err(e) => {
                    tracing::warn!("file watch error: {e}; re-reading everything");
                    Some(Wake::Rescan)
                }
                Ok(ev) if ev.need_rescan() => {
                    tracing::warn!("file events were lost; re-reading everything");
                    Some(Wake::Rescan)
                }
                Ok(ev) if matches!(ev.kind, EventKind::Access(_)) => None,
                Ok(ev) => {
                    let paths: Vec<PathBuf> = ev
                        .paths
                        .into_iter()
                        .filter(|p| wanted.iter().any(|f| f.starts_with(p)))
                        .collect();
                    (!paths.is_empty()).then_some(Wake::Paths(paths))
                }
            };
            if let Some(w) = wake {
                let _ = tx.send(w);
            }
        })?;
        let w = DirWatcher {
            watcher,
            files,
            watched: BTreeSet::new(),
        };
        Ok((w, rx))
    }

    /// Aims the watches at each file's nearest existing directory (after a directory appeared
    /// or vanished), plus `extra` itself when given (a bind-mounted file: writes to it do not
    /// show up in its directory's events).
    pub fn rewatch(&mut self, extra: Option<&Path>) {
        let mut wanted: BTreeSet<PathBuf> = self.files.iter().map(|f| nearest_dir(f)).collect();
        wanted.extend(extra.map(Path::to_path_buf));
        for gone in self.watched.difference(&wanted) {
            let _ = self.watcher.unwatch(gone);
        }
        for new in wanted.difference(&self.watched) {
            if let Err(e) = self.watcher.watch(new, RecursiveMode::NonRecursive) {
                tracing::warn!("cannot watch {}: {e}", new.display());
            }
        }
        self.watched = wanted;
    }
}

/// The file's directory, or its nearest existing ancestor.
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    async fn next(rx: &mut mpsc::UnboundedReceiver<Wake>) -> Option<Wake> {
        tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .ok()
            .flatten()
    }

    #[tokio::test]
    async fn follows_a_file_whose_directory_appears_later() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("run/nodeip-configuration/primary-ip");
        let (mut w, mut rx) = DirWatcher::new(vec![file.clone()]).unwrap();
        w.rewatch(None);
        std::fs::write(d.path().join("unrelated"), "x").unwrap();
        std::fs::create_dir(d.path().join("run")).unwrap();
        // Only the directory on the way wakes, not the unrelated file.
        assert_eq!(
            next(&mut rx).await,
            Some(Wake::Paths(vec![d.path().join("run")]))
        );
        w.rewatch(None);
        std::fs::create_dir(d.path().join("run/nodeip-configuration")).unwrap();
        assert!(matches!(next(&mut rx).await, Some(Wake::Paths(_))));
        w.rewatch(None);
        while tokio::time::timeout(Duration::from_millis(50), rx.recv())
            .await
            .is_ok()
        {}
        let tmp = file.with_extension("tmp");
        std::fs::write(&tmp, "192.0.2.10").unwrap();
        std::fs::rename(&tmp, &file).unwrap();
        let mut seen = false;
        while let Some(Wake::Paths(p)) = next(&mut rx).await {
            if p.contains(&file) {
                seen = true;
                break;
            }
        }
        assert!(seen, "the rename onto the file was not reported");
    }
}
