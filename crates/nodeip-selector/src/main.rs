use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use nodeip_selector::cli::Cli;
use nodeip_selector::settings::UsageError;
use tracing_subscriber::EnvFilter;

fn init_logging(cli: &Cli) {
    let debug_env = std::env::var("ENABLE_NODEIP_DEBUG").is_ok_and(|v| v == "true");
    let level = match (i16::from(cli.verbose) - i16::from(cli.quiet), debug_env) {
        (v, _) if v >= 2 => "trace",
        (1, _) | (_, true) => "debug",
        (0, _) => "info",
        (-1, _) => "warn",
        _ => "error",
    };
    // netlink crates warn about attributes newer kernels send; not actionable here.
    let default = format!("{level},netlink_packet_route=error,netlink_proto=error");
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    // journald adds its own timestamps.
    if std::env::var_os("JOURNAL_STREAM").is_some() {
        builder.without_time().init();
    } else {
        builder.init();
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(&cli);
    match nodeip_selector::run(&cli) {
        Ok(code) => code,
        Err(e) if e.is::<UsageError>() => {
            eprintln!("nodeip-selector: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("nodeip-selector: {e:#}");
            ExitCode::FAILURE
        }
    }
}
