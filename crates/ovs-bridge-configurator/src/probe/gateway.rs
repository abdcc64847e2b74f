//! The gateway probe: whether the node forwards, i.e. its default gateways answer. On a real
//! kernel an 802.3ad bond is called up seconds before it forwards, and a VLAN may not forward
//! at all, so an active profile proves nothing.
//!
//! A gateway answers when it replies to an ICMP echo through the interface its default route
//! leaves by, or, where ICMP is filtered, when the kernel's neighbour entry for it on that
//! interface is `REACHABLE` (ARP or NDP answered). Echo requests go every 100 ms, so an
//! answering gateway costs a few milliseconds and a filtered one the bounded wait.

use std::io;
use std::mem::{size_of, zeroed};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use rtnetlink::packet_route::neighbour::{NeighbourAddress, NeighbourAttribute, NeighbourState};
use selection::model::Snapshot;
use selection::netlink::NetlinkReader;

use super::BEFORE_LIMIT;

/// How long one echo request is waited for before the next.
const ROUND: Duration = Duration::from_millis(100);

/// A main-table default gateway and the interface its route leaves by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gateway {
    pub ip: IpAddr,
    pub interface: String,
    pub ifindex: u32,
}

/// How a gateway showed it is there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Echo,
    Neighbour,
}

/// A gateway that answered before the change: it has to answer the same way after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answered {
    pub ip: IpAddr,
    pub answer: Answer,
}

/// A gateway that answered before and not after.
#[derive(Debug, thiserror::Error)]
#[error(
    "the gateway {ip} answered {how} before the change and not {through} within {limit:?}: \
     the new uplink does not forward"
)]
pub struct NotForwarding {
    pub ip: IpAddr,
    how: &'static str,
    through: String,
    limit: Duration,
}

/// The main-table default gateways of `snap`, once each, in route order.
pub fn default_gateways(snap: &Snapshot) -> Vec<Gateway> {
    let mut out: Vec<Gateway> = Vec::new();
    for r in snap.main_routes().filter(|r| r.is_default()) {
        let (Some(ip), Some(ifindex)) = (r.gateway, r.oif) else {
            continue;
        };
        let Some(link) = snap.links.iter().find(|l| l.index == ifindex) else {
            continue;
        };
        if !out.iter().any(|g| g.ip == ip) {
            out.push(Gateway {
                ip,
                interface: link.name.clone(),
                ifindex,
            });
        }
    }
    out
}

/// Which of `gateways` answer now (all probed at once, for up to a second).
pub async fn answering(gateways: &[Gateway]) -> Vec<Answered> {
    let start = Instant::now();
    let probes = gateways.iter().map(|g| async move {
        let answer = probe(g, BEFORE_LIMIT, Answer::Echo).await;
        (answer, start.elapsed())
    });
    let answers = futures_util::future::join_all(probes).await;
    gateways
        .iter()
        .zip(answers)
        .filter_map(|(g, (a, took))| {
            let Some(answer) = a else {
                // Said, not an error: a gateway that filters ICMP and was not heard from lately
                // proves nothing either way, and the change must not wait on it.
                tracing::info!(
                    "gateway {} does not answer through {} within {BEFORE_LIMIT:?}: it is not \
                     awaited after the change",
                    g.ip,
                    g.interface
                );
                return None;
            };
            tracing::info!(
                "gateway {} answers ({answer:?}) through {} within {:.3} s: it must answer after \
                 the change",
                g.ip,
                g.interface,
                took.as_secs_f64()
            );
            Some(Answered { ip: g.ip, answer })
        })
        .collect()
}

