//! The check scripts keepalived.conf's `vrrp_script`s run, written where keepalived reads them.
//! Upstream renders MCO's `*.sh.tmpl` into `/etc/keepalived` from the keepalived pod's init
//! container, with `chroot /host` around crictl because the scripts run in the pod; keepalived
//! runs on the host here, so the scripts call the host's tools directly. Without them the
//! +20/+5/+3/+50 weights never apply and the VIP stops following a healthy HAProxy, API server,
//! machine-config-server or router.

use std::collections::BTreeMap;
use std::path::Path;

use selection::atomic::write_atomic;

use crate::model::Script;

/// HAProxy answers `haproxy_ready` and its API redirect rule is in place (`chk_ocp_lb`, +20).
pub const OCP: &str = "chk_ocp_script.sh";
/// The same, or the local API server is ready (`chk_ocp_both`, +5).
pub const OCP_BOTH: &str = "chk_ocp_script_both.sh";
/// A machine-config-server container runs here (`chk_mcs`, +3).
pub const MCS: &str = "chk_mcs_script.sh";
/// A default router pod is Ready here (`chk_default_ingress`, +50).
pub const DEFAULT_INGRESS: &str = "chk_default_ingress.sh";

/// The flag [`crate::redirect`] keeps in step with HAProxy's API redirect rules (upstream:
/// `/var/run/keepalived/`).
pub const REDIRECT_FLAG: &str = "iptables-rule-exists";

/// HAProxy's readiness endpoint on masters (MCO's haproxy template: `:::9444`).
const HAPROXY_READY: &str = "http://localhost:9444/haproxy_ready";

