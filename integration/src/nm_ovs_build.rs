//! Where `cargo xtask deps` installs NetworkManager rebuilt with its OVS plugin, and the
//! inputs of that build (its cache key).
//!
//! Debian builds NetworkManager without OVS support, so the harness uses Debian's own source
//! package of the release production runs (RHCOS 4.20 on RHEL 9.6: NetworkManager 1.52), from
//! Debian 13's source (Debian 12 has 1.42), built with production paths (`/run/NetworkManager`,
//! `/run/openvswitch/db.sock`), team support, and the environment-gated changes in
//! `nm-ovs/harness.patch` that put OVS's userspace datapath under profiles that name none (this
//! kernel has no `openvswitch` module). With the `HARNESS_NM_*` variables unset it behaves as
//! upstream.

use std::path::PathBuf;

/// Cache root; builds live in `nm-ovs-<debian version>-<key>` below it.
pub const CACHE_ROOT: &str = "/var/cache/onprem-harness";

/// Symlink to the current build's prefix (`sbin/NetworkManager`, `lib/`, `libexec/`).
pub fn current() -> PathBuf {
    PathBuf::from(CACHE_ROOT).join("nm-ovs")
}

/// The Debian source package built: the newest NetworkManager 1.52 Debian's registry serves,
/// pinned here and nowhere else.
pub const VERSION: &str = "1.52.1-1";

/// The Debian suite whose `deb-src` index carries [`VERSION`].
pub const SUITE: &str = "trixie";

/// The harness changes, applied with `patch -p1` to the unpacked Debian source.
pub const PATCH: &str = include_str!("../nm-ovs/harness.patch");

/// meson options: OVS on, everything the harness does not need off (reference §9.1).
pub const MESON_OPTIONS: &[&str] = &[
    "--sysconfdir=/etc",
    "--localstatedir=/var",
    "-Druntime_dir=/run",
    "-Dovs=true",
    "-Dnmcli=true", // configure-ovs.sh's `nmcli --offline` must read 1.52's keyfiles
    "-Dnmtui=false",
    "-Dintrospection=false",
    "-Dvapi=false",
    "-Ddocs=false",
    "-Dtests=no",
    "-Dqt=false",
    "-Dppp=false",
    "-Dmodem_manager=false",
    "-Dwifi=false",
    "-Dwext=false",
    "-Dconcheck=false",
    "-Dlibpsl=false",
    "-Dcrypto=null",
    "-Dselinux=false",
    "-Dlibaudit=no",
    "-Dsession_tracking=no",
    "-Dsession_tracking_consolekit=false",
    "-Dsuspend_resume=auto",
    "-Dsystemd_journal=false",
    "-Dpolkit=false",
    "-Debpf=false",
    "-Difcfg_rh=false",
    "-Difupdown=false",
    "-Dreadline=libreadline",
    "-Dfirewalld_zone=false",
    "-Dsystemdsystemunitdir=no",
    "-Dudev_dir=no",
    "-Dmore_asserts=no",
    "-Dteamdctl=true",
    "-Dnm_cloud_setup=false",
    "-Dbluez5_dun=false",
    "-Dofono=false",
    "-Diwd=false",
];

/// The build directory name: a change of version, patch or options gives a new directory, so a
/// stale build is never reused.
pub fn build_name() -> String {
    let version = VERSION;
    // FNV-1a: tiny, stable across Rust releases (unlike `DefaultHasher`).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in version
        .bytes()
        .chain(PATCH.bytes())
        .chain(MESON_OPTIONS.join(" ").into_bytes())
    {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("nm-ovs-{version}-{h:016x}")
}
