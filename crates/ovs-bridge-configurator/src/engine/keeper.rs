//! The process a change leaves behind to undo it if the change's own process dies before its
//! commit (SIGKILL, the OOM killer, a panic): this binary's hidden `keep-undo` command, started
//! before the change with a pipe on its standard input. The change sends its undo record
//! ([`Undo`]) down the pipe each time the record grows, and says when it is over (committed, or
//! undone by itself). A pipe that ends without that means the change's process is gone: the
//! keeper undoes the change at once, as that process would have (the previous profiles put
//! back and reapplied, keeping keepalived's VIPs), instead of NetworkManager's checkpoint
//! rolling it back a timeout later by re-activating every device it restores.
//!
//! NetworkManager's checkpoint stays the last resort: killed together (the process group, or
//! the unit's whole cgroup with SIGKILL), the checkpoint undoes the change by itself. The
//! keeper acts only while the change's checkpoint exists (a change that was committed or
//! rolled back has none), holding NetworkManager's rollback off while it acts; it holds the
//! change lock from its start (passed on by the change, [`lock::pass_to`]), so no other change
//! starts before it is done; and it ignores SIGTERM, SIGINT and SIGHUP (systemd stopping what is
//! left of a killed unit, a closed terminal) until then.

use std::io::{ErrorKind, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};

use crate::engine::undo::Undo;
use crate::lock;

/// The change's side: the keeper's process and the pipe to it.
pub struct Keeper {
    child: Option<Child>,
    pipe: Option<ChildStdin>,
}

impl Keeper {
    /// Starts this binary's `keep-undo`, holding the change lock this process holds. `None`
    /// (said once) when it cannot start: NetworkManager's checkpoint alone undoes a kill then.
    pub fn spawn() -> Option<Keeper> {
        let started = std::env::current_exe().and_then(|exe| {
            let mut cmd = Command::new(exe);
            cmd.arg("keep-undo")
                .stdin(Stdio::piped())
                .stdout(Stdio::null());
            lock::pass_to(&mut cmd);
            cmd.spawn()
        });
        match started {
            Ok(mut child) => Some(Keeper {
                pipe: child.stdin.take(),
                child: Some(child),
            }),
            Err(e) => {
                tracing::warn!(
                    "cannot start the process that undoes this change if this one is killed \
                     ({e}): NetworkManager's checkpoint alone would"
                );
                None
            }
        }
    }

    /// Sends `undo` as it is now. A keeper that cannot be told is stopped (it would otherwise
    /// take the closed pipe for this process's death), and the checkpoint alone undoes a kill.
    fn record(&mut self, undo: &Undo) {
        let sent = undo
            .to_bytes()
            .map_err(std::io::Error::other)
            .and_then(|bytes| self.send(&bytes));
        if let Err(e) = sent {
            tracing::warn!(
                "the process that undoes this change if this one is killed cannot be told \
                 ({e}): stopped; NetworkManager's checkpoint alone would"
            );
            if let Some(mut child) = self.child.take() {
                let _ = child.kill();
                let _ = child.wait();
            }
            self.pipe = None;
        }
    }

    /// The change is over (committed, or undone by this process): the keeper ends at once.
    fn over(&mut self) {
        // The empty frame; a keeper already gone has nothing to be told.
        let _ = self.send(&[]);
        self.pipe = None;
        if let Some(mut child) = self.child.take() {
            let _ = child.wait();
        }
    }

    fn send(&mut self, frame: &[u8]) -> std::io::Result<()> {
        let Some(pipe) = self.pipe.as_mut() else {
            return Ok(());
        };
        let len = u32::try_from(frame.len()).map_err(std::io::Error::other)?;
        pipe.write_all(&len.to_le_bytes())?;
        pipe.write_all(frame)
    }
}

impl Drop for Keeper {
    /// Closes the pipe: a change not said to be over (this process unwinding from a panic, or
    /// the change given up halfway) is the keeper's to undo; it is reaped when it ends, without
    /// this process waiting for it.
    fn drop(&mut self) {
        self.pipe = None;
        if let Some(mut child) = self.child.take() {
            std::thread::spawn(move || child.wait());
        }
    }
}

/// A change's undo record, sent to its keeper (if it has one) each time it grows.
pub struct Recorded {
    undo: Undo,
    keeper: Option<Keeper>,
}

