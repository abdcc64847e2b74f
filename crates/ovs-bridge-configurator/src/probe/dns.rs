//! The DNS probe (kubernetes-nmstate's): a lookup through each nameserver of resolv.conf. One
//! that answered before a change has to answer after it; one that did not is not awaited.
//!
//! The query is NS for `root-servers.net` (upstream's), or A for the host named by the
//! `dns-probe-name` setting (a node without Internet access has a resolver that knows only its
//! own zone). An answer is a reply with the query's id that is `NOERROR` or `NXDOMAIN`: the
//! nameserver was reached and knows the answer; `SERVFAIL` (it cannot reach its own upstream)
//! and `REFUSED` do not count.

use std::io;
use std::net::{IpAddr, SocketAddr, SocketAddrV6, UdpSocket};
use std::path::Path;
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::{Duration, Instant};

use selection::model::Snapshot;
use selection::resolv_conf;

use crate::settings::probe_name::{ProbeName, ROOT_SERVERS};

const TYPE_A: u16 = 1;
const TYPE_NS: u16 = 2;

static IDS: AtomicU16 = AtomicU16::new(0x5eed);

/// The nameservers of the resolv.conf at `path` as glibc's resolver asks them (the first
/// three), each with the interface of its `%scope` (a name among `snap`'s links, or an index).
/// None when the file is absent or unreadable; a file that is not a resolv.conf, or a scope
/// that names no interface, is said and probes nothing.
pub fn nameservers_of(path: &Path, snap: &Snapshot) -> Vec<SocketAddr> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let servers = match resolv_conf::nameservers(&text) {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!("{}: {e}: no nameserver is probed", path.display());
            return Vec::new();
        }
    };
    servers
        .into_iter()
        .filter_map(|ns| {
            let scope = match (&ns.scope, ns.ip) {
                (Some(scope), IpAddr::V6(_)) => scope.parse().ok().or_else(|| {
                    let link = snap.links.iter().find(|l| &l.name == scope);
                    if link.is_none() {
                        tracing::warn!(
                            "{}: nameserver {}%{scope}: no interface {scope}; it is not probed",
                            path.display(),
                            ns.ip
                        );
                    }
                    Some(link?.index)
                })?,
                _ => 0,
            };
            Some(match ns.ip {
                IpAddr::V4(ip) => SocketAddr::from((ip, 53)),
                IpAddr::V6(ip) => SocketAddr::V6(SocketAddrV6::new(ip, 53, 0, scope)),
            })
        })
        .collect()
}

