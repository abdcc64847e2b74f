//! `publish-state`: this node's network in the API as kubernetes-nmstate's NodeNetworkState,
//! kept current by events (netlink, NetworkManager's signals) and written only when it changes,
//! plus a heartbeat. A long-running mode of this binary rather than a daemon of its own: the
//! document is `show`'s (`node_state`), secrets go through `collect`'s redaction (`redact`), and
//! the kubelet's credentials through the probes' client (`probe::api`); a separate binary would
//! link the same nmstate, zbus and kube code and ship it twice.
//!
//! Layers: [`document`], [`parse`], [`compact`], [`overlay`] and [`state`] are pure (data in,
//! data out, no clock); [`cluster`], [`events`], [`reader`], [`kernel`] and [`heap`] are the
//! effects; [`daemon`] is the loop.
//!
//! Two reads: the whole one (`show`, seconds on a node with many interfaces) after every
//! change, and, after a change the kernel reports, its links and addresses straight from
//! netlink (milliseconds), laid over the last whole read and written first.

pub mod cluster;
pub mod compact;
pub mod daemon;
pub mod document;
pub mod events;
pub mod heap;
pub mod kernel;
pub mod overlay;
pub mod parse;
pub mod reader;
pub mod state;

use std::path::PathBuf;
use std::time::Duration;

use selection::app::UsageError;

/// The publisher's settings (the configurator's own for the node name and kubeconfig).
#[derive(Clone, Debug)]
pub struct Settings {
    pub node_name: String,
    pub kubeconfig: PathBuf,
    /// How long a burst of changes is gathered before the node is read.
    pub debounce: Duration,
    /// The longest time without a write (kubernetes-nmstate writes every 60 s).
    pub heartbeat: Duration,
    /// Longest wait for one API request.
    pub api_timeout: Duration,
}

/// The change-to-API budget a debounce must leave room in (the kernel's links read and laid
/// over the last read, and the write, take the rest).
pub const MAX_DEBOUNCE: Duration = Duration::from_millis(1500);
pub const DEFAULT_DEBOUNCE_MS: u64 = 300;
pub const DEFAULT_HEARTBEAT_SECS: u64 = 600;

impl Settings {
    /// Validated settings: a debounce within the change-to-API budget, a heartbeat of at least
    /// a second.
    pub fn new(
        node_name: String,
        kubeconfig: PathBuf,
        debounce_ms: u64,
        heartbeat_secs: u64,
    ) -> Result<Settings, UsageError> {
        let debounce = Duration::from_millis(debounce_ms);
        if debounce > MAX_DEBOUNCE {
            return Err(UsageError(format!(
                "--debounce-ms {debounce_ms}: at most {} (a change must reach the API within 2 s)",
                MAX_DEBOUNCE.as_millis()
            )));
        }
        if heartbeat_secs == 0 {
            return Err(UsageError("--heartbeat-secs must be at least 1".into()));
        }
        Ok(Settings {
            node_name,
            kubeconfig,
            debounce,
            heartbeat: Duration::from_secs(heartbeat_secs),
            api_timeout: Duration::from_secs(10),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_debounce_past_the_budget_or_no_heartbeat_is_a_usage_error() {
        let s = |d, h| Settings::new("n".into(), "/k".into(), d, h);
        assert!(s(DEFAULT_DEBOUNCE_MS, DEFAULT_HEARTBEAT_SECS).is_ok());
        assert!(s(2000, 600).is_err());
        assert!(s(300, 0).is_err());
    }
}
