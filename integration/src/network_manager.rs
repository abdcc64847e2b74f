//! NetworkManager rebuilt with OVS (`cargo xtask deps`), inside a node's namespace and view, on a
//! private bus.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::dbus::DbusBus;
use crate::nm_ovs_build;
use crate::process::{Daemon, output, wait_for, wait_for_start};
use crate::view::NodeView;

/// The reference's harness configuration: keyfiles only, no polkit, internal DHCP, hands off
/// resolv.conf and the hostname, no automatic profiles. The real-kernel node runs with it too.
pub const CONFIG: &str = "\
[main]
plugins=keyfile
auth-polkit=false
dhcp=internal
dns=none
rc-manager=unmanaged
no-auto-default=*
hostname-mode=none
systemd-resolved=false
[logging]
level=INFO
";

/// Extra configuration files: MCO's IPv6 DHCP identity, and the harness's Tun rule (with the
/// netdev datapath NM would otherwise wrap br-ex's tap in a second, generic `br-ex`
/// connection; named `*-harness-*`, left out on a real kernel).
pub const CONF_D: &[(&str, &str)] = &[
    (
        "01-ipv6.conf",
        "[connection]\nipv6.dhcp-duid=ll\nipv6.dhcp-iaid=mac\n",
    ),
    (
        "90-harness-tun-unmanaged.conf",
        "[device-harness-tun]\nmatch-device=type:tun\nmanaged=0\n",
    ),
];

/// A running NetworkManager; stopped first on drop (it detaches OVS ports).
#[derive(Debug)]
pub struct NetworkManager {
    view: NodeView,
    bus: String,
    dir: PathBuf,
    daemon: Option<Daemon>,
}

impl NetworkManager {
    /// Starts NM for `view` on `bus`, its configuration and log in `dir`, and waits for its
    /// startup to complete.
    pub fn start(view: &NodeView, bus: &DbusBus, dir: &Path) -> Result<NetworkManager, String> {
        Self::start_with(view, bus, dir, &[])
    }

    /// As [`Self::start`], with extra `conf.d` files (name, content) after the harness's.
    pub fn start_with(
        view: &NodeView,
        bus: &DbusBus,
        dir: &Path,
        extra: &[(&str, &str)],
    ) -> Result<NetworkManager, String> {
        let prefix = nm_ovs_build::current();
        if !prefix.join("sbin/NetworkManager").exists() {
            return Err(format!(
                "NetworkManager with OVS is not built ({} missing): run `cargo xtask deps`",
                prefix.display()
            ));
        }
        for d in ["conf.d", "sys.d"] {
            std::fs::create_dir_all(dir.join(d)).map_err(|e| e.to_string())?;
        }
        std::fs::write(dir.join("NetworkManager.conf"), CONFIG).map_err(|e| e.to_string())?;
        // The Tun rule is for the userspace datapath's taps only.
        let harness_only = |name: &str| name.contains("-harness-") && crate::ovs::kernel_datapath();
        for (name, text) in CONF_D.iter().chain(extra).filter(|(n, _)| !harness_only(n)) {
            std::fs::write(dir.join("conf.d").join(name), text).map_err(|e| e.to_string())?;
        }
        let mut nm = NetworkManager {
            view: view.clone(),
            bus: bus.address(),
            dir: dir.to_owned(),
            daemon: None,
        };
        nm.launch()?;
        Ok(nm)
    }

