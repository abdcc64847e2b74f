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
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the MachineConfigs the controller would write for these objects (YAML on stdout);
    /// policies that are refused, conflict or select nothing are reported on stderr.
    Render(RenderArgs),
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
