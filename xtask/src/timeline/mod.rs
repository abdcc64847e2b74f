//! The demo's timeline: lanes (one per node and daemon, and one per VIP), the phases (boot,
//! day 2) and every mark on them (a daemon's log line, a milestone, a day-2 change, who held a
//! VIP), each with its outcome. Recorded as a tab-separated file so that a run's timeline can be
//! drawn again ([`Timeline::parse`]), drawn as SVG ([`svg`]) and rasterised to PNG ([`png`]).

pub mod png;
pub mod svg;

use std::fmt::Write as _;

use anyhow::{Context, bail};

/// What became of a mark; it sets the colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A daemon's log line.
    Log,
    Warning,
    Error,
    /// A milestone reached, a change committed, a VIP on its holder.
    Done,
    /// A change the probes rolled back.
    RolledBack,
    /// A killed change undone by the process it left behind, or by NetworkManager's checkpoint.
    Undone,
    /// A VIP held by no node.
    Absent,
    /// Something that should not happen did (a VIP moved or was lost, a step failed).
    Failed,
}

impl Outcome {
    /// Every outcome, in the legend's order.
    pub const ALL: [Outcome; 8] = [
        Outcome::Log,
        Outcome::Warning,
        Outcome::Error,
        Outcome::Done,
        Outcome::RolledBack,
        Outcome::Undone,
        Outcome::Absent,
        Outcome::Failed,
    ];

    /// The word the recorded file uses.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Log => "log",
            Outcome::Warning => "warning",
            Outcome::Error => "error",
            Outcome::Done => "done",
            Outcome::RolledBack => "rolled-back",
            Outcome::Undone => "undone",
            Outcome::Absent => "absent",
            Outcome::Failed => "failed",
        }
    }

    fn from_word(w: &str) -> Option<Outcome> {
        Outcome::ALL.into_iter().find(|o| o.word() == w)
    }

    /// A daemon's log line's outcome from its level (tracing's format: the level follows the
    /// timestamp).
    pub fn of_log_line(line: &str) -> Outcome {
        match line.split_whitespace().next() {
            Some("WARN") => Outcome::Warning,
            Some("ERROR") => Outcome::Error,
            _ => Outcome::Log,
        }
    }
}

/// One mark: a moment (`from == to`) or a span, on one lane.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    /// Seconds since the timeline's zero.
    pub from: f64,
    pub to: f64,
    pub lane: String,
    pub outcome: Outcome,
    /// What happened. Drawn for every outcome but [`Outcome::Log`], [`Outcome::Warning`] and
    /// [`Outcome::Error`], whose text is the mark's tooltip only (a boot logs hundreds).
    pub label: String,
}

/// A stretch of the run (the boot, day 2), shaded behind the lanes.
#[derive(Clone, Debug, PartialEq)]
pub struct Phase {
    pub from: f64,
    pub to: f64,
    pub name: String,
}

/// A run's timeline.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    pub title: String,
    /// Top to bottom.
    pub lanes: Vec<String>,
    pub phases: Vec<Phase>,
    pub marks: Vec<Mark>,
}

/// Tabs and line breaks would split a recorded field.
fn field(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

impl Timeline {
    /// Adds `lane` below the others unless it is there already.
    pub fn lane(&mut self, lane: &str) {
        if !self.lanes.iter().any(|l| l == lane) {
            self.lanes.push(lane.to_owned());
        }
    }

    /// Adds a mark (its lane too, if new).
    pub fn mark(&mut self, from: f64, to: f64, lane: &str, outcome: Outcome, label: &str) {
        self.lane(lane);
        self.marks.push(Mark {
            from,
            to: to.max(from),
            lane: lane.to_owned(),
            outcome,
            label: label.to_owned(),
        });
    }

    /// The end of the last mark or phase, in seconds.
    pub fn end(&self) -> f64 {
        let marks = self.marks.iter().map(|m| m.to);
        let phases = self.phases.iter().map(|p| p.to);
        marks.chain(phases).fold(0.0, f64::max)
    }

    /// The recorded form: `#` comment lines (`header`, one per line), then one line per title,
    /// lane, phase and mark, fields separated by tabs.
    pub fn record(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            let _ = writeln!(out, "# {line}");
        }
        let _ = writeln!(out, "title\t{}", field(&self.title));
        for lane in &self.lanes {
            let _ = writeln!(out, "lane\t{}", field(lane));
        }
        for p in &self.phases {
            let _ = writeln!(out, "phase\t{:.3}\t{:.3}\t{}", p.from, p.to, field(&p.name));
        }
        for m in &self.marks {
            let _ = writeln!(
                out,
                "mark\t{:.3}\t{:.3}\t{}\t{}\t{}",
                m.from,
                m.to,
                field(&m.lane),
                m.outcome.word(),
                field(&m.label)
            );
        }
        out
    }

    /// Reads what [`Timeline::record`] wrote.
    pub fn parse(text: &str) -> anyhow::Result<Timeline> {
        let mut t = Timeline::default();
        for (n, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            t.parse_line(line)
                .with_context(|| format!("line {}: {line:?}", n + 1))?;
        }
        Ok(t)
    }

    fn parse_line(&mut self, line: &str) -> anyhow::Result<()> {
        let f: Vec<&str> = line.split('\t').collect();
        let secs = |i: usize| -> anyhow::Result<f64> {
            let s = f.get(i).context("a field is missing")?;
            s.parse().with_context(|| format!("{s:?} is not seconds"))
        };
        match (f[0], f.len()) {
            ("title", 2) => self.title = f[1].to_owned(),
            ("lane", 2) => self.lane(f[1]),
            ("phase", 4) => self.phases.push(Phase {
                from: secs(1)?,
                to: secs(2)?,
                name: f[3].to_owned(),
            }),
            ("mark", 6) => {
                let outcome = Outcome::from_word(f[4])
                    .with_context(|| format!("{:?} is not an outcome", f[4]))?;
                self.mark(secs(1)?, secs(2)?, f[3], outcome, f[5]);
            }
            _ => bail!("not a title, lane, phase or mark line of the right width"),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_timeline_reads_back_the_same() {
        let mut t = Timeline {
            title: "demo".into(),
            ..Timeline::default()
        };
        t.phases.push(Phase {
            from: 0.0,
            to: 4.5,
            name: "boot".into(),
        });
        t.mark(
            0.25,
            0.25,
            "node1 nodeip-selector",
            Outcome::Log,
            "INFO a\tb",
        );
        t.mark(
            5.0,
            7.5,
            "node1 ovs-bridge-configurator",
            Outcome::Undone,
            "killed",
        );
        let back = Timeline::parse(&t.record("made by a test\nsecond line")).unwrap();
        assert_eq!(back.lanes, t.lanes);
        assert_eq!(back.phases, t.phases);
        assert_eq!(back.marks[0].label, "INFO a b");
        assert_eq!(back.marks[1], t.marks[1]);
        assert!(Timeline::parse("mark\t1\t2\tlane\tnonsense\tx").is_err());
        assert!(Timeline::parse("lane").is_err());
    }

    #[test]
    fn log_levels_set_the_outcome() {
        assert_eq!(Outcome::of_log_line(" WARN x: y"), Outcome::Warning);
        assert_eq!(Outcome::of_log_line("ERROR x"), Outcome::Error);
        assert_eq!(Outcome::of_log_line("INFO x"), Outcome::Log);
    }
}
