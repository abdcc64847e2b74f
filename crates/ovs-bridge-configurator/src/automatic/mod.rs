//! The automatic conversion (configure-ovs.sh's job): gather NetworkManager's profiles and
//! devices, the kernel's state and the input files ([`gather`]), plan purely ([`plan`]), run the
//! plan inside a NetworkManager checkpoint ([`execute`]), verify through netlink ([`verify`]),
//! commit or roll back.

pub mod error;
mod execute;
pub mod gather;
mod markers;
pub mod nic;
pub mod plan;
pub mod report;
pub mod troubleshoot;
pub mod verify;

use std::time::{Duration, Instant};

use selection::netlink::{ChangeStream, NetlinkReader};

use crate::br_ex::{BR_EX, is_ours};
use crate::nm::Nm;
use crate::nm::profile::ProfileView;
use crate::outcome::Outcome;
use crate::recover::{cleanup, roll_back_abandoned};
use crate::settings::Settings;
pub use error::{ConvertError, NotReady};
use execute::{Terms, execute};
use gather::{Gathered, Inputs, gather};
use markers::Markers;
use plan::{Plan, PlanError};

/// How long to wait for a default route to appear when there is none (upstream: 12 x 5 s).
const DEFAULT_ROUTE_WAIT: Duration = Duration::from_secs(60);

/// The automatic conversion (configure-ovs.sh's job), run by `apply` once no NMState file is
/// to be applied and none was. The settings are taken apart here, into what each step needs:
/// the markers the run writes, the files it plans from, the terms it carries the plan out under,
/// and NetworkManager's reply timeout and activation bound.
pub async fn convert(s: &Settings) -> Result<Outcome, ConvertError> {
    let markers = Markers::from_settings(s);
    let inputs = Inputs::from_settings(s);
    let terms = Terms::from_settings(s);
    markers.mark_executed()?;
    let nm = Nm::connect(s.dbus_timeout).await?;
    roll_back_abandoned(&nm, s.activation_timeout).await?;
    let mut changes = ChangeStream::subscribe(Duration::from_millis(20))?;
    let mut reader = NetlinkReader::connect()?;
    markers.forget_hint_of_extra_bridge();
    if !markers.boot_started() {
        start_boot(&nm, &markers, s.activation_timeout).await?;
    }
    let mut g = await_uplink(&nm, &mut reader, &mut changes, &inputs).await?;
    let choice = plan::choose(&g.snapshot, &g.files)?.ok_or(PlanError::NoInterface)?;
    if !plan::is_converted(&choice, &g.planner_profiles())
        && g.profiles.iter().any(|(_, x)| is_ours(&x.id()))
    {
        tracing::info!(
            "br-ex is not carrying the node IP: removing the previous attempt before proceeding"
        );
        cleanup::<ConvertError>(&nm, s.activation_timeout).await?;
        g = gather(&nm, &mut reader, &inputs).await?;
    }
    let plan = g.plan(&mut || uuid::Uuid::new_v4().to_string())?;
    for w in plan.bridges.iter().flat_map(|b| &b.warnings) {
        tracing::warn!("{w}");
    }
    let outcome = carry_out(&nm, &terms, &g, &plan, &mut changes, &mut reader).await?;
    if let Outcome::Converted { interface } = &outcome
        && interface != BR_EX.bridge
    {
        // Written on every conversion, also when the node IP chose the interface (configure-ovs
        // writes it on the default-route path only). OVN-Kubernetes reads this file.
        markers.remember_hint(interface)?;
    }
    tracing::info!("D-Bus calls: {}", nm.calls());
    Ok(outcome)
}

/// The first run of a boot: remembers the previous boot's uplink, removes its bridge (waiting
/// up to `activation` for each uplink to get its own profile back) and marks the boot as
/// started.
async fn start_boot(nm: &Nm, markers: &Markers, activation: Duration) -> Result<(), ConvertError> {
    seed_hint(nm, markers).await?;
    tracing::info!("first run of this boot: removing a previous boot's bridge before rebuilding");
    cleanup::<ConvertError>(nm, activation).await?;
    Ok(markers.mark_boot_started()?)
}

