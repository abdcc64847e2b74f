//! `cargo xtask <command>`: the project's chores, runnable on a fresh Debian 12 machine as root.

mod bench;
mod demo;
mod deps;
mod test;
mod util;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Project chores")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Install the Debian packages the tests and the demo need (idempotent, starts no service).
    Deps,
    /// Install dependencies, then run every test of the workspace (integration tests need root).
    Test,
    /// Show a node choosing its IP: two NICs, a misleading default route, a hint and VIPs.
    Demo,
    /// Measure `nodeip-selector show` on 100k IPv4 + 10k IPv6 routes and 1,000 addresses
    /// against the `ip -j` dump of the same state.
    Bench {
        /// Timed rounds of each command.
        #[arg(long, default_value_t = 15)]
        rounds: usize,
    },
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Cmd::Deps => deps::install(),
        Cmd::Test => {
            deps::install()?;
            test::run()
        }
        Cmd::Demo => {
            deps::install()?;
            demo::run()
        }
        Cmd::Bench { rounds } => {
            deps::install()?;
            bench::run(rounds)
        }
    }
}
