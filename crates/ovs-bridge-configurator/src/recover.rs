//! Putting NetworkManager back in a known state: checkpoints an interrupted run left, this
//! tool's profiles and bridges removed, uplinks given their own profiles again, devices settled.

use std::time::{Duration, Instant};

use crate::br_ex::{BR_EX, BR_EX1, is_ours};
use crate::nm::profile::ProfileView;
use crate::nm::{self, DeviceState, Nm, NmError};
use crate::ovsdb;

/// Rolls back checkpoints that exist before this run starts. Only a run of this tool that died
/// mid-apply (SIGKILL, OOM) can have left one: ovs-configuration runs before kubelet, so no other
/// NetworkManager client (kubernetes-nmstate) is running yet, and the NMState path's checkpoint
/// lives inside this process. Rolling back restores the network that run started from, as NM
/// would by itself once the checkpoint's timeout passed, and frees the devices for this run's own
/// checkpoint (NM puts a device in one checkpoint at a time).
pub(crate) async fn roll_back_abandoned(nm: &Nm, timeout: Duration) -> Result<(), NmError> {
    let abandoned = nm.checkpoints().await?;
    for cp in &abandoned {
        tracing::warn!(
            "checkpoint {} was left by an interrupted earlier run: rolling it back",
            cp.as_str()
        );
        // It may have expired meanwhile; then NM has rolled back already.
        if let Err(e) = nm.checkpoint_rollback(cp).await {
            tracing::warn!("{e}");
        }
    }
    if !abandoned.is_empty() {
        // The rollback re-activates the original profiles asynchronously: plan from the
        // settled result, not from devices half way there.
        settle(nm, timeout).await;
    }
    Ok(())
}

/// Deletes every profile this tool creates (in /run and /etc) and the OVS bridges, then lets
/// the uplinks get their original profiles back. Returns whether anything was deleted. Fails
/// with the caller's error, made from NetworkManager's or OVSDB's.
pub async fn cleanup<E>(nm: &Nm, timeout: Duration) -> Result<bool, E>
where
    E: From<NmError> + From<ovsdb::OvsError>,
{
    let profiles = nm.profiles().await?;
    let mut uplinks: Vec<String> = Vec::new();
    let mut deleted = false;
    for x in &profiles {
        let id = x.id();
        if !is_ours(&id) {
            continue;
        }
        if id == BR_EX.uplink_profile() || id == BR_EX1.uplink_profile() {
            uplinks.extend(x.interface());
        }
        tracing::info!(
            "removing profile {id} ({})",
            if x.filename.is_empty() {
                "in memory"
            } else {
                &x.filename
            }
        );
        nm.delete(&x.path).await?;
        deleted = true;
    }
    ovsdb::delete_bridge(BR_EX.bridge)?;
    ovsdb::delete_bridge(BR_EX1.bridge)?;
    if deleted {
        reconnect(nm, &uplinks, timeout).await;
    }
    Ok(deleted)
}

/// Gives each uplink its best original profile again (`nmcli device connect`), if NM has not
/// already done so by autoconnect.
pub(crate) async fn reconnect(nm: &Nm, uplinks: &[String], timeout: Duration) {
    let Ok(devices) = nm.devices().await else {
        return;
    };
    for name in uplinks {
        let Some(d) = devices
            .iter()
            .find(|d| &d.interface == name && d.device_type != nm::DEVICE_TYPE_OVS_PORT)
        else {
            continue;
        };
        if d.state == DeviceState::Activated {
            continue;
        }
        if let Err(e) = nm.connect_device(&d.path, name, timeout).await {
            tracing::warn!("could not reconnect {name}: {e}");
        }
    }
}

/// Waits (up to `timeout`) until no device is half way through a state change.
pub(crate) async fn settle(nm: &Nm, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        match nm.devices().await {
            Ok(d) if d.iter().any(|d| d.state.in_transition()) => {}
            _ => return,
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
