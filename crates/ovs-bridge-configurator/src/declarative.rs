//! The declarative mode (upstream nmstate-configuration.sh + nmstate.service): the user's
//! NMState file defines br-ex; it is applied with the nmstate library (NetworkManager backend,
//! its own checkpoint, verification, rollback on failure) and recorded in `applied`.
//!
//! Everything happens inside nmstate's one checkpoint: nmstate applies the file over whatever
//! bridge the node has (the automatic one included; NetworkManager refuses a second checkpoint
//! over the same devices, so the clean-up cannot come first in a checkpoint of our own), then,
//! still uncommitted, the automatic mode's leftovers are removed and br-ex must carry the node
//! IP. Any failure rolls the node back to the bridge it had.

use std::path::{Path, PathBuf};

use selection::atomic::write_atomic;

use crate::settings::Settings;

/// A pending NMState file.
#[derive(Debug, PartialEq, Eq)]
pub struct Pending {
    pub path: PathBuf,
    pub content: String,
}

/// Why a declarative apply failed.
#[derive(Debug, thiserror::Error)]
pub enum DeclarativeError {
    /// The file is not valid NMState: nothing was changed.
    #[error("invalid NMState file {path}: {message}")]
    Invalid { path: String, message: String },
    /// nmstate could not apply or verify it and rolled back to the previous network.
    #[error("applying {path} failed and was rolled back: {message}")]
    Apply { path: String, message: String },
    /// It applied, but the result is not a usable br-ex: rolled back.
    #[error("{path} was rolled back: {message}")]
    Unusable { path: String, message: String },
    #[error("cannot write {}: {error}", path.display())]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// The short host name (`hostname -s`).
fn short_hostname() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    name.trim().split('.').next().unwrap_or_default().to_owned()
}

fn non_empty(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok().filter(|t| !t.is_empty())
}

/// The files looked for, in order: `<short hostname>.yml`, then `cluster.yml`.
pub fn candidates(s: &Settings) -> [PathBuf; 2] {
    let dir = s.nmstate_dir();
    [
        dir.join(format!("{}.yml", short_hostname())),
        dir.join("cluster.yml"),
    ]
}

/// `<short hostname>.yml`, else `cluster.yml` (non-empty), unless `applied` already holds
/// exactly that content.
pub fn pending(s: &Settings) -> Option<Pending> {
    let dir = s.nmstate_dir();
    let shown: Vec<String> = candidates(s)
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    tracing::debug!("NMState files looked for: {}", shown.join(", "));
    let path = candidates(s).into_iter().find(|p| non_empty(p).is_some())?;
    let content = non_empty(&path)?;
    let applied = std::fs::read_to_string(dir.join("applied")).ok();
    (applied.as_deref() != Some(content.as_str())).then_some(Pending { path, content })
}

/// Parses `p`: a malformed file is rejected before anything changes.
pub fn parse(p: &Pending) -> Result<nmstate::NetworkState, DeclarativeError> {
    nmstate::NetworkState::new_from_yaml(&p.content).map_err(|e| DeclarativeError::Invalid {
        path: p.path.display().to_string(),
        message: e.to_string(),
    })
}

/// Applies `p` (parsed as `state`) inside nmstate's checkpoint, runs `finish` (the clean-up and
/// the br-ex check) before committing, and records the file. A failure anywhere rolls back.
pub async fn apply<F>(
    s: &Settings,
    p: &Pending,
    mut state: nmstate::NetworkState,
    finish: F,
) -> Result<(), DeclarativeError>
where
    F: AsyncFnOnce() -> Result<(), String>,
{
    let shown = p.path.display().to_string();
    state
        .set_kernel_only(false)
        .set_verify_change(true)
        .set_commit(false)
        .set_memory_only(false)
        .set_timeout(s.checkpoint_timeout.as_secs() as u32);
    state
        .apply_async()
        .await
        .map_err(|e| DeclarativeError::Apply {
            path: shown.clone(),
            message: e.to_string(),
        })?;
    // nmstate left its checkpoint open ("" = NetworkManager's only checkpoint).
    if let Err(message) = finish().await {
        if let Err(e) = nmstate::NetworkState::checkpoint_rollback_async("").await {
            tracing::error!("rolling back nmstate's checkpoint: {e}");
        }
        return Err(DeclarativeError::Unusable {
            path: shown,
            message,
        });
    }
    nmstate::NetworkState::checkpoint_commit_async("")
        .await
        .map_err(|e| DeclarativeError::Apply {
            path: shown.clone(),
            message: format!("commit: {e}"),
        })?;
    // As upstream: the file is copied into /etc/nmstate (nmstate.service re-applies it on
    // later boots) and to `applied`, a copy of the content other tools compare against.
    let base = p
        .path
        .file_name()
        .map(PathBuf::from)
        .unwrap_or_else(|| "cluster.yml".into());
    let copy = s.etc_dir.join("nmstate").join(base);
    for target in [copy, s.nmstate_dir().join("applied")] {
        write_atomic(&target, p.content.as_bytes(), 0o644).map_err(|error| {
            DeclarativeError::Write {
                path: target.clone(),
                error,
            }
        })?;
    }
    Ok(())
}
