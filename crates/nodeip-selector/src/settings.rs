//! One validated settings struct from the TOML file, the flags (which win) and the hint file.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

pub use selection::app::UsageError;
use selection::app::load_config;
use selection::runfiles::{DEFAULT_RUN_DIR, NodeIpFiles};
use selection::select::{OVN_KUBERNETES, has_both_families};
use selection::{Request, Target, TargetRole};
use serde::Deserialize;

use crate::cli::SelectArgs;
use selection::envfile;

/// Optional settings file.
pub const DEFAULT_CONFIG: &str = "/etc/nodeip-selector/config.toml";
/// The environment file MCO and admins use for `NODEIP_HINT`.
pub const DEFAULT_HINT_FILE: &str = "/etc/default/nodeip-configuration";
/// Where the kubelet and crio drop-ins go.
pub const DEFAULT_SYSTEMD_DIR: &str = "/etc/systemd/system";

/// The config file; every key mirrors a flag.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ConfigFile {
    ips: Option<Vec<String>>,
    prefer_ipv6: Option<bool>,
    network_type: Option<String>,
    retry_on_failure: Option<bool>,
    user_managed_lb: Option<bool>,
    platform: Option<String>,
    dual_stack: Option<bool>,
    hint_file: Option<PathBuf>,
    run_dir: Option<PathBuf>,
    systemd_dir: Option<PathBuf>,
}

/// Everything a command needs, validated.
#[derive(Clone, Debug)]
pub struct Settings {
    pub request: Request,
    pub retry: bool,
    pub user_managed_lb: bool,
    pub platform: String,
    /// Explicit, or implied because the positional IPs hold both families.
    pub dual_stack: bool,
    pub hint_file: PathBuf,
    pub files: NodeIpFiles,
    pub systemd_dir: PathBuf,
}

impl Settings {
    /// VIPs are configured (the on-prem IPI unit's positional addresses); without them
    /// (vSphere UPI) keepalived does not run on the node.
    pub fn has_vips(&self) -> bool {
        self.request
            .targets
            .iter()
            .any(|t| t.role == TargetRole::Vip)
    }

    /// Upstream's remote-worker rule: VIPs (or a hint) were given, none matched, the load
    /// balancer is OpenShift-managed and the platform is bare metal.
    pub fn is_remote_worker(&self, matched_vips: bool) -> bool {
        !self.request.targets.is_empty()
            && !matched_vips
            && !self.user_managed_lb
            && self.platform.eq_ignore_ascii_case("baremetal")
    }
}

/// Merges `args` over the config file (`default_config` is read only when it exists and no
/// `--config` was given) and reads the hint file.
pub fn resolve(args: &SelectArgs, default_config: &Path) -> Result<Settings, UsageError> {
    let (cfg, cfg_path): (ConfigFile, _) = load_config(args.config.as_deref(), default_config)?;

    let hint_file = args
        .hint_file
        .clone()
        .or(cfg.hint_file)
        .unwrap_or_else(|| DEFAULT_HINT_FILE.into());
    let mut targets: Vec<Target> = read_hints(&hint_file)?
        .into_iter()
        .map(|ip| Target {
            ip,
            role: TargetRole::Hint,
        })
        .collect();

    let vips = vips(args, cfg.ips.as_deref(), cfg_path.as_deref())?;
    targets.extend(vips.into_iter().map(|ip| Target {
        ip,
        role: TargetRole::Vip,
    }));
    // Upstream's positional list holds the hint too (MCO prepends it).
    let positional: Vec<IpAddr> = targets.iter().map(|t| t.ip).collect();
    let implied_dual = has_both_families(&positional);

    Ok(Settings {
        request: Request {
            targets,
            prefer_ipv6: args.prefer_ipv6 || cfg.prefer_ipv6.unwrap_or(false),
            network_type: args
                .network_type
                .clone()
                .or(cfg.network_type)
                .unwrap_or_else(|| OVN_KUBERNETES.into()),
        },
        retry: args.retry_on_failure || cfg.retry_on_failure.unwrap_or(false),
        user_managed_lb: args.user_managed_lb || cfg.user_managed_lb.unwrap_or(false),
        platform: args.platform.clone().or(cfg.platform).unwrap_or_default(),
        dual_stack: args.dual_stack || cfg.dual_stack.unwrap_or(false) || implied_dual,
        hint_file,
        files: NodeIpFiles::new(
            args.run_dir
                .clone()
                .or(cfg.run_dir)
                .unwrap_or_else(|| DEFAULT_RUN_DIR.into()),
        ),
        systemd_dir: args
            .systemd_dir
            .clone()
            .or(cfg.systemd_dir)
            .unwrap_or_else(|| DEFAULT_SYSTEMD_DIR.into()),
    })
}

