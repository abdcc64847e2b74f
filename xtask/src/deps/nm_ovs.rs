//! NetworkManager with its OVS plugin, built from Debian's source package of the pinned version
//! (test-harness reference §9), cached under `/var/cache/onprem-harness` keyed by version,
//! patch and options.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};
use integration::nm_ovs_build::{
    CACHE_ROOT, MESON_OPTIONS, PATCH, SUITE, VERSION, build_name, current,
};

use crate::util::is_root;

/// Marks a finished install; a crash mid-build leaves none, so the build is redone.
const STAMP: &str = ".complete";

fn prefix() -> PathBuf {
    Path::new(CACHE_ROOT).join(build_name())
}

/// The machine's Debian mirror (the first `deb` source that is not the security archive), so
/// the source package comes from where its binary packages come from.
fn debian_mirror() -> String {
    let mut uris: Vec<String> = Vec::new();
    if let Ok(text) = fs::read_to_string("/etc/apt/sources.list") {
        uris.extend(text.lines().filter_map(|l| {
            let mut words = l.trim().strip_prefix("deb ")?.split_whitespace();
            let first = words.next()?;
            // `deb [options] URI ...`
            let uri = if first.starts_with('[') {
                words.find(|w| w.contains("://"))?
            } else {
                first
            };
            Some(uri.to_owned())
        }));
    }
    if let Ok(entries) = fs::read_dir("/etc/apt/sources.list.d") {
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "sources"))
        {
            let text = fs::read_to_string(path).unwrap_or_default();
            uris.extend(text.lines().filter_map(|l| {
                l.strip_prefix("URIs:")
                    .and_then(|u| u.split_whitespace().next())
                    .map(str::to_owned)
            }));
        }
    }
    uris.into_iter()
        .find(|u| u.contains("debian") && !u.contains("security"))
        .unwrap_or_else(|| "http://deb.debian.org/debian".into())
}

/// Whether the build for the current version, patch and options is installed and linked.
pub fn is_current() -> bool {
    let p = prefix();
    p.join(STAMP).exists() && fs::read_link(current()).is_ok_and(|l| l == p)
}

/// Runs `cmd`, sending its output to `log`; on failure shows the log's tail.
fn logged(cmd: &mut Command, log: &Path, what: &str) -> anyhow::Result<()> {
    let file = fs::OpenOptions::new().create(true).append(true).open(log)?;
    let status = cmd
        .stdout(file.try_clone()?)
        .stderr(file)
        .status()
        .with_context(|| format!("{what}: cannot run {cmd:?}"))?;
    if !status.success() {
        let text = fs::read_to_string(log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(25).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!(
            "{what} failed ({status}); last lines of {}:\n{}",
            log.display(),
            tail.join("\n")
        );
    }
    Ok(())
}

/// Downloads, patches, builds and installs; then points `current()` at the result.
pub fn build() -> anyhow::Result<()> {
    if !is_root() {
        bail!("building NetworkManager with OVS needs root (run `cargo xtask deps` as root)");
    }
    let version = VERSION;
    let prefix = prefix();
    let started = Instant::now();
    fs::create_dir_all(CACHE_ROOT)?;
    let work = Path::new(CACHE_ROOT).join(format!("build-{}", std::process::id()));
    eprintln!(
        "xtask deps: building NetworkManager {version} with OVS into {} (minutes; its output \
         goes to {})",
        prefix.display(),
        work.join("build.log").display()
    );
    let _ = fs::remove_dir_all(&work);
    let result = build_in(&work, version, &prefix);
    if result.is_ok() {
        let _ = fs::remove_dir_all(&work);
        eprintln!(
            "xtask deps: NetworkManager with OVS built in {:.0?}",
            started.elapsed()
        );
    } else {
        eprintln!(
            "xtask deps: build directory kept for inspection: {}",
            work.display()
        );
    }
    result
}

/// The source package of `version` downloaded into `work`; its `.dsc`.
fn download(work: &Path, version: &str, log: &Path) -> anyhow::Result<PathBuf> {
    let apt = work.join("apt");
    for d in ["lists/partial", "arch/partial", "cache", "src", "sources.d"] {
        fs::create_dir_all(apt.join(d))?;
    }
    // One deb-src line for the suite that carries the pinned version, from the machine's own
    // mirror, in a private apt configuration (the host's sources stay as they are; apt checks
    // the suite's signature with the host's Debian archive keyring).
    fs::write(
        apt.join("sources.list"),
        format!("deb-src {} {SUITE} main\n", debian_mirror()),
    )?;
    let d = |sub: &str| apt.join(sub).display().to_string();
    let opts = [
        format!("Dir::Etc::SourceList={}", d("sources.list")),
        format!("Dir::Etc::SourceParts={}", d("sources.d")),
        format!("Dir::State::Lists={}", d("lists")),
        format!("Dir::Cache::Archives={}", d("arch")),
        format!("Dir::Cache={}", d("cache")),
        "Dir::Cache::pkgcache=".into(),
        "Dir::Cache::srcpkgcache=".into(),
    ];
    let apt_get = |args: &[&str]| {
        let mut c = Command::new("apt-get");
        for o in &opts {
            c.args(["-o", o]);
        }
        c.args(["-q"]).args(args);
        c
    };
    logged(&mut apt_get(&["update"]), log, "apt-get update (deb-src)")?;
    logged(
        apt_get(&[
            "source",
            "--download-only",
            &format!("network-manager={version}"),
        ])
        .current_dir(apt.join("src")),
        log,
        "apt-get source network-manager",
    )?;
    let dsc = fs::read_dir(apt.join("src"))?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "dsc"))
        .context("no .dsc downloaded")?;
    Ok(dsc)
}

