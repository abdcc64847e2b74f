//! `cargo xtask bench ovs-bridge-configurator`: on the harness (OVS-enabled NetworkManager,
//! userspace datapath), from `apply` start until ready (node IP and default route on br-ex, no
//! IPv4 left on the uplink), the window without any default route, D-Bus calls, and the re-run in
//! the same boot. Reference (configure-ovs.sh on this harness): 0.95 s static / 1.05 s DHCP to
//! ready, a 0.15 s window, re-run 0.34 s. The slow-link case: the DHCP server holds every offer
//! back 5 s and the checkpoint timeout is 2 s, so only its extension keeps the conversion.
//! NetworkManager's internal DHCP client sends each retransmitted DISCOVER (about every 4 s)
//! with a new transaction id and ignores offers for the older ones, so a 5 s late offer is never
//! taken: the lease comes with the first DISCOVER the serial server answers within 4 s (about
//! 12 s in). Hence the DHCP cases also report lease -> ready, the part that is not the server's.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use integration::node::{Node, Upstream, node_address};
use selection::netlink::NetlinkReader;

use crate::util::{median, release_binary};

const RUNS: usize = 10;
/// Runs of the slow-link case (each takes the DHCP delay and more).
const SLOW_RUNS: usize = 3;
/// The slow DHCP server's delay.
const OFFER_DELAY_SECS: u32 = 5;

/// The uplink's addressing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Link {
    Static,
    Dhcp,
    /// DHCP with every offer held back [`OFFER_DELAY_SECS`].
    SlowDhcp,
}

/// What the poller saw during one apply.
struct Sample {
    ready: Option<Duration>,
    no_default: Duration,
}

fn poll(
    ns: &integration::Netns,
    ip: std::net::IpAddr,
    stop: &AtomicBool,
    start: Instant,
) -> anyhow::Result<Sample> {
    ns.run_in(|| -> anyhow::Result<Sample> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        rt.block_on(async {
            let mut reader = NetlinkReader::connect()?;
            let (mut ready, mut no_default, mut last) = (None, Duration::ZERO, start.elapsed());
            while !stop.load(Ordering::Relaxed) {
                let snap = reader.snapshot().await?;
                let now = start.elapsed();
                let index = |n: &str| snap.links.iter().find(|l| l.name == n).map(|l| l.index);
                let (br, up) = (index("br-ex"), index("ens3"));
                let has_default = snap
                    .main_routes()
                    .any(|r| r.is_default() && r.family == selection::Family::Ipv4);
                if !has_default {
                    no_default += now - last;
                }
                let on_br = snap
                    .addresses
                    .iter()
                    .any(|a| a.ip == ip && Some(a.ifindex) == br);
                let via_br = snap
                    .main_routes()
                    .any(|r| r.is_default() && br.is_some() && r.oif == br);
                let drained = !snap
                    .addresses
                    .iter()
                    .any(|a| a.ip.is_ipv4() && Some(a.ifindex) == up);
                if ready.is_none() && on_br && via_br && drained {
                    ready = Some(now);
                }
                last = now;
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            Ok(Sample { ready, no_default })
        })
    })
    .map_err(|e| anyhow!(e))?
}

struct Run {
    ready: Duration,
    no_default: Duration,
    dbus_calls: u64,
    rerun: Duration,
    /// NetworkManager's log shows a checkpoint rollback.
    rolled_back: bool,
    /// From br-ex's DHCP lease (NetworkManager's log) to ready: the share that is not the
    /// DHCP server's (DHCP cases).
    lease_to_ready: Option<Duration>,
}

/// When NetworkManager logged br-ex's DHCPv4 lease (its `[seconds.fraction]` wall clock).
fn lease_time(nm_log: &str) -> Option<std::time::SystemTime> {
    let line = nm_log
        .lines()
        .rfind(|l| l.contains("dhcp4 (br-ex): state changed new lease"))?;
    let stamp: f64 = line.split('[').nth(1)?.split(']').next()?.parse().ok()?;
    Some(std::time::UNIX_EPOCH + Duration::from_secs_f64(stamp))
}

