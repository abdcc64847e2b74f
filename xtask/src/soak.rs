//! `cargo xtask soak --trials N`: the cluster's kill -9 fault test (`faults_converge_to_the_same_state`
//! in `xtask/tests/cluster.rs`) run N times, each trial with its own fault points. A trial's seed
//! is printed with its result, so a failure replays with
//! `FAULT_SEED=<seed> cargo test -p xtask --test cluster faults_converge_to_the_same_state`.

use std::process::Stdio;
use std::time::Instant;

use anyhow::bail;

use crate::util::{cargo, is_root, root};

const TEST: &str = "faults_converge_to_the_same_state";

/// The next seed of a xorshift sequence (never 0).
fn next(seed: u64) -> u64 {
    let mut x = seed | 1;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

pub fn run(trials: usize, seed: Option<u64>) -> anyhow::Result<()> {
    if !is_root() {
        bail!("the soak builds network namespaces: run it as root");
    }
    let mut seed = seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    println!("== {trials} trials of {TEST}; replay a trial with FAULT_SEED=<seed>");
    // Built once, quietly; every trial then runs the same test binary.
    let build = cargo()
        .args([
            "test", "--locked", "-p", "xtask", "--test", "cluster", "--no-run",
        ])
        .stderr(Stdio::null())
        .status()?;
    if !build.success() {
        bail!("cannot build the cluster test: {build}");
    }
    let started = Instant::now();
    let mut failed = Vec::new();
    for trial in 1..=trials {
        seed = next(seed);
        let t = Instant::now();
        let out = cargo()
            .args([
                "test", "--locked", "-q", "-p", "xtask", "--test", "cluster", TEST,
            ])
            .args(["--", "--exact", "--nocapture"])
            .env("FAULT_SEED", seed.to_string())
            .output()?;
        let verdict = if out.status.success() { "ok" } else { "FAILED" };
        println!(
            "trial {trial:>3}/{trials}  FAULT_SEED={seed:<20}  {verdict}  {:.1} s",
            t.elapsed().as_secs_f64()
        );
        if !out.status.success() {
            // The whole output (the test's own and the daemons' logs it quotes) for diagnosis.
            let log = root().join(format!("target/soak/{seed}.log"));
            std::fs::create_dir_all(log.parent().expect("a parent"))?;
            std::fs::write(&log, [&out.stdout[..], &out.stderr[..]].concat())?;
            let text = String::from_utf8_lossy(&out.stdout);
            let panic = text
                .lines()
                .find(|l| l.contains("panicked at"))
                .unwrap_or("");
            println!("    {panic}\n    full output: {}", log.display());
            failed.push(seed);
        }
    }
    println!(
        "soak: {} of {trials} trials passed in {:.0} s{}",
        trials - failed.len(),
        started.elapsed().as_secs_f64(),
        if failed.is_empty() {
            String::new()
        } else {
            format!("; failing seeds: {failed:?}")
        }
    );
    if !failed.is_empty() {
        bail!("{} trial(s) failed", failed.len());
    }
    Ok(())
}
