//! `cargo xtask bench`: `nodeip-selector show` on a node with 100k IPv4 routes, 10k IPv6 routes
//! and 1,000 addresses, against `ip -j route show table all` + `ip -j addr` on the same state,
//! in the same run. Reports medians, the ratio, and the selector's peak RSS.

use std::fmt::Write as _;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use integration::Netns;

use crate::util::{is_root, release_binary};

const V4_ROUTES: u32 = 100_000;
const V6_ROUTES: u32 = 10_000;
const V4_PER_NIC: u32 = 250;
const V6_ADDRESSES: u32 = 250;

pub fn run(rounds: usize) -> anyhow::Result<()> {
    if !is_root() {
        bail!("the benchmark builds a network namespace: run it as root");
    }
    let bin = release_binary("nodeip-selector")?;
    let ns = Netns::new("bench").map_err(|e| anyhow!(e))?;
    let t = Instant::now();
    populate(&ns)?;
    eprintln!("populated {} in {:.1?}", ns.name(), t.elapsed());
    enter(&ns)?;

    let expected = "192.0.2.1\n";
    let out = Command::new(&bin).args(selector_args()).output()?;
    if String::from_utf8_lossy(&out.stdout) != expected {
        bail!(
            "nodeip-selector show printed {:?}, expected {expected:?}: {}",
            out.stdout,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (v4, v6) = (count_routes("-4")?, count_routes("-6")?);

    let mut dump = Vec::new();
    let mut ours = Vec::new();
    let mut rss_kib = 0;
    for round in 0..rounds + 2 {
        let a = timed(Command::new("ip").args(["-j", "route", "show", "table", "all"]))?;
        let b = timed(Command::new("ip").args(["-j", "addr"]))?;
        let c = timed(Command::new(&bin).args(selector_args()))?;
        if round >= 2 {
            // The first two rounds warm caches.
            dump.push(a + b);
            ours.push(c);
            rss_kib = rss_kib.max(peak_rss_kib(&bin)?);
        }
    }
    let (d, o) = (median(&mut dump), median(&mut ours));
    let ratio = o.as_secs_f64() / d.as_secs_f64();
    let mut report = String::new();
    writeln!(
        report,
        "state: {v4} IPv4 + {v6} IPv6 routes (all tables), {} addresses",
        3 * V4_PER_NIC + V6_ADDRESSES
    )?;
    writeln!(report, "rounds: {rounds} (after 2 warm-up rounds)")?;
    writeln!(
        report,
        "ip -j route show table all + ip -j addr: median {:.1} ms (min {:.1} ms)",
        ms(d),
        ms(min(&dump))
    )?;
    writeln!(
        report,
        "nodeip-selector show:                    median {:.1} ms (min {:.1} ms)",
        ms(o),
        ms(min(&ours))
    )?;
    writeln!(report, "ratio selector/dump: {ratio:.2} (target <= 1.5)")?;
    writeln!(
        report,
        "nodeip-selector peak RSS: {:.2} MiB (target < 10 MiB)",
        rss_kib as f64 / 1024.0
    )?;
    print!("{report}");
    Ok(())
}

fn selector_args() -> [&'static str; 5] {
    [
        "show",
        "--config",
        "/dev/null",
        "--hint-file",
        "/nonexistent",
    ]
}

/// Three NICs with 250 IPv4 addresses each (the documentation /24s), 250 IPv6 addresses,
/// default routes, and bulk routes to the benchmarking ranges 198.18.0.0/15 and 2001:db8::/32.
/// Route entries carry no traffic.
fn populate(ns: &Netns) -> anyhow::Result<()> {
    let mut batch = String::new();
    for (nic, net) in [
        ("eth0", "192.0.2"),
        ("eth1", "198.51.100"),
        ("eth2", "203.0.113"),
    ] {
        ns.nic(nic).map_err(|e| anyhow!(e))?;
        for host in 1..=V4_PER_NIC {
            writeln!(batch, "addr add {net}.{host}/24 dev {nic}")?;
        }
    }
    for host in 1..=V6_ADDRESSES {
        writeln!(batch, "addr add 2001:db8:a::{host:x}/64 dev eth0 nodad")?;
    }
    writeln!(batch, "route add default via 192.0.2.254 dev eth0")?;
    writeln!(batch, "route add default via 2001:db8:a::ffff dev eth0")?;
    for i in 0..V4_ROUTES {
        writeln!(
            batch,
            "route add 198.{}.{}.{}/32 via 192.0.2.254",
            18 + (i >> 16),
            (i >> 8) & 0xff,
            i & 0xff
        )?;
    }
    for i in 0..V6_ROUTES {
        writeln!(
            batch,
            "route add 2001:db8:1:{i:x}::/64 via 2001:db8:a::ffff"
        )?;
    }
    ns.ip_batch(&batch).map_err(|e| anyhow!(e))
}

/// Moves this (single-threaded) process into the namespace, so children start there directly,
/// with no `ip netns exec` in between.
fn enter(ns: &Netns) -> anyhow::Result<()> {
    let f = File::open(format!("/run/netns/{}", ns.name())).context("open netns")?;
    // SAFETY: plain syscall on a valid fd; the process has one thread.
    if unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        bail!("setns: {}", std::io::Error::last_os_error());
    }
    Ok(())
}

fn count_routes(family: &str) -> anyhow::Result<usize> {
    let out = Command::new("ip")
        .args([family, "route", "show", "table", "all"])
        .output()?;
    Ok(out
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .count())
}

/// Wall time of one run, stdout discarded.
fn timed(cmd: &mut Command) -> anyhow::Result<Duration> {
    let start = Instant::now();
    let status = cmd
        .stdout(Stdio::null())
        .status()
        .with_context(|| format!("spawn {cmd:?}"))?;
    let elapsed = start.elapsed();
    if !status.success() {
        bail!("{cmd:?} failed: {status}");
    }
    Ok(elapsed)
}

/// Peak RSS of one selector run, measured by GNU time. `wait4` from here would not do: the
/// kernel's peak survives `exec`, so it would include this process's own memory.
fn peak_rss_kib(bin: &std::path::Path) -> anyhow::Result<u64> {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(bin)
        .args(selector_args())
        .stdout(Stdio::null())
        .output()
        .context("run /usr/bin/time")?;
    let text = String::from_utf8_lossy(&out.stderr);
    text.lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .with_context(|| format!("unexpected /usr/bin/time output {text:?}"))
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn min(v: &[Duration]) -> Duration {
    v.iter().copied().min().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
