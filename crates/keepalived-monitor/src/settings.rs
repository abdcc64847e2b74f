//! Settings: `/etc/keepalived-monitor/config.toml` (the file MCO templates per role) and flags
//! (which win). Unknown keys and invalid values are errors naming the key.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use selection::app::{UsageError, load_config};
use selection::runfiles::NodeIpFiles;
use serde::Deserialize;

use crate::check_scripts::default_scripts;
use crate::cli::{ReloadMethod, SettingsArgs};
use crate::model::{Mode, Role, Script};

pub const DEFAULT_CONFIG: &str = "/etc/keepalived-monitor/config.toml";

/// Where the peer list comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PeerSource {
    /// Node objects watched through this kubeconfig (the default on a cluster).
    Kubernetes(PathBuf),
    /// A TOML list, watched (clusters without an API, tests).
    File(PathBuf),
}

/// `peer-source`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum PeerSourceKind {
    Kubernetes,
    File,
}

/// How keepalived is told to load a new file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reload {
    /// `ReloadUnit` (or `StartUnit` when inactive) of `keepalived.service` over D-Bus.
    Systemd,
    /// SIGHUP to the pid in keepalived's pid file.
    Pidfile(PathBuf),
    /// `reload\n` on the static-pod layout's control socket.
    Socket(PathBuf),
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ConfigFile {
    cluster_name: Option<String>,
    base_domain: Option<String>,
    role: Option<Role>,
    api_vips: Option<Vec<IpAddr>>,
    ingress_vips: Option<Vec<IpAddr>>,
    platform: Option<String>,
    control_plane_topology: Option<String>,
    output: Option<PathBuf>,
    mode: Option<Mode>,
    keepalived_dir: Option<PathBuf>,
    peers_file: Option<PathBuf>,
    peer_source: Option<PeerSourceKind>,
    kubeconfig: Option<PathBuf>,
    reload: Option<ReloadMethod>,
    pid_file: Option<PathBuf>,
    control_socket: Option<PathBuf>,
    debounce_ms: Option<u64>,
    api_port: Option<u16>,
    run_dir: Option<PathBuf>,
    keepalived_run_dir: Option<PathBuf>,
    user_managed_lb: Option<bool>,
    scripts: Option<BTreeMap<String, ScriptOverride>>,
}

/// `[scripts.<name>]`: each key given replaces only that key of the default check.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptOverride {
    command: Option<String>,
    interval: Option<u32>,
    weight: Option<i32>,
    rise: Option<u32>,
    fall: Option<u32>,
}

impl ScriptOverride {
    fn apply(&self, s: &mut Script) {
        if let Some(command) = &self.command {
            s.command.clone_from(command);
        }
        s.interval = self.interval.unwrap_or(s.interval);
        s.weight = self.weight.or(s.weight);
        s.rise = self.rise.unwrap_or(s.rise);
        s.fall = self.fall.unwrap_or(s.fall);
    }
}

/// Validated settings.
#[derive(Clone, Debug)]
pub struct Settings {
    pub cluster_name: String,
    pub role: Role,
    pub api_vips: Vec<IpAddr>,
    pub ingress_vips: Vec<IpAddr>,
    pub platform: String,
    pub topology: String,
    pub output: PathBuf,
    /// Mode when no mode file says otherwise.
    pub mode: Mode,
    /// Where upstream's mode files live (`monitor-user.conf`, `monitor.conf`).
    pub keepalived_dir: PathBuf,
    pub peers: PeerSource,
    pub reload: Reload,
    pub debounce: Duration,
    /// The local kube-apiserver's port, for the bootstrap watchdog's `/readyz`.
    pub api_port: u16,
    /// `/run/nodeip-configuration`.
    pub run_dir: PathBuf,
    /// `/run/keepalived`: shared with keepalived.service (its `TMPDIR`, so its SIGUSR1 data
    /// dump lands here) and its drop-in (the `rendered` marker it starts on).
    pub keepalived_run_dir: PathBuf,
    /// The cluster's API and ingress load balancer is the user's: keepalived is not used
    /// (upstream moves the keepalived static pod to `disabled-manifests`).
    pub user_managed_lb: bool,
    /// Health checks by name (defaults: the reference's, with its weights).
    pub scripts: BTreeMap<String, Script>,
}

