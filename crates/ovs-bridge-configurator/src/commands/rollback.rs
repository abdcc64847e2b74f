//! `rollback`: removes br-ex and br-ex1 and gives the uplinks their original profiles back.

use std::process::ExitCode;

use crate::nm::Nm;
use crate::recover::cleanup;
use crate::settings::Settings;

pub async fn exec(s: &Settings) -> anyhow::Result<ExitCode> {
    let nm = Nm::connect(s.dbus_timeout).await?;
    cleanup::<anyhow::Error>(&nm, s.activation_timeout).await?;
    Ok(ExitCode::SUCCESS)
}
