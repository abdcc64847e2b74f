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

/// Each test binary's wall time (from cargo's `Running`/`Doc-tests` line to the next), and the
/// build before the first: the table at the end of every run, so CI's budget stays visible.
#[derive(Debug)]
struct Suites {
    started: Instant,
    current: Option<(String, Instant)>,
    done: Vec<(String, Duration)>,
}

impl Suites {
    fn new(started: Instant) -> Suites {
        Suites {
            started,
            current: None,
            done: Vec::new(),
        }
    }

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
        if self.done.is_empty() {
            self.done
                .push(("(build)".to_owned(), at.duration_since(self.started)));
        }
        self.current = Some((name, at));
    }

    fn finish(&mut self, at: Instant) {
        if let Some((name, since)) = self.current.take() {
            self.done.push((name, at.duration_since(since)));
        }
    }

    /// The table: one row per suite in run order, then the total.
    fn table(&self, deps: Duration) -> String {
        let width = self
            .done
            .iter()
            .map(|(n, _)| n.len())
            .max()
            .unwrap_or(0)
            .max(24);
        let row = |name: &str, d: Duration| format!("{name:<width$} {:>7.1} s\n", d.as_secs_f64());
        let mut out = format!("suite wall times\n{}", row("(deps)", deps));
        for (name, d) in &self.done {
            out.push_str(&row(name, *d));
        }
        let total: Duration = deps + self.done.iter().map(|(_, d)| *d).sum::<Duration>();
        out.push_str(&row("total", total));
        out
    }
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
    // --no-fail-fast: one failing test binary does not hide what the others would say.
    let started = Instant::now();
    let mut child = cargo()
        .args([
            "test",
            "--workspace",
            "--all-targets",
            "--locked",
            "--no-fail-fast",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run cargo test")?;
    // cargo says which binary runs on stderr: timed as it comes, passed on as it was.
    let stderr = child.stderr.take().context("stderr")?;
    let timing = std::thread::spawn(move || {
        let mut suites = Suites::new(started);
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
    println!("{}", suites.table(deps));
    // Each failure's first words again, next to the closing line, where a reader of the tail
    // of a long log finds them.
    for p in &panics.found {
        println!("failed: {p}");
    }
    // The closing line CI reads: every test binary's counts together.
    println!(
        "summary: {} passed, {} failed, {} skipped",
        totals.passed, totals.failed, totals.ignored
    );
    if !status.success() {
        bail!("cargo test failed: {status}");
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
        let mut suites = Suites::new(t0);
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
                ("(build)", 300),
                ("selection src/lib.rs", 2),
                ("harness tests/harness.rs", 98),
                ("selection doc-tests", 1)
            ]
        );
        let table = suites.table(Duration::from_secs(10));
        assert!(table.contains("harness tests/harness.rs"), "{table}");
        assert!(table.trim_end().ends_with("411.0 s"), "{table}");
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
