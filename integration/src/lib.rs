//! Test harness shared by every daemon's integration tests: the real components the daemons
//! drive (network namespaces, veth links and Linux bridges, Open vSwitch with the userspace
//! datapath, a private D-Bus bus, NetworkManager rebuilt with OVS, dnsmasq, keepalived, systemd
//! in systemd-nspawn), each owning its resources and removing them in `Drop`, with names unique
//! per test so tests run in parallel. Recipes: the project's test-harness reference.
//!
//! These tests need root. Outside CI a test without root prints why and passes as skipped;
//! under `CI=true` the same situation fails the test, so CI can never skip one silently.

pub mod api_stand_in;
pub mod apiserver;
pub mod cluster;
pub mod dbus;
pub mod dnsmasq;
pub mod keepalived;
pub mod leaks;
mod netns;
pub mod network_manager;
pub mod nm_ovs_build;
pub mod nncp;
pub mod node;
pub mod node_boot;
pub mod nspawn;
pub mod ovs;
pub mod per_host;
pub mod ping;
pub mod process;
pub mod real_kernel;
pub mod topology;
pub mod view;

pub use netns::{Netns, PREFIX, scratch_dir, unique_name};

/// Whether the caller may run a root-only test. Prints why not; panics under `CI=true`.
pub fn require_root(test: &str) -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        let msg = format!("{test}: needs root (network namespaces); run as root or via sudo");
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{msg} (CI=true: a skip is a failure)"
        );
        eprintln!("SKIPPED {msg}");
    }
    root
}
