//! `cargo xtask licenses`: the licenses of every crate used to build the binaries on this
//! platform, grouped by license expression (the RPMs' LICENSE.dependencies, Fedora's %cargo_license_summary).

use std::collections::BTreeMap;

use anyhow::Context;

use crate::util::cargo;

pub fn run() -> anyhow::Result<()> {
    // Only this platform's crates: the ones the binaries can link.
    let rustc = std::process::Command::new("rustc").arg("-vV").output()?;
    let host = String::from_utf8(rustc.stdout)?
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .context("rustc -vV names no host")?;
    let o = cargo()
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", &host])
        .output()?;
    anyhow::ensure!(
        o.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&o.stdout)?;
    let members: Vec<&str> = meta["workspace_members"]
        .as_array()
        .context("workspace_members")?
        .iter()
        .filter_map(|m| m.as_str())
        .collect();
    let mut by_license: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in meta["packages"].as_array().context("packages")? {
        if members.contains(&p["id"].as_str().unwrap_or_default()) {
            continue;
        }
        let license = p["license"]
            .as_str()
            .unwrap_or("(no license field)")
            .to_owned();
        by_license.entry(license).or_default().push(format!(
            "{} {}",
            p["name"].as_str().unwrap_or("?"),
            p["version"].as_str().unwrap_or("?")
        ));
    }
    for (license, mut crates) in by_license {
        crates.sort();
        println!("# {license}");
        for c in crates {
            println!("{c}");
        }
        println!();
    }
    Ok(())
}
