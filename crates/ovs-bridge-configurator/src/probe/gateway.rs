//! The gateway probe: whether the node forwards, i.e. its default gateways answer. On a real
//! kernel an 802.3ad bond is called up seconds before it forwards, and a VLAN may not forward
//! at all, so an active profile proves nothing.
//!
//! A gateway answers when it replies to an ICMP echo through the interface its default route
//! leaves by, or, where ICMP is filtered, when the kernel's neighbour entry for it on that
//! interface is `REACHABLE` (ARP or NDP answered). Echo requests go every 100 ms, so an
//! answering gateway costs a few milliseconds and a filtered one the bounded wait.

use std::io;
use std::net::{IpAddr, SocketAddr, SocketAddrV6};
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use rtnetlink::packet_route::neighbour::{NeighbourAddress, NeighbourAttribute, NeighbourState};
use selection::model::Snapshot;
use selection::netlink::NetlinkReader;
use socket2::{Domain, Protocol, Socket, Type};
use tokio::net::UdpSocket;

/// How long a probe may take to pass before a change for it to count as working (one that works
/// does so in milliseconds; a silent one costs this once, all of them at the same time; a
/// nameserver that refuses, with nothing listening on port 53, costs nothing).
pub const BEFORE_LIMIT: Duration = Duration::from_secs(1);

/// How long one echo request is waited for before the next.
const ROUND: Duration = Duration::from_millis(100);

/// A main-table default gateway, with the interface and metric of its lowest-metric route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gateway {
    pub ip: IpAddr,
    pub interface: String,
    pub ifindex: u32,
    pub metric: u32,
}

/// How a gateway showed it is there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Echo,
    Neighbour,
}

/// A default gateway as probed before the change: one that answered has to answer the same way
/// after it; one that did not is never waited for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heard {
    pub ip: IpAddr,
    pub answer: Option<Answer>,
}

/// Why the gateways failed the change (it is rolled back).
#[derive(Debug, thiserror::Error)]
pub enum NotForwarding {
    #[error(
        "the gateway {ip} answered {how} before the change and not {through} within {limit:?}: \
         the new uplink does not forward"
    )]
    Lost {
        ip: IpAddr,
        how: &'static str,
        through: String,
        limit: Duration,
    },
    #[error(
        "the change made {ip} the default gateway (through {interface}) and it does not answer \
         within {limit:?}: the node's traffic would leave by a gateway that is not there"
    )]
    New {
        ip: IpAddr,
        interface: String,
        limit: Duration,
    },
}

/// The main-table default gateways of `snap`, once each (with the route traffic to it takes:
/// the lowest metric), lowest metric first.
pub fn default_gateways(snap: &Snapshot) -> Vec<Gateway> {
    let mut out: Vec<Gateway> = Vec::new();
    for r in snap.main_routes().filter(|r| r.is_default()) {
        let (Some(ip), Some(ifindex)) = (r.gateway, r.oif) else {
            continue;
        };
        let Some(link) = snap.links.iter().find(|l| l.index == ifindex) else {
            continue;
        };
        let g = Gateway {
            ip,
            interface: link.name.clone(),
            ifindex,
            metric: r.metric,
        };
        match out.iter_mut().find(|o| o.ip == ip) {
            Some(o) if o.metric > g.metric => *o = g,
            Some(_) => {}
            None => out.push(g),
        }
    }
    out.sort_by_key(|g| g.metric);
    out
}

/// The gateways the node's traffic leaves by: in each address family, those of the
/// lowest-metric default routes (the kernel's choice).
fn taken(gateways: &[Gateway]) -> impl Iterator<Item = &Gateway> {
    gateways.iter().filter(|g| {
        !gateways
            .iter()
            .any(|o| o.ip.is_ipv4() == g.ip.is_ipv4() && o.metric < g.metric)
    })
}

/// Probes every one of `gateways` now (all at once, for up to a second) and says which answer.
pub async fn answering(gateways: &[Gateway]) -> Vec<Heard> {
    let start = Instant::now();
    let probes = gateways.iter().map(|g| async move {
        let answer = probe(g, BEFORE_LIMIT, Answer::Echo).await;
        (answer, start.elapsed())
    });
    let answers = futures_util::future::join_all(probes).await;
    gateways
        .iter()
        .zip(answers)
        .map(|(g, (answer, took))| {
            match answer {
                // Said, not an error: a gateway that filters ICMP and was not heard from lately
                // proves nothing either way, and the change must not wait on it.
                None => tracing::info!(
                    "gateway {} does not answer through {} within {BEFORE_LIMIT:?}: it is not \
                     awaited after the change",
                    g.ip,
                    g.interface
                ),
                Some(answer) => tracing::info!(
                    "gateway {} answers ({answer:?}) through {} within {:.3} s: it must answer \
                     after the change",
                    g.ip,
                    g.interface,
                    took.as_secs_f64()
                ),
            }
            Heard { ip: g.ip, answer }
        })
        .collect()
}

