//! The daemon's loop state as a state machine with pure transitions: what keepalived runs, the
//! candidate waiting for its debounce window, the one keepalived rejected, the mode and a
//! pending migration switch, the bootstrap watchdog's verdict, the `keepalived -t` back-off.
//! [`crate::daemon`] does the I/O and feeds the outcomes back in.

use std::time::Duration;

use tokio::time::Instant;

use crate::debounce::Debounce;
use crate::model::Mode;
use crate::watchdog;

/// Back-off when `keepalived -t` cannot run at all.
const FIRST_VALIDATE_RETRY: Duration = Duration::from_secs(1);
const MAX_VALIDATE_RETRY: Duration = Duration::from_secs(60);

/// What the daemon must do with keepalived after a watchdog event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApiAction {
    Stop,
    Start,
}

#[derive(Debug)]
pub struct MonitorState {
    /// What keepalived runs (or will, once confirmed); a candidate equal to it is not applied.
    live: String,
    mode: Mode,
    pending: Debounce,
    /// The last candidate keepalived rejected: not offered again until the inputs change.
    rejected: Option<String>,
    /// A migration's switch waits for its wall-clock instant.
    switch_at: Option<Instant>,
    /// The bootstrap watchdog has keepalived stopped: files are written, keepalived stays down.
    api_down: bool,
    validate_retry: Duration,
}

