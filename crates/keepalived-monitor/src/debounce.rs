//! Debounce: a changed configuration is applied only once it has stayed the same for the
//! window (upstream needed three identical 10-second samples). A flapping input keeps restarting
//! the window, so it never causes a reload storm.

use std::time::Duration;

use tokio::time::Instant;

/// The candidate waiting for its window to pass.
#[derive(Debug)]
pub struct Debounce {
    window: Duration,
    pending: Option<(String, Instant)>,
}

impl Debounce {
    pub fn new(window: Duration) -> Debounce {
        Debounce {
            window,
            pending: None,
        }
    }

    /// A freshly built candidate at `now`. A different text (re)starts the window; the same
    /// text keeps its deadline. `not_before` holds the apply back further (a migration's
    /// wall-clock instant). Returns the deadline when it changed.
    pub fn offer(
        &mut self,
        text: String,
        now: Instant,
        not_before: Option<Instant>,
    ) -> Option<Instant> {
        if self.pending.as_ref().is_some_and(|(p, _)| *p == text) {
            return None;
        }
        let due = (now + self.window).max(not_before.unwrap_or(now));
        self.pending = Some((text, due));
        Some(due)
    }

    /// A candidate due at `at`, without a window (the first file).
    pub fn offer_at(&mut self, text: String, at: Instant) -> Option<Instant> {
        self.pending = Some((text, at));
        Some(at)
    }

    /// Nothing to apply (the candidate equals the live file, or cannot be built).
    pub fn clear(&mut self) {
        self.pending = None;
    }

    /// When the pending candidate becomes due.
    pub fn deadline(&self) -> Option<Instant> {
        self.pending.as_ref().map(|(_, d)| *d)
    }

    /// The candidate, once due at `now`.
    pub fn take_due(&mut self, now: Instant) -> Option<String> {
        if self.deadline().is_some_and(|d| d <= now) {
            self.pending.take().map(|(t, _)| t)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: Duration = Duration::from_millis(300);

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn applies_once_stable_for_the_window() {
        let t0 = Instant::now();
        let mut d = Debounce::new(WINDOW);
        assert_eq!(d.offer("a".into(), t0, None), Some(t0 + WINDOW));
        assert_eq!(
            d.offer("a".into(), t0 + ms(200), None),
            None,
            "same text: same deadline"
        );
        assert_eq!(d.take_due(t0 + ms(299)), None);
        assert_eq!(d.take_due(t0 + ms(300)).as_deref(), Some("a"));
        assert_eq!(d.deadline(), None);
    }

    #[test]
    fn flapping_inputs_never_become_due() {
        let t0 = Instant::now();
        let mut d = Debounce::new(WINDOW);
        for i in 0..50u64 {
            let now = t0 + ms(i * 100);
            let text = if i % 2 == 0 { "a" } else { "b" };
            assert_eq!(
                d.take_due(now),
                None,
                "nothing applied while flapping (step {i})"
            );
            d.offer(text.into(), now, None);
        }
        let last = t0 + ms(49 * 100);
        assert_eq!(
            d.take_due(last + WINDOW).as_deref(),
            Some("b"),
            "the settled value, once"
        );
    }

    #[test]
    fn a_migration_instant_holds_the_apply_back_and_clear_drops_it() {
        let t0 = Instant::now();
        let mut d = Debounce::new(WINDOW);
        let at = t0 + Duration::from_secs(30);
        assert_eq!(d.offer("unicast".into(), t0, Some(at)), Some(at));
        assert_eq!(d.take_due(t0 + ms(300)), None);
        assert_eq!(d.take_due(at).as_deref(), Some("unicast"));
        d.offer("x".into(), t0, Some(t0));
        d.clear();
        assert_eq!(d.take_due(t0 + Duration::from_secs(60)), None);
    }
}
