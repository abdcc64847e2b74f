//! The probes a change must pass before it is committed (boot-time `apply` and `apply-nmstate`,
//! and the day-2 `apply-live` share them): kubernetes-nmstate's set, looked at before the change
//! to select the ones that work, then awaited after it until each passes again.
//!
//! - every main-table default gateway, and the one traffic takes after the change ([`gateway`]):
//!   ready means forwarding;
//! - every nameserver of resolv.conf ([`dns`]);
//! - the API server, through the kubelet's kubeconfig, else the bootstrap one (api-int either
//!   way), and on a running node (a live change) its readiness ([`api`]).
//!
//! kubernetes-nmstate polls each selected probe every second for up to 120 s, so a bad change
//! is rolled back only after minutes; here all of them share one bound (the caller's:
//! `forwarding-timeout-secs` at boot, `live-probe-timeout-secs` for a live change, see
//! [`Settings`]), and a probe that did not pass before the change is never waited for.

pub mod api;
pub mod dns;
pub mod gateway;

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub use gateway::{Answer, BEFORE_LIMIT, Gateway, Heard, NotForwarding, default_gateways};
use selection::model::Snapshot;
use selection::netlink::NetlinkReader;

use crate::settings::Settings;

/// Between two looks at a nameserver or the API server after a change.
const POLL: Duration = Duration::from_millis(250);

/// What the probes look at, from the settings.
#[derive(Clone, Debug)]
pub struct Targets {
    pub resolv_conf: PathBuf,
    pub dns_name: crate::settings::ProbeName,
    /// The kubelet's kubeconfig, then the bootstrap one: the first that exists is used.
    pub kubeconfigs: Vec<PathBuf>,
    pub node: String,
    /// Whether a Ready node must stay Ready: only on a running node. At boot kubelet is not
    /// running yet, and a Node still Ready from before a quick reboot turns Unknown on its own
    /// (40 s after kubelet's last heartbeat), which says nothing about the change.
    pub readiness: bool,
}

impl Targets {
    /// The boot-time paths' targets (`apply`, `apply-nmstate`): no node readiness.
    pub fn at_boot(s: &Settings) -> Targets {
        Targets {
            resolv_conf: s.etc_dir.join("resolv.conf"),
            dns_name: s.dns_probe_name.clone(),
            kubeconfigs: vec![
                s.kubeconfig.clone(),
                s.etc_dir.join("kubernetes/kubeconfig"),
            ],
            node: s.node_name.clone(),
            readiness: false,
        }
    }

    /// A live change's targets: the boot's, and the node's readiness.
    pub fn live(s: &Settings) -> Targets {
        Targets {
            readiness: true,
            ..Targets::at_boot(s)
        }
    }
}

/// The probes that passed before the change: each must pass again after it.
#[derive(Clone, Debug)]
pub struct Selected {
    targets: Targets,
    gateways: Vec<Heard>,
    nameservers: Vec<SocketAddr>,
    /// The API server's URL, and whether the node was Ready.
    api: Option<(String, bool)>,
}

/// Why a change failed its probes (it is rolled back).
#[derive(Debug, thiserror::Error)]
pub enum Failed {
    #[error(transparent)]
    Gateway(#[from] NotForwarding),
    #[error(
        "the nameserver {server} answered a lookup of {name} before the change and not within \
         {limit:?} after it"
    )]
    Dns {
        server: IpAddr,
        name: crate::settings::ProbeName,
        limit: Duration,
    },
    #[error(
        "the API server {server} answered before the change and not within {limit:?} after it \
         ({why})"
    )]
    Api {
        server: String,
        why: String,
        limit: Duration,
    },
    #[error("node {node} was Ready before the change and not within {limit:?} after it")]
    NotReady { node: String, limit: Duration },
}

