//! `cargo xtask rpm`: the source RPM and the binary RPMs from `xtask/rpm/*.spec`, built offline
//! from the committed tree and vendored crates with Debian's `rpmbuild`. Reproducible: every
//! timestamp is the last commit's (`SOURCE_DATE_EPOCH`), archives are sorted and owner-less.

use std::fs;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

use crate::deps::apt;
use crate::util::{cargo, root, run};

const NAME: &str = "onprem-host-networking";
/// rpmbuild's top directory. Fixed, because the RPM headers record the expanded build scripts
/// with their paths: building under the checkout made two checkouts of one commit differ.
const TOPDIR: &str = "/var/tmp/onprem-host-networking-rpmbuild";

fn stdout(cmd: &mut Command) -> anyhow::Result<String> {
    let o = cmd.output().with_context(|| format!("{cmd:?}"))?;
    if !o.status.success() {
        bail!("{cmd:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
    Ok(String::from_utf8(o.stdout)?.trim().to_owned())
}

/// Builds the RPMs of release `release` into `out` (relative to the workspace root), replacing
/// what was there; with Cargo's target directory `target` when given (see the spec's
/// `onprem_cargo_target_dir`).
pub fn build(out: &Path, release: u32, target: Option<&Path>) -> anyhow::Result<()> {
    apt::ensure(&["rpm"])?;
    let version = env!("CARGO_PKG_VERSION");
    let top = Path::new(TOPDIR);
    if top.exists() {
        fs::remove_dir_all(top)?;
    }
    for d in ["SOURCES", "SPECS", "BUILD", "RPMS", "SRPMS"] {
        fs::create_dir_all(top.join(d))?;
    }
    let epoch =
        stdout(
            Command::new("git")
                .current_dir(root())
                .args(["log", "-1", "--format=%ct"]),
        )?;
    let sources = top.join("SOURCES");
    run(Command::new("git")
        .current_dir(root())
        .args([
            "archive",
            "--format=tar.gz",
            &format!("--prefix={NAME}-{version}/"),
            "-o",
        ])
        .arg(sources.join(format!("{NAME}-{version}.tar.gz")))
        .arg("HEAD"))?;
    let vendor = tempfile::tempdir()?;
    run(cargo()
        .args(["vendor", "--locked", "--versioned-dirs", "--quiet"])
        .arg(vendor.path().join("vendor"))
        .stdout(std::process::Stdio::null()))?;
    reproducible_tar(
        vendor.path(),
        "vendor",
        &sources.join(format!("{NAME}-{version}-vendor.tar.gz")),
        &epoch,
    )?;
    let spec = top.join(format!("SPECS/{NAME}.spec"));
    fs::copy(root().join(format!("xtask/rpm/{NAME}.spec")), &spec)?;
    // --nodeps: the BuildRequires name Fedora packages, which Debian's rpm database does not hold.
    let mut rpmbuild = Command::new("rpmbuild");
    rpmbuild
        .env("SOURCE_DATE_EPOCH", &epoch)
        .args(["-ba", "--nodeps", "--quiet", "--define"])
        .arg(format!("_topdir {}", top.display()))
        .args(["--define", &format!("version {version}")])
        .args(["--define", &format!("onprem_release {release}")]);
    if let Some(dir) = target {
        let dir = std::path::absolute(dir)?;
        rpmbuild.args([
            "--define",
            &format!("onprem_cargo_target_dir {}", dir.display()),
        ]);
    }
    run(rpmbuild.arg(&spec))?;
    let out = root().join(out);
    if out.exists() {
        fs::remove_dir_all(&out)?;
    }
    for rpm in rpms(top)? {
        let dest = out.join(rpm.file_name().context("an RPM file name")?);
        fs::create_dir_all(&out)?;
        fs::copy(&rpm, &dest)?;
        println!("== {}", dest.display());
        println!("{}", stdout(Command::new("rpm").arg("-qlp").arg(&dest))?);
    }
    fs::remove_dir_all(top)?;
    Ok(())
}

fn rpms(top: &Path) -> anyhow::Result<Vec<std::path::PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![top.join("SRPMS"), top.join("RPMS")];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rpm") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// `dir/sub` as a gzip'd tar whose bytes depend only on the content.
fn reproducible_tar(dir: &Path, sub: &str, out: &Path, epoch: &str) -> anyhow::Result<()> {
    let script = format!(
        "tar --sort=name --mtime=@{epoch} --owner=0 --group=0 --numeric-owner --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime -C '{}' -cf - '{sub}' | gzip -n > '{}'",
        dir.display(),
        out.display()
    );
    run(Command::new("sh").args(["-c", &script]))
}
