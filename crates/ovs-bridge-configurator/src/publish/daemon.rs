//! The loop: events in ([`super::events`]), one transition of [`PublishState`], effects out
//! (read the node through nmstate, write through [`Cluster`]).

use std::time::SystemTime;

use selection::service::notify_systemd;
use tokio::time::Instant;

use super::Settings;
use super::cluster::{Cluster, WriteError};
use super::document::{Document, Versions};
use super::events::{Events, EventsError, Wake, network_manager_version};
use super::state::{Action, PublishState};
use crate::node_state;

/// The nmstate library that reads the state (`handlerNmstateVersion`); a test keeps it equal
/// to the version in Cargo.lock.
pub const NMSTATE_VERSION: &str = "2.2.62";

/// What the loop owns besides its event sources.
struct Publisher {
    state: PublishState<Document>,
    cluster: Cluster,
    /// The last refusal or reason for standing aside, said once until it changes.
    said: Option<String>,
}

/// Runs until SIGTERM; an event source that stops is an error (systemd restarts the unit).
pub async fn run(s: Settings) -> Result<(), EventsError> {
    let mut events = Events::subscribe(s.kubeconfig.clone()).await?;
    let mut p = Publisher {
        state: PublishState::new(s.debounce, s.heartbeat, Instant::now()),
        cluster: Cluster::new(s.kubeconfig.clone(), s.node_name.clone(), s.api_timeout),
        said: None,
    };
    tracing::info!(
        "publishing NodeNetworkState {} (heartbeat {:?}, debounce {:?})",
        s.node_name,
        s.heartbeat,
        s.debounce
    );
    notify_systemd(&[sd_notify::NotifyState::Ready]);
    loop {
        let deadline = p.state.deadline();
        let wait = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            w = events.next() => match w? {
                Wake::Term => break,
                Wake::Changed => p.state.changed(Instant::now()),
                Wake::Kubeconfig => p.state.retry_now(Instant::now()),
                Wake::NetworkManagerGone => {}
            },
            () = wait => {}
        }
        match p.state.due(Instant::now()) {
            Action::Read => p.read(events.bus()).await,
            Action::Write => p.write().await,
            Action::Nothing => {}
        }
    }
    notify_systemd(&[sd_notify::NotifyState::Stopping]);
    Ok(())
}

impl Publisher {
    /// Reads the node and offers the document; a failure (NetworkManager away) offers nothing:
    /// its return is an event of its own.
    async fn read(&mut self, bus: &zbus::Connection) {
        match read_document(bus).await {
            Ok(doc) => {
                let f = doc.fingerprint();
                self.state.read(doc, f, Instant::now());
            }
            Err(e) => {
                tracing::warn!("{e}; publishing nothing new until it can be read");
                self.state.unread();
            }
        }
    }

    async fn write(&mut self) {
        let Some(doc) = self.state.pending() else {
            return;
        };
        let started = Instant::now();
        match self.cluster.publish(doc, SystemTime::now()).await {
            Ok(()) => {
                let n = doc.current_state()["interfaces"]
                    .as_array()
                    .map_or(0, Vec::len);
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

/// Why the node could not be read.
#[derive(Debug, thiserror::Error)]
#[error("reading the node's network: {0}")]
pub struct ReadError(String);

/// The document now: `show`'s state, with NetworkManager's version.
pub async fn read_document(bus: &zbus::Connection) -> Result<Document, ReadError> {
    let state = node_state::current()
        .await
        .map_err(|e| ReadError(e.to_string()))?;
    let yaml = node_state::to_yaml(&state).map_err(|e| ReadError(e.to_string()))?;
    drop(state);
    let versions = Versions {
        network_manager: network_manager_version(bus).await,
        nmstate: NMSTATE_VERSION.into(),
    };
    Document::new(&yaml, versions).map_err(|e| ReadError(e.to_string()))
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
