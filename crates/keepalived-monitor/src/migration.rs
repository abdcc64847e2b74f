//! Unicast <-> multicast migration (reference §4.5): the desired mode comes from the mode files;
//! it is checked at wall-clock 10-minute boundaries, only acted on when no upgrade is running,
//! and applied on every node at the same wall-clock instant, the next 5-minute mark. Pure over
//! an injected clock; the daemon feeds it `SystemTime::now()`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::model::Mode;

const CHECK_PERIOD: Duration = Duration::from_secs(600);
const SWITCH_GRID: Duration = Duration::from_secs(300);
const LEAD: Duration = Duration::from_secs(300);
/// How long before the switch instant the new configuration is built and validated (upstream's
/// processing lead time), so that the reload itself lands on the instant.
pub const PREPARE: Duration = Duration::from_secs(30);

fn secs(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// `t + LEAD` rounded to the nearest multiple of `grid`, ties up (Go's `Time.Round`).
fn lead_rounded(t: SystemTime, grid: Duration) -> SystemTime {
    let (t, grid) = (secs(t) + LEAD.as_secs(), grid.as_secs());
    UNIX_EPOCH + Duration::from_secs((t + grid / 2) / grid * grid)
}

/// The mode a rendered file uses: unicast iff it has a `unicast_peer` block (upstream's test).
/// Unlike upstream, a file without any instance tells nothing: upstream reads it as multicast,
/// so a node restarted while absent from the peer list would flip to multicast for good.
pub fn mode_of(rendered: &str) -> Option<Mode> {
    if rendered.contains("unicast_peer") {
        Some(Mode::Unicast)
    } else if rendered.contains("vrrp_instance") {
        Some(Mode::Multicast)
    } else {
        // No instance (the node is in no peer list yet): the file says nothing about the mode.
        None
    }
}

/// What the daemon must do after [`Migration::tick`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Nothing yet; wake again at [`Migration::wake_at`].
    Wait,
    /// Build the configuration in `mode` now and reload keepalived with it exactly at `at`.
    Switch { at: SystemTime, mode: Mode },
}

/// The migration schedule of one node.
#[derive(Debug)]
pub struct Migration {
    next_check: SystemTime,
    planned: Option<(SystemTime, Mode)>,
}

impl Migration {
    /// The first check is at now + 5 minutes rounded to 10 minutes, then every 10 minutes.
    pub fn new(now: SystemTime) -> Migration {
        Migration {
            next_check: lead_rounded(now, CHECK_PERIOD),
            planned: None,
        }
    }

    /// When the daemon must call [`Migration::tick`] next.
    pub fn wake_at(&self) -> SystemTime {
        match self.planned {
            Some((at, _)) => at.checked_sub(PREPARE).unwrap_or(at),
            None => self.next_check,
        }
    }

    /// Advances the schedule to `now`. `current` is the mode of the live file (`None` before the
    /// first render: nothing to migrate); `upgrade_running` is only asked at a check that would
    /// switch, and an error counts as running (retry at the next check).
    pub fn tick<E: std::fmt::Display>(
        &mut self,
        now: SystemTime,
        current: Option<Mode>,
        desired: Mode,
        upgrade_running: impl FnOnce() -> Result<bool, E>,
    ) -> Step {
        if let Some((at, mode)) = self.planned {
            if now + PREPARE < at {
                return Step::Wait;
            }
            self.planned = None;
            return Step::Switch { at, mode };
        }
        if now < self.next_check {
            return Step::Wait;
        }
        while self.next_check <= now {
            self.next_check += CHECK_PERIOD;
        }
        let Some(current) = current.filter(|c| *c != desired) else {
            return Step::Wait;
        };
        match upgrade_running() {
            Ok(false) => {
                let at = lead_rounded(now, SWITCH_GRID);
                tracing::info!("switching from {current:?} to {desired:?} at {at:?} (all nodes)");
                self.planned = Some((at, desired));
            }
            Ok(true) => {
                tracing::info!("{desired:?} mode requested; waiting for the upgrade to end")
            }
            Err(e) => tracing::warn!("{desired:?} mode requested; cannot tell upgrade state: {e}"),
        }
        Step::Wait
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(h: u64, m: u64, s: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_790_000_000 / 86400 * 86400 + h * 3600 + m * 60 + s)
    }

    fn ok(b: bool) -> impl FnOnce() -> Result<bool, std::io::Error> {
        move || Ok(b)
    }

