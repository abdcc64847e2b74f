//! The timeline as SVG: lane names on the left, a time axis in seconds, the phases shaded
//! (their names on two alternating rows: a short phase's name would run into the next one's),
//! log lines as ticks (their text as a tooltip), milestones as dots and spans (a change, a VIP's
//! holder) as bars, each labelled and coloured by its outcome, and a legend of the colours.

use std::fmt::Write as _;

use super::{Mark, Outcome, Timeline};

/// The font every text names; the PNG renderer loads it explicitly ([`super::png`]).
pub const FONT_FAMILY: &str = "DejaVu Sans";
/// The drawing's width in pixels (its height follows from the lanes: [`height`]).
pub const WIDTH: u32 = 1600;

const LEFT: f64 = 270.0;
const RIGHT: f64 = 30.0;
const TOP: f64 = 84.0;
const ROW: f64 = 30.0;
const BOTTOM: f64 = 70.0;
/// DejaVu Sans' mean advance at the labels' 11 px, to keep two labels of a lane apart.
const CHAR_WIDTH: f64 = 6.4;

/// The colour of an outcome.
fn colour(o: Outcome) -> &'static str {
    match o {
        Outcome::Log => "#9aa0a6",
        Outcome::Warning => "#f29900",
        Outcome::Error | Outcome::Failed => "#d93025",
        Outcome::Done => "#1e8e3e",
        Outcome::RolledBack => "#e8710a",
        Outcome::Undone => "#8430ce",
        Outcome::Absent => "#fbbc04",
    }
}

/// How the legend names an outcome.
fn meaning(o: Outcome) -> &'static str {
    match o {
        Outcome::Log => "log line",
        Outcome::Warning => "warning",
        Outcome::Error => "error",
        Outcome::Done => "done / committed / VIP held",
        Outcome::RolledBack => "rolled back by the probes",
        Outcome::Undone => "undone by the dead man's switch",
        Outcome::Absent => "VIP on no node",
        Outcome::Failed => "failed / VIP moved",
    }
}

/// The drawing's height in pixels for `lanes` lanes.
pub fn height(lanes: usize) -> u32 {
    (TOP + ROW * lanes as f64 + BOTTOM).ceil() as u32
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Maps seconds to x.
struct Scale {
    end: f64,
}

impl Scale {
    fn x(&self, secs: f64) -> f64 {
        LEFT + (WIDTH as f64 - LEFT - RIGHT) * (secs / self.end).clamp(0.0, 1.0)
    }

    /// A round step between axis ticks giving at most about 15 of them.
    fn step(&self) -> f64 {
        [1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0]
            .into_iter()
            .find(|s| self.end / s <= 15.0)
            .unwrap_or(600.0)
    }
}

/// The timeline as an SVG document.
pub fn render(t: &Timeline) -> String {
    let h = height(t.lanes.len());
    let scale = Scale {
        end: (t.end() * 1.02).max(1.0),
    };
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{h}\" \
         viewBox=\"0 0 {WIDTH} {h}\" font-family=\"{FONT_FAMILY}, sans-serif\" font-size=\"11\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n\
         <text x=\"12\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{}</text>\n",
        escape(&t.title)
    );
    lanes(&mut s, t);
    phases(&mut s, t, &scale);
    axis(&mut s, t, &scale);
    marks(&mut s, t, &scale);
    legend(&mut s, h);
    s.push_str("</svg>\n");
    s
}

fn lane_y(i: usize) -> f64 {
    TOP + ROW * i as f64
}

fn lanes(s: &mut String, t: &Timeline) {
    for (i, lane) in t.lanes.iter().enumerate() {
        let y = lane_y(i);
        let fill = if i % 2 == 0 { "#f4f6f8" } else { "#ffffff" };
        let _ = writeln!(
            s,
            "<g class=\"lane\" data-lane=\"{name}\"><rect x=\"0\" y=\"{y}\" width=\"{WIDTH}\" \
             height=\"{ROW}\" fill=\"{fill}\"/><text x=\"12\" y=\"{ty}\" font-size=\"12\">{name}\
             </text></g>",
            name = escape(lane),
            ty = y + ROW / 2.0 + 4.0
        );
    }
}

fn phases(s: &mut String, t: &Timeline, scale: &Scale) {
    let bottom = lane_y(t.lanes.len());
    for (i, p) in t.phases.iter().enumerate() {
        let (x0, x1) = (scale.x(p.from), scale.x(p.to));
        let fill = ["#1a73e8", "#f9ab00"][i % 2];
        let _ = writeln!(
            s,
            "<g class=\"phase\"><rect x=\"{x0:.1}\" y=\"{TOP}\" width=\"{w:.1}\" \
             height=\"{hh:.1}\" fill=\"{fill}\" fill-opacity=\"0.07\"/><text x=\"{x0:.1}\" \
             y=\"{ty}\" font-size=\"12\" font-weight=\"bold\" fill=\"{fill}\">{name} \
             ({secs:.1} s)</text></g>",
            w = (x1 - x0).max(1.0),
            hh = bottom - TOP,
            ty = 44.0 + 14.0 * (i % 2) as f64,
            name = escape(&p.name),
            secs = p.to - p.from
        );
    }
}

