use std::process::ExitCode;

use clap::Parser;
use keepalived_monitor::cli::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    selection::logging::init(&cli.verbosity, false);
    selection::app::exit("keepalived-monitor", keepalived_monitor::run(&cli))
}
