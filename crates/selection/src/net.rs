//! IP address helpers with the semantics of Go's `net` package.
//!
//! Upstream (baremetal-runtimecfg) compares, prints and classifies addresses through Go's `net.IP`
//! and `net.IPNet`. The node-IP files and kubelet drop-ins carry that text, so every consumer in
//! the cluster expects it: IPv6 in RFC 5952 form and IPv4-mapped IPv6 (`::ffff:a.b.c.d`) printed
//! as a bare dotted quad. Containment also follows Go: IPv4 and IPv4-mapped addresses are compared
//! as 4-byte values.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde::{Serialize, Serializer};

/// The text Go prints for `ip`: RFC 5952 for IPv6, dotted quad for IPv4 and IPv4-mapped IPv6.
pub fn go_text(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            // Rust's Display is RFC 5952 for everything that is not IPv4-mapped.
            None => v6.to_string(),
        },
    }
}

/// Go's `ip.To4()`: the 4-byte form of an IPv4 or IPv4-mapped IPv6 address.
pub fn to4(ip: IpAddr) -> Option<Ipv4Addr> {
    match ip {
        IpAddr::V4(v4) => Some(v4),
        IpAddr::V6(v6) => v6.to_ipv4_mapped(),
    }
}

/// Upstream's text-based family test (`IsIPv6`): the Go text contains a colon.
/// IPv4-mapped addresses therefore count as IPv4.
pub fn text_is_ipv6(ip: IpAddr) -> bool {
    go_text(ip).contains(':')
}

/// Go's `IsLinkLocalUnicast`: 169.254.0.0/16 (also IPv4-mapped) and fe80::/10.
pub fn is_link_local_unicast(ip: IpAddr) -> bool {
    if let Some(v4) = to4(ip) {
        return v4.octets()[0] == 169 && v4.octets()[1] == 254;
    }
    match ip {
        IpAddr::V6(v6) => (v6.segments()[0] & 0xffc0) == 0xfe80,
        IpAddr::V4(_) => false,
    }
}

/// Go's `IsPrivate`: 10/8, 172.16/12, 192.168/16 (also IPv4-mapped) and fc00::/7.
pub fn is_private(ip: IpAddr) -> bool {
    if let Some(v4) = to4(ip) {
        return v4.is_private();
    }
    match ip {
        IpAddr::V6(v6) => (v6.octets()[0] & 0xfe) == 0xfc,
        IpAddr::V4(_) => false,
    }
}

/// A hardware address as NetworkManager and nmstate write it: `02:AB:00:01:02:FF`; empty for
/// none.
pub fn mac_text(bytes: &[u8]) -> String {
    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02X}")).collect();
    hex.join(":")
}

/// Raw bytes as the kernel (and Go's netlink library) store them: 4 for IPv4, 16 for IPv6.
pub fn raw_bytes(ip: IpAddr) -> Vec<u8> {
    match ip {
        IpAddr::V4(v4) => v4.octets().to_vec(),
        IpAddr::V6(v6) => v6.octets().to_vec(),
    }
}

/// An address with a prefix length, as the kernel reports it (host bits kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cidr {
    pub ip: IpAddr,
    pub prefix_len: u8,
}

impl Cidr {
    /// A prefix longer than the family allows is clamped, as the kernel never reports one.
    pub fn new(ip: IpAddr, prefix_len: u8) -> Self {
        let max = if ip.is_ipv4() { 32 } else { 128 };
        Cidr {
            ip,
            prefix_len: prefix_len.min(max),
        }
    }

    /// The network this address stands for: a DHCPv6 host address (IPv6 /128) stands for its
    /// /64, as upstream treats it when matching VIPs and peers to the node's network.
    pub fn host_network(&self) -> Cidr {
        if self.ip.is_ipv6() && self.prefix_len == 128 {
            Cidr::new(self.ip, 64)
        } else {
            *self
        }
    }

    /// Go's `IPNet.Contains` on a network built from this address and mask.
    ///
    /// Both sides are reduced to 4 bytes when they are IPv4 or IPv4-mapped; a 16-byte mask on a
    /// 4-byte network keeps its last 32 bits. Mixed families never match.
    pub fn contains(&self, other: IpAddr) -> bool {
        match (to4(self.ip), to4(other)) {
            (Some(net), Some(ip)) => {
                let bits = if self.ip.is_ipv4() {
                    u32::from(self.prefix_len)
                } else {
                    u32::from(self.prefix_len).saturating_sub(96)
                };
                prefix_match(&net.octets(), &ip.octets(), bits)
            }
            (None, None) => match (self.ip, other) {
                (IpAddr::V6(net), IpAddr::V6(ip)) => {
                    prefix_match(&net.octets(), &ip.octets(), u32::from(self.prefix_len))
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// The network address (host bits cleared), for display.
    pub fn network(&self) -> IpAddr {
        match self.ip {
            IpAddr::V4(v4) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix_len))
                    .unwrap_or(0);
                IpAddr::V4(Ipv4Addr::from(u32::from(v4) & mask))
            }
            IpAddr::V6(v6) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix_len))
                    .unwrap_or(0);
                IpAddr::V6(Ipv6Addr::from(u128::from(v6) & mask))
            }
        }
    }
}

