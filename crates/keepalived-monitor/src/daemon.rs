//! The daemon, as zincati's update agent is built: events in ([`crate::events`]), one pure
//! transition of [`MonitorState`], effects out, each a small function over the module that owns
//! it. A candidate is rebuilt on every wake and applied once it has been stable for the debounce
//! window.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use selection::netlink::{NetlinkError, NetlinkReader};
use selection::service::notify_systemd;
use tokio::time::Instant;

use crate::apply::{self, Validation};
use crate::candidate::{PeerFeed, candidate, current_mode};
use crate::events::{Event, Events, Stopped, SubscribeError, instant_of};
use crate::migration::{Migration, Step};
use crate::model::Role;
use crate::retry::Retry;
use crate::settings::{Reload, Settings};
use crate::state::{ApiAction, MonitorState};
use crate::{check_scripts, liveness, redirect, watchdog};

/// Why the daemon exits non-zero (systemd restarts it).
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error(transparent)]
    Start(#[from] StartError),
    #[error(transparent)]
    Stopped(#[from] Stopped),
    #[error(transparent)]
    Write(#[from] apply::WriteError),
}

/// Runs until SIGTERM.
pub async fn run(s: Settings) -> Result<(), DaemonError> {
    if s.user_managed_lb {
        stand_down(&s);
        return Ok(());
    }
    tracing::info!(
        "started: {:?} of cluster {}, keepalived told through {:?}",
        s.role,
        s.cluster_name,
        s.reload
    );
    let (mut daemon, mut events) = Daemon::start(s)?;
    daemon.rebuild().await;
    notify_systemd(&[sd_notify::NotifyState::Ready]);
    loop {
        let next = events.next(daemon.migration.wake_at(), daemon.state.deadline());
        match next.await? {
            Event::Term => break,
            Event::Changed => {}
            Event::Migration => daemon.migrate(),
            Event::Api(e) => daemon.follow_watchdog(e).await,
            Event::Due => daemon.apply_due().await?,
        }
        daemon.rebuild().await;
    }
    notify_systemd(&[sd_notify::NotifyState::Stopping]);
    Ok(())
}

/// Upstream disables the keepalived pod; keepalived.service's drop-in starts only on this
/// boot's `rendered` marker, which is never written, so neither runs.
fn stand_down(s: &Settings) {
    let why = "the cluster uses a user-managed load balancer: keepalived is not used on this node";
    tracing::info!("{why}");
    let _ = std::fs::remove_file(s.keepalived_run_dir.join(apply::RENDERED_MARKER));
    notify_systemd(&[
        sd_notify::NotifyState::Ready,
        sd_notify::NotifyState::Status(why),
    ]);
}

/// What the daemon could not set up (it exits non-zero, and systemd restarts it).
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    CheckScripts(#[from] check_scripts::WriteError),
    #[error("cannot follow keepalived's liveness dumps: {0}")]
    Liveness(notify::Error),
    #[error(transparent)]
    Netlink(#[from] NetlinkError),
    #[error("cannot start the API watchdog: {0}")]
    Watchdog(watchdog::WatchdogError),
    #[error(transparent)]
    Events(#[from] SubscribeError),
}

/// What the loop owns besides its event sources.
struct Daemon {
    s: Settings,
    reader: NetlinkReader,
    source: PeerFeed,
    state: MonitorState,
    migration: Migration,
    /// `keepalived -t` of the pending candidate, under way.
    validation: Option<Validation>,
    /// This boot's marker, where keepalived.service waits for it.
    marker: Option<PathBuf>,
}

impl Daemon {
    /// The one-time work before the loop (check scripts, the redirect flag, the liveness
    /// probe, the bootstrap watchdog) and the event sources.
    fn start(s: Settings) -> Result<(Daemon, Events), StartError> {
        selection::atomic::clean_up_interrupted_writes(&[&s.output]);
        check_scripts::write(
            &s.keepalived_dir,
            &check_scripts::render(&s.keepalived_run_dir, s.api_port),
        )?;
        // HAProxy's redirect rules for the first API VIP, as chk_ocp_lb's flag (every role, as
        // upstream: only masters run HAProxy, elsewhere the flag just stays absent).
        if let Some(vip) = s.api_vips.first() {
            redirect::spawn(
                s.keepalived_run_dir.join(check_scripts::REDIRECT_FLAG),
                *vip,
            );
        }
        // keepalived.service starts only on a file this monitor validated in this boot (its
        // drop-in waits for the marker): a file from the previous boot is confirmed first.
        let marker = (s.reload == Reload::Systemd)
            .then(|| s.keepalived_run_dir.join(apply::RENDERED_MARKER));
        let confirm = marker.as_deref().is_some_and(|m| !m.exists());
        if s.reload == Reload::Systemd {
            liveness::spawn(
                s.output.clone(),
                s.keepalived_run_dir.join(liveness::DATA_FILE),
            )
            .map_err(StartError::Liveness)?;
        }
        let reader = NetlinkReader::connect()?;
        let (nodes_tx, nodes) = tokio::sync::mpsc::unbounded_channel();
        let source = PeerFeed::start(&s, nodes_tx);
        let (api_tx, api) = tokio::sync::mpsc::unbounded_channel();
        if s.role == Role::Bootstrap {
            watchdog::spawn(s.api_port, api_tx).map_err(StartError::Watchdog)?;
        }
        let events = Events::subscribe(inputs(&s, &source), nodes, api)?;
        let on_disk = std::fs::read_to_string(&s.output).unwrap_or_default();
        let mode = current_mode(&s, &on_disk);
        let live = if confirm { String::new() } else { on_disk };
        let daemon = Daemon {
            state: MonitorState::new(live, mode, s.debounce),
            migration: Migration::new(SystemTime::now()),
            validation: None,
            marker,
            reader,
            source,
            s,
        };
        Ok((daemon, events))
    }

    /// A fresh candidate from every input, offered to the state; its `keepalived -t` starts at
    /// once. A failure keeps the current configuration.
    async fn rebuild(&mut self) {
        let conf = candidate(&self.s, &mut self.reader, &self.source, self.state.mode()).await;
        match conf {
            Ok(conf) => {
                let now = Instant::now();
                let text = conf.render();
                if let Some(due) = self.state.candidate(text.clone(), now) {
                    tracing::info!("configuration changed; applying in {:?}", due - now);
                    self.validation = Some(Validation::start(&self.s.output, text));
                }
            }
            Err(e) => {
                if e.worth_retrying() {
                    tracing::warn!("{e}; keeping the current configuration");
                } else {
                    tracing::error!("{e}; keeping the current configuration until this is fixed");
                }
                self.state.no_candidate();
            }
        }
    }

    /// The migration schedule's instant: maybe a switch of mode, applied at its instant.
    fn migrate(&mut self) {
        let upgrade = || self.source.current().map(|p| p.upgrade_running());
        let desired = apply::desired_mode(&self.s);
        let step = self
            .migration
            .tick(SystemTime::now(), self.state.live_mode(), desired, upgrade);
        if let Step::Switch { at, mode } = step {
            tracing::info!("preparing the switch to {mode:?} mode");
            // One mode for the whole file: every per-VIP instance switches (upstream migration
            // set only its top-level flag, leaving nested ones behind; reference §4.5).
            self.state.switch(mode, instant_of(at));
        }
    }

    /// The bootstrap watchdog's verdict: keepalived stopped while the local API is gone,
    /// started again when it is back.
    async fn follow_watchdog(&mut self, e: watchdog::Event) {
        match self.state.api(e) {
            Some(ApiAction::Stop) => match apply::stop(&self.s.reload).await {
                Ok(()) => {
                    tracing::warn!("local API down: keepalived stopped");
                    self.state.set_api_down(true);
                }
                Err(e) => tracing::error!("local API down, cannot stop keepalived: {e}"),
            },
            Some(ApiAction::Start) => {
                self.state.set_api_down(false);
                match apply::reload(&self.s.reload).await {
                    Ok(()) => tracing::info!("local API back: keepalived started"),
                    Err(e) => tracing::error!("local API back, cannot start keepalived: {e}"),
                }
            }
            None => {}
        }
    }

    /// The pending candidate's window ended: validated, written and loaded; retried later when
    /// `keepalived -t` could not run; kept out when keepalived rejects it.
    async fn apply_due(&mut self) -> Result<(), apply::WriteError> {
        let now = Instant::now();
        let Some(text) = self.state.due(now) else {
            return Ok(());
        };
        let output = self.s.output.as_path();
        match Validation::of(self.validation.take(), output, &text).await {
            Ok(()) => {
                apply::install(output, &text, self.marker.as_deref())?;
                if self.state.applied(text) {
                    reload(&self.s.reload).await;
                } else {
                    tracing::info!(
                        "keepalived.conf written; keepalived stays stopped until the local API \
                         is back"
                    );
                }
                notify_systemd(&[sd_notify::NotifyState::Status("configuration applied")]);
            }
            // Nothing is known about the candidate: try it again later.
            Err(e) if e.worth_retrying() => {
                let wait = self.state.cannot_validate(text, now);
                tracing::warn!("{e}; retrying in {wait:?}");
            }
            Err(e) => {
                tracing::error!("{e}; the live configuration stays");
                let live_mode = current_mode(&self.s, self.state.live());
                self.state.rejected(text, live_mode);
            }
        }
        Ok(())
    }
}

/// Tells keepalived to load the file just written; a failure is said, not fatal (the next
/// change tells it again, and systemd starts keepalived on the file as it is).
async fn reload(method: &Reload) {
    match apply::reload(method).await {
        Ok(()) => tracing::info!("keepalived.conf written and keepalived reloaded"),
        Err(e) if e.worth_retrying() => {
            tracing::warn!("keepalived.conf written, reload failed: {e}")
        }
        Err(e) => tracing::error!("keepalived.conf written, keepalived cannot be told: {e}"),
    }
}

/// Every input a render reads, for the file watcher: the node-IP files, the remote-worker
/// marker, both mode files and the peer list file.
fn inputs(s: &Settings, source: &PeerFeed) -> Vec<PathBuf> {
    let run = s.node_ip_files();
    let mut files = vec![run.ipv4(), run.ipv6(), run.remote_worker()];
    files.extend(s.mode_files());
    files.extend(source.file().map(Path::to_path_buf));
    files
}