/// The VIPs: the positional arguments, else the config file's `ips`; an invalid one is named
/// with where it came from.
fn vips(
    args: &SelectArgs,
    from_file: Option<&[String]>,
    cfg_path: Option<&Path>,
) -> Result<Vec<IpAddr>, UsageError> {
    if !args.ips.is_empty() {
        return args
            .ips
            .iter()
            .enumerate()
            .map(|(i, v)| parse_ip(v, || format!("argument {}", i + 1)))
            .collect();
    }
    let shown = cfg_path.unwrap_or(Path::new("")).display().to_string();
    from_file
        .unwrap_or_default()
        .iter()
        .map(|v| parse_ip(v, || format!("key ips of {shown}")))
        .collect()
}

/// `NODEIP_HINT`, else `KUBELET_NODEIP_HINT` (`${NODEIP_HINT:-${KUBELET_NODEIP_HINT:-}}`).
/// Upstream expands the value unquoted on a command line, so several whitespace-separated
/// addresses are several hints; we keep that.
fn read_hints(path: &Path) -> Result<Vec<IpAddr>, UsageError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(UsageError(format!(
                "cannot read hint file {}: {e}",
                path.display()
            )));
        }
    };
    // Read as systemd reads it for upstream's unit and kubelet's: a line systemd skips is a
    // warning, not a reason to keep kubelet from starting.
    let env = envfile::parse(&text);
    for skipped in &env.skipped {
        tracing::warn!("hint file {}: {skipped}", path.display());
    }
    let hint = ["NODEIP_HINT", "KUBELET_NODEIP_HINT"]
        .iter()
        .find_map(|k| env.get(k).filter(|a| !a.value.trim().is_empty()));
    let Some(hint) = hint else {
        return Ok(Vec::new());
    };
    hint.value
        .split_whitespace()
        .map(|v| {
            parse_ip(v, || {
                format!("{} ({} line {})", hint.key, path.display(), hint.line)
            })
        })
        .collect()
}

