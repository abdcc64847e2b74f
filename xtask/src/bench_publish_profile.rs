//! Where one read of the node goes: `show` (the publisher's document is what it prints) on the
//! benchmark's node, timed by phase from nmstate's debug log, whose lines carry timestamps, and
//! the CPU it costs the reader, NetworkManager and the bus.
//!
//! Phases: start -> the first OVSDB request (the process starting and the kernel's state read
//! through nispor), OVSDB, NetworkManager over D-Bus (applied profiles, profiles, active
//! connections, then every device's properties) up to nmstate's last line about it, and the
//! rest (merging, YAML, printing, exit).

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};

use crate::bench_publish_node::BenchNode;

/// One read, by phase, with its CPU.
pub struct ReadProfile {
    pub total: Duration,
    pub kernel: Duration,
    pub ovsdb: Duration,
    pub network_manager: Duration,
    pub rest: Duration,
    /// CPU seconds: the reader, NetworkManager, dbus-daemon.
    pub cpu: [f64; 3],
    pub peak_rss_kib: u64,
}

/// Seconds since the epoch of a tracing line's RFC 3339 timestamp (`2026-11-28T15:01:19.775128Z`).
fn stamp(line: &str) -> Option<f64> {
    integration::cluster::parse_utc(line.split_whitespace().next()?).map(epoch)
}

/// The first line's timestamp matching `what`, and the last one's.
fn first(log: &str, what: &str) -> Option<f64> {
    log.lines().find(|l| l.contains(what)).and_then(stamp)
}

fn last(log: &str, what: &str) -> Option<f64> {
    log.lines().rev().find(|l| l.contains(what)).and_then(stamp)
}

fn epoch(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64()
}

/// utime + stime of `pid` in seconds.
pub fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let f: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |s| s.1)
        .split_whitespace()
        .collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|i| f.get(*i)?.parse::<u64>().ok())
        .sum();
    // SAFETY: sysconf has no preconditions.
    ticks as f64 / (unsafe { libc::sysconf(libc::_SC_CLK_TCK) }) as f64
}

/// The pid of the node's dbus-daemon (started with its config file in the node's dir).
fn bus_pid(dir: &Path) -> Option<u32> {
    let conf = format!("--config-file={}", dir.join("dbus/bus.conf").display());
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        String::from_utf8_lossy(&cmd).contains(&conf).then_some(pid)
    })
}

/// Runs `cmd` with stderr captured; its exit status, stderr, CPU seconds and peak RSS (KiB),
/// from its own rusage (wait4).
fn run_measured(cmd: &mut std::process::Command) -> anyhow::Result<(i32, String, f64, u64)> {
    let mut child = cmd.stderr(Stdio::piped()).spawn()?;
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        std::io::Read::read_to_string(&mut e, &mut err)?;
    }
    let mut status = 0;
    // SAFETY: wait4 on our own child, with valid pointers; the Child is not waited again.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut u) } < 0 {
        bail!("wait4: {}", std::io::Error::last_os_error());
    }
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let cpu = s(u.ru_utime) + s(u.ru_stime);
    Ok((status, err, cpu, u.ru_maxrss as u64))
}

/// One `show` on `b`'s node with nmstate's debug log.
pub fn profile(b: &BenchNode, bin: &Path) -> anyhow::Result<ReadProfile> {
    let nm = b.node.nm.pid();
    let bus = bus_pid(b.node.dir()).context("no dbus-daemon for the node")?;
    let (nm0, bus0) = (cpu_seconds(nm), cpu_seconds(bus));
    let started = SystemTime::now();
    let t0 = Instant::now();
    let mut show = b.command(bin, "show");
    show.env("RUST_LOG", "nmstate=debug,nispor=error")
        .stdout(Stdio::null());
    let (status, log, reader_cpu, peak_rss_kib) = run_measured(&mut show)?;
    let total = t0.elapsed();
    if status != 0 {
        bail!(
            "show failed ({status}): {}",
            log.lines().last().unwrap_or_default()
        );
    }
    let start = epoch(started);
    let end = start + total.as_secs_f64();
    let ovsdb = first(&log, "OVSDB: sending").context("no OVSDB line")?;
    let nm_start = first(&log, "applied_connections_get").context("no NM line")?;
    let nm_end = last(&log, "nmstate::nm").context("no NM line")?;
    let secs = |a: f64, b: f64| Duration::from_secs_f64((b - a).max(0.0));
    Ok(ReadProfile {
        total,
        kernel: secs(start, ovsdb),
        ovsdb: secs(ovsdb, nm_start),
        network_manager: secs(nm_start, nm_end),
        rest: secs(nm_end, end),
        cpu: [reader_cpu, cpu_seconds(nm) - nm0, cpu_seconds(bus) - bus0],
        peak_rss_kib,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_tracing_timestamp_is_seconds_since_the_epoch() {
        let t = super::stamp("2026-11-28T15:01:19.775128Z DEBUG x").unwrap();
        assert!((t - 1_795_878_079.775_128).abs() < 1e-3, "{t}");
    }
}
