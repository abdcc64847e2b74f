//! The demo's timeline, drawn again from a recorded run (`fixtures/demo-timeline.tsv`, written
//! by a real `cargo xtask demo` as target/demo/timeline.tsv and copied here; its header says
//! how to record and draw it again): the SVG has a lane per node and daemon and one per VIP,
//! the boot and day-2 phases, a tick per log line, and each day-2 change with its outcome; the
//! PNG decodes at the SVG's size and is not blank. Needs no root.

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

use integration::cluster::{API_VIP, DAEMONS, INGRESS_VIP, NODES};

fn fixture() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/demo-timeline.tsv");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The value of `name="..."` in the SVG's root element.
fn root_attribute(svg: &str, name: &str) -> u32 {
    let root = &svg[svg.find("<svg").unwrap()..];
    let root = &root[..root.find('>').unwrap()];
    let start = root.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
    root[start..start + root[start..].find('"').unwrap()]
        .parse()
        .unwrap()
}

#[test]
fn a_recorded_demo_run_draws_its_lanes_and_changes_as_svg_and_png() {
    let recorded = fixture();
    let out = tempfile::tempdir().unwrap();
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/demo-timeline.tsv");
    let o = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["demo", "--redraw"])
        .arg(&file)
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let svg = std::fs::read_to_string(out.path().join("timeline.svg")).unwrap();

    for n in 1..=NODES {
        for d in DAEMONS {
            let lane = format!("<g class=\"lane\" data-lane=\"node{n} {d}\">");
            assert!(svg.contains(&lane), "no lane for node{n} {d}");
        }
    }
    for vip in [API_VIP, INGRESS_VIP] {
        assert!(
            svg.contains(&format!("data-lane=\"{vip} held by\"")),
            "{vip}"
        );
    }
    for phase in [">boot (", ">day 2 ("] {
        assert!(svg.contains(phase), "phase {phase}");
    }
    // Every log line of the recording is a tick, with its level.
    let logs = recorded
        .lines()
        .filter(|l| l.starts_with("mark\t"))
        .filter(|l| {
            ["\tlog\t", "\twarning\t", "\terror\t"]
                .iter()
                .any(|o| l.contains(o))
        })
        .count();
    assert!(logs > 50, "the recording has the boot's log lines");
    assert_eq!(svg.matches("<line class=\"tick\"").count(), logs);
    // Each day-2 change on the lane of the node it ran on, with its outcome.
    for (outcome, label) in [
        ("done", "(a) new interface: committed"),
        ("rolled-back", "(b) dead gateway: rolled back"),
        ("undone", "(c) SIGKILL: undone"),
    ] {
        let mark = svg
            .lines()
            .find(|l| l.contains(label))
            .unwrap_or_else(|| panic!("no mark {label:?}"));
        assert!(
            mark.contains(&format!("data-outcome=\"{outcome}\""))
                && mark.contains("ovs-bridge-configurator\""),
            "{mark}"
        );
    }

    // The policy's roll-out: each node's MCO update on that node's lane.
    for n in 1..=NODES {
        let label = format!("(d) policy: committed: node{n} updated");
        let mark = svg
            .lines()
            .find(|l| l.contains(&label))
            .unwrap_or_else(|| panic!("no mark {label:?}"));
        assert!(
            mark.contains("data-outcome=\"done\"")
                && mark.contains(&format!("node{n} ovs-bridge-configurator\"")),
            "{mark}"
        );
    }

    let png = std::fs::read(out.path().join("timeline.png")).unwrap();
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(&png).unwrap();
    assert_eq!(
        (pixmap.width(), pixmap.height()),
        (
            root_attribute(&svg, "width"),
            root_attribute(&svg, "height")
        )
    );
    assert_eq!(pixmap.width(), 1600);
    let colours: HashSet<&[u8]> = pixmap.data().chunks(4).collect();
    assert!(
        colours.len() > 20,
        "{} colours: the drawing is blank",
        colours.len()
    );
}
