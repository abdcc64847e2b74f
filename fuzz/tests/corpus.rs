//! Replays the committed corpus (`corpus/<target>/*`: seeds, what the fuzzer kept, and every
//! crash it found) through each target's properties on the stable toolchain, so the normal test
//! command checks what fuzzing found. Rendered keepalived.conf candidates also go through real
//! `keepalived -t` in a namespace holding the interface and addresses they were rendered for.

use std::path::{Path, PathBuf};

use fuzz_checks::{TARGETS, nodes_json};
use integration::{Netns, require_root, scratch_dir};

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target);
    let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            (path, data)
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} is empty", dir.display());
    files
}

#[test]
fn every_target_holds_on_its_corpus() {
    let mut failed = Vec::new();
    for (target, check) in TARGETS {
        for (path, data) in corpus(target) {
            // One report for every failing input, not just the first.
            if std::panic::catch_unwind(|| check(&data)).is_err() {
                failed.push(path.display().to_string());
            }
        }
    }
    assert!(failed.is_empty(), "properties fail on {failed:#?}");
}

#[test]
fn every_rendered_candidate_passes_keepalived_t() {
    if !require_root("every_rendered_candidate_passes_keepalived_t") {
        return;
    }
    let ns = Netns::new("fzka").unwrap();
    ns.nic(nodes_json::INTERFACE).unwrap();
    for cidr in nodes_json::OWN {
        ns.addr(nodes_json::INTERFACE, cidr, &["nodad"]).unwrap();
    }
    let dir = scratch_dir("fzka").unwrap();
    let conf = dir.path().join("keepalived.conf");
    let mut rendered = 0;
    let mut rejected = Vec::new();
    for (path, data) in corpus("nodes_json") {
        let Some((text, _)) = nodes_json::render(&data) else {
            continue;
        };
        rendered += 1;
        std::fs::write(&conf, &text).unwrap();
        if let Err(e) = integration::keepalived::config_test(ns.name(), &conf) {
            rejected.push(format!("{}: {e}\n{text}", path.display()));
        }
    }
    // The seeds alone render a dozen candidates; a change that renders none must not pass.
    assert!(rendered >= 10, "only {rendered} candidates rendered");
    assert!(rejected.is_empty(), "{}", rejected.join("\n\n"));
}
