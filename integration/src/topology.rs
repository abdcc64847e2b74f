//! Node topologies shared by tests and the demo.

use crate::Netns;

/// eth0 is the machine network (dual-stack, default routes with metric 100); eth1 is a second
/// NIC whose default route has the lower metric 50: the situation in which upstream's
/// default-route logic picks the wrong node IP unless a hint or VIP says otherwise.
pub const TWO_NIC_NODE: &str = "\
addr add 192.0.2.10/24 dev eth0
addr add 2001:db8:a::10/64 dev eth0 nodad
route add default via 192.0.2.1 dev eth0 metric 100
route add default via 2001:db8:a::1 dev eth0 metric 100
addr add 203.0.113.10/24 dev eth1
route add default via 203.0.113.1 dev eth1 metric 50
";

/// Builds [`TWO_NIC_NODE`] in `ns`.
pub fn two_nic_node(ns: &Netns) -> Result<(), String> {
    ns.nic("eth0")?;
    ns.nic("eth1")?;
    ns.ip_batch(TWO_NIC_NODE)
}
