//! The demo's set-up, timed: the packages NetworkManager's build needs, then that build (when
//! due) in its own thread beside the other Debian packages and the daemons' Rust build, since
//! neither needs the other.
//!
//! The daemons are built with the dev profile, in the same cargo run as xtask itself
//! (`-p xtask`): `cargo xtask` has just compiled every library the daemons link, with the same
//! features, for xtask (which links all four daemons' libraries, the policy controller's through
//! ovs-bridge-configurator, and the harness), so the build adds only the binaries' own crates
//! and their links: the four daemons and the policy controller that day 2's policy step runs. Any other profile compiles the whole
//! dependency graph (kube, k8s-openapi, nmstate, zbus, rustls, tokio) a second time. These are
//! the binaries every cluster and day-2 test runs, with debug assertions and overflow checks on;
//! a demo needs correct daemons, and the benchmarks and packages keep the release profile.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::anyhow;
use integration::cluster::DAEMONS;

use crate::deps;
use crate::util::{cargo, root, run as run_cmd};

/// Where the set-up time went.
#[derive(Debug)]
pub struct Setup {
    /// The packages NetworkManager's build needs (none when it is not due).
    pub build_packages: Duration,
    /// `None` when the build was there already.
    pub network_manager: Option<Duration>,
    /// The packages the demo runs, installed beside NetworkManager's build.
    pub packages: Duration,
    pub rust: Duration,
    pub total: Duration,
}

impl Setup {
    /// One line: each part in seconds.
    pub fn summary(&self) -> String {
        let s = |d: Duration| format!("{:.1} s", d.as_secs_f64());
        let nm = match self.network_manager {
            Some(d) => format!(
                "build packages {}, then NetworkManager's build {} beside",
                s(self.build_packages),
                s(d)
            ),
            None => "NetworkManager built already;".to_owned(),
        };
        format!(
            "set-up {}: {nm} the Debian packages {} and the daemons' Rust build {}",
            s(self.total),
            s(self.packages),
            s(self.rust)
        )
    }
}

/// Installs what is missing and builds the daemons; where their binaries are and the times.
pub fn run() -> anyhow::Result<(Setup, PathBuf)> {
    let t0 = Instant::now();
    println!("== Set-up: Debian packages, NetworkManager with OVS, the daemons ==");
    let build_nm = deps::demo_build_packages()?;
    let build_packages = t0.elapsed();
    let timed = |f: fn() -> anyhow::Result<()>| {
        let t = Instant::now();
        f().map(|()| t.elapsed())
    };
    let (network_manager, packages, rust) = std::thread::scope(|s| {
        let nm = build_nm.then(|| s.spawn(|| timed(deps::build_network_manager)));
        let packages = timed(deps::demo_packages);
        let rust = timed(build_daemons);
        let nm = nm
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow!("the NetworkManager build panicked")))
            })
            .transpose();
        (nm, packages, rust)
    });
    let setup = Setup {
        build_packages,
        network_manager: network_manager?,
        packages: packages?,
        rust: rust?,
        total: t0.elapsed(),
    };
    Ok((setup, target_dir().join("debug")))
}

/// The four daemons' binaries and the policy controller's (see the module's documentation for
/// the profile).
fn build_daemons() -> anyhow::Result<()> {
    let mut cmd = cargo();
    cmd.args([
        "build",
        "--locked",
        "-p",
        "xtask",
        "-p",
        "policy-controller",
    ]);
    for d in DAEMONS {
        cmd.args(["-p", d]);
    }
    run_cmd(cmd.arg("--bins"))
}

/// Cargo's target directory: `CARGO_TARGET_DIR` (relative to the workspace) or `target`.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), |d| root().join(d))
}
