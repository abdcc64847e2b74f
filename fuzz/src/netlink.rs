//! Raw rtnetlink dump bytes through the conversion to the model, then node-IP selection on the
//! resulting snapshot. Properties: never panics; at most one chosen address per family, each one
//! an address of the snapshot.
//!
//! Input: byte 0 sets the request (bit 0 prefer IPv6, bit 1 with VIPs), the rest is a sequence
//! of netlink messages as the kernel sends them in one datagram.

use std::net::IpAddr;

use rtnetlink::packet_core::{NetlinkBuffer, NetlinkMessage, NetlinkPayload};
use rtnetlink::packet_route::RouteNetlinkMessage;
use selection::netlink::convert;
use selection::{Request, Snapshot, Target, TargetRole, select};

pub fn check(data: &[u8]) {
    let [flags, rest @ ..] = data else { return };
    let mut rest: &[u8] = rest;
    let mut snap = Snapshot::default();
    while let Ok(buf) = NetlinkBuffer::new_checked(rest) {
        let len = buf.length() as usize;
        if len == 0 || len > rest.len() {
            break;
        }
        if let Ok(msg) = NetlinkMessage::<RouteNetlinkMessage>::deserialize(&rest[..len])
            && let NetlinkPayload::InnerMessage(inner) = msg.payload
        {
            match inner {
                RouteNetlinkMessage::NewLink(l) => snap.links.push(convert::link(&l)),
                RouteNetlinkMessage::NewAddress(a) => snap.addresses.extend(convert::address(&a)),
                RouteNetlinkMessage::NewRoute(r) => snap
                    .routes
                    .extend(convert::route(&r).filter(|r| r.matters_for_selection())),
                _ => {}
            }
        }
        // Messages are 4-byte aligned in a datagram.
        rest = &rest[len.next_multiple_of(4).min(rest.len())..];
    }
    snap.normalize();

    let vips: &[&str] = if flags & 2 != 0 {
        &["192.0.2.5", "2001:db8::5"]
    } else {
        &[]
    };
    let req = Request {
        targets: vips
            .iter()
            .map(|v| Target {
                ip: v.parse().unwrap(),
                role: TargetRole::Vip,
            })
            .collect(),
        prefer_ipv6: flags & 1 != 0,
        network_type: "OVNKubernetes".into(),
    };
    let chosen = select(&snap, &req);
    let held: Vec<IpAddr> = snap.addresses.iter().map(|a| a.ip).collect();
    for ip in &chosen.addresses {
        assert!(held.contains(ip), "{ip} chosen but not in the snapshot");
    }
    let v4 = chosen.addresses.iter().filter(|a| a.is_ipv4()).count();
    assert!(v4 <= 1 && chosen.addresses.len() - v4 <= 1, "{chosen:?}");
}
