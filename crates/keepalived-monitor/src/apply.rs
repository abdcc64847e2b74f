//! Effects: the desired mode, stale VIPs, validating a candidate with `keepalived -t`, writing it
//! atomically, and telling keepalived to reload.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use selection::atomic::write_atomic;

use crate::model::Mode;
use crate::retry::Retry;
use crate::settings::{Reload, Settings};
use crate::systemd::{Systemd, SystemdError};

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

/// Why a mode file was skipped.
#[derive(Debug, thiserror::Error)]
pub enum ModeFileError {
    #[error("not YAML: {0}")]
    NotYaml(serde_saphyr::Error),
    #[error("not a YAML mapping (expected `mode: unicast` or `mode: multicast`)")]
    NotAMapping,
}

/// A mode file as upstream reads it: a YAML mapping whose `mode` is `unicast`; any other value,
/// no `mode` key or an empty document means multicast (Go's zero value); other keys (`time`) are
/// ignored.
pub fn parse_mode(text: &str) -> Result<Mode, ModeFileError> {
    // The YAML crate kube brings in; its documents read as JSON values (a mapping's keys as
    // strings), which is all a mode file holds.
    let doc: Option<serde_json::Value> =
        serde_saphyr::from_str(text).map_err(ModeFileError::NotYaml)?;
    match doc {
        None | Some(serde_json::Value::Null) => Ok(Mode::Multicast),
        Some(serde_json::Value::Object(m)) => match m.get("mode") {
            Some(serde_json::Value::String(v)) if v == "unicast" => Ok(Mode::Unicast),
            _ => Ok(Mode::Multicast),
        },
        Some(_) => Err(ModeFileError::NotAMapping),
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

impl Retry for ValidateError {
    fn worth_retrying(&self) -> bool {
        matches!(self, ValidateError::CannotRun(_))
    }
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

/// `keepalived -t` of the pending candidate, started (in a blocking thread) as soon as the
/// candidate is offered: by the end of the debounce window it is usually done, so the reload
/// follows the window at once instead of after another `keepalived -t` of a large file.
pub struct Validation {
    text: String,
    result: tokio::task::JoinHandle<Result<(), ValidateError>>,
}

impl Validation {
    pub fn start(output: &Path, text: String) -> Validation {
        let (output, candidate) = (output.to_owned(), text.clone());
        Validation {
            text,
            result: tokio::task::spawn_blocking(move || validate(&output, &candidate)),
        }
    }

    /// The verdict on `text`: the one started for it, or a fresh run.
    pub async fn of(
        started: Option<Validation>,
        output: &Path,
        text: &str,
    ) -> Result<(), ValidateError> {
        let v = match started {
            Some(v) if v.text == text => v,
            _ => Validation::start(output, text.to_owned()),
        };
        v.result
            .await
            .unwrap_or_else(|e| Err(ValidateError::CannotRun(e.to_string())))
    }
}

/// Writes a validated `text` to `output` and, where keepalived.service waits for it, this
/// boot's `marker` (see [`RENDERED_MARKER`]).
pub fn install(output: &Path, text: &str, marker: Option<&Path>) -> Result<(), WriteError> {
    write(output, text)?;
    if let Some(m) = marker {
        selection::atomic::touch(m).map_err(|source| WriteError {
            path: m.to_owned(),
            source,
        })?;
    }
    Ok(())
}

/// keepalived.conf or this boot's marker could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct WriteError {
    path: PathBuf,
    source: std::io::Error,
}

/// Writes `text` when it differs from the live file.
fn write(output: &Path, text: &str) -> Result<(), WriteError> {
    if std::fs::read(output).ok().as_deref() == Some(text.as_bytes()) {
        return Ok(());
    }
    write_atomic(output, text.as_bytes(), 0o644).map_err(|source| WriteError {
        path: output.to_owned(),
        source,
    })
}

/// Why keepalived could not be told to reload or stop.
#[derive(Debug, thiserror::Error)]
pub enum TellError {
    #[error("keepalived not running ({}: {source})", pidfile.display())]
    NoPidfile {
        pidfile: PathBuf,
        source: std::io::Error,
    },
    #[error("{} holds {content:?}, not a keepalived pid", pidfile.display())]
    NotAPid { pidfile: PathBuf, content: String },
    #[error("keepalived not running (pid {pid} from {} does not exist)", pidfile.display())]
    Gone { pidfile: PathBuf, pid: i32 },
    #[error("{} is stale: pid {pid} is {comm:?}, not keepalived", pidfile.display())]
    Stale {
        pidfile: PathBuf,
        pid: i32,
        comm: String,
    },
    #[error("{signal} to keepalived {pid}: {source}")]
    Signal {
        signal: Signal,
        pid: i32,
        source: nix::Error,
    },
    #[error("{}: {source}", socket.display())]
    Socket {
        socket: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Systemd(#[from] SystemdError),
}

impl Retry for TellError {
    /// A keepalived that is not running yet, or restarting, is there next time; a pidfile
    /// that holds no pid, or a signal not permitted, stays so.
    fn worth_retrying(&self) -> bool {
        match self {
            TellError::NotAPid { .. } => false,
            TellError::Signal { source, .. } => *source == nix::Error::ESRCH,
            TellError::Systemd(e) => e.worth_retrying(),
            TellError::NoPidfile { .. }
            | TellError::Gone { .. }
            | TellError::Stale { .. }
            | TellError::Socket { .. } => true,
        }
    }
}

/// Signals the keepalived whose pid `p` holds. A pidfile is only trusted when it names a live
/// process (not init) called keepalived: a stale file whose pid was reused must never get a
/// SIGTERM meant for keepalived.
fn signal_pidfile(p: &Path, signal: Signal) -> Result<(), TellError> {
    let pidfile = || p.to_owned();
    let text = std::fs::read_to_string(p).map_err(|source| TellError::NoPidfile {
        pidfile: pidfile(),
        source,
    })?;
    let pid: i32 = text
        .trim()
        .parse()
        .ok()
        .filter(|pid| *pid > 1)
        .ok_or_else(|| TellError::NotAPid {
            pidfile: pidfile(),
            content: text.clone(),
        })?;
    let comm =
        std::fs::read_to_string(format!("/proc/{pid}/comm")).map_err(|_| TellError::Gone {
            pidfile: pidfile(),
            pid,
        })?;
    if comm.trim_end() != "keepalived" {
        return Err(TellError::Stale {
            pidfile: pidfile(),
            pid,
            comm: comm.trim_end().to_owned(),
        });
    }
    kill(Pid::from_raw(pid), signal).map_err(|source| TellError::Signal {
        signal,
        pid,
        source,
    })
}

fn send_socket(p: &Path, message: &str) -> Result<(), TellError> {
    let failed = |source| TellError::Socket {
        socket: p.to_owned(),
        source,
    };
    let mut s = std::os::unix::net::UnixStream::connect(p).map_err(failed)?;
    s.write_all(message.as_bytes()).map_err(failed)
}

/// The marker, in `keepalived_run_dir`, that this boot's keepalived.conf passed `keepalived -t`
/// here: keepalived.service's drop-in starts only when it exists (`/run` is new every boot).
pub const RENDERED_MARKER: &str = "rendered";

/// Tells keepalived to load the new file, starting it when it is not running (systemd's
/// ReloadOrRestartUnit; the static-pod socket script starts it on `reload`). The pidfile
/// method can only signal a running keepalived.
pub async fn reload(method: &Reload) -> Result<(), TellError> {
    match method {
        Reload::Systemd => Ok(Systemd::connect().await?.reload_or_start().await?),
        Reload::Pidfile(p) => signal_pidfile(p, Signal::SIGHUP),
        Reload::Socket(p) => send_socket(p, "reload\n"),
    }
}

/// Stops keepalived (the bootstrap watchdog, when the local API is gone).
pub async fn stop(method: &Reload) -> Result<(), TellError> {
    match method {
        Reload::Systemd => Ok(Systemd::connect().await?.stop().await?),
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
pub async fn remove_stale_vips(vips: &[std::net::IpAddr]) -> Result<(), StaleVipError> {
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
    Ok(selection::service::with_netlink(remove).await??)
}

/// Why the stale VIPs could not be removed.
#[derive(Debug, thiserror::Error)]
pub enum StaleVipError {
    #[error(transparent)]
    Socket(#[from] selection::netlink::NetlinkError),
    #[error("netlink: {0}")]
    Netlink(#[from] rtnetlink::Error),
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
            assert_eq!(parse_mode(text).unwrap(), mode, "{text:?}");
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
            signal_pidfile(&p, Signal::SIGHUP).unwrap_err().to_string()
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
