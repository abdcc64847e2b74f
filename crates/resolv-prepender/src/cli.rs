//! Command line.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Keeps /etc/resolv.conf = NetworkManager's resolver + the node IP first + the cluster domain
/// first, and sets the flag kubelet waits for.
#[derive(Debug, Parser)]
#[command(name = "resolv-prepender", version, about)]
pub struct Cli {
    #[command(flatten)]
    pub verbosity: selection::app::Verbosity,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The daemon: a pass now and after every relevant change (systemd Type=notify).
    Run(SettingsArgs),
    /// One pass. Exit 0: the node IP is applied; 1: not yet (waiting for NetworkManager or
    /// the node IP; resolution mirrors NetworkManager meanwhile); 2: bad input or settings.
    Once(SettingsArgs),
    /// kubelet's ExecCondition: exit 0 when the done flag exists, else say so and exit 255,
    /// which systemd counts as a failure rather than a skip, so kubelet's restart retries it.
    /// Exit 0 too where the daemon will never set the flag (its unit not enabled, or no usable
    /// configuration).
    CheckDone {
        #[arg(
            long,
            value_name = "PATH",
            default_value = "/run/resolv-prepender-kni-conf-done"
        )]
        done_flag: PathBuf,
        /// The daemon's configuration [default: /etc/resolv-prepender/config.toml if present].
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Print the transformed file for an upstream resolv.conf (the pure function).
    Render {
        /// The resolv.conf to transform (`-` for stdin).
        #[arg(long, value_name = "FILE")]
        upstream: PathBuf,
        /// The address to put first.
        #[arg(long, value_name = "IP")]
        nameserver: String,
        /// Domains to put first in `search`, in order (the cluster base domain first).
        #[arg(long = "domain", value_name = "D")]
        domains: Vec<String>,
    },
}

/// Every path the daemon touches, and the base domain; flags win over the config file.
#[derive(Debug, Default, Args)]
pub struct SettingsArgs {
    /// TOML with the same keys (kebab-case) [default: /etc/resolv-prepender/config.toml if present].
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// NetworkManager's resolv.conf [default: /run/NetworkManager/resolv.conf].
    #[arg(long, value_name = "PATH")]
    pub upstream: Option<PathBuf>,
    /// The file to maintain [default: /etc/resolv.conf].
    #[arg(long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// The node IP chosen by nodeip-selector [default: /run/nodeip-configuration/primary-ip].
    #[arg(long, value_name = "PATH")]
    pub node_ip_file: Option<PathBuf>,
    /// The cluster base domain, put first in `search` (required, here or in the config).
    #[arg(long, value_name = "DOMAIN")]
    pub base_domain: Option<String>,
    /// Touched after every successful pass; kubelet waits for it
    /// [default: /run/resolv-prepender-kni-conf-done].
    #[arg(long, value_name = "PATH")]
    pub done_flag: Option<PathBuf>,
    /// NetworkManager dispatcher's env file with IP4_DOMAINS/IP6_DOMAINS
    /// [default: /run/resolv-prepender/env].
    #[arg(long, value_name = "PATH")]
    pub env_file: Option<PathBuf>,
    /// Drop-in written on systemd-resolved hosts
    /// [default: /etc/systemd/resolved.conf.d/60-kni.conf].
    #[arg(long, value_name = "PATH")]
    pub resolved_dropin: Option<PathBuf>,
    /// Touched once br-ex is up (wait-for-br-ex-up.service waits for it)
    /// [default: /run/nodeip-configuration/br-ex-up].
    #[arg(long, value_name = "PATH")]
    pub br_ex_up_flag: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
