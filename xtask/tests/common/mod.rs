//! Helpers shared by xtask's integration tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Set by a test that runs another inside a real-kernel guest, which sees the checkout
/// read-only and has no toolchain: the binaries are built already.
pub const PREBUILT: &str = "ONPREM_TEST_BINARIES_BUILT";

/// The directory holding this workspace's debug binaries, built first (a no-op after
/// `cargo test --workspace`, which built them already) unless [`PREBUILT`] is set.
pub fn workspace_binaries() -> PathBuf {
    let xtask = Path::new(env!("CARGO_BIN_EXE_xtask"));
    if std::env::var_os(PREBUILT).is_some() {
        return xtask.parent().unwrap().to_owned();
    }
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

/// Three nodes booted with this build's binaries, the API VIP held by one of them: the cluster
/// and that node's index.
#[allow(dead_code)] // Not every test file boots a cluster.
pub fn booted_cluster() -> (integration::cluster::Cluster, u8) {
    use integration::cluster::{API_VIP, Binaries, Cluster};
    let say = |m: String| eprintln!("{m}");
    let mut c = Cluster::create(&Binaries(workspace_binaries()), &say).unwrap();
    c.boot(&say).unwrap();
    let api = c
        .wait_single_holder(API_VIP, std::time::Duration::from_secs(20))
        .unwrap();
    (c, api)
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