impl Recorded {
    pub fn new(undo: Undo, mut keeper: Option<Keeper>) -> Recorded {
        if let Some(k) = keeper.as_mut() {
            k.record(&undo);
        }
        Recorded { undo, keeper }
    }

    /// Changes the record with `f` and sends it.
    pub fn update(&mut self, f: impl FnOnce(&mut Undo)) {
        f(&mut self.undo);
        if let Some(k) = self.keeper.as_mut() {
            k.record(&self.undo);
        }
    }

    pub fn undo(&self) -> &Undo {
        &self.undo
    }

    /// The change is over: its keeper ends without doing anything.
    pub fn over(&mut self) {
        if let Some(k) = self.keeper.as_mut() {
            k.over();
        }
    }
}

/// What the keeper read from the pipe.
#[derive(Debug)]
pub enum Heard {
    /// The change said it is over.
    Over,
    /// The pipe ended first; the last record, if any came.
    Orphaned(Option<Undo>),
}

/// Reads records from `pipe` until the change says it is over or the pipe ends. A pipe that
/// ends inside a frame (the change killed while it wrote one) leaves the last whole record,
/// which was sent before the step the cut one was about; a frame that is not a record is an
/// error (the keeper then leaves the change to the checkpoint).
pub fn listen(mut pipe: impl Read) -> std::io::Result<Heard> {
    let mut last = None;
    loop {
        let mut len = [0u8; 4];
        match pipe.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Ok(Heard::Orphaned(last)),
            Err(e) => return Err(e),
        }
        let len = u32::from_le_bytes(len) as usize;
        if len == 0 {
            return Ok(Heard::Over);
        }
        let mut frame = vec![0u8; len];
        match pipe.read_exact(&mut frame) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Ok(Heard::Orphaned(last)),
            Err(e) => return Err(e),
        }
        last = Some(Undo::from_bytes(&frame).map_err(std::io::Error::other)?);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zbus::zvariant::OwnedObjectPath;

    fn frames(records: &[Option<&Undo>]) -> Vec<u8> {
        let mut out = Vec::new();
        for r in records {
            let bytes = r.map(|u| u.to_bytes().unwrap()).unwrap_or_default();
            out.extend((bytes.len() as u32).to_le_bytes());
            out.extend(bytes);
        }
        out
    }

    fn undo(n: u32) -> Undo {
        let cp = format!("/org/freedesktop/NetworkManager/Checkpoint/{n}");
        let timeout = std::time::Duration::from_secs(8);
        Undo::new(OwnedObjectPath::try_from(cp).unwrap(), true, timeout)
    }

    #[test]
    fn a_pipe_that_ends_without_over_is_orphaned_with_the_last_record() {
        let (first, second) = (undo(1), undo(2));
        let heard = listen(&frames(&[Some(&first), Some(&second)])[..]).unwrap();
        let Heard::Orphaned(Some(last)) = heard else {
            panic!("{heard:?}")
        };
        assert_eq!(last.checkpoint(), second.checkpoint());
        assert!(matches!(listen(&[][..]).unwrap(), Heard::Orphaned(None)));
    }

    #[test]
    fn over_ends_the_keeper_whatever_was_recorded() {
        let heard = listen(&frames(&[Some(&undo(1)), None])[..]).unwrap();
        assert!(matches!(heard, Heard::Over), "{heard:?}");
    }

    #[test]
    fn a_frame_cut_short_leaves_the_last_whole_record() {
        let (first, second) = (undo(1), undo(2));
        let mut cut = frames(&[Some(&first), Some(&second)]);
        cut.truncate(cut.len() - 3);
        let heard = listen(&cut[..]).unwrap();
        let Heard::Orphaned(Some(last)) = heard else {
            panic!("{heard:?}")
        };
        assert_eq!(last.checkpoint(), first.checkpoint());
        cut.truncate(2);
        assert!(matches!(listen(&cut[..]).unwrap(), Heard::Orphaned(None)));
    }

    #[test]
    fn a_frame_that_is_not_a_record_is_an_error() {
        let garbage = [5u8, 0, 0, 0, 1, 2, 3, 4, 5];
        assert!(listen(&garbage[..]).is_err());
    }
}