/// Waits until every gateway of `before` answers again (an echo where it gave one, else either),
/// through whatever interface its default route leaves by now; until `deadline`, `limit` after
/// `start`.
pub async fn await_forwarding(
    reader: &mut NetlinkReader,
    before: &[Answered],
    start: Instant,
    limit: Duration,
) -> Result<(), NotForwarding> {
    let deadline = start + limit;
    for want in before {
        let mut through = "by any default route".to_owned();
        loop {
            let now = default_gateways(&reader.snapshot().await.unwrap_or_default());
            let answer = match now.iter().find(|g| g.ip == want.ip) {
                Some(g) => {
                    through = format!("through {}", g.interface);
                    let left = deadline.saturating_duration_since(Instant::now());
                    probe(g, left, want.answer).await
                }
                None => {
                    tokio::time::sleep(ROUND).await;
                    None
                }
            };
            if answer == Some(want.answer) || (answer.is_some() && want.answer == Answer::Neighbour)
            {
                tracing::info!(
                    "gateway {} answers {through}, {:.2} s after activation",
                    want.ip,
                    start.elapsed().as_secs_f64()
                );
                break;
            }
            if Instant::now() >= deadline {
                return Err(NotForwarding {
                    ip: want.ip,
                    how: match want.answer {
                        Answer::Echo => "an echo request",
                        Answer::Neighbour => "neighbour resolution",
                    },
                    through,
                    limit,
                });
            }
        }
    }
    Ok(())
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
    let mut sock = None;
    loop {
        let gw = g.clone();
        let wait = ROUND.min(deadline.saturating_duration_since(Instant::now()));
        let this = sock.take();
        match tokio::task::spawn_blocking(move || round(this, &gw, wait, id)).await {
            Ok((_, Ok(true))) => return Some(Answer::Echo),
            Ok((kept, Ok(false))) => sock = kept,
            Ok((_, Err(e))) => {
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
            Err(e) => tracing::debug!("echo task: {e}"),
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

/// One round of a probe on `sock` (opened on the first round, and again after an error, such as
/// its interface going away): one echo request, and whether a reply came within `wait`.
fn round(
    sock: Option<OwnedFd>,
    g: &Gateway,
    wait: Duration,
    id: u16,
) -> (Option<OwnedFd>, io::Result<bool>) {
    let sock = match sock.map_or_else(|| open(g), Ok) {
        Ok(s) => s,
        Err(e) => return (None, Err(e)),
    };
    match echo(&sock, g, wait, id) {
        Ok(answered) => (Some(sock), Ok(answered)),
        Err(e) => (None, Err(e)),
    }
}

/// A raw ICMP socket that hears only `g`'s interface; it stays open for the whole probe, so a
/// reply that comes after its round still counts in the next.
fn open(g: &Gateway) -> io::Result<OwnedFd> {
    let v6 = g.ip.is_ipv6();
    let (family, proto) = if v6 {
        (libc::AF_INET6, libc::IPPROTO_ICMPV6)
    } else {
        (libc::AF_INET, libc::IPPROTO_ICMP)
    };
    // SAFETY: plain socket(2); the descriptor is owned at once.
    let fd = unsafe { libc::socket(family, libc::SOCK_RAW | libc::SOCK_CLOEXEC, proto) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd is a fresh descriptor nothing else owns.
    let sock = unsafe { OwnedFd::from_raw_fd(fd) };
    let name = g.interface.as_bytes();
    setsockopt(
        &sock,
        libc::SO_BINDTODEVICE,
        name.as_ptr().cast(),
        name.len(),
    )?;
    Ok(sock)
}

/// One ICMP echo request to `g` on `sock`; whether a reply with `id` came within `wait`.
fn echo(sock: &OwnedFd, g: &Gateway, wait: Duration, id: u16) -> io::Result<bool> {
    let v6 = g.ip.is_ipv6();
    let tv = libc::timeval {
        tv_sec: wait.as_secs() as libc::time_t,
        tv_usec: wait.subsec_micros().max(1) as libc::suseconds_t,
    };
    setsockopt(
        sock,
        libc::SO_RCVTIMEO,
        (&raw const tv).cast(),
        size_of::<libc::timeval>(),
    )?;
    let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let request = echo_request(v6, id, seq);
    send_to(sock, &request, g)?;
    let deadline = Instant::now() + wait;
    let mut buf = [0u8; 1500];
    while Instant::now() < deadline {
        // SAFETY: all-zero is a valid sockaddr_storage.
        let mut src: libc::sockaddr_storage = unsafe { zeroed() };
        let mut src_len = size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        // SAFETY: buf and src are valid for the lengths given.
        let n = unsafe {
            libc::recvfrom(
                sock.as_raw_fd(),
                buf.as_mut_ptr().cast(),
                buf.len(),
                0,
                (&raw mut src).cast(),
                &mut src_len,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Ok(false),
                io::ErrorKind::Interrupted => continue,
                _ => Err(e),
            };
        }
        if source(&src) == Some(g.ip) && is_reply(&buf[..n as usize], v6, id) {
            return Ok(true);
        }
    }
    Ok(false)
}

fn setsockopt(
    sock: &OwnedFd,
    opt: libc::c_int,
    value: *const libc::c_void,
    len: usize,
) -> io::Result<()> {
    // SAFETY: value points to len readable bytes for the duration of the call.
    let rc = unsafe {
        libc::setsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            opt,
            value,
            len as libc::socklen_t,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn send_to(sock: &OwnedFd, packet: &[u8], g: &Gateway) -> io::Result<()> {
    // SAFETY: all-zero is a valid sockaddr_storage; the family-specific view written below
    // fits inside it.
    let mut addr: libc::sockaddr_storage = unsafe { zeroed() };
    let len = match g.ip {
        IpAddr::V4(ip) => {
            let sin = (&raw mut addr).cast::<libc::sockaddr_in>();
            // SAFETY: sockaddr_storage is large and aligned enough for sockaddr_in.
            unsafe {
                (*sin).sin_family = libc::AF_INET as libc::sa_family_t;
                (*sin).sin_addr.s_addr = u32::from(ip).to_be();
            }
            size_of::<libc::sockaddr_in>()
        }
        IpAddr::V6(ip) => {
            let sin6 = (&raw mut addr).cast::<libc::sockaddr_in6>();
            // SAFETY: sockaddr_storage is large and aligned enough for sockaddr_in6.
            unsafe {
                (*sin6).sin6_family = libc::AF_INET6 as libc::sa_family_t;
                (*sin6).sin6_addr.s6_addr = ip.octets();
                // A link-local gateway needs its interface as the scope.
                (*sin6).sin6_scope_id = g.ifindex;
            }
            size_of::<libc::sockaddr_in6>()
        }
    };
    // SAFETY: packet and addr are valid for the lengths given.
    let n = unsafe {
        libc::sendto(
            sock.as_raw_fd(),
            packet.as_ptr().cast(),
            packet.len(),
            0,
            (&raw const addr).cast(),
            len as libc::socklen_t,
        )
    };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
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

/// The address a datagram came from.
fn source(addr: &libc::sockaddr_storage) -> Option<IpAddr> {
    let ptr = std::ptr::from_ref(addr);
    match i32::from(addr.ss_family) {
        // SAFETY: the family says which view the kernel wrote.
        libc::AF_INET => Some(IpAddr::V4(Ipv4Addr::from(u32::from_be(unsafe {
            (*ptr.cast::<libc::sockaddr_in>()).sin_addr.s_addr
        })))),
        // SAFETY: as above.
        libc::AF_INET6 => Some(IpAddr::V6(Ipv6Addr::from(unsafe {
            (*ptr.cast::<libc::sockaddr_in6>()).sin6_addr.s6_addr
        }))),
        _ => None,
    }
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
    fn default_gateways_are_the_main_tables_once_each() {
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
        assert_eq!(gws[0].interface, "bond0");
    }
}
