//! The loop: events in ([`super::events`]), one transition of [`PublishState`], effects out
//! (read the node through [`Reader`], write through [`Cluster`]).

use std::future::Future;
use std::pin::Pin;
use std::time::SystemTime;

use selection::netlink::NetlinkReader;
use selection::service::notify_systemd;
use tokio::time::Instant;

use super::Settings;
use super::cluster::{Cluster, WriteError};
use super::compact::CompactDocument;
use super::document::{Document, Versions};
use super::events::{Events, EventsError, Wake, network_manager_version};
use super::heap;
use super::kernel::{self, KernelView};
use super::overlay::laid_over;
use super::reader::{ReadError, Reader};
use super::state::{Action, PublishState};

/// The nmstate library that reads the state (`handlerNmstateVersion`); a test keeps it equal
/// to the version in Cargo.lock.
pub const NMSTATE_VERSION: &str = "2.2.62";

/// What the loop owns besides its event sources.
struct Publisher {
    state: PublishState<CompactDocument>,
    reader: Reader,
    cluster: Cluster,
    netlink: NetlinkReader,
    /// The last whole read, and the kernel as that read began.
    base: Option<(CompactDocument, KernelView)>,
    /// The kernel as the read under way began.
    read_from: Option<KernelView>,
    /// The last refusal or reason for standing aside, said once until it changes.
    said: Option<String>,
}

/// A read of the node under way (its process killed if it is dropped).
type Reading = Pin<Box<dyn Future<Output = Result<CompactDocument, ReadError>>>>;

