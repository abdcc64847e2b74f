//! A harness node booted by real systemd in `systemd-nspawn`: the fixture of xtask's boot,
//! upgrade and RPM tests (the units as `cargo xtask dist` or the RPMs install them) and of
//! `cargo xtask bench boot`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::keepalived::PASSING_SCRIPTS;
use crate::network_manager::CONF_D;
use crate::node::{PREFIX_LEN, ROUTER, Upstream, ZONE, node_address};
use crate::nspawn::{Boot, BootResult};
use crate::ovs::Ovs;
use crate::process::output;
use crate::{Netns, nm_ovs_build, scratch_dir};

/// Runs a set-up command, panicking with its error (this is a test fixture).
fn run(cmd: &mut Command) {
    if let Err(e) = output(cmd) {
        panic!("{e}");
    }
}

/// The units the packages' presets enable.
pub const UNITS: [&str; 5] = [
    "nodeip-configuration.service",
    "nmstate-configuration.service",
    "ovs-configuration.service",
    "resolv-prepender.service",
    "keepalived-monitor.service",
];

/// The host's Open vSwitch units, masked in the container: `openvswitch.service` stands in.
pub const DEBIAN_OVS_UNITS: [&str; 4] = [
    "ovsdb-server.service",
    "ovs-vswitchd.service",
    "openvswitch-switch.service",
    "ovs-record-hostname.service",
];

pub const API_VIP: &str = "198.51.100.5";
pub const INGRESS_VIP: &str = "198.51.100.4";

/// Units reported in every boot.
pub const REPORT: &str = "systemd-tmpfiles-setup.service NetworkManager.service \
    NetworkManager-wait-online.service openvswitch.service nodeip-configuration.service \
    nmstate-configuration.service nmstate-configuration-live.service \
    network-online.target \
    ovs-configuration.service kubelet-dependencies.target kubelet.service \
    resolv-prepender.service keepalived-monitor.service keepalived.service \
    wait-for-br-ex-up.service node-valid-hostname.service";

/// NetworkManager as MCO configures it on on-prem nodes (`rc-manager=unmanaged`: NM writes
/// /run/NetworkManager/resolv.conf, resolv-prepender owns /etc/resolv.conf), with the
/// harness's keyfile-only, no-polkit basics.
pub const NM_CONF: &str = "[main]\nplugins=keyfile\nauth-polkit=false\ndhcp=internal\n\
    rc-manager=unmanaged\nno-auto-default=*\nhostname-mode=none\nsystemd-resolved=false\n\
    [logging]\nlevel=INFO\n";

/// Stand-ins for what RHCOS and OpenShift provide around our units.
pub fn stand_ins() -> Vec<(String, String)> {
    let nm = nm_ovs_build::current();
    vec![
        (
            "NetworkManager.service".into(),
            format!(
                "[Unit]\nDescription=NetworkManager with OVS (the harness build)\n\
                 Requires=dbus.socket\nAfter=dbus.socket\nBefore=network.target\n\
                 [Service]\nType=dbus\nBusName=org.freedesktop.NetworkManager\n\
                 Environment=HARNESS_NM_OVS_DEFAULT_DATAPATH_TYPE=netdev HARNESS_NM_OVS_NETDEV_HWADDR=1\n\
                 StateDirectory=NetworkManager\n\
                 ExecStart={}/sbin/NetworkManager --no-daemon --config=/harness/nm/NetworkManager.conf \
                 --config-dir=/harness/nm/conf.d --system-config-dir=/harness/nm/sys.d\n",
                nm.display()
            ),
        ),
        (
            "openvswitch.service".into(),
            "[Unit]\nDescription=Open vSwitch (stand-in: ovsdb-server and ovs-vswitchd run in the node namespace)\n\
             [Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/usr/bin/ovs-vsctl --timeout=10 show\n"
                .into(),
        ),
        (
            "kubelet-dependencies.target".into(),
            "[Unit]\nDescription=Dependencies necessary to run kubelet (stand-in)\n".into(),
        ),
        // Records the node IP its environment got from 20-nodenet.conf: present only if
        // nodeip-configuration's daemon-reload happened before kubelet started. Restarts on
        // failure as kubelet does, which is what the resolv-prepender gate relies on.
        (
            "kubelet.service".into(),
            "[Unit]\nDescription=kubelet (stand-in)\nRequires=kubelet-dependencies.target\n\
             After=kubelet-dependencies.target\n\
             [Service]\nType=oneshot\nRemainAfterExit=yes\nRestart=on-failure\nRestartSec=1\n\
             ExecStart=/bin/sh -c 'echo \"$KUBELET_NODE_IP\" > /run/kubelet-node-ip'\n"
                .into(),
        ),
    ]
}

