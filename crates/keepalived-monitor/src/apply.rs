//! Effects: the desired mode, stale VIPs, validating a candidate with `keepalived -t`, writing it
//! atomically, and telling keepalived to reload.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use selection::atomic::write_atomic;

use crate::model::Mode;
use crate::settings::{Reload, Settings};
use crate::systemd::Systemd;

/// The mode upstream's mode files ask for; `monitor-user.conf` wins over `monitor.conf`;
/// without either, the configured default. A file that cannot be parsed is skipped with a
/// warning (upstream: no migration), so the next file or the default decides.
pub fn desired_mode(s: &Settings) -> Mode {
    for f in s.mode_files() {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        match parse_mode(&text) {
            Ok(mode) => return mode,
            Err(e) => tracing::warn!("{}: {e}; ignoring it", f.display()),
        }
    }
    s.mode
}

/// A mode file as upstream reads it: a YAML mapping whose `mode` is `unicast`; any other value,
/// no `mode` key or an empty document means multicast (Go's zero value); other keys (`time`) are
/// ignored.
pub fn parse_mode(text: &str) -> Result<Mode, String> {
    let doc: serde_yaml::Value =
        serde_yaml::from_str(text).map_err(|e| format!("not YAML: {e}"))?;
    match doc {
        serde_yaml::Value::Null => Ok(Mode::Multicast),
        serde_yaml::Value::Mapping(m) => match m.get("mode") {
            Some(serde_yaml::Value::String(v)) if v == "unicast" => Ok(Mode::Unicast),
            _ => Ok(Mode::Multicast),
        },
        _ => Err("not a YAML mapping (expected `mode: unicast` or `mode: multicast`)".into()),
    }
}

/// Why a candidate did not pass `keepalived -t`.
#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    /// keepalived rejected it: the candidate is invalid and is not retried.
    #[error("keepalived -t rejected the candidate ({status}): {message}")]
    Rejected { status: String, message: String },
    /// keepalived -t could not run (missing binary, EAGAIN, killed): nothing is known about
    /// the candidate, so it is retried.
    #[error("cannot run keepalived -t: {0}")]
    CannotRun(String),
}

/// `keepalived -t -f <candidate>` in the current network namespace (where the interfaces must
/// exist). keepalived reloads a broken file with defaults, silently; so nothing reaches the
/// live path without passing this. 0 is the only pass (2.2.7 exits 5 on most errors).
pub fn validate(output: &Path, text: &str) -> Result<(), ValidateError> {
    let cannot = |e: std::io::Error| ValidateError::CannotRun(e.to_string());
    let dir = output.parent().unwrap_or(Path::new("/"));
    std::fs::create_dir_all(dir).map_err(cannot)?;
    // Named like the output's temporary files, so a killed run's candidate is removed with
    // them at the next start.
    let mut tmp = selection::atomic::temp_file_for(output).map_err(cannot)?;
    tmp.write_all(text.as_bytes()).map_err(cannot)?;
    let out = Command::new("keepalived")
        .arg("-t")
        .arg("-f")
        .arg(tmp.path())
        .output()
        .map_err(cannot)?;
    if out.status.success() {
        return Ok(());
    }
    if out.status.code().is_none() {
        return Err(ValidateError::CannotRun(format!(
            "keepalived -t {}",
            out.status
        )));
    }
    let msg = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = msg.lines().filter(|l| !l.trim().is_empty()).collect();
    Err(ValidateError::Rejected {
        status: out.status.to_string(),
        message: lines.join(" | "),
    })
}

/// Writes `text` when it differs from the live file; returns whether it did.
pub fn write(output: &Path, text: &str) -> Result<bool, String> {
    if std::fs::read(output).ok().as_deref() == Some(text.as_bytes()) {
        return Ok(false);
    }
    write_atomic(output, text.as_bytes(), 0o644)
        .map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    Ok(true)
}

/// Signals the keepalived whose pid `p` holds. A pidfile is only trusted when it names a live
/// process (not init) called keepalived: a stale file whose pid was reused must never get a
/// SIGTERM meant for keepalived.
fn signal_pidfile(p: &Path, sig: Signal) -> Result<(), String> {
    let text = std::fs::read_to_string(p)
        .map_err(|e| format!("keepalived not running ({}: {e})", p.display()))?;
    let pid: i32 = text
        .trim()
        .parse()
        .ok()
        .filter(|pid| *pid > 1)
        .ok_or_else(|| format!("{} holds {text:?}, not a keepalived pid", p.display()))?;
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).map_err(|_| {
        format!(
            "keepalived not running (pid {pid} from {} does not exist)",
            p.display()
        )
    })?;
    if comm.trim_end() != "keepalived" {
        return Err(format!(
            "{} is stale: pid {pid} is {:?}, not keepalived",
            p.display(),
            comm.trim_end()
        ));
    }
    kill(Pid::from_raw(pid), sig).map_err(|e| format!("{sig} to keepalived {pid}: {e}"))
}

