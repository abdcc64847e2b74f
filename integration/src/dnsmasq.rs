//! dnsmasq as the DNS server (authoritative for its zone) and DHCP server of a test network.

use std::path::Path;
use std::time::Duration;

use crate::netns::Netns;
use crate::process::{Daemon, wait_for_start};

/// DHCPv4 service on one interface.
#[derive(Clone, Debug)]
pub struct Dhcp {
    pub interface: String,
    /// First and last address of the pool, and the netmask.
    pub range: (String, String, String),
    pub router: String,
    /// Fixed leases: (MAC, IP).
    pub hosts: Vec<(String, String)>,
    /// Seconds every DHCPOFFER is held back (`--dhcp-reply-delay`): a slow DHCP server.
    pub reply_delay_secs: u32,
}

/// Stateful DHCPv6 (no router advertisements) on the DHCPv4 interface, handing out host names:
/// the reply carries the FQDN `<name>.<domain>` (option 39), as a bare-metal provisioning network
/// does.
#[derive(Clone, Debug)]
pub struct Dhcp6 {
    /// First and last address of the pool (a /64).
    pub range: (String, String),
    pub domain: String,
    /// Fixed leases: (MAC, IPv6 address, host name). dnsmasq finds the MAC in a DUID-LL(T).
    pub hosts: Vec<(String, String, String)>,
}

/// What one dnsmasq instance serves.
#[derive(Clone, Debug, Default)]
pub struct DnsmasqConfig {
    /// Addresses to answer DNS on; none disables DNS (`--port=0`).
    pub listen: Vec<String>,
    /// The zone it is authoritative for (without it AAAA queries get REFUSED and glibc asks
    /// the next nameserver).
    pub zone: Option<String>,
    /// (name, address) records.
    pub records: Vec<(String, String)>,
    pub dhcp: Option<Dhcp>,
    /// Needs `dhcp` (it serves the same interface).
    pub dhcp6: Option<Dhcp6>,
}

/// A running dnsmasq; stopped on drop.
/// dnsmasq's DHCPv4 server as `d` describes it, its leases in `dir`.
fn dhcp_args(cmd: &mut std::process::Command, d: &Dhcp, dir: &Path) {
    cmd.arg(format!("--interface={}", d.interface))
        .arg(format!(
            "--dhcp-range={},{},{},1h",
            d.range.0, d.range.1, d.range.2
        ))
        .arg(format!("--dhcp-option=option:router,{}", d.router))
        .arg(format!(
            "--dhcp-leasefile={}",
            dir.join("dnsmasq.leases").display()
        ))
        .arg("--dhcp-authoritative");
    if d.reply_delay_secs > 0 {
        cmd.arg(format!("--dhcp-reply-delay={}", d.reply_delay_secs));
    }
    for (mac, ip) in &d.hosts {
        cmd.arg(format!("--dhcp-host={mac},{ip}"));
    }
}

#[derive(Debug)]
pub struct Dnsmasq {
    daemon: Daemon,
    log: std::path::PathBuf,
}

impl Dnsmasq {
    /// Starts dnsmasq in `ns` with its pid, lease and log files in `dir`.
    pub fn start(ns: &Netns, dir: &Path, cfg: &DnsmasqConfig) -> Result<Dnsmasq, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let log = dir.join("dnsmasq.log");
        // A restart appends to the same log: only this start's lines count.
        let offset = std::fs::metadata(&log).map_or(0, |m| m.len() as usize);
        let mut cmd = ns.command("dnsmasq");
        cmd.args([
            "--keep-in-foreground",
            "--conf-file=/dev/null",
            "--no-resolv",
            "--no-hosts",
            "--bind-interfaces",
            "--except-interface=lo",
            "--user=root",
            "--group=root",
            "--log-queries",
            "--log-dhcp",
        ])
        .arg(format!("--pid-file={}", dir.join("dnsmasq.pid").display()))
        .arg(format!("--log-facility={}", log.display()));
        if cfg.listen.is_empty() {
            cmd.arg("--port=0");
        }
        for a in &cfg.listen {
            cmd.arg(format!("--listen-address={a}"));
        }
        if let Some(z) = &cfg.zone {
            cmd.arg(format!("--local=/{z}/"));
        }
        for (name, ip) in &cfg.records {
            cmd.arg(format!("--host-record={name},{ip}"));
        }
        if let Some(d) = &cfg.dhcp {
            dhcp_args(&mut cmd, d, dir);
        }
        if let Some(d6) = &cfg.dhcp6 {
            cmd.arg(format!("--dhcp-range={},{},64,1h", d6.range.0, d6.range.1))
                .arg(format!("--domain={}", d6.domain));
            for (mac, ip, name) in &d6.hosts {
                cmd.arg(format!("--dhcp-host={mac},[{ip}],{name}"));
            }
        }
        let daemon = Daemon::spawn("dnsmasq", &mut cmd, &dir.join("dnsmasq.stderr"))?;
        let started = || {
            std::fs::read_to_string(&log).is_ok_and(|t| {
                t.get(offset..)
                    .is_some_and(|t| t.contains("started, version"))
            })
        };
        if !wait_for_start(Duration::from_secs(5), started) {
            return Err(format!("dnsmasq did not start: {}", daemon.log_tail(5)));
        }
        Ok(Dnsmasq { daemon, log })
    }

    /// Stops it (also done on drop).
    pub fn stop(&mut self) {
        self.daemon.stop(Duration::from_secs(5));
    }

    /// How many DNS queries it has logged so far.
    pub fn queries(&self) -> usize {
        std::fs::read_to_string(&self.log).map_or(0, |t| t.matches(" query[").count())
    }

    pub fn pid(&self) -> u32 {
        self.daemon.pid()
    }

    /// The DHCP lines of its log (for failure messages).
    pub fn dhcp_log_tail(&self, lines: usize) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let dhcp: Vec<&str> = text.lines().filter(|l| l.contains("dhcp")).collect();
        dhcp[dhcp.len().saturating_sub(lines)..].join("\n")
    }
}
