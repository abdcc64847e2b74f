//! The publisher benchmark's node: a harness node (NetworkManager with OVS, its uplink `ens3`
//! static) given [`LINKS`] more links, the API stand-in listening inside the node's namespace
//! (the publisher reaches it on 127.0.0.1; the benchmark reads the stored document directly),
//! and the release `publish-state` against it.
//!
//! This kernel has neither dummy nor 8021q links, so stand-ins take their places: veth pairs
//! for the dummies (software links NetworkManager manages; nmstate ignores taps) and a macvlan
//! for each VLAN (a child of the NIC `ens4`, with its base interface in the document).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use integration::api_stand_in::ApiStandIn;
use integration::node::{Node, Upstream};
use integration::process::Daemon;
use serde_json::Value;

/// The links added to the node (with `lo`, `ens3`, `ens4` and its peer: 1,004 interfaces).
pub const LINKS: usize = 1000;
/// The Node (and NodeNetworkState) name.
pub const NODE_NAME: &str = "node1";
/// The NIC the VLAN stand-ins hang from.
pub const TRUNK: &str = "ens4";
const STATUS_WRITES: &str = "nodenetworkstates/status";

/// The node, the stand-in in its namespace, and the publisher once started. Fields drop in
/// this order: the publisher before NetworkManager, the node before its upstream.
pub struct BenchNode {
    publisher: Option<Daemon>,
    pub api: ApiStandIn,
    pub node: Node,
    _up: Upstream,
}

impl BenchNode {
    /// The node with its links, NetworkManager having seen them all, and the stand-in holding
    /// its Node.
    pub fn start() -> anyhow::Result<BenchNode> {
        let mut up = Upstream::start(1, &[]).map_err(|e| anyhow!(e))?;
        let node = Node::start(&mut up, 1).map_err(|e| anyhow!(e))?;
        node.up_uplink(false, &[]).map_err(|e| anyhow!(e))?;
        node.ns.nic(TRUNK).map_err(|e| anyhow!(e))?;
        node.ns.ip_batch(&links()).map_err(|e| anyhow!(e))?;
        let api = node
            .ns
            .run_in(ApiStandIn::start)
            .map_err(|e| anyhow!(e))??;
        api.add_status_subresource("nmstate.io", "nodenetworkstates");
        let b = BenchNode {
            publisher: None,
            api,
            node,
            _up: up,
        };
        b.create_node()?;
        b.write_settings()?;
        b.wait_devices()?;
        Ok(b)
    }

    /// `bin subcommand` inside the node, with the node's settings file (the stand-in's
    /// kubeconfig and the Node's name) and its own /etc and /var/lib.
    pub fn command(&self, bin: &Path, subcommand: &str) -> Command {
        let dir = self.node.dir();
        let mut cmd = self.node.view.command(bin.to_str().unwrap_or_default());
        cmd.arg(subcommand)
            .arg("--config")
            .arg(dir.join("publish.toml"))
            .arg("--etc-dir")
            .arg(dir.join("etc"))
            .arg("--var-lib-dir")
            .arg(dir.join("var-lib"))
            .env("DBUS_SYSTEM_BUS_ADDRESS", self.node.nm.bus_address())
            .env("TMPDIR", dir)
            .env_remove("RUST_LOG");
        cmd
    }

    /// Starts `bin publish-state` (default debounce and heartbeat), its log in the node's dir.
    pub fn start_publisher(&mut self, bin: &Path) -> anyhow::Result<u32> {
        let mut cmd = self.command(bin, "publish-state");
        // The default filter (nmstate's netlink readers quiet), with the publisher's reads.
        cmd.env(
            "RUST_LOG",
            "info,netlink_packet_route=error,netlink_proto=error,nispor=error,\
             ovs_bridge_configurator::publish=debug",
        );
        let d = Daemon::spawn("publish-state", &mut cmd, &self.log()).map_err(|e| anyhow!(e))?;
        let pid = d.pid();
        self.publisher = Some(d);
        Ok(pid)
    }

    /// The publisher's log.
    pub fn log(&self) -> PathBuf {
        self.node.dir().join("publish-state.log")
    }

    /// Status writes the stand-in received.
    pub fn writes(&self) -> usize {
        self.api.writes(STATUS_WRITES)
    }

    /// `status.currentState` the stand-in holds, as JSON text.
    pub fn document(&self) -> Option<String> {
        let o = self
            .api
            .get("nmstate.io", "nodenetworkstates", "", NODE_NAME)?;
        let current = &o["status"]["currentState"];
        (!current.is_null()).then(|| current.to_string())
    }

    /// The settings file [`Self::command`] names, and the directories it points at.
    fn write_settings(&self) -> anyhow::Result<()> {
        let dir = self.node.dir();
        let kubeconfig = dir.join("publisher.kubeconfig");
        std::fs::write(&kubeconfig, kubeconfig_text(&self.api.url()))?;
        std::fs::write(
            dir.join("publish.toml"),
            format!(
                "kubeconfig = \"{}\"\nnode-name = \"{NODE_NAME}\"\n",
                kubeconfig.display()
            ),
        )?;
        std::fs::create_dir_all(dir.join("etc"))?;
        std::fs::create_dir_all(dir.join("var-lib"))?;
        Ok(())
    }

    /// The Node the NodeNetworkState is owned by, created through the stand-in's HTTP API.
    fn create_node(&self) -> anyhow::Result<()> {
        let body = serde_json::json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": NODE_NAME}})
        .to_string();
        let addr = self.api.url().trim_start_matches("http://").to_owned();
        let answer = self.node.ns.run_in(|| post(&addr, "/api/v1/nodes", &body));
        let answer = answer.map_err(|e| anyhow!(e))??;
        let json = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
        let node: Value = serde_json::from_str(json).with_context(|| answer.clone())?;
        node["metadata"]["uid"]
            .as_str()
            .map(drop)
            .with_context(|| format!("no Node created: {answer}"))
    }

    /// Waits until NetworkManager lists every link as a device.
    fn wait_devices(&self) -> anyhow::Result<()> {
        let want = LINKS + 3;
        let seen = || {
            self.node
                .nm
                .nmcli(&["-t", "-f", "DEVICE", "device"])
                .map_or(0, |t| t.lines().count())
        };
        if integration::process::wait_for(Duration::from_secs(120), || seen() >= want) {
            return Ok(());
        }
        bail!("NetworkManager lists {} devices of {want}", seen())
    }
}

/// `ip -batch` lines for the links: half taps (dummies), half macvlans on [`TRUNK`] (VLANs),
/// all up.
fn links() -> String {
    let mut s = String::new();
    for i in 0..LINKS / 2 {
        s.push_str(&format!(
            "tuntap add dev dm{i} mode tap\nlink set dm{i} up\n"
        ));
        s.push_str(&format!(
            "link add vl{i} link {TRUNK} type macvlan mode bridge\nlink set vl{i} up\n"
        ));
    }
    s
}

fn kubeconfig_text(url: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: {url}\n\
         contexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n\
         current-context: c\nusers:\n- name: u\n  user: {{}}\n"
    )
}

/// One HTTP/1.1 POST of JSON `body`; the whole answer.
fn post(addr: &str, path: &str, body: &str) -> anyhow::Result<String> {
    let mut s = TcpStream::connect(addr)?;
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut answer = String::new();
    s.read_to_string(&mut answer)?;
    Ok(answer)
}
