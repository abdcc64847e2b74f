//! The netlink reader and change stream against a real kernel, in network namespaces.

use std::net::IpAddr;
use std::time::Duration;

use integration::{Netns, require_root};
use selection::model::{Family, MAIN_TABLE, addr_flags};
use selection::netlink::{ChangeStream, NetlinkReader};
use selection::{Snapshot, net::go_text};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn snapshot_in(ns: &Netns) -> Snapshot {
    ns.run_in(|| {
        runtime().block_on(async { NetlinkReader::connect().unwrap().snapshot().await.unwrap() })
    })
    .unwrap()
}

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[test]
fn snapshot_converts_links_addresses_and_keeps_only_selection_routes() {
    if !require_root("snapshot_converts_links_addresses") {
        return;
    }
    let ns = Netns::new("nl").unwrap();
    ns.nic("eth0").unwrap();
    ns.nic("eth1").unwrap();
    ns.ip_batch(
        "addr add 192.0.2.10/24 dev eth0 label eth0:eip\n\
         addr add 2001:db8::10/64 dev eth0 nodad preferred_lft 0\n\
         addr add 2001:db8::11/64 dev eth0\n\
         addr add 198.51.100.10/24 dev eth1\n\
         route add default via 192.0.2.1 dev eth0 metric 30\n\
         route add 203.0.113.0/24 via 192.0.2.1\n\
         route add default via 198.51.100.1 dev eth1 table 100\n\
         route add 2001:db8:1::/64 dev eth0 proto ra\n\
         route add default metric 9 nexthop via 192.0.2.1 dev eth0 nexthop via 198.51.100.1 dev eth1\n",
    )
    .unwrap();
    let snap = snapshot_in(&ns);
    let eth0 = ns.ifindex("eth0").unwrap();
    assert!(
        snap.links.windows(2).all(|w| w[0].index < w[1].index),
        "links sorted by ifindex"
    );
    assert_eq!(snap.link_name(eth0), "eth0");
    assert!(snap.link(eth0).unwrap().is_up());

    let a = |s: &str| {
        snap.addresses
            .iter()
            .find(|a| a.ip == ip(s))
            .unwrap_or_else(|| panic!("{s}"))
    };
    assert_eq!(
        (a("192.0.2.10").label.as_deref(), a("192.0.2.10").prefix_len),
        (Some("eth0:eip"), 24)
    );
    assert!(a("2001:db8::10").is_deprecated());
    assert_eq!(a("2001:db8::11").preferred_lifetime, Some(u32::MAX));
    assert!(
        a("2001:db8::11").is_tentative(),
        "DAD runs on a carrier-up veth"
    );
    assert_eq!(
        a("2001:db8::10").flags & addr_flags::NODAD,
        addr_flags::NODAD
    );
    // IPv4 addresses come before IPv6 ones (kernel dump order).
    let first_v6 = snap.addresses.iter().position(|a| a.ip.is_ipv6()).unwrap();
    assert!(snap.addresses[first_v6..].iter().all(|a| a.ip.is_ipv6()));

    let routes: Vec<String> = snap
        .routes
        .iter()
        .map(|r| {
            assert_eq!(r.table, MAIN_TABLE);
            format!(
                "{} {} oif={:?} gw={} metric={} proto={} multipath={}",
                r.family,
                r.destination.map_or("default".into(), |d| d.to_string()),
                r.oif.map(|i| snap.link_name(i)),
                r.gateway.map_or("-".into(), go_text),
                r.metric,
                r.protocol,
                r.multipath
            )
        })
        .collect();
    assert!(
        routes.contains(
            &"IPv4 default oif=Some(\"eth0\") gw=192.0.2.1 metric=30 proto=3 multipath=false"
                .into()
        ),
        "{routes:#?}"
    );
    assert!(
        routes.contains(&"IPv4 default oif=None gw=- metric=9 proto=3 multipath=true".into()),
        "{routes:#?}"
    );
    assert!(
        routes
            .iter()
            .any(|r| r.starts_with("IPv6 2001:db8:1::/64 oif=Some(\"eth0\")")
                && r.contains("proto=9")),
        "{routes:#?}"
    );
    assert!(
        !routes.iter().any(|r| r.contains("203.0.113.0")),
        "static non-default routes are not kept"
    );
    assert!(
        !routes.iter().any(|r| r.contains("198.51.100.1 metric=0")),
        "table 100 is not dumped"
    );
    assert!(
        snap.routes
            .iter()
            .all(|r| r.family == Family::Ipv4 || r.destination.is_some() || r.gateway.is_some())
    );
}

