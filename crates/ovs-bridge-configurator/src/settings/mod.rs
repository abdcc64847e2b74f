//! Settings: TOML (`/etc/ovs-bridge-configurator/config.toml`) and flags (which win); every
//! path the configurator touches, with the production default.

use std::path::PathBuf;
use std::time::Duration;

use selection::app::{UsageError, load_config};
use selection::runfiles::NodeIpFiles;
use serde::Deserialize;

mod args;
pub mod probe_name;

pub use args::SettingsArgs;
pub use probe_name::ProbeName;

pub const DEFAULT_CONFIG: &str = "/etc/ovs-bridge-configurator/config.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ConfigFile {
    persist: Option<bool>,
    retry_interval_secs: Option<u64>,
    checkpoint_timeout_secs: Option<u64>,
    live_checkpoint_timeout_secs: Option<u64>,
    activation_timeout_secs: Option<u64>,
    dbus_timeout_secs: Option<u64>,
    forwarding_timeout_secs: Option<u64>,
    live_probe_timeout_secs: Option<u64>,
    dns_probe_name: Option<String>,
    kubeconfig: Option<PathBuf>,
    node_name: Option<String>,
    activation_attempts: Option<u32>,
    run_dir: Option<PathBuf>,
    etc_dir: Option<PathBuf>,
    var_lib_dir: Option<PathBuf>,
    troubleshooting_dir: Option<PathBuf>,
}

/// Validated settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Write the profiles to /etc (`NM_CONN_SET_PATH=/etc/NetworkManager/system-connections`)
    /// instead of keeping them in memory (/run, the default).
    pub persist: bool,
    /// Retry the whole run after a failure (upstream: every 15 minutes, forever); `None`: no retry.
    pub retry: Option<Duration>,
    /// NetworkManager rolls back by itself if the run dies (or stops extending the checkpoint)
    /// and does not commit within this; a live run extends it as the work proceeds.
    pub checkpoint_timeout: Duration,
    /// The live paths' checkpoint (`apply-live`, `apply-nmstate --live`): how long after a crash
    /// NetworkManager rolls the change back.
    pub live_checkpoint_timeout: Duration,
    /// Longest wait for one profile to activate (one attempt).
    pub activation_timeout: Duration,
    /// Attempts at activating one profile before giving up (upstream: 10, 5 s apart).
    pub activation_attempts: u32,
    /// Longest wait for NetworkManager's reply to one D-Bus call.
    pub dbus_timeout: Duration,
    /// Longest wait, after a boot-time change, for every probe that passed before it to pass
    /// again (default gateways, nameservers, API server, node readiness: see `probe`) before
    /// the change is rolled back.
    pub forwarding_timeout: Duration,
    /// The same bound for a live change (`apply-live`), on a node whose uplink already forwards.
    pub live_probe_timeout: Duration,
    /// The name the DNS probe looks up (see `probe::dns`).
    pub dns_probe_name: ProbeName,
    /// The kubelet's kubeconfig, for the API-server and node-readiness probes.
    pub kubeconfig: PathBuf,
    /// This node's Node object name (kubelet's default: the host name).
    pub node_name: String,
    /// Roots of `/run`, `/etc`, `/var/lib` (tests point them elsewhere).
    pub run_dir: PathBuf,
    pub etc_dir: PathBuf,
    pub var_lib_dir: PathBuf,
    /// Where generated profiles are copied when a run fails.
    pub troubleshooting_dir: PathBuf,
}

impl Settings {
    /// `/run/nodeip-configuration`'s files (the node IP nodeip-selector chose).
    pub fn node_ip_files(&self) -> NodeIpFiles {
        NodeIpFiles::new(self.run_dir.join("nodeip-configuration"))
    }
    pub fn boot_marker(&self) -> PathBuf {
        self.run_dir.join("configure-ovs-boot-done")
    }
    /// Legacy marker older OVN-K pods (and the two-node-with-fencing drop-in) look for.
    pub fn executed_marker(&self) -> PathBuf {
        self.run_dir.join("ovs-config-executed")
    }
    pub fn default_bridge(&self) -> PathBuf {
        self.etc_dir.join("ovnk/default_bridge")
    }
    pub fn extra_bridge(&self) -> PathBuf {
        self.etc_dir.join("ovnk/extra_bridge")
    }
    pub fn hint(&self) -> PathBuf {
        self.var_lib_dir.join("ovnk/iface_default_hint")
    }
    /// The MTU migration's state (mtu-migration.service, cluster-network-operator).
    pub fn mtu_migration_dir(&self) -> PathBuf {
        self.etc_dir.join("cno/mtu-migration")
    }
    pub fn nmstate_dir(&self) -> PathBuf {
        self.etc_dir.join("nmstate/openshift")
    }
}