/// Gathers again on every network change until the interface to convert is the final one (see
/// [`still_waiting`]), for at most [`DEFAULT_ROUTE_WAIT`]; returns the last gathering.
async fn await_uplink(
    nm: &Nm,
    reader: &mut NetlinkReader,
    changes: &mut ChangeStream,
    inputs: &Inputs,
) -> Result<Gathered, ConvertError> {
    let mut g = gather(nm, reader, inputs).await?;
    let deadline = Instant::now() + DEFAULT_ROUTE_WAIT;
    while Instant::now() < deadline {
        if !still_waiting(&g, inputs)? {
            break;
        }
        let _ = tokio::time::timeout(deadline - Instant::now(), changes.next()).await;
        g = gather(nm, reader, inputs).await?;
    }
    Ok(g)
}

/// Whether the conversion should wait (and why, logged): no interface can be chosen yet, the
/// node IP is on no interface yet, or the remembered interface has no default route yet.
fn still_waiting(g: &Gathered, inputs: &Inputs) -> Result<bool, PlanError> {
    let Some(c) = plan::choose(&g.snapshot, &g.files)? else {
        tracing::info!(
            "no node-IP interface and no default route yet; waiting for a network change"
        );
        return Ok(true);
    };
    match (
        plan::awaited_node_ip(&g.files, &c),
        plan::awaited_hint(&g.snapshot, &g.files, &c),
    ) {
        (Some(ip), _) => tracing::info!(
            "the node IP {ip} ({}) is on no interface yet ({} has a default route): \
             waiting for it",
            inputs.node_ip_files.primary_ip().display(),
            c.interface
        ),
        (None, Some(hint)) => tracing::info!(
            "{} has a default route, but br-ex was on {hint} ({}): waiting for {hint}'s \
             default route",
            c.interface,
            inputs.hint.display()
        ),
        (None, None) => return Ok(false),
    }
    Ok(true)
}

/// Executes the plan, unless br-ex already carries the node IP and every profile is active.
async fn carry_out(
    nm: &Nm,
    terms: &Terms,
    g: &Gathered,
    plan: &Plan,
    changes: &mut ChangeStream,
    reader: &mut NetlinkReader,
) -> Result<Outcome, ConvertError> {
    let nothing_to_do = plan.already_converted && plan.bridges.is_empty() && plan.remove.is_empty();
    if nothing_to_do && all_active(g, plan) {
        tracing::info!(
            "br-ex already carries the node IP and every profile is active: nothing to do"
        );
        return Ok(Outcome::AlreadyConverted);
    }
    execute(nm, terms, g, plan, changes, reader).await?;
    Ok(Outcome::Converted {
        interface: plan.choice.interface.clone(),
    })
}

/// Without a hint file (a node converted by a version that did not write it), the previous
/// boot's `ovs-if-phys0` still names the NIC br-ex was on: remember it before the clean-up
/// removes the profile, so br-ex does not move to another NIC with a default route.
async fn seed_hint(nm: &Nm, markers: &Markers) -> Result<(), ConvertError> {
    if markers.has_hint() {
        return Ok(());
    }
    let phys = BR_EX.uplink_profile();
    let Some(nic) = nm
        .profiles()
        .await?
        .iter()
        .filter(|x| x.id() == phys)
        .find_map(|x| x.interface())
    else {
        return Ok(());
    };
    tracing::info!(
        "no {}: seeding it with {nic}, the NIC of the previous boot's {phys}",
        markers.hint().display()
    );
    Ok(markers.remember_hint(&nic)?)
}

/// Every profile of the activation list is active now.
fn all_active(g: &Gathered, plan: &Plan) -> bool {
    plan.activate
        .iter()
        .all(|id| g.profiles.iter().any(|(_, x)| x.id() == *id && x.active))
}

#[cfg(test)]
mod plan_tests;
