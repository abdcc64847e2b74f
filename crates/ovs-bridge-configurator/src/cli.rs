//! Command line.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::settings::SettingsArgs;

/// Owns the node's host networking through NetworkManager.
///
/// Builds br-ex at boot (around the interface that holds the node IP, or from the per-host
/// NMState file), applies NMState changes to the running node (committed only if the node stays
/// reachable, otherwise rolled back), and shows, plans, diffs and collects the node's network.
#[derive(Debug, Parser)]
#[command(name = "ovs-bridge-configurator", version)]
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
    /// otherwise rolled back. Lasts until the next boot (profiles in NetworkManager's memory),
    /// or beyond with --persist. Refused (exit 2) if it removes br-ex, moves the node IP off it
    /// or touches OVN-Kubernetes' pieces, unless --force.
    #[command(
        mut_arg("retry_interval_secs", |a| a.hide(true)),
        mut_arg("persist", |a| a.help(
            "Keep the change beyond the next boot (keyfiles in /etc); only this flag counts, \
             not the config file's `persist` or NM_CONN_SET_PATH"
        )),
    )]
    ApplyLive(ApplyLiveArgs),
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
    /// that differs from the node's network now, as NMState YAML, and (on stderr) whether the
    /// engine applies it or which part of it nmstate's apply takes; changes nothing.
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
    /// Keep this node's NodeNetworkState (nmstate.io/v1beta1, what `show --node-network-state`
    /// prints) in the API, written with the kubelet's credentials only when the network
    /// changes, plus a heartbeat; stands aside where kubernetes-nmstate's handler publishes.
    /// Runs until SIGTERM.
    PublishState(PublishStateArgs),
    /// Started by a change of the node's network, never by hand: undoes that change if its
    /// process dies before the change is over (the undo record comes on stdin, the change lock
    /// on descriptor 3).
    #[command(hide = true)]
    KeepUndo(SettingsArgs),
}

/// `publish-state`'s flags.
#[derive(Debug, Args)]
pub struct PublishStateArgs {
    #[command(flatten)]
    pub settings: SettingsArgs,
    /// How long a burst of changes is gathered before the node is read (at most 1500).
    #[arg(long, value_name = "MS", default_value_t = crate::publish::DEFAULT_DEBOUNCE_MS)]
    pub debounce_ms: u64,
    /// The longest time without a write while nothing changes (kubernetes-nmstate: 60).
    #[arg(long, value_name = "SECONDS", default_value_t = crate::publish::DEFAULT_HEARTBEAT_SECS)]
    pub heartbeat_secs: u64,
}

/// `apply-live`'s input and flags.
#[derive(Debug, Args)]
pub struct ApplyLiveArgs {
    #[command(flatten)]
    pub settings: SettingsArgs,
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Apply even what the guard rails refuse.
    #[arg(long)]
    pub force: bool,
    /// How long to wait for another change of the node's network (a boot-time unit, another
    /// live apply) to finish before giving up.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub lock_wait_secs: u64,
}

impl Command {
    pub fn settings(&self) -> &SettingsArgs {
        match self {
            Command::Apply(s)
            | Command::Rollback(s)
            | Command::Status(s)
            | Command::KeepUndo(s) => s,
            Command::Plan { settings, .. }
            | Command::Show { settings, .. }
            | Command::ApplyNmstate { settings, .. }
            | Command::Collect { settings, .. }
            | Command::Diff { settings, .. }
            | Command::ApplyLive(ApplyLiveArgs { settings, .. }) => settings,
            Command::PublishState(PublishStateArgs { settings, .. }) => settings,
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
