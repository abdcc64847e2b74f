use std::process::ExitCode;

use clap::Parser;
use ovs_bridge_configurator::cli::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    selection::logging::init(&cli.verbosity, false);
    selection::app::exit(
        "ovs-bridge-configurator",
        ovs_bridge_configurator::run(&cli),
    )
}
