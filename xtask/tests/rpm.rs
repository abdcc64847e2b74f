//! The RPMs as a user layering one daemon onto RHCOS gets them: `cargo xtask rpm` from the
//! committed tree (offline, vendored crates) built twice and byte-identical; the metadata a
//! layering user relies on; and each daemon's RPM installed alone (with the common one) into an
//! empty root, booted by systemd on a harness node: its unit enabled by its preset, started,
//! doing its job, with no other daemon's unit present or required.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use integration::node::{ZONE, node_address};
use integration::{Netns, require_root, scratch_dir};

mod common;
use common::run;
use integration::node_boot::*;

/// Each daemon's package, the units its preset enables, and the units it ships.
const PACKAGES: [(&str, &[&str]); 4] = [
    ("nodeip-selector", &["nodeip-configuration.service"]),
    (
        "ovs-bridge-configurator",
        &[
            "ovs-configuration.service",
            "nmstate-configuration.service",
            "node-network-state-publisher.service",
        ],
    ),
    ("resolv-prepender", &["resolv-prepender.service"]),
    ("keepalived-monitor", &["keepalived-monitor.service"]),
];

const COMMON: &str = "onprem-host-networking-common";

/// The NodeNetworkState publisher's unit (in the ovs-bridge-configurator RPM).
const PUBLISHER: &str = "node-network-state-publisher.service";

/// What the publisher logs once it has read the node and tries its first write on a node whose
/// kubelet has not joined (no kubeconfig at the kubelet's path, the unit's default).
const PUBLISHER_WAITS: &str = "no kubeconfig at /var/lib/kubelet/kubeconfig yet";

/// `rpmbuild` works in one fixed directory: one build at a time.
static BUILDING: Mutex<()> = Mutex::new(());

/// Whether a build compiles everything afresh or reuses what the build before it compiled.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Crates {
    Fresh,
    /// Only for a second release of the commit an earlier build of this run compiled (the
    /// upgrade's release 2): same sources, flags and paths, so the same binaries, without a
    /// third whole release build (about 11 minutes of a 2-core CI machine).
    Reused,
}

/// `cargo xtask rpm --release N` into `out` (under Cargo's per-target scratch directory, not
/// `/tmp`), with Cargo's target directory there too; the RPM files, sorted.
fn build(out: &str, release: u32, crates: Crates) -> Vec<PathBuf> {
    let _turn = BUILDING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let dir = scratch.join(out);
    let target = scratch.join("rpm-cargo-target");
    if crates == Crates::Fresh && target.exists() {
        fs::remove_dir_all(&target).unwrap();
    }
    run(Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["rpm", "--out"])
        .arg(&dir)
        .args(["--release", &release.to_string()])
        .arg("--cargo-target-dir")
        .arg(&target)
        .stdout(std::process::Stdio::null()));
    let mut rpms: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    rpms.sort();
    rpms
}

/// The first build, shared by the tests.
fn release_1() -> &'static [PathBuf] {
    static RPMS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    RPMS.get_or_init(|| build("rpm-1", 1, Crates::Fresh))
}

/// The binary RPM of `name` (`<name>-<version>-<release>.<arch>.rpm`).
fn package(rpms: &[PathBuf], name: &str) -> PathBuf {
    rpms.iter()
        .find(|p| {
            let f = p.file_name().unwrap().to_string_lossy();
            f.strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
                && !f.ends_with(".src.rpm")
        })
        .unwrap_or_else(|| panic!("no RPM of {name} in {rpms:?}"))
        .clone()
}

