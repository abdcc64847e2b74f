//! `cargo xtask deps`: the Debian packages tests and demos use, and NetworkManager rebuilt with
//! OVS. Idempotent and quiet when everything is present; starts no service on the host.

pub(crate) mod apt;
mod nm_ovs;

/// What the test suites run.
const PACKAGES: &[&str] = &[
    // namespaces, veth, routes; ping; sysctl; peak RSS for benchmarks
    "iproute2",
    "iputils-ping",
    "procps",
    "time",
    // the real components
    "openvswitch-switch",
    "network-manager", // nmcli, the dispatcher, the D-Bus policy (its daemon lacks OVS)
    "dbus",
    "keepalived",
    "nftables", // HAProxy's redirect rules keepalived-monitor reads
    "curl",     // keepalived's check scripts
    "dnsmasq-base",
    "systemd-container",
    "ethtool",
    // RHCOS has it: systemd-hostnamed authorises resolv-prepender (root, no capability) through it
    "polkitd",
    // team uplinks (NetworkManager's team plugin drives teamd)
    "libteam-utils", // teamd ("teamd" is only a virtual name: dpkg never reports it installed)
    // the real-kernel tier: Linux 6.1 as a process, with bonding, 8021q, team and openvswitch
    "user-mode-linux",
    // MCO's configure-ovs.sh, which the real-kernel tier runs beside ours given an MCO checkout:
    // RHCOS ships jq, and its awk is gawk (the script's `\s` means nothing to Debian's mawk)
    "jq",
    "gawk",
    // random keys for the support bundle's secrets test (WireGuard, MACsec)
    "openssl",
    // loads and runs policy-controller's OCI image (`cargo xtask image`) in its test; runc
    // because crun refuses the hybrid cgroup hierarchy some CI sandboxes have
    "podman",
    "runc",
];

/// What the NetworkManager build needs on top.
const BUILD_PACKAGES: &[&str] = &[
    "dpkg-dev",
    "gcc",
    "meson",
    "ninja-build",
    "pkg-config",
    "patch",
    "libglib2.0-dev",
    "libudev-dev",
    "libndp-dev",
    "libjansson-dev",
    "xsltproc",
    "libdbus-1-dev",
    "libteam-dev",     // teamdctl: team uplinks
    "libreadline-dev", // nmcli (meson insists on a line editor)
];

pub fn install() -> anyhow::Result<()> {
    apt::ensure(PACKAGES)?;
    if !nm_ovs::is_current() {
        apt::ensure(BUILD_PACKAGES)?;
        nm_ovs::build()?;
    }
    Ok(())
}
