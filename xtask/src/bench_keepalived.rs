//! `cargo xtask bench keepalived-monitor`: a master node watching 5,000 Nodes on a local HTTPS
//! API server, with real keepalived: reaction time from an address move (netlink) and from a
//! peer change (watch event) to keepalived reloading, over the debounce window; build + render
//! time of the 5,000-node configuration; the daemon's RSS.

use std::fs;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Parser;
use integration::Netns;
use integration::apiserver::{Event, FakeApiServer, node};
use integration::keepalived::{Keepalived, PASSING_SCRIPTS};
use keepalived_monitor::build::{Inputs, build};
use keepalived_monitor::cli::{Cli, Command as Sub};
use keepalived_monitor::model::{Mode, Role};
use keepalived_monitor::peers::{Peer, Peers};
use keepalived_monitor::settings::resolve;

use crate::util::{Running, release_binary, status_kib};

const NODES: usize = 5000;
const MASTERS: usize = 3;
const ROUNDS: usize = 10;
const DEBOUNCE_MS: u64 = 300;
const OWN: &str = "2001:db8::1:0";

fn address(i: usize) -> String {
    format!("2001:db8::1:{i:x}")
}

fn name(i: usize) -> String {
    if i < MASTERS {
        format!("master-{i}")
    } else {
        format!("worker-{i}")
    }
}

fn reloads(log: &Path) -> usize {
    fs::read_to_string(log).map_or(0, |t| t.matches("Reloading").count())
}

