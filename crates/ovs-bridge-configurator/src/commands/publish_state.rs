//! `publish-state`: the NodeNetworkState publisher ([`crate::publish`]), until SIGTERM.

use std::process::ExitCode;

use crate::cli::PublishStateArgs;
use crate::publish;
use crate::publish::reader::Reader;
use crate::settings::Settings;

pub async fn exec(s: &Settings, args: &PublishStateArgs) -> anyhow::Result<ExitCode> {
    let settings = publish::Settings::new(
        s.node_name.clone(),
        s.kubeconfig.clone(),
        args.debounce_ms,
        args.heartbeat_secs,
    )?;
    // `show` with the same settings file reads the node.
    let reader = Reader::new(args.settings.config.clone());
    publish::daemon::run(settings, reader).await?;
    Ok(ExitCode::SUCCESS)
}
