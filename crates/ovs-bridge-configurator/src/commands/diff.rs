//! `diff`: what of a desired state differs from the node's network now.

use std::path::Path;
use std::process::ExitCode;

use crate::commands::desired::read_desired;
use crate::nm::Nm;
use crate::node_state;
use crate::settings::Settings;

/// Prints what of the desired state differs from the node's network now, or says that nothing
/// does (on stderr, so that stdout stays YAML). Invalid NMState exits 2.
pub async fn exec(s: &Settings, file: &Path) -> anyhow::Result<ExitCode> {
    let desired = read_desired(file)?;
    let want = desired
        .parse()
        .map_err(|e| selection::app::UsageError(e.to_string()))?;
    Nm::connect_running(s.dbus_timeout).await?;
    let now = node_state::current().await?;
    match node_state::diff(&want, &now)? {
        Some(changed) => print!("{}", node_state::to_yaml(&changed)?),
        None => eprintln!("{}: the node already has this state", desired.origin),
    }
    Ok(ExitCode::SUCCESS)
}
