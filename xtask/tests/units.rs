//! The units in `units/` pass `systemd-analyze verify` (no warning at all: verify exits 0 even
//! on unknown keys, so any stderr output fails) and keep a low `systemd-analyze security`
//! exposure. Checked against a root holding the host's systemd units, stand-ins for the
//! OpenShift units they order against, and placeholder binaries.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

const SERVICES: [&str; 7] = [
    "nodeip-configuration.service",
    "nmstate-configuration.service",
    "nmstate-configuration-live.service",
    "ovs-configuration.service",
    "resolv-prepender.service",
    "keepalived-monitor.service",
    "node-network-state-publisher.service",
];

fn units_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../units/system")
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        // Keep symlinks: `.wants/` entries must stay links for systemd.
        if let Ok(target) = fs::read_link(&p) {
            std::os::unix::fs::symlink(target, &dest).unwrap();
        } else if p.is_dir() {
            copy_tree(&p, &dest);
        } else if p.is_file() {
            fs::copy(&p, &dest).unwrap();
        }
    }
}

fn executable(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// A root for `--root`: the host's units, ours, stand-ins and placeholder binaries.
fn root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let system = root.path().join("usr/lib/systemd/system");
    copy_tree(Path::new("/usr/lib/systemd/system"), &system);
    copy_tree(&units_dir(), &system);
    for bin in [
        "nodeip-selector",
        "ovs-bridge-configurator",
        "resolv-prepender",
        "keepalived-monitor",
        "systemctl",
        "true",
    ] {
        executable(&root.path().join("usr/bin").join(bin), "#!/bin/sh\n");
    }
    fs::write(
        system.join("kubelet-dependencies.target"),
        "[Unit]\nDescription=stand-in\n",
    )
    .unwrap();
    // keepalived.service is the package's own (keepalived is installed on this machine), so
    // our drop-in is verified against what it extends.
    executable(&root.path().join("usr/sbin/keepalived"), "#!/bin/sh\n");
    executable(&root.path().join("bin/kill"), "#!/bin/sh\n");
    for unit in ["openvswitch.service", "kubelet.service"] {
        fs::write(
            system.join(unit),
            "[Unit]\nDescription=stand-in\n[Service]\nExecStart=/usr/bin/true\n",
        )
        .unwrap();
    }
    root
}

/// `systemd-analyze` in a private mount namespace with an empty `/run`: even with `--root` it
/// creates `/run/systemd/systemd-units-load` on the host, and the suite must leave the host as
/// it found it (a fresh machine has no such file).
fn analyze(root: &Path, args: &[&str], units: &[&str]) -> (bool, String, String) {
    let system = root.join("usr/lib/systemd/system");
    let mut cmd = Command::new("systemd-analyze");
    // SAFETY: only async-signal-safe syscalls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let fail = |r: libc::c_int| {
                if r == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            };
            fail(libc::unshare(libc::CLONE_NEWNS))?;
            fail(libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ))?;
            fail(libc::mount(
                c"tmpfs".as_ptr(),
                c"/run".as_ptr(),
                c"tmpfs".as_ptr(),
                0,
                std::ptr::null(),
            ))
        });
    }
    let o = cmd
        .args(args)
        .arg(format!("--root={}", root.display()))
        .args(units.iter().map(|u| system.join(u)))
        .output()
        .expect("systemd-analyze (package systemd)");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn every_unit_and_drop_in_verifies_without_a_warning() {
    let root = root();
    let mut units: Vec<&str> = SERVICES.to_vec();
    units.push("kubelet.service"); // with our 10-mco-on-prem-wait-resolv.conf drop-in
    units.push("keepalived.service"); // the package's unit with our drop-in
    let (ok, _, stderr) = analyze(root.path(), &["verify", "--man=no"], &units);
    assert!(ok && stderr.is_empty(), "systemd-analyze verify:\n{stderr}");
}

