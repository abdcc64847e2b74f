//! Command line.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Builds br-ex (the OVS bridge OVN-Kubernetes uses) around the interface that holds the node
/// IP, through NetworkManager, inside a checkpoint that rolls back on any failure.
#[derive(Debug, Parser)]
#[command(name = "ovs-bridge-configurator", version, about)]
pub struct Cli {
    #[command(flatten)]
    pub verbosity: selection::app::Verbosity,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build br-ex (what ovs-configuration.service runs); a no-op when it is already in place.
    Apply(SettingsArgs),
    /// Apply the user's NMState file for br-ex when one is pending (what
    /// nmstate-configuration.service runs, before network-online.target); without one, do
    /// nothing: ovs-configuration.service's `apply` builds br-ex.
    ApplyNmstate {
        #[command(flatten)]
        settings: SettingsArgs,
        /// On a running node (nmstate-configuration-live.service, which MCO's daemon restarts
        /// after changing a file under /etc/nmstate/openshift): apply this node's changed file
        /// now with the live probes and bound, once, without upstream's retry; another host's
        /// file changes nothing. Fails when the change is refused or rolled back, and then
        /// records a Warning Event on the Node.
        #[arg(long)]
        live: bool,
    },
    /// Print the profiles that `apply` would add and the activation order; changes nothing.
    Plan {
        #[command(flatten)]
        settings: SettingsArgs,
        /// One JSON object instead of keyfile-style text.
        #[arg(long)]
        json: bool,
    },
    /// Remove br-ex and br-ex1 (profiles and OVS bridges) and give the uplinks their original
    /// profiles back.
    Rollback(SettingsArgs),
    /// Apply a desired NMState (FILE, or `-` for stdin) to the running node now, without a
    /// reboot: inside a checkpoint, committed only if br-ex keeps the node IP and the probes
    /// that passed before (gateways, nameservers, API server, node readiness) pass again;
    /// otherwise rolled back. Lasts until the next
    /// boot (profiles in NetworkManager's memory), or beyond with --persist (keyfiles in
    /// /etc; only the flag counts here, not the config file or NM_CONN_SET_PATH). Refused
    /// (exit 2) if it removes br-ex, moves the node IP off it or touches OVN-Kubernetes'
    /// pieces, unless --force.
    ApplyLive {
        #[command(flatten)]
        settings: SettingsArgs,
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Apply even what the guard rails refuse.
        #[arg(long)]
        force: bool,
        /// How long to wait for another change of the node's network (a boot-time unit, another
        /// live apply) to finish before giving up.
        #[arg(long, value_name = "SECONDS", default_value_t = 60)]
        lock_wait_secs: u64,
    },
    /// What exists now: this tool's profiles, the OVS bridges, which mode owns br-ex.
    Status(SettingsArgs),
    /// The node's network now, as NMState YAML (kubernetes-nmstate's NodeNetworkState).
    Show {
        #[command(flatten)]
        settings: SettingsArgs,
        /// The whole NodeNetworkState document (nmstate.io/v1beta1) kubernetes-nmstate would
        /// publish for this node, not only its state.
        #[arg(long)]
        node_network_state: bool,
    },
    /// What `apply-live FILE` (or `-` for stdin) would change: the part of the desired state
    /// that differs from the node's network now, as NMState YAML; changes nothing.
    Diff {
        #[command(flatten)]
        settings: SettingsArgs,
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
    /// Gather what support asks for first (NM profiles with secrets redacted, devices,
    /// checkpoints, OVSDB, addresses, routes, rules, the node-IP files, markers, hint and NMState
    /// files, the last troubleshooting copy, what `plan` would do now) into DIR, or into a
    /// tar.gz when DIR ends in .tar.gz or .tgz [default: ./ovs-bridge-configurator-collect-<time>.tar.gz].
    Collect {
        #[command(flatten)]
        settings: SettingsArgs,
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

impl Command {
    pub fn settings(&self) -> &SettingsArgs {
        match self {
            Command::Apply(s) | Command::Rollback(s) | Command::Status(s) => s,
            Command::Plan { settings, .. }
            | Command::Show { settings, .. }
            | Command::ApplyNmstate { settings, .. }
            | Command::Collect { settings, .. }
            | Command::Diff { settings, .. }
            | Command::ApplyLive { settings, .. } => settings,
        }
    }
}

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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
