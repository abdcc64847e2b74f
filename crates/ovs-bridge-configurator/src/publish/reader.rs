//! Reading the node: `show` run as a child process of this same binary, its NMState YAML on
//! stdout. The document is then what `show` prints by construction, and the memory the read
//! takes (nmstate, nispor and zbus hold tens of MiB of heap while reading a node with many
//! interfaces, nispor's parsed netlink dump of every link among it, and glibc keeps much of it
//! after they free it) is the child's, given back to the system when it exits, instead of
//! staying in the heap of a daemon that runs for the node's lifetime. kubernetes-nmstate's
//! handler reads the same way (`nmstatectl show`).

use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use tokio::net::unix::pipe;

/// Why the node could not be read.
#[derive(Debug, thiserror::Error)]
#[error("reading the node's network: {0}")]
pub struct ReadError(pub String);

/// The longest a read may take before its process is killed: far beyond a read of thousands
/// of interfaces, short enough that a hung NetworkManager does not stop the publisher for good.
pub const READ_LIMIT: Duration = Duration::from_secs(120);

/// `show`, as the publisher runs it.
#[derive(Debug, Clone)]
pub struct Reader {
    program: PathBuf,
    config: Option<PathBuf>,
}

impl Reader {
    /// This binary's `show` with the publisher's settings file (the D-Bus timeout is in it).
    pub fn new(config: Option<PathBuf>) -> Reader {
        Reader {
            // The running binary, even after a package upgrade replaced the file.
            program: PathBuf::from("/proc/self/exe"),
            config,
        }
    }

    /// The same, running `program` (tests).
    pub fn with_program(program: PathBuf, config: Option<PathBuf>) -> Reader {
        Reader { program, config }
    }

    fn args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec!["-q".into(), "show".into()];
        if let Some(c) = &self.config {
            args.extend(["--config".into(), c.clone().into_os_string()]);
        }
        args
    }

    /// The node's state as `show` prints it. Dropping the future kills the read's process.
    pub async fn read(&self) -> Result<String, ReadError> {
        let mut child = Command::new(&self.program)
            .args(self.args())
            // Its warnings only: nmstate says a line per interface it ignores at info.
            .env_remove("RUST_LOG")
            .env_remove("NOTIFY_SOCKET")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| ReadError(format!("cannot run {}: {e}", self.program.display())))?;
        let out = receiver(child.stdout.take().map(OwnedFd::from));
        let err = receiver(child.stderr.take().map(OwnedFd::from));
        let mut running = Running(Some(child));
        let (out, err) = (out?, err?);
        let both = futures_util::future::join(read_all(&out), read_all(&err));
        let Ok((out, err)) = tokio::time::timeout(READ_LIMIT, both).await else {
            return Err(ReadError(format!("no answer within {READ_LIMIT:?}")));
        };
        // Both pipes are closed: the child has exited or is exiting.
        let mut child = running.0.take().expect("not reaped yet");
        let status = tokio::task::spawn_blocking(move || child.wait())
            .await
            .map_err(|e| ReadError(e.to_string()))?
            .map_err(|e| ReadError(e.to_string()))?;
        let (out, err) = (out?, err?);
        if !status.success() {
            return Err(ReadError(last_line(&err)));
        }
        String::from_utf8(out).map_err(|e| ReadError(format!("show printed no text: {e}")))
    }
}

/// The read's process until it is reaped: killed and reaped if the read ends before (given up,
/// timed out, the daemon stopping).
struct Running(Option<Child>);

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn receiver(fd: Option<OwnedFd>) -> Result<pipe::Receiver, ReadError> {
    let fd = fd.ok_or_else(|| ReadError("no pipe to the reader".into()))?;
    pipe::Receiver::from_owned_fd(fd).map_err(|e| ReadError(format!("the reader's pipe: {e}")))
}

/// Everything until the writer closes the pipe.
async fn read_all(rx: &pipe::Receiver) -> Result<Vec<u8>, ReadError> {
    let mut all = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        rx.readable()
            .await
            .map_err(|e| ReadError(format!("the reader's pipe: {e}")))?;
        match rx.try_read(&mut chunk) {
            Ok(0) => return Ok(all),
            Ok(n) => all.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(ReadError(format!("the reader's pipe: {e}"))),
        }
    }
}

/// The child's error line (`ovs-bridge-configurator: ...`), without the program's name.
fn last_line(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let line = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let line = line
        .strip_prefix("ovs-bridge-configurator: ")
        .unwrap_or(line);
    if line.is_empty() {
        "show failed without a message".into()
    } else {
        line.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(body: &str) -> (tempfile::TempDir, PathBuf) {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("show");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        (dir, path)
    }

    fn read(program: PathBuf, config: Option<PathBuf>) -> Result<String, ReadError> {
        let rt = selection::service::runtime().unwrap();
        rt.block_on(Reader::with_program(program, config).read())
    }

    #[test]
    fn the_state_is_what_show_prints_with_the_publishers_settings_file() {
        let (_d, p) = script("echo \"$@\"; head -c 300000 /dev/zero | tr '\\0' x; echo");
        let out = read(p, Some("/etc/x.toml".into())).unwrap();
        assert!(
            out.starts_with("-q show --config /etc/x.toml\n"),
            "{}",
            &out[..40]
        );
        assert_eq!(out.len(), "-q show --config /etc/x.toml\n".len() + 300_001);
    }

    #[test]
    fn a_read_given_up_leaves_no_process_behind() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let (_d, p) = script(&format!("echo $$ > {}; exec sleep 30", pid_file.display()));
        let rt = selection::service::runtime().unwrap();
        let reader = Reader::with_program(p, None);
        rt.block_on(async {
            let given_up = tokio::time::timeout(Duration::from_millis(500), reader.read()).await;
            assert!(given_up.is_err(), "the read ended by itself");
        });
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        // Reaped: no such process, not even a zombie.
        assert!(
            !std::path::Path::new(&format!("/proc/{}", pid.trim())).exists(),
            "process {pid} is still there"
        );
    }

    #[test]
    fn a_failed_read_says_why_in_shows_own_words() {
        let (_d, p) = script(
            "echo 'some warning' >&2; echo 'ovs-bridge-configurator: NetworkManager is not \
             running' >&2; exit 1",
        );
        let e = read(p, None).unwrap_err();
        assert_eq!(e.0, "NetworkManager is not running");
    }
}