/// The query for `name`: NS for the root servers' zone, A for anything else.
fn query(id: u16, name: &ProbeName) -> Vec<u8> {
    let qtype = if name.as_str() == ROOT_SERVERS {
        TYPE_NS
    } else {
        TYPE_A
    };
    // Header: id, recursion desired, one question.
    let mut q = id.to_be_bytes().to_vec();
    q.extend_from_slice(&[0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
    for label in name.as_str().split('.') {
        // At most 63 bytes, checked by `ProbeName::new`.
        q.push(label.len() as u8);
        q.extend_from_slice(label.as_bytes());
    }
    q.push(0);
    q.extend_from_slice(&qtype.to_be_bytes());
    q.extend_from_slice(&1u16.to_be_bytes());
    q
}

/// Whether `reply` answers query `id`: NOERROR (0) or NXDOMAIN (3).
fn answers(reply: &[u8], id: u16) -> bool {
    reply.len() >= 12
        && reply[..2] == id.to_be_bytes()
        && reply[2] & 0x80 != 0
        && matches!(reply[3] & 0x0f, 0 | 3)
}

/// What an ICMP unreachable (nothing listening on port 53, no route) means for a lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Before a change: the server does not work here, so the probe is not selected at once
    /// (as Go's resolver, kubernetes-nmstate's, fails at once), instead of after the whole
    /// limit.
    Ends,
    /// After a change: the server may be on its way back; ask again until the limit.
    Retried,
}

/// [`lookup`] off the async runtime; an error of the socket itself counts as no answer.
pub async fn answered_within(
    at: SocketAddr,
    name: &ProbeName,
    limit: Duration,
    refusal: Refusal,
) -> bool {
    let name = name.clone();
    tokio::task::spawn_blocking(move || lookup(at, &name, limit, refusal))
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or(false)
}

/// Whether the nameserver at `at` answers a lookup of `name` within `limit` (one query, resent
/// every 200 ms).
fn lookup(at: SocketAddr, name: &ProbeName, limit: Duration, refusal: Refusal) -> io::Result<bool> {
    let deadline = Instant::now() + limit;
    let bind: SocketAddr = if at.is_ipv4() {
        "0.0.0.0:0".parse().unwrap()
    } else {
        "[::]:0".parse().unwrap()
    };
    let sock = UdpSocket::bind(bind)?;
    sock.connect(at)?;
    let id = IDS.fetch_add(1, Ordering::Relaxed);
    let packet = query(id, name);
    let mut buf = [0u8; 1500];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(false);
        }
        // A send may fail while the route to the server is being changed: try again.
        let _ = sock.send(&packet);
        let round_end = Instant::now() + left.min(Duration::from_millis(200));
        loop {
            let wait = round_end.saturating_duration_since(Instant::now());
            if wait.is_zero() {
                break;
            }
            sock.set_read_timeout(Some(wait))?;
            match sock.recv(&mut buf) {
                Ok(n) if answers(&buf[..n], id) => return Ok(true),
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    break;
                }
                // ICMP unreachable (nothing listening, no route): not an answer.
                Err(_) if refusal == Refusal::Ends => return Ok(false),
                Err(_) => std::thread::sleep(wait.min(Duration::from_millis(50))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(n: &str) -> ProbeName {
        ProbeName::new(n).unwrap()
    }

    #[test]
    fn nameservers_are_glibcs_three_with_a_link_local_ones_interface() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("resolv.conf");
        std::fs::write(
            &path,
            "search example.com\nnameserver fe80::1%br-ex\nnameserver fe80::2%7\n\
             nameserver 192.0.2.53\nnameserver 192.0.2.54\n",
        )
        .unwrap();
        let snap = selection::fixture::snapshot().link(5, "br-ex").build();
        let want: Vec<SocketAddr> = vec![
            "[fe80::1%5]:53".parse().unwrap(),
            "[fe80::2%7]:53".parse().unwrap(),
            "192.0.2.53:53".parse().unwrap(),
        ];
        assert_eq!(nameservers_of(&path, &snap), want);
        std::fs::write(&path, "nameserver fe80::1%ens9\nnameserver 192.0.2.53\n").unwrap();
        assert_eq!(
            nameservers_of(&path, &snap),
            vec!["192.0.2.53:53".parse::<SocketAddr>().unwrap()],
            "no interface ens9"
        );
        std::fs::write(&path, "nameserver 192.0.2.53\n<html>\n").unwrap();
        assert!(nameservers_of(&path, &snap).is_empty(), "not a resolv.conf");
        assert!(nameservers_of(&dir.path().join("missing"), &snap).is_empty());
    }

    #[test]
    fn the_query_is_ns_for_the_root_servers_and_a_for_a_host() {
        let q = query(0x1234, &ProbeName::default());
        assert_eq!(&q[..4], &[0x12, 0x34, 0x01, 0x00]);
        assert_eq!(&q[12..], b"\x0croot-servers\x03net\x00\x00\x02\x00\x01");
        let q = query(1, &name("api.cluster.example."));
        assert_eq!(&q[12..q.len() - 4], b"\x03api\x07cluster\x07example\x00");
        assert_eq!(&q[q.len() - 4..], &[0, 1, 0, 1]);
    }

    #[test]
    fn a_name_that_cannot_be_queried_is_refused_with_the_reason() {
        let long = "a".repeat(64);
        for (bad, want) in [
            (long.as_str(), "longer than 63 bytes"),
            ("api..example", "empty label"),
            ("", "empty label"),
            ("ápi.example", "'á' is not a letter"),
            ("api example", "' ' is not a letter"),
            ("-api.example", "begins or ends with '-'"),
        ] {
            let e = ProbeName::new(bad).unwrap_err().to_string();
            assert!(e.contains(want), "{bad:?}: {e}");
        }
        let too_long = vec!["a".repeat(63); 4].join(".");
        assert!(matches!(
            ProbeName::new(&too_long),
            Err(crate::settings::probe_name::BadProbeName::TooLong(_))
        ));
        for good in [
            "root-servers.net",
            "api-int.ostest.example.",
            "_srv.example",
            "a",
        ] {
            assert!(ProbeName::new(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn only_a_reply_to_the_same_id_that_knows_answers() {
        let mut reply = query(7, &ProbeName::default());
        reply[2] |= 0x80;
        assert!(answers(&reply, 7));
        assert!(!answers(&reply, 8), "another id");
        reply[3] = 0x83;
        assert!(answers(&reply, 7), "NXDOMAIN");
        reply[3] = 0x82;
        assert!(!answers(&reply, 7), "SERVFAIL");
        reply[3] = 0x85;
        assert!(!answers(&reply, 7), "REFUSED");
        assert!(
            !answers(&query(7, &ProbeName::default()), 7),
            "a query, not a reply"
        );
    }

    /// A loopback port nothing listens on (bound, then released).
    fn closed_port() -> SocketAddr {
        UdpSocket::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
    }

    #[test]
    fn a_refused_lookup_ends_at_once_before_a_change_and_is_asked_again_after() {
        let at = closed_port();
        let t = Instant::now();
        let limit = Duration::from_secs(3);
        assert!(!lookup(at, &ProbeName::default(), limit, Refusal::Ends).unwrap());
        assert!(t.elapsed() < limit / 2, "{:?}", t.elapsed());
        let t = Instant::now();
        let limit = Duration::from_millis(400);
        assert!(!lookup(at, &ProbeName::default(), limit, Refusal::Retried).unwrap());
        assert!(t.elapsed() >= limit, "{:?}", t.elapsed());
    }

    #[test]
    fn a_nameserver_that_replies_to_the_query_answers() {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        let at = server.local_addr().unwrap();
        let replier = std::thread::spawn(move || {
            let mut buf = [0u8; 512];
            let (n, from) = server.recv_from(&mut buf).unwrap();
            buf[2] |= 0x80;
            server.send_to(&buf[..n], from).unwrap();
        });
        let limit = Duration::from_secs(3);
        assert!(lookup(at, &ProbeName::default(), limit, Refusal::Ends).unwrap());
        replier.join().unwrap();
    }
}
