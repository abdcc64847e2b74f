//! The selection loop with upstream's retry semantics, woken early by netlink changes.

use std::net::{IpAddr, SocketAddr, TcpListener};
use std::time::Duration;

use selection::net::go_text;
use selection::netlink::{ChangeStream, NetlinkError, NetlinkReader};
use selection::select::{Unusable, check_flags};
use selection::{Selection, Snapshot, select};

use crate::settings::Settings;

/// A burst of netlink events is handled once it has been quiet this long.
const SETTLE: Duration = Duration::from_millis(50);
/// Wait after a result that cannot be used yet (tentative address, one family missing).
const NOT_USABLE_DELAY: Duration = Duration::from_secs(1);
/// Cap of the "nothing found" back-off.
const MAX_BACKOFF_SECS: u64 = 300;

/// Upstream's back-off: doubled at the top of every attempt (also after a 1 s retry), capped
/// at 300 s when nothing was found: 2, 4, 8, ... 256, 300, 300 s.
#[derive(Debug)]
pub struct Backoff {
    secs: u64,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { secs: 1 }
    }
}

impl Backoff {
    /// Called at the start of every attempt.
    pub fn next_attempt(&mut self) {
        self.secs = self.secs.saturating_mul(2);
    }

    /// How long to wait after an attempt that found nothing.
    pub fn nothing_found_delay(&mut self) -> Duration {
        self.secs = self.secs.min(MAX_BACKOFF_SECS);
        Duration::from_secs(self.secs)
    }
}

/// Why an attempt did not produce a usable result.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    #[error("no suitable node IP found")]
    NothingFound(Box<Selection>),
    #[error("{0} is not usable yet: {1}")]
    NotUsable(String, NotUsable),
    #[error("only one address family found ({0}), both are expected")]
    OneFamily(String),
    #[error(transparent)]
    System(#[from] NetlinkError),
}

/// One attempt: snapshot, select, check usability. Also used by `explain`.
pub async fn attempt(
    reader: &mut NetlinkReader,
    settings: &Settings,
) -> Result<(Snapshot, Selection), NetlinkError> {
    let snap = reader.snapshot().await?;
    let sel = select(&snap, &settings.request);
    Ok((snap, sel))
}

/// Why the chosen primary cannot be used yet.
#[derive(Debug, thiserror::Error)]
pub enum NotUsable {
    #[error(transparent)]
    Flags(#[from] Unusable),
    #[error("cannot bind {}: {source}", go_text(*ip))]
    Bind { ip: IpAddr, source: std::io::Error },
}

/// Whether the chosen primary can be used: kernel flags first, then a bind test as the final
/// guarantee (an IPv6 address in DAD cannot be bound; crio would fail, Bug 2096226).
pub fn usability(snap: &Snapshot, sel: &Selection) -> Result<(), NotUsable> {
    check_flags(snap, sel)?;
    match sel.primary() {
        Some(ip @ IpAddr::V6(_)) => bind_test(ip),
        _ => Ok(()),
    }
}

fn bind_test(ip: IpAddr) -> Result<(), NotUsable> {
    TcpListener::bind(SocketAddr::new(ip, 0))
        .map(drop)
        .map_err(|source| NotUsable::Bind { ip, source })
}

fn judge(snap: &Snapshot, sel: Selection, settings: &Settings) -> Result<Selection, Failure> {
    if sel.addresses.is_empty() {
        return Err(Failure::NothingFound(Box::new(sel)));
    }
    if let Err(why) = usability(snap, &sel) {
        return Err(Failure::NotUsable(go_text(sel.addresses[0]), why));
    }
    if settings.dual_stack && !sel.has_both_families() {
        let found = sel
            .addresses
            .iter()
            .map(|a| go_text(*a))
            .collect::<Vec<_>>()
            .join(",");
        if settings.retry {
            return Err(Failure::OneFamily(found));
        }
        tracing::warn!(
            "dual-stack expected but only {found} found; continuing (no --retry-on-failure)"
        );
    }
    Ok(sel)
}

/// Selects until a usable result is found. Without retry the first failure is returned.
///
/// With retry, rather than sleeping blindly, a netlink change (an address appearing, DAD
/// completing, a default route being added) ends the wait early. The change stream is
/// subscribed before the first dump so nothing in between is missed.
pub async fn choose(settings: &Settings) -> Result<Selection, Failure> {
    let mut changes = if settings.retry {
        Some(ChangeStream::subscribe(SETTLE)?)
    } else {
        None
    };
    let mut reader = NetlinkReader::connect()?;
    let mut backoff = Backoff::default();
    loop {
        backoff.next_attempt();
        let result = match attempt(&mut reader, settings).await {
            Ok((snap, sel)) => judge(&snap, sel, settings),
            Err(e) => Err(Failure::System(e)),
        };
        let failure = match result {
            Ok(sel) => return Ok(sel),
            Err(f) if !settings.retry => return Err(f),
            Err(f) => f,
        };
        let delay = match failure {
            Failure::NothingFound(_) => backoff.nothing_found_delay(),
            _ => NOT_USABLE_DELAY,
        };
        tracing::info!(
            "{failure}; retrying in {}s or on the next network change",
            delay.as_secs()
        );
        wait(changes.as_mut(), delay).await;
    }
}

async fn wait(changes: Option<&mut ChangeStream>, delay: Duration) {
    let Some(changes) = changes else {
        return tokio::time::sleep(delay).await;
    };
    tokio::select! {
        _ = tokio::time::sleep(delay) => {}
        c = changes.next() => match c {
            Some(c) => tracing::debug!("woken early by a network change: {c:?}"),
            // The socket closed: fall back to the timer.
            None => tokio::time::sleep(delay).await,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_sequence_matches_upstream() {
        let mut b = Backoff::default();
        let seq: Vec<u64> = (0..11)
            .map(|_| {
                b.next_attempt();
                b.nothing_found_delay().as_secs()
            })
            .collect();
        assert_eq!(seq, [2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]);
    }

    #[test]
    fn backoff_doubles_across_not_usable_retries() {
        // Three 1 s retries, then nothing found: the delay already is 16 s (reference §7.7).
        let mut b = Backoff::default();
        for _ in 0..3 {
            b.next_attempt();
        }
        b.next_attempt();
        assert_eq!(b.nothing_found_delay().as_secs(), 16);
    }

    #[test]
    fn bind_test_rejects_an_address_this_host_does_not_have() {
        // 192.0.2.0/24 is documentation space: never configured on a test machine.
        assert!(bind_test("192.0.2.77".parse().unwrap()).is_err());
        assert!(bind_test("127.0.0.1".parse().unwrap()).is_ok());
    }
}
