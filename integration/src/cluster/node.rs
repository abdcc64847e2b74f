//! One node of the cluster: its configuration files, its daemons run as their units run them,
//! fault injection, and what the tests and the demo read back.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, SystemTime};

use super::timeline::{Event, log_events};
use super::{API_VIP, Binaries, DAEMONS, INGRESS_VIP, STORAGE_ROUTER};
use crate::dnsmasq::{Dnsmasq, DnsmasqConfig};
use crate::keepalived::{KeepalivedService, passing_scripts_here};
use crate::netns::Netns;
use crate::node::{Node, ROUTER, ROUTER6, ZONE, node_address, node_address6};
use crate::process::{Daemon, wait_for_start};

/// One node of the cluster and its daemons.
#[derive(Debug)]
pub struct ClusterNode {
    keepalived: Option<KeepalivedService>,
    monitor: Option<Daemon>,
    prepender: Option<Daemon>,
    coredns: Option<Dnsmasq>,
    pub node: Node,
    pub index: u8,
    bins: Binaries,
    /// Configuration files, logs and keepalived's files (host paths).
    pub dir: PathBuf,
}

impl ClusterNode {
    pub(super) fn new(node: Node, index: u8, bins: Binaries, dir: PathBuf) -> ClusterNode {
        ClusterNode {
            keepalived: None,
            monitor: None,
            prepender: None,
            coredns: None,
            node,
            index,
            bins,
            dir,
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }

    /// The node's Node object name (`node<index>`).
    pub fn name(&self) -> String {
        format!("node{}", self.index)
    }

    /// Joins the node to an API server at `server` (`http://...`, no credentials) as kubelet's
    /// kubeconfig does: the live engine's API and readiness probes and its Events use it.
    pub fn set_kubeconfig(&self, server: &str) -> Result<(), String> {
        let dir = self.path("var-lib/kubelet");
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        std::fs::write(
            dir.join("kubeconfig"),
            crate::api_stand_in::kubeconfig(server),
        )
        .map_err(|e| e.to_string())
    }

    /// Where the node keeps a file MCO writes at `path` (absolute, under /etc).
    pub fn etc_file(&self, path: &str) -> Result<PathBuf, String> {
        let rel = path
            .strip_prefix("/etc/")
            .ok_or_else(|| format!("{path}: not under /etc"))?;
        Ok(self.path("etc").join(rel))
    }

    fn log(&self, daemon: &str) -> PathBuf {
        self.path(&format!("{daemon}.log"))
    }

    /// The node's uplink profile (DHCPv4, static IPv6), the storage NIC on nodes 2 and 3, and
    /// the configuration files MCO would template.
    pub(super) fn prepare(&self, storage: &Netns, peers: &Path) -> Result<(), String> {
        let i = self.index;
        let ns = &self.node.ns;
        let nm = &self.node.nm;
        for d in ["systemd", "etc", "var-lib", "ka", "coredns"] {
            std::fs::create_dir_all(self.path(d)).map_err(|e| e.to_string())?;
        }
        let v6 = format!("{}/64", node_address6(i));
        nm.up_ethernet(
            "ens3",
            "ens3",
            &[
                "autoconnect",
                "yes",
                "ipv4.method",
                "auto",
                "ipv6.method",
                "manual",
                "ipv6.addresses",
                &v6,
                "ipv6.gateway",
                ROUTER6,
            ],
        )?;
        if i >= 2 {
            ns.veth_to("eth1", storage, &format!("s{i}"))?;
            storage.ip(&["link", "set", &format!("s{i}"), "master", "br1", "up"])?;
            let cidr = format!("203.0.113.1{i}/24");
            nm.up_ethernet(
                "eth1",
                "eth1",
                &[
                    "autoconnect",
                    "yes",
                    "ipv4.method",
                    "manual",
                    "ipv4.addresses",
                    &cidr,
                    "ipv4.gateway",
                    STORAGE_ROUTER,
                    "ipv4.route-metric",
                    "50",
                ],
            )?;
        }
        let has_lease = || {
            ns.ip(&["-br", "addr", "show", "dev", "ens3"])
                .is_ok_and(|t| t.contains(&format!("{}/", node_address(i))))
        };
        if !wait_for_start(Duration::from_secs(30), has_lease) {
            return Err(format!("node{i}: no DHCP lease on ens3"));
        }
        self.write_configs(peers)?;
        // /etc/netns/<ns>/ exists so resolv-prepender can write there; `ip netns exec` binds it
        // over /etc/resolv.conf for everything run in the node.
        std::fs::create_dir_all(format!("/etc/netns/{}", ns.name())).map_err(|e| e.to_string())
    }

    /// The daemons' configuration files, as MCO templates them for this node.
    fn write_configs(&self, peers: &Path) -> Result<(), String> {
        let i = self.index;
        let ns = &self.node.ns;
        let write = |rel: &str, text: String| {
            std::fs::write(self.path(rel), text).map_err(|e| format!("{rel}: {e}"))
        };
        // Node 2's admin pins the machine network; the others have no hint.
        write(
            "nodeip-configuration",
            if i == 2 {
                format!("NODEIP_HINT={ROUTER}\n")
            } else {
                String::new()
            },
        )?;
        write(
            "nodeip-selector.toml",
            format!(
                "ips = [\"{API_VIP}\", \"{INGRESS_VIP}\"]\nplatform = \"BareMetal\"\ndual-stack = true\n\
                 hint-file = \"{}\"\nsystemd-dir = \"{}\"\n",
                self.path("nodeip-configuration").display(),
                self.path("systemd").display()
            ),
        )?;
        write(
            "resolv-prepender.toml",
            format!(
                "base-domain = \"{ZONE}\"\noutput = \"/etc/netns/{ns}/resolv.conf\"\n\
                 resolved-dropin = \"{}\"\n",
                self.path("60-kni.conf").display(),
                ns = ns.name()
            ),
        )?;
        // The Node object's name, as kubelet registers it: the policies' list file is named
        // for it.
        write(
            "ovs-bridge-configurator.toml",
            format!("node-name = \"{}\"\n", self.name()),
        )?;
        write(
            "keepalived-monitor.toml",
            format!(
                "cluster-name = \"ostest\"\nrole = \"master\"\napi-vips = [\"{API_VIP}\"]\n\
                 ingress-vips = [\"{INGRESS_VIP}\"]\noutput = \"{out}\"\nkeepalived-dir = \"{dir}\"\n\
                 peer-source = \"file\"\npeers-file = \"{peers}\"\nreload = \"socket\"\n\
                 control-socket = \"{dir}/ka/keepalived.sock\"\ndebounce-ms = 500\n{scripts}",
                out = self.path("keepalived.conf").display(),
                scripts = passing_scripts_here(),
                dir = self.dir.display(),
                peers = peers.display()
            ),
        )?;
        Ok(())
    }

    /// A daemon's command inside the node, logging (appending) to its log file.
    fn command(&self, daemon: &str, args: &[&str]) -> Command {
        let bin = self.bins.get(daemon);
        let mut c = match daemon {
            // ovs-configuration.service's CapabilityBoundingSet, read from the unit: with OVS
            // running as its own user (RHCOS), a run with root's full set would hide a missing
            // grant (CAP_DAC_OVERRIDE for db.sock, CAP_NET_RAW for the forwarding probe).
            "ovs-bridge-configurator" => {
                let mut c = self.node.view.command("setpriv");
                c.arg(bounding_set("ovs-configuration.service"))
                    .args(["--inh-caps=-all", "--"])
                    .arg(&bin);
                c
            }
            _ => self.node.view.command(&bin),
        };
        c.args(args)
            .arg("--config")
            .arg(self.path(&format!("{daemon}.toml")))
            .env("DBUS_SYSTEM_BUS_ADDRESS", self.node.nm.bus_address())
            .env("RUST_LOG", "info")
            // ovs-bridge-configurator's troubleshooting copies stay in the node's dir.
            .env("TMPDIR", self.path(""))
            .env("NO_COLOR", "1");
        c
    }

    /// A one-shot daemon's run as its unit runs it (`nodeip-selector set --retry-on-failure`,
    /// `ovs-bridge-configurator apply`), stderr appended to its log.
    fn oneshot(&self, daemon: &str) -> Result<Command, String> {
        let etc = self.path("etc").display().to_string();
        let var_lib = self.path("var-lib").display().to_string();
        let args: Vec<&str> = match daemon {
            "nodeip-selector" => vec!["set", "--retry-on-failure"],
            _ => vec![
                "apply",
                "--etc-dir",
                &etc,
                "--var-lib-dir",
                &var_lib,
                "--retry-interval-secs",
                "0",
            ],
        };
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log(daemon))
            .map_err(|e| e.to_string())?;
        let mut c = self.command(daemon, &args);
        c.stdin(Stdio::null()).stdout(Stdio::null()).stderr(log);
        Ok(c)
    }

