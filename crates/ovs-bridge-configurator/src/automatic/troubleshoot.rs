//! What a failed apply leaves for whoever investigates: the state at the failure in the journal,
//! and a private copy of the generated profiles (the newest few kept).

use std::os::unix::fs::DirBuilderExt;
use std::path::Path;

use selection::Snapshot;
use selection::netlink::NetlinkReader;

use crate::automatic::plan::Plan;
use crate::nm::Nm;
use crate::nm::profile::{self as p, ProfileView};

/// On failure, in the journal: what NetworkManager and the kernel hold at that moment (as
/// configure-ovs's `print_state`: profiles, devices, addresses, and the routes the netlink reader
/// keeps, the default ones), before the rollback changes it. `ask_nm` is false when
/// NetworkManager is known not to answer.
pub async fn log_state(nm: &Nm, reader: &mut NetlinkReader, ask_nm: bool) {
    if ask_nm {
        log_nm_state(nm).await;
    }
    if let Ok(snap) = reader.snapshot().await {
        log_kernel_state(&snap);
    }
}

/// NetworkManager's profiles (type, UUID, whether active, file) and devices.
async fn log_nm_state(nm: &Nm) {
    let active = match nm.active_uuids().await {
        Ok(a) => a,
        Err(e) => return tracing::error!("state: {e}"),
    };
    for x in nm.profiles().await.unwrap_or_default() {
        let uuid = x.uuid();
        tracing::error!(
            "state: profile {} ({}, {uuid}){}{}",
            x.id(),
            x.kind(),
            if active.contains(&uuid) {
                " active"
            } else {
                ""
            },
            if x.filename.is_empty() {
                String::new()
            } else {
                format!(" {}", x.filename)
            }
        );
    }
    for d in nm.devices().await.unwrap_or_default() {
        tracing::error!(
            "state: device {} type {} {} profile {}",
            d.interface,
            d.device_type,
            d.state,
            d.active_uuid.as_deref().unwrap_or("-")
        );
    }
}

/// The kernel's addresses and routes, interfaces by name where the snapshot has it.
fn log_kernel_state(snap: &Snapshot) {
    let name = |i: u32| {
        snap.links
            .iter()
            .find(|l| l.index == i)
            .map_or_else(|| i.to_string(), |l| l.name.clone())
    };
    for a in &snap.addresses {
        tracing::error!(
            "state: address {}/{} on {}",
            a.ip,
            a.prefix_len,
            name(a.ifindex)
        );
    }
    for r in &snap.routes {
        tracing::error!(
            "state: route {} via {} dev {} metric {} table {}",
            r.destination
                .map_or_else(|| "default".into(), |d| d.to_string()),
            r.gateway.map_or_else(|| "-".into(), |g| g.to_string()),
            r.oif.map_or_else(|| "-".into(), name),
            r.metric,
            r.table
        );
    }
}

/// Troubleshooting copies kept (the newest; older ones are removed).
const TROUBLESHOOTING_KEPT: usize = 5;
/// Names of the troubleshooting copies (`collect` picks the newest).
pub const TROUBLESHOOTING_PREFIX: &str = "ovs-bridge-configurator-";

/// On failure: the generated profiles, as keyfile-style text, in a fresh troubleshooting dir
/// under `parent`: private (0700) and named unpredictably (it lives in /tmp by default), created
/// exclusively, and only the last few kept.
pub fn dump_profiles(parent: &Path, plan: &Plan) {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let random = uuid::Uuid::new_v4().simple().to_string();
    let dir = parent.join(format!(
        "{TROUBLESHOOTING_PREFIX}{stamp:012}-{}",
        &random[..12]
    ));
    let write = || -> std::io::Result<()> {
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        for settings in plan.bridges.iter().flat_map(|b| &b.add) {
            std::fs::write(
                dir.join(format!("{}.nmconnection", p::id(settings))),
                p::render(settings),
            )?;
        }
        Ok(())
    };
    match write() {
        Ok(()) => tracing::info!(
            "copied the generated profiles to {} for troubleshooting",
            dir.display()
        ),
        Err(e) => tracing::warn!("cannot write {}: {e}", dir.display()),
    }
    prune_troubleshooting(parent, &dir);
}

/// Removes all but the newest [`TROUBLESHOOTING_KEPT`] troubleshooting copies (by modification
/// time, then name), never `new`, the one just written.
fn prune_troubleshooting(parent: &Path, new: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let mut dirs: Vec<(std::time::SystemTime, std::path::PathBuf)> = entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(TROUBLESHOOTING_PREFIX)
        })
        .filter(|e| e.path() != new)
        .filter_map(|e| {
            let m = e.metadata().ok().filter(|m| m.is_dir())?;
            Some((m.modified().ok()?, e.path()))
        })
        .collect();
    dirs.sort();
    let old = (dirs.len() + 1).saturating_sub(TROUBLESHOOTING_KEPT);
    for (_, d) in &dirs[..old] {
        if let Err(e) = std::fs::remove_dir_all(d) {
            tracing::warn!(
                "cannot remove the old troubleshooting copy {}: {e}",
                d.display()
            );
        }
    }
}
