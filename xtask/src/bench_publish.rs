//! `cargo xtask bench publish-state`: the release `ovs-bridge-configurator publish-state` on a
//! harness node with 1,000 more links ([`crate::bench_publish_node`]), against the API stand-in.
//!
//! - start -> the first document in the API;
//! - change -> API over [`ROUNDS`] changes (a VLAN added with an address, an address added to
//!   another, the VLAN and the address removed), each timed from the `ip` command to the
//!   stand-in holding a document that shows it: p50 and p99 (goal p99 <= 2 s);
//! - the reads the publisher made, and how long one takes (its own log);
//! - writes and CPU (utime + stime) over an idle window of [`IDLE`], the writes extrapolated to
//!   an hour plus the heartbeat's six (goal <= 6 an hour, < 0.5 % of a core);
//! - peak (VmHWM) and steady (VmRSS) resident memory (goal <= 24 MiB).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow};

use crate::bench_publish_node::{BenchNode, TRUNK};
use crate::bench_publish_profile::{ReadProfile, profile};
use crate::util::{release_binary, status_kib};

/// Changes timed (a multiple of three: add, address, remove).
const ROUNDS: usize = 30;
/// The idle window.
const IDLE: Duration = Duration::from_secs(120);
/// The longest a change may take to show before the benchmark gives up on it.
const CHANGE_LIMIT: Duration = Duration::from_secs(60);
/// Quiet after a change is seen before the next one (the node settles as after a real change).
const BETWEEN: Duration = Duration::from_millis(1500);
/// The production heartbeat (`--heartbeat-secs` default): writes an idle hour holds anyway.
const HEARTBEATS_AN_HOUR: u64 = 6;

/// What a change must make the document show.
enum Expect {
    Has(String),
    Lacks(Vec<String>),
}

impl Expect {
    fn met(&self, doc: &str) -> bool {
        match self {
            Expect::Has(s) => doc.contains(s.as_str()),
            Expect::Lacks(v) => v.iter().all(|s| !doc.contains(s.as_str())),
        }
    }
}

/// Change `k`: `ip -batch` lines and what the document then shows.
fn change(k: usize) -> (String, Expect) {
    let i = k / 3;
    let (vlan, addr) = (format!("bv{i}"), format!("198.18.{i}.1"));
    match k % 3 {
        0 => (
            format!(
                "link add {vlan} link {TRUNK} type macvlan mode bridge\nlink set {vlan} up\n\
                 addr add 198.19.{i}.1/24 dev {vlan}\n"
            ),
            Expect::Has(format!("\"{vlan}\"")),
        ),
        1 => (
            format!("addr add {addr}/24 dev vl{i}\n"),
            Expect::Has(format!("\"{addr}\"")),
        ),
        _ => (
            format!("link del {vlan}\naddr del {addr}/24 dev vl{i}\n"),
            Expect::Lacks(vec![format!("\"{vlan}\""), format!("\"{addr}\"")]),
        ),
    }
}

/// Polls the stand-in until its document meets `want`; the time from `t0`.
fn shown(b: &BenchNode, t0: Instant, want: impl Fn(&str) -> bool) -> Option<Duration> {
    let mut last = usize::MAX;
    while t0.elapsed() < CHANGE_LIMIT {
        let writes = b.writes();
        if writes != last {
            last = writes;
            if b.document().is_some_and(|d| want(&d)) {
                return Some(t0.elapsed());
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

/// Every change of [`change`], timed.
fn latencies(b: &BenchNode) -> anyhow::Result<Vec<Duration>> {
    let mut times = Vec::new();
    for k in 0..ROUNDS {
        let (lines, want) = change(k);
        let t0 = Instant::now();
        b.node.ns.ip_batch(&lines).map_err(|e| anyhow!(e))?;
        let took = shown(b, t0, |d| want.met(d))
            .with_context(|| format!("change {k} not in the API after {CHANGE_LIMIT:?}"))?;
        times.push(took);
        // The stand-in keeps every revision for watches; none watches here.
        b.api.compact();
        std::thread::sleep(BETWEEN);
    }
    Ok(times)
}

/// utime + stime of `pid`, in clock ticks.
fn cpu_ticks(pid: u32) -> anyhow::Result<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let after = stat.rsplit_once(')').context("no comm in stat")?.1;
    let f: Vec<&str> = after.split_whitespace().collect();
    // After the comm: state is field 3 of stat(5); utime and stime are 14 and 15.
    Ok(f[11].parse::<u64>()? + f[12].parse::<u64>()?)
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    (unsafe { libc::sysconf(libc::_SC_CLK_TCK) }) as f64
}

/// The publisher's reads so far, from its log: each one's duration.
fn reads(log: &Path) -> Vec<Duration> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .filter_map(|l| l.split_once("read the node in ")?.1.split_once(" ms"))
        .filter_map(|(ms, _)| ms.trim().parse::<u64>().ok())
        .map(Duration::from_millis)
        .collect()
}

/// Waits until the publisher has read nothing for `quiet` (at most `limit`).
fn settle(b: &BenchNode, quiet: Duration, limit: Duration) {
    let t0 = Instant::now();
    let (mut n, mut since) = (reads(&b.log()).len(), Instant::now());
    while since.elapsed() < quiet && t0.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(200));
        let now = reads(&b.log()).len();
        if now != n {
            (n, since) = (now, Instant::now());
        }
    }
}

