//! Address filters: which addresses may ever become the node IP.

use std::net::{IpAddr, Ipv6Addr};

use serde::Serialize;

use crate::model::Address;
use crate::net::is_link_local_unicast;

/// OVN-Kubernetes' IPv6 masquerade address, often `dadfailed` (OCPBUGS-2512).
pub const OVN_MASQUERADE_V6: IpAddr = IpAddr::V6(Ipv6Addr::new(0xfd69, 0, 0, 0, 0, 0, 0, 2));

/// Upstream `ValidNodeAddress` or `ValidOVNNodeAddress`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressFilter {
    /// Rejects link-local, deprecated IPv6 and egress-IP (`eip` label) addresses.
    Node,
    /// [`AddressFilter::Node`] plus OVN-Kubernetes' `fd69::2`.
    OvnNode,
}

/// Why an address was rejected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Rejection {
    LinkLocal,
    /// IPv6 with preferred lifetime 0 (keepalived adds VIPs this way).
    Deprecated,
    /// The label contains `eip` (egress IPs, OCPBUGS-29095). Linux gives IPv4 addresses the
    /// interface name as default label, so upstream rejects every IPv4 address of an interface
    /// whose name contains `eip`; we keep that quirk so both tools agree on every node.
    EgressLabel {
        label: String,
    },
    OvnMasquerade,
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejection::LinkLocal => f.write_str("link-local"),
            Rejection::Deprecated => f.write_str("deprecated (preferred lifetime 0)"),
            Rejection::EgressLabel { label } => write!(f, "egress IP (label {label:?})"),
            Rejection::OvnMasquerade => f.write_str("OVN masquerade address"),
        }
    }
}

impl AddressFilter {
    /// `None` when the address passes.
    pub fn reject(self, addr: &Address) -> Option<Rejection> {
        if is_link_local_unicast(addr.ip) {
            return Some(Rejection::LinkLocal);
        }
        if addr.is_deprecated() {
            return Some(Rejection::Deprecated);
        }
        if let Some(label) = addr.label.as_deref().filter(|l| l.contains("eip")) {
            return Some(Rejection::EgressLabel {
                label: label.to_owned(),
            });
        }
        if self == AddressFilter::OvnNode && addr.ip == OVN_MASQUERADE_V6 {
            return Some(Rejection::OvnMasquerade);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::addr;

    #[test]
    fn rejects_what_upstream_rejects() {
        let f = AddressFilter::Node;
        assert_eq!(
            f.reject(&addr(2, "169.254.10.10/16")),
            Some(Rejection::LinkLocal)
        );
        assert_eq!(f.reject(&addr(2, "fe80::1/64")), Some(Rejection::LinkLocal));
        assert_eq!(
            f.reject(&addr(2, "2001:db8::9/64").preferred(0)),
            Some(Rejection::Deprecated)
        );
        assert_eq!(
            f.reject(&addr(2, "192.0.2.4/24").label("eth0:eip1")),
            Some(Rejection::EgressLabel {
                label: "eth0:eip1".into()
            })
        );
        // IPv4 is never rejected for its lifetime.
        assert_eq!(f.reject(&addr(2, "192.0.2.5/24").preferred(0)), None);
        // Loopback, ULA, VIP labels, tentative addresses all pass the filter.
        assert_eq!(f.reject(&addr(1, "127.0.0.1/8")), None);
        assert_eq!(f.reject(&addr(2, "192.0.2.100/24").label("vip")), None);
        assert_eq!(f.reject(&addr(2, "fd69::2/112")), None);
        assert_eq!(
            AddressFilter::OvnNode.reject(&addr(2, "fd69::2/112")),
            Some(Rejection::OvnMasquerade)
        );
        assert_eq!(AddressFilter::OvnNode.reject(&addr(2, "fd69::3/112")), None);
    }

    #[test]
    fn egress_label_quirk_hits_interfaces_named_eip() {
        // The kernel labels IPv4 addresses with the interface name.
        let a = addr(3, "198.51.100.7/24").label("veip0");
        assert!(matches!(
            AddressFilter::Node.reject(&a),
            Some(Rejection::EgressLabel { .. })
        ));
    }
}