#[test]
fn change_stream_reports_one_coalesced_burst_per_change() {
    if !require_root("change_stream_reports_one_coalesced_burst") {
        return;
    }
    let ns = Netns::new("nlc").unwrap();
    ns.nic("eth0").unwrap();
    let name = ns.name().to_owned();
    let result = ns
        .run_in(|| {
            runtime().block_on(async {
                let mut changes = ChangeStream::subscribe(Duration::from_millis(100)).unwrap();
                let batch: String = (1..=50)
                    .map(|i| format!("addr add 192.0.2.{i}/24 dev eth0\n"))
                    .collect();
                let script = std::thread::spawn(move || {
                    let mut c = std::process::Command::new("ip");
                    c.args(["-n", &name, "-batch", "-"])
                        .stdin(std::process::Stdio::piped());
                    let mut child = c.spawn().unwrap();
                    use std::io::Write;
                    child
                        .stdin
                        .take()
                        .unwrap()
                        .write_all(batch.as_bytes())
                        .unwrap();
                    child.wait().unwrap()
                });
                let first = tokio::time::timeout(Duration::from_secs(5), changes.next()).await;
                assert!(script.join().unwrap().success());
                let second = tokio::time::timeout(Duration::from_millis(500), changes.next()).await;
                (first, second.is_err())
            })
        })
        .unwrap();
    let first = result.0.expect("a change within 5 s").expect("stream open");
    assert!(
        first.addresses && first.routes && !first.overrun,
        "{first:?}"
    );
    assert!(result.1, "50 address additions are reported as one burst");
}

#[test]
fn interrupted_dumps_are_retried_into_consistent_snapshots() {
    if !require_root("interrupted_dumps_are_retried") {
        return;
    }
    let ns = Netns::new("nli").unwrap();
    ns.nic("eth0").unwrap();
    let stable: String = (0..1500u32)
        .map(|i| {
            format!(
                "addr add 2001:db8:{}::{:x}/64 dev eth0 nodad\n",
                i / 256,
                i % 256 + 1
            )
        })
        .collect();
    ns.ip_batch(&stable).unwrap();
    // Churn: bursts of IPv6 address changes with short pauses while dumping (the kernel checks
    // consistency per family, and the long part of this dump is the IPv6 one).
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let churn = {
        let (stop, name) = (stop.clone(), ns.name().to_owned());
        std::thread::spawn(move || {
            let script: String = (1..=20)
                .map(|i| {
                    format!(
                        "addr add 2001:db8:ff::{i:x}/128 dev eth0 nodad\n\
                         addr del 2001:db8:ff::{i:x}/128 dev eth0\n"
                    )
                })
                .collect();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let mut child = std::process::Command::new("ip")
                    .args(["-n", &name, "-batch", "-"])
                    .stdin(std::process::Stdio::piped())
                    .spawn()
                    .unwrap();
                use std::io::Write;
                child
                    .stdin
                    .take()
                    .unwrap()
                    .write_all(script.as_bytes())
                    .unwrap();
                child.wait().unwrap();
                std::thread::sleep(Duration::from_millis(30));
            }
        })
    };
    let (retries, counts) = ns
        .run_in(|| {
            runtime().block_on(async {
                let mut reader = NetlinkReader::connect().unwrap();
                let mut counts = Vec::new();
                let deadline = std::time::Instant::now() + Duration::from_secs(20);
                while reader.retries() == 0 && std::time::Instant::now() < deadline {
                    let snap = reader.snapshot().await.unwrap();
                    // The stable addresses only: a churn address (2001:db8:ff::/48) present
                    // when the dump ran belongs in a consistent snapshot too.
                    let stable: Vec<String> = snap
                        .addresses
                        .iter()
                        .map(|a| a.ip.to_string())
                        .filter(|ip| ip.starts_with("2001:db8:") && !ip.starts_with("2001:db8:ff:"))
                        .collect();
                    let distinct: std::collections::BTreeSet<&String> = stable.iter().collect();
                    counts.push((stable.len(), distinct.len()));
                }
                (reader.retries(), counts)
            })
        })
        .unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    churn.join().unwrap();
    assert!(
        retries > 0,
        "no dump was interrupted in {} snapshots",
        counts.len()
    );
    assert!(
        counts.iter().all(|c| *c == (1500, 1500)),
        "every snapshot holds each stable address once (count, distinct): {counts:?}"
    );
}
