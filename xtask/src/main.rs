//! `cargo xtask <command>`: the project's chores, runnable on a fresh Debian 12 machine as root.

mod bench_boot;
mod bench_br_ex;
mod bench_br_ex_kernel;
mod bench_keepalived;
mod bench_live;
mod bench_live_kernel;
mod bench_nodeip;
mod bench_policy;
mod bench_publish;
mod bench_publish_node;
mod bench_publish_profile;
mod bench_resolv;
mod demo;
mod deps;
mod dist;
mod fuzz;
mod image;
mod licenses;
mod rpm;
mod soak;
mod test;
mod timeline;
mod util;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Project chores")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Install the Debian packages the tests and the demo need, and NetworkManager built with
    /// OVS (idempotent, starts no service).
    Deps,
    /// Install dependencies, then run every test of the workspace (integration tests need root).
    Test,
    /// Build the FHS install tree (binaries, units, drop-ins, tmpfiles.d, default configs,
    /// man pages, shell completions).
    Dist {
        #[arg(long, value_name = "DIR")]
        destdir: std::path::PathBuf,
        /// Install the binaries found in DIR (already built, e.g. target/debug) instead of
        /// building release ones.
        #[arg(long, value_name = "DIR")]
        bin_dir: Option<std::path::PathBuf>,
    },
    /// The source RPM and one binary RPM per daemon, from the committed tree (offline, vendored
    /// crates, reproducible).
    Rpm {
        /// Where the RPMs go.
        #[arg(long, value_name = "DIR", default_value = "target/rpm")]
        out: std::path::PathBuf,
        /// The package release (an upgrade is the same version with a higher release).
        #[arg(long, default_value_t = 1)]
        release: u32,
        /// Cargo's target directory, outside rpmbuild's build directory (which every build
        /// starts afresh), so that a second release of one commit reuses the compiled crates.
        #[arg(long, value_name = "DIR")]
        cargo_target_dir: Option<std::path::PathBuf>,
    },
    /// Licenses of every crate the daemons link, grouped (the RPMs' LICENSE.dependencies).
    Licenses,
    /// policy-controller's container image as an OCI archive (`podman load -i FILE`), from
    /// the release binary and the shared libraries it links, without pulling anything.
    Image {
        #[arg(
            long,
            value_name = "FILE",
            default_value = "target/image/policy-controller.oci.tar"
        )]
        out: std::path::PathBuf,
        /// Put this binary in the image instead of building a release one.
        #[arg(long, value_name = "FILE")]
        binary: Option<std::path::PathBuf>,
        /// The name `podman load` gives the image.
        #[arg(long, default_value = image::REFERENCE)]
        reference: String,
    },
    /// Set up (packages, NetworkManager with OVS, the daemons; timed), boot three on-prem
    /// nodes' networking (the daemons in unit order), show a table per node, then day 2 on the
    /// node holding the VIPs, and draw the run's timeline (SVG and PNG).
    Demo {
        /// Leave the cluster running until Enter is pressed, with instructions to inspect it.
        #[arg(long)]
        keep: bool,
        /// Only draw the timeline of a recorded run (the timeline.tsv a demo wrote) again, as
        /// SVG and PNG; needs no root.
        #[arg(long, value_name = "FILE")]
        redraw: Option<std::path::PathBuf>,
        /// Where the timeline goes (default: target/demo).
        #[arg(long, value_name = "DIR")]
        out: Option<std::path::PathBuf>,
    },
    /// Run the libFuzzer targets (fuzz/libfuzzer) on the stable toolchain and report
    /// executions, coverage and crashes.
    Fuzz {
        /// Which targets (all when omitted), run one after another.
        targets: Vec<String>,
        /// How long each target runs.
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        /// Fold the inputs that add coverage into the committed corpus (fuzz/corpus).
        #[arg(long)]
        merge: bool,
    },
    /// Run the cluster's kill -9 fault test many times, each trial with its own random fault
    /// points; prints every trial's FAULT_SEED for replay.
    Soak {
        #[arg(long, default_value_t = 100)]
        trials: usize,
        /// The first trial's seed is derived from this (default: the clock).
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Measure the performance targets.
    Bench {
        /// Which benchmark (all when omitted).
        #[arg(value_enum)]
        which: Option<Bench>,
        /// Timed rounds of each command (nodeip-selector).
        #[arg(long, default_value_t = 15)]
        rounds: usize,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Bench {
    /// `show` on 100k IPv4 + 10k IPv6 routes and 1,000 addresses against `ip -j` dumps.
    NodeipSelector,
    /// Change-to-rewrite latency over 200 changes, idle wake-ups, RSS.
    ResolvPrepender,
    /// apply -> ready on the harness, no-default-route window, D-Bus calls, re-run; per uplink
    /// topology on a real kernel, apply -> ready and -> the gateway answering.
    OvsBridgeConfigurator,
    /// `apply-live` on the harness: an additive change, br-ex's MTU under a 50 ms ping, a change
    /// that cuts the node off.
    LiveApply,
    /// `apply-live` against plain `nmstatectl apply` on a real kernel (UML): an additive change
    /// and br-ex's MTU, medians and ratio; a change that cuts the node off, -> rolled back.
    /// Then the per-host NMState file at boot (as `nmstate-file-kernel`).
    LiveApplyKernel,
    /// The per-host NMState file at boot on fresh UML nodes: `apply-nmstate` against plain
    /// `nmstatectl apply`, to exit and to the gateway answering.
    NmstateFileKernel,
    /// Reaction to address moves and peer changes, render time and RSS with 5,000 Nodes.
    KeepalivedMonitor,
    /// The boot in real systemd: NetworkManager online -> kubelet-dependencies.target, each
    /// unit's share, with a static uplink and with a slow DHCP server.
    Boot,
    /// `policy-controller run` against the API stand-in: policy -> MachineConfig latency with
    /// 1,000 Nodes, writes of a restart and of unrelated Node updates, RSS with 5,000 Nodes, a
    /// pool-wide policy's share of the MachineConfig.
    PolicyController,
    /// `publish-state` on a harness node with 1,000 more links, against the API stand-in: one
    /// read by phase, change -> API latency, idle writes and CPU, peak and steady RSS.
    PublishState,
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Cmd::Deps => deps::install(),
        Cmd::Test => {
            let started = std::time::Instant::now();
            deps::install()?;
            test::run(started.elapsed())
        }
        Cmd::Dist { destdir, bin_dir } => dist::run(&destdir, bin_dir.as_deref()),
        Cmd::Rpm {
            out,
            release,
            cargo_target_dir,
        } => rpm::build(&out, release, cargo_target_dir.as_deref()),
        Cmd::Licenses => licenses::run(),
        Cmd::Image {
            out,
            binary,
            reference,
        } => image::run(binary.as_deref(), &out, &reference),
        Cmd::Soak { trials, seed } => {
            deps::install()?;
            soak::run(trials, seed)
        }
        Cmd::Demo { keep, redraw, out } => demo::run(keep, redraw.as_deref(), out.as_deref()),
        Cmd::Fuzz {
            targets,
            seconds,
            merge,
        } => fuzz::run_targets(seconds, &targets, merge),
        Cmd::Bench { which, rounds } => bench(which, rounds),
    }
}

fn bench(which: Option<Bench>, rounds: usize) -> anyhow::Result<()> {
    deps::install()?;
    if which.is_none_or(|w| w == Bench::NodeipSelector) {
        bench_nodeip::run(rounds)?;
    }
    if which.is_none_or(|w| w == Bench::ResolvPrepender) {
        bench_resolv::run()?;
    }
    if which.is_none_or(|w| w == Bench::OvsBridgeConfigurator) {
        bench_br_ex::run()?;
    }
    if which.is_none_or(|w| w == Bench::LiveApply) {
        bench_live::run()?;
    }
    if which.is_none_or(|w| w == Bench::LiveApplyKernel) {
        bench_live_kernel::run()?;
    }
    if which == Some(Bench::NmstateFileKernel) {
        bench_live_kernel::run_boot()?;
    }
    if which.is_none_or(|w| w == Bench::KeepalivedMonitor) {
        bench_keepalived::run()?;
    }
    if which.is_none_or(|w| w == Bench::Boot) {
        bench_boot::run()?;
    }
    if which.is_none_or(|w| w == Bench::PolicyController) {
        bench_policy::run()?;
    }
    if which.is_none_or(|w| w == Bench::PublishState) {
        bench_publish::run()?;
    }
    Ok(())
}