/// The whole build in `work`, installed to `prefix`.
fn build_in(work: &Path, version: &str, prefix: &Path) -> anyhow::Result<()> {
    let log = work.join("build.log");
    let dsc = download(work, version, &log)?;
    let src = work.join("src");
    logged(
        Command::new("dpkg-source").arg("-x").arg(&dsc).arg(&src),
        &log,
        "dpkg-source -x",
    )?;
    apply_patch(&src, version, &log)?;
    compile(&src, work, prefix, &log)?;
    put_in_place(work, version, prefix)
}

/// The harness patch applied to the unpacked source.
fn apply_patch(src: &Path, version: &str, log: &Path) -> anyhow::Result<()> {
    let mut patch = Command::new("patch");
    patch
        .args(["-p1", "--forward", "--batch"])
        .current_dir(src)
        .stdin(Stdio::piped());
    let file = fs::OpenOptions::new().create(true).append(true).open(log)?;
    let mut child = patch.stdout(file.try_clone()?).stderr(file).spawn()?;
    child
        .stdin
        .take()
        .context("patch stdin")?
        .write_all(PATCH.as_bytes())?;
    if !child.wait()?.success() {
        bail!(
            "the harness patch does not apply to network-manager {version}; see {}",
            log.display()
        );
    }
    Ok(())
}

/// meson and ninja: built and installed under `work/dest`.
fn compile(src: &Path, work: &Path, prefix: &Path, log: &Path) -> anyhow::Result<()> {
    // pyenv's python3 may come first in PATH; meson's helpers need Debian's.
    let path = format!("/usr/bin:{}", std::env::var("PATH").unwrap_or_default());
    let build = src.join("build");
    logged(
        Command::new("meson")
            .env("PATH", &path)
            .current_dir(src)
            .args(["setup", "build"])
            .arg(format!("--prefix={}", prefix.display()))
            .args(MESON_OPTIONS),
        log,
        "meson setup",
    )?;
    logged(
        Command::new("ninja")
            .env("PATH", &path)
            .arg("-C")
            .arg(&build),
        log,
        "ninja",
    )?;
    let dest = work.join("dest");
    logged(
        Command::new("ninja")
            .env("PATH", &path)
            .env("DESTDIR", &dest)
            .arg("-C")
            .arg(&build)
            .arg("install"),
        log,
        "ninja install",
    )?;
    Ok(())
}

/// The staged install moved to `prefix`, stamped, and `current()` pointed at it.
fn put_in_place(work: &Path, version: &str, prefix: &Path) -> anyhow::Result<()> {
    let dest = work.join("dest");
    // DESTDIR keeps /etc and /var of the host untouched; only the prefix is kept.
    let _ = fs::remove_dir_all(prefix);
    let staged = dest.join(prefix.strip_prefix("/").unwrap_or(prefix));
    fs::rename(&staged, prefix).with_context(|| format!("move {} into place", staged.display()))?;
    fs::write(prefix.join(STAMP), version)?;
    let link = current();
    let tmp = link.with_extension("new");
    let _ = fs::remove_file(&tmp);
    std::os::unix::fs::symlink(prefix, &tmp)?;
    fs::rename(&tmp, &link)?;
    Ok(())
}
