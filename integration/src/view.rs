//! A node's view of the file system: its private `/run`, NetworkManager keyfile and state
//! directories, bind-mounted inside a mount namespace of its own (`ip netns exec` gives every
//! command one), so a daemon under test sees exactly the production paths.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::netns::Netns;

/// Directories on the host that become the node's `/run`,
/// `/etc/NetworkManager/system-connections` and `/var/lib/NetworkManager`.
#[derive(Clone, Debug)]
pub struct NodeView {
    ns: String,
    run: PathBuf,
    nm_connections: PathBuf,
    nm_state: PathBuf,
}

impl NodeView {
    /// Creates the directories under `base`.
    pub fn new(ns: &Netns, base: &Path) -> Result<NodeView, String> {
        let view = NodeView {
            ns: ns.name().to_owned(),
            run: base.join("run"),
            nm_connections: base.join("nm-system-connections"),
            nm_state: base.join("nm-lib"),
        };
        for d in [&view.run, &view.nm_connections, &view.nm_state] {
            std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        Ok(view)
    }

    /// The host path of the node's `/run`.
    pub fn run_dir(&self) -> &Path {
        &self.run
    }

    /// The host path of the node's `/etc/NetworkManager/system-connections`.
    pub fn nm_connections(&self) -> &Path {
        &self.nm_connections
    }

    /// The host path of the node's `/var/lib/NetworkManager`.
    pub fn nm_state(&self) -> &Path {
        &self.nm_state
    }

    /// `program` run inside the node: its namespace and its view of the file system. `/sys` is
    /// read-only there, which makes NetworkManager manage devices without udev. Every mount is
    /// `-n` so libmount writes nothing to the host's `/run`.
    pub fn command(&self, program: &str) -> Command {
        let script = format!(
            "mount -n -o remount,bind,ro /sys && mount -n --bind {run} /run && \
             mount -n --bind {conn} /etc/NetworkManager/system-connections && \
             mount -n --bind {lib} /var/lib/NetworkManager && exec \"$0\" \"$@\"",
            run = self.run.display(),
            conn = self.nm_connections.display(),
            lib = self.nm_state.display(),
        );
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.ns, "sh", "-c", &script, program]);
        c
    }
}