/// `rpm -qp ARGS FILE`.
fn query(rpm: &Path, args: &[&str]) -> String {
    let out = Command::new("rpm")
        .arg("-qp")
        .args(args)
        .arg(rpm)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "rpm -qp {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn two_builds_of_one_commit_are_byte_identical() {
    if !require_root("two_builds_of_one_commit_are_byte_identical") {
        return;
    }
    let first = release_1();
    let second = build("rpm-1-again", 1, Crates::Fresh);
    let names = |v: &[PathBuf]| -> Vec<String> {
        v.iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(names(first), names(&second));
    assert!(
        first
            .iter()
            .any(|p| p.to_string_lossy().ends_with(".src.rpm")),
        "no SRPM"
    );
    for (a, b) in first.iter().zip(&second) {
        assert!(
            fs::read(a).unwrap() == fs::read(b).unwrap(),
            "{} differs between two builds",
            b.display()
        );
    }
}

#[test]
fn the_metadata_says_what_a_layering_user_needs() {
    if !require_root("the_metadata_says_what_a_layering_user_needs") {
        return;
    }
    let rpms = release_1();
    // What each daemon needs on RHCOS, by RHEL's package names.
    let needs: BTreeMap<&str, &[&str]> = [
        (COMMON, &["systemd"][..]),
        ("nodeip-selector", &["systemd"][..]),
        (
            "ovs-bridge-configurator",
            &[
                "NetworkManager",
                "NetworkManager-ovs",
                "openvswitch",
                "systemd",
            ][..],
        ),
        (
            "resolv-prepender",
            &["NetworkManager", "polkit", "systemd"][..],
        ),
        (
            "keepalived-monitor",
            &["keepalived", "nftables", "curl", "systemd"][..],
        ),
    ]
    .into_iter()
    .collect();
    let all_units: Vec<&str> = PACKAGES
        .iter()
        .flat_map(|(_, u)| u.iter().copied())
        .collect();
    for (name, wanted) in &needs {
        let rpm = package(rpms, name);
        let requires: Vec<String> = query(&rpm, &["-R"])
            .lines()
            .map(|l| l.split_whitespace().next().unwrap_or_default().to_owned())
            .collect();
        for w in *wanted {
            assert!(
                requires.iter().any(|r| r == w),
                "{name} does not require {w}: {requires:?}"
            );
        }
        if *name != COMMON {
            assert!(requires.iter().any(|r| r == COMMON), "{name}: {requires:?}");
        }
        // No path of the build machine in the file list.
        let files = query(&rpm, &["-l"]);
        for bad in [
            "BUILDROOT",
            "rpmbuild",
            "/var/tmp",
            "/tmp/",
            "/root/",
            "/target/",
        ] {
            assert!(
                !files.contains(bad),
                "{name} lists a build path ({bad}):\n{files}"
            );
        }
        // Every file under /etc is %config(noreplace): a node's edits survive upgrades.
        let flags = query(
            &rpm,
            &[
                "--qf",
                "[%{FILENAMES} %{FILEMODES:perms} %{FILEFLAGS:fflags}\n]",
            ],
        );
        for line in flags.lines() {
            let mut f = line.split_whitespace();
            let (Some(path), Some(perms)) = (f.next(), f.next()) else {
                continue;
            };
            let fflags = f.next().unwrap_or_default();
            if path.starts_with("/etc/") && !perms.starts_with('d') {
                assert!(
                    fflags.contains('c') && fflags.contains('n'),
                    "{name}: {path} is not %config(noreplace) ({fflags:?})"
                );
            }
        }
        // Its own units only.
        let own: &[&str] = PACKAGES
            .iter()
            .find(|(p, _)| p == name)
            .map_or(&[], |(_, u)| u);
        for unit in &all_units {
            let shipped = files
                .lines()
                .any(|l| l.ends_with(&format!("/systemd/system/{unit}")));
            assert_eq!(shipped, own.contains(unit), "{name} and {unit}:\n{files}");
        }
    }
}

/// Units a unit file requires (`Requires=`, `Requisite=`, `BindsTo=`).
fn hard_dependencies(unit_file: &Path) -> Vec<String> {
    fs::read_to_string(unit_file)
        .unwrap()
        .lines()
        .filter_map(|l| {
            ["Requires=", "Requisite=", "BindsTo="]
                .iter()
                .find_map(|k| l.strip_prefix(k))
        })
        .flat_map(|v| v.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .collect()
}

#[test]
fn each_daemon_rpm_alone_boots_its_unit() {
    if !require_root("each_daemon_rpm_alone_boots_its_unit") {
        return;
    }
    let rpms = release_1();
    let all_units: Vec<&str> = PACKAGES
        .iter()
        .flat_map(|(_, u)| u.iter().copied())
        .collect();
    for (name, units) in PACKAGES {
        let node = NodeBoot::with(&Install::Rpms(&[
            package(rpms, COMMON),
            package(rpms, name),
        ]));
        let root = node.path("root");
        // Enabled by the package's preset, the others absent and never required.
        for unit in units {
            let wanted = fs::read_dir(root.join("etc/systemd/system"))
                .unwrap()
                .filter_map(|e| e.ok())
                // A link to the unit's path in the root (dangling on the host).
                .any(|e| e.path().join(unit).symlink_metadata().is_ok());
            assert!(wanted, "{name}: {unit} not enabled by its preset");
        }
        let lib = root.join("usr/lib/systemd/system");
        for unit in &all_units {
            assert_eq!(
                lib.join(unit).exists(),
                units.contains(unit),
                "{name}: {unit}"
            );
            if units.contains(unit) {
                let hard = hard_dependencies(&lib.join(unit));
                assert!(
                    hard.iter().all(|d| !all_units.contains(&d.as_str())),
                    "{unit} requires another package's unit: {hard:?}"
                );
            }
        }
        let publisher_waits = format!(
            "journalctl -b -q -t node-network-state-publisher | grep -q '{PUBLISHER_WAITS}'"
        );
        let ready = match name {
            "nodeip-selector" => "systemctl is-active -q kubelet.service".to_owned(),
            "ovs-bridge-configurator" => {
                format!("systemctl is-active -q kubelet.service && {publisher_waits}")
            }
            "resolv-prepender" => "test -e /run/resolv-prepender-kni-conf-done".to_owned(),
            _ => "ip -br addr | grep -q ' 198.51.100.5/'".to_owned(),
        };
        // Every daemon's units as systemd has them (not only those the harness reports).
        let show: String = all_units
            .iter()
            .map(|u| {
                format!(
                    "systemctl show -p LoadState,ActiveState,Result,NRestarts {u} > /harness-out/show-{u}\n"
                )
            })
            .collect();
        let r = node.boot_then(&ready, &show);
        let publisher_log: Vec<&str> = r
            .journal
            .lines()
            .filter(|l| l.contains("node-network-state-publisher"))
            .collect();
        let ctx = format!(
            "{name}\n{}\n--- publisher\n{}",
            context(&r),
            publisher_log.join("\n")
        );
        let prop = |unit: &str, key: &str| -> String {
            r.file(&format!("show-{unit}"))
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{key}=")).map(str::to_owned))
                .unwrap_or_default()
        };
        for unit in units {
            assert_eq!(prop(unit, "Result"), "success", "{unit}\n{ctx}");
        }
        for unit in all_units.iter().filter(|u| !units.contains(u)) {
            assert_eq!(prop(unit, "LoadState"), "not-found", "{unit}\n{ctx}");
        }
        let ip = node_address(1);
        match name {
            "nodeip-selector" => {
                assert_eq!(r.file("primary-ip"), ip, "{ctx}");
                assert!(r.file("20-nodenet.conf").contains(&ip), "{ctx}");
                assert_eq!(r.file("forwarding"), "1\n1\n", "{ctx}");
            }
            "ovs-bridge-configurator" => {
                assert!(carries(&r, "br-ex", &ip), "{ctx}");
                assert!(default_via(&r, "br-ex"), "{ctx}");
                // The publisher runs under its unit's sandbox, without a restart: it read the
                // node (NetworkManager, netlink, OVSDB through nmstate; a read that fails offers
                // no document, and no write is tried) and waits for the kubelet's kubeconfig.
                assert_eq!(prop(PUBLISHER, "ActiveState"), "active", "{ctx}");
                assert_eq!(prop(PUBLISHER, "NRestarts"), "0", "{ctx}");
                assert!(
                    publisher_log.iter().any(|l| l.contains(PUBLISHER_WAITS)),
                    "{ctx}"
                );
            }
            "resolv-prepender" => {
                let resolv = r.file("resolv.conf");
                assert!(
                    resolv.contains(&format!("search {ZONE}")),
                    "{resolv}\n{ctx}"
                );
                let first = resolv.lines().find(|l| l.starts_with("nameserver"));
                assert_eq!(
                    first,
                    Some(format!("nameserver {ip}").as_str()),
                    "{resolv}\n{ctx}"
                );
                assert_eq!(r.file("done-flag"), "yes\n", "{ctx}");
            }
            _ => {
                assert_eq!(
                    r.prop("keepalived-monitor.service", "ActiveState"),
                    "active",
                    "{ctx}"
                );
                assert!(
                    r.file("keepalived.conf").contains("interface ens3"),
                    "{ctx}"
                );
                assert!(holds_vip(&r), "{ctx}");
            }
        }
    }
}

/// The scriptlets on a running system: RPMs installed, upgraded to a rebuilt higher release and
/// erased with rpm inside a booted container (a writable `/usr` over the host's). Install
/// enables the units by preset; the upgrade restarts the long-running resolv-prepender and
/// node-network-state-publisher (whose package also holds the boot-time oneshots) and not the
/// boot-time oneshot nodeip-configuration; erase stops and disables them and keeps the
/// configuration file the node modified (`.rpmsave`), removing the unmodified ones.
#[test]
fn scriptlets_enable_on_install_restart_daemons_on_upgrade_and_disable_on_erase() {
    if !require_root("scriptlets_enable_on_install_restart_daemons_on_upgrade_and_disable_on_erase")
    {
        return;
    }
    let first = release_1();
    let second = build("rpm-2", 2, Crates::Reused);
    let rpms = scratch_dir("rpms").unwrap();
    for (release, built) in [("1", first), ("2", &second[..])] {
        let dir = rpms.path().join(release);
        fs::create_dir_all(&dir).unwrap();
        for name in [
            COMMON,
            "nodeip-selector",
            "resolv-prepender",
            "ovs-bridge-configurator",
        ] {
            let rpm = package(built, name);
            fs::copy(&rpm, dir.join(rpm.file_name().unwrap())).unwrap();
        }
    }
    // A network with a default route, for nodeip-configuration's selection.
    let ns = Netns::new("rpm").unwrap();
    ns.nic("eth0").unwrap();
    ns.addr("eth0", "192.0.2.10/24", &[]).unwrap();
    ns.route(&["default", "via", "192.0.2.1"]).unwrap();
    let upper = scratch_dir("usr-upper").unwrap();
    let units = "resolv-prepender.service nodeip-configuration.service node-network-state-publisher.service";
    let script = format!(
        r#"exec > /harness-out/log 2>&1
set -x
rpm -i --nodeps --nosignature /rpms/1/*.rpm
for u in {units}; do systemctl is-enabled $u; done > /harness-out/enabled
echo 'base-domain = "{ZONE}"' >> /etc/resolv-prepender/config.toml
# No NetworkManager here: its wait-online would hold nodeip-configuration's start for 60 s.
systemctl mask --runtime NetworkManager-wait-online.service
systemctl start {units}
systemctl show -p InvocationID --value resolv-prepender.service > /harness-out/before-upgrade
systemctl show -p ExecMainStartTimestampMonotonic --value nodeip-configuration.service >> /harness-out/before-upgrade
systemctl show -p InvocationID --value node-network-state-publisher.service >> /harness-out/before-upgrade
rpm -U --nodeps --nosignature /rpms/2/*.rpm
rpm -q --qf '%{{NAME}}-%{{RELEASE}}\n' nodeip-selector resolv-prepender ovs-bridge-configurator > /harness-out/upgraded
for u in {units}; do systemctl is-active $u; done > /harness-out/active-after-upgrade
systemctl show -p InvocationID --value resolv-prepender.service > /harness-out/after-upgrade
systemctl show -p ExecMainStartTimestampMonotonic --value nodeip-configuration.service >> /harness-out/after-upgrade
systemctl show -p InvocationID --value node-network-state-publisher.service >> /harness-out/after-upgrade
systemctl show -p NRestarts --value node-network-state-publisher.service > /harness-out/publisher-restarts
rpm -e resolv-prepender nodeip-selector ovs-bridge-configurator
for u in {units}; do systemctl is-active $u; done > /harness-out/active-after-erase
for u in {units} ovs-configuration.service nmstate-configuration.service; do find /etc/systemd/system -name $u; done > /harness-out/links-after-erase
find /etc/resolv-prepender /etc/nodeip-selector /etc/default/nodeip-configuration* /etc/ovs-bridge-configurator -type f > /harness-out/etc-after-erase
"#
    );
    let r = integration::nspawn::Boot {
        binds_ro: vec![(rpms.path().display().to_string(), "/rpms".into())],
        netns: Some(&ns),
        usr_upper: Some(upper.path()),
        timeout: Some(std::time::Duration::from_secs(120)),
        report: vec!["systemd-tmpfiles-setup.service".into()],
        before_collect: script,
        ..integration::nspawn::Boot::default()
    }
    .boot()
    .unwrap();
    let ctx = format!("{}\n--- journal\n{}", r.file("log"), r.journal);
    assert_eq!(r.file("enabled"), "enabled\nenabled\nenabled\n", "{ctx}");
    assert_eq!(
        r.file("upgraded"),
        "nodeip-selector-2\nresolv-prepender-2\novs-bridge-configurator-2\n",
        "{ctx}"
    );
    // The daemons run again; the oneshot (no RemainAfterExit) finished before and stays so.
    assert_eq!(
        r.file("active-after-upgrade"),
        "active\ninactive\nactive\n",
        "{ctx}"
    );
    // resolv-prepender's invocation ID, when nodeip-configuration's process last started, the
    // publisher's invocation ID.
    let lines = |f: &str| -> Vec<String> { r.file(f).lines().map(str::to_owned).collect() };
    let (before, after) = (lines("before-upgrade"), lines("after-upgrade"));
    assert_eq!(before.len(), 3, "{ctx}");
    assert_eq!(after.len(), 3, "{ctx}");
    assert_ne!(
        before[0], after[0],
        "resolv-prepender was not restarted by the upgrade\n{ctx}"
    );
    assert_eq!(
        before[1], after[1],
        "nodeip-configuration re-ran on the upgrade\n{ctx}"
    );
    assert_ne!(
        before[2], after[2],
        "node-network-state-publisher was not restarted by the upgrade\n{ctx}"
    );
    // By the upgrade, not by systemd after a crash.
    assert_eq!(r.file("publisher-restarts"), "0\n", "{ctx}");
    assert_eq!(
        r.journal.matches("nodeip_selector: node IP").count(),
        1,
        "nodeip-configuration ran more than once\n{ctx}"
    );
    assert_eq!(
        r.file("active-after-erase"),
        "inactive\ninactive\ninactive\n",
        "{ctx}"
    );
    assert_eq!(
        r.file("links-after-erase"),
        "",
        "units still enabled after erase\n{ctx}"
    );
    // The modified file is kept aside, the unmodified ones go.
    assert_eq!(
        r.file("etc-after-erase"),
        "/etc/resolv-prepender/config.toml.rpmsave\n",
        "{ctx}"
    );
}
