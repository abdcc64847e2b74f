use std::process::ExitCode;

use clap::Parser;
use resolv_prepender::cli::Cli;
use resolv_prepender::settings::UsageError;

fn main() -> ExitCode {
    let cli = Cli::parse();
    selection::logging::init(cli.verbose, cli.quiet, false);
    match resolv_prepender::run(&cli) {
        Ok(code) => code,
        Err(e) if e.is::<UsageError>() => {
            eprintln!("resolv-prepender: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("resolv-prepender: {e:#}");
            ExitCode::FAILURE
        }
    }
}
