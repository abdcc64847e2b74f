//! `cargo xtask demo`: the set-up (packages, NetworkManager's build beside the daemons' build,
//! each timed), three on-prem nodes booting their networking (integration::cluster), one table
//! per node and the boot's log lines, then day 2 on the node holding the API VIP, the run's
//! timeline drawn as SVG and PNG, and teardown (or `--keep`).

mod day2;
mod record;
mod setup;
mod tables;

use std::io::BufRead;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{anyhow, bail};
use integration::cluster::{API_VIP, Binaries, Cluster, INGRESS_VIP};
use integration::node::ZONE;

use crate::util::{is_root, root};

/// The demo; `redraw` instead draws a recorded run's timeline again (no root needed); the
/// timeline goes to `out` (default `target/demo`).
pub fn run(keep: bool, redraw: Option<&Path>, out: Option<&Path>) -> anyhow::Result<()> {
    let out = out.map_or_else(|| root().join("target/demo"), Path::to_owned);
    if let Some(file) = redraw {
        return record::redraw(file, &out);
    }
    if !is_root() {
        bail!("the demo builds network namespaces: run it as root");
    }
    let t0 = Instant::now();
    let t0_wall = SystemTime::now();
    let (setup, bins) = setup::run()?;
    println!("\n{}", setup.summary());
    let stamp = move |m: String| println!("[{:>5.1} s] {m}", t0.elapsed().as_secs_f64());
    intro();
    // The host keeps no /run/netns or /etc/netns the demo created.
    let netns_dirs_before = integration::leaks::existing_netns_dirs();
    let milestones = record::Milestones::default();
    let bins = Binaries(bins);
    let (mut cluster, boot) = boot(&bins, &milestones, &stamp)?;
    let day2 = day_two(&mut cluster, &bins, &stamp)?;
    let timeline = record::build(&cluster, &boot, &milestones, &day2);
    let [tsv, svg, png] = record::write(&timeline, &out)?;
    println!(
        "\n== Timeline ==\n  {}\n  {}\n  (recorded: {})",
        svg.display(),
        png.display(),
        tsv.display()
    );
    let first_node = milestones
        .first(record::NODE_UP)
        .and_then(|t| t.duration_since(t0_wall).ok())
        .unwrap_or_default();
    println!(
        "\n{}\nfirst node up {:.1} s after the start; demo finished in {:.1} s",
        setup.summary(),
        first_node.as_secs_f64(),
        t0.elapsed().as_secs_f64()
    );
    if keep {
        tables::instructions(&cluster);
        day2_instructions(&cluster, &day2);
        let _ = std::io::stdin().lock().lines().next();
    }
    println!("tearing down");
    let day2_ok = day2.ok();
    drop(day2);
    drop(cluster);
    integration::leaks::remove_if_created(&netns_dirs_before).map_err(|e| anyhow!(e))?;
    if !day2_ok {
        bail!("a day-2 step did not end as it should (see its line above)");
    }
    Ok(())
}

/// The cluster created and booted, with a table per node and the boot's log lines.
fn boot(
    bins: &Binaries,
    milestones: &record::Milestones,
    stamp: &(dyn Fn(String) + Sync),
) -> anyhow::Result<(Cluster, record::Boot)> {
    let progress = |m: String| {
        milestones.note(&m);
        stamp(m);
    };
    let mut cluster = Cluster::create(bins, &progress).map_err(|e| anyhow!(e))?;
    let from = SystemTime::now();
    cluster.boot(&progress).map_err(|e| anyhow!(e))?;
    let boot = record::Boot {
        from,
        to: SystemTime::now(),
    };
    let took = boot.to.duration_since(boot.from).unwrap_or_default();
    stamp(format!(
        "all three nodes up ({:.1} s of boot)",
        took.as_secs_f64()
    ));
    // keepalived's first election settles within a few seconds.
    let _ = cluster.wait_single_holder(API_VIP, Duration::from_secs(10));
    let _ = cluster.wait_single_holder(INGRESS_VIP, Duration::from_secs(10));
    for n in &cluster.nodes {
        tables::table(&cluster, n);
    }
    tables::boot_log(&cluster);
    Ok((cluster, boot))
}

fn intro() {
    println!(
        "\n== Three on-prem nodes: dual-stack machine network 198.51.100.0/24 + 2001:db8:1::/64 =="
    );
    println!("   API VIP {API_VIP}, ingress VIP {INGRESS_VIP}, cluster domain {ZONE}");
    println!(
        "   node2 and node3 also have eth1 (203.0.113.0/24) with a better default route (metric 50);"
    );
    println!("   node2's /etc/default/nodeip-configuration says NODEIP_HINT=198.51.100.1\n");
}

/// Day 2 with its heading; its steps print their own lines.
fn day_two(
    c: &mut Cluster,
    bins: &Binaries,
    stamp: &(dyn Fn(String) + Sync),
) -> anyhow::Result<day2::Day2> {
    let api = c
        .wait_single_holder(API_VIP, Duration::from_secs(20))
        .map_err(anyhow::Error::msg)?;
    println!(
        "\n== Day 2 on node{api}, which holds the API VIP: ovs-bridge-configurator apply-live, \
         then a policy for every node through MCO's roll-out, the VIPs sampled throughout =="
    );
    day2::run(c, bins, stamp)
}

fn day2_instructions(c: &Cluster, day2: &day2::Day2) {
    let node = day2.node;
    let ns = c.nodes[usize::from(node) - 1].node.ns.name();
    println!("day 2 (node{node}):");
    println!(
        "  ip netns exec {ns} ip -br addr show {}; ip netns exec {ns} ping -c1 {}",
        day2::NEW_IFACE,
        day2::PEER
    );
    let url = day2.api.kube.server.url();
    println!("the policy and its enactments (the API stand-in, as `oc get nncp,nnce -o yaml`):");
    println!("  curl -s {url}/apis/nmstate.io/v1/nodenetworkconfigurationpolicies");
    println!("  curl -s {url}/apis/nmstate.io/v1beta1/nodenetworkconfigurationenactments");
}
