//! `cargo xtask test`: every test of the workspace, with one closing summary line.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::util::cargo;

/// Counts from cargo's `test result: ok. 12 passed; 0 failed; 1 ignored; ...` lines.
#[derive(Debug, Default, PartialEq, Eq)]
struct Totals {
    passed: u64,
    failed: u64,
    ignored: u64,
}

impl Totals {
    fn add_line(&mut self, line: &str) {
        let Some(rest) = line.strip_prefix("test result: ") else {
            return;
        };
        for part in rest.split(';') {
            let mut words = part.split_whitespace().rev();
            let (Some(label), Some(n)) = (words.next(), words.next()) else {
                continue;
            };
            let Ok(n) = n.parse::<u64>() else { continue };
            match label {
                "passed" => self.passed += n,
                "failed" => self.failed += n,
                "ignored" => self.ignored += n,
                _ => {}
            }
        }
    }
}

/// Each panicking test's `thread '<test>' ... panicked at <place>:` line with the first line of
/// its message, shortened to its head and tail: a failed boot's message is one line carrying
/// the boot's journal, whose last lines say what the boot was waiting for.
#[derive(Debug, Default)]
struct Panics {
    found: Vec<String>,
    /// The last line was a `panicked at` line: the next one is its message.
    awaiting_message: bool,
}

impl Panics {
    const HEAD_CHARS: usize = 200;
    const TAIL_CHARS: usize = 600;

    fn add_line(&mut self, line: &str) {
        let awaiting = std::mem::take(&mut self.awaiting_message);
        if line.starts_with("thread '") && line.contains("panicked at") {
            self.found.push(line.trim_end_matches(':').to_owned());
            self.awaiting_message = true;
        } else if awaiting && let Some(last) = self.found.last_mut() {
            let chars: Vec<char> = line.chars().collect();
            last.push_str(": ");
            if chars.len() <= Self::HEAD_CHARS + Self::TAIL_CHARS {
                last.push_str(line);
            } else {
                last.extend(&chars[..Self::HEAD_CHARS]);
                last.push_str(" [...] ");
                last.extend(&chars[chars.len() - Self::TAIL_CHARS..]);
            }
        }
    }
}

/// Each test binary's wall time in one `cargo test` run (from cargo's `Running`/`Doc-tests` line
/// to the next): rows of the table at the end of every run, so CI's budget stays visible.
#[derive(Debug, Default)]
struct Suites {
    current: Option<(String, Instant)>,
    done: Vec<(String, Duration)>,
}

impl Suites {
    /// A line of cargo's stderr, seen at `at`.
    fn add_line(&mut self, line: &str, at: Instant) {
        let line = line.trim();
        let name = if let Some(rest) = line.strip_prefix("Running ") {
            // `Running tests/harness.rs (target/debug/deps/harness-0f1e2d3c)`
            let (src, bin) = rest.split_once(" (").unwrap_or((rest, ""));
            let bin = bin
                .trim_end_matches(')')
                .rsplit('/')
                .next()
                .unwrap_or_default();
            let bin = bin.rsplit_once('-').map_or(bin, |(name, _hash)| name);
            format!("{bin} {}", src.trim_start_matches("unittests "))
        } else if let Some(krate) = line.strip_prefix("Doc-tests ") {
            format!("{krate} doc-tests")
        } else {
            return;
        };
        self.finish(at);
        self.current = Some((name, at));
    }

    fn finish(&mut self, at: Instant) {
        if let Some((name, since)) = self.current.take() {
            self.done.push((name, at.duration_since(since)));
        }
    }
}

/// The table printed at the end: one row per phase or suite in run order, the suites that ran
/// side by side indented under their phase, then the whole run's wall time.
#[derive(Debug, Default)]
struct Table {
    rows: Vec<(String, Duration)>,
}

impl Table {
    fn row(&mut self, name: impl Into<String>, d: Duration) {
        self.rows.push((name.into(), d));
    }

    fn render(&self, total: Duration) -> String {
        let width = self
            .rows
            .iter()
            .map(|(n, _)| n.len())
            .max()
            .unwrap_or(0)
            .max(24);
        let row = |name: &str, d: Duration| format!("{name:<width$} {:>7.1} s\n", d.as_secs_f64());
        let mut out = "suite wall times\n".to_owned();
        for (name, d) in &self.rows {
            out.push_str(&row(name, *d));
        }
        out.push_str(&row("total", total));
        out
    }
}

/// What one `cargo test` run said: its counts, panics and suites' times, and how it ended.
struct Outcome {
    totals: Totals,
    panics: Panics,
    suites: Suites,
    status: std::process::ExitStatus,
}

