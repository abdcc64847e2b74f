//! policy-controller's container image as a container engine runs it: the OCI archive
//! `cargo xtask image` writes, loaded by podman, `policy-controller --version` run in it, and
//! the image removed afterwards.

use std::process::{Command, Output};

mod common;

/// Removes the loaded image, whatever the test's outcome.
struct Loaded(String);

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = Command::new("podman")
            .args(["rmi", "--force", &self.0])
            .output();
    }
}

fn podman(args: &[&str]) -> Output {
    Command::new("podman").args(args).output().unwrap()
}

#[test]
fn the_oci_archive_loads_into_podman_and_runs_the_controller() {
    if !integration::require_root("the_oci_archive_loads_into_podman_and_runs_the_controller") {
        return;
    }
    if Command::new("podman").arg("--version").output().is_err() {
        let msg = "podman is missing: run `cargo xtask deps`";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
        eprintln!("SKIPPED {msg}");
        return;
    }
    // The debug binary: the same libraries as a release one, without a release build.
    let binary = common::workspace_binaries().join("policy-controller");
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("policy-controller.oci.tar");
    let reference = format!(
        "localhost/onprem-policy-controller-test:{}",
        std::process::id()
    );
    common::run(
        Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(["image", "--binary"])
            .arg(&binary)
            .arg("--out")
            .arg(&archive)
            .args(["--reference", &reference]),
    );
    let loaded = Loaded(reference.clone());
    let load = podman(&["load", "--input", archive.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&load.stdout);
    assert!(
        load.status.success(),
        "{}",
        String::from_utf8_lossy(&load.stderr)
    );
    assert!(
        said.contains(&format!("Loaded image: {reference}")),
        "{said}"
    );
    let user = podman(&["image", "inspect", "--format", "{{.User}}", &reference]);
    assert_eq!(String::from_utf8_lossy(&user.stdout).trim(), "65534:65534");
    // runc and small limits: a sandboxed CI machine lets a container neither raise its limits
    // (podman's defaults would) nor use crun's cgroup setup.
    let run = podman(&[
        "--runtime",
        "runc",
        "run",
        "--rm",
        "--network",
        "none",
        "--ulimit",
        "nofile=1024:1024",
        "--ulimit",
        "nproc=1024:1024",
        &reference,
        "--version",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        format!("policy-controller {}\n", env!("CARGO_PKG_VERSION"))
    );
    drop(loaded);
    let left = podman(&["image", "exists", &reference]);
    assert!(!left.status.success(), "{reference} was not removed");
}
