//! The settings' command-line flags, shared by every command.

use std::path::PathBuf;

use clap::Args;

/// Settings; flags win over the config file.
#[derive(Debug, Default, Args)]
pub struct SettingsArgs {
    /// TOML with the same keys [default: /etc/ovs-bridge-configurator/config.toml if present].
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Keep the profiles in /etc (persistent) instead of /run (also: NM_CONN_SET_PATH).
    #[arg(long)]
    pub persist: bool,
    /// Seconds between whole-run retries after a failure; 0: fail at once [default: 900].
    #[arg(long, value_name = "SECONDS")]
    pub retry_interval_secs: Option<u64>,
    /// Root of /run [default: /run].
    #[arg(long, value_name = "DIR")]
    pub run_dir: Option<PathBuf>,
    /// Root of /etc [default: /etc].
    #[arg(long, value_name = "DIR")]
    pub etc_dir: Option<PathBuf>,
    /// Root of /var/lib [default: /var/lib].
    #[arg(long, value_name = "DIR")]
    pub var_lib_dir: Option<PathBuf>,
}
