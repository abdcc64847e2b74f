//! Helpers shared by xtask's integration tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The directory holding this workspace's debug binaries, built first (a no-op after
/// `cargo test --workspace`, which built them already).
pub fn workspace_binaries() -> PathBuf {
    let xtask = Path::new(env!("CARGO_BIN_EXE_xtask"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    run(Command::new(env!("CARGO")).current_dir(root).args([
        "build",
        "--quiet",
        "--bins",
        "--workspace",
    ]));
    xtask.parent().unwrap().to_owned()
}

/// A harness node with every unit of `cargo xtask dist`'s tree (this build's binaries)
/// enabled, as MCO enables them.
#[allow(dead_code)] // Not every test file boots a node.
pub fn node_boot() -> integration::node_boot::NodeBoot {
    let xtask = Path::new(env!("CARGO_BIN_EXE_xtask"));
    let bins = workspace_binaries();
    integration::node_boot::NodeBoot::with(&integration::node_boot::Install::Dist {
        xtask,
        bins: &bins,
    })
}

/// Runs `cmd`, failing the test with its stderr if it fails.
pub fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