fn prefix_match(a: &[u8], b: &[u8], bits: u32) -> bool {
    let full = (bits / 8) as usize;
    if a[..full] != b[..full] {
        return false;
    }
    let rest = bits % 8;
    if rest == 0 {
        return true;
    }
    let mask = 0xffu8 << (8 - rest);
    (a[full] & mask) == (b[full] & mask)
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", go_text(self.ip), self.prefix_len)
    }
}

impl Serialize for Cidr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Serde helper: serialize an address in its Go text form.
pub fn serialize_ip<S: Serializer>(ip: &IpAddr, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&go_text(*ip))
}

/// Serde helper: serialize a list of addresses in their Go text form.
pub fn serialize_ips<S: Serializer>(ips: &[IpAddr], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(ips.iter().map(|ip| go_text(*ip)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn go_text_prints_mapped_as_dotted_quad_and_v6_per_rfc5952() {
        assert_eq!(go_text(ip("::ffff:192.0.2.7")), "192.0.2.7");
        assert_eq!(go_text(ip("2001:0db8:0:0:1:0:0:1")), "2001:db8::1:0:0:1");
        assert_eq!(go_text(ip("2001:DB8::0001")), "2001:db8::1");
        assert_eq!(go_text(ip("::1.2.3.4")), "::102:304");
        assert_eq!(go_text(ip("192.0.2.1")), "192.0.2.1");
    }

    #[test]
    fn text_family_follows_upstream_is_ipv4_is_ipv6() {
        // pkg/utils/network_test.go cases.
        assert!(!text_is_ipv6(ip("192.168.1.99")));
        assert!(text_is_ipv6(ip("fd00::5")));
        assert!(!text_is_ipv6(ip("::ffff:192.168.0.14")));
    }

    #[test]
    fn contains_matches_go_ipnet_semantics() {
        // IpInCidr cases of the upstream tests.
        assert!(Cidr::new(ip("192.168.1.0"), 24).contains(ip("192.168.1.99")));
        assert!(!Cidr::new(ip("1.0.0.0"), 16).contains(ip("192.168.1.99")));
        assert!(Cidr::new(ip("fd00::"), 64).contains(ip("fd00::5")));
        assert!(!Cidr::new(ip("2006::"), 64).contains(ip("fd00::5")));
        assert!(!Cidr::new(ip("fd00::"), 64).contains(ip("192.168.1.99")));
        // IPv4 network contains an IPv4-mapped address (Go reduces it with To4).
        assert!(Cidr::new(ip("192.0.2.5"), 24).contains(ip("::ffff:192.0.2.9")));
        // A mapped network with a 16-byte mask keeps the last 32 bits of the mask.
        assert!(Cidr::new(ip("::ffff:192.0.2.5"), 120).contains(ip("192.0.2.200")));
        assert!(!Cidr::new(ip("::ffff:192.0.2.5"), 120).contains(ip("192.0.3.1")));
        // A real IPv6 network never contains a mapped address.
        assert!(!Cidr::new(ip("::"), 0).contains(ip("::ffff:192.0.2.1")));
        assert!(Cidr::new(ip("2001:db8::1"), 128).contains(ip("2001:db8::1")));
        assert!(!Cidr::new(ip("2001:db8::1"), 128).contains(ip("2001:db8::2")));
        assert!(Cidr::new(ip("0.0.0.0"), 0).contains(ip("203.0.113.9")));
        assert!(Cidr::new(ip("192.0.2.1"), 25).contains(ip("192.0.2.127")));
        assert!(!Cidr::new(ip("192.0.2.1"), 25).contains(ip("192.0.2.128")));
    }

    #[test]
    fn classifies_link_local_and_private_like_go() {
        assert!(is_link_local_unicast(ip("169.254.10.10")));
        assert!(is_link_local_unicast(ip("::ffff:169.254.1.1")));
        assert!(is_link_local_unicast(ip("fe80::1")));
        assert!(is_link_local_unicast(ip("febf::1")));
        assert!(!is_link_local_unicast(ip("fec0::1")));
        assert!(is_private(ip("10.1.2.3")));
        assert!(is_private(ip("172.31.0.1")));
        assert!(!is_private(ip("172.32.0.1")));
        assert!(is_private(ip("::ffff:192.168.0.1")));
        assert!(is_private(ip("fd69::2")));
        assert!(!is_private(ip("2001:db8::1")));
        assert!(!is_private(ip("192.0.2.1")));
    }

    #[test]
    fn macs_are_written_as_networkmanager_and_nmstate_write_them() {
        assert_eq!(mac_text(&[0x02, 0xab, 0, 1, 2, 0xff]), "02:AB:00:01:02:FF");
        assert_eq!(mac_text(&[]), "");
    }

    #[test]
    fn network_clears_host_bits() {
        assert_eq!(Cidr::new(ip("192.0.2.77"), 24).network(), ip("192.0.2.0"));
        assert_eq!(Cidr::new(ip("2001:db8::5"), 64).network(), ip("2001:db8::"));
        assert_eq!(Cidr::new(ip("192.0.2.77"), 0).network(), ip("0.0.0.0"));
    }
}
