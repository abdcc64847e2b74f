//! The names configure-ovs.sh gives its bridges and profiles, which every path (the automatic
//! conversion, the NMState engine's guard rails, the clean-up) recognises br-ex and br-ex1 by.

use serde::Serialize;

/// The bridge names, ports and metrics of configure-ovs.
pub const BR_EX: BridgeNames = BridgeNames {
    bridge: "br-ex",
    port: "phys0",
    metric: 48,
};
pub const BR_EX1: BridgeNames = BridgeNames {
    bridge: "br-ex1",
    port: "phys1",
    metric: 49,
};
/// Suffix of re-homed bond/team port profiles.
pub const SLAVE_CLONE_SUFFIX: &str = "-slave-ovs-clone";

/// One bridge's names: `<bridge>`, `ovs-port-<bridge>`, `ovs-if-<bridge>`, `ovs-port-<port>`,
/// `ovs-if-<port>`; `metric` for its routes (below NM's defaults, so the bridge wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BridgeNames {
    pub bridge: &'static str,
    pub port: &'static str,
    pub metric: u32,
}

impl BridgeNames {
    /// The ovs-bridge profile (`br-ex`).
    pub fn bridge_profile(&self) -> String {
        self.bridge.to_string()
    }
    /// The ovs-port of the uplink (`ovs-port-phys0`).
    pub fn uplink_port_profile(&self) -> String {
        format!("ovs-port-{}", self.port)
    }
    /// The ovs-port of the internal interface (`ovs-port-br-ex`).
    pub fn interface_port_profile(&self) -> String {
        format!("ovs-port-{}", self.bridge)
    }
    /// The uplink, as a port of the bridge (`ovs-if-phys0`).
    pub fn uplink_profile(&self) -> String {
        format!("ovs-if-{}", self.port)
    }
    /// The internal interface that carries the node IP (`ovs-if-br-ex`).
    pub fn interface_profile(&self) -> String {
        format!("ovs-if-{}", self.bridge)
    }
    /// All five, in creation order.
    pub fn profile_ids(&self) -> [String; 5] {
        [
            self.bridge_profile(),
            self.uplink_port_profile(),
            self.interface_port_profile(),
            self.uplink_profile(),
            self.interface_profile(),
        ]
    }
}

/// Whether `id` is a profile this tool creates (for clean-up).
pub fn is_ours(id: &str) -> bool {
    id.ends_with(SLAVE_CLONE_SUFFIX)
        || BR_EX
            .profile_ids()
            .iter()
            .chain(BR_EX1.profile_ids().iter())
            .any(|x| x == id)
}
