//! The run's timeline: the daemons' log lines and the boot's milestones on a lane per node and
//! daemon, the day-2 changes with their outcomes on the lane of the node they ran on (the
//! policy's on each node's, as MCO updated it), who held each VIP, and the phases; written as the
//! recorded file, SVG and PNG.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Instant, SystemTime};

use anyhow::Context;
use integration::cluster::day2::VipSample;
use integration::cluster::{Cluster, DAEMONS, NODES, log_events};

use super::day2::Day2;
use crate::timeline::{Outcome, Phase, Timeline, png, svg};

/// What the recorded file's header says (as `#` lines).
const HEADER: &str =
    "The timeline of one `cargo xtask demo` run, in seconds since the cluster was created.
Regenerate: as root, `cargo xtask demo` writes it as target/demo/timeline.tsv.
Draw it again (no root needed): cargo xtask demo --redraw FILE [--out DIR]";

/// The last words of a node's boot (`ClusterNode::boot_after_ovs`): the node is up.
pub const NODE_UP: &str = "resolv.conf has the node IP first";

/// The boot's progress messages as they came (from the boot threads), with their time.
#[derive(Debug, Default)]
pub struct Milestones(Mutex<Vec<(SystemTime, String)>>);

impl Milestones {
    pub fn note(&self, m: &str) {
        let mut all = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        all.push((SystemTime::now(), m.to_owned()));
    }

    /// When the first message containing `needle` came.
    pub fn first(&self, needle: &str) -> Option<SystemTime> {
        self.all()
            .into_iter()
            .filter(|(_, m)| m.contains(needle))
            .map(|(t, _)| t)
            .min()
    }

    fn all(&self) -> Vec<(SystemTime, String)> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

/// Times on the cluster's clock (seconds since it was created).
struct Clock {
    started: SystemTime,
    zero: Instant,
}

impl Clock {
    fn new(started: SystemTime) -> Clock {
        let since = SystemTime::now()
            .duration_since(started)
            .unwrap_or_default();
        let now = Instant::now();
        Clock {
            started,
            zero: now.checked_sub(since).unwrap_or(now),
        }
    }

    fn at(&self, i: Instant) -> f64 {
        i.saturating_duration_since(self.zero).as_secs_f64()
    }

