//! `diff`: what of a desired state differs from the node's network now.

use std::path::Path;
use std::process::ExitCode;

use crate::commands::desired::read_desired;
use crate::engine::change::Lasting;
use crate::engine::reapply;
use crate::nm::Nm;
use crate::node_state;
use crate::settings::Settings;

/// Prints what of the desired state differs from the node's network now, or says that nothing
/// does, and which part of this tool would apply it: its own engine, or nmstate's apply and for
/// which part of the state (both on stderr, so that stdout stays YAML). Invalid NMState exits 2.
pub async fn exec(s: &Settings, file: &Path) -> anyhow::Result<ExitCode> {
    let desired = read_desired(file)?;
    let want = desired
        .parse()
        .map_err(|e| selection::app::UsageError(e.to_string()))?;
    let nm = Nm::connect_running(s.dbus_timeout).await?;
    let now = node_state::current().await?;
    match node_state::diff(&want, &now)? {
        Some(changed) => print!("{}", node_state::to_yaml(&changed)?),
        None => eprintln!("{}: the node already has this state", desired.origin),
    }
    match reapply::plan(&nm, &want, Lasting::UntilReboot).await? {
        Ok(_) => eprintln!("{}: the engine applies it itself", desired.origin),
        Err(why) => eprintln!(
            "{}: nmstate's apply takes it ({why} is not covered by the engine)",
            desired.origin
        ),
    }
    Ok(ExitCode::SUCCESS)
}
