//! Command line.

use std::net::IpAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::model::Role;

/// Owns keepalived's configuration for the API and ingress VIPs: rendered from the peer list,
/// validated, applied, following the node IP.
#[derive(Debug, Parser)]
#[command(name = "keepalived-monitor", version, about)]
pub struct Cli {
    #[command(flatten)]
    pub verbosity: selection::app::Verbosity,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The daemon (systemd Type=notify).
    Run(SettingsArgs),
    /// Print the configuration for the current node state and exit.
    Render(SettingsArgs),
    /// Render, then check it with `keepalived -t`.
    Check(SettingsArgs),
    /// Remove the configured VIPs from every interface unless a keepalived runs in this network
    /// namespace: VIPs a crashed keepalived left behind (keepalived.service's ExecStartPre=).
    RemoveStaleVips(SettingsArgs),
    /// Print the virtual router IDs of a cluster name, as upstream's `runtimecfg vr-ids`.
    VrIds { name: String },
}

/// Settings; flags win over the config file.
#[derive(Debug, Args)]
pub struct SettingsArgs {
    /// TOML settings [default: /etc/keepalived-monitor/config.toml if present].
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// The cluster's name (the VRIDs and instance names derive from it) [default: the first
    /// label of --base-domain].
    #[arg(long, value_name = "NAME")]
    pub cluster_name: Option<String>,
    /// `<cluster name>.<base domain>` (MCO's `DNS.Spec.BaseDomain`), used when no cluster name
    /// is given.
    #[arg(long, value_name = "DOMAIN")]
    pub base_domain: Option<String>,
    #[arg(long, value_enum)]
    pub role: Option<Role>,
    /// API VIPs (one per family).
    #[arg(long = "api-vip", value_name = "IP")]
    pub api_vips: Vec<IpAddr>,
    /// Ingress VIPs (one per family).
    #[arg(long = "ingress-vip", value_name = "IP")]
    pub ingress_vips: Vec<IpAddr>,
    /// The TOML peer list [default: /etc/keepalived-monitor/peers.toml].
    #[arg(long = "peers", value_name = "FILE")]
    pub peers_file: Option<PathBuf>,
    /// keepalived.conf [default: /etc/keepalived/keepalived.conf].
    #[arg(long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// How keepalived is told to load a new file [default: systemd].
    #[arg(long, value_enum)]
    pub reload: Option<ReloadMethod>,
}

/// `reload`: how keepalived is told to load a new file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ReloadMethod {
    /// `ReloadOrRestartUnit` of keepalived.service over D-Bus.
    Systemd,
    /// SIGHUP to the pid in `pid-file`.
    Pidfile,
    /// `reload` on `control-socket` (the keepalived static pod's wrapper).
    Socket,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
