// SPDX-License-Identifier: Apache-2.0

use crate::{
    BaseInterface, EthernetInterface, Interface, MergedInterface,
    MergedInterfaces, VethConfig,
};

pub(crate) fn np_veth_to_nmstate(
    np_iface: &nispor::Iface,
    base_iface: BaseInterface,
) -> EthernetInterface {
    let veth_conf = np_iface.veth.as_ref().and_then(|np_veth_info| {
        if np_veth_info.peer.as_str().parse::<u32>().is_ok() {
            // If veth peer is interface index, it means its veth peer is in
            // another network namespace, we hide the veth section
            None
        } else {
            Some(VethConfig {
                peer: np_veth_info.peer.clone(),
            })
        }
    });

    EthernetInterface {
        base: base_iface,
        veth: veth_conf,
        // TODO: Filling the ethernet section
        ..Default::default()
    }
}

pub(crate) fn nms_veth_conf_to_np(
    nms_veth_conf: Option<&VethConfig>,
) -> Option<nispor::VethConf> {
    nms_veth_conf.map(|nms_veth_conf| {
        let mut veth_conf = nispor::VethConf::default();
        veth_conf.peer = nms_veth_conf.peer.to_string();
        veth_conf
    })
}

pub(crate) fn process_new_veth_peer(
    merged_iface: &MergedInterface,
    merged_ifaces: &MergedInterfaces,
) -> Option<nispor::IfaceConf> {
    if merged_iface.current.is_none()
        && merged_iface.merged.is_up()
        && let Some(Interface::Ethernet(apply_iface)) =
            merged_iface.for_apply.as_ref()
        && let Some(peer) = apply_iface.veth.as_ref().map(|v| v.peer.as_str())
    {
        // Mark new veth peer as up if not mentioned in desired state.
        if merged_ifaces
            .kernel_ifaces
            .get(peer)
            .map(|i| i.for_apply.is_some())
            != Some(true)
        {
            let mut np_iface = nispor::IfaceConf::default();
            np_iface.name = peer.to_string();
            np_iface.iface_type = Some(nispor::IfaceType::Veth);
            np_iface.state = nispor::IfaceState::Up;
            return Some(np_iface);
        }
    }
    None
}
