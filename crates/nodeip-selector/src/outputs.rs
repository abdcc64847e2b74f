//! What `set` writes, byte for byte as upstream, and in upstream's order.

use std::io;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use selection::atomic::write_atomic;
use selection::net::go_text;
use selection::runfiles::{FILE_MODE, NodeIpFiles, REMOTE_WORKER_TEXT, read_ip_file};

/// One step of `set`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Write {
        path: PathBuf,
        contents: String,
    },
    /// A `remote-worker` left by an earlier run of this boot that no longer applies. Upstream
    /// leaves it, which keeps keepalived idle on a node that now matches a VIP; we remove it.
    Remove {
        path: PathBuf,
    },
}

/// Every file `set` may write.
pub fn paths(files: &NodeIpFiles, systemd_dir: &Path) -> Vec<PathBuf> {
    vec![
        files.remote_worker(),
        systemd_dir.join(KUBELET_DROPIN),
        systemd_dir.join(CRIO_DROPIN),
        files.primary_ip(),
        files.ipv4(),
        files.ipv6(),
    ]
}

const KUBELET_DROPIN: &str = "kubelet.service.d/20-nodenet.conf";
const CRIO_DROPIN: &str = "crio.service.d/20-nodenet.conf";

/// The steps for `addresses` (primary first): remote-worker, kubelet drop-in, crio drop-in,
/// ipv4/ipv6, then primary-ip. `primary-ip` is the "done" marker that makes later runs of this
/// boot exit early, so everything it depends on is written before it. Decision: upstream writes
/// primary-ip before ipv4/ipv6, so a run killed between them left a half-written set that later
/// runs of the boot accepted; written last, a killed run is redone whole.
pub fn plan(
    addresses: &[IpAddr],
    remote_worker: bool,
    files: &NodeIpFiles,
    systemd_dir: &Path,
) -> Vec<Step> {
    let Some(&primary) = addresses.first() else {
        return Vec::new();
    };
    let node_ip = go_text(primary);
    let node_ips: Vec<String> = addresses.iter().take(2).map(|a| go_text(*a)).collect();
    let mut steps = vec![if remote_worker {
        Step::Write {
            path: files.remote_worker(),
            contents: REMOTE_WORKER_TEXT.into(),
        }
    } else {
        Step::Remove {
            path: files.remote_worker(),
        }
    }];
    let mut kubelet = format!(
        "[Service]\nEnvironment=\"KUBELET_NODE_IP={node_ip}\" \"KUBELET_NODE_IPS={}\"\n",
        node_ips.join(",")
    );
    if remote_worker {
        kubelet.push_str("Environment=\"CUSTOM_KUBELET_LABELS=node.openshift.io/remote-worker\"\n");
    }
    steps.push(Step::Write {
        path: systemd_dir.join(KUBELET_DROPIN),
        contents: kubelet,
    });
    steps.push(Step::Write {
        path: systemd_dir.join(CRIO_DROPIN),
        contents: format!("[Service]\nEnvironment=\"CONTAINER_STREAM_ADDRESS={node_ip}\"\n"),
    });
    let mut written: Vec<PathBuf> = Vec::new();
    for &ip in addresses.iter().take(2) {
        let path = files.family_file(ip);
        if !written.contains(&path) {
            written.push(path.clone());
            steps.push(Step::Write {
                path,
                contents: go_text(ip),
            });
        }
    }
    // A family file a killed earlier run of this boot left, for a family not chosen now.
    for path in [files.ipv4(), files.ipv6()] {
        if !written.contains(&path) {
            steps.push(Step::Remove { path });
        }
    }
    // Last: it is the marker that the whole set is written (see `previous_choice`).
    steps.push(Step::Write {
        path: files.primary_ip(),
        contents: node_ip,
    });
    steps
}

/// Performs the steps; each write is atomic with mode 0644 and creates missing directories.
pub fn apply(steps: &[Step]) -> io::Result<()> {
    for step in steps {
        match step {
            Step::Write { path, contents } => write_atomic(path, contents.as_bytes(), FILE_MODE)
                .map_err(|e| {
                    io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display()))
                })?,
            Step::Remove { path } => match std::fs::remove_file(path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    return Err(io::Error::new(
                        e.kind(),
                        format!("cannot remove {}: {e}", path.display()),
                    ));
                }
                _ => {}
            },
        }
    }
    Ok(())
}