/// Go's `net.ParseIP` accepts the same text as Rust's parser: no zones, no leading zeros.
fn parse_ip(value: &str, origin: impl FnOnce() -> String) -> Result<IpAddr, UsageError> {
    value
        .parse()
        .map_err(|_| UsageError(format!("invalid IP address {value:?} in {}", origin())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(argv: &[&str]) -> SelectArgs {
        let mut full = vec!["nodeip-selector", "show"];
        full.extend_from_slice(argv);
        match crate::cli::Cli::parse_from(full).command {
            crate::cli::Command::Show { select, .. } => select,
            _ => unreachable!(),
        }
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn hint_comes_first_then_positional_vips_and_flags_win_over_config() {
        let d = tempfile::tempdir().unwrap();
        let hint = write(d.path(), "hint", "NODEIP_HINT=198.51.100.1\n");
        let cfg = write(
            d.path(),
            "c.toml",
            "ips = [\"203.0.113.5\"]\nplatform = \"BareMetal\"\nnetwork-type = \"OpenShiftSDN\"\nrun-dir = \"/x\"\n",
        );
        let h = hint.to_str().unwrap();
        let c = cfg.to_str().unwrap();
        let s = resolve(
            &args(&["--hint-file", h, "--config", c, "-n", "Other", "192.0.2.5"]),
            d.path(),
        )
        .unwrap();
        let t: Vec<String> = s
            .request
            .targets
            .iter()
            .map(|t| format!("{:?}:{}", t.role, t.ip))
            .collect();
        assert_eq!(t, ["Hint:198.51.100.1", "Vip:192.0.2.5"]);
        assert_eq!(s.request.network_type, "Other");
        assert_eq!(s.platform, "BareMetal");
        assert_eq!(s.files.dir(), Path::new("/x"));
        // Without positional IPs the config's ips are used.
        let s = resolve(&args(&["--hint-file", h, "--config", c]), d.path()).unwrap();
        assert_eq!(s.request.targets[1].ip.to_string(), "203.0.113.5");
        assert!(!s.dual_stack);
    }

    #[test]
    fn defaults_match_upstream_and_both_families_imply_dual_stack() {
        let d = tempfile::tempdir().unwrap();
        let none = d.path().join("absent");
        let s = resolve(
            &args(&[
                "--hint-file",
                none.to_str().unwrap(),
                "192.0.2.1",
                "2001:db8::1",
            ]),
            &none,
        )
        .unwrap();
        assert_eq!(s.request.network_type, "OVNKubernetes");
        assert!(s.dual_stack && !s.retry && !s.request.prefer_ipv6);
        assert_eq!(s.files.dir(), Path::new("/run/nodeip-configuration"));
        assert_eq!(s.systemd_dir, Path::new("/etc/systemd/system"));
    }

    #[test]
    fn kubelet_hint_is_the_fallback_and_empty_hints_are_ignored() {
        let d = tempfile::tempdir().unwrap();
        let h = write(
            d.path(),
            "h",
            "NODEIP_HINT=\nKUBELET_NODEIP_HINT=\"192.0.2.1 198.51.100.1\"\n",
        );
        let s = resolve(
            &args(&["--hint-file", h.to_str().unwrap()]),
            &d.path().join("absent"),
        )
        .unwrap();
        assert_eq!(s.request.targets.len(), 2);
        assert!(s.request.targets.iter().all(|t| t.role == TargetRole::Hint));
        // An IPv6 VIP with an IPv4 hint implies dual-stack.
        let h = write(d.path(), "h3", "NODEIP_HINT=192.0.2.1\n");
        let s = resolve(
            &args(&["--hint-file", h.to_str().unwrap(), "2001:db8::1"]),
            &d.path().join("absent"),
        )
        .unwrap();
        assert!(s.dual_stack);
    }

    #[test]
    fn bad_values_name_the_value_and_where_it_came_from() {
        let d = tempfile::tempdir().unwrap();
        let none = d.path().join("absent");
        let n = none.to_str().unwrap();
        let err = |a: &[&str]| resolve(&args(a), &none).unwrap_err().to_string();
        assert_eq!(
            err(&["--hint-file", n, "192.0.2.1", "eth0"]),
            "invalid IP address \"eth0\" in argument 2"
        );
        assert!(err(&["--hint-file", n, "192.0.2.01"]).contains("\"192.0.2.01\""));
        assert!(err(&["--hint-file", n, "fe80::1%eth0"]).contains("fe80::1%eth0"));

        let h = write(d.path(), "h", "# x\nNODEIP_HINT=192.0.2.999\n");
        let e = err(&["--hint-file", h.to_str().unwrap()]);
        assert_eq!(
            e,
            format!(
                "invalid IP address \"192.0.2.999\" in NODEIP_HINT ({} line 2)",
                h.display()
            )
        );
        // A line systemd's EnvironmentFile= skips is skipped here too (warned), as upstream's
        // unit and kubelet never see it: the hint after it still applies.
        let h = write(d.path(), "h2", "192.0.2.1\nNODEIP_HINT=192.0.2.7\n");
        let s = resolve(&args(&["--hint-file", h.to_str().unwrap()]), &none).unwrap();
        let hints: Vec<IpAddr> = s.request.targets.iter().map(|t| t.ip).collect();
        assert_eq!(hints, ["192.0.2.7".parse::<IpAddr>().unwrap()]);

        let c = write(
            d.path(),
            "c.toml",
            "platform = \"baremetal\"\nretry-on-falure = true\n",
        );
        let e = err(&["--hint-file", n, "--config", c.to_str().unwrap()]);
        assert!(e.contains("line 2") && e.contains("retry-on-falure"), "{e}");
        let c = write(d.path(), "c2.toml", "prefer-ipv6 = \"yes\"\n");
        let e = err(&["--hint-file", n, "--config", c.to_str().unwrap()]);
        assert!(e.contains("invalid config") && e.contains("line 1"), "{e}");
        let c = write(d.path(), "c3.toml", "ips = [\"192.0.2.1\", \"nope\"]\n");
        let e = err(&["--hint-file", n, "--config", c.to_str().unwrap()]);
        assert_eq!(
            e,
            format!("invalid IP address \"nope\" in key ips of {}", c.display())
        );
        let e = err(&["--hint-file", n, "--config", "/nonexistent/c.toml"]);
        assert!(
            e.starts_with("cannot read config /nonexistent/c.toml"),
            "{e}"
        );
    }

    #[test]
    fn remote_worker_rule() {
        let d = tempfile::tempdir().unwrap();
        let n = d.path().join("absent");
        let n = n.to_str().unwrap();
        let s = |a: &[&str]| resolve(&args(a), &d.path().join("absent")).unwrap();
        assert!(s(&["--hint-file", n, "-p", "BareMetal", "192.0.2.1"]).is_remote_worker(false));
        assert!(!s(&["--hint-file", n, "-p", "BareMetal", "192.0.2.1"]).is_remote_worker(true));
        assert!(
            !s(&["--hint-file", n, "-p", "BareMetal", "-l", "192.0.2.1"]).is_remote_worker(false)
        );
        assert!(!s(&["--hint-file", n, "-p", "VSphere", "192.0.2.1"]).is_remote_worker(false));
        assert!(!s(&["--hint-file", n, "-p", "BareMetal"]).is_remote_worker(false));
    }
}