pub fn resolve(
    args: &SettingsArgs,
    default_config: &std::path::Path,
) -> Result<Settings, UsageError> {
    let (cfg, cfg_path): (ConfigFile, _) = load_config(args.config.as_deref(), default_config)?;
    // `NM_CONN_SET_PATH` is how MCO templates persistence for configure-ovs; keep honouring it.
    let env_persist = match std::env::var("NM_CONN_SET_PATH").ok().as_deref() {
        None | Some("") | Some("/run/NetworkManager/system-connections") => None,
        Some("/etc/NetworkManager/system-connections") => Some(true),
        Some(other) => {
            return Err(UsageError(format!(
                "invalid NM_CONN_SET_PATH {other:?}: only /run/NetworkManager/system-connections or /etc/NetworkManager/system-connections"
            )));
        }
    };
    let var_lib: PathBuf = args
        .var_lib_dir
        .clone()
        .or(cfg.var_lib_dir)
        .unwrap_or_else(|| "/var/lib".into());
    let retry = args
        .retry_interval_secs
        .or(cfg.retry_interval_secs)
        .unwrap_or(15 * 60);
    Ok(Settings {
        persist: args.persist || env_persist.or(cfg.persist).unwrap_or(false),
        retry: (retry > 0).then(|| Duration::from_secs(retry)),
        checkpoint_timeout: Duration::from_secs(cfg.checkpoint_timeout_secs.unwrap_or(60)),
        // Kept alive while the live apply runs: this is how long a killed one leaves the node
        // with the change, before NetworkManager's own rollback (a few seconds).
        live_checkpoint_timeout: match cfg.live_checkpoint_timeout_secs.unwrap_or(8) {
            // 0 would be NetworkManager's "never roll back"; one call every second or less
            // would be asked of NetworkManager to keep it alive.
            secs @ 0..3 => {
                let from = cfg_path.as_deref().unwrap_or(default_config).display();
                return Err(UsageError(format!(
                    "invalid live-checkpoint-timeout-secs in {from}: {secs} (at least 3)"
                )));
            }
            secs => Duration::from_secs(secs),
        },
        activation_timeout: Duration::from_secs(cfg.activation_timeout_secs.unwrap_or(90)),
        activation_attempts: cfg.activation_attempts.unwrap_or(10).max(1),
        // D-Bus's own default reply timeout.
        dbus_timeout: Duration::from_secs(cfg.dbus_timeout_secs.unwrap_or(25)),
        // An 802.3ad bond forwards 3.5-6.4 s after it is up (measured on a real kernel); 30 s
        // leaves room for a slower partner and rolls a dead uplink back within half a minute.
        forwarding_timeout: Duration::from_secs(cfg.forwarding_timeout_secs.unwrap_or(30)),
        // 1.25 times the slowest 802.3ad renegotiation measured (6.4 s): a live change that
        // cuts the node off is rolled back within about 10 s, not kubernetes-nmstate's minutes.
        live_probe_timeout: Duration::from_secs(cfg.live_probe_timeout_secs.unwrap_or(8)),
        dns_probe_name: match cfg.dns_probe_name.as_deref() {
            None => ProbeName::default(),
            Some(name) => ProbeName::new(name).map_err(|e| {
                let from = cfg_path.as_deref().unwrap_or(default_config).display();
                UsageError(format!("invalid dns-probe-name in {from}: {e}"))
            })?,
        },
        kubeconfig: cfg
            .kubeconfig
            .unwrap_or_else(|| var_lib.join("kubelet/kubeconfig")),
        node_name: match cfg.node_name {
            Some(n) => n,
            None => std::fs::read_to_string("/proc/sys/kernel/hostname")
                .map(|h| h.trim().to_owned())
                .unwrap_or_default(),
        },
        run_dir: args
            .run_dir
            .clone()
            .or(cfg.run_dir)
            .unwrap_or_else(|| "/run".into()),
        etc_dir: args
            .etc_dir
            .clone()
            .or(cfg.etc_dir)
            .unwrap_or_else(|| "/etc".into()),
        var_lib_dir: var_lib,
        // $TMPDIR, else /tmp, as configure-ovs.
        troubleshooting_dir: cfg.troubleshooting_dir.unwrap_or_else(std::env::temp_dir),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dns_probe_name_that_cannot_be_queried_is_bad_input_naming_it_and_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.toml");
        std::fs::write(&config, "dns-probe-name = \"api..example\"\n").unwrap();
        let args = SettingsArgs {
            config: Some(config.clone()),
            ..SettingsArgs::default()
        };
        let e = resolve(&args, &config).unwrap_err().to_string();
        assert!(
            e.contains("dns-probe-name")
                && e.contains(&config.display().to_string())
                && e.contains("\"api..example\" has an empty label"),
            "{e}"
        );
        std::fs::write(&config, "dns-probe-name = \"api-int.example.\"\n").unwrap();
        let s = resolve(&args, &config).unwrap();
        assert_eq!(s.dns_probe_name.to_string(), "api-int.example");
    }
}
