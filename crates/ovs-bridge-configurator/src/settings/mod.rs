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
    live_change_timeout_secs: Option<u64>,
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
    /// How long a live change itself (written, activated, verified, by the engine or by
    /// nmstate's apply) may take before it is rolled back; the probes' bound counts from there.
    pub live_change_timeout: Duration,
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
    let from = cfg_path.as_deref().unwrap_or(default_config);
    let env_persist = persist_from_env()?;
    let var_lib = dir(&args.var_lib_dir, cfg.var_lib_dir, "/var/lib");
    let retry = args
        .retry_interval_secs
        .or(cfg.retry_interval_secs)
        .unwrap_or(15 * 60);
    Ok(Settings {
        persist: args.persist || env_persist.or(cfg.persist).unwrap_or(false),
        retry: (retry > 0).then(|| Duration::from_secs(retry)),
        checkpoint_timeout: Duration::from_secs(cfg.checkpoint_timeout_secs.unwrap_or(60)),
        live_checkpoint_timeout: live_checkpoint_timeout(cfg.live_checkpoint_timeout_secs, from)?,
        activation_timeout: Duration::from_secs(cfg.activation_timeout_secs.unwrap_or(90)),
        activation_attempts: cfg.activation_attempts.unwrap_or(10).max(1),
        // D-Bus's own default reply timeout.
        dbus_timeout: Duration::from_secs(cfg.dbus_timeout_secs.unwrap_or(25)),
        // At boot the uplink's bond is activated anew: an 802.3ad bond forwards no sooner than
        // the kernel's fixed 8 s aggregator-selection timer after its first port is enslaved
        // (`crate::bond::negotiated`), later with a partner slow to answer. 30 s leaves room
        // for such a partner and still rolls a dead uplink back within half a minute.
        forwarding_timeout: Duration::from_secs(cfg.forwarding_timeout_secs.unwrap_or(30)),
        // How long the probes wait after a live change that re-activates no bond, so nothing
        // has to negotiate again: short, so that a change that cuts the node off is rolled back
        // within seconds, not kubernetes-nmstate's minutes. After a change that re-activates a
        // bond, the probes' limit counts from when the bond forwards again instead
        // (`crate::engine::change::Renegotiating::probe_limit`).
        live_probe_timeout: Duration::from_secs(cfg.live_probe_timeout_secs.unwrap_or(8)),
        // One activation's bound in the engine's own path (a bond's or a bridge's activation
        // takes seconds; nmstate's apply, which retries a failing activation with growing
        // waits for minutes, gets no longer). With the probes' 8 s (counted from a re-activated
        // bond's negotiation, when there is one) and the rollback, a live apply ends about 40 s
        // after its start at the latest, committed or rolled back.
        live_change_timeout: Duration::from_secs(cfg.live_change_timeout_secs.unwrap_or(30).max(1)),
        dns_probe_name: dns_probe_name(cfg.dns_probe_name.as_deref(), from)?,
        kubeconfig: cfg
            .kubeconfig
            .unwrap_or_else(|| var_lib.join("kubelet/kubeconfig")),
        node_name: cfg.node_name.unwrap_or_else(host_name),
        run_dir: dir(&args.run_dir, cfg.run_dir, "/run"),
        etc_dir: dir(&args.etc_dir, cfg.etc_dir, "/etc"),
        var_lib_dir: var_lib,
        // $TMPDIR, else /tmp, as configure-ovs.
        troubleshooting_dir: cfg.troubleshooting_dir.unwrap_or_else(std::env::temp_dir),
    })
}

/// Whether `NM_CONN_SET_PATH` asks for persistent profiles (`None`: it does not say). It is how
/// MCO templates persistence for configure-ovs; keep honouring it.
fn persist_from_env() -> Result<Option<bool>, UsageError> {
    match std::env::var("NM_CONN_SET_PATH").ok().as_deref() {
        None | Some("") | Some("/run/NetworkManager/system-connections") => Ok(None),
        Some("/etc/NetworkManager/system-connections") => Ok(Some(true)),
        Some(other) => Err(UsageError(format!(
            "invalid NM_CONN_SET_PATH {other:?}: only /run/NetworkManager/system-connections or /etc/NetworkManager/system-connections"
        ))),
    }
}

/// A root directory: the flag, else the configuration file's, else `default`.
fn dir(flag: &Option<PathBuf>, cfg: Option<PathBuf>, default: &str) -> PathBuf {
    flag.clone().or(cfg).unwrap_or_else(|| default.into())
}

/// The live checkpoint's timeout (`secs` from the configuration file `from`, else 8 s). It is
/// kept alive while the live apply runs: this is how long a killed one leaves the node with the
/// change, before NetworkManager's own rollback (a few seconds).
fn live_checkpoint_timeout(
    secs: Option<u64>,
    from: &std::path::Path,
) -> Result<Duration, UsageError> {
    match secs.unwrap_or(8) {
        // 0 would be NetworkManager's "never roll back"; one call every second or less
        // would be asked of NetworkManager to keep it alive.
        secs @ 0..3 => Err(UsageError(format!(
            "invalid live-checkpoint-timeout-secs in {}: {secs} (at least 3)",
            from.display()
        ))),
        secs => Ok(Duration::from_secs(secs)),
    }
}

/// The DNS probe's name (`name` from the configuration file `from`, else the default).
fn dns_probe_name(name: Option<&str>, from: &std::path::Path) -> Result<ProbeName, UsageError> {
    match name {
        None => Ok(ProbeName::default()),
        Some(name) => ProbeName::new(name)
            .map_err(|e| UsageError(format!("invalid dns-probe-name in {}: {e}", from.display()))),
    }
}

/// The kernel's host name (kubelet's default Node name); empty when it cannot be read.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_default()
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
