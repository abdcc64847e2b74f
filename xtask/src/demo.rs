//! `cargo xtask demo`: a node choosing its IP, in a network namespace, with real netlink state.

use std::fs;
use std::process::Command;

use anyhow::{Context, anyhow, bail};
use integration::{Netns, topology};

use crate::util::{is_root, release_binary};

/// The API VIP, held by this node as keepalived would hold it.
const VIP_HELD: &str = "addr add 192.0.2.100/32 dev eth0 label eth0:vip\n";

pub fn run() -> anyhow::Result<()> {
    if !is_root() {
        bail!("the demo builds network namespaces: run it as root");
    }
    let bin = release_binary("nodeip-selector")?;
    let ns = Netns::new("demo-node").map_err(|e| anyhow!(e))?;
    let dir = std::env::temp_dir().join(format!("{}-files", ns.name()));
    let result = scenario(&ns, &bin, &dir);
    let _ = fs::remove_dir_all(&dir);
    result
}

fn scenario(ns: &Netns, bin: &std::path::Path, dir: &std::path::Path) -> anyhow::Result<()> {
    topology::two_nic_node(ns).map_err(|e| anyhow!(e))?;
    ns.ip_batch(VIP_HELD).map_err(|e| anyhow!(e))?;
    println!("== A node in network namespace {} ==", ns.name());
    for line in topology::TWO_NIC_NODE.lines().chain(VIP_HELD.lines()) {
        println!("  ip {line}");
    }
    fs::create_dir_all(dir)?;
    let hint = dir.join("nodeip-configuration");
    fs::write(&hint, "NODEIP_HINT=192.0.2.1\n")?;
    fs::write(dir.join("config.toml"), "platform = \"BareMetal\"\n")?;
    let common = |c: &mut Command| {
        c.arg("--hint-file").arg(&hint);
        c.arg("--config").arg(dir.join("config.toml"));
        c.arg("--run-dir").arg(dir.join("run"));
        c.arg("--systemd-dir").arg(dir.join("systemd"));
    };
    println!(
        "  {}: NODEIP_HINT=192.0.2.1; API VIP 192.0.2.100 (held by this node), ingress VIP 192.0.2.101",
        hint.display()
    );

    let bin = bin.to_str().context("binary path")?;
    let vips = ["192.0.2.100", "192.0.2.101"];
    println!("\n== Without the hint or VIPs, the default route decides (upstream's trap) ==");
    let mut c = ns.command(bin);
    c.args([
        "show",
        "--all",
        "--hint-file",
        "/nonexistent",
        "--config",
        "/dev/null",
    ]);
    show(&mut c)?;

    println!("\n== nodeip-selector explain (hint + VIPs) ==");
    let mut c = ns.command(bin);
    c.arg("explain").args(vips);
    common(&mut c);
    show(&mut c)?;

    println!("\n== nodeip-selector set (hint + VIPs) ==");
    let mut c = ns.command(bin);
    c.args(["set", "--retry-on-failure"]).args(vips);
    common(&mut c);
    show(&mut c)?;
    for rel in [
        "run/primary-ip",
        "run/ipv4",
        "run/ipv6",
        "systemd/kubelet.service.d/20-nodenet.conf",
        "systemd/crio.service.d/20-nodenet.conf",
    ] {
        let text =
            fs::read_to_string(dir.join(rel)).with_context(|| format!("{rel} not written"))?;
        println!(
            "--- {rel}\n{}{}",
            text,
            if text.ends_with('\n') {
                ""
            } else {
                "\n(no trailing newline)\n"
            }
        );
    }
    println!("== Second run in the same boot: nothing to do ==");
    let mut c = ns.command(bin);
    c.arg("set").args(vips);
    common(&mut c);
    show(&mut c)
}

fn show(c: &mut Command) -> anyhow::Result<()> {
    let status = c.status().with_context(|| format!("cannot run {c:?}"))?;
    if !status.success() {
        bail!("{c:?} failed: {status}");
    }
    Ok(())
}
