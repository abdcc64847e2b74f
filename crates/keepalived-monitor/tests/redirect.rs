//! HAProxy's API redirect rules (real nftables) through the flag keepalived-monitor keeps, the
//! check script it writes, and real keepalived's priority: end to end, as on a master.

use std::fs;
use std::path::Path;
use std::time::Duration;

use integration::keepalived::Keepalived;
use integration::process::wait_for;
use integration::{Netns, require_root};

mod common;
use common::{http_ok, peer_list};

const BIN: &str = env!("CARGO_BIN_EXE_keepalived-monitor");

/// What HAProxy's monitor installs for API VIP 192.0.2.200 (reference §5.2).
const RULES: &str = r#"
table ip ocp_nat {
    chain ocp_prerouting {
        type nat hook prerouting priority dstnat; policy accept;
        ip daddr 192.0.2.200 tcp dport 6443 dnat to 192.0.2.200:9445 comment "OCP_API_LB_REDIRECT"
    }
    chain ocp_output {
        type nat hook output priority -100; policy accept;
        ip daddr 192.0.2.200 oifname "lo" tcp dport 6443 redirect to :9445 comment "OCP_API_LB_REDIRECT"
    }
}
"#;

fn nft(ns: &Netns, dir: &Path, rules: &str) {
    let f = dir.join("rules.nft");
    fs::write(&f, rules).unwrap();
    let out = ns
        .command("nft")
        .arg("-f")
        .arg(&f)
        .output()
        .expect("nft (package nftables)");
    assert!(out.status.success(), "{out:?}");
}

/// The last effective priority keepalived reported for the API instance.
fn priority(log: &str) -> Option<u32> {
    log.lines()
        .rev()
        .find_map(|l| l.split("Changing effective priority from ").nth(1))
        .and_then(|rest| rest.split(" to ").nth(1))
        .and_then(|p| p.trim().parse().ok())
}

#[test]
fn haproxys_redirect_rules_raise_the_api_priority_through_the_check_script() {
    if !require_root("haproxys_redirect_rules_raise_the_api_priority_through_the_check_script") {
        return;
    }
    // keepalived's `enable_script_security` refuses scripts under a directory others can
    // write (/tmp): a root-only directory, as /etc/keepalived is.
    let dir = tempfile::Builder::new()
        .prefix("kam-redirect")
        .tempdir_in("/run")
        .unwrap();
    let d = dir.path();
    let ns = Netns::new("kamred").unwrap();
    ns.ip(&["link", "set", "lo", "up"]).unwrap();
    ns.nic("eth0").unwrap();
    ns.addr("eth0", "192.0.2.11/24", &[]).unwrap();
    fs::create_dir_all(d.join("run")).unwrap();
    fs::write(d.join("run/ipv4"), "192.0.2.11").unwrap();
    fs::write(
        d.join("peers.toml"),
        peer_list(&["192.0.2.11", "192.0.2.12"]),
    )
    .unwrap();
    let conf = d.join("keepalived.conf");
    // The rendered check scripts, faster: rise and fall after one run. chk_ocp_both's other
    // branch (the local API server) and chk_mcs (crictl) fail here.
    let fast = |name: &str| format!("[scripts.{name}]\nrise = 1\nfall = 1\n");
    fs::write(
        d.join("config.toml"),
        format!(
            "cluster-name = \"hx\"\nrole = \"master\"\napi-vips = [\"192.0.2.200\"]\n\
             output = \"{conf}\"\nrun-dir = \"{d}/run\"\nkeepalived-dir = \"{d}\"\n\
             keepalived-run-dir = \"{d}/ka-run\"\napi-port = 16443\npeer-source = \"file\"\n\
             peers-file = \"{d}/peers.toml\"\nreload = \"pidfile\"\npid-file = \"{d}/ka/keepalived.pid\"\n\
             debounce-ms = 200\n{}{}",
            fast("chk_ocp_lb"),
            fast("chk_ocp_both"),
            conf = conf.display(),
            d = d.display()
        ),
    )
    .unwrap();
    // HAProxy's readiness endpoint answers.
    let _haproxy = http_ok(&ns, "127.0.0.1:9444", Duration::from_secs(60));
    let log = fs::File::create(d.join("monitor.log")).unwrap();
    let mut monitor = ns
        .command(BIN)
        .args(["run", "--config"])
        .arg(d.join("config.toml"))
        .env("RUST_LOG", "info")
        .stderr(log)
        .spawn()
        .unwrap();
    let monitor_log = || fs::read_to_string(d.join("monitor.log")).unwrap_or_default();
    assert!(
        wait_for(Duration::from_secs(10), || fs::read_to_string(&conf)
            .is_ok_and(|t| t.contains("vrrp_instance hx_API_0"))),
        "{}",
        monitor_log()
    );
    let keepalived = Keepalived::start_file(&ns, &d.join("ka"), &conf).unwrap();
    let flag = d.join("ka-run/iptables-rule-exists");
    // No rules: no flag, base priority.
    std::thread::sleep(Duration::from_secs(3));
    assert!(!flag.exists());
    assert_eq!(
        priority(&keepalived.log_tail(200)),
        None,
        "{}",
        keepalived.log_tail(50)
    );

    nft(&ns, d, RULES);
    assert!(
        wait_for(Duration::from_secs(5), || flag.exists()),
        "{}",
        monitor_log()
    );
    assert!(
        wait_for(Duration::from_secs(15), || priority(
            &keepalived.log_tail(200)
        ) == Some(65)),
        "chk_ocp_lb +20 and chk_ocp_both +5:\n{}",
        keepalived.log_tail(50)
    );

    // HAProxy's monitor removes one rule (the API is not healthy): the flag goes, and both
    // checks fail again.
    nft(&ns, d, "flush chain ip ocp_nat ocp_prerouting\n");
    assert!(
        wait_for(Duration::from_secs(5), || !flag.exists()),
        "{}",
        monitor_log()
    );
    assert!(
        wait_for(Duration::from_secs(15), || priority(
            &keepalived.log_tail(200)
        ) == Some(40)),
        "{}",
        keepalived.log_tail(50)
    );
    assert!(
        monitor_log().contains("HAProxy's API redirect rules for 192.0.2.200 are in place"),
        "{}",
        monitor_log()
    );
    let _ = monitor.kill();
    let _ = monitor.wait();
}
