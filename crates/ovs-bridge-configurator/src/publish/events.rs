//! What wakes the publisher: the kernel's link, address and route changes (netlink multicast,
//! `selection`'s change stream), NetworkManager's signals (`StateChanged`, `PropertiesChanged`
//! and the rest, on any of its objects), NetworkManager's name changing owner (a restart: the
//! signals are subscribed to again), the kubeconfig appearing or changing, and SIGTERM.
//! Nothing is polled. Signals about what the document does not hold (traffic counters, Wi-Fi
//! access points, which NetworkManager sends periodically once a client asks for them) wake
//! nothing: each would cost a read of the whole node.

use std::path::PathBuf;
use std::time::Duration;

use futures_util::StreamExt;
use selection::netlink::{ChangeStream, NetlinkError};
use selection::service::{DirWatcher, Wake as FileWake};
use tokio::sync::mpsc::UnboundedReceiver;
use zbus::fdo::{DBusProxy, NameOwnerChangedStream};
use zbus::{MatchRule, MessageStream};

const NM_NAME: &str = "org.freedesktop.NetworkManager";
const NM_PATH: &str = "/org/freedesktop/NetworkManager";

/// How long the kernel's burst of messages is gathered before it counts as one change.
const NETLINK_SETTLE: Duration = Duration::from_millis(20);

/// Signals queued while the loop reads the node; more are dropped (one is enough to re-read).
const SIGNAL_QUEUE: usize = 256;

/// One wake of the loop.
#[derive(Debug, PartialEq, Eq)]
pub enum Wake {
    /// The kernel's links, addresses or routes changed: read the node again, and lay the
    /// kernel's change over the last read meanwhile.
    Kernel,
    /// NetworkManager says something changed: read the node again.
    Changed,
    /// The kubeconfig appeared or changed: a waiting write may succeed now.
    Kubeconfig,
    /// NetworkManager left the bus (stopped): nothing to read until it is back.
    NetworkManagerGone,
    /// A signal about something the document does not hold.
    Irrelevant,
    /// SIGTERM: stop.
    Term,
}