/// `Anonymous:` of `/proc/<pid>/smaps_rollup`, in KiB.
fn anonymous_kib(pid: u32) -> anyhow::Result<u64> {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))?;
    rollup
        .lines()
        .find_map(|l| l.strip_prefix("Anonymous:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .context("no Anonymous in smaps_rollup")
}

/// The `q` quantile of `v` (nearest rank), in seconds.
fn quantile(v: &[Duration], q: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort();
    let i = ((v.len() as f64 * q).ceil() as usize).clamp(1, v.len()) - 1;
    v[i].as_secs_f64()
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// Idle window: writes and CPU share.
struct Idle {
    writes: usize,
    cpu: f64,
    reads: usize,
}

fn idle(b: &BenchNode, pid: u32) -> anyhow::Result<Idle> {
    settle(b, Duration::from_secs(10), Duration::from_secs(120));
    let (w0, c0, r0) = (b.writes(), cpu_ticks(pid)?, reads(&b.log()).len());
    std::thread::sleep(IDLE);
    let ticks = (cpu_ticks(pid)? - c0) as f64;
    Ok(Idle {
        writes: b.writes() - w0,
        cpu: ticks / ticks_per_second() / IDLE.as_secs_f64() * 100.0,
        reads: reads(&b.log()).len() - r0,
    })
}

/// Reads profiled before the publisher starts.
const PROFILED_READS: usize = 3;

/// Everything measured in one run.
struct Figures {
    read: ReadProfile,
    first: Duration,
    times: Vec<Duration>,
    change_reads: Vec<Duration>,
    change_writes: usize,
    idle: Idle,
    interfaces: usize,
    doc_kib: f64,
    hwm_after_first: u64,
    hwm: u64,
    rss: u64,
    /// Of `rss`, the heap and stacks (the rest: the binary's and libraries' pages).
    anonymous: u64,
}

/// The median (by duration) of [`PROFILED_READS`] reads of the node.
fn median_read(b: &BenchNode, bin: &Path) -> anyhow::Result<ReadProfile> {
    let mut reads = (0..PROFILED_READS)
        .map(|_| profile(b, bin))
        .collect::<anyhow::Result<Vec<_>>>()?;
    reads.sort_by_key(|r| r.total);
    Ok(reads.swap_remove(PROFILED_READS / 2))
}

fn measure(b: &mut BenchNode, bin: &Path) -> anyhow::Result<Figures> {
    let read = median_read(b, bin)?;
    let t0 = Instant::now();
    let pid = b.start_publisher(bin)?;
    let first = shown(b, t0, |_| true).context("no first document")?;
    let doc = b.document().unwrap_or_default();
    let interfaces = serde_json::from_str::<serde_json::Value>(&doc)?["interfaces"]
        .as_array()
        .map_or(0, Vec::len);
    let hwm_after_first = status_kib(pid, "VmHWM:")?;
    settle(b, Duration::from_secs(5), Duration::from_secs(60));
    let (w0, r0) = (b.writes(), reads(&b.log()).len());
    let times = latencies(b)?;
    let change_reads = reads(&b.log())[r0..].to_vec();
    let change_writes = b.writes() - w0;
    let idle = idle(b, pid)?;
    Ok(Figures {
        read,
        first,
        times,
        change_reads,
        change_writes,
        idle,
        interfaces,
        doc_kib: doc.len() as f64 / 1024.0,
        hwm_after_first,
        hwm: status_kib(pid, "VmHWM:")?,
        rss: status_kib(pid, "VmRSS:")?,
        anonymous: anonymous_kib(pid)?,
    })
}

fn print_read(r: &ReadProfile) {
    let share = |d: Duration| d.as_secs_f64() / r.total.as_secs_f64() * 100.0;
    println!(
        "one read of the node (`show`, what the publisher runs; median of {PROFILED_READS}): \
         {:.2} s, peak RSS {:.1} MiB",
        r.total.as_secs_f64(),
        mib(r.peak_rss_kib)
    );
    println!("| phase | time | share |\n|---|---|---|");
    for (what, d) in [
        ("start + kernel (nispor)", r.kernel),
        ("OVSDB", r.ovsdb),
        ("NetworkManager over D-Bus", r.network_manager),
        ("merge, YAML, exit", r.rest),
    ] {
        println!("| {what} | {:.2} s | {:.0} % |", d.as_secs_f64(), share(d));
    }
    println!(
        "CPU of that read: reader {:.2} s, NetworkManager {:.2} s, dbus-daemon {:.2} s",
        r.cpu[0], r.cpu[1], r.cpu[2]
    );
}

/// The medians of each kind of [`change`], and every time in order.
fn print_changes(times: &[Duration]) {
    let kind = |k: usize| -> Vec<Duration> { times.iter().skip(k).step_by(3).copied().collect() };
    println!(
        "change -> API by kind, median: a VLAN added {:.2} s, an address added {:.2} s, both \
         removed {:.2} s; in order: {}",
        quantile(&kind(0), 0.5),
        quantile(&kind(1), 0.5),
        quantile(&kind(2), 0.5),
        times
            .iter()
            .map(|t| format!("{:.1}", t.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(" ")
    );
}

fn print(f: &Figures) {
    print_read(&f.read);
    print_changes(&f.times);
    let per_hour = f.idle.writes as f64 * 3600.0 / IDLE.as_secs_f64();
    let read_p50 = (!f.change_reads.is_empty()).then(|| quantile(&f.change_reads, 0.5));
    println!(
        "publish-state: {} interfaces in the document ({:.0} KiB of JSON)",
        f.interfaces, f.doc_kib
    );
    println!("| figure | result | goal |\n|---|---|---|");
    println!(
        "| peak RSS (VmHWM) | {:.1} MiB ({:.1} MiB after the first document) | <= 24 MiB |",
        mib(f.hwm),
        mib(f.hwm_after_first)
    );
    println!(
        "| steady RSS (VmRSS) after the idle window | {:.1} MiB ({:.1} MiB heap and stacks) \
         | <= 24 MiB |",
        mib(f.rss),
        mib(f.anonymous)
    );
    println!(
        "| start -> first document | {:.2} s | |",
        f.first.as_secs_f64()
    );
    println!(
        "| change -> API, {} changes | p50 {:.2} s, p99 {:.2} s, max {:.2} s | p99 <= 2 s |",
        f.times.len(),
        quantile(&f.times, 0.5),
        quantile(&f.times, 0.99),
        quantile(&f.times, 1.0)
    );
    println!(
        "| reads / writes during the changes | {} reads (median {}), {} writes | |",
        f.change_reads.len(),
        read_p50.map_or("-".into(), |s| format!("{s:.2} s")),
        f.change_writes
    );
    println!(
        "| idle {} s: writes | {} ({per_hour:.0} an hour + {HEARTBEATS_AN_HOUR} heartbeats) \
         | <= 6 an hour |",
        IDLE.as_secs(),
        f.idle.writes
    );
    println!(
        "| idle {} s: CPU | {:.3} % of a core ({} reads) | < 0.5 % |",
        IDLE.as_secs(),
        f.idle.cpu,
        f.idle.reads
    );
}

pub fn run() -> anyhow::Result<()> {
    let bin = release_binary("ovs-bridge-configurator")?;
    let mut b = BenchNode::start()?;
    let result = measure(&mut b, &bin);
    match &result {
        Ok(f) => print(f),
        Err(_) => {
            let log = std::fs::read_to_string(b.log()).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(20).collect();
            eprintln!(
                "publisher log (last lines, newest first):\n{}",
                tail.join("\n")
            );
        }
    }
    result.map(drop)
}
