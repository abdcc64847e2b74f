use std::process::ExitCode;

use clap::Parser;
use nodeip_selector::cli::Cli;
use nodeip_selector::settings::UsageError;

fn main() -> ExitCode {
    let cli = Cli::parse();
    selection::logging::init(
        cli.verbose,
        cli.quiet,
        std::env::var("ENABLE_NODEIP_DEBUG").is_ok_and(|v| v == "true"),
    );
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
