//! One change of the node's network at a time. Every command that changes it (the boot-time
//! `apply` and `apply-nmstate`, and the day-2 live apply) holds an exclusive `flock` on one file
//! under /run for its whole run, so a live apply never overlaps ovs-configuration or
//! nmstate-configuration. The lock goes with the process (a SIGKILLed holder frees it), and with
//! the process a change leaves behind to undo it ([`pass_to`]), which holds it too; the file says
//! who holds it, for the one line a waiter that gives up prints.

use std::fs::{File, TryLockError};
use std::io::{Read, Seek, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// The descriptor of the change lock this process holds (-1: none).
static HELD: AtomicI32 = AtomicI32::new(-1);

/// The descriptor a process started through [`pass_to`] holds the lock on.
pub const PASSED_FD: RawFd = 3;

/// The lock file, under the run directory (`/run/ovs-bridge-configurator.lock`).
pub fn path(run_dir: &Path) -> PathBuf {
    run_dir.join("ovs-bridge-configurator.lock")
}

/// Why the lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("cannot open the lock {}: {error}", path.display())]
    Open {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error(
        "another change of the node's network is running ({holder}) and still was after {}s; \
         nothing was changed",
        waited.as_secs()
    )]
    Busy { holder: String, waited: Duration },
}

/// The held lock; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct ChangeLock {
    _file: File,
}

impl ChangeLock {
    /// Takes the lock at `path` for `what` (a command's name), waiting up to `wait` for the
    /// holder to finish.
    pub fn acquire(path: &Path, what: &str, wait: Duration) -> Result<ChangeLock, LockError> {
        let open = |error| LockError::Open {
            path: path.to_owned(),
            error,
        };
        let mut file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(open)?;
        let deadline = Instant::now() + wait;
        loop {
            // std's lock is flock(2) on Linux: the same lock as a holder taking it another way.
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::Error(error)) => return Err(open(error)),
                Err(TryLockError::WouldBlock) => {}
            }
            if Instant::now() >= deadline {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                return Err(LockError::Busy {
                    holder: holder.trim().to_owned(),
                    waited: wait,
                });
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let me = format!("{what}, pid {}", std::process::id());
        // Who holds it is a courtesy for waiters: failing to say so does not fail the run.
        let _ = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(me.as_bytes()));
        HELD.store(file.as_raw_fd(), Ordering::SeqCst);
        Ok(ChangeLock { _file: file })
    }
}

impl Drop for ChangeLock {
    fn drop(&mut self) {
        let fd = self._file.as_raw_fd();
        let _ = HELD.compare_exchange(fd, -1, Ordering::SeqCst, Ordering::SeqCst);
    }
}

/// Makes the process `cmd` starts hold the change lock this process holds, on [`PASSED_FD`]: the
/// lock (flock(2), which belongs to the open file both then share) stays taken until both have
/// let go of it, so no other change starts between this process dying and that one being done.
/// Whether this process holds the lock.
pub fn pass_to(cmd: &mut Command) -> bool {
    let fd = HELD.load(Ordering::SeqCst);
    if fd < 0 {
        return false;
    }
    // SAFETY: between fork and exec the closure makes only async-signal-safe calls (dup2,
    // fcntl) and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            // dup2 gives the copy no close-on-exec; onto itself it changes nothing, so the flag
            // is cleared instead.
            let r = if fd == PASSED_FD {
                libc::fcntl(fd, libc::F_SETFD, 0)
            } else {
                libc::dup2(fd, PASSED_FD)
            };
            if r < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests take locks one at a time: which one this process holds is one per process.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
        ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    #[test]
    fn a_process_it_is_passed_to_holds_it_after_this_one_lets_go() {
        let _one = one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let p = path(dir.path());
        let held = ChangeLock::acquire(&p, "apply-live", Duration::ZERO).unwrap();
        let mut cmd = Command::new("sleep");
        cmd.arg("1");
        assert!(pass_to(&mut cmd));
        let mut child = cmd.spawn().unwrap();
        drop(held);
        assert!(matches!(
            ChangeLock::acquire(&p, "apply-live", Duration::ZERO),
            Err(LockError::Busy { .. })
        ));
        child.wait().unwrap();
        ChangeLock::acquire(&p, "apply-live", Duration::ZERO).unwrap();
        assert!(
            !pass_to(&mut Command::new("true")),
            "none held once dropped"
        );
    }

    #[test]
    fn a_second_change_waits_then_names_the_holder() {
        let _one = one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let p = path(dir.path());
        let held = ChangeLock::acquire(&p, "apply", Duration::ZERO).unwrap();
        let t = Instant::now();
        let err = ChangeLock::acquire(&p, "apply-live", Duration::from_millis(300)).unwrap_err();
        assert!(t.elapsed() >= Duration::from_millis(300));
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("(apply, pid {})", std::process::id())) && msg.contains("0s"),
            "{msg}"
        );
        drop(held);
        ChangeLock::acquire(&p, "apply-live", Duration::ZERO).unwrap();
    }

    #[test]
    fn a_waiter_gets_the_lock_when_the_holder_finishes() {
        let _one = one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let p = path(dir.path());
        let held = ChangeLock::acquire(&p, "apply-nmstate", Duration::ZERO).unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            drop(held);
        });
        ChangeLock::acquire(&p, "apply-live", Duration::from_secs(10)).unwrap();
        release.join().unwrap();
    }

    #[test]
    fn an_unopenable_lock_is_named() {
        let _one = one_at_a_time();
        let err = ChangeLock::acquire(Path::new("/nonexistent/dir/lock"), "apply", Duration::ZERO)
            .unwrap_err();
        assert!(err.to_string().contains("/nonexistent/dir/lock"), "{err}");
    }
}
