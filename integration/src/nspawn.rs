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
    ActiveEnterTimestampMonotonic,InactiveExitTimestampMonotonic,InactiveEnterTimestampMonotonic,\
    NRestarts,LoadState,UnitFileState";

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
    /// Units `harness.target` wants; by default those of `units`.
    pub wants: Vec<String>,
    /// Units whose properties are collected (the collector runs after them); by default those
    /// of `units`.
    pub report: Vec<String>,
    /// Shell run by the collector before it collects (waiting for results, copying files to
    /// `/harness-out`).
    pub before_collect: String,
    /// A host directory bound read-write as `/etc/systemd/system` (units enabled into it with
    /// `systemctl --root`); `units` and the harness's own units are written into it.
    pub system_dir: Option<&'a Path>,
    /// A tree laid read-only over the host's `/usr` in the container, as installed packages
    /// would be (overlayfs; nothing reaches the host's `/usr`).
    pub usr_overlay: Option<&'a Path>,
    /// A writable `/usr` in the container: the host's (and `usr_overlay`) below, this directory
    /// on top receiving every write (a package manager run inside the boot).
    pub usr_upper: Option<&'a Path>,
}

/// What a boot left: each reported unit's properties, the journal, and the collector's files.
#[derive(Debug)]
pub struct BootResult {
    pub units: UnitProperties,
    /// `journalctl -b -o short-monotonic` of the container.
    pub journal: String,
    /// The collector's output directory (`/harness-out` in the container).
    pub out: tempfile::TempDir,
}

impl BootResult {
    /// A file the collector copied to `/harness-out`, or "" if it did not.
    pub fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.out.path().join(name)).unwrap_or_default()
    }

    /// `property` of `unit`, or "" if absent.
    pub fn prop(&self, unit: &str, property: &str) -> &str {
        self.units
            .get(unit)
            .and_then(|p| p.get(property))
            .map_or("", String::as_str)
    }

    /// A monotonic timestamp property in microseconds (0 when never reached).
    pub fn usec(&self, unit: &str, property: &str) -> u64 {
        self.prop(unit, property).parse().unwrap_or(0)
    }
}

