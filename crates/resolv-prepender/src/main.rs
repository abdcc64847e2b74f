use std::process::ExitCode;

use clap::Parser;
use resolv_prepender::cli::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    selection::logging::init(&cli.verbosity, false);
    selection::app::exit("resolv-prepender", resolv_prepender::run(&cli))
}
