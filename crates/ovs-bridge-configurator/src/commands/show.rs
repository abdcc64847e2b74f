//! `show`: the node's network now, as NMState YAML or as the whole NodeNetworkState document.

use std::process::ExitCode;

use crate::nm::Nm;
use crate::node_state;
use crate::settings::Settings;

pub async fn exec(s: &Settings, node_network_state: bool) -> anyhow::Result<ExitCode> {
    Nm::connect_running(s.dbus_timeout).await?;
    let now = node_state::current().await?;
    let text = if node_network_state {
        node_state::node_network_state(&s.node_name, &now, std::time::SystemTime::now())?
    } else {
        node_state::to_yaml(&now)?
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}