impl Boot<'_> {
    /// Boots `harness.target` (which wants every unit) and powers off once a collector unit,
    /// ordered after all of them, has saved `systemctl show` for each.
    pub fn run(&self) -> Result<UnitProperties, String> {
        self.boot().map(|r| r.units)
    }

    /// As [`Self::run`], keeping the journal and the collector's files.
    pub fn boot(&self) -> Result<BootResult, String> {
        // One boot at a time: with cgroup v1, nspawn's `payload`/`supervisor` cgroups have
        // fixed paths, and the clean-up after one boot removed the empty cgroups another
        // running boot had just created for a unit (which then failed with status 219/CGROUP).
        static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _turn = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = scratch_dir("nspawn")?;
        let out = scratch_dir("nspawn-out")?;
        let files = self.unit_files(out.path())?;
        // A persistent journal on the host: what a boot that never reaches the collector did.
        let journal_dir = dir.path().join("journal");
        std::fs::create_dir_all(&journal_dir).map_err(|e| e.to_string())?;
        let mut binds = vec![
            format!("--bind={}:/harness-out", out.path().display()),
            format!("--bind={}:/var/log/journal", journal_dir.display()),
        ];
        binds.extend(self.unit_binds(dir.path(), &files)?);
        binds.extend(self.other_binds());
        let log = self.nspawn(&binds);
        remove_nspawn_cgroups();
        let show = std::fs::read_to_string(out.path().join("show"))
            .map_err(|_| not_collected(&journal_dir, log.err().unwrap_or_default()))?;
        Ok(BootResult {
            units: parse_show(&show),
            journal: std::fs::read_to_string(out.path().join("journal")).unwrap_or_default(),
            out,
        })
    }

    /// The units under test, the collector (its script written into `out`) and the target
    /// that wants them.
    fn unit_files(&self, out: &Path) -> Result<Vec<(String, String)>, String> {
        let names: Vec<String> = self.units.iter().map(|(n, _)| n.clone()).collect();
        let or_names = |v: &Vec<String>| {
            if v.is_empty() {
                names.join(" ")
            } else {
                v.join(" ")
            }
        };
        let report = or_names(&self.report);
        let collector = format!(
            "[Unit]\nDescription=harness: collect unit results\nAfter={report}\n\
             [Service]\nType=oneshot\nTimeoutStartSec=infinity\n\
             ExecStart=-/bin/sh /harness-out/before-collect.sh\n\
             ExecStart=/bin/sh -c 'systemctl show -p {PROPERTIES} {report} > /harness-out/show; \
             journalctl -b -o short-monotonic --no-pager > /harness-out/journal; \
             systemctl --no-block poweroff'\n"
        );
        // A script file, so the shell's `$` and `%` reach sh instead of systemd's expansion.
        std::fs::write(out.join("before-collect.sh"), &self.before_collect)
            .map_err(|e| e.to_string())?;
        let target = format!(
            "[Unit]\nDescription=harness test boot\nWants={} harness-collect.service\nAllowIsolate=yes\n",
            or_names(&self.wants)
        );
        let mut files: Vec<(String, String)> = self.units.clone();
        files.push(("harness-collect.service".into(), collector));
        files.push(("harness.target".into(), target));
        Ok(files)
    }

    /// `files` written and bound under /etc/systemd/system: into the given system directory
    /// (bound whole), else one read-only bind each from `dir`.
    fn unit_binds(&self, dir: &Path, files: &[(String, String)]) -> Result<Vec<String>, String> {
        if let Some(system) = self.system_dir {
            for (name, text) in files {
                std::fs::write(system.join(name), text).map_err(|e| e.to_string())?;
            }
            return Ok(vec![format!(
                "--bind={}:/etc/systemd/system",
                system.display()
            )]);
        }
        let mut binds = Vec::new();
        for (name, text) in files {
            let p = dir.join(name);
            std::fs::write(&p, text).map_err(|e| e.to_string())?;
            binds.push(format!(
                "--bind-ro={}:/etc/systemd/system/{name}",
                p.display()
            ));
        }
        Ok(binds)
    }

    /// The /usr overlay and the test's own binds.
    fn other_binds(&self) -> Vec<String> {
        let mut binds = Vec::new();
        match (self.usr_overlay, self.usr_upper) {
            (Some(usr), None) => binds.push(format!("--overlay-ro=/usr:{}:/usr", usr.display())),
            (lower, Some(upper)) => binds.push(format!(
                "--overlay=/usr:{}{}:/usr",
                lower.map_or(String::new(), |l| format!("{}:", l.display())),
                upper.display()
            )),
            (None, None) => {}
        }
        for (host, guest) in &self.binds_ro {
            binds.push(format!("--bind-ro={host}:{guest}"));
        }
        for (host, guest) in &self.binds {
            binds.push(format!("--bind={host}:{guest}"));
        }
        binds
    }

    /// Boots the container with `binds` until it powers off or the timeout; nspawn's output.
    fn nspawn(&self, binds: &[String]) -> Result<String, String> {
        let network = match self.netns {
            // --private-network as well: without it nspawn joins the namespace but drops
            // CAP_NET_ADMIN and leaves /proc/sys/net read-only (NetworkManager cannot work).
            Some(ns) => format!(
                "--network-namespace-path=/run/netns/{} --private-network",
                ns.name()
            ),
            None => "--private-network".into(),
        };
        // A private mount namespace with a tmpfs on /run/systemd keeps nspawn's state off the
        // host (without it, /run/systemd/nspawn* stays behind). No resolv.conf is copied in:
        // the units under test own it.
        let script = format!(
            "mount -n -t tmpfs none /run/systemd && exec systemd-nspawn --quiet --directory=/ \
             --volatile=yes {network} --register=no --keep-unit --console=read-only \
             --resolv-conf=off {binds} \
             --boot -- systemd.unit=harness.target systemd.firstboot=off \
             systemd.mask=systemd-networkd-wait-online.service systemd.mask=systemd-networkd.service",
            binds = binds.join(" ")
        );
        let secs = self
            .timeout
            .unwrap_or(Duration::from_secs(60))
            .as_secs()
            .to_string();
        output(Command::new("timeout").args([
            &secs,
            "unshare",
            "-m",
            "--propagation",
            "private",
            "sh",
            "-c",
            &script,
        ]))
    }
}

/// Why a boot has no results: nspawn's error and what the services said in the journal kept in
/// `journal_dir`, without systemd's start/stop bookkeeping.
fn not_collected(journal_dir: &Path, error: String) -> String {
    let journal = output(Command::new("journalctl").arg("-D").arg(journal_dir).args([
        "-o",
        "short-monotonic",
        "--no-pager",
    ]))
    .unwrap_or_else(|e| e);
    let said: Vec<&str> = journal
        .lines()
        .filter(|l| !l.contains(" systemd[1]: ") || l.contains("ailed"))
        .collect();
    format!(
        "the boot did not reach the collector: {error}\n--- its journal\n{}",
        said[said.len().saturating_sub(150)..].join("\n")
    )
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