    /// Runs a one-shot daemon to completion.
    fn run_oneshot(&self, daemon: &str) -> Result<ExitStatus, String> {
        self.oneshot(daemon)?
            .status()
            .map_err(|e| format!("{daemon}: {e}"))
    }

    /// `ovs-bridge-configurator apply-live` of `yaml` on this node, as an administrator runs it
    /// (the unit's capabilities, the node's view): its exit status and its log.
    pub fn apply_live(&self, yaml: &str) -> Result<(ExitStatus, String), String> {
        let file = self.path("apply-live.yml");
        std::fs::write(&file, yaml).map_err(|e| e.to_string())?;
        self.configurator(&["apply-live", &file.display().to_string()])
    }

    /// `ovs-bridge-configurator apply-nmstate --live` on this node, as MCO's daemon's restart of
    /// nmstate-configuration-live.service runs it after writing the node's NMState files
    /// ([`ClusterNode::set_nmstate`]): its exit status and its log.
    pub fn apply_nmstate_live(&self) -> Result<(ExitStatus, String), String> {
        self.configurator(&["apply-nmstate", "--live"])
    }

    /// `ovs-bridge-configurator apply-live` of `yaml` started without waiting, its stderr piped,
    /// for a caller that kills it midway (the dead man's switch then undoes its change).
    pub fn spawn_apply_live(&self, yaml: &str) -> Result<Child, String> {
        let file = self.path("apply-live.yml");
        std::fs::write(&file, yaml).map_err(|e| e.to_string())?;
        self.configurator_command(&["apply-live", &file.display().to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("apply-live: {e}"))
    }

    /// An `ovs-bridge-configurator` command on this node's directories.
    fn configurator_command(&self, args: &[&str]) -> Command {
        let (etc, var_lib) = (self.path("etc"), self.path("var-lib"));
        let mut all = args.to_vec();
        let (etc, var_lib) = (etc.display().to_string(), var_lib.display().to_string());
        all.extend(["--etc-dir", &etc, "--var-lib-dir", &var_lib]);
        self.command("ovs-bridge-configurator", &all)
    }

    /// An `ovs-bridge-configurator` command on this node's directories, run to completion.
    fn configurator(&self, args: &[&str]) -> Result<(ExitStatus, String), String> {
        let out = self
            .configurator_command(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("{}: {e}", args.join(" ")))?;
        Ok((
            out.status,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ))
    }

    /// Starts a one-shot daemon run without waiting, for a test that kills it midway.
    pub fn spawn_oneshot(&self, daemon: &str) -> Result<Child, String> {
        self.oneshot(daemon)?
            .spawn()
            .map_err(|e| format!("{daemon}: {e}"))
    }

    /// nodeip-configuration.service.
    pub fn run_nodeip_selector(&self) -> Result<ExitStatus, String> {
        self.run_oneshot("nodeip-selector")
    }

    /// ovs-configuration.service.
    pub fn run_ovs_configuration(&self) -> Result<ExitStatus, String> {
        self.run_oneshot("ovs-bridge-configurator")
    }

    /// `daemon run`, logging to its log file.
    fn spawn_run(&self, daemon: &str) -> Result<Daemon, String> {
        Daemon::spawn(
            daemon,
            &mut self.command(daemon, &["run"]),
            &self.log(daemon),
        )
    }

    /// resolv-prepender.service (Type=notify, runs for the node's lifetime).
    pub fn start_prepender(&mut self) -> Result<(), String> {
        self.prepender = Some(self.spawn_run("resolv-prepender")?);
        Ok(())
    }

    /// keepalived-monitor.service, with keepalived.service (stopped) for it to drive.
    pub fn start_monitor(&mut self) -> Result<(), String> {
        if self.keepalived.is_none() {
            let conf = self.path("keepalived.conf");
            let unit = KeepalivedService::start(&self.node.ns, &self.path("ka"), &conf)?;
            // `reload = "socket"` is upstream's static-pod layout, whose entrypoint starts
            // keepalived on the file a previous boot left; on a first boot there is none and
            // the monitor's first render starts it.
            if conf.exists() {
                unit.start_keepalived();
            }
            self.keepalived = Some(unit);
        }
        self.monitor = Some(self.spawn_run("keepalived-monitor")?);
        Ok(())
    }

    /// Waits for keepalived to run: the monitor's first render starts it, as in production.
    pub fn wait_keepalived(&self) -> Result<(), String> {
        let running = || {
            self.keepalived
                .as_ref()
                .is_some_and(KeepalivedService::is_running)
        };
        if wait_for_start(Duration::from_secs(20), running) {
            return Ok(());
        }
        Err(format!(
            "node{}: keepalived did not start:\n{}\n{}",
            self.index,
            self.log_tail("keepalived-monitor", 10),
            self.keepalived_log(10)
        ))
    }

    /// `systemctl start keepalived.service` on the monitor's current file; returns once the
    /// VRRP child runs, so that a change the test makes next is the monitor's reload and not
    /// something the starting keepalived may or may not read (seconds under User-Mode Linux).
    pub fn start_keepalived(&self) -> Result<(), String> {
        let unit = self
            .keepalived
            .as_ref()
            .ok_or_else(|| format!("node{}: keepalived-monitor never started", self.index))?;
        unit.start_keepalived();
        if wait_for_start(Duration::from_secs(20), || unit.is_up()) {
            return Ok(());
        }
        Err(format!(
            "node{}: keepalived did not start its VRRP child:\n{}",
            self.index,
            self.keepalived_log(10)
        ))
    }

    /// keepalived's log and what its unit did.
    pub fn keepalived_log(&self, lines: usize) -> String {
        self.keepalived
            .as_ref()
            .map(|k| k.log_tail(lines))
            .unwrap_or_default()
    }

    /// `systemctl stop keepalived.service` (SIGTERM: it hands its VIPs over).
    pub fn stop_keepalived(&self) {
        if let Some(k) = &self.keepalived {
            k.stop_keepalived();
        }
    }

    /// The CoreDNS stand-in: dnsmasq on the node IP, answering for the cluster's API names.
    pub fn start_coredns(&mut self) -> Result<(), String> {
        let cfg = DnsmasqConfig {
            listen: vec![self.primary_ip()],
            zone: Some(ZONE.into()),
            records: vec![
                (format!("api.{ZONE}"), API_VIP.into()),
                (format!("api-int.{ZONE}"), API_VIP.into()),
            ],
            dhcp: None,
            dhcp6: None,
        };
        self.coredns = Some(Dnsmasq::start(&self.node.ns, &self.path("coredns"), &cfg)?);
        Ok(())
    }

    /// DNS queries the node's own resolver has answered.
    pub fn coredns_queries(&self) -> usize {
        self.coredns.as_ref().map_or(0, Dnsmasq::queries)
    }

    /// The node's boot, in unit order.
    pub fn boot(&mut self, progress: &(dyn Fn(String) + Sync)) -> Result<(), String> {
        let i = self.index;
        self.start_prepender()?;
        if !self.run_nodeip_selector()?.success() {
            return Err(format!(
                "node{i}: nodeip-selector failed:\n{}",
                self.log_tail("nodeip-selector", 10)
            ));
        }
        progress(format!("node{i}: node IP {} chosen", self.primary_ip()));
        self.configure_ovs()?;
        progress(format!("node{i}: br-ex up with the node IP"));
        self.boot_after_ovs(progress)
    }

    /// A reboot of this node, then its boot in unit order. Everything stops; the kernel keeps
    /// no address, route, VIP or virtual link (br-ex's tap included); /run is emptied. What a
    /// node keeps stays: /etc (profiles, keepalived.conf, resolv.conf, the hint files),
    /// /var/lib and the OVS database, on which OVS starts again.
    pub fn reboot(&mut self, progress: &(dyn Fn(String) + Sync)) -> Result<(), String> {
        self.prepender = None;
        self.monitor = None;
        self.keepalived = None;
        self.coredns = None;
        self.node.nm.stop();
        let run = self.node.view.run_dir();
        for e in std::fs::read_dir(run).map_err(|e| e.to_string())? {
            let e = e.map_err(|e| e.to_string())?;
            // OVS's database lives in its run directory here (RHCOS keeps it in /etc).
            if e.file_name() != "openvswitch" {
                let p = e.path();
                let gone = if p.is_dir() {
                    std::fs::remove_dir_all(&p)
                } else {
                    std::fs::remove_file(&p)
                };
                gone.map_err(|err| format!("{}: {err}", p.display()))?;
            }
        }
        // The links too: NICs down and bare, virtual links gone, then up again.
        self.node.ovs.reboot(&self.node.ns)?;
        self.node.nm.start_again()?;
        progress(format!("node{}: rebooted", self.index));
        self.boot(progress)
    }

    /// ovs-configuration.service, which must succeed (its log and NM's explain a failure).
    pub fn configure_ovs(&self) -> Result<(), String> {
        let status = self.run_ovs_configuration()?;
        if status.success() {
            return Ok(());
        }
        Err(format!(
            "node{}: ovs-bridge-configurator failed ({status}):\n{}\n{}",
            self.index,
            self.log_tail("ovs-bridge-configurator", 30),
            self.node.nm.log_tail(30)
        ))
    }

    /// The rest of the boot once br-ex is up: keepalived-monitor, keepalived, the CoreDNS
    /// stand-in, and resolv-prepender's done flag.
    pub fn boot_after_ovs(&mut self, progress: &(dyn Fn(String) + Sync)) -> Result<(), String> {
        let i = self.index;
        self.start_monitor()?;
        self.wait_keepalived()?;
        progress(format!("node{i}: keepalived running"));
        self.start_coredns()?;
        let done = self
            .node
            .view
            .run_dir()
            .join("resolv-prepender-kni-conf-done");
        if !wait_for_start(Duration::from_secs(20), || done.exists()) {
            return Err(format!(
                "node{i}: resolv-prepender did not finish:\n{}",
                self.log_tail("resolv-prepender", 10)
            ));
        }
        progress(format!("node{i}: resolv.conf has the node IP first"));
        Ok(())
    }

    /// The last lines of a daemon's log.
    pub fn log_tail(&self, daemon: &str, lines: usize) -> String {
        let text = std::fs::read_to_string(self.log(daemon)).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// A file of the node's `/run/nodeip-configuration`.
    pub fn nodeip_file(&self, name: &str) -> String {
        std::fs::read_to_string(
            self.node
                .view
                .run_dir()
                .join("nodeip-configuration")
                .join(name),
        )
        .unwrap_or_default()
    }

    pub fn primary_ip(&self) -> String {
        self.nodeip_file("primary-ip").trim().to_owned()
    }

    /// The kubelet drop-in nodeip-selector wrote.
    pub fn kubelet_dropin(&self) -> String {
        std::fs::read_to_string(self.path("systemd/kubelet.service.d/20-nodenet.conf"))
            .unwrap_or_default()
    }

    /// The node's /etc/resolv.conf.
    pub fn resolv_conf(&self) -> String {
        std::fs::read_to_string(format!("/etc/netns/{}/resolv.conf", self.node.ns.name()))
            .unwrap_or_default()
    }

    pub fn keepalived_conf(&self) -> String {
        std::fs::read_to_string(self.path("keepalived.conf")).unwrap_or_default()
    }

    /// `getent hosts <name>` inside the node (glibc, through the node's /etc/resolv.conf).
    pub fn getent(&self, name: &str) -> Result<String, String> {
        self.node.ns.exec("getent", &["hosts", name])
    }

    /// `ip -br addr show dev <dev>`.
    pub fn addresses(&self, dev: &str) -> String {
        self.node
            .ns
            .ip(&["-br", "addr", "show", "dev", dev])
            .unwrap_or_default()
    }

    /// The node's default routes (both families), one per line.
    pub fn default_routes(&self) -> String {
        let v4 = self
            .node
            .ns
            .ip(&["route", "show", "default"])
            .unwrap_or_default();
        let v6 = self
            .node
            .ns
            .ip(&["-6", "route", "show", "default"])
            .unwrap_or_default();
        format!("{v4}{v6}")
    }

    /// keepalived's state per instance, from its log (the last "Entering ... STATE" each).
    pub fn vrrp_states(&self) -> Vec<(String, String)> {
        let log = self.keepalived_log(400);
        let mut states: Vec<(String, String)> = Vec::new();
        for line in log.lines() {
            let Some(rest) = line.split("(").nth(1) else {
                continue;
            };
            let Some((inst, tail)) = rest.split_once(')') else {
                continue;
            };
            let Some(state) = tail
                .split_whitespace()
                .skip_while(|w| *w != "Entering")
                .nth(1)
            else {
                continue;
            };
            match states.iter_mut().find(|(i, _)| i == inst) {
                Some(s) => s.1 = state.to_owned(),
                None => states.push((inst.to_owned(), state.to_owned())),
            }
        }
        states
    }

    /// The node's daemon log lines as timeline events.
    pub(super) fn events(&self, start: SystemTime) -> Vec<Event> {
        DAEMONS
            .iter()
            .flat_map(|d| {
                let text = std::fs::read_to_string(self.log(d)).unwrap_or_default();
                log_events(&text, self.index, d, start)
            })
            .collect()
    }

    /// SIGKILLs the long-running `daemon` (resolv-prepender or keepalived-monitor) and starts
    /// it again, as systemd's `Restart=on-failure` would.
    pub fn kill_and_restart(&mut self, daemon: &str) -> Result<(), String> {
        self.restart(daemon, true)
    }

    /// `systemctl try-restart` of the long-running `daemon`, as an RPM upgrade's scriptlet
    /// does: SIGTERM, wait for the exit, start again.
    pub fn try_restart(&mut self, daemon: &str) -> Result<(), String> {
        self.restart(daemon, false)
    }

    fn restart(&mut self, daemon: &str, kill: bool) -> Result<(), String> {
        let slot = match daemon {
            "resolv-prepender" => &mut self.prepender,
            "keepalived-monitor" => &mut self.monitor,
            _ => return Err(format!("{daemon} is not a long-running daemon")),
        };
        if let Some(d) = slot.take() {
            if kill {
                d.signal(9)?;
            }
            // Dropping stops it (SIGTERM) and waits for the exit.
            drop(d);
        }
        match daemon {
            "resolv-prepender" => self.start_prepender(),
            _ => self.start_monitor(),
        }
    }

    /// The user's NMState file for this node (`<etc>/nmstate/openshift/cluster.yml`); `None`
    /// removes it.
    pub fn set_nmstate(&self, text: Option<&str>) -> Result<(), String> {
        let dir = self.path("etc/nmstate/openshift");
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let f = dir.join("cluster.yml");
        match text {
            Some(t) => std::fs::write(&f, t).map_err(|e| e.to_string()),
            None => std::fs::remove_file(&f).map_err(|e| e.to_string()),
        }
    }

    /// Everything the daemons decided, as text: the node-IP files and drop-in, resolv.conf,
    /// keepalived.conf, br-ex's addresses (without VIPs, which move) and the default routes.
    pub fn state(&self) -> String {
        let br_ex: Vec<String> = self
            .addresses("br-ex")
            .split_whitespace()
            .skip(2)
            .filter(|a| !a.ends_with("/32"))
            .map(str::to_owned)
            .collect();
        format!(
            "primary-ip={}\nipv4={}\nipv6={}\n--- 20-nodenet.conf\n{}--- resolv.conf\n{}\
             --- keepalived.conf\n{}--- br-ex\n{}\n--- default routes\n{}",
            self.primary_ip(),
            self.nodeip_file("ipv4"),
            self.nodeip_file("ipv6"),
            self.kubelet_dropin(),
            self.resolv_conf(),
            self.keepalived_conf(),
            br_ex.join(" "),
            self.default_routes()
        )
    }

    /// Files in the directories the daemons write that are not one of their outputs: what a
    /// write interrupted between temp file and rename would leave.
    pub fn stray_files(&self) -> Vec<String> {
        let outputs = [
            "primary-ip",
            "ipv4",
            "ipv6",
            "remote-worker",
            "br-ex-up",
            "resolv.conf",
            "keepalived.conf",
            "chk_ocp_script.sh",
            "chk_ocp_script_both.sh",
            "chk_mcs_script.sh",
            "chk_default_ingress.sh",
            "20-nodenet.conf",
        ];
        let dirs = [
            self.node.view.run_dir().join("nodeip-configuration"),
            PathBuf::from(format!("/etc/netns/{}", self.node.ns.name())),
            self.dir.clone(),
            self.path("systemd/kubelet.service.d"),
            self.path("systemd/crio.service.d"),
        ];
        dirs.iter()
            .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| {
                !outputs.contains(&n.as_str())
                    && !n.ends_with(".log")
                    && !n.ends_with(".toml")
                    && n != "nodeip-configuration"
            })
            .collect()
    }
}

/// `setpriv`'s `--bounding-set=` for `unit`'s `CapabilityBoundingSet=` in `units/system`, so the
/// cluster runs a daemon with exactly what its unit grants.
fn bounding_set(unit: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../units/system")
        .join(unit);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let caps = text
        .lines()
        .find_map(|l| l.strip_prefix("CapabilityBoundingSet="))
        .unwrap_or_else(|| panic!("{}: no CapabilityBoundingSet=", path.display()));
    let grants: String = caps
        .split_whitespace()
        .map(|c| format!(",+{}", c.trim_start_matches("CAP_").to_lowercase()))
        .collect();
    format!("--bounding-set=-all{grants}")
}
