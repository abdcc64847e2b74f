//! The `/run/nodeip-configuration` contract shared by every daemon.
//!
//! `nodeip-selector set` writes these files once per boot (`/run` is tmpfs); the bridge
//! configurator, the keepalived monitor and the resolv.conf prepender read them. Upstream
//! consumers parse the whole content as one IP without trimming, so the writers produce the
//! address text with **no trailing newline**. Our readers are lenient (surrounding whitespace is
//! accepted) but reject anything that is not exactly one IP address.

use std::io;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use crate::atomic::write_atomic;
use crate::net::go_text;

/// Production location of the node-IP files.
pub const DEFAULT_RUN_DIR: &str = "/run/nodeip-configuration";

/// Content of `remote-worker`, byte for byte as upstream writes it.
pub const REMOTE_WORKER_TEXT: &str = "node ip doesn't match any vip, don't run keepalived";

/// Mode of every file written under the run dir.
pub const FILE_MODE: u32 = 0o644;

/// A bad node-IP file.
#[derive(Debug, thiserror::Error)]
pub enum IpFileError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("{path} holds {content:?}, which is not one IP address")]
    Invalid { path: PathBuf, content: String },
}

/// Paths of the node-IP files under one run directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeIpFiles {
    dir: PathBuf,
}

impl NodeIpFiles {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        NodeIpFiles { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The address kubelet uses (`KUBELET_NODE_IP`).
    pub fn primary_ip(&self) -> PathBuf {
        self.dir.join("primary-ip")
    }

    /// The first chosen IPv4 address.
    pub fn ipv4(&self) -> PathBuf {
        self.dir.join("ipv4")
    }

    /// The first chosen IPv6 address.
    pub fn ipv6(&self) -> PathBuf {
        self.dir.join("ipv6")
    }

    /// Present when the node is a remote worker (no VIP on its subnets); keepalived stays idle.
    pub fn remote_worker(&self) -> PathBuf {
        self.dir.join("remote-worker")
    }

    /// Touched when br-ex is up (upstream's dispatcher script); `wait-for-br-ex-up.service`
    /// holds `node-valid-hostname.service` until it exists.
    pub fn br_ex_up(&self) -> PathBuf {
        self.dir.join("br-ex-up")
    }

    /// The family file an address of this text form goes to: upstream decides by the text, so an
    /// IPv4-mapped address (printed as a dotted quad) lands in `ipv4`.
    pub fn family_file(&self, ip: IpAddr) -> PathBuf {
        if go_text(ip).contains(':') {
            self.ipv6()
        } else {
            self.ipv4()
        }
    }
}

/// Parses the content of a node-IP file; `path` only names it in the error.
pub fn parse_ip_content(content: &str, path: &Path) -> Result<IpAddr, IpFileError> {
    content.trim().parse().map_err(|_| IpFileError::Invalid {
        path: path.to_owned(),
        content: content.to_owned(),
    })
}

/// Reads a node-IP file; `Ok(None)` when it does not exist.
pub fn read_ip_file(path: &Path) -> Result<Option<IpAddr>, IpFileError> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let content = String::from_utf8_lossy(&bytes);
            parse_ip_content(&content, path).map(Some)
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(IpFileError::Read {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Writes `ip` in upstream's text form, without a trailing newline, atomically.
pub fn write_ip_file(path: &Path, ip: IpAddr) -> io::Result<()> {
    write_atomic(path, go_text(ip).as_bytes(), FILE_MODE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_accepts_surrounding_whitespace_and_rejects_everything_else() {
        let p = Path::new("/run/nodeip-configuration/primary-ip");
        assert_eq!(
            parse_ip_content("192.0.2.10\n", p).unwrap().to_string(),
            "192.0.2.10"
        );
        assert_eq!(
            parse_ip_content("  2001:db8::a  \n", p)
                .unwrap()
                .to_string(),
            "2001:db8::a"
        );
        for bad in [
            "",
            "\n",
            "192.0.2.10 192.0.2.11",
            "192.0.2.300",
            "192.0.2.0/24",
            "eth0",
        ] {
            let err = parse_ip_content(bad, p).unwrap_err().to_string();
            assert!(
                err.contains("primary-ip") && err.contains("not one IP address"),
                "{err}"
            );
        }
    }

    #[test]
    fn writer_produces_go_text_without_newline_and_reader_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let files = NodeIpFiles::new(dir.path());
        let mapped: IpAddr = "::ffff:198.51.100.4".parse().unwrap();
        write_ip_file(&files.primary_ip(), mapped).unwrap();
        assert_eq!(std::fs::read(files.primary_ip()).unwrap(), b"198.51.100.4");
        assert_eq!(
            read_ip_file(&files.primary_ip()).unwrap(),
            Some("198.51.100.4".parse().unwrap())
        );
        assert_eq!(read_ip_file(&files.ipv4()).unwrap(), None);
        assert_eq!(files.family_file(mapped), files.ipv4());
        assert_eq!(
            files.family_file("2001:db8::1".parse().unwrap()),
            files.ipv6()
        );
    }
}
