//! `cargo xtask dist --destdir DIR`: the FHS install tree the RPMs package: release binaries,
//! units and drop-ins, tmpfiles.d, default configs, man pages and shell completions generated
//! from each binary's clap definition.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use anyhow::Context;
use clap::CommandFactory;

use crate::util::{release_binary, root};

/// Each daemon: its binary name (also its config's name under `units/config`) and clap command.
fn daemons() -> [(&'static str, clap::Command); 4] {
    [
        ("nodeip-selector", nodeip_selector::cli::Cli::command()),
        (
            "ovs-bridge-configurator",
            ovs_bridge_configurator::cli::Cli::command(),
        ),
        ("resolv-prepender", resolv_prepender::cli::Cli::command()),
        (
            "keepalived-monitor",
            keepalived_monitor::cli::Cli::command(),
        ),
    ]
}

fn install(from: &Path, to: &Path, mode: u32) -> anyhow::Result<()> {
    fs::create_dir_all(to.parent().context("destination has a parent")?)?;
    fs::copy(from, to).with_context(|| format!("{} -> {}", from.display(), to.display()))?;
    fs::set_permissions(to, fs::Permissions::from_mode(mode))?;
    Ok(())
}

/// Copies every file under `units/<sub>` to `dest/<to>`, keeping sub-directories.
fn install_tree(sub: &str, dest: &Path, to: &str) -> anyhow::Result<()> {
    let from = root().join("units").join(sub);
    let mut stack = vec![from.clone()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                install(&p, &dest.join(to).join(p.strip_prefix(&from)?), 0o644)?;
            }
        }
    }
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    fs::create_dir_all(path.parent().context("destination has a parent")?)?;
    fs::write(path, bytes)?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o644))?;
    Ok(())
}

/// Installs the tree into `dest`, with release binaries or those in `bin_dir`.
pub fn run(dest: &Path, bin_dir: Option<&Path>) -> anyhow::Result<()> {
    for (name, mut cmd) in daemons() {
        let bin = match bin_dir {
            Some(dir) => dir.join(name),
            None => release_binary(name)?,
        };
        install(&bin, &dest.join("usr/bin").join(name), 0o755)?;
        install(
            &root().join("units/config").join(format!("{name}.toml")),
            &dest.join("etc").join(name).join("config.toml"),
            0o644,
        )?;
        let mut man = Vec::new();
        clap_mangen::Man::new(cmd.clone())
            .section("8")
            .render(&mut man)?;
        write(&dest.join(format!("usr/share/man/man8/{name}.8")), &man)?;
        for (shell, path) in [
            (
                clap_complete::Shell::Bash,
                format!("usr/share/bash-completion/completions/{name}"),
            ),
            (
                clap_complete::Shell::Zsh,
                format!("usr/share/zsh/site-functions/_{name}"),
            ),
            (
                clap_complete::Shell::Fish,
                format!("usr/share/fish/vendor_completions.d/{name}.fish"),
            ),
        ] {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut cmd, name, &mut out);
            write(&dest.join(path), &out)?;
        }
    }
    install_tree("system", dest, "usr/lib/systemd/system")?;
    install_tree("tmpfiles.d", dest, "usr/lib/tmpfiles.d")?;
    install_tree("system-preset", dest, "usr/lib/systemd/system-preset")?;
    install_tree("default", dest, "etc/default")?;
    println!("install tree in {}", dest.display());
    Ok(())
}