/// Copies the collector makes of the node's state.
pub const COLLECT: &str = r#"
cp /run/nodeip-configuration/primary-ip /harness-out/ 2>/dev/null
cp /etc/resolv.conf /harness-out/resolv.conf 2>/dev/null
cp /etc/keepalived/keepalived.conf /harness-out/ 2>/dev/null
cp /etc/systemd/system/kubelet.service.d/20-nodenet.conf /harness-out/ 2>/dev/null
cp /run/kubelet-node-ip /harness-out/ 2>/dev/null
test -e /run/resolv-prepender-kni-conf-done && echo yes > /harness-out/done-flag
ip -br addr > /harness-out/addr
ip -br link > /harness-out/link
ip route > /harness-out/route
ping -c1 -W2 198.51.100.1 > /harness-out/ping 2>&1 && echo ok >> /harness-out/ping
stat -c '%a %U %n' /etc/keepalived/chk_*.sh > /harness-out/check-scripts 2>&1
sysctl -n net.ipv4.conf.ens3.forwarding net.ipv6.conf.ens3.forwarding > /harness-out/forwarding 2>&1
systemctl status --no-pager keepalived.service > /harness-out/keepalived-status 2>&1
hostnamectl --static > /harness-out/static-hostname 2>&1
hostname > /harness-out/hostname
"#;

/// How the daemons get onto the node.
pub enum Install<'a> {
    /// `xtask dist` (this `xtask` binary) with the binaries in `bins`, every unit enabled.
    Dist { xtask: &'a Path, bins: &'a Path },
    /// These RPMs into an empty root, enabled by their presets.
    Rpms(&'a [PathBuf]),
}

/// Upstream's nodeip-configuration on a node that layers a daemon other than nodeip-selector:
/// the node IP files the others read.
const NODE_IP_STAND_IN: &str = "[Unit]\nDescription=upstream's nodeip-configuration (stand-in)\n\
    Before=resolv-prepender.service keepalived-monitor.service ovs-configuration.service \
    kubelet-dependencies.target\n[Service]\nType=oneshot\nRemainAfterExit=yes\n\
    ExecStart=/bin/sh -c 'mkdir -p /run/nodeip-configuration && \
    printf 198.51.100.11 > /run/nodeip-configuration/primary-ip && \
    printf 198.51.100.11 > /run/nodeip-configuration/ipv4'\n\
    [Install]\nWantedBy=multi-user.target\n";

/// One node: upstream network, namespace with uplink `ens3`, OVS, and the staged install.
pub struct NodeBoot {
    ovs: Ovs,
    pub ns: Netns,
    pub up: Upstream,
    dir: tempfile::TempDir,
}

impl NodeBoot {
    /// A node whose root holds what `install` puts there.
    pub fn with(install: &Install) -> NodeBoot {
        let dir = scratch_dir("boot").unwrap();
        let mut up = Upstream::start(1, &[]).unwrap();
        let ns = Netns::new("boot").unwrap();
        up.attach(&ns, "ens3", &crate::node::node_mac(1)).unwrap();
        ns.sysctl("net.ipv4.conf.ens3.rp_filter", "1").unwrap();
        let ovs = Ovs::start(&ns, &dir.path().join("openvswitch")).unwrap();
        let b = NodeBoot { ovs, ns, up, dir };
        b.install(install);
        b
    }

    /// The node's Open vSwitch (it runs in the node namespace, outside the container).
    pub fn ovs(&self) -> &Ovs {
        &self.ovs
    }

