//! `cargo xtask bench boot`: the boot path timed by systemd itself. Real systemd 252 in
//! systemd-nspawn on a harness node (the units as `xtask dist` installs them, release binaries,
//! OVS-enabled NetworkManager), 5 boots: from `NetworkManager-wait-online.service` active to
//! `kubelet-dependencies.target` reached, and each unit's share of that window, all read from
//! systemd's monotonic timestamps. Then the same with the uplink on DHCP from a server that
//! holds every offer back 5 s (the move to br-ex needs a new lease through the bridge).

use anyhow::{Context, bail};
use integration::node_boot::{Install, NodeBoot, context};
use integration::nspawn::BootResult;

use crate::util::{self, cargo, is_root, root};

const BOOTS: usize = 5;
/// The slow DHCP server's delay.
const OFFER_DELAY_SECS: u32 = 5;

/// The window's ends.
const FROM: (&str, &str) = (
    "NetworkManager-wait-online.service",
    "ActiveEnterTimestampMonotonic",
);
const TO: (&str, &str) = (
    "kubelet-dependencies.target",
    "ActiveEnterTimestampMonotonic",
);

/// The units that may run in the window (each is reported when it did; the rest is systemd's
/// own work between them).
const UNITS: [&str; 5] = [
    "nodeip-configuration.service",
    "nmstate-configuration.service",
    "ovs-configuration.service",
    "resolv-prepender.service",
    "keepalived-monitor.service",
];

/// One boot's window and the part of it each unit ran (µs).
struct Sample {
    window: u64,
    units: Vec<u64>,
}

/// A unit's run, from leaving `inactive` to reaching `active` (or, for a one-shot without
/// RemainAfterExit, to re-entering `inactive`).
fn run_of(r: &BootResult, unit: &str) -> Option<(u64, u64)> {
    let start = r.usec(unit, "InactiveExitTimestampMonotonic");
    let active = r.usec(unit, "ActiveEnterTimestampMonotonic");
    let end = if active >= start {
        active
    } else {
        r.usec(unit, "InactiveEnterTimestampMonotonic")
    };
    (start > 0 && end >= start).then_some((start, end))
}

fn sample(r: &BootResult) -> anyhow::Result<Sample> {
    let (from, to) = (r.usec(FROM.0, FROM.1), r.usec(TO.0, TO.1));
    if from == 0 || to < from {
        bail!(
            "the boot did not reach {} after {}:\n{}",
            TO.0,
            FROM.0,
            context(r)
        );
    }
    let units = UNITS
        .iter()
        .map(|u| {
            run_of(r, u).map_or(0, |(s, e)| {
                // The part inside the window.
                e.min(to).saturating_sub(s.max(from))
            })
        })
        .collect();
    Ok(Sample {
        window: to - from,
        units,
    })
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v[v.len() / 2]
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

fn measure(name: &str, slow_dhcp: bool, install: &Install) -> anyhow::Result<()> {
    let mut samples = Vec::new();
    for i in 1..=BOOTS {
        let mut node = NodeBoot::with(install);
        if slow_dhcp {
            node.up
                .delay_dhcp_offers(OFFER_DELAY_SECS)
                .map_err(anyhow::Error::msg)?;
            node.uplink_dhcp();
        }
        let r = node.boot("systemctl is-active -q kubelet.service");
        let s = sample(&r).with_context(|| format!("{name}: boot {i}"))?;
        eprintln!("  {name}: boot {i}: {:.0} ms", ms(s.window));
        samples.push(s);
    }
    let windows: Vec<u64> = samples.iter().map(|s| s.window).collect();
    let window = median(windows.clone());
    println!(
        "{name}: NetworkManager-wait-online active -> kubelet-dependencies.target, {BOOTS} boots: \
         median {:.0} ms (min {:.0}, max {:.0})",
        ms(window),
        ms(*windows.iter().min().expect("boots")),
        ms(*windows.iter().max().expect("boots"))
    );
    let share = |what: &str, us: u64| {
        println!(
            "    {what:<32} {:>7.0} ms  {:>5.1} %",
            ms(us),
            100.0 * us as f64 / window as f64
        );
    };
    for (k, unit) in UNITS.iter().enumerate() {
        let m = median(samples.iter().map(|s| s.units[k]).collect());
        if m > 0 {
            share(unit, m);
        }
    }
    // What no unit of ours ran: systemd starting and ordering jobs, the daemon-reload.
    let rest = median(
        samples
            .iter()
            .map(|s| s.window.saturating_sub(s.units.iter().sum()))
            .collect(),
    );
    share("(between the units)", rest);
    Ok(())
}

pub fn run() -> anyhow::Result<()> {
    if !is_root() {
        bail!("the boot benchmark boots containers in network namespaces: run it as root");
    }
    util::run(cargo().args(["build", "--release", "--locked", "--bins", "--workspace"]))?;
    let bins = root().join("target/release");
    let xtask = std::env::current_exe().context("where is xtask")?;
    let install = Install::Dist {
        xtask: &xtask,
        bins: &bins,
    };
    println!(
        "== boot path (real systemd in nspawn, release binaries; a unit's share is its run inside the window)"
    );
    measure("static uplink", false, &install)?;
    measure(
        &format!("DHCP uplink, offers {OFFER_DELAY_SECS} s late"),
        true,
        &install,
    )?;
    Ok(())
}
