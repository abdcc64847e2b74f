//! What wakes the daemon: the event sources it waits on, merged into one [`Event`] at a time.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use selection::netlink::{ChangeStream, NetlinkError};
use selection::service::{DirWatcher, Wake};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::Instant;

use crate::watchdog;

/// One wake of the daemon's loop.
#[derive(Debug)]
pub enum Event {
    /// An input may have changed (an address, a watched file, the node list): rebuild.
    Changed,
    /// The migration schedule's next instant came.
    Migration,
    /// The bootstrap watchdog's verdict on the local API.
    Api(watchdog::Event),
    /// The pending candidate's debounce window ended.
    Due,
    /// SIGTERM: stop.
    Term,
}

/// A source that stopped: the daemon exits non-zero so systemd restarts it.
#[derive(Debug, thiserror::Error)]
pub enum Stopped {
    /// Without it address moves go unseen.
    #[error("the netlink change stream closed")]
    Netlink,
    #[error("the file watcher stopped delivering events")]
    Files,
}

/// A source that could not be subscribed to.
#[derive(Debug, thiserror::Error)]
pub enum SubscribeError {
    #[error(transparent)]
    Netlink(#[from] NetlinkError),
    #[error("cannot watch the input files: {0}")]
    Files(#[from] notify::Error),
    #[error("cannot catch SIGTERM: {0}")]
    Signal(#[from] std::io::Error),
}

/// The sources: netlink address and route changes, the watched files, the Kubernetes node
/// cache, the bootstrap watchdog and SIGTERM. The two timers are the caller's state.
pub struct Events {
    changes: ChangeStream,
    watcher: DirWatcher,
    files: UnboundedReceiver<Wake>,
    nodes: UnboundedReceiver<()>,
    api: UnboundedReceiver<watchdog::Event>,
    term: tokio::signal::unix::Signal,
}

impl Events {
    /// Subscribes to every source; `files` are the inputs a render reads.
    pub fn subscribe(
        files: Vec<PathBuf>,
        nodes: UnboundedReceiver<()>,
        api: UnboundedReceiver<watchdog::Event>,
    ) -> Result<Events, SubscribeError> {
        let changes = ChangeStream::subscribe(Duration::from_millis(20))?;
        let (mut watcher, files) = DirWatcher::new(files)?;
        watcher.rewatch(None);
        let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        Ok(Events {
            changes,
            watcher,
            files,
            nodes,
            api,
            term,
        })
    }

    /// The next event; `migration` is when the migration schedule wakes, `due` when the pending
    /// candidate does (if one is pending).
    pub async fn next(
        &mut self,
        migration: SystemTime,
        due: Option<Instant>,
    ) -> Result<Event, Stopped> {
        tokio::select! {
            _ = self.term.recv() => Ok(Event::Term),
            c = self.changes.next() => match c {
                Some(c) => {
                    tracing::debug!("network change: {c:?}");
                    Ok(Event::Changed)
                }
                None => Err(Stopped::Netlink),
            },
            ev = self.files.recv() => {
                if ev.is_none() {
                    return Err(Stopped::Files);
                }
                // Every wake re-reads all inputs, so a burst (or a Rescan) is one rebuild.
                while self.files.try_recv().is_ok() {}
                self.watcher.rewatch(None);
                Ok(Event::Changed)
            }
            // `Some`: with the file source the sender is gone, and a closed channel would be
            // ready forever (a busy loop).
            Some(()) = self.nodes.recv() => {
                // One rebuild for a burst of watch events.
                while self.nodes.try_recv().is_ok() {}
                tracing::debug!("node list changed");
                Ok(Event::Changed)
            }
            _ = tokio::time::sleep_until(instant_of(migration)) => Ok(Event::Migration),
            Some(e) = self.api.recv() => Ok(Event::Api(e)),
            _ = sleep_until(due) => Ok(Event::Due),
        }
    }
}

/// The monotonic instant at which the wall clock reads `t` (now, if past).
pub fn instant_of(t: SystemTime) -> Instant {
    Instant::now() + t.duration_since(SystemTime::now()).unwrap_or_default()
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
