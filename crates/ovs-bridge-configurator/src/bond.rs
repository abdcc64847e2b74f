//! Bond port rules: an 802.3ad (LACP) port is given up to 5 s to reach "collecting,
//! distributing" on both ends before activation (OCPBUGS-60805), and a bond a change
//! re-activated is watched until it forwards again ([`negotiated`]); read from the kernel
//! through netlink (no `ip -d link` parsing).

use std::time::{Duration, Instant};

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
    /// A port of an 802.3ad bond that is up.
    pub fn lacp(&self) -> bool {
        self.up && self.aggregator.is_some()
    }

    /// An LACP port both ends of which collect and distribute: frames cross it.
    pub fn forwards(&self) -> bool {
        self.lacp()
            && self.actor & COLLECTING_DISTRIBUTING == COLLECTING_DISTRIBUTING
            && self.partner & COLLECTING_DISTRIBUTING == COLLECTING_DISTRIBUTING
    }

    /// Not an LACP port that is up, or one that forwards.
    pub fn settled(&self) -> bool {
        !self.lacp() || self.forwards()
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

/// Whether a bond with `ports` forwards: one LACP port does, or it has no LACP port that is up.
fn forwards(ports: &[LacpPort]) -> bool {
    let mut lacp = ports.iter().filter(|p| p.lacp()).peekable();
    lacp.peek().is_none() || lacp.any(LacpPort::forwards)
}

/// Waits, up to `bound`, until each of `bonds` forwards: one of its LACP ports collects and
/// distributes at both ends (a bond without LACP ports that are up does at once); when that
/// happened (None: not within `bound`, or it cannot be read). A bond the change re-activated
/// had all its ports released and enslaved again, and NetworkManager opens the bond before it
/// enslaves them: the bonding driver's aggregator selection timer (`AD_AGGREGATOR_SELECTION_TIMER`,
/// 8 s, whatever the partner or `lacp_rate`) then holds every port out of collecting and
/// distributing until 8-10 s after the enslavement. Nothing crosses such a bond before.
pub async fn negotiated(bonds: &[String], bound: Duration) -> Option<Instant> {
    let ports: Vec<Vec<String>> = bonds
        .iter()
        .map(|bond| {
            std::fs::read_to_string(format!("/sys/class/net/{bond}/bonding/slaves"))
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_owned)
                .collect()
        })
        .collect();
    let deadline = Instant::now() + bound;
    let wait = |handle: rtnetlink::Handle| async move {
        loop {
            let mut all = true;
            for bond in &ports {
                let mut seen = Vec::new();
                for port in bond {
                    seen.extend(read(&handle, port).await);
                }
                all &= forwards(&seen);
            }
            let now = Instant::now();
            if all {
                return Some(now);
            }
            if now >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    match with_netlink(wait).await {
        Ok(at) => at,
        Err(e) => {
            tracing::warn!("cannot check LACP on {bonds:?}: {e}");
            None
        }
    }
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

    #[test]
    fn a_bond_forwards_through_one_port_or_without_lacp() {
        let port = |up, aggregator, state| LacpPort {
            up,
            aggregator,
            actor: state,
            partner: state,
        };
        let attached = port(true, Some(1), 0x0f);
        let distributing = port(true, Some(1), 0x3f);
        assert!(
            !forwards(&[attached, attached]),
            "held by the selection timer"
        );
        assert!(
            forwards(&[attached, distributing]),
            "one port carries frames"
        );
        assert!(forwards(&[port(true, None, 0)]), "not an 802.3ad bond");
        assert!(forwards(&[]), "no port");
        assert!(
            !forwards(&[port(false, Some(1), 0x3f), attached]),
            "a port that is down forwards nothing"
        );
    }
}
