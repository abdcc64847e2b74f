//! keepalived instances, one per namespace, each with its own config and pid files.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::netns::Netns;
use crate::process::{Daemon, SIGHUP, output, wait_for_start};

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

/// [`PASSING_SCRIPTS`] for where the caller runs: under User-Mode Linux, where starting a
/// process takes about 0.2 s (a node's takes milliseconds), every 10 s instead of every second:
/// three nodes' 18 script runs a second would need more than the guest's one CPU, and keepalived
/// would count them as timed out and drop its priorities.
pub fn passing_scripts_here() -> String {
    if crate::process::inside_user_mode_linux() {
        PASSING_SCRIPTS.replace("interval = 1\n", "interval = 10\n")
    } else {
        PASSING_SCRIPTS.to_owned()
    }
}

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
        Self::start_in(ns.name(), dir, conf)
    }

    fn start_in(ns: &str, dir: &Path, conf: &Path) -> Result<Keepalived, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        config_test(ns, conf)?;
        let conf = conf.to_owned();
        // Distinct pid files per instance: a second keepalived with the same ones exits 0.
        let pid = |n: &str| format!("{}", dir.join(n).display());
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", ns, "keepalived"]);
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
            ns: ns.to_owned(),
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

/// keepalived.service as the harness runs it for a node: keepalived-monitor drives it through
/// its `socket` reload method (upstream's static-pod wrapper protocol), and `reload` starts
/// keepalived when it is not running and sends SIGHUP otherwise, as production's
/// `ReloadOrRestartUnit` of keepalived.service does. So keepalived is started by the monitor's
/// first render, never by the harness on a file of its own choosing.
#[derive(Debug)]
pub struct KeepalivedService {
    socket: PathBuf,
    state: Arc<Mutex<Unit>>,
    done: Arc<AtomicBool>,
    listener: Option<std::thread::JoinHandle<()>>,
}

#[derive(Debug)]
struct Unit {
    ns: String,
    dir: PathBuf,
    conf: PathBuf,
    running: Option<Keepalived>,
    /// What the unit did, for failure messages.
    journal: Vec<String>,
}

impl Unit {
    fn alive(&mut self) -> bool {
        self.running.as_mut().is_some_and(|k| k.daemon.is_running())
    }

    /// systemd's ReloadOrRestartUnit: reload a running keepalived, start a stopped one (on a
    /// non-empty file, as keepalived.service's `ConditionFileNotEmpty=`).
    fn reload_or_start(&mut self) {
        if self.alive() {
            // As systemd holds a reload until the start job is done (keepalived.service is
            // Type=forking: done once the pid file is written): a SIGHUP that reaches the
            // process while it is still `ip netns exec`, or keepalived before its handlers
            // are set, ends it instead. Only slow here under User-Mode Linux.
            let pid_file = self.dir.join("keepalived.pid");
            if !wait_for_start(Duration::from_secs(10), || pid_file.exists()) {
                self.journal
                    .push("reload: keepalived never finished starting".into());
            }
            let r = self.running.as_ref().map(|k| k.daemon.signal(SIGHUP));
            self.journal.push(format!("reload: {r:?}"));
            return;
        }
        if std::fs::metadata(&self.conf).map_or(true, |m| m.len() == 0) {
            self.journal
                .push("start skipped: empty or missing configuration".into());
            return;
        }
        match Keepalived::start_in(&self.ns, &self.dir, &self.conf) {
            Ok(k) => {
                self.journal
                    .push(format!("started keepalived {}", k.daemon.pid()));
                self.running = Some(k);
            }
            Err(e) => self.journal.push(format!("start failed: {e}")),
        }
    }

    fn stop(&mut self) {
        if let Some(mut k) = self.running.take() {
            k.stop();
            // As systemd removes a unit's PIDFile= once it has stopped: a keepalived killed
            // after the stop timeout leaves its pid files, and the next reload (or `up`) must
            // not take them for the new keepalived's.
            for f in ["keepalived.pid", "vrrp.pid"] {
                let _ = std::fs::remove_file(self.dir.join(f));
            }
            self.journal.push("stopped".into());
        }
    }

    /// keepalived has started its VRRP child: the parent has read its configuration and set its
    /// signal handlers, so a SIGHUP from now on is a reload.
    fn up(&mut self) -> bool {
        self.alive() && self.dir.join("vrrp.pid").exists()
    }
}

impl KeepalivedService {
    /// Listens on `dir/keepalived.sock` for keepalived-monitor; keepalived (config `conf`, run
    /// in namespace `ns`, pid and log files in `dir`) starts at the first `reload`.
    pub fn start(ns: &Netns, dir: &Path, conf: &Path) -> Result<KeepalivedService, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let socket = dir.join("keepalived.sock");
        let _ = std::fs::remove_file(&socket);
        let listener = std::os::unix::net::UnixListener::bind(&socket)
            .map_err(|e| format!("{}: {e}", socket.display()))?;
        let state = Arc::new(Mutex::new(Unit {
            ns: ns.name().to_owned(),
            dir: dir.to_owned(),
            conf: conf.to_owned(),
            running: None,
            journal: Vec::new(),
        }));
        let done = Arc::new(AtomicBool::new(false));
        let thread = {
            let (state, done) = (state.clone(), done.clone());
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if done.load(Ordering::SeqCst) {
                        return;
                    }
                    let mut text = String::new();
                    if conn.and_then(|mut c| c.read_to_string(&mut text)).is_err() {
                        continue;
                    }
                    let mut unit = state.lock().unwrap_or_else(PoisonError::into_inner);
                    for line in text.lines() {
                        match line {
                            "reload" => unit.reload_or_start(),
                            "stop" => unit.stop(),
                            other => unit.journal.push(format!("unknown request {other:?}")),
                        }
                    }
                }
            })
        };
        Ok(KeepalivedService {
            socket,
            state,
            done,
            listener: Some(thread),
        })
    }

    /// The control socket, for keepalived-monitor's `control-socket`.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    fn unit(&self) -> std::sync::MutexGuard<'_, Unit> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether keepalived runs.
    pub fn is_running(&self) -> bool {
        self.unit().alive()
    }

    /// Whether keepalived runs and has started its VRRP child.
    pub fn is_up(&self) -> bool {
        self.unit().up()
    }

    /// `systemctl start`: keepalived on the monitor's current file.
    pub fn start_keepalived(&self) {
        self.unit().reload_or_start();
    }

    /// `systemctl stop` (SIGTERM: keepalived hands its VIPs over).
    pub fn stop_keepalived(&self) {
        self.unit().stop();
    }

    /// keepalived's log (every start appends to it) and what the unit did.
    pub fn log_tail(&self, lines: usize) -> String {
        let unit = self.unit();
        let text = std::fs::read_to_string(unit.dir.join("keepalived.log")).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        format!(
            "{}\n--- keepalived.service stand-in: {}",
            all[all.len().saturating_sub(lines)..].join("\n"),
            unit.journal.join("; ")
        )
    }
}

impl Drop for KeepalivedService {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
        // Wakes the listener's accept so it sees `done`.
        let _ = std::os::unix::net::UnixStream::connect(&self.socket);
        if let Some(t) = self.listener.take() {
            let _ = t.join();
        }
        self.unit().stop();
        let _ = std::fs::remove_file(&self.socket);
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
