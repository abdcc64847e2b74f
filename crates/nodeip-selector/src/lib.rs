//! `nodeip-selector`: chooses the node IP once per boot, exactly as `runtimecfg node-ip` does
//! but deterministically, and explains the choice.
//!
//! Layers: [`settings`] (TOML + flags + hint file -> one validated struct), the pure core in the
//! `selection` crate plus [`outputs::plan`] and [`explain::render`], and the effects in
//! [`choose`] (netlink, retry loop, bind test) and [`outputs::apply`].

pub mod choose;
pub mod cli;

pub mod explain;
pub mod forwarding;
pub mod outputs;
pub mod settings;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use selection::app::UsageError;
use selection::net::go_text;
use selection::netlink::NetlinkReader;

use crate::choose::{Failure, attempt, choose, usability};
use crate::cli::{Cli, Command};
use crate::settings::{DEFAULT_CONFIG, Settings, resolve};

/// Runs one command. Bad input surfaces as [`settings::UsageError`] (exit code 2); "no address
/// found" and system failures as other errors (exit code 1).
pub fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    let settings = resolve(cli.command.select_args(), Path::new(DEFAULT_CONFIG))?;
    let runtime = selection::service::runtime()?;
    runtime.block_on(async {
        match &cli.command {
            Command::Show { all, json, .. } => show(&settings, *all, *json).await,
            Command::Set { .. } => set(&settings).await,
            Command::Explain { .. } => explain(&settings).await,
            Command::EnableForwarding { .. } if !settings.has_vips() => {
                // Upstream runs configure-ip-forwarding.sh only in its on-prem (VIP) unit, for
                // keepalived; its vSphere UPI unit, which this one also replaces, does not.
                tracing::info!(
                    "no VIPs configured: keepalived does not run here, forwarding left as it is"
                );
                Ok(ExitCode::SUCCESS)
            }
            Command::EnableForwarding { .. } => {
                let primary = settings.files.primary_ip();
                let interface = forwarding::enable(&primary).await?;
                tracing::info!("IP forwarding enabled on {interface}, which holds the node IP");
                Ok(ExitCode::SUCCESS)
            }
        }
    })
}

fn found(result: Result<selection::Selection, Failure>) -> anyhow::Result<selection::Selection> {
    result.map_err(|f| anyhow::anyhow!("Failed to find node IP: {f}"))
}

async fn show(settings: &Settings, all: bool, json: bool) -> anyhow::Result<ExitCode> {
    let sel = found(choose(settings).await)?;
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer(&mut out, &sel).context("cannot write JSON")?;
        writeln!(out)?;
    } else {
        let count = if all { sel.addresses.len() } else { 1 };
        for ip in &sel.addresses[..count] {
            writeln!(out, "{}", go_text(*ip))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Longest wait between attempts after a system failure.
const MAX_SYSTEM_RETRY: Duration = Duration::from_secs(60);

/// `set`, with `--retry-on-failure` also retrying system failures (a netlink socket, a write):
/// upstream's unit looped on any failure, and a oneshot that fails takes kubelet down for the
/// whole boot. Bad input is not transient: it is returned at once.
async fn set(settings: &Settings) -> anyhow::Result<ExitCode> {
    let mut delay = Duration::from_secs(1);
    loop {
        match set_once(settings).await {
            Err(e) if settings.retry && !e.is::<UsageError>() => {
                tracing::warn!("{e:#}; retrying in {}s", delay.as_secs());
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(MAX_SYSTEM_RETRY);
            }
            result => return result,
        }
    }
}

async fn set_once(settings: &Settings) -> anyhow::Result<ExitCode> {
    let outputs = outputs::paths(&settings.files, &settings.systemd_dir);
    selection::atomic::clean_up_interrupted_writes(
        &outputs.iter().map(PathBuf::as_path).collect::<Vec<_>>(),
    );
    if let Some(ip) = outputs::previous_choice(&settings.files) {
        tracing::info!(
            "Found ip {} in {}, no need for new configuration, exiting",
            go_text(ip),
            settings.files.primary_ip().display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let sel = found(choose(settings).await)?;
    let remote = settings.is_remote_worker(sel.source == Some(selection::Source::Vip));
    let steps = outputs::plan(
        &sel.addresses,
        remote,
        &settings.files,
        &settings.systemd_dir,
    );
    outputs::apply(&steps)?;
    let list: Vec<String> = sel.addresses.iter().map(|a| go_text(*a)).collect();
    tracing::info!(
        "node IP {} (from the {} path, on {}){}",
        list.join(","),
        sel.source.map_or("?", |s| s.as_str()),
        sel.interface.as_deref().unwrap_or("?"),
        if remote { "; remote worker" } else { "" }
    );
    Ok(ExitCode::SUCCESS)
}

async fn explain(settings: &Settings) -> anyhow::Result<ExitCode> {
    let mut reader = NetlinkReader::connect()?;
    let (snap, sel) = attempt(&mut reader, settings).await?;
    let usable = usability(&snap, &sel);
    let hint_source = settings.hint_file.display().to_string();
    print!("{}", explain::render(&sel, &usable, &hint_source));
    Ok(if sel.primary().is_some() && usable.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
