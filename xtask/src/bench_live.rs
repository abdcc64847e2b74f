//! `cargo xtask bench live-apply`: `ovs-bridge-configurator apply-live` on the harness.
//! An additive change (an address on a second NIC), apply -> committed, median over
//! 10 (goal <= 1 s); br-ex's MTU changed back and forth 10 times under a 50 ms ping of the node
//! IP from the machine network, echoes lost (goal 0); a change that cuts the node off (its
//! default route through a next hop that is not there), apply -> rolled back, median over 5
//! (goal <= 10 s; kubernetes-nmstate: up to 120 s per probe). With `BENCH_LOG` set, each additive
//! run's log goes to stderr.

use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail};
use integration::node::{Node, Upstream, node_address};
use integration::ping::Pinger;

use crate::util::{median, release_binary};

const RUNS: usize = 10;
const BAD_RUNS: usize = 5;

/// A node with br-ex built, and `apply-live` for it.
struct Live {
    node: Node,
    up: Upstream,
    _up2: integration::Netns,
    bin: std::path::PathBuf,
}

impl Live {
    fn start(bin: std::path::PathBuf) -> anyhow::Result<Live> {
        let mut up = Upstream::start(1, &[]).map_err(|e| anyhow!(e))?;
        let node = Node::start(&mut up, 1).map_err(|e| anyhow!(e))?;
        node.up_uplink(false, &[]).map_err(|e| anyhow!(e))?;
        let up2 = integration::Netns::new("up2").map_err(|e| anyhow!(e))?;
        up2.veth_to("eth0", &node.ns, "ens4")
            .map_err(|e| anyhow!(e))?;
        let run_dir = node.view.run_dir().join("nodeip-configuration");
        std::fs::create_dir_all(&run_dir)?;
        std::fs::write(run_dir.join("primary-ip"), node_address(1))?;
        let live = Live {
            node,
            up,
            _up2: up2,
            bin,
        };
        let out = live
            .command(&["apply", "--retry-interval-secs", "0"])
            .output()?;
        if !out.status.success() {
            bail!("apply failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(live)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = self
            .node
            .view
            .command(self.bin.to_str().unwrap_or_default());
        c.args(args)
            .arg("--config")
            .arg("/dev/null")
            .arg("--etc-dir")
            .arg(self.node.dir().join("etc"))
            .arg("--var-lib-dir")
            .arg(self.node.dir().join("var-lib"))
            .env("DBUS_SYSTEM_BUS_ADDRESS", self.node.nm.bus_address());
        c
    }

    /// `apply-live` of `yaml`: whether it committed, and apply -> exit.
    fn apply(&self, yaml: &str) -> anyhow::Result<(bool, Duration, String)> {
        let file = self.node.dir().join("bench-live.yml");
        std::fs::write(&file, yaml)?;
        let t = Instant::now();
        let out = self
            .command(&["apply-live", &file.display().to_string()])
            .output()?;
        let took = t.elapsed();
        Ok((
            out.status.success(),
            took,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ))
    }
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

pub fn run() -> anyhow::Result<()> {
    let live = Live::start(release_binary("ovs-bridge-configurator")?)?;
    let mut additive = Vec::new();
    for i in 0..RUNS {
        let (ok, took, log) = live.apply(&format!(
            "interfaces:\n- name: ens4\n  type: ethernet\n  state: up\n  ipv4: {{enabled: true, \
             dhcp: false, address: [{{ip: 192.0.2.{}, prefix-length: 24}}]}}\n",
            20 + i
        ))?;
        if !ok {
            bail!("additive change {i} failed: {log}");
        }
        additive.push(took);
        if std::env::var_os("BENCH_LOG").is_some() {
            eprintln!("=== additive {i}: {:.2} s\n{log}", took.as_secs_f64());
        }
    }

    let pinger = Pinger::start(&live.up.ns, &node_address(1), "0.05").map_err(|e| anyhow!(e))?;
    std::thread::sleep(Duration::from_secs(1));
    let mut mtu = Vec::new();
    for i in 0..RUNS {
        let value = if i % 2 == 0 { 1400 } else { 1500 };
        let (ok, took, log) = live.apply(&format!(
            "interfaces:\n- name: br-ex\n  type: ovs-interface\n  state: up\n  mtu: {value}\n"
        ))?;
        if !ok {
            bail!("MTU change {i} failed: {log}");
        }
        mtu.push(took);
    }
    std::thread::sleep(Duration::from_secs(1));
    let pinged = pinger.finish().map_err(|e| anyhow!(e))?;
    let summary = format!(
        "{} sent, {} lost {:?}",
        pinged.sent,
        pinged.lost.len(),
        pinged.lost
    );

    let mut bad = Vec::new();
    for i in 0..BAD_RUNS {
        let (ok, took, log) = live.apply(
            "routes:\n  config:\n  - destination: 0.0.0.0/0\n    state: absent\n  - destination: \
             0.0.0.0/0\n    next-hop-address: 198.51.100.77\n    next-hop-interface: br-ex\n",
        )?;
        if ok || !log.contains("was rolled back after") {
            bail!("bad change {i} was not rolled back: {log}");
        }
        bad.push(took);
        // The rollback re-activates br-ex's profile: let it settle before the next.
        std::thread::sleep(Duration::from_secs(2));
    }

    println!("apply-live on the harness (NetworkManager with OVS, userspace datapath):");
    println!(
        "  additive change (an address on a second NIC), apply -> committed: median {:.2} s, \
         min {:.2} s, max {:.2} s over {RUNS} (goal <= 1 s)",
        secs(median(additive.clone())),
        secs(*additive.iter().min().unwrap_or(&Duration::ZERO)),
        secs(*additive.iter().max().unwrap_or(&Duration::ZERO)),
    );
    println!(
        "  br-ex MTU 1500 <-> 1400 {RUNS} times under a 50 ms ping of the node IP: median {:.2} s \
         each; ping: {summary} (goal: 0 lost)",
        secs(median(mtu)),
    );
    println!(
        "  a change that cuts the node off, apply -> rolled back: median {:.2} s, max {:.2} s \
         over {BAD_RUNS} (goal <= 10 s; kubernetes-nmstate up to 120 s per probe)",
        secs(median(bad.clone())),
        secs(*bad.iter().max().unwrap_or(&Duration::ZERO)),
    );
    Ok(())
}
