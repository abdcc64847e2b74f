//! `plan`: the profiles `apply` would add and the activation order; changes nothing.

use std::process::ExitCode;

use selection::netlink::NetlinkReader;

use crate::automatic::gather::{Inputs, gather};
use crate::automatic::report::report;
use crate::nm::Nm;
use crate::settings::Settings;

pub async fn exec(s: &Settings, json: bool) -> anyhow::Result<ExitCode> {
    let nm = Nm::connect(s.dbus_timeout).await?;
    let mut reader = NetlinkReader::connect()?;
    let g = gather(&nm, &mut reader, &Inputs::from_settings(s)).await?;
    print!("{}", report(&g, json)?);
    Ok(ExitCode::SUCCESS)
}
