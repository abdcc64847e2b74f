//! Bond port rules: an 802.3ad (LACP) port is given up to 5 s to reach "collecting,
//! distributing" on both ends before activation (OCPBUGS-60805), read from the kernel through
//! netlink (no `ip -d link` parsing).

use std::time::Duration;

use futures_util::TryStreamExt;
use rtnetlink::packet_route::link::{
    InfoBondPort, InfoPortData, LinkAttribute, LinkFlags, LinkInfo, LinkMessage,
};
use selection::service::with_netlink;

/// How long an LACP port may take to settle before activation goes on anyway (a warning).
pub const LACP_SETTLE: Duration = Duration::from_secs(5);
const COLLECTING_DISTRIBUTING: u8 = 0x10 | 0x20;

/// The LACP view of one bond port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LacpPort {
    pub up: bool,
    /// Present only for ports of an 802.3ad bond.
    pub aggregator: Option<u16>,
    pub actor: u8,
    pub partner: u8,
}

impl LacpPort {
    /// Not an LACP port that is up, or both ends collecting and distributing.
    pub fn settled(&self) -> bool {
        !(self.up && self.aggregator.is_some())
            || (self.actor & COLLECTING_DISTRIBUTING == COLLECTING_DISTRIBUTING
                && self.partner & COLLECTING_DISTRIBUTING == COLLECTING_DISTRIBUTING)
    }
}

fn port_state(msg: &LinkMessage) -> LacpPort {
    let mut p = LacpPort {
        up: msg.header.flags.contains(LinkFlags::Up),
        ..Default::default()
    };
    let infos = msg.attributes.iter().filter_map(|a| match a {
        LinkAttribute::LinkInfo(i) => Some(i),
        _ => None,
    });
    for info in infos.flatten() {
        if let LinkInfo::PortData(InfoPortData::BondPort(attrs)) = info {
            for a in attrs {
                match a {
                    InfoBondPort::AdAggregatorId(id) => p.aggregator = Some(*id),
                    InfoBondPort::AdActorOperPortState(s) => p.actor = s.bits(),
                    InfoBondPort::AdPartnerOperPortState(s) => p.partner = s.bits(),
                    _ => {}
                }
            }
        }
    }
    p
}

async fn read(handle: &rtnetlink::Handle, iface: &str) -> Option<LacpPort> {
    let mut links = handle.link().get().match_name(iface.to_owned()).execute();
    links
        .try_next()
        .await
        .ok()
        .flatten()
        .map(|m| port_state(&m))
}

/// Waits (up to [`LACP_SETTLE`]) for `iface` to settle if it is an LACP port; never fails.
pub async fn wait_lacp(iface: &str) {
    let settle = |handle: rtnetlink::Handle| async move {
        let deadline = tokio::time::Instant::now() + LACP_SETTLE;
        loop {
            match read(&handle, iface).await {
                Some(p) if !p.settled() && tokio::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Some(p) if !p.settled() => {
                    tracing::warn!(
                        "LACP on {iface} did not reach collecting,distributing within {LACP_SETTLE:?}; going on"
                    );
                    break;
                }
                _ => break,
            }
        }
    };
    if let Err(e) = with_netlink(settle).await {
        tracing::warn!("cannot check LACP on {iface}: {e}");
    }
}

/// Waits (up to [`LACP_SETTLE`], its ports at once) for the LACP ports of `bond` to settle after
/// it was (re-)activated: the probes' bound after a change then starts from an uplink that
/// negotiated, not from one whose partner is still deciding. Never fails.
pub async fn wait_ports(bond: &str) {
    let ports = std::fs::read_to_string(format!("/sys/class/net/{bond}/bonding/slaves"))
        .unwrap_or_default();
    futures_util::future::join_all(ports.split_whitespace().map(wait_lacp)).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settled_only_when_both_ends_collect_and_distribute() {
        let lacp = |actor, partner| LacpPort {
            up: true,
            aggregator: Some(1),
            actor,
            partner,
        };
        assert!(lacp(0x3d, 0x3d).settled());
        assert!(
            !lacp(0x3d, 0x0d).settled(),
            "partner not distributing (Cisco agg=0)"
        );
        assert!(!lacp(0x0d, 0x3d).settled());
        assert!(
            LacpPort {
                up: false,
                ..lacp(0, 0)
            }
            .settled(),
            "a down port is not waited for"
        );
        assert!(
            LacpPort {
                aggregator: None,
                ..lacp(0, 0)
            }
            .settled(),
            "not an 802.3ad port"
        );
    }
}