    #[test]
    fn checks_land_on_ten_minute_boundaries() {
        assert_eq!(Migration::new(at(15, 1, 0)).wake_at(), at(15, 10, 0));
        assert_eq!(
            Migration::new(at(15, 0, 0)).wake_at(),
            at(15, 10, 0),
            "ties round up"
        );
        assert_eq!(Migration::new(at(14, 54, 59)).wake_at(), at(15, 0, 0));
        let mut m = Migration::new(at(15, 1, 0));
        assert_eq!(
            m.tick(at(15, 9, 59), Some(Mode::Unicast), Mode::Unicast, ok(false)),
            Step::Wait
        );
        assert_eq!(m.wake_at(), at(15, 10, 0), "not yet due");
        m.tick(at(15, 10, 0), Some(Mode::Unicast), Mode::Unicast, ok(false));
        assert_eq!(m.wake_at(), at(15, 20, 0));
        m.tick(at(15, 41, 7), Some(Mode::Unicast), Mode::Unicast, ok(false));
        assert_eq!(
            m.wake_at(),
            at(15, 50, 0),
            "a late wake-up (suspend) skips missed checks"
        );
    }

    #[test]
    fn switches_at_the_next_five_minute_mark_prepared_thirty_seconds_before() {
        let mut m = Migration::new(at(14, 57, 0));
        assert_eq!(
            m.tick(
                at(15, 0, 0),
                Some(Mode::Multicast),
                Mode::Unicast,
                ok(false)
            ),
            Step::Wait
        );
        assert_eq!(m.wake_at(), at(15, 4, 30));
        assert_eq!(
            m.tick(
                at(15, 4, 29),
                Some(Mode::Multicast),
                Mode::Unicast,
                ok(false)
            ),
            Step::Wait
        );
        assert_eq!(
            m.tick(
                at(15, 4, 30),
                Some(Mode::Multicast),
                Mode::Unicast,
                ok(false)
            ),
            Step::Switch {
                at: at(15, 5, 0),
                mode: Mode::Unicast
            }
        );
        assert_eq!(m.wake_at(), at(15, 10, 0), "back to the 10-minute checks");
    }

    #[test]
    fn nodes_with_slightly_different_clocks_pick_the_same_instant() {
        let plan = |now| {
            let mut m = Migration::new(now - Duration::from_secs(600));
            m.tick(now, Some(Mode::Unicast), Mode::Multicast, ok(false));
            m.wake_at()
        };
        assert_eq!(plan(at(15, 10, 3)), plan(at(15, 9, 58)));
        assert_eq!(plan(at(15, 10, 3)), at(15, 14, 30));
    }

    #[test]
    fn no_switch_when_not_needed_before_the_first_render_or_during_an_upgrade() {
        let mut m = Migration::new(at(14, 57, 0));
        let mut asked = false;
        let probe = |asked: &mut bool| {
            *asked = true;
            Ok::<_, std::io::Error>(false)
        };
        m.tick(at(15, 0, 0), Some(Mode::Unicast), Mode::Unicast, || {
            probe(&mut asked)
        });
        assert!(
            !asked,
            "the upgrade state is only asked when a switch is wanted"
        );
        assert_eq!(m.wake_at(), at(15, 10, 0));
        m.tick(at(15, 10, 0), None, Mode::Unicast, ok(false));
        assert_eq!(
            m.wake_at(),
            at(15, 20, 0),
            "no live file yet: nothing to migrate"
        );
        m.tick(
            at(15, 20, 0),
            Some(Mode::Multicast),
            Mode::Unicast,
            ok(true),
        );
        assert_eq!(
            m.wake_at(),
            at(15, 30, 0),
            "upgrade running: retry at the next check"
        );
        m.tick(at(15, 30, 0), Some(Mode::Multicast), Mode::Unicast, || {
            Err(std::io::Error::other("no peers"))
        });
        assert_eq!(
            m.wake_at(),
            at(15, 40, 0),
            "unknown upgrade state counts as running"
        );
        m.tick(
            at(15, 40, 0),
            Some(Mode::Multicast),
            Mode::Unicast,
            ok(false),
        );
        assert_eq!(m.wake_at(), at(15, 44, 30));
    }

    #[test]
    fn mode_of_a_rendered_file() {
        assert_eq!(
            mode_of("vrrp_instance x {\n    unicast_peer {\n"),
            Some(Mode::Unicast)
        );
        assert_eq!(mode_of("vrrp_instance x {\n}\n"), Some(Mode::Multicast));
        // A file with only global settings and scripts: no instance to tell the mode by.
        assert_eq!(mode_of("global_defs {\n}\nvrrp_script chk {\n}\n"), None);
    }
}