/// Time from `change` until keepalived starts one more reload.
fn reaction(log: &Path, change: impl FnOnce() -> anyhow::Result<()>) -> anyhow::Result<Duration> {
    let before = reloads(log);
    let start = Instant::now();
    change()?;
    while reloads(log) == before {
        if start.elapsed() > Duration::from_secs(20) {
            bail!("keepalived did not reload within 20 s");
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(start.elapsed())
}

fn summary(v: &mut [Duration]) -> String {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let over = |d: Duration| ms(d) - DEBOUNCE_MS as f64;
    format!(
        "median {:.0} ms (debounce + {:.0} ms), max {:.0} ms (debounce + {:.0} ms)",
        ms(v[v.len() / 2]),
        over(v[v.len() / 2]),
        ms(v[v.len() - 1]),
        over(v[v.len() - 1])
    )
}

/// The node's kernel state, read as the daemon reads it.
fn snapshot(ns: &Netns) -> anyhow::Result<selection::Snapshot> {
    ns.run_in(|| -> anyhow::Result<_> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        rt.block_on(async {
            Ok(selection::netlink::NetlinkReader::connect()?
                .snapshot()
                .await?)
        })
    })
    .map_err(anyhow::Error::msg)?
}

/// Build + render in-process with the same settings, the node's kernel state and a 5,000-node
/// peer list.
fn render_time(
    config: &Path,
    snapshot: &selection::Snapshot,
) -> anyhow::Result<(Vec<Duration>, usize)> {
    let cli = Cli::try_parse_from(
        ["keepalived-monitor", "render", "--config"]
            .into_iter()
            .chain(config.to_str()),
    )?;
    let Sub::Render(args) = cli.command else {
        unreachable!("parsed a render command")
    };
    let s = resolve(&args, config).map_err(|e| anyhow::anyhow!("{e}"))?;
    let peers = Peers {
        nodes: (0..NODES)
            .map(|i| Peer {
                name: name(i),
                role: if i < MASTERS {
                    Role::Master
                } else {
                    Role::Worker
                },
                addresses: vec![address(i).parse().expect("valid address")],
                ovn_addresses: vec![],
                kubelet_version: Some("v1.34.1".into()),
                mco_state: None,
                mco_current_config: None,
                mco_desired_config: None,
            })
            .collect(),
    };
    let inputs = Inputs {
        settings: &s,
        snapshot,
        node_ipv4: None,
        node_ipv6: Some(OWN.parse()?),
        peers: &peers,
        mode: Mode::Unicast,
        remote_worker: false,
    };
    let mut times = Vec::new();
    let mut bytes = 0;
    for _ in 0..200 {
        let t = Instant::now();
        bytes = build(&inputs)?.render().len();
        times.push(t.elapsed());
    }
    Ok((times, bytes))
}

pub fn run() -> anyhow::Result<()> {
    let bin = release_binary("keepalived-monitor")?;
    let dir = integration::scratch_dir("bench-ka").map_err(anyhow::Error::msg)?;
    let d = dir.path().to_owned();
    let ns = Netns::new("bka").map_err(anyhow::Error::msg)?;
    let e = anyhow::Error::msg;
    ns.ip(&["link", "set", "lo", "up"]).map_err(e)?;
    ns.nic("eth0").map_err(e)?;
    ns.nic("br-ex").map_err(e)?;
    ns.addr("eth0", &format!("{OWN}/64"), &["nodad"])
        .map_err(e)?;

    let nodes = (0..NODES)
        .map(|i| node(&name(i), i < MASTERS, &[&address(i)], &[]))
        .collect();
    let api = {
        let d = d.clone();
        ns.run_in(move || FakeApiServer::start(&d, nodes))
            .map_err(e)?
            .map_err(e)?
    };
    fs::create_dir_all(d.join("run"))?;
    fs::write(d.join("run/ipv6"), OWN)?;
    let output = d.join("keepalived.conf");
    let config = d.join("config.toml");
    fs::write(
        &config,
        format!(
            "cluster-name = \"bench\"\nrole = \"master\"\napi-vips = [\"2001:db8::ffff:1\"]\ningress-vips = [\"2001:db8::ffff:2\"]\n\
             peer-source = \"kubernetes\"\nkubeconfig = \"{kubeconfig}\"\noutput = \"{out}\"\nrun-dir = \"{d}/run\"\nkeepalived-dir = \"{d}\"\n\
             reload = \"pidfile\"\npid-file = \"{d}/ka/keepalived.pid\"\ndebounce-ms = {DEBOUNCE_MS}\n{PASSING_SCRIPTS}",
            kubeconfig = api.kubeconfig().display(),
            out = output.display(),
            d = d.display(),
        ),
    )?;

    let started = Instant::now();
    let monitor = Running(
        ns.command(bin.to_str().context("binary path")?)
            .args(["run", "--config"])
            .arg(&config)
            .env("RUST_LOG", "info")
            // As under systemd: a developer's RUST_BACKTRACE would make every error capture a
            // backtrace (and page in the unwind tables), which no node does.
            .env_remove("RUST_BACKTRACE")
            .env_remove("RUST_LIB_BACKTRACE")
            .stdout(Stdio::null())
            .stderr(fs::File::create(d.join("monitor.log"))?)
            .spawn()?,
    );
    while !fs::read_to_string(&output).is_ok_and(|t| t.contains("vrrp_instance")) {
        if started.elapsed() > Duration::from_secs(60) {
            bail!(
                "no keepalived.conf after 60 s:\n{}",
                fs::read_to_string(d.join("monitor.log"))?
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let first_render = started.elapsed();
    // Where the start-up time went, from the daemon's own timestamps.
    std::thread::sleep(Duration::from_millis(200));
    for line in fs::read_to_string(d.join("monitor.log"))?.lines().take(12) {
        eprintln!("  monitor: {line}");
    }
    let keepalived = Keepalived::start_file(&ns, &d.join("ka"), &output).map_err(e)?;
    let log = d.join("ka/keepalived.log");
    std::thread::sleep(Duration::from_secs(2));

    let mut moves = Vec::new();
    let (mut from, mut to) = ("eth0", "br-ex");
    for _ in 0..ROUNDS {
        moves.push(reaction(&log, || {
            ns.ip_batch(&format!(
                "addr del {OWN}/64 dev {from}\naddr add {OWN}/64 dev {to} nodad\n"
            ))
            .map_err(anyhow::Error::msg)
        })?);
        (from, to) = (to, from);
        std::thread::sleep(Duration::from_millis(500));
    }
    let mut peer_changes = Vec::new();
    for round in 0..ROUNDS {
        let i = MASTERS + round;
        let moved = format!("2001:db8::2:{i:x}");
        peer_changes.push(reaction(&log, || {
            api.send(Event {
                kind: "MODIFIED",
                node: node(&name(i), false, &[&moved], &[]),
            });
            Ok(())
        })?);
        std::thread::sleep(Duration::from_millis(500));
    }
    let pid = monitor.0.id();
    let (rss, hwm) = (status_kib(pid, "VmRSS:")?, status_kib(pid, "VmHWM:")?);
    drop(keepalived);

    let (mut render, bytes) = render_time(&config, &snapshot(&ns)?)?;
    println!(
        "keepalived-monitor: {NODES} Nodes in the watch ({MASTERS} masters), IPv6, real keepalived, debounce {DEBOUNCE_MS} ms"
    );
    println!(
        "start -> first keepalived.conf (list of {NODES} Nodes over HTTPS): {:.0} ms (target <= 400 ms)",
        first_render.as_secs_f64() * 1000.0
    );
    println!(
        "address move (netlink) -> keepalived reloading, {ROUNDS} moves: {} (target: debounce + < 50 ms)",
        summary(&mut moves)
    );
    println!(
        "peer change (watch event) -> keepalived reloading, {ROUNDS} changes: {} (target: debounce + < 50 ms)",
        summary(&mut peer_changes)
    );
    render.sort();
    println!(
        "build + render of the {NODES}-node configuration ({} KiB): median {:.2} ms, max {:.2} ms over {} runs (target < 10 ms)",
        bytes / 1024,
        render[render.len() / 2].as_secs_f64() * 1000.0,
        render[render.len() - 1].as_secs_f64() * 1000.0,
        render.len()
    );
    println!(
        "daemon RSS with {NODES} Nodes: {:.2} MiB now, peak {:.2} MiB (target <= 12 MiB)",
        rss as f64 / 1024.0,
        hwm as f64 / 1024.0
    );
    Ok(())
}
