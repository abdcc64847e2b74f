//! One change of the node's network at a time. Every command that changes it (the boot-time
//! `apply` and `apply-nmstate`, and the day-2 live apply) holds an exclusive `flock` on one file
//! under /run for its whole run, so a live apply never overlaps ovs-configuration or
//! nmstate-configuration. The lock goes with the process (a SIGKILLed holder frees it); the
//! file says who holds it, for the one line a waiter that gives up prints.

use std::fs::{File, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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
        Ok(ChangeLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_change_waits_then_names_the_holder() {
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
        let err = ChangeLock::acquire(Path::new("/nonexistent/dir/lock"), "apply", Duration::ZERO)
            .unwrap_err();
        assert!(err.to_string().contains("/nonexistent/dir/lock"), "{err}");
    }
}
