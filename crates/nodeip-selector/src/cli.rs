//! Command line, compatible with `runtimecfg node-ip show|set`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Chooses the node IP once per boot and writes it where kubelet, CRI-O and the other
/// host-networking daemons read it.
#[derive(Debug, Parser)]
#[command(name = "nodeip-selector", version, about)]
pub struct Cli {
    #[command(flatten)]
    pub verbosity: selection::app::Verbosity,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the chosen primary address on stdout (nothing else).
    Show {
        #[command(flatten)]
        select: SelectArgs,
        /// Print every chosen address (at most one per family), one per line.
        #[arg(long, conflicts_with = "json")]
        all: bool,
        /// Print one JSON object: addresses, source, interface and the explanation.
        #[arg(long)]
        json: bool,
    },
    /// Choose and write the node-IP files and the kubelet/CRI-O drop-ins (once per boot).
    Set {
        #[command(flatten)]
        select: SelectArgs,
    },
    /// Show every candidate address, its verdict and sort keys, the choice, and warnings.
    Explain {
        #[command(flatten)]
        select: SelectArgs,
    },
    /// Enable IPv4 and IPv6 forwarding on the interface holding the chosen node IP (keepalived
    /// needs it; nodeip-configuration.service's privileged ExecStartPost=).
    EnableForwarding {
        #[command(flatten)]
        select: SelectArgs,
    },
}

impl Command {
    pub fn select_args(&self) -> &SelectArgs {
        match self {
            Command::Show { select, .. }
            | Command::Set { select }
            | Command::Explain { select }
            | Command::EnableForwarding { select } => select,
        }
    }
}

/// Settings shared by every command; flags win over the config file.
#[derive(Debug, Args)]
pub struct SelectArgs {
    /// Hint and VIP addresses: an address whose subnet contains one of them is chosen.
    #[arg(value_name = "IP")]
    pub ips: Vec<String>,
    /// Order IPv6 before IPv4.
    #[arg(short = '6', long)]
    pub prefer_ipv6: bool,
    /// CNI type; exactly `OVNKubernetes` also rejects fd69::2 on the default-route path
    /// [default: OVNKubernetes].
    #[arg(short = 'n', long, value_name = "TYPE")]
    pub network_type: Option<String>,
    /// Keep retrying (back-off up to 300 s, earlier on a network change) until an address is found.
    #[arg(short = 'r', long)]
    pub retry_on_failure: bool,
    /// The load balancer is user-managed: never mark the node as a remote worker.
    #[arg(short = 'l', long)]
    pub user_managed_lb: bool,
    /// Cluster platform; `baremetal` enables remote-worker detection.
    #[arg(short = 'p', long, value_name = "PLATFORM")]
    pub platform: Option<String>,
    /// Expect both families (implied when the IPs hold both); with -r, wait until both exist.
    #[arg(long)]
    pub dual_stack: bool,
    /// systemd environment file with NODEIP_HINT (or KUBELET_NODEIP_HINT); missing is fine
    /// [default: /etc/default/nodeip-configuration].
    #[arg(long, value_name = "PATH")]
    pub hint_file: Option<PathBuf>,
    /// Where primary-ip, ipv4, ipv6 and remote-worker go [default: /run/nodeip-configuration].
    #[arg(long, value_name = "DIR")]
    pub run_dir: Option<PathBuf>,
    /// Where the kubelet and crio drop-ins go [default: /etc/systemd/system].
    #[arg(long, value_name = "DIR")]
    pub systemd_dir: Option<PathBuf>,
    /// TOML file with the same settings (kebab-case keys) [default: /etc/nodeip-selector/config.toml if present].
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