    fn wall(&self, t: SystemTime) -> f64 {
        t.duration_since(self.started)
            .unwrap_or_default()
            .as_secs_f64()
    }
}

fn lane(node: u8, daemon: &str) -> String {
    format!("node{node} {daemon}")
}

/// The lane a boot progress message (`nodeN: ...`) belongs on, and its text.
fn milestone_lane(m: &str) -> Option<(String, &str)> {
    let (node, what) = m.split_once(": ")?;
    let daemon = if what.contains("node IP") && what.contains("chosen") {
        "nodeip-selector"
    } else if what.starts_with("br-ex up") {
        "ovs-bridge-configurator"
    } else if what.starts_with("keepalived running") {
        "keepalived-monitor"
    } else if what.starts_with("resolv.conf") {
        "resolv-prepender"
    } else {
        return None;
    };
    Some((format!("{node} {daemon}"), what))
}

/// When the boot started and ended.
pub struct Boot {
    pub from: SystemTime,
    pub to: SystemTime,
}

/// The whole run's timeline.
pub fn build(c: &Cluster, boot: &Boot, milestones: &Milestones, day2: &Day2) -> Timeline {
    let clock = Clock::new(c.started());
    let mut t = Timeline {
        title: format!(
            "cargo xtask demo: three nodes boot, then day 2 on node{}",
            day2.node
        ),
        ..Timeline::default()
    };
    for n in 1..=NODES {
        for d in DAEMONS {
            t.lane(&lane(n, d));
        }
    }
    for (v, _) in &day2.holders {
        t.lane(&format!("{v} held by"));
    }
    t.phases = phases(&clock, boot, day2);
    let applies = day2
        .logs
        .iter()
        .flat_map(|l| log_events(l, day2.node, "ovs-bridge-configurator", c.started()));
    for e in c.timeline().into_iter().chain(applies) {
        let at = e.at.as_secs_f64();
        let outcome = Outcome::of_log_line(&e.what);
        t.mark(at, at, &lane(e.node, &e.source), outcome, &e.what);
    }
    for (when, m) in milestones.all() {
        if let Some((l, what)) = milestone_lane(&m) {
            t.mark(clock.wall(when), clock.wall(when), &l, Outcome::Done, what);
        }
    }
    changes(&mut t, &clock, day2);
    for (i, (v, holder)) in day2.holders.iter().enumerate() {
        vip_lane(
            &mut t,
            &clock,
            &format!("{v} held by"),
            i,
            *holder,
            &day2.samples,
        );
    }
    t
}

/// Day 2's changes on the lane of the node they ran on; a step that changed every node, each
/// node's part on its own lane.
fn changes(t: &mut Timeline, clock: &Clock, day2: &Day2) {
    let on_node = lane(day2.node, "ovs-bridge-configurator");
    for s in day2.steps.iter().filter(|s| !s.is_vips()) {
        // A step that changed every node is drawn on each node's lane, and on the changes'
        // node's too only if it failed after the updates (its status, its peer).
        if s.nodes.is_empty() || s.outcome == Outcome::Failed {
            let (from, to) = (clock.at(s.from), clock.at(s.to));
            t.mark(from, to, &on_node, s.outcome, &s.short);
        }
        for n in &s.nodes {
            let (outcome, what) = match n.ok {
                true => (Outcome::Done, "updated"),
                false => (Outcome::Failed, "update failed"),
            };
            let label = format!("{}: node{} {what}", s.short, n.node);
            let node_lane = lane(n.node, "ovs-bridge-configurator");
            t.mark(
                clock.at(n.from),
                clock.at(n.to),
                &node_lane,
                outcome,
                &label,
            );
        }
    }
}

/// The nodes' creation, their boot, and day 2.
fn phases(clock: &Clock, boot: &Boot, day2: &Day2) -> Vec<Phase> {
    let phase = |from: f64, to: f64, name: &str| Phase {
        from,
        to,
        name: name.to_owned(),
    };
    let boot_from = clock.wall(boot.from);
    let mut all = vec![
        phase(0.0, boot_from, "networks and NetworkManager"),
        phase(boot_from, clock.wall(boot.to), "boot"),
    ];
    if let (Some(a), Some(z)) = (day2.steps.first(), day2.steps.last()) {
        all.push(phase(clock.at(a.from), clock.at(z.to), "day 2"));
    }
    all
}

/// VIP number `i` of the samples: a bar per stretch of samples with the same holders, done
/// while `holder` alone held it.
fn vip_lane(
    t: &mut Timeline,
    clock: &Clock,
    name: &str,
    i: usize,
    holder: u8,
    samples: &[VipSample],
) {
    for (on, from, to) in super::day2::stretches(samples, i) {
        let (outcome, label) = match on.as_slice() {
            [n] if *n == holder => (Outcome::Done, format!("node{n}")),
            [] => (Outcome::Absent, "no node".to_owned()),
            nodes => {
                let names: Vec<String> = nodes.iter().map(|n| format!("node{n}")).collect();
                (Outcome::Failed, names.join(" + "))
            }
        };
        t.mark(clock.at(from), clock.at(to), name, outcome, &label);
    }
}

/// Writes the recorded file, the SVG and the PNG into `out`; their paths.
pub fn write(t: &Timeline, out: &Path) -> anyhow::Result<[PathBuf; 3]> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let tsv = out.join("timeline.tsv");
    std::fs::write(&tsv, t.record(HEADER)).with_context(|| format!("{}", tsv.display()))?;
    let [svg_path, png_path] = draw(t, out)?;
    Ok([tsv, svg_path, png_path])
}

/// Draws `t` as `timeline.svg` and `timeline.png` in `out`; their paths.
pub fn draw(t: &Timeline, out: &Path) -> anyhow::Result<[PathBuf; 2]> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let text = svg::render(t);
    let svg_path = out.join("timeline.svg");
    std::fs::write(&svg_path, &text).with_context(|| format!("{}", svg_path.display()))?;
    let png_path = out.join("timeline.png");
    std::fs::write(&png_path, png::render(&text)?)
        .with_context(|| format!("{}", png_path.display()))?;
    Ok([svg_path, png_path])
}

/// Draws a recorded run's timeline again.
pub fn redraw(file: &Path, out: &Path) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(file).with_context(|| format!("{}", file.display()))?;
    let t = Timeline::parse(&text).with_context(|| format!("{}", file.display()))?;
    for p in draw(&t, out)? {
        println!("{}", p.display());
    }
    Ok(())
}