#[test]
fn a_misspelt_key_is_caught() {
    let root = root();
    let unit = root
        .path()
        .join("usr/lib/systemd/system/resolv-prepender.service");
    let text = fs::read_to_string(&unit)
        .unwrap()
        .replace("ProtectHome=yes", "ProtectHoem=yes");
    fs::write(&unit, text).unwrap();
    let (_, _, stderr) = analyze(
        root.path(),
        &["verify", "--man=no"],
        &["resolv-prepender.service"],
    );
    assert!(stderr.contains("Unknown key 'ProtectHoem'"), "{stderr}");
}

#[test]
fn security_exposure_stays_low() {
    let root = root();
    for unit in SERVICES {
        let (_, stdout, stderr) = analyze(
            root.path(),
            &["security", "--offline=true", "--no-pager"],
            &[unit],
        );
        let text = format!("{stdout}{stderr}");
        let exposure: f64 = text
            .split("Overall exposure level for ")
            .nth(1)
            .and_then(|t| t.split(": ").nth(1))
            .and_then(|t| t.split_whitespace().next())
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("no exposure for {unit}:\n{text}"));
        eprintln!("{unit}: exposure {exposure}");
        assert!(exposure <= 3.0, "{unit}: exposure {exposure}\n{text}");
    }
}

#[test]
fn tmpfiles_create_every_directory_the_units_write() {
    let root = tempfile::tempdir().unwrap();
    let conf =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../units/tmpfiles.d/onprem-networking.conf");
    let o = Command::new("systemd-tmpfiles")
        .arg(format!("--root={}", root.path().display()))
        .arg("--create")
        .arg(&conf)
        .output()
        .unwrap();
    assert!(
        o.status.success() && o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for dir in [
        "run/nodeip-configuration",
        "run/resolv-prepender",
        "etc/keepalived",
        "var/lib/ovnk",
    ] {
        assert!(root.path().join(dir).is_dir(), "{dir}");
    }
}

/// `KEY=` values of `unit`'s `[section]`, each value split on whitespace.
fn values(unit: &str, section: &str, key: &str) -> Vec<String> {
    let text = fs::read_to_string(units_dir().join(unit)).unwrap();
    let mut current = "";
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            current = line;
        } else if current == format!("[{section}]")
            && let Some(v) = line.strip_prefix(&format!("{key}="))
        {
            out.extend(v.split_whitespace().map(str::to_owned));
        }
    }
    out
}

/// The NodeNetworkState publisher is a nice-to-have at boot: a Type=notify daemon with a start
/// bound that nothing boot-critical waits for or requires (multi-user.target wants it, nothing
/// is ordered after it), started after br-ex is built, with the kubelet's kubeconfig being the
/// configurator's default (so no flag may point elsewhere).
#[test]
fn the_publisher_never_holds_the_boot() {
    let unit = "node-network-state-publisher.service";
    let one = |section, key| values(unit, section, key);
    assert_eq!(one("Service", "Type"), ["notify"]);
    assert_eq!(
        one("Service", "ExecStart"),
        ["/usr/bin/ovs-bridge-configurator", "publish-state"]
    );
    assert_eq!(one("Service", "Restart"), ["on-failure"]);
    assert_eq!(one("Service", "TimeoutStartSec"), ["30"]);
    for key in ["Before", "Requires", "Requisite", "BindsTo", "PartOf"] {
        assert_eq!(one("Unit", key), Vec::<String>::new(), "{key}=");
    }
    assert_eq!(one("Install", "WantedBy"), ["multi-user.target"]);
    for key in ["RequiredBy", "Alias", "Also"] {
        assert_eq!(one("Install", key), Vec::<String>::new(), "{key}=");
    }
    let after = one("Unit", "After");
    for u in [
        "network-online.target",
        "NetworkManager.service",
        "ovs-configuration.service",
    ] {
        assert!(after.iter().any(|a| a == u), "After= lacks {u}: {after:?}");
    }
    // And no other unit of ours orders itself after it or pulls it in.
    for other in SERVICES.iter().filter(|u| **u != unit) {
        let text = fs::read_to_string(units_dir().join(other)).unwrap();
        assert!(!text.contains(unit), "{other} names {unit}");
    }
}