fn send_socket(p: &Path, message: &str) -> Result<(), String> {
    let mut s =
        std::os::unix::net::UnixStream::connect(p).map_err(|e| format!("{}: {e}", p.display()))?;
    s.write_all(message.as_bytes())
        .map_err(|e| format!("{}: {e}", p.display()))
}

/// The marker, in `keepalived_run_dir`, that this boot's keepalived.conf passed `keepalived -t`
/// here: keepalived.service's drop-in starts only when it exists (`/run` is new every boot).
pub const RENDERED_MARKER: &str = "rendered";

/// Tells keepalived to load the new file, starting it when it is not running (systemd's
/// ReloadOrRestartUnit; the static-pod socket script starts it on `reload`). The pidfile
/// method can only signal a running keepalived.
pub async fn reload(method: &Reload) -> Result<(), String> {
    match method {
        Reload::Systemd => Systemd::connect().await?.reload_or_start().await,
        Reload::Pidfile(p) => signal_pidfile(p, Signal::SIGHUP),
        Reload::Socket(p) => send_socket(p, "reload\n"),
    }
}

/// Stops keepalived (the bootstrap watchdog, when the local API is gone).
pub async fn stop(method: &Reload) -> Result<(), String> {
    match method {
        Reload::Systemd => Systemd::connect().await?.stop().await,
        Reload::Pidfile(p) => signal_pidfile(p, Signal::SIGTERM),
        Reload::Socket(p) => send_socket(p, "stop\n"),
    }
}

/// Whether a keepalived process runs in this network namespace (whatever started it: systemd,
/// the static pod, a test), so the VIPs on its interfaces are its own.
pub fn keepalived_running() -> bool {
    let Ok(own) = std::fs::read_link("/proc/self/ns/net") else {
        return false;
    };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|e| {
        let is_pid = e
            .file_name()
            .to_str()
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
        is_pid
            && std::fs::read_to_string(e.path().join("comm"))
                .is_ok_and(|c| c.trim_end() == "keepalived")
            && std::fs::read_link(e.path().join("ns/net")).is_ok_and(|n| n == own)
    })
}

/// Removes VIPs a crashed keepalived left on any interface (BZ 1931505); keepalived.service's
/// `ExecStartPre=` runs it (`remove-stale-vips`), as upstream's wrapper did before keepalived.
pub async fn remove_stale_vips(vips: &[std::net::IpAddr]) -> Result<(), String> {
    use futures_util::TryStreamExt;
    use rtnetlink::packet_route::address::AddressAttribute;
    let remove = |handle: rtnetlink::Handle| async move {
        let mut stale = Vec::new();
        let mut addrs = handle.address().get().execute();
        while let Some(m) = addrs.try_next().await? {
            let ip = m.attributes.iter().find_map(|a| match a {
                AddressAttribute::Local(ip) | AddressAttribute::Address(ip) => Some(*ip),
                _ => None,
            });
            if let Some(ip) = ip.filter(|ip| vips.contains(ip)) {
                stale.push((ip, m));
            }
        }
        for (ip, m) in stale {
            tracing::info!(
                "removing stale VIP {ip} from interface index {}",
                m.header.index
            );
            handle.address().del(m).execute().await?;
        }
        Ok::<(), rtnetlink::Error>(())
    };
    selection::service::with_netlink(remove)
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_files_are_yaml_as_upstream_reads_them() {
        for (text, mode) in [
            ("mode: unicast\n", Mode::Unicast),
            (
                "mode: unicast  # MCO's file\ntime: 2024-01-01T00:00:00Z\n",
                Mode::Unicast,
            ),
            ("mode: \"unicast\"\n", Mode::Unicast),
            ("# a comment\nmode: multicast\n", Mode::Multicast),
            ("mode: Unicast\n", Mode::Multicast),
            ("time: 2024-01-01T00:00:00Z\n", Mode::Multicast),
            ("", Mode::Multicast),
        ] {
            assert_eq!(parse_mode(text), Ok(mode), "{text:?}");
        }
        for bad in ["mode: [unicast\n", "unicast\n", "- mode: unicast\n"] {
            assert!(parse_mode(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_pidfile_must_name_a_running_keepalived() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("keepalived.pid");
        let err = |content: &str| {
            std::fs::write(&p, content).unwrap();
            signal_pidfile(&p, Signal::SIGHUP).unwrap_err()
        };
        assert!(err("1\n").contains("not a keepalived pid"));
        assert!(err("-5").contains("not a keepalived pid"));
        assert!(err("junk").contains("not a keepalived pid"));
        // This test process: alive, but not keepalived; it must not get the signal.
        let me = std::process::id().to_string();
        let e = err(&me);
        assert!(
            e.contains("is stale") && e.contains("not keepalived"),
            "{e}"
        );
        assert!(err("2147483647").contains("does not exist"));
    }
}
