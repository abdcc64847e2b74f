//! Whether the running kernel can create each kind of link a desired state adds, asked of the
//! kernel before anything changes. NetworkManager creates a VRF, a VXLAN, a bond or a MACVLAN as
//! a kernel link; on a kernel without the module (not built in, not installed) that creation
//! fails with "Operation not supported", and nmstate retries the activation with growing waits
//! for minutes before it gives up with "Bug: Device(CreationFailed)". Asked first, the kernel
//! answers at once, and the change ends with one plain sentence and nothing changed.
//!
//! The question is an RTM_NEWLINK of that kind with no settings: a kernel without the kind
//! answers EOPNOTSUPP (after trying to load its module, as it would for NetworkManager); a kernel
//! with it either refuses the missing settings (a VLAN without its parent, say) or creates the
//! link, which is deleted at once. Only kinds the change itself is about to create are asked.

use futures_util::TryStreamExt;
use nmstate::{InterfaceType, NetworkState};
use rtnetlink::packet_route::link::{InfoKind, LinkAttribute};
use rtnetlink::{LinkMessageBuilder, LinkUnspec};
use selection::service::with_netlink;

/// The name of the link that asks the kernel; deleted at once when the kernel creates it.
const PROBE_LINK: &str = "obc-kind-probe";

/// A kind of link the running kernel cannot create.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the kernel does not support {what}: it cannot create {iface} (a `{kind}` link: \"Operation \
     not supported\"; its module is not built in and could not be loaded); nothing was changed"
)]
pub struct Unsupported {
    pub iface: String,
    pub kind: &'static str,
    pub what: &'static str,
}

/// The kernel's link kind for an interface type NetworkManager creates as a kernel link, and
/// what it is called in plain words.
pub fn kernel_kind(t: &InterfaceType) -> Option<(&'static str, &'static str)> {
    Some(match t {
        InterfaceType::Bond => ("bond", "bonding"),
        InterfaceType::LinuxBridge => ("bridge", "Linux bridges"),
        InterfaceType::Dummy => ("dummy", "dummy interfaces"),
        InterfaceType::Hsr => ("hsr", "HSR"),
        InterfaceType::MacVlan => ("macvlan", "MACVLAN"),
        InterfaceType::MacVtap => ("macvtap", "MACVTAP"),
        InterfaceType::IpVlan => ("ipvlan", "IPVLAN"),
        InterfaceType::Vlan => ("vlan", "VLANs (802.1Q)"),
        InterfaceType::Vrf => ("vrf", "VRF"),
        InterfaceType::Vxlan => ("vxlan", "VXLAN"),
        InterfaceType::MacSec => ("macsec", "MACsec"),
        InterfaceType::Xfrm => ("xfrm", "XFRM interfaces"),
        _ => return None,
    })
}

/// The interfaces `state` adds (not absent, not a link of the kernel's yet) of kernel kinds, one
/// per kind: (name, kind, plain name).
pub fn new_kinds<'a>(
    state: &'a NetworkState,
    existing: &[String],
) -> Vec<(&'a str, &'static str, &'static str)> {
    let mut out: Vec<(&str, &str, &str)> = Vec::new();
    for iface in state.interfaces.to_vec() {
        if iface.is_absent() || existing.iter().any(|e| e == iface.name()) {
            continue;
        }
        if let Some((kind, what)) = kernel_kind(&iface.iface_type())
            && !out.iter().any(|(_, k, _)| *k == kind)
        {
            out.push((iface.name(), kind, what));
        }
    }
    out
}

/// Asks the kernel about every kind of link `state` adds; the first it cannot create.
pub async fn check(state: &NetworkState) -> Result<(), Unsupported> {
    let asked = with_netlink(|handle| async move {
        let existing = link_names(&handle).await;
        if existing.iter().any(|n| n == PROBE_LINK) {
            // Left by a run killed between asking and deleting: the kernel would answer
            // "exists" before "not supported".
            remove_probe(&handle, "left by an earlier run").await;
        }
        for (iface, kind, what) in new_kinds(state, &existing) {
            if !supported(&handle, kind).await {
                return Err(Unsupported {
                    iface: iface.to_owned(),
                    kind,
                    what,
                });
            }
        }
        Ok(())
    })
    .await;
    match asked {
        Ok(answer) => answer,
        // Without a netlink socket nothing can be asked: the change goes on as before.
        Err(e) => {
            tracing::warn!("cannot ask the kernel which kinds of link it supports: {e}");
            Ok(())
        }
    }
}

/// The kernel's link names (none when they cannot be read).
async fn link_names(handle: &rtnetlink::Handle) -> Vec<String> {
    let mut names = Vec::new();
    let mut links = handle.link().get().execute();
    while let Ok(Some(link)) = links.try_next().await {
        names.extend(link.attributes.iter().filter_map(|a| match a {
            LinkAttribute::IfName(n) => Some(n.clone()),
            _ => None,
        }));
    }
    names
}

/// Whether the kernel can create a `kind` link: anything but EOPNOTSUPP says it can.
async fn supported(handle: &rtnetlink::Handle, kind: &str) -> bool {
    let ask = LinkMessageBuilder::<LinkUnspec>::new_with_info_kind(InfoKind::Other(kind.into()))
        .name(PROBE_LINK.to_owned())
        .build();
    match handle.link().add(ask).execute().await {
        Ok(()) => {
            remove_probe(handle, kind).await;
            true
        }
        Err(rtnetlink::Error::NetlinkError(e)) => {
            e.to_io().kind() != std::io::ErrorKind::Unsupported
        }
        Err(_) => true,
    }
}

/// Deletes the asking link (`why`: the kind it asked for, or why it was there).
async fn remove_probe(handle: &rtnetlink::Handle, why: &str) {
    let gone = LinkUnspec::new_with_name(PROBE_LINK).build();
    if let Err(e) = handle.link().del_with_message(gone).execute().await {
        tracing::warn!("deleting {PROBE_LINK} ({why}): {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(yaml: &str) -> NetworkState {
        serde_yaml::from_str(yaml).unwrap()
    }

    #[test]
    fn only_new_links_of_kernel_kinds_are_asked_about_once_per_kind() {
        let s = state(
            "interfaces:
- {name: vrf0, type: vrf, state: up, vrf: {port: [eth1], route-table-id: 100}}
- {name: vrf1, type: vrf, state: up, vrf: {port: [], route-table-id: 101}}
- {name: bond0, type: bond, state: up}
- {name: br1, type: linux-bridge, state: absent}
- {name: eth1, type: ethernet, state: up}
- {name: storage, type: ovs-interface, state: up}
",
        );
        let asked = new_kinds(&s, &["bond0".to_owned()]);
        assert_eq!(asked, [("vrf0", "vrf", "VRF")]);
    }

    #[test]
    fn the_error_says_what_the_kernel_lacks_in_plain_words() {
        let e = Unsupported {
            iface: "vrf0".into(),
            kind: "vrf",
            what: "VRF",
        };
        let text = e.to_string();
        assert!(text.starts_with("the kernel does not support VRF: it cannot create vrf0"));
        assert!(text.ends_with("nothing was changed"));
        assert!(!text.contains("Bug"));
    }
}