/// The scripts' names and texts (pure): the redirect flag lives in `run_dir`, the local API
/// server listens on `api_port`.
pub fn render(run_dir: &Path, api_port: u16) -> [(&'static str, String); 4] {
    let flag = run_dir.join(REDIRECT_FLAG);
    let lb = format!(
        "/usr/bin/curl -o /dev/null -kLfs {HAPROXY_READY} && [ -e {} ]",
        flag.display()
    );
    let readyz = format!("/usr/bin/curl -o /dev/null -kLfs https://localhost:{api_port}/readyz");
    let script = |what: &str, body: &str| {
        format!(
            "#!/bin/bash\n# Written by keepalived-monitor at start; edits are overwritten.\n\
             # {what}\n{body}\n"
        )
    };
    [
        (
            OCP,
            script(
                "chk_ocp_lb: HAProxy is ready and its API redirect rule is in place.",
                &lb,
            ),
        ),
        (
            OCP_BOTH,
            script(
                "chk_ocp_both: chk_ocp_lb's condition, or the local API server is ready.",
                &format!("{{ {lb}; }} || {readyz}"),
            ),
        ),
        (
            MCS,
            script(
                "chk_mcs: a machine-config-server container runs on this node.",
                "/usr/bin/crictl ps --state running --name '^machine-config-server$' --quiet \
                 | /usr/bin/grep -q .",
            ),
        ),
        (
            DEFAULT_INGRESS,
            script(
                "chk_default_ingress: a default router pod is Ready on this node.",
                "/usr/bin/crictl pods --namespace openshift-ingress --state Ready \
                 --name '^router-default-[[:alnum:]]{5,}-[[:alnum:]]{5,}$' --quiet \
                 | /usr/bin/grep -q .",
            ),
        ),
    ]
}

fn script(command: &str, interval: u32, weight: Option<i32>, rise: u32, fall: u32) -> Script {
    Script {
        command: command.into(),
        interval,
        weight,
        rise,
        fall,
    }
}

/// The reference's check scripts and weights (MCO's master template): the `vrrp_script`s that
/// run the files [`write`] puts into `keepalived_dir`, and two curls of the router's health port.
pub fn default_scripts(keepalived_dir: &Path) -> BTreeMap<String, Script> {
    let file = |name: &str, timeout: &str| {
        format!(
            "/usr/bin/timeout {timeout} {}",
            keepalived_dir.join(name).display()
        )
    };
    [
        ("chk_ocp_lb", script(&file(OCP, "1.9"), 2, Some(20), 3, 3)),
        ("chk_ocp_both", script(&file(OCP_BOTH, "1.9"), 2, Some(5), 3, 3)),
        ("chk_mcs", script(&file(MCS, "1.9"), 2, Some(3), 3, 3)),
        (
            "chk_ingress_ready",
            script("/usr/bin/timeout 0.9 /usr/bin/curl -o /dev/null -Lfs http://localhost:1936/healthz/ready", 1, Some(10), 3, 2),
        ),
        ("chk_ingress", script("/usr/bin/timeout 0.9 /usr/bin/curl -o /dev/null -Lfs http://localhost:1936/healthz", 1, None, 3, 2)),
        ("chk_default_ingress", script(&file(DEFAULT_INGRESS, "4.9"), 5, Some(50), 3, 2)),
    ]
    .into_iter()
    .map(|(n, s)| (n.to_string(), s))
    .collect()
}

/// A check script that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the check script {}: {source}", path.display())]
pub struct WriteError {
    path: std::path::PathBuf,
    source: std::io::Error,
}

/// Writes `scripts` into `dir` (mode 0755, owned by root: keepalived's `enable_script_security`
/// refuses anything others can write), each only when it differs.
pub fn write(dir: &Path, scripts: &[(&str, String)]) -> Result<(), WriteError> {
    for (name, text) in scripts {
        let path = dir.join(name);
        if !same(&path, text) {
            write_atomic(&path, text.as_bytes(), 0o755).map_err(|source| WriteError {
                path: path.clone(),
                source,
            })?;
            tracing::info!("wrote {}", path.display());
        }
    }
    Ok(())
}

/// Whether `path` holds `text` with mode 0755 already.
fn same(path: &Path, text: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o7777 == 0o755)
        && std::fs::read(path).is_ok_and(|b| b == text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scripts() -> [(&'static str, String); 4] {
        render(Path::new("/run/keepalived"), 7443)
    }

    #[test]
    fn the_scripts_call_the_hosts_tools_with_the_api_port_and_the_flag() {
        let [ocp, both, mcs, ingress] = scripts();
        assert_eq!(
            ocp.1,
            "#!/bin/bash\n# Written by keepalived-monitor at start; edits are overwritten.\n\
             # chk_ocp_lb: HAProxy is ready and its API redirect rule is in place.\n\
             /usr/bin/curl -o /dev/null -kLfs http://localhost:9444/haproxy_ready \
             && [ -e /run/keepalived/iptables-rule-exists ]\n"
        );
        assert!(
            both.1.ends_with(
                "{ /usr/bin/curl -o /dev/null -kLfs http://localhost:9444/haproxy_ready \
                 && [ -e /run/keepalived/iptables-rule-exists ]; } \
                 || /usr/bin/curl -o /dev/null -kLfs https://localhost:7443/readyz\n"
            ),
            "{}",
            both.1
        );
        for (name, text) in [&mcs, &ingress] {
            assert!(!text.contains("chroot"), "{name}: runs on the host");
            assert!(text.contains("/usr/bin/crictl "), "{name}");
        }
        assert_eq!(
            [ocp.0, both.0, mcs.0, ingress.0],
            [
                "chk_ocp_script.sh",
                "chk_ocp_script_both.sh",
                "chk_mcs_script.sh",
                "chk_default_ingress.sh"
            ]
        );
    }

    #[test]
    fn the_scripts_are_written_executable_and_rewritten_only_when_they_differ() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        write(d.path(), &scripts()).unwrap();
        for (name, text) in scripts() {
            let p = d.path().join(name);
            assert_eq!(std::fs::read_to_string(&p).unwrap(), text);
            let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777;
            assert_eq!(mode, 0o755, "{name}");
        }
        let p = d.path().join(OCP);
        let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
        let before = inode(&p);
        write(d.path(), &scripts()).unwrap();
        assert_eq!(inode(&p), before, "unchanged: not rewritten");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o777)).unwrap();
        write(d.path(), &scripts()).unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o755, "a loosened mode is repaired");
    }

    /// Each script runs under bash: a syntax error would be a check that always fails.
    #[test]
    fn the_scripts_are_valid_bash() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), &scripts()).unwrap();
        for (name, _) in scripts() {
            let out = std::process::Command::new("bash")
                .arg("-n")
                .arg(d.path().join(name))
                .output()
                .unwrap();
            assert!(out.status.success(), "{name}: {out:?}");
        }
    }
}
