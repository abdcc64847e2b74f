//! `cargo xtask deps`: the Debian packages tests and demos use.

use std::process::{Command, Stdio};

use anyhow::{Context, bail};

use crate::util::{is_root, run};

/// What the current test suites and benchmarks run: iproute2 (namespaces, veth, routes), ping,
/// sysctl, GNU time (peak RSS).
const PACKAGES: &[&str] = &["iproute2", "iputils-ping", "procps", "time"];

/// A `policy-rc.d` that denies every service start, so installing a package with an init
/// script never starts its daemon on the host.
const POLICY_RC_D: &str = "/usr/sbin/policy-rc.d";

fn installed(pkg: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", pkg])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout) == "install ok installed")
}

/// Installs what is missing; prints nothing when everything is present.
pub fn install() -> anyhow::Result<()> {
    let missing: Vec<&str> = PACKAGES.iter().copied().filter(|p| !installed(p)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    if !is_root() {
        bail!("missing Debian packages {missing:?}; run `cargo xtask deps` as root");
    }
    if !std::path::Path::new(POLICY_RC_D).exists() {
        std::fs::write(POLICY_RC_D, "#!/bin/sh\nexit 101\n").context("cannot write policy-rc.d")?;
        run(Command::new("chmod").args(["0755", POLICY_RC_D]))?;
    }
    eprintln!("xtask deps: installing {}", missing.join(" "));
    let quiet = |c: &mut Command| {
        c.env("DEBIAN_FRONTEND", "noninteractive")
            .stdout(Stdio::null());
    };
    let mut update = Command::new("apt-get");
    update.args(["-q", "update"]);
    quiet(&mut update);
    run(&mut update).context("apt-get update failed: is the Debian package registry reachable?")?;
    let mut install = Command::new("apt-get");
    install
        .args(["-q", "install", "-y", "--no-install-recommends"])
        .args(&missing);
    quiet(&mut install);
    run(&mut install).context("apt-get install failed")
}