    /// Between two boots, what a power cycle does outside the container: the links are reset
    /// (NICs down and bare, virtual links gone, no route) and OVS's daemons restart on the
    /// database the previous boot left.
    pub fn power_cycle(&mut self) {
        self.ovs.reboot(&self.ns).unwrap();
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// [`Self::path`] as a bind's host side.
    fn host(&self, rel: &str) -> String {
        self.path(rel).display().to_string()
    }

    /// The install, then what MCO does on a node: enable the units (`systemctl --root`) and
    /// template the configuration files of the daemons present.
    fn install(&self, install: &Install) {
        let root = self.path("root");
        // The staging root `systemctl --root` enables in; its etc/systemd/system becomes the
        // container's.
        let system = root.join("etc/systemd/system");
        fs::create_dir_all(&system).unwrap();
        self.install_units(install, &root, &system);
        for (name, text) in stand_ins() {
            fs::write(system.join(name), text).unwrap();
        }
        // Debian's own OVS units would start a second ovsdb-server on the shared run dir.
        self.systemctl(&[&["mask"], &DEBIAN_OVS_UNITS[..]].concat());
        fs::create_dir_all(self.path("keepalived")).unwrap();
        template_daemon_configs(&root.join("etc"));
        // NetworkManager: its configuration, the node's original uplink profile, its bus policy.
        let nm = self.path("nm");
        fs::create_dir_all(nm.join("conf.d")).unwrap();
        fs::create_dir_all(nm.join("sys.d")).unwrap();
        fs::write(nm.join("NetworkManager.conf"), NM_CONF).unwrap();
        for (name, text) in CONF_D {
            fs::write(nm.join("conf.d").join(name), text).unwrap();
        }
        self.uplink_profile("method=disabled\n");
    }

    /// The daemons into `root` as `install` says, and their units enabled (or preset, as a
    /// package's first boot would).
    fn install_units(&self, install: &Install, root: &Path, system: &Path) {
        match install {
            Install::Dist { xtask, bins } => {
                // `cargo xtask dist` with these binaries; every unit enabled.
                run(Command::new(xtask)
                    .args(["dist", "--destdir"])
                    .arg(root)
                    .arg("--bin-dir")
                    .arg(bins));
                self.systemctl(&[&["enable"], &UNITS[..]].concat());
            }
            Install::Rpms(rpms) => {
                // Into an empty root with no database of the OS packages, so without dependency
                // checks; the scriptlets' `systemctl preset` is run offline below, as a first
                // boot would.
                run(Command::new("rpm")
                    .arg(format!("--root={}", root.display()))
                    .args(["--nodeps", "--noscripts", "--nosignature", "-i"])
                    .args(*rpms));
                self.systemctl(&["preset-all"]);
                if !root.join("usr/bin/nodeip-selector").exists() {
                    // Upstream's nodeip-configuration (runtimecfg) still chooses the node IP.
                    fs::write(system.join("harness-node-ip.service"), NODE_IP_STAND_IN).unwrap();
                    self.systemctl(&["enable", "harness-node-ip.service"]);
                }
            }
        }
    }

    /// (Re)writes the node's original uplink profile `ens3`: static IPv4, and `ipv6` as the
    /// body of its `[ipv6]` section.
    pub fn uplink_profile(&self, ipv6: &str) {
        self.uplink_keyfile(
            &format!(
                "method=manual\naddress1={}/{PREFIX_LEN},{ROUTER}\ndns={ROUTER};\n\
                 dns-search={ZONE};\n",
                node_address(1)
            ),
            ipv6,
        );
    }

    /// (Re)writes the uplink profile `ens3` with DHCPv4 and no IPv6.
    pub fn uplink_dhcp(&self) {
        self.uplink_keyfile("method=auto\n", "method=disabled\n");
    }

    fn uplink_keyfile(&self, ipv4: &str, ipv6: &str) {
        self.keyfile(
            "ens3",
            &format!(
                "[connection]\nid=ens3\nuuid=5fb06bd0-0bb0-7ffb-45f1-d6edd65f3e03\ntype=ethernet\n\
                 interface-name=ens3\nautoconnect=true\n[ethernet]\n[ipv4]\n{ipv4}[ipv6]\n{ipv6}"
            ),
        );
    }

    /// Writes profile `id` into the node's persistent /etc/NetworkManager/system-connections,
    /// mode 0600 as NetworkManager requires of keyfiles.
    pub fn keyfile(&self, id: &str, text: &str) {
        let conns = self.path("system-connections");
        fs::create_dir_all(&conns).unwrap();
        let keyfile = conns.join(format!("{id}.nmconnection"));
        fs::write(&keyfile, text).unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&keyfile, fs::Permissions::from_mode(0o600)).unwrap();
    }

