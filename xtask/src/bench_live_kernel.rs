//! `cargo xtask bench live-apply`, real-kernel part: on one User-Mode Linux node
//! converted onto an 802.3ad bond, the same live changes through `apply-live` and through plain
//! `nmstatectl apply` (nmstate's published CLI, at the version Cargo.lock pins the library to),
//! taking turns, start to exit, in the same run: an additive change (a VLAN with an address on
//! the bond, removed again untimed between runs) and br-ex's MTU (1500 <-> 1400). Then what only
//! `apply-live` can do: a change that cuts the node off (its default route through a next hop
//! that is not there; nmstatectl commits it), start -> rolled back. Prints each tool's median and
//! the ratio (goal: <= 0.5x for both changes; the rollback <= 10 s). And the boot-time path:
//! the design's per-host NMState file (br-ex on an 802.3ad bond) on freshly booted nodes, through
//! `apply-nmstate` and through `nmstatectl apply` (what upstream's nmstate-configuration.sh hands
//! it to, by `nmstatectl service`), start to exit, and to the gateway answering through br-ex. With `BENCH_LOG` set (a
//! `RUST_LOG` filter for `apply-live`, e.g. `debug,nispor=error`), every run's log goes to stderr:
//! where a change's time goes.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use integration::nncp::DEAD_DEFAULT_ROUTE;
use integration::per_host::{self, PerHost};
use integration::real_kernel::RealKernelNode;
use integration::real_kernel::uplink::{self, AWAIT_GATEWAY, GATEWAY, NODE_IP, Uplink};

use crate::util::{cargo, release_binary, root};

/// Rounds of each change per tool.
const RUNS: usize = 5;
/// Freshly booted nodes per tool for the boot-time file (each boot takes about 25 s).
const BOOT_RUNS: usize = 3;

/// The switch carries VLAN 200 on the node's bond, with 203.0.113.1 on it.
const SWITCH_VLAN: &str = "ip -n sw link add link sw0 name sw0.200 type vlan id 200
ip -n sw link set sw0.200 up
ip -n sw addr add 203.0.113.1/24 dev sw0.200";

const VLAN: &str = "interfaces:
- name: bond0.200
  type: vlan
  state: up
  vlan:
    base-iface: bond0
    id: 200
  ipv4:
    enabled: true
    dhcp: false
    address:
    - ip: 203.0.113.10
      prefix-length: 24
  ipv6:
    enabled: false
";

const NO_VLAN: &str = "interfaces:\n- name: bond0.200\n  type: vlan\n  state: absent\n";

/// `nmstatectl` as published on crates.io, at the version of the `nmstate` library Cargo.lock
/// holds, installed once under `target/nmstatectl`.
fn nmstatectl() -> anyhow::Result<PathBuf> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock"))?;
    let version = lock
        .split("\n\n")
        .find(|p| p.contains("name = \"nmstate\"\n"))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
        .map(|v| v.trim_matches('"').to_owned())
        .context("Cargo.lock has no nmstate package")?;
    let prefix = root().join("target/nmstatectl");
    let bin = prefix.join("bin/nmstatectl");
    let installed = std::process::Command::new(&bin)
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(&version));
    if !installed {
        crate::util::run(
            cargo()
                .args([
                    "install",
                    "--locked",
                    "nmstatectl",
                    "--version",
                    &version,
                    "--root",
                ])
                .arg(&prefix),
        )?;
    }
    Ok(bin)
}

/// One command in the guest, timed there: its exit status, seconds and output.
fn timed(
    node: &mut RealKernelNode,
    yaml: &str,
    command: &str,
) -> anyhow::Result<(i32, f64, String)> {
    let script = format!(
        "cat > /run/x/bench.yml <<'YAML'\n{yaml}YAML
t0=$EPOCHREALTIME
{command} /run/x/bench.yml > /run/x/bench.log 2>&1
rc=$?
t1=$EPOCHREALTIME
echo \"$rc $t0 $t1\""
    );
    let [rc, t0, t1] = last_words(node, &script)?;
    Ok((
        rc.parse()?,
        t1.parse::<f64>()? - t0.parse::<f64>()?,
        node.file("bench.log"),
    ))
}

/// Runs `script` in the guest: the last `N` words it printed (its timings).
fn last_words<const N: usize>(
    node: &mut RealKernelNode,
    script: &str,
) -> anyhow::Result<[String; N]> {
    // A bound on a hung guest, not a measurement.
    let out = node
        .run(script, Duration::from_secs(300))
        .map_err(anyhow::Error::msg)?
        .output;
    let words: Vec<String> = out.split_whitespace().map(str::to_owned).collect();
    words[words.len().saturating_sub(N)..]
        .to_vec()
        .try_into()
        .map_err(|_| anyhow::anyhow!("unexpected output: {out}"))
}

