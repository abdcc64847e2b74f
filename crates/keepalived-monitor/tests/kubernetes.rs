//! Peer source `kubernetes` against a local HTTPS API server serving Node lists and watch events.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use integration::apiserver::{Event, FakeApiServer, node};
use integration::process::wait_for;
use integration::{Netns, require_root, scratch_dir};

const BIN: &str = env!("CARGO_BIN_EXE_keepalived-monitor");

/// A node's settings in `dir` (run dir with `own` as its IPv4 node IP, output
/// `dir/keepalived.conf`): `role`, Nodes through `kubeconfig`, and `reload` (TOML lines, where
/// `{dir}` stands for `dir`). Returns the config file and the output.
fn node_config(
    dir: &Path,
    own: &str,
    role: &str,
    kubeconfig: &Path,
    reload: &str,
) -> (PathBuf, PathBuf) {
    let run = dir.join("run");
    fs::create_dir_all(&run).unwrap();
    fs::write(run.join("ipv4"), own).unwrap();
    let out = dir.join("keepalived.conf");
    let cfg = dir.join("config.toml");
    let d = dir.display().to_string();
    fs::write(
        &cfg,
        format!(
            "cluster-name = \"hx\"\nrole = \"{role}\"\napi-vips = [\"192.0.2.200\"]\ningress-vips = [\"192.0.2.201\"]\n\
             peer-source = \"kubernetes\"\nkubeconfig = \"{}\"\noutput = \"{}\"\nrun-dir = \"{}\"\nkeepalived-dir = \"{d}\"\n\
             {}\ndebounce-ms = 200\n",
            kubeconfig.display(),
            out.display(),
            run.display(),
            reload.replace("{dir}", &d),
        ),
    )
    .unwrap();
    (cfg, out)
}

/// A node's namespace with `eth0` holding `cidr`.
fn node_ns(prefix: &str, cidr: &str) -> Netns {
    let ns = Netns::new(prefix).unwrap();
    ns.nic("eth0").unwrap();
    ns.addr("eth0", cidr, &[]).unwrap();
    ns
}

