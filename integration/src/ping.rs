//! A client pinging an address from a namespace at a fixed interval, and which of its echo
//! requests went unanswered: what the traffic tests (rolling restarts, a live MTU change) and
//! the live-apply bench count.

use std::collections::BTreeSet;
use std::process::{Child, Stdio};

use crate::Netns;

/// `ping` of `target` from a namespace every `interval` seconds.
pub struct Pinger {
    target: String,
    interval: f64,
    child: Child,
}

/// What one pinger saw.
#[derive(Debug)]
pub struct Pinged {
    /// Echo requests sent.
    pub sent: u64,
    /// The unanswered ones, each as `icmp_seq=N (sent ~T s in)`. The last request is not
    /// counted: ping stops at once, and its reply may still have been on its way.
    pub lost: Vec<String>,
}

impl Pinger {
    /// Starts pinging `target` from `ns` every `interval` seconds (ping's `-i`).
    pub fn start(ns: &Netns, target: &str, interval: &str) -> Result<Pinger, String> {
        let child = ns
            .command("ping")
            .args(["-n", "-i", interval, "-W", "1", target])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("ping {target}: {e}"))?;
        Ok(Pinger {
            target: target.to_owned(),
            interval: interval
                .parse()
                .map_err(|e| format!("interval {interval}: {e}"))?,
            child,
        })
    }

    /// Stops it (SIGINT: ping prints its summary) and says what was lost.
    pub fn finish(self) -> Result<Pinged, String> {
        // `ip netns exec` execs ping: the child's pid is ping's.
        // SAFETY: kill(2) with a pid this process spawned and has not reaped yet.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        let out = self.child.wait_with_output().map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&out.stdout);
        Pinged::parse(&text, self.interval).map_err(|e| format!("ping {}: {e}", self.target))
    }
}

impl Pinged {
    /// What the output of a `ping -n -i <interval>` stopped by SIGINT says (its reply lines and
    /// its summary); also for a ping run elsewhere, such as inside a User-Mode Linux guest.
    pub fn parse(text: &str, interval: f64) -> Result<Pinged, String> {
        let sent: u64 = text
            .lines()
            .find(|l| l.contains("packets transmitted"))
            .and_then(|l| l.split_whitespace().next()?.parse().ok())
            .ok_or_else(|| format!("printed no summary: {text}"))?;
        let answered: BTreeSet<u64> = text
            .lines()
            .filter_map(|l| l.split("icmp_seq=").nth(1)?.split(' ').next()?.parse().ok())
            .collect();
        let lost = (1..sent)
            .filter(|seq| !answered.contains(seq))
            .map(|seq| {
                format!(
                    "icmp_seq={seq} (sent ~{:.2} s in)",
                    (seq - 1) as f64 * interval
                )
            })
            .collect();
        Ok(Pinged { sent, lost })
    }
}