/// Looks at every probe now (all at once, each for up to [`BEFORE_LIMIT`]) and keeps the ones
/// that pass; says which, and why the others are not awaited.
pub async fn select(targets: &Targets, snap: &Snapshot) -> Selected {
    let gateways = default_gateways(snap);
    let gateways = gateway::answering(&gateways);
    let servers = dns::nameservers_of(&targets.resolv_conf, snap);
    let dns = futures_util::future::join_all(servers.into_iter().map(|server| async move {
        let ok =
            dns::answered_within(server, &targets.dns_name, BEFORE_LIMIT, dns::Refusal::Ends).await;
        (server, ok)
    }));
    let api = api::look(&targets.kubeconfigs, &targets.node, BEFORE_LIMIT);
    let (gateways, dns, api) = tokio::join!(gateways, dns, api);
    let mut nameservers = Vec::new();
    for (server, ok) in dns {
        let ip = server.ip();
        if ok {
            tracing::info!(
                "nameserver {ip} answers a lookup of {}: it must answer after the change",
                targets.dns_name
            );
            nameservers.push(server);
        } else {
            tracing::info!(
                "nameserver {ip} does not answer a lookup of {} within {BEFORE_LIMIT:?}: it \
                 is not awaited after the change",
                targets.dns_name
            );
        }
    }
    let api = match api {
        Some(api::Seen::Answered { server, ready }) => {
            let node = if !targets.readiness {
                String::new()
            } else if ready {
                format!(" (node {} Ready)", targets.node)
            } else {
                format!(" (node {} not Ready)", targets.node)
            };
            tracing::info!(
                "the API server {server} answers{node}: it must answer after the change"
            );
            Some((server, ready && targets.readiness))
        }
        Some(api::Seen::Silent { server, why }) => {
            tracing::info!(
                "the API server {server} does not answer ({why}): it is not awaited after the \
                 change"
            );
            None
        }
        None => None,
    };
    Selected {
        targets: targets.clone(),
        gateways,
        nameservers,
        api,
    }
}

/// Waits, after a change, until every probe of `before` passes again; up to `limit` from
/// `start` (the end of the change) for all of them.
pub async fn await_after(
    reader: &mut NetlinkReader,
    before: &Selected,
    start: Instant,
    limit: Duration,
) -> Result<(), Failed> {
    gateway::await_forwarding(reader, &before.gateways, start, limit).await?;
    let window = Window {
        start,
        deadline: start + limit,
        limit,
    };
    let t = &before.targets;
    for &server in &before.nameservers {
        await_nameserver(server, t, &window).await?;
    }
    if let Some((server, was_ready)) = &before.api {
        await_api(server, *was_ready, t, &window).await?;
    }
    Ok(())
}

/// The time the probes after a change share: from `start` (the end of the change) to
/// `deadline`, `limit` later (named in a failure).
struct Window {
    start: Instant,
    deadline: Instant,
    limit: Duration,
}

/// Waits until `server` answers a lookup of the DNS probe's name again, up to the window's
/// deadline.
async fn await_nameserver(server: SocketAddr, t: &Targets, w: &Window) -> Result<(), Failed> {
    loop {
        let left = w.deadline.saturating_duration_since(Instant::now());
        if dns::answered_within(server, &t.dns_name, left, dns::Refusal::Retried).await {
            tracing::info!(
                "nameserver {} answers, {:.2} s after the change",
                server.ip(),
                w.start.elapsed().as_secs_f64()
            );
            return Ok(());
        }
        if Instant::now() >= w.deadline {
            return Err(Failed::Dns {
                server: server.ip(),
                name: t.dns_name.clone(),
                limit: w.limit,
            });
        }
    }
}

/// Waits, looking every [`POLL`], until the API server `server` answers again, and the node is
/// Ready again when it `was_ready`, up to the window's deadline.
async fn await_api(server: &str, was_ready: bool, t: &Targets, w: &Window) -> Result<(), Failed> {
    loop {
        let left = w.deadline.saturating_duration_since(Instant::now());
        let failure = match api::look(&t.kubeconfigs, &t.node, left.max(POLL)).await {
            Some(api::Seen::Answered { ready, .. }) if ready || !was_ready => {
                tracing::info!(
                    "the API server answers{}, {:.2} s after the change",
                    if was_ready {
                        " and the node is Ready"
                    } else {
                        ""
                    },
                    w.start.elapsed().as_secs_f64()
                );
                return Ok(());
            }
            Some(api::Seen::Answered { .. }) => Failed::NotReady {
                node: t.node.clone(),
                limit: w.limit,
            },
            Some(api::Seen::Silent { why, .. }) => Failed::Api {
                server: server.to_owned(),
                why,
                limit: w.limit,
            },
            None => Failed::Api {
                server: server.to_owned(),
                why: "its kubeconfig is gone".to_owned(),
                limit: w.limit,
            },
        };
        if Instant::now() >= w.deadline {
            return Err(failure);
        }
        tokio::time::sleep(POLL.min(w.deadline.saturating_duration_since(Instant::now()))).await;
    }
}
