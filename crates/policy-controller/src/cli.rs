//! Command line.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Turns kubernetes-nmstate's NodeNetworkConfigurationPolicies into one MachineConfig per
/// MachineConfigPool.
#[derive(Debug, Parser)]
#[command(name = "policy-controller", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub verbosity: selection::app::Verbosity,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the MachineConfigs the controller would write for these objects (YAML on stdout);
    /// policies that are refused, conflict or select nothing are reported on stderr.
    Render(RenderArgs),
    /// Run in the cluster: watch policies, pools and nodes, write the MachineConfigs and the
    /// policies' and enactments' status while holding the Lease. The cluster is found as kubectl
    /// finds it (in-cluster service account, or `KUBECONFIG`).
    Run(RunArgs),
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Namespace of the Lease [default: $POD_NAMESPACE, else onprem-policy-controller].
    #[arg(long)]
    pub namespace: Option<String>,
    /// This replica's name in the Lease [default: $POD_NAME, else the host name].
    #[arg(long)]
    pub identity: Option<String>,
    /// Name of the Lease.
    #[arg(long, default_value = "policy-controller")]
    pub lease_name: String,
    /// Seconds a silent leader keeps the Lease before another replica takes it.
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub lease_duration: u64,
    /// Seconds between renewals (and between a follower's attempts).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub lease_retry: u64,
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Files or directories of NodeNetworkConfigurationPolicies (YAML or JSON).
    #[arg(long, required = true, num_args = 1..)]
    pub policies: Vec<PathBuf>,
    /// A file of MachineConfigPools (`oc get mcp -o yaml`).
    #[arg(long)]
    pub pools: PathBuf,
    /// A file of Nodes (`oc get nodes -o yaml`).
    #[arg(long)]
    pub nodes: PathBuf,
    /// Print each MachineConfig as the exact JSON body the controller sends, one per line.
    #[arg(long)]
    pub json: bool,
}
