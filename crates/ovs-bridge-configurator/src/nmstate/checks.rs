//! What an applied NMState must keep working before it is committed: br-ex carries the node
//! IP, and the probes that passed before the change pass again. Every NMState front end hands
//! these checks to the engine's checkpoint.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use selection::model::Snapshot;
use selection::netlink::NetlinkReader;
use selection::runfiles::read_ip_file;

use crate::br_ex::BR_EX;
use crate::engine::change::{Failed, Lasting, Renegotiating};
use crate::engine::checkpoint;
use crate::nm::Nm;
use crate::probe;
use crate::settings::Settings;

/// Why an applied NMState cannot stay (it is rolled back): br-ex is not what the node runs on,
/// or a probe that passed before the change does not after it.
#[derive(Debug, thiserror::Error)]
pub enum CheckFailed {
    #[error("removing the automatic bridge's leftovers: {0}")]
    Leftovers(Box<dyn std::error::Error + Send + Sync>),
    #[error("it does not create {} (an ovs-bridge with an ovs-interface of that name)", BR_EX.bridge)]
    NoBrEx,
    #[error("{} does not carry the node IP {ip} (from {})", BR_EX.bridge, file.display())]
    NoNodeIp { ip: IpAddr, file: PathBuf },
    #[error("{} has no address", BR_EX.bridge)]
    NoAddress,
    #[error("netlink: {0}")]
    Netlink(#[from] selection::netlink::NetlinkError),
    #[error(transparent)]
    Probe(#[from] crate::probe::Failed),
}

/// What a change must keep working, found out before it: the probes of `targets` that pass on
/// `before` (the node as it is) must pass again within `bound` after it (or a little after the
/// bonds it re-activated negotiate LACP: [`Renegotiating::probe_limit`]), read through `reader`.
pub struct Checks<'a> {
    pub targets: probe::Targets,
    pub bound: Duration,
    /// How long the change itself may take before it is rolled back (`None`: as long as it
    /// takes); the probes' `bound` counts from when it is in place.
    pub deadline: Option<Duration>,
    pub before: &'a Snapshot,
    pub reader: &'a mut NetlinkReader,
}

/// Applies `state` inside the checkpoint (`timeout`, `lasting`), then runs `first` (a front
/// end's own step: the declarative path's clean-up), checks br-ex and the probes, and commits
/// only if all of that passes. The probes are selected while the change is planned. The
/// caller holds the change lock (passed on to the process left behind to undo the change if
/// this one is killed).
pub async fn apply_checked<F>(
    s: &Settings,
    nm: &Nm,
    state: nmstate::NetworkState,
    timeout: Duration,
    lasting: Lasting,
    checks: Checks<'_>,
    first: F,
) -> Result<(), Failed<CheckFailed>>
where
    F: AsyncFnOnce() -> Result<(), CheckFailed>,
{
    let Checks {
        targets,
        bound,
        deadline,
        before,
        reader,
    } = checks;
    let select = probe::select(&targets, before);
    let check = async |selected: probe::Selected,
                       renegotiating: Renegotiating|
           -> Result<(), CheckFailed> {
        first().await?;
        check_br_ex(s).await?;
        let start = Instant::now();
        let limit = renegotiating.probe_limit(start, bound).await;
        Ok(probe::await_after(reader, &selected, start, limit).await?)
    };
    let bounds = (timeout, deadline);
    checkpoint::within_checkpoint(nm, state, bounds, lasting, select, check).await
}

/// br-ex exists and carries the node IP (the install's seeds make br-ex mandatory in these
/// files); otherwise the state cannot be what the node runs on.
async fn check_br_ex(s: &Settings) -> Result<(), CheckFailed> {
    let mut reader = NetlinkReader::connect()?;
    let snap = reader.snapshot().await?;
    let Some(idx) = snap
        .links
        .iter()
        .find(|l| l.name == BR_EX.bridge)
        .map(|l| l.index)
    else {
        return Err(CheckFailed::NoBrEx);
    };
    let node_ip = read_ip_file(&s.node_ip_files().primary_ip()).ok().flatten();
    let on_br_ex = |ip: &IpAddr| {
        snap.addresses
            .iter()
            .any(|a| a.ip == *ip && a.ifindex == idx)
    };
    match node_ip {
        Some(ip) if !on_br_ex(&ip) => Err(CheckFailed::NoNodeIp {
            ip,
            file: s.node_ip_files().primary_ip(),
        }),
        None if !snap.addresses.iter().any(|a| {
            a.ifindex == idx && !a.ip.is_loopback() && !selection::net::is_link_local_unicast(a.ip)
        }) =>
        {
            Err(CheckFailed::NoAddress)
        }
        _ => Ok(()),
    }
}
