//! `cargo xtask licenses`: the licenses of every crate the four daemons link on this platform,
//! grouped by license expression (the RPMs' LICENSE.dependencies, Fedora's
//! %cargo_license_summary).

use std::collections::BTreeMap;

use anyhow::Context;

use crate::util::cargo;

/// The packages whose binaries are shipped (the RPMs' daemons).
const DAEMONS: &[&str] = &[
    "keepalived-monitor",
    "nodeip-selector",
    "ovs-bridge-configurator",
    "resolv-prepender",
];

/// Whether a package is a procedural macro: run by the compiler, never linked.
fn is_proc_macro(p: &serde_json::Value) -> bool {
    p["targets"].as_array().is_some_and(|ts| {
        ts.iter().any(|t| {
            t["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "proc-macro"))
        })
    })
}

/// The crates the daemons link: reached from them by normal dependencies (not dev, not build),
/// without procedural macros (Fedora's `%cargo_license_summary` counts the same), and without
/// the workspace's own packages.
fn linked<'m>(
    meta: &'m serde_json::Value,
    packages: &BTreeMap<&'m str, &'m serde_json::Value>,
) -> anyhow::Result<Vec<&'m str>> {
    let nodes: BTreeMap<&str, &serde_json::Value> = meta["resolve"]["nodes"]
        .as_array()
        .context("resolve.nodes")?
        .iter()
        .filter_map(|n| Some((n["id"].as_str()?, n)))
        .collect();
    let members: Vec<&str> = meta["workspace_members"]
        .as_array()
        .context("workspace_members")?
        .iter()
        .filter_map(|m| m.as_str())
        .collect();
    let mut todo: Vec<&str> = members
        .iter()
        .copied()
        .filter(|id| DAEMONS.contains(&packages[id]["name"].as_str().unwrap_or_default()))
        .collect();
    anyhow::ensure!(todo.len() == DAEMONS.len(), "not every daemon is a member");
    let mut seen: std::collections::BTreeSet<&str> = todo.iter().copied().collect();
    while let Some(id) = todo.pop() {
        let deps = nodes[id]["deps"].as_array().context("deps")?;
        for d in deps {
            let normal = d["dep_kinds"]
                .as_array()
                .is_some_and(|ks| ks.iter().any(|k| k["kind"].is_null()));
            let Some(dep) = d["pkg"].as_str() else {
                continue;
            };
            if normal && !is_proc_macro(packages[dep]) && seen.insert(dep) {
                todo.push(dep);
            }
        }
    }
    Ok(seen
        .into_iter()
        .filter(|id| !members.contains(id))
        .collect())
}

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
    let packages: BTreeMap<&str, &serde_json::Value> = meta["packages"]
        .as_array()
        .context("packages")?
        .iter()
        .filter_map(|p| Some((p["id"].as_str()?, p)))
        .collect();
    let mut by_license: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for id in linked(&meta, &packages)? {
        let p = packages[id];
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_a_daemon_links_is_counted() {
        let package = |id: &str, kind: &str| serde_json::json!({"id": id, "name": id, "targets": [{"kind": [kind]}]});
        let dep = |pkg: &str, kind: Option<&str>| serde_json::json!({"pkg": pkg, "dep_kinds": [{"kind": kind}]});
        let mut packages: Vec<serde_json::Value> =
            DAEMONS.iter().map(|d| package(d, "bin")).collect();
        for (id, kind) in [
            ("xtask", "bin"),
            ("tokio", "lib"),
            ("mio", "lib"),
            ("serde_derive", "proc-macro"),
            ("tempfile", "lib"),
            ("cc", "lib"),
            ("gtmpl", "lib"),
        ] {
            packages.push(package(id, kind));
        }
        let mut nodes: Vec<serde_json::Value> = DAEMONS
            .iter()
            .map(|d| serde_json::json!({"id": d, "deps": []}))
            .collect();
        nodes[0]["deps"] = serde_json::json!([
            dep("tokio", None),
            dep("serde_derive", None),
            dep("tempfile", Some("dev")),
            dep("cc", Some("build")),
        ]);
        for (id, deps) in [
            ("tokio", vec![dep("mio", None)]),
            ("xtask", vec![dep("gtmpl", None)]),
            ("mio", vec![]),
            ("serde_derive", vec![]),
            ("tempfile", vec![]),
            ("cc", vec![]),
            ("gtmpl", vec![]),
        ] {
            nodes.push(serde_json::json!({"id": id, "deps": deps}));
        }
        let mut members: Vec<&str> = DAEMONS.to_vec();
        members.push("xtask");
        let meta = serde_json::json!({
            "packages": packages,
            "workspace_members": members,
            "resolve": {"nodes": nodes},
        });
        let by_id: BTreeMap<&str, &serde_json::Value> = meta["packages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["id"].as_str().unwrap(), p))
            .collect();
        assert_eq!(linked(&meta, &by_id).unwrap(), vec!["mio", "tokio"]);
    }
}
