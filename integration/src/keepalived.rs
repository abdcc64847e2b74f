//! keepalived instances, one per namespace, each with its own config and pid files.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::netns::Netns;
use crate::process::{Daemon, SIGHUP, output};

/// keepalived-monitor settings overriding its health checks with ones that always pass (the
/// reference's need OpenShift's scripts, and `keepalived -t` rejects a missing script).
pub const PASSING_SCRIPTS: &str = "
[scripts.chk_ocp_lb]
command = \"/usr/bin/true\"
interval = 1
weight = 20
rise = 1
fall = 1
[scripts.chk_ocp_both]
command = \"/usr/bin/true\"
interval = 1
weight = 5
rise = 1
fall = 1
[scripts.chk_mcs]
command = \"/usr/bin/true\"
interval = 1
weight = 3
rise = 1
fall = 1
[scripts.chk_ingress]
command = \"/usr/bin/true\"
interval = 1
rise = 1
fall = 1
[scripts.chk_ingress_ready]
command = \"/usr/bin/true\"
interval = 1
weight = 10
rise = 1
fall = 1
[scripts.chk_default_ingress]
command = \"/usr/bin/true\"
interval = 1
weight = 50
rise = 1
fall = 1
";

/// A running keepalived (VRRP only); SIGTERM on drop releases its VIPs.
#[derive(Debug)]
pub struct Keepalived {
    ns: String,
    conf: PathBuf,
    daemon: Daemon,
}

impl Keepalived {
    /// Writes `config` to `dir/keepalived.conf`, checks it with `keepalived -t` in `ns` (where
    /// its interfaces exist), and starts keepalived there.
    pub fn start(ns: &Netns, dir: &Path, config: &str) -> Result<Keepalived, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let conf = dir.join("keepalived.conf");
        std::fs::write(&conf, config).map_err(|e| e.to_string())?;
        Self::start_file(ns, dir, &conf)
    }

    /// Starts keepalived on a configuration file someone else owns (a monitor under test), with
    /// its pid files in `dir` (`keepalived.pid` is the parent, the one to SIGHUP).
    pub fn start_file(ns: &Netns, dir: &Path, conf: &Path) -> Result<Keepalived, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        config_test(ns.name(), conf)?;
        let conf = conf.to_owned();
        // Distinct pid files per instance: a second keepalived with the same ones exits 0.
        let pid = |n: &str| format!("{}", dir.join(n).display());
        let mut cmd = ns.command("keepalived");
        cmd.args([
            "--dont-fork",
            "--log-console",
            "--log-detail",
            "--no-syslog",
            "--vrrp",
        ])
        .arg("-f")
        .arg(&conf)
        .args([
            "-p",
            &pid("keepalived.pid"),
            "-r",
            &pid("vrrp.pid"),
            "-c",
            &pid("checkers.pid"),
        ])
        .args(["-b", &pid("bfd.pid")]);
        let daemon = Daemon::spawn("keepalived", &mut cmd, &dir.join("keepalived.log"))?;
        Ok(Keepalived {
            ns: ns.name().to_owned(),
            conf,
            daemon,
        })
    }

    /// Replaces the configuration (checked first) and reloads with SIGHUP.
    pub fn reload(&self, config: &str) -> Result<(), String> {
        let tmp = self.conf.with_extension("new");
        std::fs::write(&tmp, config).map_err(|e| e.to_string())?;
        config_test(&self.ns, &tmp)?;
        std::fs::rename(&tmp, &self.conf).map_err(|e| e.to_string())?;
        self.daemon.signal(SIGHUP)
    }

    /// SIGTERM: keepalived sends a priority-0 advert and removes its VIPs.
    pub fn stop(&mut self) {
        self.daemon.stop(Duration::from_secs(5));
    }

    pub fn log_tail(&self, lines: usize) -> String {
        self.daemon.log_tail(lines)
    }
}

/// `keepalived -t` in namespace `ns`; exit 0 is the only pass (2.2.7 exits 5 on most errors).
pub fn config_test(ns: &str, conf: &Path) -> Result<(), String> {
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", ns, "keepalived", "-t", "-f"])
        .arg(conf);
    output(&mut cmd)
        .map(drop)
        .map_err(|e| format!("keepalived -t {}: {e}", conf.display()))
}

/// Whether `dev` in `ns` holds `ip` (any prefix).
pub fn holds(ns: &Netns, dev: &str, ip: &str) -> bool {
    output(Command::new("ip").args(["-n", ns.name(), "-br", "addr", "show", "dev", dev])).is_ok_and(
        |t| {
            t.split_whitespace()
                .any(|w| w.split('/').next() == Some(ip))
        },
    )
}