impl MonitorState {
    /// `live`: what keepalived runs (empty: nothing confirmed yet); `mode`: the mode to render.
    pub fn new(live: String, mode: Mode, debounce: Duration) -> MonitorState {
        MonitorState {
            live,
            mode,
            pending: Debounce::new(debounce),
            rejected: None,
            switch_at: None,
            api_down: false,
            validate_retry: FIRST_VALIDATE_RETRY,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn live(&self) -> &str {
        &self.live
    }

    /// The mode keepalived runs in, if it runs a file of ours.
    pub fn live_mode(&self) -> Option<Mode> {
        (!self.live.is_empty()).then_some(self.mode)
    }

    /// A freshly built candidate at `now`; returns when it becomes due if it was (re)scheduled.
    /// One equal to the live file or to the rejected one cancels what was pending. The first
    /// file (keepalived runs nothing of ours yet) is due at once: no running VRRP instance can
    /// be disturbed by a flap, and a node without keepalived holds no VIP.
    pub fn candidate(&mut self, text: String, now: Instant) -> Option<Instant> {
        if text == self.live || self.rejected.as_ref() == Some(&text) {
            self.pending.clear();
            self.switch_at = None;
            return None;
        }
        if self.live.is_empty() && self.pending.deadline().is_none() {
            return self.pending.offer_at(text, now);
        }
        self.pending.offer(text, now, self.switch_at)
    }

    /// No candidate could be built: the live file stays, nothing is pending.
    pub fn no_candidate(&mut self) {
        self.pending.clear();
    }

    /// When the pending candidate is due.
    pub fn deadline(&self) -> Option<Instant> {
        self.pending.deadline()
    }

    /// The candidate to validate and apply, once due.
    pub fn due(&mut self, now: Instant) -> Option<String> {
        let text = self.pending.take_due(now)?;
        self.switch_at = None;
        Some(text)
    }

    /// `text` passed `keepalived -t` and was written: keepalived runs it (or will). Returns
    /// whether keepalived should be told (not while the watchdog keeps it stopped).
    pub fn applied(&mut self, text: String) -> bool {
        self.live = text;
        self.rejected = None;
        self.validate_retry = FIRST_VALIDATE_RETRY;
        !self.api_down
    }

    /// `keepalived -t` could not run: nothing is known about `text`, so it is offered again
    /// after a back-off (1 s doubling to 60 s); returns the wait.
    pub fn cannot_validate(&mut self, text: String, now: Instant) -> Duration {
        let wait = self.validate_retry;
        self.pending.offer(text, now, Some(now + wait));
        self.validate_retry = (wait * 2).min(MAX_VALIDATE_RETRY);
        wait
    }

    /// keepalived rejected `text`; the mode goes back to the live file's (`live_mode`), so a
    /// rejected migration switch does not leave the mode switched.
    pub fn rejected(&mut self, text: String, live_mode: Mode) {
        self.rejected = Some(text);
        self.mode = live_mode;
    }

    /// A migration switch to `to`, applied no earlier than `at`.
    pub fn switch(&mut self, to: Mode, at: Instant) {
        self.mode = to;
        self.switch_at = Some(at);
    }

    /// A bootstrap watchdog event: what to do with keepalived, if anything.
    pub fn api(&self, event: watchdog::Event) -> Option<ApiAction> {
        match event {
            watchdog::Event::Stop if !self.api_down => Some(ApiAction::Stop),
            watchdog::Event::Stop => None,
            watchdog::Event::Start => Some(ApiAction::Start),
        }
    }

    /// keepalived was stopped (`true`) or started again for the watchdog.
    pub fn set_api_down(&mut self, down: bool) {
        self.api_down = down;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: Duration = Duration::from_millis(300);

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn state(live: &str) -> MonitorState {
        MonitorState::new(live.into(), Mode::Unicast, WINDOW)
    }

    #[test]
    fn a_changed_candidate_is_due_after_the_window_and_the_live_one_never() {
        let t0 = Instant::now();
        let mut s = state("old");
        assert_eq!(
            s.candidate("old".into(), t0),
            None,
            "equal to the live file"
        );
        assert_eq!(s.deadline(), None);
        assert_eq!(s.candidate("new".into(), t0), Some(t0 + WINDOW));
        assert_eq!(
            s.candidate("new".into(), t0 + ms(100)),
            None,
            "same text keeps its deadline"
        );
        assert_eq!(s.due(t0 + ms(299)), None);
        assert_eq!(s.due(t0 + WINDOW).as_deref(), Some("new"));
        assert!(s.applied("new".into()));
        assert_eq!(s.candidate("new".into(), t0 + ms(400)), None);
        assert_eq!(s.live_mode(), Some(Mode::Unicast));
    }

    #[test]
    fn the_first_file_is_due_at_once_and_later_changes_wait() {
        let t0 = Instant::now();
        let mut s = state("");
        assert_eq!(s.candidate("first".into(), t0), Some(t0));
        assert_eq!(
            s.candidate("second".into(), t0 + ms(10)),
            Some(t0 + ms(310))
        );
        assert_eq!(s.due(t0 + ms(310)).as_deref(), Some("second"));
        s.applied("second".into());
        assert_eq!(
            s.candidate("third".into(), t0 + ms(400)),
            Some(t0 + ms(700))
        );
    }

    #[test]
    fn flapping_restarts_the_window_and_going_back_cancels() {
        let t0 = Instant::now();
        let mut s = state("old");
        s.candidate("a".into(), t0);
        assert_eq!(s.candidate("b".into(), t0 + ms(200)), Some(t0 + ms(500)));
        assert_eq!(s.candidate("old".into(), t0 + ms(250)), None);
        assert_eq!(s.deadline(), None, "back to the live file: nothing pending");
        s.candidate("a".into(), t0 + ms(300));
        s.no_candidate();
        assert_eq!(s.deadline(), None, "inputs unusable: the live file stays");
    }

    #[test]
    fn a_rejected_candidate_is_not_offered_again_but_a_different_one_is() {
        let t0 = Instant::now();
        let mut s = state("old");
        s.candidate("bad".into(), t0);
        let text = s.due(t0 + WINDOW).unwrap();
        s.rejected(text, Mode::Unicast);
        assert_eq!(s.candidate("bad".into(), t0 + ms(400)), None);
        assert_eq!(s.candidate("good".into(), t0 + ms(500)), Some(t0 + ms(800)));
        s.due(t0 + ms(800));
        s.applied("good".into());
        assert_eq!(
            s.candidate("bad".into(), t0 + ms(900)),
            Some(t0 + ms(1200)),
            "after a success, inputs that come back are tried again"
        );
    }

    #[test]
    fn keepalived_t_that_cannot_run_backs_off_up_to_a_minute() {
        let t0 = Instant::now();
        let mut s = state("old");
        s.candidate("new".into(), t0);
        let mut now = t0 + WINDOW;
        let mut waits = Vec::new();
        for _ in 0..8 {
            let text = s.due(now).expect("offered again");
            let wait = s.cannot_validate(text, now);
            waits.push(wait.as_secs());
            now += wait;
        }
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60]);
        let text = s.due(now).unwrap();
        s.applied(text);
        s.candidate("newer".into(), now);
        let text = s.due(now + WINDOW).unwrap();
        assert_eq!(
            s.cannot_validate(text, now).as_secs(),
            1,
            "reset by a success"
        );
    }

    #[test]
    fn a_switch_waits_for_its_instant_and_a_rejected_switch_keeps_the_live_mode() {
        let t0 = Instant::now();
        let mut s = state("unicast file");
        s.switch(Mode::Multicast, t0 + ms(5000));
        assert_eq!(s.mode(), Mode::Multicast);
        assert_eq!(
            s.candidate("multicast file".into(), t0),
            Some(t0 + ms(5000)),
            "held back to the synchronised instant"
        );
        let text = s.due(t0 + ms(5000)).unwrap();
        s.rejected(text, Mode::Unicast);
        assert_eq!(s.mode(), Mode::Unicast);
        assert_eq!(
            s.candidate("other".into(), t0 + ms(6000)),
            Some(t0 + ms(6300)),
            "the switch instant no longer holds later candidates"
        );
    }

    #[test]
    fn the_watchdog_stops_once_and_an_applied_file_waits_for_the_api() {
        let mut s = state("");
        assert_eq!(s.live_mode(), None);
        assert_eq!(s.api(watchdog::Event::Stop), Some(ApiAction::Stop));
        s.set_api_down(true);
        assert_eq!(s.api(watchdog::Event::Stop), None, "already stopped");
        assert!(
            !s.applied("conf".into()),
            "written, keepalived stays stopped"
        );
        assert_eq!(s.api(watchdog::Event::Start), Some(ApiAction::Start));
        s.set_api_down(false);
        assert!(s.applied("conf2".into()));
    }
}