fn one(bin: &std::path::Path, link: Link) -> anyhow::Result<Run> {
    let mut up = Upstream::start(1, &[]).map_err(|e| anyhow!(e))?;
    let node = Node::start(&mut up, 1).map_err(|e| anyhow!(e))?;
    node.up_uplink(link != Link::Static, &[])
        .map_err(|e| anyhow!(e))?;
    let config = node.dir().join("obc.toml");
    if link == Link::SlowDhcp {
        up.delay_dhcp_offers(OFFER_DELAY_SECS)
            .map_err(|e| anyhow!(e))?;
        std::fs::write(&config, "checkpoint-timeout-secs = 2\n")?;
    } else {
        std::fs::write(&config, "")?;
    }
    let run_dir = node.view.run_dir().join("nodeip-configuration");
    std::fs::create_dir_all(&run_dir)?;
    std::fs::write(run_dir.join("primary-ip"), node_address(1))?;
    let (etc, var_lib) = (node.dir().join("etc"), node.dir().join("var-lib"));
    let apply = || {
        let mut c = node.view.command(bin.to_str().unwrap_or_default());
        c.args(["apply", "--retry-interval-secs", "0"])
            .arg("--config")
            .arg(&config)
            .arg("--etc-dir")
            .arg(&etc)
            .arg("--var-lib-dir")
            .arg(&var_lib)
            .env("DBUS_SYSTEM_BUS_ADDRESS", node.nm.bus_address());
        c
    };
    let ip = node_address(1).parse()?;
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let (sample, out) = std::thread::scope(|scope| {
        let poller = scope.spawn(|| poll(&node.ns, ip, &stop, start));
        // Let the poller take its first sample before the run starts.
        std::thread::sleep(Duration::from_millis(50));
        let t0 = start.elapsed();
        let wall0 = std::time::SystemTime::now();
        let out = apply().output();
        std::thread::sleep(Duration::from_millis(20));
        stop.store(true, Ordering::Relaxed);
        (poller.join().map(|s| s.map(|s| (s, t0, wall0))), out)
    });
    let (sample, t0, wall0) = sample.map_err(|_| anyhow!("poller panicked"))??;
    let out = out?;
    let log = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        bail!("apply failed: {log}");
    }
    let dbus_calls = log
        .lines()
        .find_map(|l| l.split("D-Bus calls: ").nth(1))
        .and_then(|n| n.trim().parse().ok())
        .context("D-Bus call count in the log")?;
    let ready = sample.ready.context("never ready")? - t0;
    let t = Instant::now();
    let rerun = apply().output()?;
    if !rerun.status.success() || !String::from_utf8_lossy(&rerun.stderr).contains("nothing to do")
    {
        bail!(
            "re-run was not a no-op: {}",
            String::from_utf8_lossy(&rerun.stderr)
        );
    }
    let rerun_took = t.elapsed();
    let nm_log = node.nm.log_tail(5000);
    let rolled_back = nm_log
        .lines()
        .any(|l| l.contains("checkpoint[") && l.contains("]: rollback"));
    let lease_to_ready = lease_time(&nm_log)
        .and_then(|at| at.duration_since(wall0).ok())
        .and_then(|lease| ready.checked_sub(lease));
    Ok(Run {
        ready,
        no_default: sample.no_default,
        dbus_calls,
        rerun: rerun_took,
        rolled_back,
        lease_to_ready,
    })
}

pub fn run() -> anyhow::Result<()> {
    let bin = release_binary("ovs-bridge-configurator")?;
    // Warm the page cache and NM's start-up once.
    one(&bin, Link::Static)?;
    for (name, link, runs) in [
        ("static", Link::Static, RUNS),
        ("DHCP", Link::Dhcp, RUNS),
        (
            "slow DHCP (offers 5 s late, checkpoint timeout 2 s)",
            Link::SlowDhcp,
            SLOW_RUNS,
        ),
    ] {
        let runs: Vec<Run> = (0..runs)
            .map(|_| one(&bin, link))
            .collect::<anyhow::Result<_>>()?;
        let rollbacks = runs.iter().filter(|r| r.rolled_back).count();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let all: Vec<String> = runs.iter().map(|r| format!("{:.0}", ms(r.ready))).collect();
        println!(
            "ovs-bridge-configurator {name} ({} runs): apply -> ready median {:.0} ms (max {:.0}; all: {}), \
             no default route median {:.0} ms, D-Bus calls {}, re-run median {:.1} ms, checkpoint rollbacks {rollbacks}",
            runs.len(),
            ms(median(runs.iter().map(|r| r.ready).collect())),
            ms(runs.iter().map(|r| r.ready).max().unwrap_or_default()),
            all.join(" "),
            ms(median(runs.iter().map(|r| r.no_default).collect())),
            runs[0].dbus_calls,
            ms(median(runs.iter().map(|r| r.rerun).collect())),
        );
        let after_lease: Vec<Duration> = runs.iter().filter_map(|r| r.lease_to_ready).collect();
        if !after_lease.is_empty() {
            println!(
                "  {name}: br-ex's DHCP lease -> ready median {:.0} ms (max {:.0})",
                ms(median(after_lease.clone())),
                ms(after_lease.iter().max().copied().unwrap_or_default())
            );
        }
    }
    crate::bench_br_ex_kernel::run(&bin.display().to_string())
}
