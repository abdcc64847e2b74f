//! `cargo xtask image`: policy-controller's container image, an OCI archive built from the
//! release binary without pulling anything (no base image, no registry, no container engine).
//!
//! The binary links glibc dynamically (libc, libm, libgcc_s and the loader, as `ldd` shows):
//! the musl target cannot be installed offline. So the one layer holds `/usr/bin/policy-controller`
//! and exactly the shared objects `ldd` resolves for it on this machine, each at the path the
//! loader looks in, and nothing else: no shell, no package manager, no `/etc` (the controller
//! reads the API's address from the Pod's environment and its service account files, and needs
//! no name service). It runs as a numeric non-root user.

mod oci;
mod tar;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use serde_json::json;

use crate::util::release_binary;

/// The name `podman load` gives the image, which `manifests/deployment.yaml` runs.
pub const REFERENCE: &str = "localhost/onprem-policy-controller:latest";
/// Where the binary is in the image.
const BINARY: &str = "/usr/bin/policy-controller";
/// `nobody`, by number: the image has no `/etc/passwd`.
const USER: &str = "65534:65534";

/// Writes the archive to `out`, named `reference`; from `binary` when given, else from a
/// release build.
pub fn run(binary: Option<&Path>, out: &Path, reference: &str) -> anyhow::Result<()> {
    let binary = match binary {
        Some(b) => b.to_owned(),
        None => release_binary("policy-controller")?,
    };
    let files = root_files(&binary)?;
    let mtime = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let bytes = oci::archive(&oci::Image {
        reference,
        files: &files,
        entrypoint: &[BINARY],
        user: USER,
        labels: json!({
            "org.opencontainers.image.title": "policy-controller",
            "org.opencontainers.image.version": env!("CARGO_PKG_VERSION"),
            "org.opencontainers.image.description": "kubernetes-nmstate's policies as MachineConfigs",
        }),
        mtime,
    });
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(out, &bytes).with_context(|| format!("cannot write {}", out.display()))?;
    println!(
        "{} ({} KiB, {REFERENCE}):",
        out.display(),
        bytes.len() / 1024
    );
    for f in &files {
        println!("  {} ({} KiB)", f.path, f.data.len() / 1024);
    }
    Ok(())
}

/// The binary and the shared objects it needs.
fn root_files(binary: &Path) -> anyhow::Result<Vec<oci::File>> {
    let read = |p: &Path| std::fs::read(p).with_context(|| format!("cannot read {}", p.display()));
    let mut files = vec![oci::File {
        path: BINARY.into(),
        mode: 0o755,
        data: read(binary)?,
    }];
    for lib in shared_libraries(binary)? {
        files.push(oci::File {
            path: lib
                .to_str()
                .context("a library path that is not UTF-8")?
                .into(),
            mode: 0o755,
            // The file itself where the host has a symlink (`/lib64/ld-linux-x86-64.so.2`).
            data: read(&lib)?,
        });
    }
    Ok(files)
}

