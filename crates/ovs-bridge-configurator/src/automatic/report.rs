//! What `apply` would do now, as text for a person or one JSON object: shared by `plan` and
//! `collect`.

use std::fmt::Write;

use crate::automatic::gather::Gathered;
use crate::automatic::plan::PlanError;
use crate::nm::profile as p;

/// What `apply` would do now for what was gathered: keyfile-style text (or one JSON object)
/// with placeholder UUIDs. Shared by `plan` and `collect`.
pub fn report(g: &Gathered, json: bool) -> Result<String, PlanError> {
    let mut n = 0;
    let mut uuids = || {
        n += 1;
        format!("<new-uuid-{n}>")
    };
    let plan = g.plan(&mut uuids)?;
    let mut out = String::new();
    if json {
        let bridges: Vec<serde_json::Value> = plan
            .bridges
            .iter()
            .map(|b| {
                serde_json::json!({
                    "bridge": b.names.bridge,
                    "interface": b.interface,
                    "original": b.original_uuid,
                    "add": b.add.iter().map(p::to_json).collect::<Vec<_>>(),
                    "warnings": b.warnings,
                })
            })
            .collect();
        let report = serde_json::json!({
            "choice": plan.choice,
            "already_converted": plan.already_converted,
            "bridges": bridges,
            "remove": plan.remove,
            "activate": plan.activate,
        });
        let _ = writeln!(out, "{report:#}");
        return Ok(out);
    }
    let _ = writeln!(
        out,
        "# interface {} ({:?})",
        plan.choice.interface, plan.choice.reason
    );
    for b in &plan.bridges {
        for w in &b.warnings {
            let _ = writeln!(out, "# warning: {w}");
        }
        for settings in &b.add {
            let _ = writeln!(
                out,
                "# {}.nmconnection\n{}",
                p::id(settings),
                p::render(settings)
            );
        }
    }
    for u in &plan.remove {
        let _ = writeln!(out, "# remove {u}");
    }
    let _ = writeln!(out, "# activation order: {}", plan.activate.join(", "));
    Ok(out)
}
