//! `keepalived-monitor`: replaces runtimecfg's `dynkeepalived` and the keepalived static-pod
//! wrapper. It renders keepalived.conf for the API and ingress VIPs from a typed model
//! ([`model`], [`build`]), follows the node IP through netlink, validates every candidate with
//! `keepalived -t`, writes it atomically and reloads keepalived ([`apply`], [`daemon`]).

pub mod apply;
pub mod build;
pub mod candidate;
pub mod check_scripts;
pub mod cli;
pub mod daemon;
pub mod debounce;
pub mod events;
pub mod kube_client;
pub mod kube_node;
pub mod kube_source;
pub mod liveness;
pub mod migration;
pub mod model;
pub mod peers;
pub mod redirect;
pub mod retry;
pub mod settings;
pub mod state;
pub mod systemd;
pub mod vrid;
pub mod watchdog;

#[cfg(test)]
mod build_tests;

use std::path::Path;

use anyhow::Context;
use std::process::ExitCode;

use selection::app::UsageError;
use selection::netlink::NetlinkReader;

use crate::cli::{Cli, Command};
use crate::settings::{DEFAULT_CONFIG, resolve};

/// VIPs on this namespace's interfaces are stale only when no keepalived runs here to hold
/// them: a keepalived left running (another unit, the static pod during a migration) keeps its
/// VIP.
async fn remove_stale_vips(s: &settings::Settings) -> anyhow::Result<()> {
    if apply::keepalived_running() {
        tracing::info!("a keepalived runs in this network namespace: its VIPs are not stale");
        return Ok(());
    }
    let vips: Vec<_> = s.api_vips.iter().chain(&s.ingress_vips).copied().collect();
    apply::remove_stale_vips(&vips)
        .await
        .context("cannot remove stale VIPs")
}

pub fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    if let Command::VrIds { name } = &cli.command {
        let (api, ingress) =
            vrid::vr_ids(name).ok_or_else(|| UsageError("the cluster name is empty".into()))?;
        println!("APIVirtualRouterID: {api}\nIngressVirtualRouterID: {ingress}");
        return Ok(ExitCode::SUCCESS);
    }
    let args = match &cli.command {
        Command::Run(a) | Command::Render(a) | Command::Check(a) | Command::RemoveStaleVips(a) => a,
        Command::VrIds { .. } => unreachable!("handled above"),
    };
    let s = resolve(args, Path::new(DEFAULT_CONFIG))?;
    let rt = selection::service::runtime()?;
    rt.block_on(async {
        match &cli.command {
            Command::Run(_) => {
                daemon::run(s).await?;
                return Ok(ExitCode::SUCCESS);
            }
            Command::RemoveStaleVips(_) => {
                remove_stale_vips(&s).await?;
                return Ok(ExitCode::SUCCESS);
            }
            _ => {}
        }
        let mut reader = NetlinkReader::connect()?;
        let (tx, mut changed) = tokio::sync::mpsc::unbounded_channel();
        let source = candidate::PeerFeed::start(&s, tx);
        // The Kubernetes source needs its first complete list (the bootstrap renders without).
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
        while s.role != model::Role::Bootstrap
            && source.current().is_err()
            && source.file().is_none()
            && tokio::time::Instant::now() < deadline
        {
            let _ = tokio::time::timeout_at(deadline, changed.recv()).await;
        }
        // A malformed peer list is bad input, as a malformed config is; the daemon instead
        // keeps its last good configuration and waits for the file to be fixed.
        if let Some(Err(e @ peers::PeersError::Invalid { .. })) = source.file().map(peers::read) {
            return Err(UsageError(e.to_string()).into());
        }
        let live = std::fs::read_to_string(&s.output).unwrap_or_default();
        let mode = candidate::current_mode(&s, &live);
        let text = candidate::candidate(&s, &mut reader, &source, mode)
            .await?
            .render();
        if let Command::Check(_) = &cli.command {
            apply::validate(&s.output, &text)?;
            eprintln!("keepalived -t accepts the configuration");
        } else {
            print!("{text}");
        }
        Ok(ExitCode::SUCCESS)
    })
}
