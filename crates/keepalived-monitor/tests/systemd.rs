//! The `systemd` reload method against real systemd (in systemd-nspawn, joined to a test
//! namespace): the first render starts an inactive keepalived.service over D-Bus, a later
//! change reloads the running one (same main PID, keepalived logs its reload).

use std::fs;

use integration::keepalived::PASSING_SCRIPTS;
use integration::nspawn::Boot;
use integration::{Netns, require_root, scratch_dir};

mod common;
use common::peer_list;

const BIN: &str = env!("CARGO_BIN_EXE_keepalived-monitor");

/// keepalived.service as distributions ship it, logging to a file the test reads. Not wanted by
/// the boot: only the monitor starts it.
const KEEPALIVED_UNIT: &str = "[Unit]\nDescription=keepalived (test)\n[Service]\nType=simple\n\
    ExecStart=/usr/sbin/keepalived --dont-fork --log-console --log-detail --no-syslog --vrrp \
    -f /test/keepalived.conf -p /run/ka.pid -r /run/ka-vrrp.pid -c /run/ka-chk.pid -b /run/ka-bfd.pid\n\
    ExecReload=/bin/kill -HUP $MAINPID\nStandardOutput=append:/test/keepalived.log\nStandardError=inherit\n";

/// Runs the monitor, waits for keepalived.service to be started by it, changes the peer list,
/// waits for keepalived's reload; records what it saw under /test.
const DRIVER: &str = r#"
/opt/keepalived-monitor run --config /test/config.toml 2>/test/monitor.log &
monitor=$!
i=0; until systemctl is-active -q keepalived.service || [ $i -ge 150 ]; do sleep 0.1; i=$((i+1)); done
systemctl is-active keepalived.service > /test/state-after-first-render
systemctl show -p MainPID --value keepalived.service > /test/pid-before
i=0; until grep -q 'Entering MASTER STATE' /test/keepalived.log || [ $i -ge 150 ]; do sleep 0.1; i=$((i+1)); done
mv /test/peers-next.toml /test/peers.toml
i=0; until grep -q Reloading /test/keepalived.log || [ $i -ge 150 ]; do sleep 0.1; i=$((i+1)); done
systemctl show -p MainPID --value keepalived.service > /test/pid-after
systemctl is-active keepalived.service > /test/state-after-reload
kill $monitor
wait $monitor
echo $? > /test/monitor-exit
"#;

#[test]
fn systemd_method_starts_then_reloads_keepalived_service() {
    if !require_root("systemd_method_starts_then_reloads_keepalived_service") {
        return;
    }
    let dir = scratch_dir("kam-sd").unwrap();
    let d = dir.path();
    let ns = Netns::new("kamsd").unwrap();
    ns.nic("eth0").unwrap();
    ns.addr("eth0", "192.0.2.11/24", &[]).unwrap();
    fs::create_dir_all(d.join("run")).unwrap();
    fs::write(d.join("run/ipv4"), "192.0.2.11").unwrap();
    fs::write(
        d.join("peers.toml"),
        peer_list(&["192.0.2.11", "192.0.2.12"]),
    )
    .unwrap();
    fs::write(
        d.join("peers-next.toml"),
        peer_list(&["192.0.2.11", "192.0.2.12", "192.0.2.13"]),
    )
    .unwrap();
    fs::write(
        d.join("config.toml"),
        format!(
            "cluster-name = \"sd\"\nrole = \"master\"\napi-vips = [\"192.0.2.200\"]\noutput = \"/test/keepalived.conf\"\n\
             run-dir = \"/test/run\"\nkeepalived-dir = \"/test\"\npeer-source = \"file\"\npeers-file = \"/test/peers.toml\"\n\
             reload = \"systemd\"\ndebounce-ms = 200\n{PASSING_SCRIPTS}"
        ),
    )
    .unwrap();
    fs::write(d.join("driver.sh"), DRIVER).unwrap();
    fs::write(d.join("keepalived.service"), KEEPALIVED_UNIT).unwrap();
    let driver = "[Unit]\nRequires=dbus.socket\nAfter=dbus.socket\n[Service]\nType=oneshot\nRemainAfterExit=yes\n\
                  ExecStart=/bin/sh /test/driver.sh\nTimeoutStartSec=60\n";
    let boot = Boot {
        units: vec![("hx-kam-driver.service".into(), driver.into())],
        binds: vec![(d.display().to_string(), "/test".into())],
        binds_ro: vec![
            (BIN.into(), "/opt/keepalived-monitor".into()),
            (
                d.join("keepalived.service").display().to_string(),
                "/etc/systemd/system/keepalived.service".into(),
            ),
        ],
        netns: Some(&ns),
        timeout: Some(std::time::Duration::from_secs(90)),
        ..Boot::default()
    };
    let units = boot.run().unwrap();
    let read = |f: &str| {
        fs::read_to_string(d.join(f))
            .unwrap_or_default()
            .trim()
            .to_owned()
    };
    let context = format!(
        "{units:?}\nmonitor:\n{}\nkeepalived:\n{}",
        read("monitor.log"),
        read("keepalived.log")
    );
    assert_eq!(
        units["hx-kam-driver.service"]["Result"], "success",
        "{context}"
    );
    assert_eq!(
        read("state-after-first-render"),
        "active",
        "started by the monitor\n{context}"
    );
    assert!(
        read("keepalived.conf").contains("        192.0.2.13\n"),
        "{context}"
    );
    assert!(read("keepalived.log").contains("Reloading"), "{context}");
    let pid = read("pid-before");
    assert!(pid.parse::<u32>().is_ok_and(|p| p > 0), "{context}");
    assert_eq!(read("pid-after"), pid, "reloaded, not restarted\n{context}");
    assert_eq!(read("state-after-reload"), "active", "{context}");
    assert_eq!(
        read("monitor-exit"),
        "0",
        "SIGTERM ends the monitor cleanly\n{context}"
    );
}
