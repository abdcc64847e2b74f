use std::process::ExitCode;

use clap::Parser;
use ovs_bridge_configurator::cli::Cli;
use ovs_bridge_configurator::commands;

fn main() -> ExitCode {
    let cli = Cli::parse();
    selection::logging::init(&cli.verbosity, false);
    selection::app::exit("ovs-bridge-configurator", commands::run(&cli))
}
