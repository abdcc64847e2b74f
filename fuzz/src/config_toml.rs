//! The same TOML text as each daemon's `--config` file, through the daemon's whole settings
//! resolution (parse, merge with flags, validate). Properties: never panics; a rejected file
//! gives an error that names the file.

use std::path::Path;
use std::sync::OnceLock;

use clap::Parser;

/// One scratch directory per process; the config file in it is rewritten for each input.
fn scratch() -> &'static tempfile::TempDir {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("a scratch directory"))
}

pub fn check(data: &[u8]) {
    let Some(text) = crate::text(data) else {
        return;
    };
    let dir = scratch().path();
    let config = dir.join("config.toml");
    std::fs::write(&config, text).expect("write the config");
    // Paths a config may name must not reach the host's files.
    let absent = dir.join("absent");
    let cfg = config.to_str().unwrap();
    let none = absent.as_path();

    let errors = [
        nodeip(cfg, &absent),
        resolv(cfg, none),
        keepalived(cfg, none),
        ovs(cfg, none),
    ];
    for (daemon, e) in errors.into_iter().flat_map(|r| r.err()) {
        assert!(
            e.contains(cfg),
            "{daemon}: the error does not name the config file: {e}"
        );
    }
}

type Outcome = Result<(), (&'static str, String)>;

fn nodeip(cfg: &str, absent: &Path) -> Outcome {
    use nodeip_selector::{cli::Cli, settings::resolve};
    let hint = absent.to_str().unwrap();
    let cli = Cli::try_parse_from([
        "nodeip-selector",
        "show",
        "--config",
        cfg,
        "--hint-file",
        hint,
    ])
    .expect("valid flags");
    resolve(cli.command.select_args(), absent)
        .map(drop)
        .map_err(|e| ("nodeip-selector", e.to_string()))
}

fn resolv(cfg: &str, absent: &Path) -> Outcome {
    use resolv_prepender::cli::{Cli, Command};
    let cli =
        Cli::try_parse_from(["resolv-prepender", "once", "--config", cfg]).expect("valid flags");
    let Command::Once(args) = &cli.command else {
        unreachable!("parsed as once")
    };
    resolv_prepender::settings::resolve(args, absent)
        .map(drop)
        .map_err(|e| ("resolv-prepender", e.to_string()))
}

fn keepalived(cfg: &str, absent: &Path) -> Outcome {
    use keepalived_monitor::cli::{Cli, Command};
    let cli = Cli::try_parse_from(["keepalived-monitor", "render", "--config", cfg])
        .expect("valid flags");
    let Command::Render(args) = &cli.command else {
        unreachable!("parsed as render")
    };
    keepalived_monitor::settings::resolve(args, absent)
        .map(drop)
        .map_err(|e| ("keepalived-monitor", e.to_string()))
}

fn ovs(cfg: &str, absent: &Path) -> Outcome {
    use ovs_bridge_configurator::cli::{Cli, Command};
    let cli = Cli::try_parse_from(["ovs-bridge-configurator", "status", "--config", cfg])
        .expect("valid flags");
    let Command::Status(args) = &cli.command else {
        unreachable!("parsed as status")
    };
    ovs_bridge_configurator::settings::resolve(args, absent)
        .map(drop)
        .map_err(|e| ("ovs-bridge-configurator", e.to_string()))
}
