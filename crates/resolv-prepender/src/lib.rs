//! `resolv-prepender`: keeps `/etc/resolv.conf` = NetworkManager's resolver with the node IP
//! first and the cluster base domain first, and sets the flag kubelet waits for. Replaces MCO's
//! on-prem dispatcher script, path unit and `resolv-prepender.sh`.
//!
//! Layers: [`settings`]; the pure core [`resolvconf`] and [`resolved`]; the effects in
//! [`pass`] (files, D-Bus via [`bus`]) and [`daemon`] (inotify event loop, sd_notify); and the
//! dispatcher script's other duties, followed from NetworkManager's signals ([`follow`]): the
//! br-ex-up flag ([`brex`]) and the DHCPv6 host name ([`hostname`]).

pub mod brex;
pub mod bus;
pub mod cli;
pub mod daemon;
pub mod follow;
pub mod hostname;
pub mod pass;
pub mod resolvconf;
pub mod resolved;
pub mod settings;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cli::{Cli, Command};
use crate::pass::Outcome;
use crate::settings::{DEFAULT_CONFIG, Settings, UsageError, resolve};

/// Why kubelet must not wait for the done flag on this node: the service is not enabled, or
/// it has no usable configuration (its own start fails on that). `None`: gate.
fn not_gating(config: Option<PathBuf>) -> Option<String> {
    let enabled = std::process::Command::new("systemctl")
        .args(["is-enabled", "--quiet", UNIT])
        .status();
    // Without systemctl there is nothing to ask: keep the gate (fail closed).
    if enabled.is_ok_and(|s| !s.success()) {
        return Some(format!("{UNIT} is not enabled"));
    }
    let args = cli::SettingsArgs {
        config,
        ..cli::SettingsArgs::default()
    };
    resolve(&args, Path::new(DEFAULT_CONFIG))
        .err()
        .map(|e| format!("it is not configured ({e})"))
}

/// The daemon's unit, whose enablement decides whether kubelet waits for it.
const UNIT: &str = "resolv-prepender.service";

/// Runs one command; [`UsageError`] means exit code 2.
pub fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    let runtime = selection::service::runtime()?;
    match &cli.command {
        Command::Run(args) => {
            let settings = resolve(args, Path::new(DEFAULT_CONFIG))?;
            runtime.block_on(daemon::run(settings))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Once(args) => {
            let settings = resolve(args, Path::new(DEFAULT_CONFIG))?;
            once(&settings, runtime.block_on(pass::run(&settings)))
        }
        Command::CheckDone { done_flag, config } => Ok(check_done(done_flag, config.clone())),
        Command::Render {
            upstream,
            nameserver,
            domains,
        } => render(upstream, nameserver, domains),
    }
}

/// `once`: success only when the pass applied the file; a pass's error names the file it left.
fn once(settings: &Settings, pass: Result<Outcome, pass::PassError>) -> anyhow::Result<ExitCode> {
    match pass {
        Ok(outcome @ Outcome::Applied { .. }) => {
            tracing::info!("{outcome}");
            Ok(ExitCode::SUCCESS)
        }
        Ok(outcome) => {
            tracing::info!("{outcome}");
            Ok(ExitCode::FAILURE)
        }
        Err(e) => {
            let line = format!("{e}; {} left as it is", settings.output.display());
            if e.exit_code() == 2 {
                return Err(UsageError(line).into());
            }
            Err(anyhow::anyhow!(line))
        }
    }
}

/// `check-done`, kubelet's gate: 255 while the done flag is missing on a node that gates.
fn check_done(done_flag: &Path, config: Option<PathBuf>) -> ExitCode {
    if done_flag.exists() {
        return ExitCode::SUCCESS;
    }
    // The drop-in ships with the package on every node; where resolv-prepender will
    // never set the flag, gating kubelet on it would keep kubelet down forever.
    if let Some(why) = not_gating(config) {
        eprintln!("resolv-prepender: not gating kubelet: {why}");
        return ExitCode::SUCCESS;
    }
    // Upstream's drop-in prints this same line.
    eprintln!(
        "NM resolv-prepender failed: {} does not exist yet",
        done_flag.display()
    );
    ExitCode::from(255)
}

/// `render`: the transform alone, from a file or standard input to standard output.
fn render(upstream: &Path, nameserver: &str, domains: &[String]) -> anyhow::Result<ExitCode> {
    let ip = nameserver.parse().map_err(|_| {
        UsageError(format!(
            "invalid --nameserver {nameserver:?}: not an IP address"
        ))
    })?;
    for d in domains {
        settings::validate_domain(d)
            .map_err(|why| UsageError(format!("invalid --domain {d:?}: {why}")))?;
    }
    let mut text = String::new();
    let read = if upstream == Path::new("-") {
        std::io::stdin().read_to_string(&mut text)
    } else {
        std::fs::read_to_string(upstream)
            .map(|t| text = t)
            .map(|()| 0)
    };
    read.map_err(|e| UsageError(format!("cannot read {}: {e}", upstream.display())))?;
    let out = resolvconf::transform(&text, ip, domains)
        .map_err(|e| UsageError(format!("{}: {e}", upstream.display())))?;
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}
