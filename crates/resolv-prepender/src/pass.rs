//! One pass: read NetworkManager's file, the node IP and the current output; write what has to
//! change; touch the done flag.

use std::net::IpAddr;
use std::path::Path;

use selection::atomic::{replace_file, touch};
use selection::envfile;
use selection::net::go_text;
use selection::runfiles::read_ip_file;

use crate::bus;
use crate::resolvconf::{self, has_nameserver, transform};
use crate::resolved;
use crate::settings::Settings;

/// Mode of /etc/resolv.conf and the resolved drop-in.
const MODE: u32 = 0o644;

/// What a pass achieved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to do yet: NetworkManager's file is missing or lists no nameserver.
    Waiting(String),
    /// No node IP yet: the output mirrors NetworkManager's file so the node can resolve.
    Mirrored { changed: bool },
    /// The node IP is first (or in the resolved drop-in); the done flag is set.
    Applied { node_ip: IpAddr, changed: bool },
}

impl Outcome {
    /// The pass wrote a file (the output, or the resolved drop-in on a resolved host).
    pub fn wrote(&self) -> bool {
        match self {
            Outcome::Waiting(_) => false,
            Outcome::Mirrored { changed } | Outcome::Applied { changed, .. } => *changed,
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Waiting(why) => write!(f, "waiting: {why}"),
            Outcome::Mirrored { changed } => write!(
                f,
                "no node IP yet; mirroring NetworkManager's resolver{}",
                if *changed { " (written)" } else { "" }
            ),
            Outcome::Applied { node_ip, changed } => write!(
                f,
                "node IP {} first{}",
                go_text(*node_ip),
                if *changed {
                    " (written)"
                } else {
                    " (unchanged)"
                }
            ),
        }
    }
}

/// Input that cannot be used; the output is left as it is.
#[derive(Debug, thiserror::Error)]
pub enum PassError {
    #[error("{path}: {source}")]
    Upstream {
        path: String,
        source: resolvconf::ParseError,
    },
    #[error(transparent)]
    NodeIp(#[from] selection::runfiles::IpFileError),
    /// The system failed us (permissions, a full disk): not the input's fault.
    #[error("cannot {what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

impl PassError {
    /// The exit code of `once`: 2 for input that cannot be used, 1 for a system failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            PassError::Upstream { .. }
            | PassError::NodeIp(selection::runfiles::IpFileError::Invalid { .. }) => 2,
            PassError::NodeIp(selection::runfiles::IpFileError::Read { .. })
            | PassError::Io { .. } => 1,
        }
    }
}

fn io_err(what: &'static str, path: &Path, source: std::io::Error) -> PassError {
    PassError::Io {
        what,
        path: path.to_owned(),
        source,
    }
}

fn read_optional(path: &Path) -> Result<Option<String>, PassError> {
    match std::fs::read(path) {
        Ok(b) => String::from_utf8(b)
            .map(Some)
            .map_err(|_| PassError::Upstream {
                path: path.display().to_string(),
                source: resolvconf::ParseError::NotText,
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err("read", path, e)),
    }
}

/// Runs one pass.
pub async fn run(s: &Settings) -> Result<Outcome, PassError> {
    let Some(upstream) = read_optional(&s.upstream)? else {
        return Ok(Outcome::Waiting(format!(
            "{} does not exist yet",
            s.upstream.display()
        )));
    };
    resolvconf::validate(&upstream).map_err(|source| PassError::Upstream {
        path: s.upstream.display().to_string(),
        source,
    })?;
    if !has_nameserver(&upstream) {
        return Ok(Outcome::Waiting(format!(
            "{} lists no nameserver yet",
            s.upstream.display()
        )));
    }
    let resolved_host = resolved::owns(&s.output);
    let Some(node_ip) = read_ip_file(&s.node_ip_file)? else {
        return mirror(s, &upstream, resolved_host);
    };
    if resolved_host {
        return apply_resolved(s, node_ip).await;
    }
    let candidate =
        transform(&upstream, node_ip, std::slice::from_ref(&s.base_domain)).map_err(|source| {
            PassError::Upstream {
                path: s.upstream.display().to_string(),
                source,
            }
        })?;
    let current = std::fs::read(&s.output).ok();
    let changed = current.as_deref() != Some(candidate.as_bytes());
    if changed {
        replace_file(&s.output, candidate.as_bytes(), MODE)
            .map_err(|e| io_err("write", &s.output, e))?;
        if let Err(e) = bus::reload_dns_rc().await {
            tracing::warn!("could not ask NetworkManager to reload dns-rc: {e}");
        }
    }
    touch(&s.done_flag).map_err(|e| io_err("touch", &s.done_flag, e))?;
    Ok(Outcome::Applied { node_ip, changed })
}

/// Early boot: make the node resolve through NetworkManager's servers until the node IP exists
/// (only when the output is missing or lists no nameserver, as upstream).
fn mirror(s: &Settings, upstream: &str, resolved_host: bool) -> Result<Outcome, PassError> {
    let usable = std::fs::read_to_string(&s.output).is_ok_and(|t| has_nameserver(&t));
    if resolved_host || usable {
        return Ok(Outcome::Mirrored { changed: false });
    }
    replace_file(&s.output, upstream.as_bytes(), MODE)
        .map_err(|e| io_err("write", &s.output, e))?;
    Ok(Outcome::Mirrored { changed: true })
}

/// systemd-resolved hosts: the drop-in, and a restart of resolved when the done flag was absent
/// (first pass of the boot) or the drop-in changed.
async fn apply_resolved(s: &Settings, node_ip: IpAddr) -> Result<Outcome, PassError> {
    let mut domains = search_domains(s).await;
    domains.push(s.base_domain.clone());
    let dropin = resolved::dropin(node_ip, &domains);
    let current = std::fs::read(&s.resolved_dropin).ok();
    let flag_missing = !s.done_flag.exists();
    let changed = current.as_deref() != Some(dropin.as_bytes());
    if changed || flag_missing {
        let _ = std::fs::remove_file(&s.done_flag);
        if changed {
            replace_file(&s.resolved_dropin, dropin.as_bytes(), MODE)
                .map_err(|e| io_err("write", &s.resolved_dropin, e))?;
        }
        if let Err(e) = bus::try_restart_resolved().await {
            tracing::warn!("could not restart systemd-resolved: {e}");
        }
    }
    touch(&s.done_flag).map_err(|e| io_err("touch", &s.done_flag, e))?;
    Ok(Outcome::Applied { node_ip, changed })
}

/// `IP4_DOMAINS` and `IP6_DOMAINS` from the dispatcher's env file when it exists, else the
/// domains NetworkManager reports over D-Bus.
async fn search_domains(s: &Settings) -> Vec<String> {
    match std::fs::read_to_string(&s.env_file) {
        Ok(text) => {
            let env = envfile::parse(&text);
            for skipped in &env.skipped {
                tracing::warn!("{}: {skipped}", s.env_file.display());
            }
            ["IP4_DOMAINS", "IP6_DOMAINS"]
                .iter()
                .filter_map(|k| env.get(k))
                .flat_map(|a| a.value.split_whitespace().map(str::to_owned))
                .collect()
        }
        Err(_) => bus::nm_search_domains().await.unwrap_or_else(|e| {
            tracing::warn!("no search domains from NetworkManager: {e}");
            Vec::new()
        }),
    }
}