/// Runs `cargo test ARGS` (nice'd by `nice` when not 0), passing its output on as it comes and
/// reading the counts, panics and suite times from it.
fn cargo_test(args: &[String], nice: u8) -> anyhow::Result<Outcome> {
    let mut cmd = if nice == 0 {
        cargo()
    } else {
        let mut c = std::process::Command::new("nice");
        c.args(["-n", &nice.to_string()])
            .arg(cargo().get_program())
            .current_dir(crate::util::root());
        c
    };
    let mut child = cmd
        .args(["test", "--workspace", "--locked", "--no-fail-fast"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run cargo test")?;
    // cargo says which binary runs on stderr: timed as it comes, passed on as it was.
    let stderr = child.stderr.take().context("stderr")?;
    let timing = std::thread::spawn(move || {
        let mut suites = Suites::default();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("{line}");
            suites.add_line(&line, Instant::now());
        }
        suites
    });
    let mut totals = Totals::default();
    let mut panics = Panics::default();
    for line in BufReader::new(child.stdout.take().context("stdout")?).lines() {
        let line = line?;
        println!("{line}");
        totals.add_line(&line);
        panics.add_line(&line);
    }
    let status = child.wait()?;
    let mut suites = timing
        .join()
        .map_err(|_| anyhow::anyhow!("the timing thread panicked"))?;
    suites.finish(Instant::now());
    Ok(Outcome {
        totals,
        panics,
        suites,
        status,
    })
}

/// The test binaries that run side by side, after the build and before the others, each in its
/// own `cargo test` (Cargo's lock on the target directory is held while it builds, not while
/// tests run): the real-kernel tier waits on its User-Mode Linux guest (one at a time, about
/// 0.6 of a core for 15 minutes) while the RPM suite's release builds use what is left. The RPM
/// suite is nice'd: a UML guest starved of CPU stalls (seen with two guests at once), a build
/// only takes longer.
const SIDE_BY_SIDE: [(&str, u8); 2] = [("real_kernel", 0), ("rpm", 10)];

/// Every integration-test target of the workspace's packages (`cargo metadata`).
fn test_targets() -> anyhow::Result<Vec<String>> {
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--no-deps", "--locked"])
        .output()
        .context("cannot run cargo metadata")?;
    if !out.status.success() {
        bail!("cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    }
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let mut names: Vec<String> = meta["packages"]
        .as_array()
        .context("cargo metadata without packages")?
        .iter()
        .flat_map(|p| p["targets"].as_array().into_iter().flatten())
        .filter(|t| {
            t["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "test"))
        })
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

pub fn run(deps: Duration) -> anyhow::Result<()> {
    // What earlier runs left on this machine (an interrupted run, say) is not this run's leak:
    // it is named once so nobody mistakes it for a clean host, and the check below counts only
    // what appears during the suite.
    let leaks_before = integration::leaks::find();
    if !leaks_before.is_empty() {
        eprintln!(
            "warning: left by an earlier run, before this suite started (not counted):\n  {}",
            leaks_before.join("\n  ")
        );
    }
    let markers_before = integration::leaks::host_markers();
    let netns_dirs_before = integration::leaks::existing_netns_dirs();
    let started = Instant::now();
    let mut table = Table::default();
    table.row("(deps)", deps);
    // One build of every test target first, so the runs below only run.
    crate::util::run(cargo().args([
        "test",
        "--workspace",
        "--all-targets",
        "--locked",
        "--no-run",
    ]))?;
    table.row("(build)", started.elapsed());
    let targets = test_targets()?;
    for (name, _) in SIDE_BY_SIDE {
        if !targets.iter().any(|t| t == name) {
            bail!("no test target {name} in the workspace");
        }
    }
    let side_started = Instant::now();
    let side: Vec<anyhow::Result<Outcome>> = std::thread::scope(|scope| {
        let runs: Vec<_> = SIDE_BY_SIDE
            .iter()
            .map(|(name, nice)| {
                scope.spawn(move || cargo_test(&["--test".to_owned(), (*name).to_owned()], *nice))
            })
            .collect();
        runs.into_iter()
            .map(|r| {
                r.join()
                    .unwrap_or_else(|_| bail!("a test run's thread panicked"))
            })
            .collect()
    });
    let mut outcomes = side.into_iter().collect::<anyhow::Result<Vec<_>>>()?;
    let side_wall = side_started.elapsed();
    // --no-fail-fast: one failing test binary does not hide what the others would say.
    let mut rest: Vec<String> = ["--lib", "--bins", "--examples", "--benches"]
        .map(str::to_owned)
        .to_vec();
    for t in targets
        .iter()
        .filter(|t| !SIDE_BY_SIDE.iter().any(|(s, _)| s == t))
    {
        rest.extend(["--test".to_owned(), t.clone()]);
    }
    outcomes.push(cargo_test(&rest, 0)?);
    table.row(
        format!("side by side: {}", SIDE_BY_SIDE.map(|(n, _)| n).join(" | ")),
        side_wall,
    );
    let (side, others) = outcomes.split_at(SIDE_BY_SIDE.len());
    for o in side {
        for (name, d) in &o.suites.done {
            table.row(format!("  {name}"), *d);
        }
    }
    for (name, d) in &others[0].suites.done {
        table.row(name.clone(), *d);
    }
    println!("{}", table.render(deps + started.elapsed()));
    // Each failure's first words again, next to the closing line, where a reader of the tail
    // of a long log finds them.
    for o in &outcomes {
        for p in &o.panics.found {
            println!("failed: {p}");
        }
    }
    // The closing line CI reads: every test binary's counts together.
    let mut totals = Totals::default();
    for o in &outcomes {
        totals.passed += o.totals.passed;
        totals.failed += o.totals.failed;
        totals.ignored += o.totals.ignored;
    }
    println!(
        "summary: {} passed, {} failed, {} skipped",
        totals.passed, totals.failed, totals.ignored
    );
    if let Some(o) = outcomes.iter().find(|o| !o.status.success()) {
        bail!("cargo test failed: {}", o.status);
    }
    if totals.passed == 0 {
        bail!("cargo test ran no test");
    }
    // After the whole suite: nothing of the harness may remain, and the host may not have
    // gained any of the paths the components leave when misused.
    let mut leaks: Vec<String> = integration::leaks::find()
        .into_iter()
        .filter(|l| !leaks_before.contains(l))
        .collect();
    leaks.extend(
        integration::leaks::host_markers()
            .into_iter()
            .filter(|m| !markers_before.contains(m))
            .map(|m| format!("host path {m}")),
    );
    if !leaks.is_empty() {
        bail!(
            "the test suite left things behind:\n  {}",
            leaks.join("\n  ")
        );
    }
    integration::leaks::remove_if_created(&netns_dirs_before).map_err(|e| anyhow::anyhow!(e))?;
    println!("leak check: no namespace, process, temp dir or host path left behind");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_each_panic_with_the_first_line_of_its_message() {
        let mut p = Panics::default();
        p.add_line("running 1 test");
        p.add_line("thread 'boots' (123) panicked at integration/src/node_boot.rs:394:21:");
        p.add_line(&format!(
            "called `Result::unwrap()` on an `Err` value: {}{}",
            "x".repeat(500),
            "y".repeat(600)
        ));
        p.add_line("--- its journal");
        p.add_line("thread 'other' panicked at xtask/tests/day2.rs:12:5:");
        p.add_line("assertion failed: left == 5");
        p.add_line("a second line of the message, not repeated");
        assert_eq!(p.found.len(), 2);
        assert!(p.found[0].starts_with(
            "thread 'boots' (123) panicked at integration/src/node_boot.rs:394:21: called"
        ));
        assert!(p.found[0].ends_with(&format!("x [...] {}", "y".repeat(600))));
        assert_eq!(
            p.found[1],
            "thread 'other' panicked at xtask/tests/day2.rs:12:5: assertion failed: left == 5"
        );
    }

    #[test]
    fn times_each_test_binary_from_its_running_line_to_the_next() {
        let t0 = Instant::now();
        let s = |secs: u64| t0 + Duration::from_secs(secs);
        let mut suites = Suites::default();
        suites.add_line("   Compiling selection v0.1.0", s(1));
        suites.add_line(
            "     Running unittests src/lib.rs (target/debug/deps/selection-0123abcd)",
            s(300),
        );
        suites.add_line(
            "     Running tests/harness.rs (target/debug/deps/harness-89ef)",
            s(302),
        );
        suites.add_line("   Doc-tests selection", s(400));
        suites.finish(s(401));
        let names: Vec<(&str, u64)> = suites
            .done
            .iter()
            .map(|(n, d)| (n.as_str(), d.as_secs()))
            .collect();
        assert_eq!(
            names,
            [
                ("selection src/lib.rs", 2),
                ("harness tests/harness.rs", 98),
                ("selection doc-tests", 1)
            ]
        );
    }

    #[test]
    fn the_table_ends_with_the_whole_runs_wall_time() {
        let mut table = Table::default();
        table.row("(build)", Duration::from_secs(100));
        table.row("side by side: a | b", Duration::from_secs(900));
        table.row("  a tests/a.rs", Duration::from_secs(900));
        table.row("  b tests/b.rs", Duration::from_secs(700));
        let text = table.render(Duration::from_secs(1000));
        assert!(text.contains("  b tests/b.rs"), "{text}");
        assert!(text.trim_end().ends_with("1000.0 s"), "{text}");
        assert!(text.lines().last().unwrap().starts_with("total"), "{text}");
    }

    #[test]
    fn sums_cargo_result_lines() {
        let mut t = Totals::default();
        t.add_line("test result: ok. 12 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 3.30s");
        t.add_line(
            "test result: FAILED. 3 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out",
        );
        t.add_line("running 5 tests");
        assert_eq!(
            t,
            Totals {
                passed: 15,
                failed: 2,
                ignored: 1
            }
        );
    }
}
