//! `ovs-bridge-configurator collect [DIR]`: what support asks for first about a node's host
//! network, in one directory or tar.gz. Every item is gathered on its own: a broken node (no
//! NetworkManager, no OVSDB) still gives everything else, and each failure is listed in
//! `SUMMARY.txt`. No secret is in it: profiles, keyfiles, NMState files and troubleshooting
//! copies go through [`crate::redact`].

use std::fmt::Display;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use selection::netlink::NetlinkReader;
use zbus::zvariant::OwnedObjectPath;

use crate::nm::profile::{self as p, ProfileView};
use crate::nm::{ActiveConnection, Device, Nm, Profile};
use crate::redact;
use crate::settings::Settings;

pub async fn exec(s: &Settings, dir: Option<&Path>) -> anyhow::Result<ExitCode> {
    let target = dir.map_or_else(default_target, Path::to_owned);
    let missing = collect(s, &target).await?;
    println!("collected into {}", target.display());
    for m in &missing {
        eprintln!("not gathered: {m}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Where `collect` writes when no target is given: a tar.gz in the current directory.
pub fn default_target() -> PathBuf {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    PathBuf::from(format!("ovs-bridge-configurator-collect-{stamp}.tar.gz"))
}

/// Whether `target` names an archive rather than a directory.
fn is_archive(target: &Path) -> bool {
    let name = target.to_string_lossy();
    name.ends_with(".tar.gz") || name.ends_with(".tgz")
}

/// The bundle being written: files under `root`, and what could not be gathered.
struct Bundle {
    root: PathBuf,
    errors: Vec<String>,
}

impl Bundle {
    fn write(&mut self, rel: &str, text: impl AsRef<[u8]>) {
        let path = self.root.join(rel);
        let r = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, text));
        if let Err(e) = r {
            self.fail(rel, e);
        }
    }

    fn fail(&mut self, what: &str, e: impl Display) {
        self.errors.push(format!("{what}: {e}"));
    }

    /// A command's stdout into `rel` (its failure into the summary).
    fn command(&mut self, rel: &str, program: &str, args: &[&str]) {
        match Command::new(program).args(args).output() {
            Ok(o) if o.status.success() => self.write(rel, o.stdout),
            Ok(o) => {
                let why = String::from_utf8_lossy(&o.stderr).trim().to_owned();
                self.fail(&format!("{program} {}", args.join(" ")), why);
            }
            Err(e) => self.fail(&format!("{program} {}", args.join(" ")), e),
        }
    }

    /// The regular files of `src` (not recursive) into `rel`, through `redact` when given.
    fn copy_dir(&mut self, rel: &str, src: &Path, redact: Option<fn(&str) -> String>) {
        let Ok(entries) = std::fs::read_dir(src) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            if !path.is_file() {
                continue;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            match (std::fs::read(&path), redact) {
                (Ok(bytes), Some(redact)) => self.write(
                    &format!("{rel}/{name}"),
                    redact(&String::from_utf8_lossy(&bytes)),
                ),
                (Ok(bytes), None) => self.write(&format!("{rel}/{name}"), bytes),
                (Err(e), _) => self.fail(&path.display().to_string(), e),
            }
        }
    }
}

/// Gathers everything into `target` (a new directory, or a `.tar.gz`/`.tgz` file) and returns
/// the list of items that could not be gathered.
pub async fn collect(s: &Settings, target: &Path) -> anyhow::Result<Vec<String>> {
    if target.exists() {
        anyhow::bail!(
            "{} exists already: collect writes a new one",
            target.display()
        );
    }
    let staging = if is_archive(target) {
        Some(tempfile::Builder::new().prefix("obc-collect-").tempdir()?)
    } else {
        None
    };
    let root = match &staging {
        Some(t) => t.path().join("ovs-bridge-configurator-collect"),
        None => target.to_owned(),
    };
    // Addresses, profiles and routes: readable by root only.
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&root)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", root.display()))?;
    let mut b = Bundle {
        root: root.clone(),
        errors: Vec::new(),
    };
    let plan_line = network_manager(&mut b, s).await;
    ovsdb(&mut b);
    add_kernel(&mut b);
    add_files(&mut b, s);
    let summary = summary(&b, &plan_line);
    b.write("SUMMARY.txt", summary);
    if let Some(t) = &staging {
        let out = Command::new("tar")
            .arg("-czf")
            .arg(target)
            .arg("-C")
            .arg(t.path())
            .arg("ovs-bridge-configurator-collect")
            .output()?;
        if !out.status.success() {
            anyhow::bail!(
                "tar -czf {}: {}",
                target.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
    }
    Ok(b.errors)
}

/// Profiles (D-Bus settings and their keyfiles), devices, active connections, checkpoints, and
/// what `plan` would do now. Returns the plan's first line for the summary.
async fn network_manager(b: &mut Bundle, s: &Settings) -> String {
    let nm = match Nm::connect(s.dbus_timeout).await {
        Ok(nm) => nm,
        Err(e) => {
            b.fail("NetworkManager", e);
            return "unknown (NetworkManager not reachable)".into();
        }
    };
    match nm.profiles().await {
        Ok(profiles) => profiles.iter().for_each(|x| add_profile(b, x)),
        Err(e) => b.fail("NetworkManager profiles", e),
    }
    match nm.devices().await {
        Ok(devices) => b.write("nm/devices.txt", devices_text(&devices)),
        Err(e) => b.fail("NetworkManager devices", e),
    }
    match nm.active_connections().await {
        Ok(active) => b.write("nm/active-connections.txt", active_text(&active)),
        Err(e) => b.fail("NetworkManager active connections", e),
    }
    match nm.checkpoints().await {
        Ok(cps) => b.write("nm/checkpoints.txt", checkpoints_text(&nm, &cps).await),
        Err(e) => b.fail("NetworkManager checkpoints", e),
    }
    add_plan(b, &nm, s).await
}

/// One profile's D-Bus settings, and its keyfile as NetworkManager stores it (/etc or /run),
/// both redacted.
fn add_profile(b: &mut Bundle, x: &Profile) {
    let (id, uuid) = (x.id(), x.uuid());
    let file = if x.filename.is_empty() {
        "(none)"
    } else {
        &x.filename
    };
    let settings = redact::settings(&x.settings);
    let text = format!("# keyfile: {file}\n{}", p::render(&settings));
    b.write(&format!("nm/profiles/{id}-{uuid}.txt"), text);
    if !x.filename.is_empty() {
        let rel = format!("nm/keyfiles{}", x.filename);
        match std::fs::read_to_string(&x.filename) {
            Ok(t) => b.write(&rel, redact::keyfile(&t)),
            Err(e) => b.fail(&x.filename, e),
        }
    }
}

/// One line per device: interface, type, state and the active profile's UUID.
fn devices_text(devices: &[Device]) -> String {
    devices
        .iter()
        .map(|d| {
            format!(
                "{} type={} {} profile={}\n",
                d.interface,
                d.device_type,
                d.state,
                d.active_uuid.as_deref().unwrap_or("-")
            )
        })
        .collect()
}

/// One line per active connection: object path, profile UUID and state.
fn active_text(active: &[ActiveConnection]) -> String {
    active
        .iter()
        .map(|a| format!("{} {} {:?}\n", a.path.as_str(), a.uuid, a.state))
        .collect()
}

/// One line per checkpoint with its creation time, rollback timeout and devices (or why its
/// details could not be read); `none` when there is no checkpoint.
async fn checkpoints_text(nm: &Nm, cps: &[OwnedObjectPath]) -> String {
    let mut text = String::new();
    for cp in cps {
        match nm.checkpoint_details(cp).await {
            Ok((devices, created, timeout)) => {
                let devices: Vec<&str> = devices.iter().map(|d| d.as_str()).collect();
                text.push_str(&format!(
                    "{} created={created}ms rollback-timeout={timeout}s devices={}\n",
                    cp.as_str(),
                    devices.join(",")
                ));
            }
            Err(e) => text.push_str(&format!("{} ({e})\n", cp.as_str())),
        }
    }
    if cps.is_empty() {
        text.push_str("none\n");
    }
    text
}

/// What `plan` prints now, into `plan.txt`. Returns its first line (or why there is no plan)
/// for the summary.
async fn add_plan(b: &mut Bundle, nm: &Nm, s: &Settings) -> String {
    let gathered = match NetlinkReader::connect() {
        Ok(mut reader) => {
            let inputs = crate::automatic::gather::Inputs::from_settings(s);
            crate::automatic::gather::gather(nm, &mut reader, &inputs)
                .await
                .map_err(|e| e.to_string())
        }
        Err(e) => Err(e.to_string()),
    };
    match gathered
        .and_then(|g| crate::automatic::report::report(&g, false).map_err(|e| e.to_string()))
    {
        Ok(text) => {
            let first = text
                .lines()
                .next()
                .unwrap_or_default()
                .trim_start_matches("# ");
            let line = first.to_owned();
            b.write("plan.txt", text);
            line
        }
        Err(e) => {
            b.fail("plan", &e);
            format!("no plan: {e}")
        }
    }
}

/// OVSDB as `ovs-vsctl` sees it.
fn ovsdb(b: &mut Bundle) {
    b.command("ovs/show.txt", "ovs-vsctl", &["--timeout=10", "show"]);
    for table in ["Open_vSwitch", "Bridge", "Port", "Interface"] {
        b.command(
            &format!("ovs/{table}.json"),
            "ovs-vsctl",
            &["--timeout=10", "--format=json", "list", table],
        );
    }
}

/// Addresses, routes and rules of every table, both families.
fn add_kernel(b: &mut Bundle) {
    b.command("kernel/addresses.txt", "ip", &["-d", "address", "show"]);
    for (family, flag) in [("v4", "-4"), ("v6", "-6")] {
        b.command(
            &format!("kernel/routes-{family}.txt"),
            "ip",
            &[flag, "route", "show", "table", "all"],
        );
        b.command(&format!("kernel/rules-{family}.txt"), "ip", &[flag, "rule"]);
    }
}

/// nodeip-configuration's files, the markers and hint files, the NMState files, and the newest
/// troubleshooting copy.
fn add_files(b: &mut Bundle, s: &Settings) {
    b.copy_dir(
        "files/nodeip-configuration",
        &s.run_dir.join("nodeip-configuration"),
        None,
    );
    let markers = [
        s.boot_marker(),
        s.executed_marker(),
        s.hint(),
        s.default_bridge(),
        s.extra_bridge(),
        s.nmstate_dir().join("applied"),
        s.mtu_migration_dir(),
    ];
    let mut text = String::new();
    for m in &markers {
        let state = match std::fs::read_to_string(m) {
            Ok(t) if t.is_empty() => "present, empty".to_owned(),
            Ok(t) => format!("present: {:?}", t.lines().next().unwrap_or_default()),
            Err(_) if m.is_dir() => "present (directory)".to_owned(),
            Err(_) => "absent".to_owned(),
        };
        text.push_str(&format!("{} {state}\n", m.display()));
    }
    b.write("files/markers.txt", text);
    b.copy_dir(
        "files/nmstate-openshift",
        &s.nmstate_dir(),
        Some(redact::nmstate),
    );
    if let Some(last) = newest_troubleshooting_copy(&s.troubleshooting_dir) {
        let name = last
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        b.copy_dir(
            &format!("troubleshooting/{name}"),
            &last,
            Some(redact::keyfile),
        );
    }
}

fn newest_troubleshooting_copy(parent: &Path) -> Option<PathBuf> {
    std::fs::read_dir(parent)
        .ok()?
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(crate::automatic::troubleshoot::TROUBLESHOOTING_PREFIX)
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max()
        .map(|(_, p)| p)
}

fn summary(b: &Bundle, plan_line: &str) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let mut text = format!(
        "ovs-bridge-configurator collect, version {}\nhost: {}\nplan now: {plan_line}\n\n\
         nm/         profiles (D-Bus settings and keyfiles, secrets redacted), devices, active\n\
         \x20           connections, checkpoints\n\
         ovs/        ovs-vsctl show and the Open_vSwitch, Bridge, Port, Interface tables\n\
         kernel/     addresses, routes and rules (all tables, both families)\n\
         files/      /run/nodeip-configuration, markers and hint files, /etc/nmstate/openshift\n\
         troubleshooting/  the newest copy a failed apply left\n\
         plan.txt    what `ovs-bridge-configurator plan` prints now\n",
        env!("CARGO_PKG_VERSION"),
        host.trim()
    );
    if b.errors.is_empty() {
        text.push_str("\nEverything was gathered.\n");
    } else {
        text.push_str("\nNot gathered:\n");
        for e in &b.errors {
            text.push_str(&format!("- {e}\n"));
        }
    }
    text
}
