//! A failed `apply-nmstate --live` told to the cluster: a Warning Event on this Node
//! (events.k8s.io/v1, in the `default` namespace as kubelet's own node events), beside MCO's
//! daemon's `FailedServiceRestart`, so `oc describe node` and `oc get events` say which file was
//! refused or rolled back and why, without a journal. Sent through the kubelet's kubeconfig (the
//! probes' client; a node may create events). Where the API server cannot be reached the
//! journal line stands alone and the exit status is the same.

use std::time::Duration;

use k8s_openapi::api::core::v1::{Node, ObjectReference};
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::{Api, Resource};

use crate::commands::boot_run::RunError;
use crate::nmstate::DeclarativeError;
use crate::probe::api;
use crate::settings::Settings;

/// The Events API's bound on a note.
const NOTE_LIMIT: usize = 1024;

/// How long the Event may take: the unit's failure is not held up by a slow API server.
const LIMIT: Duration = Duration::from_secs(5);

/// The Event's reason for a failed live apply (`kubectl describe`'s Reason column).
pub fn reason(e: &RunError) -> &'static str {
    match e {
        RunError::Declarative(DeclarativeError::Invalid { .. }) => "NMStateInvalid",
        RunError::Declarative(
            DeclarativeError::Apply { .. } | DeclarativeError::Unusable { .. },
        ) => "NMStateRolledBack",
        RunError::Declarative(DeclarativeError::AlreadyRolledBack { .. }) => {
            "NMStateRolledBackEarlier"
        }
        _ => "NMStateNotApplied",
    }
}

/// Records a Warning Event with `reason` and `note` (cut to the API's 1 kB) on this Node; a
/// failure to do so is logged, never returned.
pub async fn warn(s: &Settings, reason: &str, note: &str) {
    if !s.kubeconfig.exists() {
        tracing::info!(
            "no Event on the Node: no kubeconfig at {}",
            s.kubeconfig.display()
        );
        return;
    }
    match tokio::time::timeout(LIMIT, publish(s, reason, note)).await {
        Ok(Ok(())) => tracing::info!("Event {reason} recorded on Node {}", s.node_name),
        Ok(Err(e)) => tracing::warn!("no Event on Node {}: {e}", s.node_name),
        Err(_) => tracing::warn!(
            "no Event on Node {}: no answer within {LIMIT:?}",
            s.node_name
        ),
    }
}

async fn publish(s: &Settings, reason: &str, note: &str) -> Result<(), String> {
    let (client, _) = api::client(&s.kubeconfig, LIMIT).await?;
    // The Node's own reference (with its uid, which `oc describe node` matches events by); a
    // reference by name when the Node cannot be read.
    let regarding = match Api::<Node>::all(client.clone()).get(&s.node_name).await {
        Ok(node) => node.object_ref(&()),
        Err(e) => {
            tracing::debug!("reading Node {}: {e}", s.node_name);
            ObjectReference {
                api_version: Some("v1".into()),
                kind: Some("Node".into()),
                name: Some(s.node_name.clone()),
                ..ObjectReference::default()
            }
        }
    };
    let reporter = Reporter {
        controller: "ovs-bridge-configurator".into(),
        instance: Some(s.node_name.clone()),
    };
    let event = Event {
        type_: EventType::Warning,
        reason: reason.into(),
        note: Some(cut(note, NOTE_LIMIT).into()),
        action: "ApplyNMState".into(),
        secondary: None,
    };
    Recorder::new(client, reporter)
        .publish(&event, &regarding)
        .await
        .map_err(|e| e.to_string())
}

/// `text` cut to at most `limit` bytes, on a character boundary.
fn cut(text: &str, limit: usize) -> &str {
    let mut end = text.len().min(limit);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_note_is_cut_on_a_character_boundary() {
        assert_eq!(cut("short", NOTE_LIMIT), "short");
        let long = "é".repeat(600);
        let c = cut(&long, NOTE_LIMIT);
        assert_eq!(c.len(), 1024);
        assert_eq!(cut("aé", 2), "a");
    }
}
