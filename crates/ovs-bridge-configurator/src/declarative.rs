//! The declarative mode (upstream nmstate-configuration.sh + nmstate.service): the user's
//! NMState file defines br-ex; it is applied with the nmstate library (NetworkManager backend,
//! its own checkpoint, verification, rollback on failure) and recorded in `applied`.

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
    #[error("{0}")]
    Io(String),
}

/// The short host name (`hostname -s`).
fn short_hostname() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    name.trim().split('.').next().unwrap_or_default().to_owned()
}

fn non_empty(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok().filter(|t| !t.is_empty())
}

/// `<short hostname>.yml`, else `cluster.yml` (non-empty), unless `applied` already holds
/// exactly that content.
pub fn pending(s: &Settings) -> Option<Pending> {
    let dir = s.nmstate_dir();
    let path = [
        dir.join(format!("{}.yml", short_hostname())),
        dir.join("cluster.yml"),
    ]
    .into_iter()
    .find(|p| non_empty(p).is_some())?;
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

/// Applies and records `p` (parsed as `state`). The caller has removed the automatic bridge.
pub async fn apply(
    s: &Settings,
    p: &Pending,
    mut state: nmstate::NetworkState,
) -> Result<(), DeclarativeError> {
    let shown = p.path.display().to_string();
    state
        .set_kernel_only(false)
        .set_verify_change(true)
        .set_commit(true)
        .set_memory_only(false)
        .set_timeout(s.checkpoint_timeout.as_secs() as u32);
    state
        .apply_async()
        .await
        .map_err(|e| DeclarativeError::Apply {
            path: shown.clone(),
            message: e.to_string(),
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
        write_atomic(&target, p.content.as_bytes(), 0o644)
            .map_err(|e| DeclarativeError::Io(format!("cannot write {}: {e}", target.display())))?;
    }
    Ok(())
}
