use std::process::ExitCode;

use clap::Parser;
use policy_controller::cli::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    selection::logging::init(&cli.verbosity, false);
    selection::app::exit("policy-controller", policy_controller::run(&cli))
}
