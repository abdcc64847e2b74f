//! Real systemd 252 booted in `systemd-nspawn` with given unit files: unit ordering and results
//! proven by the init system itself.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::netns::{Netns, scratch_dir};
use crate::process::output;

/// What `systemctl show` reported for each unit under test, property by property.
pub type UnitProperties = BTreeMap<String, BTreeMap<String, String>>;

/// Properties collected for each unit.
const PROPERTIES: &str = "Id,ActiveState,SubState,Result,ExecMainStatus,StatusText,\
    ExecMainStartTimestampMonotonic,ExecMainExitTimestampMonotonic,\
    ActiveEnterTimestampMonotonic,InactiveExitTimestampMonotonic";

/// A boot to run: unit files (name, content), extra read-only binds, and optionally a test
/// namespace the container joins instead of a private network.
#[derive(Debug, Default)]
pub struct Boot<'a> {
    pub units: Vec<(String, String)>,
    pub binds_ro: Vec<(String, String)>,
    /// Read-write binds (host path, guest path).
    pub binds: Vec<(String, String)>,
    pub netns: Option<&'a Netns>,
    pub timeout: Option<Duration>,
}

impl Boot<'_> {
    /// Boots `harness.target` (which wants every unit) and powers off once a collector unit,
    /// ordered after all of them, has saved `systemctl show` for each.
    pub fn run(&self) -> Result<UnitProperties, String> {
        let dir = scratch_dir("nspawn")?;
        let out = dir.path().join("out");
        std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
        let names: Vec<&str> = self.units.iter().map(|(n, _)| n.as_str()).collect();
        let collector = format!(
            "[Unit]\nDescription=harness: collect unit results\nAfter={units}\n\
             [Service]\nType=oneshot\n\
             ExecStart=/bin/sh -c 'systemctl show -p {PROPERTIES} {units} > /harness-out/show; \
             systemctl --no-block poweroff'\n",
            units = names.join(" ")
        );
        let target = format!(
            "[Unit]\nDescription=harness test boot\nWants={} harness-collect.service\nAllowIsolate=yes\n",
            names.join(" ")
        );
        let mut files: Vec<(String, String)> = self.units.clone();
        files.push(("harness-collect.service".into(), collector));
        files.push(("harness.target".into(), target));
        let mut binds = vec![format!("--bind={}:/harness-out", out.display())];
        for (name, text) in &files {
            let p = dir.path().join(name);
            std::fs::write(&p, text).map_err(|e| e.to_string())?;
            binds.push(format!(
                "--bind-ro={}:/etc/systemd/system/{name}",
                p.display()
            ));
        }
        for (host, guest) in &self.binds_ro {
            binds.push(format!("--bind-ro={host}:{guest}"));
        }
        for (host, guest) in &self.binds {
            binds.push(format!("--bind={host}:{guest}"));
        }
        let network = match self.netns {
            Some(ns) => format!("--network-namespace-path=/run/netns/{}", ns.name()),
            None => "--private-network".into(),
        };
        // A private mount namespace with a tmpfs on /run/systemd keeps nspawn's state off the
        // host (without it, /run/systemd/nspawn* stays behind).
        let script = format!(
            "mount -n -t tmpfs none /run/systemd && exec systemd-nspawn --quiet --directory=/ \
             --volatile=yes {network} --register=no --keep-unit --console=read-only {binds} \
             --boot -- systemd.unit=harness.target systemd.firstboot=off \
             systemd.mask=systemd-networkd-wait-online.service systemd.mask=systemd-networkd.service",
            binds = binds.join(" ")
        );
        let secs = self
            .timeout
            .unwrap_or(Duration::from_secs(60))
            .as_secs()
            .to_string();
        let log = output(Command::new("timeout").args([
            &secs,
            "unshare",
            "-m",
            "--propagation",
            "private",
            "sh",
            "-c",
            &script,
        ]));
        remove_nspawn_cgroups();
        let show = std::fs::read_to_string(out.join("show")).map_err(|_| {
            format!(
                "the boot did not reach the collector: {}",
                log.err().unwrap_or_default()
            )
        })?;
        Ok(parse_show(&show))
    }
}

/// nspawn leaves empty `payload`/`supervisor` cgroups behind.
fn remove_nspawn_cgroups() {
    for root in [
        "/sys/fs/cgroup/systemd",
        "/sys/fs/cgroup/unified",
        "/sys/fs/cgroup",
    ] {
        for leaf in ["payload", "supervisor"] {
            remove_tree(&Path::new(root).join(leaf));
        }
    }
}

fn remove_tree(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                remove_tree(&e.path());
            }
        }
        let _ = std::fs::remove_dir(dir);
    }
}

/// `systemctl show` output: blocks separated by blank lines, `Key=Value` lines.
fn parse_show(text: &str) -> UnitProperties {
    let mut units = UnitProperties::new();
    for block in text.split("\n\n") {
        let props: BTreeMap<String, String> = block
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        if let Some(id) = props.get("Id") {
            units.insert(id.clone(), props);
        }
    }
    units
}
