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
    // the font the demo's timeline is drawn with (loaded from its file, see timeline::png)
    "fonts-dejavu-core",
];

/// What `cargo xtask demo` runs: the cluster's components and the timeline's font (a subset
/// of [`PACKAGES`], so that a fresh machine's demo waits for no test-only package).
const DEMO_PACKAGES: &[&str] = &[
    "iproute2",
    "iputils-ping",
    "procps",
    "openvswitch-switch",
    "network-manager",
    "dbus",
    "keepalived",
    "nftables",
    "curl",
    "dnsmasq-base",
    "ethtool",
    "fonts-dejavu-core",
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

/// Everything: the packages, then NetworkManager's build if it is due.
pub fn install() -> anyhow::Result<()> {
    if packages()? {
        build_network_manager()?;
    }
    Ok(())
}

/// The Debian packages, with those NetworkManager's build needs when that build is due (one
/// `apt-get` run for both); whether it is due. Split from [`build_network_manager`] so that a
/// caller can run that build beside other work (the demo: beside the daemons' Rust build).
pub fn packages() -> anyhow::Result<bool> {
    let build_due = !nm_ovs::is_current();
    let mut all = PACKAGES.to_vec();
    if build_due {
        all.extend(BUILD_PACKAGES);
    }
    apt::ensure(&all)?;
    Ok(build_due)
}

/// NetworkManager built with OVS into its cache (minutes; its output goes to a log file).
pub fn build_network_manager() -> anyhow::Result<()> {
    nm_ovs::build()
}

/// The demo's first step: the packages NetworkManager's build needs, when that build is due;
/// whether it is. The build can then start while [`demo_packages`] installs the rest.
pub fn demo_build_packages() -> anyhow::Result<bool> {
    let build_due = !nm_ovs::is_current();
    if build_due {
        apt::ensure(BUILD_PACKAGES)?;
    }
    Ok(build_due)
}

/// The packages the demo runs (NetworkManager's build fetches its source with a private apt
/// configuration, so both can run at once).
pub fn demo_packages() -> anyhow::Result<()> {
    apt::ensure(DEMO_PACKAGES)
}
