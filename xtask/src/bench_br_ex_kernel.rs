//! `cargo xtask bench ovs-bridge-configurator`, kernel-datapath part: on a real kernel
//! (User-Mode Linux, OVS's `system` datapath, NetworkManager without the harness switches), per
//! uplink topology, `apply`'s start to its return (it returns once the gateways that answered
//! before answer through br-ex) and its return to the gateway's first answer as a client on the
//! node sees it (starting `ping` in the guest included; the first echo must be answered). Each run is a freshly booted node. Reference, configure-ovs.sh (MCO 7ff337a4)
//! on the same UML nodes: ready after 19-52 s, the gateway answering 51-115 ms after it exits;
//! before ready-means-forwarding this tool returned 5.4-6.4 s before an 802.3ad bond forwarded,
//! and a VLAN on a bond never forwarded.

use anyhow::{Context, bail};
use integration::real_kernel::RealKernelNode;
use integration::real_kernel::uplink::{self, Uplink};

/// Runs per topology (each boots a node: about 25 s).
const RUNS: usize = 3;
/// The slow link's one-way delay on the switch's ports.
const SLOW_MS: u32 = 50;

fn one(bin: &str, up: Uplink, slow: bool) -> anyhow::Result<(f64, f64)> {
    let mut node = RealKernelNode::boot("bench0").map_err(anyhow::Error::msg)?;
    let mut switch = up.switch();
    if slow {
        switch.push_str(&uplink::slow_ports(&[0, 1], SLOW_MS));
    }
    node.sh(&switch).map_err(anyhow::Error::msg)?;
    node.sh(&up.node()).map_err(anyhow::Error::msg)?;
    let c = uplink::convert(&mut node, bin);
    if c.status != 0 {
        bail!("{up:?}: apply exited {}\n{}", c.status, c.log);
    }
    let gateway = c
        .gateway_s
        .with_context(|| format!("{up:?}: the gateway did not answer after apply"))?;
    if !c.first_echo_answered {
        bail!(
            "{up:?}: apply returned {gateway:.2} s before the gateway answered\n{}",
            c.log
        );
    }
    Ok((c.apply_s, gateway))
}

fn spread(v: &mut [f64]) -> String {
    v.sort_by(f64::total_cmp);
    format!(
        "median {:.2} (min {:.2}, max {:.2})",
        v[v.len() / 2],
        v[0],
        v[v.len() - 1]
    )
}

pub fn run(bin: &str) -> anyhow::Result<()> {
    let cases = Uplink::ALL
        .iter()
        .map(|u| (*u, false))
        .chain([(Uplink::Lacp, true)]);
    for (up, slow) in cases {
        let (mut apply, mut gateway): (Vec<f64>, Vec<f64>) = (0..RUNS)
            .map(|_| one(bin, up, slow))
            .collect::<anyhow::Result<Vec<_>>>()?
            .into_iter()
            .unzip();
        let link = if slow {
            format!(", links {SLOW_MS} ms each way")
        } else {
            String::new()
        };
        println!(
            "ovs-bridge-configurator kernel datapath, {up:?}{link} ({RUNS} runs): apply -> ready {} s, \
             apply returned -> gateway answers {} s",
            spread(&mut apply),
            spread(&mut gateway)
        );
    }
    Ok(())
}
