//! `status`: what exists now: this tool's profiles, the OVS bridges, which mode owns br-ex.

use std::process::ExitCode;

use crate::br_ex::{BR_EX, BR_EX1, is_ours};
use crate::nm::Nm;
use crate::nm::profile as p;
use crate::settings::Settings;

pub async fn exec(s: &Settings) -> anyhow::Result<ExitCode> {
    let nm = Nm::connect(s.dbus_timeout).await?;
    let active = nm.active_uuids().await?;
    let owner = if s.nmstate_dir().join("applied").exists() {
        "nmstate (declarative)"
    } else {
        "ovs-bridge-configurator (automatic)"
    };
    println!("mode: {owner}");
    for x in nm.profiles().await? {
        let id = p::id(&x.settings);
        if is_ours(&id) {
            let state = if active.contains(&p::uuid(&x.settings)) {
                "active"
            } else {
                "inactive"
            };
            let file = if x.filename.is_empty() {
                "(in memory)".into()
            } else {
                x.filename.clone()
            };
            println!("profile {id}: {state}, {file}");
        }
    }
    for b in [BR_EX.bridge, BR_EX1.bridge] {
        let exists = std::process::Command::new("ovs-vsctl")
            .args(["--timeout=5", "br-exists", b])
            .status()
            .is_ok_and(|st| st.success());
        println!(
            "ovs bridge {b}: {}",
            if exists { "present" } else { "absent" }
        );
    }
    Ok(ExitCode::SUCCESS)
}