/// A gateway that has to answer now, and how.
#[derive(Debug)]
struct Due {
    gateway: Gateway,
    /// The answer it gave before the change; `None` for a gateway the change brought.
    before: Option<Answer>,
}

impl Due {
    fn passes(&self, answer: Option<Answer>) -> bool {
        match self.before {
            Some(Answer::Echo) => answer == Some(Answer::Echo),
            Some(Answer::Neighbour) | None => answer.is_some(),
        }
    }

    fn failure(&self, limit: Duration) -> NotForwarding {
        let ip = self.gateway.ip;
        match self.before {
            Some(how) => NotForwarding::Lost {
                ip,
                how: how.described(),
                through: format!("through {}", self.gateway.interface),
                limit,
            },
            None => NotForwarding::New {
                ip,
                interface: self.gateway.interface.clone(),
                limit,
            },
        }
    }
}

impl Answer {
    fn described(self) -> &'static str {
        match self {
            Answer::Echo => "an echo request",
            Answer::Neighbour => "neighbour resolution",
        }
    }
}

/// The gateways that must answer after the change, given the default gateways `now`; or, while
/// one that answered before is missing from them (its route not back yet), that one.
///
/// In each address family where a gateway answered before the change:
/// - every gateway the family's traffic takes now, which catches a change that leaves the old
///   gateway's route in place (a DHCP default route, which nmstate's `state: absent` does not
///   remove) under a lower-metric one through a gateway that is not there;
/// - every gateway that answered before: awaited until its default route is back, unless the
///   change gave the family a new gateway (it replaced the old one), which then stands in.
fn still_due(before: &[Heard], now: &[Gateway]) -> Result<Vec<Due>, (IpAddr, Answer)> {
    let mut out = Vec::new();
    for v4 in [true, false] {
        let family = |ip: &IpAddr| ip.is_ipv4() == v4;
        if !before.iter().any(|b| family(&b.ip) && b.answer.is_some()) {
            continue;
        }
        let was_default = |g: &Gateway| before.iter().any(|b| b.ip == g.ip);
        let taken: Vec<&Gateway> = taken(now).filter(|g| family(&g.ip)).collect();
        let replaced = taken.iter().any(|g| !was_default(g));
        for b in before.iter().filter(|b| family(&b.ip)) {
            match (now.iter().find(|g| g.ip == b.ip), b.answer) {
                (Some(g), Some(answer)) => out.push(Due {
                    gateway: g.clone(),
                    before: Some(answer),
                }),
                (None, Some(answer)) if !replaced => return Err((b.ip, answer)),
                _ => {}
            }
        }
        out.extend(taken.into_iter().filter(|g| !was_default(g)).map(|g| Due {
            gateway: g.clone(),
            before: None,
        }));
    }
    Ok(out)
}

/// Waits until the gateways [`due`] after the change answer (an echo where one was given
/// before, else either), through whatever interface their default routes leave by now; until
/// `limit` after `start`. Routes are read again between probes of at most [`BEFORE_LIMIT`], so
/// a route that moves during the wait is followed.
pub async fn await_forwarding(
    reader: &mut NetlinkReader,
    before: &[Heard],
    start: Instant,
    limit: Duration,
) -> Result<(), NotForwarding> {
    let deadline = start + limit;
    let mut answered: Vec<Gateway> = Vec::new();
    loop {
        let now = default_gateways(&reader.snapshot().await.unwrap_or_default());
        let next = match still_due(before, &now) {
            Err((ip, answer)) => {
                if Instant::now() >= deadline {
                    return Err(NotForwarding::Lost {
                        ip,
                        how: answer.described(),
                        through: "by any default route".to_owned(),
                        limit,
                    });
                }
                tokio::time::sleep(ROUND).await;
                continue;
            }
            Ok(due) => due.into_iter().find(|d| !answered.contains(&d.gateway)),
        };
        let Some(d) = next else {
            return Ok(());
        };
        let left = deadline.saturating_duration_since(Instant::now());
        let enough = d.before.unwrap_or(Answer::Neighbour);
        let answer = probe(&d.gateway, left.min(BEFORE_LIMIT), enough).await;
        if d.passes(answer) {
            tracing::info!(
                "{}gateway {} answers through {}, {:.2} s after activation",
                if d.before.is_none() { "the new " } else { "" },
                d.gateway.ip,
                d.gateway.interface,
                start.elapsed().as_secs_f64()
            );
            answered.push(d.gateway);
        } else if Instant::now() >= deadline {
            return Err(d.failure(limit));
        }
    }
}

