//! `cargo xtask fuzz`: the libFuzzer targets of `fuzz/libfuzzer` (properties in `fuzz/src`) on
//! the stable toolchain.
//!
//! cargo-fuzz's only nightly-only flag is `-Zsanitizer`; with `--sanitizer none` it passes
//! stable codegen flags (`-Cpasses=sancov-module` and the coverage `-Cllvm-args`), so libFuzzer
//! runs here without nightly. Safe Rust gains little from ASan; the properties are the oracle.
//!
//! Each run starts from the committed corpus (`fuzz/corpus/<target>`) and keeps what it finds in
//! a scratch corpus (`fuzz/libfuzzer/corpus/<target>`, ignored by git); `--merge` folds the
//! inputs that add coverage into the committed corpus. A crash input is copied into the committed
//! corpus (`crash-*`), so the normal test command replays it once it is fixed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, bail};

use crate::util::{cargo, root, run};

/// The cargo-fuzz release this project is tested with.
const CARGO_FUZZ: &str = "0.13.2";

/// What one target's run did, from libFuzzer's final lines.
struct Report {
    target: String,
    executions: u64,
    per_second: u64,
    coverage: u64,
    features: u64,
    corpus: u64,
    crashes: Vec<PathBuf>,
}

/// Runs `only` (every target when empty) for `seconds` each and prints one line per target.
pub fn run_targets(seconds: u64, only: &[String], merge: bool) -> anyhow::Result<()> {
    let dir = root().join("fuzz/libfuzzer");
    let targets = targets(&dir)?;
    if let Some(t) = only.iter().find(|t| !targets.contains(t)) {
        bail!("no fuzz target {t:?}; targets: {}", targets.join(", "));
    }
    ensure_cargo_fuzz()?;
    run(cargo().args([
        "fuzz",
        "build",
        "--sanitizer",
        "none",
        "--release",
        "--fuzz-dir",
        "fuzz/libfuzzer",
    ]))?;
    let mut reports = Vec::new();
    for target in targets
        .iter()
        .filter(|t| only.is_empty() || only.contains(t))
    {
        eprintln!("fuzzing {target} for {seconds} s");
        let report = fuzz_one(&dir, target, seconds)?;
        if merge {
            merge_into_committed(&dir, target)?;
        }
        reports.push(report);
    }
    println!(
        "{:<14} {:>12} {:>8} {:>6} {:>7} {:>7} crashes",
        "target", "executions", "exec/s", "cov", "ft", "corpus"
    );
    for r in &reports {
        println!(
            "{:<14} {:>12} {:>8} {:>6} {:>7} {:>7} {}",
            r.target,
            r.executions,
            r.per_second,
            r.coverage,
            r.features,
            r.corpus,
            r.crashes.len()
        );
    }
    let crashes: Vec<&PathBuf> = reports.iter().flat_map(|r| &r.crashes).collect();
    if !crashes.is_empty() {
        bail!("crash inputs (kept in the committed corpus): {crashes:#?}");
    }
    Ok(())
}

/// The targets: one file per target in `fuzz_targets/`.
fn targets(dir: &Path) -> anyhow::Result<Vec<String>> {
    let src = dir.join("fuzz_targets");
    let mut names: Vec<String> = std::fs::read_dir(&src)
        .with_context(|| format!("cannot list {}", src.display()))?
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "rs").then(|| p.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect();
    names.sort();
    Ok(names)
}

fn ensure_cargo_fuzz() -> anyhow::Result<()> {
    let installed = cargo()
        .args(["fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !installed {
        run(cargo().args(["install", "--locked", "cargo-fuzz", "--version", CARGO_FUZZ]))?;
    }
    Ok(())
}

fn fuzz_one(dir: &Path, target: &str, seconds: u64) -> anyhow::Result<Report> {
    let scratch = dir.join("corpus").join(target);
    let committed = root().join("fuzz/corpus").join(target);
    let artifacts = dir.join("artifacts").join(target);
    for d in [&scratch, &artifacts] {
        std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    }
    let before = list(&artifacts)?;
    let out = Command::new(
        dir.join("target/x86_64-unknown-linux-gnu/release")
            .join(target),
    )
    .arg(&scratch)
    .arg(&committed)
    .arg(format!("-max_total_time={seconds}"))
    .arg("-print_final_stats=1")
    .arg(format!("-artifact_prefix={}/", artifacts.display()))
    // libFuzzer may also leave files in its working directory; keep them out of the tree.
    .current_dir(&artifacts)
    .stdout(Stdio::inherit())
    .stderr(Stdio::piped())
    .output()
    .with_context(|| format!("cannot run the {target} fuzzer"))?;
    let log = String::from_utf8_lossy(&out.stderr);
    let crashes: Vec<PathBuf> = list(&artifacts)?
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    let mut kept = Vec::new();
    for c in &crashes {
        let name = c.file_name().unwrap_or_default();
        let copy = committed.join(name);
        std::fs::copy(c, &copy).with_context(|| format!("cannot keep {}", c.display()))?;
        kept.push(copy);
    }
    if !out.status.success() && crashes.is_empty() {
        let tail: Vec<&str> = log.lines().rev().take(30).collect();
        bail!(
            "the {target} fuzzer failed ({}) without a crash input:\n{}",
            out.status,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    let stat = |key: &str| -> u64 {
        log.lines()
            .find_map(|l| l.strip_prefix(&format!("stat::{key}:")))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    };
    // The last status line: `#N  DONE  cov: C ft: F corp: K/...`.
    let last = log
        .lines()
        .rfind(|l| l.starts_with('#') && l.contains("cov:"))
        .unwrap_or_default();
    let field = |key: &str| -> u64 {
        last.split_whitespace()
            .skip_while(|w| *w != key)
            .nth(1)
            .and_then(|v| v.split('/').next()?.parse().ok())
            .unwrap_or(0)
    };
    Ok(Report {
        target: target.to_owned(),
        executions: stat("number_of_executed_units"),
        per_second: stat("average_exec_per_sec"),
        coverage: field("cov:"),
        features: field("ft:"),
        corpus: field("corp:"),
        crashes: kept,
    })
}

/// libFuzzer's `-set_cover_merge=1`: a small set of scratch inputs covering what the committed
/// corpus does not yet cover joins it.
fn merge_into_committed(dir: &Path, target: &str) -> anyhow::Result<()> {
    let status = Command::new(
        dir.join("target/x86_64-unknown-linux-gnu/release")
            .join(target),
    )
    .arg("-set_cover_merge=1")
    .arg(root().join("fuzz/corpus").join(target))
    .arg(dir.join("corpus").join(target))
    .current_dir(dir.join("artifacts").join(target))
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .status()
    .with_context(|| format!("cannot merge the {target} corpus"))?;
    if !status.success() {
        bail!("merging the {target} corpus failed: {status}");
    }
    Ok(())
}

fn list(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| Some(e.ok()?.path()))
        .collect();
    v.sort();
    Ok(v)
}