/// `keepalived-monitor render` in `ns`: it must succeed; its output.
fn render(ns: &Netns, cfg: &Path) -> String {
    let o = ns
        .command(BIN)
        .args(["render", "--config"])
        .arg(cfg)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The daemon (`keepalived-monitor run`) in `ns`, logging to `log`.
fn run(ns: &Netns, cfg: &Path, log: &Path) -> Child {
    ns.command(BIN)
        .args(["run", "--config"])
        .arg(cfg)
        .stderr(fs::File::create(log).unwrap())
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

/// Master 192.0.2.11 with the API server serving `nodes` in its own namespace (reached on
/// 127.0.0.1), and its settings.
struct MasterWithApi {
    dir: tempfile::TempDir,
    ns: Netns,
    server: FakeApiServer,
    cfg: PathBuf,
    out: PathBuf,
}

impl MasterWithApi {
    fn new(prefix: &str, nodes: Vec<serde_json::Value>) -> MasterWithApi {
        let dir = scratch_dir(prefix).unwrap();
        let ns = node_ns(prefix, "192.0.2.11/24");
        let d = dir.path().to_owned();
        let server = ns
            .run_in(move || FakeApiServer::start(&d, nodes))
            .unwrap()
            .unwrap();
        let (cfg, out) = node_config(
            dir.path(),
            "192.0.2.11",
            "master",
            server.kubeconfig(),
            "reload = \"pidfile\"\npid-file = \"{dir}/none.pid\"",
        );
        MasterWithApi {
            dir,
            ns,
            server,
            cfg,
            out,
        }
    }

    fn conf(&self) -> String {
        fs::read_to_string(&self.out).unwrap_or_default()
    }

    fn monitor_log(&self) -> String {
        fs::read_to_string(self.dir.path().join("monitor.log")).unwrap_or_default()
    }

    /// The daemon, logging to `monitor.log`.
    fn run(&self) -> Child {
        run(&self.ns, &self.cfg, &self.dir.path().join("monitor.log"))
    }
}

#[test]
fn peers_come_from_the_node_watch_and_follow_its_events() {
    if !require_root("peers_come_from_the_node_watch") {
        return;
    }
    let m = MasterWithApi::new(
        "kamk",
        vec![
            node("master-0", true, &["192.0.2.11"], &[]),
            node("master-1", true, &["192.0.2.12"], &[]),
            node("master-2", true, &["192.0.2.13"], &[]),
            node("worker-0", false, &["192.0.2.14"], &[]),
        ],
    );
    let text = render(&m.ns, &m.cfg);
    assert!(text.contains("unicast_src_ip 192.0.2.11\n    unicast_peer {\n        192.0.2.12\n        192.0.2.13\n    }"), "{text}");
    assert!(
        text.contains("        192.0.2.12\n        192.0.2.13\n        192.0.2.14\n    }"),
        "ingress peers are all nodes: {text}"
    );

    let mut daemon = m.run();
    let (conf, monitor_log) = (|| m.conf(), || m.monitor_log());
    assert!(
        wait_for(Duration::from_secs(10), || conf().contains("192.0.2.14")),
        "{}",
        monitor_log()
    );

    // A new master known only through OVN's host-cidrs annotation joins the backends.
    m.server.send(Event {
        kind: "ADDED",
        node: node("master-3", true, &[], &["192.0.2.16/24", "2001:db8::16/64"]),
    });
    assert!(
        wait_for(Duration::from_secs(10), || conf()
            .contains("        192.0.2.16\n")),
        "{}",
        monitor_log()
    );
    // A deleted node leaves; a modified one keeps its place.
    m.server.send(Event {
        kind: "DELETED",
        node: node("worker-0", false, &["192.0.2.14"], &[]),
    });
    assert!(
        wait_for(Duration::from_secs(10), || !conf().contains("192.0.2.14")),
        "{}",
        monitor_log()
    );
    m.server.send(Event {
        kind: "MODIFIED",
        node: node("master-1", true, &["192.0.2.22"], &[]),
    });
    assert!(
        wait_for(Duration::from_secs(10), || conf().contains(
            "        192.0.2.13\n        192.0.2.16\n        192.0.2.22\n    }"
        )),
        "{}",
        conf()
    );
    let _ = daemon.kill();
    let _ = daemon.wait();
}

#[test]
fn the_bootstrap_renders_at_once_before_its_api_answers() {
    if !require_root("the_bootstrap_renders_at_once_before_its_api_answers") {
        return;
    }
    let dir = scratch_dir("kam-boot").unwrap();
    let ns = node_ns("kamb", "192.0.2.10/24");
    // The API server runs elsewhere: from the node's namespace nothing answers on 127.0.0.1.
    let elsewhere = Netns::new("kamb-api").unwrap();
    let d = dir.path().to_owned();
    let server = elsewhere
        .run_in(move || FakeApiServer::start(&d, vec![]))
        .unwrap()
        .unwrap();
    let (cfg, out) = node_config(
        dir.path(),
        "192.0.2.10",
        "bootstrap",
        server.kubeconfig(),
        "reload = \"socket\"\ncontrol-socket = \"{dir}/none.sock\"",
    );
    let started = std::time::Instant::now();
    let text = render(&ns, &cfg);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "render waited for the API: {:?}",
        started.elapsed()
    );
    assert!(
        text.contains("vrrp_instance hx_API_0 {")
            && text.contains("priority 70")
            && text
                .contains("unicast_src_ip 192.0.2.10\n    unicast_peer {\n        0.0.0.0\n    }"),
        "{text}"
    );
    assert!(!text.contains("INGRESS"), "{text}");

    let mut daemon = run(&ns, &cfg, &dir.path().join("monitor.log"));
    let written = wait_for(Duration::from_secs(10), || {
        fs::read_to_string(&out).is_ok_and(|t| t.contains("vrrp_instance hx_API_0 {"))
    });
    let _ = daemon.kill();
    let _ = daemon.wait();
    assert!(
        written,
        "the daemon wrote nothing: {}",
        fs::read_to_string(dir.path().join("monitor.log")).unwrap_or_default()
    );
}

/// kubelet rotates its client certificate; once the old one has expired the API server answers
/// 401 to it. The monitor must rebuild its client from the new certificate on disk and resume
/// its watch: otherwise its peers freeze for good about 30 days after install.
#[test]
fn a_rotated_client_certificate_is_picked_up_and_the_watch_resumes() {
    if !require_root("a_rotated_client_certificate_is_picked_up_and_the_watch_resumes") {
        return;
    }
    let mut m = MasterWithApi::new(
        "kamr",
        vec![
            node("master-0", true, &["192.0.2.11"], &[]),
            node("master-1", true, &["192.0.2.12"], &[]),
            node("master-2", true, &["192.0.2.13"], &[]),
        ],
    );
    let mut daemon = m.run();
    assert!(
        wait_for(Duration::from_secs(10), || m.conf().contains("192.0.2.13")),
        "{}",
        m.monitor_log()
    );
    // The old certificate expired: 401 from now on, the open watch ends. kubelet has not
    // written the new one yet.
    let pem = m.server.rotate_client_certificate().unwrap();
    assert!(
        wait_for(Duration::from_secs(10), || m
            .monitor_log()
            .contains("refused the credentials")),
        "{}",
        m.monitor_log()
    );
    m.server.install_client_certificate(&pem).unwrap();
    m.server.send(Event {
        kind: "ADDED",
        node: node("worker-0", false, &["192.0.2.14"], &[]),
    });
    assert!(
        wait_for(Duration::from_secs(15), || m.conf().contains("192.0.2.14")),
        "the watch did not resume with the new certificate:\n{}",
        m.monitor_log()
    );
    let _ = daemon.kill();
    let _ = daemon.wait();
}

/// api-int (the kubeconfig's server, behind the API VIP) does not answer: as upstream, the
/// monitor asks the local API server on `https://localhost:<api-port>` with the same
/// credentials, verifying its certificate for api-int's name.
#[test]
fn the_local_api_server_answers_when_api_int_does_not() {
    if !require_root("the_local_api_server_answers_when_api_int_does_not") {
        return;
    }
    let dir = scratch_dir("kam-local").unwrap();
    // No route to 203.0.113.0/24 in the node: api-int's address is unreachable.
    let ns = node_ns("kaml", "192.0.2.11/24");
    let nodes = vec![
        node("master-0", true, &["192.0.2.11"], &[]),
        node("master-1", true, &["192.0.2.12"], &[]),
    ];
    let listener = ns
        .run_in(|| std::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap()
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let d = dir.path().to_owned();
    let server = ns
        .run_in(move || {
            FakeApiServer::start_as(&d, nodes, listener, &format!("203.0.113.254:{port}"))
        })
        .unwrap()
        .unwrap();
    let (cfg, _) = node_config(
        dir.path(),
        "192.0.2.11",
        "master",
        server.kubeconfig(),
        &format!("reload = \"pidfile\"\npid-file = \"{{dir}}/none.pid\"\napi-port = {port}"),
    );
    let o = ns
        .command(BIN)
        .args(["render", "--config"])
        .arg(&cfg)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{stderr}");
    assert!(
        stdout.contains("unicast_src_ip 192.0.2.11\n    unicast_peer {\n        192.0.2.12\n    }"),
        "{stdout}\n{stderr}"
    );
    assert!(
        stderr.contains(&format!("trying Localhost({port})")),
        "{stderr}"
    );
}