/// Runs until SIGTERM, reading the node through `reader`; an event source that stops is an
/// error (systemd restarts the unit). Events are taken while the node is read, so a change
/// that makes the read under way stale can start it over ([`PublishState::restart_read`]).
pub async fn run(s: Settings, reader: Reader) -> Result<(), EventsError> {
    let mut events = Events::subscribe(s.kubeconfig.clone()).await?;
    let mut p = Publisher {
        state: PublishState::new(s.debounce, s.heartbeat, Instant::now()),
        reader,
        cluster: Cluster::new(s.kubeconfig.clone(), s.node_name.clone(), s.api_timeout),
        netlink: NetlinkReader::connect()?,
        base: None,
        read_from: None,
        said: None,
    };
    tracing::info!(
        "publishing NodeNetworkState {} (heartbeat {:?}, debounce {:?})",
        s.node_name,
        s.heartbeat,
        s.debounce
    );
    notify_systemd(&[sd_notify::NotifyState::Ready]);
    let mut reading: Option<Reading> = None;
    loop {
        let deadline = p.state.deadline();
        let wait = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        let read = async {
            match reading.as_mut() {
                Some(r) => r.await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            w = events.next() => if !p.woken(w?, &mut reading) {
                break;
            },
            r = read => {
                reading = None;
                p.offer(r).await;
            }
            () = wait => {}
        }
        match p.state.due(Instant::now()) {
            Action::Read => {
                p.read_from = p.kernel().await;
                let r = read_document(p.reader.clone(), events.bus().clone());
                reading = Some(Box::pin(r));
            }
            Action::Overlay => p.overlay().await,
            Action::Write => p.write().await,
            Action::Nothing => {}
        }
    }
    notify_systemd(&[sd_notify::NotifyState::Stopping]);
    Ok(())
}

impl Publisher {
    /// Takes one event; false on SIGTERM.
    fn woken(&mut self, w: Wake, reading: &mut Option<Reading>) -> bool {
        let now = Instant::now();
        match w {
            Wake::Term => return false,
            Wake::Kernel => {
                self.state.kernel_changed(now);
                self.changed(reading);
            }
            Wake::Changed => {
                self.state.changed(now);
                self.changed(reading);
            }
            Wake::Kubeconfig => self.state.retry_now(now),
            Wake::NetworkManagerGone | Wake::Irrelevant => {}
        }
        true
    }

    /// The node may have changed (the state was told how); a read under way that this makes
    /// stale is given up.
    fn changed(&mut self, reading: &mut Option<Reading>) {
        if reading.is_some() && self.state.restart_read(Instant::now()) {
            tracing::debug!("the node changed as it was being read: reading it again");
            *reading = None;
        }
    }

    /// Offers what a read gave, with what the kernel changed since it began laid over it; a
    /// failure (NetworkManager away) offers nothing: its return is an event of its own.
    async fn offer(&mut self, read: Result<CompactDocument, ReadError>) {
        match read {
            Ok(doc) => {
                let doc = self.rebase(doc).await;
                let f = doc.fingerprint();
                self.state.read(doc, f, Instant::now());
            }
            Err(e) => {
                tracing::warn!("{e}; publishing nothing new until it can be read");
                self.state.unread(Instant::now());
            }
        }
        // The parsed document is gone; what it took goes back to the system.
        heap::give_back();
    }

    /// A whole read becomes the base later kernel changes are laid over; returns it with
    /// those since it began. Without the kernel as it began there is no base until the next.
    async fn rebase(&mut self, doc: CompactDocument) -> CompactDocument {
        let Some(from) = self.read_from.take() else {
            self.base = None;
            return doc;
        };
        self.base = Some((doc, from));
        match self.current().await {
            Some(current) => current,
            None => self.base.as_ref().expect("set above").0.clone(),
        }
    }

    /// The kernel now; none when netlink fails (said at debug: the whole read still runs).
    async fn kernel(&mut self) -> Option<KernelView> {
        kernel::read(&mut self.netlink)
            .await
            .inspect_err(|e| tracing::debug!("reading the kernel's links: {e}"))
            .ok()
    }

    /// The last whole read with what the kernel changed since laid over it; none without a
    /// read yet, or when the kernel cannot be read.
    async fn current(&mut self) -> Option<CompactDocument> {
        let now = self.kernel().await?;
        let (doc, from) = self.base.as_ref()?;
        laid_over(doc, from, &now)
            .inspect_err(|e| tracing::warn!("the last document does not parse again: {e}"))
            .ok()
    }

    /// Offers the kernel's change laid over the last read (the read that follows brings the
    /// rest).
    async fn overlay(&mut self) {
        let started = Instant::now();
        if let Some(doc) = self.current().await {
            let f = doc.fingerprint();
            tracing::debug!(
                "laid the kernel's change over the last read in {} ms",
                started.elapsed().as_millis()
            );
            self.state.overlaid(doc, f, Instant::now());
        }
        heap::give_back();
    }

    async fn write(&mut self) {
        let Some(doc) = self.state.pending() else {
            return;
        };
        let started = Instant::now();
        match self.cluster.publish(doc, SystemTime::now()).await {
            Ok(()) => {
                let n = doc.interfaces();
                if let Some(cut) =
                    (!doc.cut().is_empty()).then(|| super::document::cut_note(doc.cut()))
                {
                    tracing::warn!("{cut}");
                }
                tracing::info!("published ({n} interfaces) in {:?}", started.elapsed());
                notify_systemd(&[sd_notify::NotifyState::Status(&format!(
                    "published {n} interfaces"
                ))]);
                self.said = None;
                self.state.written(Instant::now());
            }
            Err(e) => self.failed(&e),
        }
        heap::give_back();
    }

    /// One line per distinct failure; retried per the state's backoff.
    fn failed(&mut self, e: &WriteError) {
        let retry = self.state.failed(e.failure(), Instant::now());
        let line = e.to_string();
        let new = self.said.as_deref() != Some(line.as_str());
        match (e, retry) {
            (WriteError::KubernetesNmstate(_), _) if new => tracing::info!("{line}"),
            (WriteError::Refused { .. }, Some(at)) if new => {
                tracing::warn!("{line}; trying again in {:?}", at - Instant::now())
            }
            (WriteError::Away(_), _) if new => tracing::warn!("{line}"),
            _ => tracing::debug!("{line}"),
        }
        if new {
            notify_systemd(&[sd_notify::NotifyState::Status(&line)]);
        }
        self.said = Some(line);
    }
}

/// The document now: `show`'s state, with NetworkManager's version.
pub async fn read_document(
    reader: Reader,
    bus: zbus::Connection,
) -> Result<CompactDocument, ReadError> {
    let started = Instant::now();
    let yaml = reader.read().await?;
    let shown = started.elapsed();
    let versions = Versions {
        network_manager: network_manager_version(&bus).await,
        nmstate: NMSTATE_VERSION.into(),
    };
    let doc = Document::new(&yaml, versions).map_err(|e| ReadError(e.to_string()))?;
    drop(yaml);
    let doc = CompactDocument::from(doc);
    tracing::debug!(
        "read the node in {} ms (show {} ms, {} interfaces, {} KiB of JSON)",
        started.elapsed().as_millis(),
        shown.as_millis(),
        doc.interfaces(),
        doc.json_len() / 1024
    );
    Ok(doc)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_reported_nmstate_version_is_the_one_linked() {
        let lock = include_str!("../../../../Cargo.lock");
        let at = lock
            .find("name = \"nmstate\"\nversion = \"")
            .expect("nmstate in Cargo.lock");
        let version = lock[at..].lines().nth(1).unwrap();
        assert_eq!(version, format!("version = \"{}\"", super::NMSTATE_VERSION));
    }
}
