//! Small process helpers.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, bail};

/// The workspace root (xtask lives one level below it).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_owned()
}

/// `cargo` as invoked by the user (respects `$CARGO`), run from the workspace root, without the
/// variables `cargo run` gave xtask for its own package: build scripts that watch variables of
/// those names (ring's: CARGO_MANIFEST_DIR, CARGO_PKG_NAME, ...) would see them changed since
/// `cargo xtask` built them and run again, rebuilding ring, rustls and kube.
pub fn cargo() -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(root());
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if RUN_VARIABLES.contains(&k.as_ref()) || k.starts_with("CARGO_PKG_") {
            c.env_remove(k.as_ref());
        }
    }
    c
}

/// The variables `cargo run` sets for the program it runs, besides `CARGO_PKG_*`.
const RUN_VARIABLES: &[&str] = &[
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_MANIFEST_LINKS",
    "CARGO_CRATE_NAME",
    "CARGO_BIN_NAME",
    "CARGO_PRIMARY_PACKAGE",
    "OUT_DIR",
];

/// Runs `cmd` with inherited stdio and fails on a non-zero exit.
pub fn run(cmd: &mut Command) -> anyhow::Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("cannot run {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed: {status}");
    }
    Ok(())
}

/// Builds the release binaries and returns the path of `name`.
pub fn release_binary(name: &str) -> anyhow::Result<PathBuf> {
    run(cargo().args(["build", "--release", "--locked", "--bin", name]))?;
    Ok(root().join("target/release").join(name))
}

/// Whether the process runs as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A daemon under measurement, killed (SIGTERM) and reaped on drop.
pub struct Running(pub std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.0.id().to_string()).status();
        let _ = self.0.wait();
    }
}

/// A `/proc/<pid>/status` value in KiB (`VmRSS:`, `VmHWM:`).
pub fn status_kib(pid: u32, key: &str) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .ok_or_else(|| anyhow::anyhow!("no {key} in /proc/{pid}/status"))
}

/// The median of `v` (the upper one of an even count).
pub fn median(mut v: Vec<std::time::Duration>) -> std::time::Duration {
    v.sort();
    v[v.len() / 2]
}