/// The node IP an earlier complete `set` of this boot recorded, if any.
///
/// Complete means `primary-ip` holds one address and the family file of that address holds
/// one too (upstream writes both in every run). A run cut off in between is redone rather than
/// leaving the family file missing for the rest of the boot. Unreadable content is reported and
/// treated as absent, as upstream does.
pub fn previous_choice(files: &NodeIpFiles) -> Option<IpAddr> {
    let read = |p: &Path| match read_ip_file(p) {
        Ok(ip) => ip,
        Err(e) => {
            tracing::warn!("ignoring {e}");
            None
        }
    };
    let primary = read(&files.primary_ip())?;
    match read(&files.family_file(primary)) {
        Some(_) => Some(primary),
        None => {
            tracing::warn!(
                "{} exists but {} does not: completing an interrupted run",
                files.primary_ip().display(),
                files.family_file(primary).display()
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ips(list: &[&str]) -> Vec<IpAddr> {
        list.iter().map(|s| s.parse().unwrap()).collect()
    }

    fn writes(steps: &[Step]) -> Vec<(String, String)> {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::Write { path, contents } => {
                    Some((path.display().to_string(), contents.clone()))
                }
                Step::Remove { .. } => None,
            })
            .collect()
    }

    #[test]
    fn dual_stack_plan_is_byte_exact_with_primary_ip_last() {
        let files = NodeIpFiles::new("/run/nodeip-configuration");
        let steps = plan(
            &ips(&["192.0.2.10", "2001:db8::10"]),
            false,
            &files,
            Path::new("/etc/systemd/system"),
        );
        assert_eq!(
            steps[0],
            Step::Remove {
                path: "/run/nodeip-configuration/remote-worker".into()
            }
        );
        assert_eq!(
            writes(&steps),
            [
                (
                    "/etc/systemd/system/kubelet.service.d/20-nodenet.conf".to_string(),
                    "[Service]\nEnvironment=\"KUBELET_NODE_IP=192.0.2.10\" \"KUBELET_NODE_IPS=192.0.2.10,2001:db8::10\"\n"
                        .to_string()
                ),
                (
                    "/etc/systemd/system/crio.service.d/20-nodenet.conf".into(),
                    "[Service]\nEnvironment=\"CONTAINER_STREAM_ADDRESS=192.0.2.10\"\n".into()
                ),
                ("/run/nodeip-configuration/ipv4".into(), "192.0.2.10".into()),
                ("/run/nodeip-configuration/ipv6".into(), "2001:db8::10".into()),
                ("/run/nodeip-configuration/primary-ip".into(), "192.0.2.10".into()),
            ]
        );
    }

    #[test]
    fn remote_worker_plan_labels_kubelet_and_writes_the_marker_first() {
        let files = NodeIpFiles::new("/r");
        let steps = plan(&ips(&["2001:db8::10"]), true, &files, Path::new("/s"));
        let w = writes(&steps);
        assert_eq!(
            w[0],
            (
                "/r/remote-worker".into(),
                "node ip doesn't match any vip, don't run keepalived".into()
            )
        );
        assert_eq!(
            w[1].1,
            "[Service]\nEnvironment=\"KUBELET_NODE_IP=2001:db8::10\" \"KUBELET_NODE_IPS=2001:db8::10\"\n\
             Environment=\"CUSTOM_KUBELET_LABELS=node.openshift.io/remote-worker\"\n"
        );
        assert_eq!(
            w.last().unwrap(),
            &("/r/primary-ip".to_string(), "2001:db8::10".to_string())
        );
        assert!(w.contains(&("/r/ipv6".to_string(), "2001:db8::10".to_string())));
        assert!(!w.iter().any(|(p, _)| p == "/r/ipv4"));
        assert!(steps.contains(&Step::Remove {
            path: "/r/ipv4".into()
        }));
    }

    #[test]
    fn mapped_primary_goes_to_ipv4_as_a_dotted_quad() {
        let files = NodeIpFiles::new("/r");
        let w = writes(&plan(
            &ips(&["::ffff:192.0.2.9"]),
            false,
            &files,
            Path::new("/s"),
        ));
        assert!(w.contains(&("/r/ipv4".into(), "192.0.2.9".into())));
        assert!(w.contains(&("/r/primary-ip".into(), "192.0.2.9".into())));
    }

    #[test]
    fn a_run_killed_after_any_step_is_redone_by_the_next() {
        let d = tempfile::tempdir().unwrap();
        let files = NodeIpFiles::new(d.path().join("run"));
        let systemd = d.path().join("systemd");
        let steps = plan(
            &ips(&["192.0.2.10", "2001:db8::10"]),
            false,
            &files,
            &systemd,
        );
        for killed_after in 0..steps.len() {
            let _ = std::fs::remove_dir_all(d.path().join("run"));
            apply(&steps[..killed_after]).unwrap();
            assert_eq!(
                previous_choice(&files),
                None,
                "killed after {killed_after} steps"
            );
        }
        apply(&steps).unwrap();
        assert_eq!(previous_choice(&files), Some("192.0.2.10".parse().unwrap()));
        assert_eq!(
            std::fs::read_to_string(files.ipv6()).unwrap(),
            "2001:db8::10"
        );
    }

    #[test]
    fn previous_choice_needs_primary_and_its_family_file() {
        let d = tempfile::tempdir().unwrap();
        let files = NodeIpFiles::new(d.path());
        assert_eq!(previous_choice(&files), None);
        std::fs::write(files.primary_ip(), "192.0.2.10").unwrap();
        assert_eq!(
            previous_choice(&files),
            None,
            "ipv4 missing: interrupted run"
        );
        std::fs::write(files.ipv4(), "192.0.2.10").unwrap();
        assert_eq!(previous_choice(&files), Some("192.0.2.10".parse().unwrap()));
        std::fs::write(files.primary_ip(), "garbage").unwrap();
        assert_eq!(previous_choice(&files), None);
    }
}