/// Echo requests to `g` every [`ROUND`] for up to `limit`, with a look at the neighbour table
/// after each: an echo reply ends it at once, a `REACHABLE` neighbour only when `enough` is
/// [`Answer::Neighbour`] (otherwise an echo is still waited for, and the neighbour is the answer
/// only if none comes: a loaded gateway's reply may come after its neighbour entry).
async fn probe(g: &Gateway, limit: Duration, enough: Answer) -> Option<Answer> {
    let deadline = Instant::now() + limit;
    // One id per probe: a reply to any of its requests counts, also one that comes late.
    let id = (std::process::id() as u16) ^ PROBES.fetch_add(1, Ordering::Relaxed);
    let mut neighbour = false;
    let mut sock: Option<EchoSocket> = None;
    loop {
        let wait = ROUND.min(deadline.saturating_duration_since(Instant::now()));
        // Opened on the first round, and again after an error (its interface went away, say).
        let round = match sock.take().map_or_else(|| EchoSocket::open(g), Ok) {
            Ok(s) => {
                let answered = s.echo(wait, id).await;
                sock = answered.is_ok().then_some(s);
                answered
            }
            Err(e) => Err(e),
        };
        match round {
            Ok(true) => return Some(Answer::Echo),
            Ok(false) => {}
            Err(e) => {
                if e.kind() == io::ErrorKind::PermissionDenied
                    && !RAW_DENIED.swap(true, Ordering::Relaxed)
                {
                    tracing::warn!(
                        "cannot send ICMP echo requests ({e}; the unit grants CAP_NET_RAW): \
                         gateways count only through REACHABLE neighbour entries"
                    );
                }
                tracing::debug!("echo to {} through {}: {e}", g.ip, g.interface);
                tokio::time::sleep(wait).await;
            }
        }
        neighbour = neighbour || reachable(g).await;
        if neighbour && enough == Answer::Neighbour {
            return Some(Answer::Neighbour);
        }
        if Instant::now() >= deadline {
            return neighbour.then_some(Answer::Neighbour);
        }
    }
}

/// Whether the kernel's neighbour entry for `g` on its interface is `REACHABLE`.
async fn reachable(g: &Gateway) -> bool {
    let (ip, ifindex) = (g.ip, g.ifindex);
    let found = selection::service::with_netlink(|handle| async move {
        let mut dump = handle.neighbours().get().execute();
        while let Ok(Some(m)) = dump.try_next().await {
            let is_gw = m.attributes.into_iter().any(|a| match a {
                NeighbourAttribute::Destination(NeighbourAddress::Inet(a)) => IpAddr::V4(a) == ip,
                NeighbourAttribute::Destination(NeighbourAddress::Inet6(a)) => IpAddr::V6(a) == ip,
                _ => false,
            });
            if is_gw && m.header.ifindex == ifindex && m.header.state == NeighbourState::Reachable {
                return true;
            }
        }
        false
    })
    .await;
    found.unwrap_or(false)
}

static PROBES: AtomicU16 = AtomicU16::new(1);
/// Whether the missing raw-socket permission was already said (once per run is enough).
static RAW_DENIED: AtomicBool = AtomicBool::new(false);
static SEQUENCE: AtomicU16 = AtomicU16::new(1);

/// A raw ICMP socket that hears only `g`'s interface and, connected to it, only the gateway
/// (the kernel filters a connected raw socket by source). It stays open for the whole probe, so
/// a reply that comes after its round still counts in the next.
///
/// It is driven as a tokio `UdpSocket`: that is tokio's safe wrapper for a connected datagram
/// socket, and a raw socket is one (`send` and `recv` are the same system calls). tokio's
/// general `AsyncFd` is no longer a safe way to take it: `AsyncFd::new` is deprecated as unsound
/// since tokio 1.54, and its replacement leaves the descriptor's validity to the caller.
struct EchoSocket {
    sock: UdpSocket,
    v6: bool,
}

