//! The bootstrap node's API watchdog (reference §4.6): keepalived on the bootstrap holds the API
//! VIP only while the local kube-apiserver answers `/readyz` (or Ironic answers, which keeps the
//! VIP for the installer); five consecutive failures stop keepalived, and it is started again
//! when `/readyz` is back.

use std::time::Duration;

use kube::client::Body;
use kube::{Client, Config};
use tokio::sync::mpsc::UnboundedSender;
use tokio::time::Instant;

/// Consecutive failures tolerated; the fifth stops keepalived.
const THRESHOLD: u32 = 4;
const INITIAL_WAIT: Duration = Duration::from_secs(30 * 60);
const INITIAL_PERIOD: Duration = Duration::from_secs(3);
const PERIOD: Duration = Duration::from_secs(1);
const TIMEOUT: Duration = Duration::from_secs(5);
const READYZ: &str = "/readyz";
/// Ironic's API: any HTTP answer counts.
const IRONIC: &str = "http://localhost:6385";
const IRONIC_PATH: &str = "/v1";

/// What the daemon must do with keepalived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The API is gone: stop keepalived (repeated every check while down, so a failed stop is
    /// retried).
    Stop,
    /// The API is back: start keepalived again.
    Start,
}

/// Consecutive-failure counting; pure.
#[derive(Debug, Default)]
pub struct Health {
    failures: u32,
}

impl Health {
    /// One check's outcome. Ironic answering while `/readyz` does not leaves the count as is.
    pub fn observe(&mut self, readyz: bool, ironic: bool) -> Option<Event> {
        if readyz {
            let was_down = self.failures > THRESHOLD;
            self.failures = 0;
            return was_down.then_some(Event::Start);
        }
        if !ironic {
            self.failures += 1;
        }
        (self.failures > THRESHOLD).then_some(Event::Stop)
    }
}

/// Why the watchdog could not start.
#[derive(Debug, thiserror::Error)]
pub enum WatchdogError {
    #[error("{url} is not a URL: {source}")]
    Url {
        url: String,
        source: http::uri::InvalidUri,
    },
    #[error("cannot build an HTTP client for {url}: {source}")]
    Client { url: String, source: kube::Error },
}

/// An HTTP client for `url` (the Kubernetes client's own stack, which the daemon links anyway):
/// TLS not verified (the bootstrap's serving certificate is not in the host's trust store), no
/// proxy, no retries (a failure is the answer), bounded by [`TIMEOUT`].
fn client(url: &str) -> Result<Client, WatchdogError> {
    let uri = url.parse().map_err(|source| WatchdogError::Url {
        url: url.to_owned(),
        source,
    })?;
    let mut config = Config::new(uri);
    config.accept_invalid_certs = true;
    config.connect_timeout = Some(TIMEOUT);
    config.read_timeout = Some(TIMEOUT);
    config.write_timeout = Some(TIMEOUT);
    config.default_retry = false;
    Client::try_from(config).map_err(|source| WatchdogError::Client {
        url: url.to_owned(),
        source,
    })
}

/// Whether a GET of `path` answers within [`TIMEOUT`] (with 200 OK when `need_ok`).
async fn answers(client: &Client, path: &str, need_ok: bool) -> bool {
    let request = http::Request::get(path)
        .body(Body::empty())
        .expect("a GET of a fixed path is a valid request");
    match tokio::time::timeout(TIMEOUT, client.send(request)).await {
        Ok(Ok(r)) => !need_ok || r.status() == http::StatusCode::OK,
        Ok(Err(e)) => {
            tracing::debug!("{path}: {e}");
            false
        }
        Err(_) => {
            tracing::debug!("{path}: no answer within {TIMEOUT:?}");
            false
        }
    }
}

/// Watches `https://localhost:<api_port>/readyz` and Ironic's API, and sends [`Event`]s until
/// the receiver is gone.
pub fn spawn(api_port: u16, events: UnboundedSender<Event>) -> Result<(), WatchdogError> {
    let api = client(&format!("https://localhost:{api_port}"))?;
    let ironic = client(IRONIC)?;
    let readyz = format!("https://localhost:{api_port}{READYZ}");
    tokio::spawn(async move {
        let started = Instant::now();
        while !answers(&api, READYZ, true).await {
            if started.elapsed() >= INITIAL_WAIT {
                tracing::warn!("{readyz} not ready after {INITIAL_WAIT:?}; watching it anyway");
                break;
            }
            tokio::time::sleep(INITIAL_PERIOD).await;
        }
        tracing::info!("watching {readyz} (Ironic fallback {IRONIC}{IRONIC_PATH})");
        let mut health = Health::default();
        loop {
            let ready = answers(&api, READYZ, true).await;
            let ironic = ready || answers(&ironic, IRONIC_PATH, false).await;
            if let Some(e) = health.observe(ready, ironic)
                && events.send(e).is_err()
            {
                return;
            }
            tokio::time::sleep(PERIOD).await;
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_consecutive_failures_stop_and_readyz_starts_again() {
        let mut h = Health::default();
        for _ in 0..4 {
            assert_eq!(h.observe(false, false), None);
        }
        assert_eq!(h.observe(false, false), Some(Event::Stop));
        assert_eq!(
            h.observe(false, false),
            Some(Event::Stop),
            "repeated while down"
        );
        assert_eq!(
            h.observe(false, true),
            Some(Event::Stop),
            "Ironic does not undo a stop"
        );
        assert_eq!(h.observe(true, true), Some(Event::Start));
        assert_eq!(h.observe(true, true), None);
    }

    #[test]
    fn ironic_or_a_single_success_keeps_keepalived_running() {
        let mut h = Health::default();
        for _ in 0..20 {
            assert_eq!(h.observe(false, true), None, "Ironic up: keep the VIP");
        }
        for _ in 0..4 {
            assert_eq!(h.observe(false, false), None);
        }
        assert_eq!(
            h.observe(true, true),
            None,
            "a success before the fifth failure resets"
        );
        for _ in 0..4 {
            assert_eq!(h.observe(false, false), None);
        }
        assert_eq!(h.observe(false, false), Some(Event::Stop));
    }
}