/// A source that could not be subscribed to, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum EventsError {
    #[error(transparent)]
    Netlink(#[from] NetlinkError),
    #[error("subscribing to NetworkManager's signals on the system bus: {0}")]
    Bus(#[from] zbus::Error),
    #[error("cannot watch the kubeconfig: {0}")]
    Files(String),
    #[error("cannot catch SIGTERM: {0}")]
    Signal(#[from] std::io::Error),
    #[error("the {0} stopped delivering events")]
    Stopped(&'static str),
}

/// The subscriptions.
pub struct Events {
    netlink: ChangeStream,
    bus: zbus::Connection,
    signals: MessageStream,
    owner: NameOwnerChangedStream,
    _watcher: DirWatcher,
    files: UnboundedReceiver<FileWake>,
    term: tokio::signal::unix::Signal,
}

impl Events {
    /// Subscribes to every source (before the first read, so no change falls in between).
    pub async fn subscribe(kubeconfig: PathBuf) -> Result<Events, EventsError> {
        let netlink = ChangeStream::subscribe(NETLINK_SETTLE)?;
        let bus = zbus::connection::Builder::system()?.build().await?;
        let owner = DBusProxy::new(&bus)
            .await?
            .receive_name_owner_changed_with_args(&[(0, NM_NAME)])
            .await?;
        let signals = nm_signals(&bus).await?;
        let (mut watcher, files) =
            DirWatcher::new(vec![kubeconfig]).map_err(|e| EventsError::Files(e.to_string()))?;
        watcher.rewatch(None);
        let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        Ok(Events {
            netlink,
            bus,
            signals,
            owner,
            _watcher: watcher,
            files,
            term,
        })
    }

    /// The system bus connection (for NetworkManager's version).
    pub fn bus(&self) -> &zbus::Connection {
        &self.bus
    }

    /// The next wake.
    pub async fn next(&mut self) -> Result<Wake, EventsError> {
        tokio::select! {
            c = self.netlink.next() => c.map(|_| Wake::Kernel).ok_or(EventsError::Stopped("netlink change stream")),
            m = self.signals.next() => match m {
                Some(Ok(m)) if !about_the_document(&m) => Ok(Wake::Irrelevant),
                Some(_) => Ok(Wake::Changed),
                None => Err(EventsError::Stopped("D-Bus signal stream")),
            },
            o = self.owner.next() => {
                let o = o.ok_or(EventsError::Stopped("D-Bus name watch"))?;
                let running = o.args().is_ok_and(|a| a.new_owner().is_some());
                // A new process: its signals are subscribed to afresh, and the node re-read.
                self.signals = nm_signals(&self.bus).await?;
                tracing::info!("NetworkManager {}", if running { "is on the bus (again)" } else { "left the bus" });
                Ok(if running { Wake::Changed } else { Wake::NetworkManagerGone })
            }
            f = self.files.recv() => f.map(|_| Wake::Kubeconfig).ok_or(EventsError::Stopped("kubeconfig watch")),
            _ = self.term.recv() => Ok(Wake::Term),
        }
    }
}

/// Every signal NetworkManager sends from its objects (the manager's `StateChanged`, each
/// object's `PropertiesChanged`, devices and profiles added and removed).
async fn nm_signals(bus: &zbus::Connection) -> Result<MessageStream, zbus::Error> {
    let rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender(NM_NAME)?
        .path_namespace(NM_PATH)?
        .build();
    MessageStream::for_match_rule(rule, bus, Some(SIGNAL_QUEUE)).await
}

/// The interface whose properties change every few seconds once a client sets a refresh rate:
/// traffic counters.
const STATISTICS: &str = "org.freedesktop.NetworkManager.Device.Statistics";
/// Wi-Fi access points, seen and lost with every scan (nmstate shows no Wi-Fi).
const ACCESS_POINTS: &str = "/org/freedesktop/NetworkManager/AccessPoint/";

/// Whether signal `m` may be about something the document holds.
fn about_the_document(m: &zbus::Message) -> bool {
    let header = m.header();
    let path = header.path().map_or("", |p| p.as_str());
    let changed_interface = zbus::fdo::PropertiesChanged::from_message(m.clone())
        .and_then(|s| Some(s.args().ok()?.interface_name().to_string()));
    relevant(path, changed_interface.as_deref())
}

/// [`about_the_document`] for a signal from `path`, with the interface whose properties it
/// says changed (a `PropertiesChanged`).
fn relevant(path: &str, changed_interface: Option<&str>) -> bool {
    !path.starts_with(ACCESS_POINTS) && changed_interface != Some(STATISTICS)
}

/// NetworkManager's version (its D-Bus `Version` property); none when it does not answer.
pub async fn network_manager_version(bus: &zbus::Connection) -> Option<String> {
    let proxy = zbus::Proxy::new(bus, NM_NAME, NM_PATH, NM_NAME)
        .await
        .ok()?;
    proxy.get_property::<String>("Version").await.ok()
}

#[cfg(test)]
mod tests {
    use super::relevant;

    #[test]
    fn traffic_counters_and_access_points_wake_nothing() {
        let dev = "/org/freedesktop/NetworkManager/Devices/3";
        assert!(!relevant(dev, Some(super::STATISTICS)));
        assert!(!relevant(
            "/org/freedesktop/NetworkManager/AccessPoint/12",
            Some("org.freedesktop.NetworkManager.AccessPoint")
        ));
        assert!(relevant(dev, Some("org.freedesktop.NetworkManager.Device")));
        assert!(relevant(dev, None));
        assert!(relevant(
            "/org/freedesktop/NetworkManager/IP4Config/7",
            None
        ));
        assert!(relevant("/org/freedesktop/NetworkManager", None));
    }
}
