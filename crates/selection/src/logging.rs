//! Logging set-up shared by the daemons: stderr, `-v`/`-q` counts or `RUST_LOG`, no
//! timestamps under systemd (journald adds them), colours only on a terminal.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

/// Installs the global subscriber. `-v` minus `-q` picks the level (0 = info); `debug` forces
/// at least debug (e.g. `ENABLE_NODEIP_DEBUG=true`). The netlink crates' warnings about
/// attributes newer kernels send are not actionable here and are hidden, as are nmstate's netlink
/// reader's (nispor: an info line per unknown bond-port attribute of every 802.3ad port on every
/// query, and a warning per query on a server without Wi-Fi).
pub fn init(v: &crate::app::Verbosity, debug: bool) {
    let level = match (i16::from(v.verbose) - i16::from(v.quiet), debug) {
        (v, _) if v >= 2 => "trace",
        (1, _) | (_, true) => "debug",
        (0, _) => "info",
        (-1, _) => "warn",
        _ => "error",
    };
    let default = format!("{level},netlink_packet_route=error,netlink_proto=error,nispor=error");
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    if std::env::var_os("JOURNAL_STREAM").is_some() {
        builder.without_time().init();
    } else {
        builder.init();
    }
}