impl EchoSocket {
    fn open(g: &Gateway) -> io::Result<EchoSocket> {
        let v6 = g.ip.is_ipv6();
        let (domain, protocol) = if v6 {
            (Domain::IPV6, Protocol::ICMPV6)
        } else {
            (Domain::IPV4, Protocol::ICMPV4)
        };
        let sock = Socket::new(domain, Type::RAW, Some(protocol))?;
        sock.bind_device(Some(g.interface.as_bytes()))?;
        // A link-local gateway needs its interface as the scope.
        let to = match g.ip {
            IpAddr::V4(ip) => SocketAddr::from((ip, 0)),
            IpAddr::V6(ip) => SocketAddr::V6(SocketAddrV6::new(ip, 0, 0, g.ifindex)),
        };
        sock.connect(&to.into())?;
        sock.set_nonblocking(true)?;
        Ok(EchoSocket {
            sock: UdpSocket::from_std(sock.into())?,
            v6,
        })
    }

    /// One echo request with `id`; whether a reply with `id` came within `wait`.
    async fn echo(&self, wait: Duration, id: u16) -> io::Result<bool> {
        let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
        let request = echo_request(self.v6, id, seq);
        self.sock.send(&request).await?;
        let reply = async {
            let mut buf = [0u8; 1500];
            loop {
                let n = self.sock.recv(&mut buf).await?;
                if is_reply(&buf[..n], self.v6, id) {
                    return Ok(true);
                }
            }
        };
        tokio::time::timeout(wait, reply).await.unwrap_or(Ok(false))
    }
}

const PAYLOAD: &[u8] = b"ovs-bridge-configurator";

/// An echo request; ICMPv6's checksum is the kernel's (it covers the pseudo-header).
fn echo_request(v6: bool, id: u16, seq: u16) -> Vec<u8> {
    let mut p = vec![if v6 { 128 } else { 8 }, 0, 0, 0];
    p.extend_from_slice(&id.to_be_bytes());
    p.extend_from_slice(&seq.to_be_bytes());
    p.extend_from_slice(PAYLOAD);
    if !v6 {
        let sum = checksum(&p);
        p[2..4].copy_from_slice(&sum.to_be_bytes());
    }
    p
}