    /// `systemctl --root` on the node's staged root (enable, mask, preset before a boot).
    pub fn systemctl(&self, args: &[&str]) {
        run(Command::new("systemctl")
            .arg(format!("--root={}", self.path("root").display()))
            .args(args));
    }

    /// Writes the user's NMState file (`/etc/nmstate/openshift/cluster.yml`).
    pub fn nmstate(&self, text: &str) {
        let d = self.path("nmstate/openshift");
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("cluster.yml"), text).unwrap();
    }

    /// Boots harness.target (kubelet and multi-user.target), waits in the collector until
    /// `ready` (a shell condition) holds or 90 s passed, then collects.
    pub fn boot(&self, ready: &str) -> BootResult {
        self.boot_then(ready, "")
    }

    /// As [`Self::boot`], running `then` (shell) in the collector once `ready` held.
    pub fn boot_then(&self, ready: &str, then: &str) -> BootResult {
        self.boot_with(
            &format!(
                "i=0; until {{ {ready}; }} && echo \"held after $i polls of 0.5 s\" > /harness-out/ready; do \
                 [ $i -ge 180 ] && {{ echo \"did not hold within 90 s\" > /harness-out/ready; break; }}; \
                 sleep 0.5; i=$((i+1)); done\n{then}"
            ),
            Duration::from_secs(120),
        )
    }

    /// Boots harness.target, runs `script` in the collector (within `timeout` for the whole
    /// boot), then collects.
    pub fn boot_with(&self, script: &str, timeout: Duration) -> BootResult {
        let system = self.path("root/etc/systemd/system");
        let boot = Boot {
            binds_ro: self.read_only_binds(),
            binds: self.writable_binds(),
            netns: Some(&self.ns),
            timeout: Some(timeout),
            wants: vec!["kubelet.service".into(), "multi-user.target".into()],
            report: REPORT.split_whitespace().map(str::to_owned).collect(),
            before_collect: format!("{script}\n{COLLECT}"),
            system_dir: Some(&system),
            usr_overlay: Some(&self.path("root/usr")),
            ..Boot::default()
        };
        boot.boot().unwrap()
    }

    /// NetworkManager's build and configuration, and what the packages installed under /etc.
    fn read_only_binds(&self) -> Vec<(String, String)> {
        let p = |rel: &str| self.host(rel);
        let nm_prefix = nm_ovs_build::CACHE_ROOT;
        let mut binds_ro = vec![
            (p("nm"), "/harness/nm".into()),
            (nm_prefix.into(), nm_prefix.into()),
            (
                nm_ovs_build::current()
                    .join("share/dbus-1/system.d/org.freedesktop.NetworkManager.conf")
                    .display()
                    .to_string(),
                "/etc/dbus-1/system.d/org.freedesktop.NetworkManager.conf".into(),
            ),
        ];
        for rel in [
            "default/nodeip-configuration",
            "nodeip-selector",
            "ovs-bridge-configurator",
            "resolv-prepender",
            "keepalived-monitor",
        ] {
            if self.path(&format!("root/etc/{rel}")).exists() {
                binds_ro.push((p(&format!("root/etc/{rel}")), format!("/etc/{rel}")));
            }
        }
        binds_ro
    }

    /// What persists across the node's boots, as on a node's disk.
    fn writable_binds(&self) -> Vec<(String, String)> {
        let p = |rel: &str| self.host(rel);
        let if_seeded =
            |rel: &str, guest: &str| self.path(rel).exists().then(|| (p(rel), guest.to_owned()));
        vec![
            (
                p("system-connections"),
                "/etc/NetworkManager/system-connections".into(),
            ),
            (p("openvswitch"), "/run/openvswitch".into()),
            // Persistent, as on a node: a previous boot's keepalived.conf stays.
            (p("keepalived"), "/etc/keepalived".into()),
        ]
        .into_iter()
        // ovs-bridge-configurator records what it applied there.
        .chain(if_seeded("nmstate", "/etc/nmstate"))
        // configure-ovs's remembered NIC (`iface_default_hint`), when the test seeds it.
        .chain(if_seeded("ovnk", "/var/lib/ovnk"))
        // A static host name, when the test gives the node one.
        .chain(if_seeded("hostname", "/etc/hostname"))
        .collect()
    }
}

