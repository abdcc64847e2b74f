//! A live apply of this node's NMState file, or of its policies' merged state, that was rolled
//! back (`apply-nmstate --live`), remembered with its content, when and why; one record per
//! [`Subject`], so one does not forget the other. MCO's daemon retries a failed update: applying the
//! same content again would cut the node off again each time, so while the file holds that
//! content the unit fails at once naming the earlier failure. No time bound: the content is as
//! bad an hour later, and every retry would be another outage; a changed file (MCO writing the
//! previous one back, or a fix) is applied normally, and removing the record retries on purpose.

use std::path::{Path, PathBuf};

use selection::atomic::write_atomic;
use serde::{Deserialize, Serialize};

use crate::settings::Settings;

/// The file, its content, when and why it was rolled back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolledBack {
    pub path: String,
    pub content: String,
    pub at: String,
    pub why: String,
}

/// What was rolled back: the per-host day-1 file, or the node's policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    HostFile,
    Policies,
}

/// Where the record is kept (`/var/lib/ovs-bridge-configurator/live-rolled-back.json`, or
/// `policies-rolled-back.json`): it outlives a reboot, as the files do.
pub fn record(s: &Settings, of: Subject) -> PathBuf {
    let name = match of {
        Subject::HostFile => "live-rolled-back.json",
        Subject::Policies => "policies-rolled-back.json",
    };
    s.var_lib_dir.join("ovs-bridge-configurator").join(name)
}

/// The earlier rollback of exactly this content of `path`, if there was one.
pub fn earlier(s: &Settings, of: Subject, path: &Path, content: &str) -> Option<RolledBack> {
    let text = std::fs::read_to_string(record(s, of)).ok()?;
    let r: RolledBack = serde_json::from_str(&text).ok()?;
    (r.path == path.display().to_string() && r.content == content).then_some(r)
}

/// Remembers that `content` of `path` was rolled back now, because of `why`. A record that
/// cannot be written is said; the rollback itself already happened.
pub fn remember(s: &Settings, of: Subject, path: &Path, content: &str, why: &str) {
    let r = RolledBack {
        path: path.display().to_string(),
        content: content.to_owned(),
        at: k8s_openapi::jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string(),
        why: why.to_owned(),
    };
    let file = record(s, of);
    let written = serde_json::to_vec_pretty(&r)
        .map_err(std::io::Error::other)
        .and_then(|bytes| write_atomic(&file, &bytes, 0o600));
    if let Err(e) = written {
        tracing::warn!("cannot remember the rollback in {}: {e}", file.display());
    }
}

/// Forgets an earlier rollback (a file applied since).
pub fn forget(s: &Settings, of: Subject) {
    let file = record(s, of);
    match std::fs::remove_file(&file) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            tracing::warn!("cannot remove {}: {e}", file.display());
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: Subject = Subject::HostFile;

    #[test]
    fn only_the_same_content_of_the_same_file_is_remembered_until_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let args = crate::settings::SettingsArgs {
            var_lib_dir: Some(dir.path().to_owned()),
            ..Default::default()
        };
        let s = crate::settings::resolve(&args, &dir.path().join("none.toml")).unwrap();
        let file = Path::new("/etc/nmstate/openshift/master-0.yml");
        assert_eq!(earlier(&s, HOST, file, "a"), None);
        remember(
            &s,
            HOST,
            file,
            "a",
            "the gateway 198.51.100.1 does not answer",
        );
        let r = earlier(&s, HOST, file, "a").unwrap();
        assert_eq!(r.why, "the gateway 198.51.100.1 does not answer");
        assert!(r.at.ends_with('Z'), "{}", r.at);
        assert_eq!(earlier(&s, HOST, file, "b"), None, "another content");
        assert_eq!(
            earlier(&s, HOST, Path::new("/etc/x.yml"), "a"),
            None,
            "another file"
        );
        assert_eq!(
            earlier(&s, Subject::Policies, file, "a"),
            None,
            "another subject"
        );
        forget(&s, Subject::Policies);
        assert!(earlier(&s, HOST, file, "a").is_some(), "kept by the other");
        forget(&s, HOST);
        assert_eq!(earlier(&s, HOST, file, "a"), None);
        forget(&s, HOST);
    }
}