/// The Internet checksum (RFC 1071).
fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = data
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Whether `packet` (an IPv4 datagram from a raw ICMP socket, or an ICMPv6 message) is an echo
/// reply with our id.
fn is_reply(packet: &[u8], v6: bool, id: u16) -> bool {
    let (icmp, reply_type) = if v6 {
        (packet, 129)
    } else {
        let Some(&first) = packet.first() else {
            return false;
        };
        let header = usize::from(first & 0x0f) * 4;
        if packet.len() < header.max(20) {
            return false;
        }
        (&packet[header..], 0)
    };
    icmp.len() >= 8 && icmp[0] == reply_type && icmp[4..6] == id.to_be_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use selection::fixture::snapshot;

    #[test]
    fn an_echo_request_carries_a_valid_checksum() {
        let p = echo_request(false, 0x1234, 7);
        assert_eq!(p[0], 8);
        assert_eq!(checksum(&p), 0, "a packet with its checksum sums to zero");
        assert_eq!(&p[4..8], &[0x12, 0x34, 0, 7]);
        assert_eq!(echo_request(true, 1, 1)[0], 128);
    }

    #[test]
    fn only_our_reply_from_the_gateway_counts() {
        let mut reply = vec![0x45, 0, 0, 0, 0, 0, 0, 0, 64, 1, 0, 0, 198, 51, 100, 1];
        reply.extend_from_slice(&[198, 51, 100, 20]);
        let mut icmp = echo_request(false, 9, 3);
        icmp[0] = 0;
        reply.extend_from_slice(&icmp);
        assert!(is_reply(&reply, false, 9));
        assert!(!is_reply(&reply, false, 8), "another pinger");
        assert!(
            !is_reply(&echo_request(true, 9, 3), true, 9),
            "a request is no reply"
        );
        let mut v6 = echo_request(true, 9, 3);
        v6[0] = 129;
        assert!(is_reply(&v6, true, 9));
        assert!(!is_reply(&reply[..10], false, 9), "truncated");
    }

    #[test]
    fn default_gateways_are_the_main_tables_once_each_by_their_lowest_metric() {
        let snap = snapshot()
            .link(2, "bond0")
            .link(3, "br-ex")
            .default_via(2, "198.51.100.1", 100)
            .default_via(3, "198.51.100.1", 48)
            .default_via(2, "fe80::1", 100)
            .build();
        let gws = default_gateways(&snap);
        let ips: Vec<String> = gws.iter().map(|g| g.ip.to_string()).collect();
        assert_eq!(ips, ["198.51.100.1", "fe80::1"]);
        assert_eq!(
            gws[0].interface, "br-ex",
            "traffic takes the metric 48 route"
        );
    }

    fn gateways(routes: &[(u32, &str, u32)]) -> Vec<Gateway> {
        let mut b = snapshot().link(2, "ens3").link(3, "br-ex");
        for &(oif, ip, metric) in routes {
            b = b.default_via(oif, ip, metric);
        }
        default_gateways(&b.build())
    }

    fn heard(ip: &str, answer: Option<Answer>) -> Heard {
        Heard {
            ip: ip.parse().unwrap(),
            answer,
        }
    }

    /// What `due` asks for, as (gateway, interface, how it answered before).
    fn asked(before: &[Heard], now: &[Gateway]) -> Vec<(String, String, Option<Answer>)> {
        still_due(before, now)
            .unwrap()
            .into_iter()
            .map(|d| (d.gateway.ip.to_string(), d.gateway.interface, d.before))
            .collect()
    }

    fn of(ip: &str, interface: &str, before: Option<Answer>) -> (String, String, Option<Answer>) {
        (ip.into(), interface.into(), before)
    }

    #[test]
    fn a_converted_uplinks_gateway_answers_through_br_ex() {
        let before = [heard("198.51.100.1", Some(Answer::Echo))];
        let now = gateways(&[(3, "198.51.100.1", 48), (2, "198.51.100.1", 100)]);
        assert_eq!(
            asked(&before, &now),
            [of("198.51.100.1", "br-ex", Some(Answer::Echo))]
        );
    }

    #[test]
    fn a_lower_metric_default_route_through_a_new_gateway_must_answer_too() {
        // nmstate's `state: absent` leaves the DHCP default route; the static one wins.
        let before = [heard("198.51.100.1", Some(Answer::Echo))];
        let now = gateways(&[(3, "198.51.100.1", 48), (3, "198.51.100.99", 0)]);
        assert_eq!(
            asked(&before, &now),
            [
                of("198.51.100.1", "br-ex", Some(Answer::Echo)),
                of("198.51.100.99", "br-ex", None)
            ]
        );
        let d = still_due(&before, &now).unwrap();
        assert!(
            d[1].passes(Some(Answer::Neighbour)),
            "a new gateway may answer either way"
        );
        assert!(
            !d[0].passes(Some(Answer::Neighbour)),
            "an echo before asks for an echo"
        );
        assert!(
            d[1].failure(Duration::from_secs(8))
                .to_string()
                .contains("made 198.51.100.99 the default gateway (through br-ex)")
        );
    }

    #[test]
    fn a_new_gateway_replaces_the_old_one_and_a_missing_one_is_waited_for() {
        let before = [heard("198.51.100.1", Some(Answer::Echo))];
        let replaced = gateways(&[(3, "198.51.100.254", 48)]);
        assert_eq!(
            asked(&before, &replaced),
            [of("198.51.100.254", "br-ex", None)]
        );
        // No IPv4 default route yet (DHCP on br-ex still under way): the old one is awaited.
        let missing = gateways(&[(3, "2001:db8:1::1", 48)]);
        assert_eq!(
            still_due(&before, &missing).unwrap_err(),
            ("198.51.100.1".parse().unwrap(), Answer::Echo)
        );
        // Another gateway that was a default before taking the traffic does not replace it.
        let before = [
            heard("198.51.100.1", Some(Answer::Echo)),
            heard("198.51.100.2", None),
        ];
        let moved = gateways(&[(2, "198.51.100.2", 10)]);
        assert!(still_due(&before, &moved).is_err());
    }

    #[test]
    fn a_family_whose_gateways_were_silent_is_not_awaited() {
        let before = [
            heard("198.51.100.1", None),
            heard("2001:db8:1::1", Some(Answer::Neighbour)),
        ];
        let now = gateways(&[(3, "198.51.100.99", 0), (3, "2001:db8:1::1", 48)]);
        assert_eq!(
            asked(&before, &now),
            [of("2001:db8:1::1", "br-ex", Some(Answer::Neighbour))]
        );
        // A silent secondary gateway next to an answering one is not awaited either.
        let before = [
            heard("198.51.100.1", Some(Answer::Echo)),
            heard("198.51.100.2", None),
        ];
        let now = gateways(&[(3, "198.51.100.1", 48), (2, "198.51.100.2", 100)]);
        assert_eq!(
            asked(&before, &now),
            [of("198.51.100.1", "br-ex", Some(Answer::Echo))]
        );
    }
}
