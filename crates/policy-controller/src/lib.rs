//! `policy-controller`: kubernetes-nmstate's NodeNetworkConfigurationPolicies turned into one
//! MachineConfig per MachineConfigPool, and each node's outcome read back from what MCO
//! publishes.
//!
//! The core is pure, in kube-rs controller style: [`plan::plan`] maps the policies, pools and
//! nodes to the MachineConfigs to write and each policy's placement on each node;
//! [`status`] maps that plan and each node's roll-out ([`rollout`]) to enactment and policy
//! conditions; [`conditions::update`] keeps unchanged conditions as they were. A runtime only
//! watches, calls these, compares, and writes the difference. `render` runs the same core on
//! files.
//!
//! # The node-side contract
//!
//! Each pool's MachineConfig `50-<pool>-nmstate-policies` (labelled with the pool's role and
//! `app.kubernetes.io/managed-by: onprem-policy-controller`) writes, mode 0600:
//! - `/etc/nmstate/openshift/policies/<policy>.yml`: a policy's `desiredState` (YAML), once,
//!   for each policy that applies to at least one node of the pool;
//! - `/etc/nmstate/openshift/policies/nodes/<node>`: the names of the policies that apply to
//!   the node named `<node>` (its Node object's name), one per line, in merge order (ascending
//!   name), only for nodes with at least one; a policy in conflict on that node is not listed.
//!
//! The node applies, after br-ex exists (at boot before kubelet, and live when MCO's Restart
//! action restarts `nmstate-configuration-live.service` because a file under
//! `/etc/nmstate/openshift` changed), the merge ([`merge::merge`]) of the listed policies'
//! states, in the listed order, never in place of the day-1 `<host>.yml`/`cluster.yml` and
//! never stopping the automatic br-ex. A node without a list file has nothing to apply and
//! behaves as before. Deleting a policy removes its file and its name from the lists: the node
//! keeps its network as it is (as with kubernetes-nmstate); to remove what a policy created,
//! change it to say `state: absent` first. A MachineConfig with no policy left is deleted by the
//! runtime (it owns only MachineConfigs with its label).

pub mod api;
pub mod cli;
pub mod commands;
pub mod conditions;
pub mod crd;
pub mod input;
pub mod merge;
pub mod plan;
pub mod policy;
pub mod render;
pub mod rollout;
pub mod runtime;
pub mod schema;
pub mod select;
pub mod status;

use std::process::ExitCode;

/// Runs one command. Bad input is a `selection::app::UsageError` (exit code 2).
pub fn run(cli: &cli::Cli) -> anyhow::Result<ExitCode> {
    match &cli.command {
        cli::Command::Render(args) => commands::render::exec(args),
        cli::Command::Run(args) => commands::run::exec(args),
    }
}