    fn launch(&mut self) -> Result<(), String> {
        let bin = nm_ovs_build::current().join("sbin/NetworkManager");
        let mut cmd = self.view.command(&bin.display().to_string());
        cmd.env_clear()
            .env(
                "PATH",
                "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            )
            .env("DBUS_SYSTEM_BUS_ADDRESS", &self.bus);
        // Inside a User-Mode Linux node whose host's XSAVE area is larger than UML moves, the
        // guest's glibc is kept off AVX through this variable (see `real_kernel::xstate`).
        if let Ok(tunables) = std::env::var("GLIBC_TUNABLES") {
            cmd.env("GLIBC_TUNABLES", tunables);
        }
        if !crate::ovs::kernel_datapath() {
            cmd.env("HARNESS_NM_OVS_DEFAULT_DATAPATH_TYPE", "netdev")
                .env("HARNESS_NM_OVS_NETDEV_HWADDR", "1");
        }
        cmd.arg("--debug")
            .arg(format!(
                "--config={}",
                self.dir.join("NetworkManager.conf").display()
            ))
            .arg(format!(
                "--config-dir={}",
                self.dir.join("conf.d").display()
            ))
            .arg(format!(
                "--system-config-dir={}",
                self.dir.join("sys.d").display()
            ))
            .arg("--intern-config=/var/lib/NetworkManager/NetworkManager-intern.conf")
            .arg("--state-file=/var/lib/NetworkManager/NetworkManager.state");
        let daemon = Daemon::spawn(
            "NetworkManager",
            &mut cmd,
            &self.dir.join("NetworkManager.log"),
        )?;
        self.daemon = Some(daemon);
        let online = || {
            Command::new("nm-online")
                .args(["-s", "-q", "-t", "1"])
                .env("DBUS_SYSTEM_BUS_ADDRESS", &self.bus)
                .status()
                .is_ok_and(|s| s.success())
        };
        if !wait_for_start(Duration::from_secs(15), online) {
            return Err(format!(
                "NetworkManager did not finish starting:\n{}",
                self.log_tail(20)
            ));
        }
        Ok(())
    }

    /// The D-Bus address of the bus NM is on.
    pub fn bus_address(&self) -> &str {
        &self.bus
    }

    pub fn pid(&self) -> u32 {
        self.daemon.as_ref().map_or(0, Daemon::pid)
    }

    pub fn log_tail(&self, lines: usize) -> String {
        self.daemon
            .as_ref()
            .map(|d| d.log_tail(lines))
            .unwrap_or_default()
    }

    /// Debian's `nmcli` against this NM (tests only; products talk D-Bus).
    pub fn nmcli(&self, args: &[&str]) -> Result<String, String> {
        output(
            Command::new("nmcli")
                .env("DBUS_SYSTEM_BUS_ADDRESS", &self.bus)
                .args(args),
        )
    }

    /// Adds an ethernet profile `name` for `iface` with `settings` (nmcli property/value pairs;
    /// IPv6 disabled unless they say otherwise), no autoconnect, and brings it up.
    pub fn up_ethernet(&self, name: &str, iface: &str, settings: &[&str]) -> Result<(), String> {
        let mut args = vec![
            "conn", "add", "type", "ethernet", "ifname", iface, "con-name", name,
        ];
        args.extend_from_slice(&["autoconnect", "no", "ipv6.method", "disabled"]);
        args.extend_from_slice(settings);
        self.nmcli(&args)?;
        self.nmcli(&["-w", "60", "conn", "up", name]).map(drop)
    }

    /// A static IPv4 profile (see [`Self::up_ethernet`]).
    pub fn up_static(
        &self,
        name: &str,
        iface: &str,
        cidr: &str,
        gateway: &str,
    ) -> Result<(), String> {
        let s = [
            "ipv4.method",
            "manual",
            "ipv4.addresses",
            cidr,
            "ipv4.gateway",
            gateway,
        ];
        self.up_ethernet(name, iface, &s)
    }

    /// A DHCPv4 profile (see [`Self::up_ethernet`]).
    pub fn up_dhcp(&self, name: &str, iface: &str) -> Result<(), String> {
        self.up_ethernet(name, iface, &["ipv4.method", "auto"])
    }

    /// Waits until profile `name` is activated.
    pub fn wait_activated(&self, name: &str, timeout: Duration) -> Result<(), String> {
        let state = || {
            self.nmcli(&["-g", "GENERAL.STATE", "conn", "show", name])
                .unwrap_or_default()
        };
        if wait_for(timeout, || state().lines().any(|l| l == "activated")) {
            Ok(())
        } else {
            Err(format!(
                "{name} not activated ({:?}):\n{}",
                state(),
                self.log_tail(20)
            ))
        }
    }

    /// A reboot of NM: stop it, wipe `/run/NetworkManager` (tmpfs in production), keep the
    /// keyfiles in `/etc` and the state in `/var/lib`, start it again.
    pub fn restart(&mut self) -> Result<(), String> {
        self.stop();
        let run = self.view.run_dir().join("NetworkManager");
        let _ = std::fs::remove_dir_all(&run);
        self.launch()
    }

    /// `systemctl restart NetworkManager`: stop and start again, keeping `/run` (its in-memory
    /// profiles) and the devices' configuration.
    pub fn bounce(&mut self) -> Result<(), String> {
        self.stop();
        self.launch()
    }

    /// Stops NetworkManager (SIGTERM: it leaves the devices configured, as at shutdown).
    pub fn stop(&mut self) {
        if let Some(mut d) = self.daemon.take() {
            d.stop(Duration::from_secs(10));
        }
    }

    /// Starts a stopped NetworkManager again and waits until its startup is complete.
    pub fn start_again(&mut self) -> Result<(), String> {
        self.launch()
    }
}

impl Drop for NetworkManager {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A keyfile as tests compare it: each UUID of `uuids` (`(uuid, profile name)`, as `nmcli -g
/// UUID,NAME` lists them) replaced by `<name>`, and the activation timestamp by `<T>`, so two
/// runs that made the same profiles compare equal.
pub fn normalized_keyfile(text: &str, uuids: &[(&str, &str)]) -> String {
    text.lines()
        .map(|l| {
            if l.starts_with("timestamp=") {
                return "timestamp=<T>".to_owned();
            }
            uuids
                .iter()
                .fold(l.to_owned(), |l, (u, n)| l.replace(u, &format!("<{n}>")))
        })
        .collect::<Vec<_>>()
        .join("\n")
}