impl Settings {
    /// The node-IP files nodeip-selector writes under `run_dir`.
    pub fn node_ip_files(&self) -> NodeIpFiles {
        NodeIpFiles::new(&self.run_dir)
    }

    /// `monitor-user.conf` wins over `monitor.conf`.
    pub fn mode_files(&self) -> [PathBuf; 2] {
        [
            self.keepalived_dir.join("monitor-user.conf"),
            self.keepalived_dir.join("monitor.conf"),
        ]
    }
}

/// The cluster name: `cluster-name`, else the first label of `base-domain` (MCO's
/// `DNS.Spec.BaseDomain` is `<cluster name>.<base domain>`, and runtimecfg takes the same label
/// from `api-int.<name>.<domain>`). MCO's template engine has no string split, so its template
/// passes the domain and the name is derived here.
fn cluster_name(
    args: &SettingsArgs,
    cfg: &ConfigFile,
    origin: &dyn Fn(&str) -> String,
) -> Result<String, UsageError> {
    let valid = |name: &str| {
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if let Some(name) = args.cluster_name.as_ref().or(cfg.cluster_name.as_ref()) {
        if !valid(name) {
            return Err(UsageError(format!(
                "invalid {} {name:?}: a cluster name of letters, digits and '-' is required",
                origin("cluster-name")
            )));
        }
        return Ok(name.clone());
    }
    let Some(domain) = args.base_domain.as_ref().or(cfg.base_domain.as_ref()) else {
        return Err(UsageError(format!(
            "no cluster name: set {} or {}",
            origin("cluster-name"),
            origin("base-domain")
        )));
    };
    let first = domain.split('.').next().unwrap_or_default();
    if !valid(first) || !domain.contains('.') {
        return Err(UsageError(format!(
            "invalid {} {domain:?}: expected <cluster name>.<domain>, the cluster name of \
             letters, digits and '-'",
            origin("base-domain")
        )));
    }
    Ok(first.to_owned())
}

/// The settings from the flags over the config file over the defaults, each checked; an error
/// names the flag or the file's key.
pub fn resolve(args: &SettingsArgs, default_config: &Path) -> Result<Settings, UsageError> {
    let (cfg, path): (ConfigFile, _) = load_config(args.config.as_deref(), default_config)?;
    let origin = |key: &str| match &path {
        Some(p) => format!("{key} in {}", p.display()),
        None => format!("--{key}"),
    };
    let cluster_name = cluster_name(args, &cfg, &origin)?;
    let user_managed_lb = cfg.user_managed_lb.unwrap_or(false);
    let (api_vips, ingress_vips) = vips(args, &cfg, user_managed_lb, &origin)?;
    let role = args.role.or(cfg.role).unwrap_or(Role::Master);
    let reload = reload(args, &cfg, role, &origin)?;
    let keepalived_dir = cfg
        .keepalived_dir
        .clone()
        .unwrap_or_else(|| "/etc/keepalived".into());
    let scripts = scripts(&cfg, &keepalived_dir, &origin)?;
    Ok(Settings {
        cluster_name,
        role,
        api_vips,
        ingress_vips,
        peers: peer_source(args, &cfg),
        platform: cfg.platform.unwrap_or_default(),
        topology: cfg
            .control_plane_topology
            .unwrap_or_else(|| "HighlyAvailable".into()),
        output: args
            .output
            .clone()
            .or(cfg.output)
            .unwrap_or_else(|| "/etc/keepalived/keepalived.conf".into()),
        mode: cfg.mode.unwrap_or(Mode::Unicast),
        keepalived_dir,
        reload,
        debounce: Duration::from_millis(cfg.debounce_ms.unwrap_or(3000)),
        api_port: cfg.api_port.unwrap_or(6443),
        run_dir: cfg
            .run_dir
            .unwrap_or_else(|| "/run/nodeip-configuration".into()),
        keepalived_run_dir: cfg
            .keepalived_run_dir
            .unwrap_or_else(|| "/run/keepalived".into()),
        user_managed_lb,
        scripts,
    })
}

/// The API and ingress VIPs (flags over the file): at most one per family each, and at least
/// one in all unless the user's load balancer serves them.
fn vips(
    args: &SettingsArgs,
    cfg: &ConfigFile,
    user_managed_lb: bool,
    origin: &dyn Fn(&str) -> String,
) -> Result<(Vec<IpAddr>, Vec<IpAddr>), UsageError> {
    let pick = |flags: &Vec<IpAddr>, file: &Option<Vec<IpAddr>>| {
        if flags.is_empty() {
            file.clone().unwrap_or_default()
        } else {
            flags.clone()
        }
    };
    let api_vips = pick(&args.api_vips, &cfg.api_vips);
    let ingress_vips = pick(&args.ingress_vips, &cfg.ingress_vips);
    for (key, list) in [("api-vips", &api_vips), ("ingress-vips", &ingress_vips)] {
        let v4 = list.iter().filter(|ip| ip.is_ipv4()).count();
        if v4 > 1 || list.len() - v4 > 1 {
            return Err(UsageError(format!(
                "invalid {}: at most one address per family",
                origin(key)
            )));
        }
    }
    // With the user's load balancer keepalived has nothing to do (the daemon exits at start), so
    // a node with no VIP at all (vSphere UPI, where MCO's templates find none) is valid.
    if !user_managed_lb && api_vips.is_empty() && ingress_vips.is_empty() {
        return Err(UsageError(format!(
            "no API or ingress VIP configured ({}, {})",
            origin("api-vips"),
            origin("ingress-vips")
        )));
    }
    Ok((api_vips, ingress_vips))
}

/// How keepalived is told to reload; a bootstrap node's must be able to start it again.
fn reload(
    args: &SettingsArgs,
    cfg: &ConfigFile,
    role: Role,
    origin: &dyn Fn(&str) -> String,
) -> Result<Reload, UsageError> {
    let reload = match args.reload.or(cfg.reload).unwrap_or(ReloadMethod::Systemd) {
        ReloadMethod::Systemd => Reload::Systemd,
        ReloadMethod::Pidfile => Reload::Pidfile(
            cfg.pid_file
                .clone()
                .unwrap_or_else(|| "/run/keepalived.pid".into()),
        ),
        ReloadMethod::Socket => Reload::Socket(
            cfg.control_socket
                .clone()
                .unwrap_or_else(|| "/var/run/keepalived/keepalived.sock".into()),
        ),
    };
    if role == Role::Bootstrap && matches!(reload, Reload::Pidfile(_)) {
        return Err(UsageError(format!(
            "invalid {} \"pidfile\" for role bootstrap: the API watchdog must be able to start \
             keepalived again (systemd or socket)",
            origin("reload")
        )));
    }
    Ok(reload)
}

/// Where the peers come from. `--peers FILE` always means the file source (upstream-style
/// `render --peers`).
fn peer_source(args: &SettingsArgs, cfg: &ConfigFile) -> PeerSource {
    match (args.peers_file.clone(), cfg.peer_source) {
        (Some(f), _) => PeerSource::File(f),
        (None, None | Some(PeerSourceKind::Kubernetes)) => PeerSource::Kubernetes(
            cfg.kubeconfig
                .clone()
                .unwrap_or_else(|| "/var/lib/kubelet/kubeconfig".into()),
        ),
        (None, Some(PeerSourceKind::File)) => PeerSource::File(
            cfg.peers_file
                .clone()
                .unwrap_or_else(|| "/etc/keepalived-monitor/peers.toml".into()),
        ),
    }
}

/// The default checks under `keepalived_dir` with the file's overrides; an override of a check
/// that does not exist is an error naming the checks that do.
fn scripts(
    cfg: &ConfigFile,
    keepalived_dir: &Path,
    origin: &dyn Fn(&str) -> String,
) -> Result<BTreeMap<String, Script>, UsageError> {
    let mut scripts = default_scripts(keepalived_dir);
    for (name, o) in cfg.scripts.iter().flatten() {
        let Some(script) = scripts.get_mut(name) else {
            let known: Vec<&str> = scripts.keys().map(String::as_str).collect();
            return Err(UsageError(format!(
                "invalid {}: no check {name:?} (the checks are {})",
                origin("scripts"),
                known.join(", ")
            )));
        };
        o.apply(script);
    }
    Ok(scripts)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    /// `resolve` over `render --config <file with text>` plus `flags`.
    fn resolve_with(text: &str, flags: &[&str]) -> anyhow::Result<Settings> {
        let d = tempfile::tempdir().unwrap();
        let cfg = d.path().join("config.toml");
        std::fs::write(&cfg, text).unwrap();
        let argv = [
            "keepalived-monitor",
            "render",
            "--config",
            cfg.to_str().unwrap(),
        ];
        let cli = Cli::try_parse_from(argv.iter().chain(flags))?;
        let Command::Render(args) = cli.command else {
            unreachable!("parsed a render command")
        };
        Ok(resolve(&args, &cfg)?)
    }

    /// The message `resolve_with` fails with.
    fn rejected(text: &str, flags: &[&str]) -> String {
        resolve_with(text, flags).unwrap_err().to_string()
    }

    const BASE: &str = "cluster-name = \"ostest\"\napi-vips = [\"192.0.2.5\"]\n";

    #[test]
    fn defaults_reproduce_the_reference() {
        let s = resolve_with(BASE, &[]).unwrap();
        assert_eq!(s.role, Role::Master);
        assert_eq!(s.mode, Mode::Unicast);
        assert_eq!(s.output, Path::new("/etc/keepalived/keepalived.conf"));
        assert_eq!(
            s.peers,
            PeerSource::Kubernetes("/var/lib/kubelet/kubeconfig".into())
        );
        assert_eq!(s.reload, Reload::Systemd);
        assert_eq!(s.debounce, Duration::from_secs(3));
        assert_eq!(s.api_port, 6443);
        assert_eq!(s.scripts, default_scripts(Path::new("/etc/keepalived")));
        assert_eq!(
            s.scripts["chk_mcs"].command,
            "/usr/bin/timeout 1.9 /etc/keepalived/chk_mcs_script.sh"
        );
        assert_eq!(s.keepalived_run_dir, Path::new("/run/keepalived"));
        assert!(!s.user_managed_lb);
        let s = resolve_with(BASE, &["--role", "worker", "--peers", "/p.toml"]).unwrap();
        assert_eq!(s.role, Role::Worker, "flags win");
        assert_eq!(s.peers, PeerSource::File("/p.toml".into()));
    }

    #[test]
    fn the_cluster_name_comes_from_the_base_domain_unless_given() {
        let vip = "api-vips = [\"192.0.2.5\"]\n";
        let s = resolve_with(
            &format!("base-domain = \"ostest.test.metalkube.org\"\n{vip}"),
            &[],
        )
        .unwrap();
        assert_eq!(s.cluster_name, "ostest");
        let s = resolve_with(
            &format!("base-domain = \"ostest.example.org\"\ncluster-name = \"other\"\n{vip}"),
            &[],
        )
        .unwrap();
        assert_eq!(s.cluster_name, "other", "an explicit name wins");
        let s = resolve_with(vip, &["--base-domain", "flagged.example.org"]).unwrap();
        assert_eq!(s.cluster_name, "flagged");
        for bad in ["example", ".example.org", "a_b.example.org", ""] {
            let e = rejected(&format!("base-domain = \"{bad}\"\n{vip}"), &[]);
            assert!(
                e.starts_with("invalid base-domain in ") && e.contains(&format!("{bad:?}")),
                "{bad}: {e}"
            );
        }
        let e = rejected(vip, &[]);
        assert!(
            e.starts_with("no cluster name: set cluster-name in "),
            "{e}"
        );
    }

    #[test]
    fn a_script_key_overrides_only_itself() {
        let s = resolve_with(
            &format!(
                "{BASE}[scripts.chk_ocp_lb]\ncommand = \"/bin/true\"\n[scripts.chk_mcs]\nfall = 9\n"
            ),
            &[],
        )
        .unwrap();
        let d = default_scripts(Path::new("/etc/keepalived"));
        let lb = &s.scripts["chk_ocp_lb"];
        assert_eq!(lb.command, "/bin/true");
        assert_eq!(
            (lb.interval, lb.weight, lb.rise, lb.fall),
            (
                d["chk_ocp_lb"].interval,
                d["chk_ocp_lb"].weight,
                d["chk_ocp_lb"].rise,
                d["chk_ocp_lb"].fall
            )
        );
        assert_eq!(s.scripts["chk_mcs"].fall, 9);
        assert_eq!(s.scripts["chk_mcs"].command, d["chk_mcs"].command);
        let e = rejected(&format!("{BASE}[scripts.chk_nope]\nfall = 1\n"), &[]);
        assert!(
            e.contains("no check \"chk_nope\" (the checks are chk_"),
            "{e}"
        );
    }

    #[test]
    fn bad_settings_name_the_key_and_the_file() {
        let e = rejected(&format!("{BASE}debounce-msec = 5\n"), &[]);
        assert!(
            e.contains("line 3") && e.contains("unknown field `debounce-msec`"),
            "{e}"
        );
        let e = rejected(&format!("{BASE}role = \"leader\"\n"), &[]);
        assert!(
            e.contains("line 3") && e.contains("unknown variant `leader`"),
            "{e}"
        );
        let e = rejected(&format!("{BASE}api-port = 70000\n"), &[]);
        assert!(e.contains("line 3"), "{e}");
        let e = rejected(&format!("{BASE}reload = \"hup\"\n"), &[]);
        assert!(
            e.contains("line 3") && e.contains("unknown variant `hup`, expected one of"),
            "{e}"
        );
        let e = rejected(&format!("{BASE}peer-source = \"etcd\"\n"), &[]);
        assert!(
            e.contains("line 3") && e.contains("unknown variant `etcd`"),
            "{e}"
        );
        let e = rejected(BASE, &["--reload", "hup"]);
        assert!(e.contains("invalid value 'hup' for '--reload"), "{e}");
        let e = rejected("cluster-name = \"a b\"\napi-vips = [\"192.0.2.5\"]\n", &[]);
        assert!(e.starts_with("invalid cluster-name in "), "{e}");
        let e = rejected(
            "cluster-name = \"x\"\napi-vips = [\"192.0.2.5\", \"192.0.2.6\"]\n",
            &[],
        );
        assert!(
            e.starts_with("invalid api-vips in ") && e.contains("one address per family"),
            "{e}"
        );
        let e = rejected("cluster-name = \"x\"\n", &[]);
        assert!(e.contains("no API or ingress VIP"), "{e}");
        // Unless keepalived is not used at all.
        let s = resolve_with("cluster-name = \"x\"\nuser-managed-lb = true\n", &[]).unwrap();
        assert!(s.user_managed_lb && s.api_vips.is_empty());
        let e = rejected(
            &format!("{BASE}role = \"bootstrap\"\nreload = \"pidfile\"\n"),
            &[],
        );
        assert!(e.contains("for role bootstrap"), "{e}");
    }
}
