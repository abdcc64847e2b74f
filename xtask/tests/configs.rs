//! The default config files in `units/config` document real keys with values of the right
//! type: with every commented-out setting switched on, each daemon accepts its file.

use std::path::Path;

use clap::Parser;

/// The file with every `#key = value` / `#[table]` line uncommented (prose is `# ...`).
fn uncommented(name: &str) -> tempfile::NamedTempFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../units/config/{name}.toml"));
    let text = std::fs::read_to_string(&path).unwrap();
    let on: String = text
        .lines()
        .map(|l| match l.strip_prefix('#') {
            Some(rest) if !rest.starts_with([' ', '#']) && !rest.is_empty() => rest,
            _ => l,
        })
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(on, text, "{name}: nothing to switch on");
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), on).unwrap();
    file
}

fn argv<'a>(bin: &'a str, sub: &'a str, file: &'a tempfile::NamedTempFile) -> [&'a str; 4] {
    [bin, sub, "--config", file.path().to_str().unwrap()]
}

#[test]
fn nodeip_selector() {
    use nodeip_selector::cli::Cli;
    let f = uncommented("nodeip-selector");
    let cli = Cli::try_parse_from(argv("nodeip-selector", "set", &f)).unwrap();
    nodeip_selector::settings::resolve(cli.command.select_args(), f.path()).unwrap();
}

#[test]
fn ovs_bridge_configurator() {
    use ovs_bridge_configurator::cli::Cli;
    let f = uncommented("ovs-bridge-configurator");
    let cli = Cli::try_parse_from(argv("ovs-bridge-configurator", "apply", &f)).unwrap();
    ovs_bridge_configurator::settings::resolve(cli.command.settings(), f.path()).unwrap();
}

#[test]
fn resolv_prepender() {
    use resolv_prepender::cli::{Cli, Command};
    let f = uncommented("resolv-prepender");
    let cli = Cli::try_parse_from(argv("resolv-prepender", "once", &f)).unwrap();
    let Command::Once(args) = cli.command else {
        unreachable!("parsed once")
    };
    resolv_prepender::settings::resolve(&args, f.path()).unwrap();
}

#[test]
fn keepalived_monitor() {
    use keepalived_monitor::cli::{Cli, Command};
    let f = uncommented("keepalived-monitor");
    let cli = Cli::try_parse_from(argv("keepalived-monitor", "render", &f)).unwrap();
    let Command::Render(args) = cli.command else {
        unreachable!("parsed render")
    };
    keepalived_monitor::settings::resolve(&args, f.path()).unwrap();
}
