//! `publish-state`: the NodeNetworkState publisher ([`crate::publish`]), until SIGTERM.

use std::process::ExitCode;

use crate::cli::PublishStateArgs;
use crate::publish;
use crate::settings::Settings;

pub async fn exec(s: &Settings, args: &PublishStateArgs) -> anyhow::Result<ExitCode> {
    let settings = publish::Settings::new(
        s.node_name.clone(),
        s.kubeconfig.clone(),
        args.debounce_ms,
        args.heartbeat_secs,
    )?;
    publish::daemon::run(settings).await?;
    Ok(ExitCode::SUCCESS)
}