/// The shared objects the loader maps for `binary`, as `ldd` resolves them, the loader
/// included, at the paths it names; none for a static binary.
fn shared_libraries(binary: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let out = Command::new("ldd")
        .arg(binary)
        .output()
        .context("cannot run ldd")?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        if text.contains("not a dynamic executable") || text.contains("statically linked") {
            return Ok(Vec::new());
        }
        bail!(
            "ldd {}: {}",
            binary.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    parse_ldd(&text)
}

fn parse_ldd(text: &str) -> anyhow::Result<Vec<PathBuf>> {
    let mut libs = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.contains("not found") {
            bail!("ldd: {line}");
        }
        // `libc.so.6 => /lib/.../libc.so.6 (0x...)`, `/lib64/ld-linux-x86-64.so.2 (0x...)`;
        // the vDSO (`linux-vdso.so.1 (0x...)`) is the kernel's and has no file.
        let target = line.split_once("=>").map_or(line, |(_, t)| t).trim();
        let path = target.split_whitespace().next().unwrap_or_default();
        if path.starts_with('/') {
            libs.push(PathBuf::from(path));
        }
    }
    Ok(libs)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LDD: &str = "\tlinux-vdso.so.1 (0x00007ffd6b9f2000)
\tlibgcc_s.so.1 => /lib/x86_64-linux-gnu/libgcc_s.so.1 (0x00007f546bdb3000)
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f546b33e000)
\t/lib64/ld-linux-x86-64.so.2 (0x00007f546bde7000)
";

    #[test]
    fn ldd_gives_the_libraries_and_the_loader_but_not_the_vdso() {
        assert_eq!(
            parse_ldd(LDD).unwrap(),
            [
                "/lib/x86_64-linux-gnu/libgcc_s.so.1",
                "/lib/x86_64-linux-gnu/libc.so.6",
                "/lib64/ld-linux-x86-64.so.2"
            ]
            .map(PathBuf::from)
        );
        let missing = "\tlibfoo.so.1 => not found\n";
        assert!(parse_ldd(missing).is_err());
    }

    fn image_of(files: &[oci::File]) -> Vec<u8> {
        oci::archive(&oci::Image {
            reference: REFERENCE,
            files,
            entrypoint: &[BINARY],
            user: USER,
            labels: json!({}),
            mtime: 0,
        })
    }

    /// path -> contents of a tar archive, read by GNU tar.
    fn untar(bytes: &[u8]) -> std::collections::BTreeMap<String, Vec<u8>> {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("a.tar");
        std::fs::write(&archive, bytes).unwrap();
        let root = dir.path().join("x");
        std::fs::create_dir(&root).unwrap();
        let ok = Command::new("tar")
            .arg("-xf")
            .arg(&archive)
            .arg("-C")
            .arg(&root)
            .status()
            .unwrap();
        assert!(ok.success());
        let mut out = std::collections::BTreeMap::new();
        let mut stack = vec![root.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p.strip_prefix(&root).unwrap().display().to_string();
                    out.insert(rel, std::fs::read(&p).unwrap());
                }
            }
        }
        out
    }

    #[test]
    fn the_archive_is_an_oci_layout_whose_digests_match_and_whose_layer_holds_the_files() {
        let files = [oci::File {
            path: BINARY.into(),
            mode: 0o755,
            data: b"\x7fELF binary".to_vec(),
        }];
        let archive = image_of(&files);
        assert_eq!(
            archive,
            image_of(&files),
            "the same inputs give the same bytes"
        );
        let entries = untar(&archive);
        assert_eq!(entries["oci-layout"], br#"{"imageLayoutVersion":"1.0.0"}"#);
        let blob = |d: &str| {
            let b = &entries[&d.replace("sha256:", "blobs/sha256/")];
            assert_eq!(oci::digest(b), d, "a blob is named by its digest");
            b.clone()
        };
        let index: serde_json::Value = serde_json::from_slice(&entries["index.json"]).unwrap();
        let entry = &index["manifests"][0];
        assert_eq!(entry["annotations"][oci::REF_NAME], REFERENCE);
        let manifest: serde_json::Value =
            serde_json::from_slice(&blob(entry["digest"].as_str().unwrap())).unwrap();
        assert_eq!(manifest["config"]["mediaType"], oci::CONFIG);
        let config: serde_json::Value =
            serde_json::from_slice(&blob(manifest["config"]["digest"].as_str().unwrap())).unwrap();
        let layer_digest = manifest["layers"][0]["digest"].as_str().unwrap();
        assert_eq!(config["rootfs"]["diff_ids"][0], layer_digest);
        assert_eq!(config["config"]["Entrypoint"][0], BINARY);
        assert_eq!(config["config"]["User"], USER);
        let layer = untar(&blob(layer_digest));
        assert_eq!(
            layer.keys().collect::<Vec<_>>(),
            ["usr/bin/policy-controller"]
        );
        assert_eq!(layer["usr/bin/policy-controller"], b"\x7fELF binary");
        assert_eq!(entries.len(), 5, "{:?}", entries.keys());
    }
}
