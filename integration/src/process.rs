//! Daemons the harness starts: direct children (so they are reaped at once, never left as
//! zombies), logging to a file, killed by PID on drop.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running daemon owned by a test.
#[derive(Debug)]
pub struct Daemon {
    name: String,
    child: Option<Child>,
    log: PathBuf,
}

/// Signal numbers used with [`Daemon::signal`].
pub const SIGTERM: i32 = libc::SIGTERM;
pub const SIGHUP: i32 = libc::SIGHUP;

impl Daemon {
    /// Spawns `cmd` with stdin closed and stdout+stderr appended to `log`.
    pub fn spawn(name: &str, cmd: &mut Command, log: &Path) -> Result<Daemon, String> {
        let file = File::options()
            .create(true)
            .append(true)
            .open(log)
            .map_err(|e| format!("{name}: log {}: {e}", log.display()))?;
        let err = file.try_clone().map_err(|e| e.to_string())?;
        let child = cmd
            .stdin(Stdio::null())
            .stdout(file)
            .stderr(err)
            .spawn()
            .map_err(|e| format!("{name}: cannot start {cmd:?}: {e}"))?;
        Ok(Daemon {
            name: name.into(),
            child: Some(child),
            log: log.to_owned(),
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    pub fn log(&self) -> &Path {
        &self.log
    }

    /// The last `lines` lines of the log, for failure messages.
    pub fn log_tail(&self, lines: usize) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// Whether the process is still running (it is reaped if it exited).
    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }

    /// Sends `signal` to the daemon.
    pub fn signal(&self, signal: i32) -> Result<(), String> {
        // SAFETY: plain syscall on a PID we own and have not reaped.
        if unsafe { libc::kill(self.pid() as i32, signal) } != 0 {
            return Err(format!(
                "{}: kill: {}",
                self.name,
                std::io::Error::last_os_error()
            ));
        }
        Ok(())
    }

    /// SIGTERM, up to `grace` to exit, then SIGKILL; always reaps.
    pub fn stop(&mut self, grace: Duration) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        if matches!(child.try_wait(), Ok(None)) {
            // SAFETY: as in `signal`.
            unsafe { libc::kill(child.id() as i32, SIGTERM) };
            let end = Instant::now() + grace;
            while matches!(child.try_wait(), Ok(None)) && Instant::now() < end {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
        }
        let _ = child.wait();
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop(Duration::from_secs(5));
    }
}

/// Whether this process runs under User-Mode Linux (inside a real-kernel guest); read once.
pub fn inside_user_mode_linux() -> bool {
    static UML: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *UML.get_or_init(|| {
        std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|c| c.contains("User Mode Linux"))
    })
}

/// How many times a bound on starting processes must stretch here: 4 under User-Mode Linux,
/// where a process takes about 0.2 s to start (every `ip netns exec`, script and daemon), 1
/// elsewhere. For bounds that measure the harness, never for the product's own timings.
pub fn pace() -> u32 {
    if inside_user_mode_linux() { 4 } else { 1 }
}

/// [`wait_for`] a daemon or process of the harness to start: `timeout` stretched by [`pace`].
pub fn wait_for_start(timeout: Duration, ok: impl FnMut() -> bool) -> bool {
    wait_for(timeout * pace(), ok)
}

/// Polls `ok` every 20 ms until it returns true or `timeout` passes.
pub fn wait_for(timeout: Duration, mut ok: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + timeout;
    loop {
        if ok() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `cmd` to completion; its stdout, or an error naming it with its stderr.
pub fn output(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{cmd:?}: {} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Waits for `cond`, polling; the elapsed time when it held.
pub fn time_until(timeout: Duration, mut cond: impl FnMut() -> bool) -> Option<Duration> {
    let t0 = Instant::now();
    wait_for(timeout, &mut cond).then(|| t0.elapsed())
}
