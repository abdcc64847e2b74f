//! The same TOML text as each daemon's `--config` file, through the daemon's whole settings
//! resolution (parse, merge with flags, validate). Properties: never panics; a rejected file
//! gives an error that names the file.

use std::path::Path;
use std::sync::OnceLock;

use clap::Parser;
use selection::app::UsageError;

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

    let hint = absent.to_str().unwrap();
    let errors = [
        resolved::<nodeip_selector::cli::Cli, _, _>(
            &[
                "nodeip-selector",
                "show",
                "--config",
                cfg,
                "--hint-file",
                hint,
            ],
            |c| c.command.select_args(),
            nodeip_selector::settings::resolve,
            none,
        ),
        resolved::<resolv_prepender::cli::Cli, _, _>(
            &["resolv-prepender", "once", "--config", cfg],
            |c| match &c.command {
                resolv_prepender::cli::Command::Once(a) => a,
                _ => unreachable!("parsed as once"),
            },
            resolv_prepender::settings::resolve,
            none,
        ),
        resolved::<keepalived_monitor::cli::Cli, _, _>(
            &["keepalived-monitor", "render", "--config", cfg],
            |c| match &c.command {
                keepalived_monitor::cli::Command::Render(a) => a,
                _ => unreachable!("parsed as render"),
            },
            keepalived_monitor::settings::resolve,
            none,
        ),
        resolved::<ovs_bridge_configurator::cli::Cli, _, _>(
            &["ovs-bridge-configurator", "status", "--config", cfg],
            |c| c.command.settings(),
            ovs_bridge_configurator::settings::resolve,
            none,
        ),
    ];
    for e in errors.into_iter().flat_map(Result::err) {
        assert!(
            e.contains(cfg),
            "the error does not name the config file: {e}"
        );
    }
}

/// Parses `argv` as daemon `C`'s command line and resolves its settings as the daemon does;
/// the error is prefixed with the daemon's name.
fn resolved<C: Parser, A, S>(
    argv: &[&str],
    args: fn(&C) -> &A,
    resolve: fn(&A, &Path) -> Result<S, UsageError>,
    default_config: &Path,
) -> Result<(), String> {
    let cli = C::try_parse_from(argv).expect("valid flags");
    resolve(args(&cli), default_config)
        .map(drop)
        .map_err(|e| format!("{}: {e}", argv[0]))
}
