//! Debian packages, installed without starting their services.

use std::process::{Command, Stdio};

use anyhow::{Context, bail};

use crate::util::{is_root, run};

/// A `policy-rc.d` that denies every service start, so installing a package with an init
/// script (openvswitch-switch, keepalived) never starts its daemon on the host.
const POLICY_RC_D: &str = "/usr/sbin/policy-rc.d";

fn installed(pkg: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", pkg])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout) == "install ok installed")
}

fn apt_get(args: &[&str]) -> Command {
    let mut c = Command::new("apt-get");
    c.args(["-q", "-o", "Dpkg::Use-Pty=0"]).args(args);
    c.env("DEBIAN_FRONTEND", "noninteractive")
        .stdout(Stdio::null());
    c
}

/// Downloads the package lists.
pub fn update() -> anyhow::Result<()> {
    run(&mut apt_get(&["update"]))
        .context("apt-get update failed: is the Debian package registry reachable?")
}

/// Installs the missing packages of `packages`; prints nothing when none is missing.
pub fn ensure(packages: &[&str]) -> anyhow::Result<()> {
    let missing: Vec<&str> = packages.iter().copied().filter(|p| !installed(p)).collect();
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
    update()?;
    let mut install = apt_get(&["install", "-y", "--no-install-recommends"]);
    install.args(&missing);
    run(&mut install).context("apt-get install failed")
}
