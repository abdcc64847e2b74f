//! Finds what the harness left behind: namespaces, processes, temp dirs and `/etc/netns`
//! entries carrying the harness prefix.

use std::process::Command;

use crate::netns::PREFIX;

/// Everything with the harness prefix that still exists, one line each.
pub fn find() -> Vec<String> {
    let mut found = Vec::new();
    let netns = Command::new("ip").args(["netns", "list"]).output();
    if let Ok(out) = netns {
        for l in String::from_utf8_lossy(&out.stdout).lines() {
            if l.starts_with(PREFIX) {
                found.push(format!("namespace {l}"));
            }
        }
    }
    for (dir, what) in [
        (std::env::temp_dir(), "temp dir"),
        ("/etc/netns".into(), "/etc/netns entry"),
    ] {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                if e.file_name().to_string_lossy().starts_with(PREFIX) {
                    found.push(format!("{what} {}", e.path().display()));
                }
            }
        }
    }
    let me = std::process::id().to_string();
    if let Ok(procs) = std::fs::read_dir("/proc") {
        for p in procs.flatten() {
            let pid = p.file_name().to_string_lossy().into_owned();
            if pid == me || !pid.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            let Ok(raw) = std::fs::read(p.path().join("cmdline")) else {
                continue;
            };
            let cmdline = String::from_utf8_lossy(&raw).replace('\0', " ");
            if cmdline.contains(&format!("/{PREFIX}")) || cmdline.contains(&format!(" {PREFIX}")) {
                found.push(format!("process {pid}: {}", cmdline.trim()));
            }
        }
    }
    found
}

/// Host paths the components are known to leave when misused (reference §8): compare the list
/// before and after a suite.
pub fn host_markers() -> Vec<String> {
    let mut found = Vec::new();
    for p in [
        "/run/mount",
        "/run/systemd/systemd-units-load",
        "/run/systemd/nspawn",
        "/run/systemd/nspawn-root",
        // `cargo xtask rpm`'s fixed rpmbuild top directory, removed after every build.
        "/var/tmp/onprem-host-networking-rpmbuild",
    ] {
        if std::path::Path::new(p).exists() {
            found.push(p.to_owned());
        }
    }
    for root in [
        "/sys/fs/cgroup/systemd",
        "/sys/fs/cgroup/unified",
        "/sys/fs/cgroup",
    ] {
        for leaf in ["payload", "supervisor"] {
            let p = format!("{root}/{leaf}");
            if std::path::Path::new(&p).exists() {
                found.push(p);
            }
        }
    }
    if let Ok(entries) = std::fs::read_dir("/tmp") {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with("keepalived") && name.ends_with(".data") {
                found.push(format!("/tmp/{name}"));
            }
        }
    }
    found
}

/// Directories the harness's first namespace creates on the host: `ip netns add` makes
/// `/run/netns` (a shared bind mount of itself) and the harness `/etc/netns`. A fresh machine has
/// neither, so a suite that created them removes them again ([`remove_if_created`]).
pub const NETNS_DIRS: [&str; 2] = ["/run/netns", "/etc/netns"];

/// Which of [`NETNS_DIRS`] exist now (call before a suite).
pub fn existing_netns_dirs() -> Vec<&'static str> {
    NETNS_DIRS
        .into_iter()
        .filter(|d| std::path::Path::new(d).exists())
        .collect()
}

/// Removes each of [`NETNS_DIRS`] that did not exist before the suite (`existed`) and is empty
/// again, unmounting `/run/netns` first. A directory that still holds entries stays: those are
/// leaks [`find`] reports.
pub fn remove_if_created(existed: &[&str]) -> Result<(), String> {
    for dir in NETNS_DIRS.into_iter().filter(|d| !existed.contains(d)) {
        let empty = std::fs::read_dir(dir).is_ok_and(|mut e| e.next().is_none());
        if !empty {
            continue;
        }
        // Unmounted as often as `ip netns` stacked its bind mount (EINVAL once none is left).
        let path = std::ffi::CString::new(dir).expect("no NUL in a constant");
        // SAFETY: a plain syscall on a NUL-terminated path.
        while unsafe { libc::umount2(path.as_ptr(), libc::MNT_DETACH) } == 0 {}
        std::fs::remove_dir(dir).map_err(|e| format!("cannot remove {dir}: {e}"))?;
    }
    Ok(())
}
