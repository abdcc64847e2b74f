use std::process::ExitCode;

use clap::Parser;
use nodeip_selector::cli::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let debug = std::env::var("ENABLE_NODEIP_DEBUG").is_ok_and(|v| v == "true");
    selection::logging::init(&cli.verbosity, debug);
    selection::app::exit("nodeip-selector", nodeip_selector::run(&cli))
}