/// Both tools in turn, `RUNS` rounds, each committing `yamls(round)[tool]`; `between` (shell)
/// runs untimed after each. Their seconds.
fn compare(
    node: &mut RealKernelNode,
    tools: [&str; 2],
    yamls: impl Fn(usize) -> [String; 2],
    between: &str,
) -> anyhow::Result<[Vec<f64>; 2]> {
    let mut took = [Vec::new(), Vec::new()];
    for round in 0..RUNS {
        let yamls = yamls(round);
        // Taking turns at going first, so neither always meets what the other left settling.
        for i in [round % 2, 1 - round % 2] {
            let (rc, s, log) = timed(node, &yamls[i], tools[i])?;
            if rc != 0 {
                bail!("{} exited {rc}:\n{log}", tools[i]);
            }
            took[i].push(s);
            if std::env::var_os("BENCH_LOG").is_some() {
                eprintln!("=== {} {s:.2}\n{log}", tools[i]);
            }
            if !between.is_empty() {
                node.sh(between).map_err(anyhow::Error::msg)?;
            }
        }
    }
    Ok(took)
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn report(what: &str, took: &[Vec<f64>; 2]) {
    let (ours, theirs) = (median(&took[0]), median(&took[1]));
    println!(
        "  {what}: apply-live median {ours:.2} s, nmstatectl apply median {theirs:.2} s, \
         ratio {:.2}x over {RUNS} each (goal <= 0.5x)",
        ours / theirs
    );
}

pub fn run() -> anyhow::Result<()> {
    let bin = release_binary("ovs-bridge-configurator")?;
    let nmstatectl = nmstatectl()?;
    let mut node = RealKernelNode::boot("benchlive").map_err(anyhow::Error::msg)?;
    node.sh(&Uplink::Lacp.switch())
        .map_err(anyhow::Error::msg)?;
    node.sh(&Uplink::Lacp.node()).map_err(anyhow::Error::msg)?;
    let c = uplink::convert(&mut node, &bin.display().to_string());
    if c.status != 0 {
        bail!("apply exited {}\n{}", c.status, c.log);
    }
    node.sh(SWITCH_VLAN).map_err(anyhow::Error::msg)?;
    let ours = format!("RUST_LOG={} {} apply-live", log_filter(), bin.display());
    let theirs = format!("{} apply", nmstatectl.display());
    let remove = format!(
        "cat > /run/x/novlan.yml <<'YAML'\n{NO_VLAN}YAML\n{theirs} /run/x/novlan.yml > /dev/null 2>&1"
    );

    let additive = compare(
        &mut node,
        [&ours, &theirs],
        |_| [VLAN.into(), VLAN.into()],
        &remove,
    )?;
    let mtu = |v: u16| {
        format!("interfaces:\n- name: br-ex\n  type: ovs-interface\n  state: up\n  mtu: {v}\n")
    };
    // Whoever goes first in a round lowers the MTU, the other raises it again.
    let mtus = compare(
        &mut node,
        [&ours, &theirs],
        |round| {
            if round % 2 == 0 {
                [mtu(1400), mtu(1500)]
            } else {
                [mtu(1500), mtu(1400)]
            }
        },
        "",
    )?;

    let mut rolled_back = Vec::new();
    for _ in 0..RUNS {
        let (rc, s, log) = timed(&mut node, DEAD_DEFAULT_ROUTE, &ours)?;
        if rc != 1 || !log.contains("rolled back") {
            bail!("the dead gateway was not rolled back (exit {rc}):\n{log}");
        }
        rolled_back.push(s);
        node.sh(&format!("{AWAIT_GATEWAY}\nawait_gateway 30 > /dev/null"))
            .map_err(anyhow::Error::msg)?;
    }

    println!("live changes on a real kernel (UML, br-ex on an 802.3ad bond):");
    report("a VLAN with an address on the bond, committed", &additive);
    report("br-ex MTU 1500 <-> 1400, committed", &mtus);
    let mut sorted = rolled_back.clone();
    sorted.sort_by(f64::total_cmp);
    println!(
        "  a default route through a silent next hop, start -> rolled back: median {:.2} s, max \
         {:.2} s over {RUNS} (goal <= 10 s; nmstatectl commits it)",
        median(&rolled_back),
        sorted[sorted.len() - 1]
    );
    drop(node);
    boot_part(&bin, &nmstatectl)
}

/// The boot-time part alone: the per-host file through both tools on fresh nodes.
pub fn run_boot() -> anyhow::Result<()> {
    boot_part(&release_binary("ovs-bridge-configurator")?, &nmstatectl()?)
}

fn boot_part(bin: &std::path::Path, nmstatectl: &std::path::Path) -> anyhow::Result<()> {
    // apply-nmstate reads the node's own file; the path the timing hands it is for nmstatectl.
    let ours = format!(
        "sh -c 'RUST_LOG={} {} apply-nmstate --retry-interval-secs 0'",
        log_filter(),
        bin.display()
    );
    let verbose = if std::env::var_os("BENCH_LOG").is_some() {
        " -vv"
    } else {
        ""
    };
    let theirs = format!("{}{verbose} apply", nmstatectl.display());
    boot_files(&ours, &theirs)
}

/// `BENCH_LOG`, else info without nispor's chatter.
fn log_filter() -> String {
    std::env::var("BENCH_LOG").unwrap_or_else(|_| "info,nispor=error".into())
}

/// The design's per-host file putting br-ex on `uplink` (a NIC or an 802.3ad bond), applied on
/// a freshly booted node by `command` (given the file's path): start -> exit, and -> the
/// gateway answering through br-ex.
fn boot_file(command: &str, uplink: Uplink) -> anyhow::Result<(f64, f64)> {
    let mut node = RealKernelNode::boot("benchboot").map_err(anyhow::Error::msg)?;
    node.sh(&uplink.switch()).map_err(anyhow::Error::msg)?;
    node.sh(&uplink.node()).map_err(anyhow::Error::msg)?;
    // The design's example: br-ex with the node IP, its default route and a name server.
    let yaml = match uplink {
        Uplink::Lacp => {
            PerHost::example(per_host::lacp_bond(["e0", "e1"]), "bond0", NODE_IP, GATEWAY)
        }
        _ => {
            let nic = uplink.device();
            PerHost::example(per_host::nic(&nic), &nic, NODE_IP, GATEWAY)
        }
    }
    .yaml();
    let script = format!(
        "{AWAIT_GATEWAY}
mkdir -p /etc/nmstate/openshift /run/nodeip-configuration
printf {NODE_IP} > /run/nodeip-configuration/primary-ip
file=/etc/nmstate/openshift/$(hostname).yml
cat > $file <<'YAML'\n{yaml}YAML
t0=$EPOCHREALTIME
{command} $file > /run/x/boot.log 2>&1
rc=$?
t1=$EPOCHREALTIME
t2=$(await_gateway 30 {GATEWAY})
echo \"$rc $t0 $t1 $t2\""
    );
    let [rc, t0, t1, t2] = last_words(&mut node, &script)?;
    if rc != "0" || t2 == "none" {
        bail!(
            "{command} exited {rc}, gateway at {t2}:\n{}",
            node.file("boot.log")
        );
    }
    let (t0, t1, t2): (f64, f64, f64) = (t0.parse()?, t1.parse()?, t2.parse()?);
    if std::env::var_os("BENCH_LOG").is_some() {
        eprintln!("=== {command} {:.2}\n{}", t1 - t0, node.file("boot.log"));
    }
    Ok((t1 - t0, t2 - t0))
}

/// [`boot_file`] through both tools, [`BOOT_RUNS`] nodes each, taking turns, with br-ex on a
/// NIC and on an 802.3ad bond.
fn boot_files(ours: &str, theirs: &str) -> anyhow::Result<()> {
    // The bond's goal allows for the kernel holding a re-enslaved 802.3ad bond for both tools.
    for (uplink, what, goal) in [
        (Uplink::Nic, "a NIC", 0.5),
        (Uplink::Lacp, "an 802.3ad bond", 0.75),
    ] {
        let mut took: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
        for round in 0..BOOT_RUNS {
            for i in [round % 2, 1 - round % 2] {
                took[i].push(boot_file([ours, theirs][i], uplink)?);
            }
        }
        let exit = |i: usize| median(&took[i].iter().map(|t| t.0).collect::<Vec<_>>());
        let gateway = |i: usize| median(&took[i].iter().map(|t| t.1).collect::<Vec<_>>());
        println!(
            "  the per-host NMState file at boot (br-ex on {what}, fresh nodes, {BOOT_RUNS} each): \
             apply-nmstate median {:.2} s to exit ({:.2} s to the gateway answering), nmstatectl \
             apply {:.2} s ({:.2} s), ratio {:.2}x to exit, {:.2}x to the gateway (goal <= \
             {goal}x)",
            exit(0),
            gateway(0),
            exit(1),
            gateway(1),
            exit(0) / exit(1),
            gateway(0) / gateway(1)
        );
    }
    Ok(())
}
