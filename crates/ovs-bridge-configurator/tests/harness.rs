//! ovs-bridge-configurator against the OVS-enabled NetworkManager and OVS's userspace datapath.

use std::fs;
use std::path::PathBuf;
use std::process::Output;
use std::time::{Duration, Instant};

use integration::node::{Node, ROUTER, Upstream, node_address};
use integration::process::wait_for;
use integration::require_root;

const BIN: &str = env!("CARGO_BIN_EXE_ovs-bridge-configurator");

struct Case {
    node: Node,
    up: Upstream,
    etc: PathBuf,
    var_lib: PathBuf,
}

impl Case {
    /// A node whose uplink ens3 has an original, persistent profile `ens3`.
    fn new(static_ip: bool) -> Case {
        let mut up = Upstream::start(1, &[]).unwrap();
        let node = Node::start(&mut up, 1).unwrap();
        let cidr = format!("{}/24", node_address(1));
        let mut settings = vec!["autoconnect", "yes"];
        if static_ip {
            settings.extend([
                "ipv4.method",
                "manual",
                "ipv4.addresses",
                &cidr,
                "ipv4.gateway",
                ROUTER,
            ]);
        } else {
            settings.extend(["ipv4.method", "auto"]);
        }
        node.nm.up_ethernet("ens3", "ens3", &settings).unwrap();
        let etc = node.dir().join("etc");
        let var_lib = node.dir().join("var-lib");
        fs::create_dir_all(&etc).unwrap();
        fs::create_dir_all(&var_lib).unwrap();
        Case {
            node,
            up,
            etc,
            var_lib,
        }
    }

    fn write_primary_ip(&self) {
        let dir = self.node.view.run_dir().join("nodeip-configuration");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("primary-ip"), node_address(1)).unwrap();
    }

    fn run(&self, args: &[&str]) -> Output {
        self.node
            .view
            .command(BIN)
            .args(args)
            .args(["--config", "/dev/null", "--retry-interval-secs", "0"])
            .arg("--etc-dir")
            .arg(&self.etc)
            .arg("--var-lib-dir")
            .arg(&self.var_lib)
            .env("DBUS_SYSTEM_BUS_ADDRESS", self.node.nm.bus_address())
            .output()
            .unwrap()
    }

    fn ready(&self) -> bool {
        let ip = node_address(1);
        let br = self
            .node
            .ns
            .ip(&["-br", "addr", "show", "dev", "br-ex"])
            .unwrap_or_default();
        let ens3 = self
            .node
            .ns
            .ip(&["-4", "-br", "addr", "show", "dev", "ens3"])
            .unwrap_or_default();
        br.contains(&format!("{ip}/24"))
            && self.node.has_default_route_via("br-ex")
            && !ens3.contains(&ip)
    }
}

fn log(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn static_uplink_is_moved_onto_br_ex() {
    if !require_root("static_uplink_is_moved_onto_br_ex") {
        return;
    }
    let c = Case::new(true);
    c.write_primary_ip();
    let t = Instant::now();
    let o = c.run(&["apply"]);
    let took = t.elapsed();
    assert!(
        o.status.success(),
        "{}\n{}",
        log(&o),
        c.node.nm.log_tail(40)
    );
    assert!(
        wait_for(Duration::from_secs(5), || c.ready()),
        "{}",
        c.node.ns.ip(&["route"]).unwrap()
    );
    eprintln!("apply took {took:?}\n{}", log(&o));
    let ping = c.up.ns.exec("ping", &["-c1", "-W2", &node_address(1)]);
    assert!(ping.is_ok(), "{ping:?}");
}
