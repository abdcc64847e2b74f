//! `render`: the controller's MachineConfigs from files, for review and GitOps.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use selection::app::UsageError;

use crate::cli::RenderArgs;
use crate::plan::{Cluster, Plan, plan};
use crate::policy::Policy;
use crate::{input, render, status};

pub fn exec(args: &RenderArgs) -> anyhow::Result<ExitCode> {
    let usage = |e: input::InputError| UsageError(e.to_string());
    let policies = input::policies(&args.policies).map_err(usage)?;
    let pools = input::pools(&args.pools).map_err(usage)?;
    let nodes = input::nodes(&args.nodes).map_err(usage)?;
    let plan = plan(&Cluster {
        policies: &policies,
        pools: &pools,
        nodes: &nodes,
    })?;
    let mut out = std::io::stdout().lock();
    if args.json {
        for mc in &plan.machine_configs {
            out.write_all(&render::to_json(mc)?)?;
            writeln!(out)?;
        }
    } else {
        let yaml = serde_saphyr::to_string_multiple(&plan.machine_configs)
            .context("cannot write the MachineConfigs as YAML")?;
        out.write_all(yaml.as_bytes())?;
    }
    out.flush()?;
    for line in report(&policies, &plan) {
        eprintln!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// A line per policy that will not be applied everywhere it selects, as its status would say
/// before any node has rolled out.
pub fn report(policies: &[Policy], plan: &Plan) -> Vec<String> {
    let mut lines = Vec::new();
    for policy in policies {
        let Some(placed) = plan.policies.get(&policy.name) else {
            continue;
        };
        let enactments: BTreeMap<String, status::Enactment> = placed
            .nodes
            .iter()
            .map(|(node, p)| {
                (
                    node.clone(),
                    status::enactment(&policy.name, &p.placement, None),
                )
            })
            .collect();
        let verdicts = status::policy_verdicts(policy, placed, &enactments);
        if let Some(v) = verdicts
            .iter()
            .find(|v| v.status == "True" && matches!(v.type_, "Degraded" | "Ignored"))
        {
            lines.push(format!(
                "policy {}: {} ({}): {}",
                policy.name, v.type_, v.reason, v.message
            ));
        }
    }
    lines
}