fn axis(s: &mut String, t: &Timeline, scale: &Scale) {
    let bottom = lane_y(t.lanes.len());
    let step = scale.step();
    let mut at = 0.0;
    while at <= scale.end {
        let x = scale.x(at);
        let _ = writeln!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{y0}\" x2=\"{x:.1}\" y2=\"{bottom}\" stroke=\"#dadce0\" \
             stroke-width=\"1\"/><text x=\"{x:.1}\" y=\"{ty}\" text-anchor=\"middle\" \
             fill=\"#5f6368\">{at} s</text>",
            y0 = TOP - 6.0,
            ty = TOP - 8.0
        );
        at += step;
    }
}

fn is_tick(o: Outcome) -> bool {
    matches!(o, Outcome::Log | Outcome::Warning | Outcome::Error)
}

/// Every mark, ticks first so that bars and labels are drawn over them; a label goes on the
/// upper or the lower half of its lane, whichever is free at its x (else ends first).
fn marks(s: &mut String, t: &Timeline, scale: &Scale) {
    let mut free = vec![[0.0f64; 2]; t.lanes.len()];
    let (ticks, labelled): (Vec<&Mark>, Vec<&Mark>) =
        t.marks.iter().partition(|m| is_tick(m.outcome));
    for m in ticks.into_iter().chain(labelled) {
        let Some(i) = t.lanes.iter().position(|l| *l == m.lane) else {
            continue;
        };
        let mid = lane_y(i) + ROW / 2.0;
        let x0 = scale.x(m.from);
        if is_tick(m.outcome) {
            tick(s, m, x0, mid);
            continue;
        }
        let [upper, lower] = free[i];
        let slot = usize::from(upper > x0 && upper > lower);
        free[i][slot] = x0 + 6.0 + CHAR_WIDTH * m.label.chars().count() as f64;
        let text_y = if slot == 0 { mid - 6.0 } else { mid + 13.0 };
        labelled_mark(s, m, (x0, scale.x(m.to)), mid, text_y);
    }
}

/// A log line: a short vertical line, its text as the tooltip.
fn tick(s: &mut String, m: &Mark, x: f64, mid: f64) {
    let _ = writeln!(
        s,
        "<line class=\"tick\" data-outcome=\"{o}\" x1=\"{x:.1}\" y1=\"{a}\" x2=\"{x:.1}\" \
         y2=\"{b}\" stroke=\"{c}\" stroke-width=\"1.5\"><title>{tip}</title></line>",
        o = m.outcome.word(),
        a = mid - 6.0,
        b = mid + 6.0,
        c = colour(m.outcome),
        tip = escape(&m.label)
    );
}

/// A milestone (a dot) or a span (a bar from `x.0` to `x.1`), with its label at `text_y`.
fn labelled_mark(s: &mut String, m: &Mark, x: (f64, f64), mid: f64, text_y: f64) {
    let c = colour(m.outcome);
    let (x0, x1) = x;
    let shape = if x1 - x0 >= 2.0 {
        format!(
            "<rect x=\"{x0:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"8\" rx=\"2\" \
             fill=\"{c}\"/>",
            y = mid - 4.0,
            w = x1 - x0
        )
    } else {
        format!("<circle cx=\"{x0:.1}\" cy=\"{mid:.1}\" r=\"4\" fill=\"{c}\"/>")
    };
    let _ = writeln!(
        s,
        "<g class=\"mark\" data-outcome=\"{o}\" data-lane=\"{lane}\">{shape}<text \
         x=\"{tx:.1}\" y=\"{text_y:.1}\" fill=\"{c}\">{label}</text></g>",
        o = m.outcome.word(),
        lane = escape(&m.lane),
        tx = x0 + 6.0,
        label = escape(&m.label)
    );
}

fn legend(s: &mut String, h: u32) {
    let y = f64::from(h) - BOTTOM + 34.0;
    let mut x = 12.0;
    for o in Outcome::ALL {
        let _ = writeln!(
            s,
            "<rect x=\"{x:.1}\" y=\"{ry:.1}\" width=\"10\" height=\"10\" fill=\"{c}\"/><text \
             x=\"{tx:.1}\" y=\"{y:.1}\">{m}</text>",
            ry = y - 9.0,
            c = colour(o),
            tx = x + 14.0,
            m = escape(meaning(o))
        );
        x += 14.0 + CHAR_WIDTH * meaning(o).len() as f64 + 24.0;
    }
}
