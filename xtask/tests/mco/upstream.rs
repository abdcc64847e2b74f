//! MCO's templates (at the pinned commit, 7ff337a4) that do what this project's daemons do, or
//! sit next to them, and what becomes of each when `units/mco` is laid over MCO's templates.
//! The list is the contract `units/README.md` states in prose; the tests hold it against
//! `units/mco`, and, given MCO's tree (`MCO_TEMPLATES=<checkout>/templates`), against upstream:
//! a template upstream adds or renames in those places is a failing line until it is listed
//! here as replaced, retired or kept.

/// What happens to an upstream template on the on-prem platforms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// A template of ours with the same file name wins over it (the text: what ours does).
    Replaced(&'static str),
    /// A zero-byte template of ours deletes it; the text names what does its job now.
    Retired(&'static str),
    /// It stays as upstream has it; the text says why that is right.
    Kept(&'static str),
}

use Fate::*;

const KEEPALIVED_CONF: &str =
    "keepalived-monitor renders keepalived.conf itself (keepalived-monitor.service)";
const CHECK_SCRIPTS: &str = "keepalived-monitor writes the check scripts into /etc/keepalived";
const STATIC_POD: &str = "the keepalived package's keepalived.service with keepalived-monitor's \
                          drop-in, started by keepalived-monitor";
const KUBELET: &str = "kubelet's own unit: not ours";

/// Upstream template path (relative to MCO's `templates/`) and its fate.
pub const UPSTREAM: &[(&str, Fate)] = &[
    // br-ex: configure-ovs.sh and nmstate-configuration.sh -> ovs-bridge-configurator.
    (
        "common/_base/files/configure-ovs-network.yaml",
        Retired("ovs-bridge-configurator apply"),
    ),
    (
        "common/_base/files/nmstate-configuration.yaml",
        Retired("ovs-bridge-configurator apply-nmstate"),
    ),
    (
        "common/_base/units/ovs-configuration.service.yaml",
        Replaced("enables the RPM's ovs-configuration.service"),
    ),
    (
        "common/_base/units/nmstate-configuration.service.yaml",
        Replaced("enables the RPM's nmstate-configuration.service"),
    ),
    (
        "master/00-master/two-node-with-fencing/units/ovs-configuration-skip-rerun.service.yaml",
        Replaced("the same drop-in; ovs-bridge-configurator writes the marker"),
    ),
    (
        "common/_base/units/mtu-migration.service.yaml",
        Kept("ordered by ovs-configuration.service's name, which ours keeps"),
    ),
    (
        "common/_base/units/ipsec.service.yaml",
        Kept("its drop-in orders ipsec after ovs-configuration.service, whose name ours keeps"),
    ),
    (
        "common/_base/files/bond-esp-offload.yaml",
        Kept("a NetworkManager dispatcher script for bonds, independent of who builds br-ex"),
    ),
    (
        "master/00-master/two-node-with-fencing/units/corosync.service.yaml",
        Kept("pacemaker's, ordered after ovs-configuration.service"),
    ),
    // Node IP: runtimecfg node-ip -> nodeip-selector.
    (
        "common/_base/units/nodeip-configuration.service.yaml",
        Replaced(
            "nodeip-configuration.service from the RPM, configured by nodeip-selector-config.yaml",
        ),
    ),
    (
        "common/on-prem/units/nodeip-configuration.service.yaml",
        Replaced("enables the RPM's nodeip-configuration.service with API VIPs or on vSphere"),
    ),
    (
        "common/on-prem/files/configure-ip-forwarding.yaml",
        Retired("nodeip-selector enable-forwarding (the unit's ExecStartPost=)"),
    ),
    (
        "common/vsphere/units/nodeip-configuration-vsphere-upi.service.yaml",
        Retired("nodeip-configuration.service, enabled on vSphere without VIPs too"),
    ),
    (
        "common/_base/files/wait-for-node-ip.yaml",
        Kept("reads /run/nodeip-configuration, whose files ours writes byte for byte"),
    ),
    // resolv.conf: the dispatcher script, path unit and resolv-prepender.sh -> resolv-prepender.
    (
        "common/on-prem/files/NetworkManager-resolv-prepender.yaml",
        Retired("resolv-prepender.service"),
    ),
    (
        "common/on-prem/files/resolv-prepender.yaml",
        Retired("resolv-prepender.service"),
    ),
    (
        "common/on-prem/units/on-prem-resolv-prepender.path.yaml",
        Retired("resolv-prepender.service (inotify)"),
    ),
    (
        "common/on-prem/units/on-prem-resolv-prepender.service.yaml",
        Retired("resolv-prepender.service"),
    ),
    (
        "common/on-prem/units/kubelet.service-wait-resolv.yaml",
        Retired(
            "the resolv-prepender RPM's kubelet drop-in under /usr/lib (an /etc copy would shadow it)",
        ),
    ),
    (
        "common/on-prem/files/NetworkManager-onprem.conf.yaml",
        Replaced("the same rc-manager=unmanaged, only with API VIPs"),
    ),
    (
        "common/on-prem/files/wait-for-br-ex-up.yaml",
        Kept("waits for br-ex-up, which resolv-prepender touches"),
    ),
    (
        "common/on-prem/units/wait-for-br-ex-up.yaml",
        Kept("waits for br-ex-up, which resolv-prepender touches"),
    ),
    // keepalived: the static pod, runtimecfg's dynkeepalived and its templates -> keepalived-monitor.
    ("common/on-prem/files/keepalived.yaml", Retired(STATIC_POD)),
    (
        "arbiter/00-arbiter/on-prem/files/keepalived.yaml",
        Retired(STATIC_POD),
    ),
    (
        "common/on-prem/files/keepalived-script-default-ingress.yaml",
        Retired(CHECK_SCRIPTS),
    ),
    (
        "master/00-master/on-prem/files/keepalived-keepalived.yaml",
        Retired(KEEPALIVED_CONF),
    ),
    (
        "worker/00-worker/on-prem/files/keepalived-keepalived.yaml",
        Retired(KEEPALIVED_CONF),
    ),
    (
        "arbiter/00-arbiter/on-prem/files/keepalived-keepalived.yaml",
        Retired(KEEPALIVED_CONF),
    ),
    (
        "master/00-master/on-prem/files/keepalived-mcs-script.yaml",
        Retired(CHECK_SCRIPTS),
    ),
    (
        "master/00-master/on-prem/files/keepalived-script-both.yaml",
        Retired(CHECK_SCRIPTS),
    ),
    (
        "master/00-master/on-prem/files/keepalived-script.yaml",
        Retired(CHECK_SCRIPTS),
    ),
    (
        "arbiter/00-arbiter/on-prem/files/keepalived-mcs-script.yaml",
        Retired(CHECK_SCRIPTS),
    ),
    (
        "arbiter/00-arbiter/on-prem/files/keepalived-script-both.yaml",
        Retired(CHECK_SCRIPTS),
    ),
    (
        "arbiter/00-arbiter/on-prem/files/keepalived-script.yaml",
        Retired(CHECK_SCRIPTS),
    ),
    (
        "common/on-prem/files/baremetal-keepalived-flip-mode.yaml",
        Kept("writes monitor.conf, which keepalived-monitor reads"),
    ),
    // The rest of the on-prem directories: not replaced by this project.
    (
        "common/on-prem/files/coredns.yaml",
        Kept("CoreDNS is not replaced"),
    ),
    (
        "common/on-prem/files/coredns-corefile.yaml",
        Kept("CoreDNS is not replaced"),
    ),
    (
        "master/00-master/on-prem/files/haproxy.yaml",
        Kept("HAProxy is not replaced"),
    ),
    (
        "master/00-master/on-prem/files/haproxy-haproxy.yaml",
        Kept("HAProxy is not replaced"),
    ),
    (
        "master/01-master-kubelet/on-prem/units/kubelet.service.yaml",
        Kept(KUBELET),
    ),
    (
        "worker/01-worker-kubelet/on-prem/units/kubelet.service.yaml",
        Kept(KUBELET),
    ),
    (
        "arbiter/01-arbiter-kubelet/on-prem/units/kubelet.service.yaml",
        Kept(KUBELET),
    ),
];

/// Words that make an upstream template this list's business: the programs and units the
/// project replaces or feeds.
pub const KEYWORDS: &[&str] = &[
    "configure-ovs",
    "nmstate-configuration",
    "nodeip-configuration",
    "runtimecfg",
    "resolv-prepender",
    "keepalived",
    "configure-ip-forwarding",
    "ovs-configuration",
    "rc-manager",
];

/// Platform directories MCO walks for some on-prem pool (`getPaths`).
pub const ON_PREM_DIRS: &[&str] = &[
    "_base",
    "on-prem",
    "baremetal",
    "openstack",
    "ovirt",
    "vsphere",
    "nutanix",
    "sno",
    "two-node-with-fencing",
];