/// What MCO templates for the daemons present under `etc`: their configuration files, and the
/// peer list keepalived-monitor reads. Three masters (a lone master is refused: split-brain
/// rule); the other two are not booted, so this node's keepalived becomes master.
fn template_daemon_configs(etc: &Path) {
    template(
        &etc.join("nodeip-selector/config.toml"),
        &format!("ips = [\"{API_VIP}\", \"{INGRESS_VIP}\"]\nplatform = \"BareMetal\"\n"),
    );
    template(
        &etc.join("resolv-prepender/config.toml"),
        &format!("base-domain = \"{ZONE}\"\n"),
    );
    template(
        &etc.join("keepalived-monitor/config.toml"),
        &format!(
            "cluster-name = \"boot\"\nrole = \"master\"\napi-vips = [\"{API_VIP}\"]\n\
             ingress-vips = [\"{INGRESS_VIP}\"]\npeer-source = \"file\"\ndebounce-ms = 500\n{PASSING_SCRIPTS}"
        ),
    );
    let peers: String = (1..=3)
        .map(|i| {
            format!(
                "[[node]]\nname = \"master-{i}\"\nrole = \"master\"\naddresses = [\"{}\"]\n",
                node_address(i)
            )
        })
        .collect();
    if etc.join("keepalived-monitor").exists() {
        fs::write(etc.join("keepalived-monitor/peers.toml"), peers).unwrap();
    }
}

pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            copy_dir(&p, &to.join(p.file_name().unwrap()));
        } else {
            fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
}

/// Appends MCO's values to a shipped (fully commented) configuration file, if the daemon is
/// installed.
pub fn template(path: &Path, values: &str) {
    let Ok(mut text) = fs::read_to_string(path) else {
        return;
    };
    text.push_str("\n# templated by the test, as MCO would\n");
    text.push_str(values);
    fs::write(path, text).unwrap();
}

/// `a` finished no later than `b` started (both monotonic µs, both reached).
pub fn before(r: &BootResult, a: (&str, &str), b: (&str, &str)) -> bool {
    let (ta, tb) = (r.usec(a.0, a.1), r.usec(b.0, b.1));
    ta > 0 && tb > 0 && ta <= tb
}

/// Whether `dev` carries `ip` with the machine network's prefix, in the collected `ip -br addr`.
pub fn carries(r: &BootResult, dev: &str, ip: &str) -> bool {
    r.file("addr")
        .lines()
        // `ens3@if3`: the veth's peer index follows the name.
        .find(|l| l.split(['@', ' ']).next() == Some(dev))
        .is_some_and(|l| l.contains(&format!(" {ip}/{PREFIX_LEN}")))
}

/// Whether the collected routes have a default route through `dev`.
pub fn default_via(r: &BootResult, dev: &str) -> bool {
    r.file("route")
        .lines()
        .any(|l| l.starts_with("default") && l.contains(&format!("dev {dev} ")))
}

pub fn context(r: &BootResult) -> String {
    format!(
        "{:#?}\n--- ready condition: {}--- link\n{}--- addr\n{}--- route\n{}--- journal (ours and NM)\n{}",
        r.units,
        r.file("ready"),
        r.file("link"),
        r.file("addr"),
        r.file("route"),
        r.journal
            .lines()
            .filter(|l| [
                "nodeip-configuration",
                "ovs-configuration",
                "resolv-prepender",
                "keepalived",
                "NetworkManager",
                "systemd[1]",
                "kubelet",
                "nmstate",
                "hostnamed",
                "polkit",
            ]
            .iter()
            .any(|k| l.contains(k)))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

/// Whether the node holds the API VIP, in the collected `ip -br addr`.
pub fn holds_vip(r: &BootResult) -> bool {
    r.file("addr").contains(&format!(" {API_VIP}/"))
}

/// The configuration file a daemon's package ships (every key commented out).
pub fn shipped_config(daemon: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../units/config/{daemon}.toml"))
}
