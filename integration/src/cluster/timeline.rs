//! The boot's timeline: every daemon's log line, placed by its own timestamp.

use std::time::{Duration, SystemTime};

/// One line of the boot's timeline.
#[derive(Clone, Debug)]
pub struct Event {
    /// Since the cluster started.
    pub at: Duration,
    pub node: u8,
    pub source: String,
    pub what: String,
}

/// The timestamped lines of a daemon's log `text` (tracing's format) on node `node` as events,
/// placed relative to `start`; lines without a timestamp, or from before `start`, are left out.
pub fn log_events(text: &str, node: u8, source: &str, start: SystemTime) -> Vec<Event> {
    text.lines()
        .filter_map(|l| {
            let (stamp, rest) = l.split_once(' ')?;
            let at = parse_utc(stamp)?.duration_since(start).ok()?;
            Some(Event {
                at,
                node,
                source: source.to_owned(),
                what: rest.trim().to_owned(),
            })
        })
        .collect()
}

/// `2026-11-21T12:13:29.694569Z` (tracing's default timestamp) as a time.
pub fn parse_utc(s: &str) -> Option<SystemTime> {
    let s = s.strip_suffix('Z')?;
    let (date, time) = s.split_once('T')?;
    let mut d = date.split('-').map(|p| p.parse::<i64>());
    let (y, m, day) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
    let mut t = time.split(':');
    let (h, min) = (
        t.next()?.parse::<u64>().ok()?,
        t.next()?.parse::<u64>().ok()?,
    );
    let sec: f64 = t.next()?.parse().ok()?;
    // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = u64::try_from(era * 146_097 + doe - 719_468).ok()?;
    let secs = days * 86_400 + h * 3_600 + min * 60;
    Some(SystemTime::UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_secs_f64(sec))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tracing_timestamps() {
        let t = parse_utc("2026-11-21T12:13:29.5Z").unwrap();
        let secs = t
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        // date -u -d 2026-11-21T12:13:29Z +%s
        assert_eq!(secs, 1_795_263_209.5);
        assert!(parse_utc("12:13:29").is_none());
        assert!(parse_utc("INFO").is_none());
    }
}
