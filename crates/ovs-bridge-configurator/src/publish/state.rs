//! The publisher's state, as zincati's agent is built: the loop feeds it what happened (a
//! change seen, a document read, a write's outcome) and asks what is due; every decision
//! (debounce, write only on change, heartbeat, backoff, keep only the latest document) is here,
//! tested without a clock, a network or an API server.

use std::time::Duration;

use tokio::time::Instant;

/// What the loop must do now.
#[derive(Debug, PartialEq, Eq)]
pub enum Action {
    /// Read the node's network and offer the document ([`PublishState::read`]).
    Read,
    /// Lay what the kernel changed over the last read and offer that
    /// ([`PublishState::overlaid`]).
    Overlay,
    /// Write the pending document ([`PublishState::pending`]).
    Write,
    Nothing,
}

/// How a write failed, as far as the state cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// No answer, a timeout, a server error, no kubeconfig yet: the server is away.
    Away,
    /// The server answered no (a 4xx): it will say the same until something changes.
    Refused,
    /// kubernetes-nmstate publishes here: stand aside until the next heartbeat.
    StandAside,
}

/// Exponential backoff from `first` to a cap that depends on why.
#[derive(Debug, Clone)]
pub struct Backoff {
    first: Duration,
    next: Option<Duration>,
}

/// Away: try again soon, so the document arrives shortly after the server is back.
pub const AWAY_CAP: Duration = Duration::from_secs(30);
/// Refused: the same answer is likely; try now and then.
pub const REFUSED_CAP: Duration = Duration::from_secs(300);

impl Backoff {
    pub fn new(first: Duration) -> Backoff {
        Backoff { first, next: None }
    }

    /// The wait before the next attempt after one more failure.
    pub fn fail(&mut self, cap: Duration) -> Duration {
        let wait = self.next.unwrap_or(self.first).min(cap);
        self.next = Some((wait * 2).min(cap));
        wait
    }

    pub fn reset(&mut self) {
        self.next = None;
    }
}

/// The publisher's state.
#[derive(Debug)]
pub struct PublishState<D> {
    debounce: Duration,
    heartbeat: Duration,
    /// A change was seen: read the node at this instant (the debounce window from the first).
    read_at: Option<Instant>,
    /// The kernel changed: lay it over the last read at this instant (the same window).
    overlay_at: Option<Instant>,
    /// The next read must be offered for writing even if unchanged (the heartbeat).
    forced: bool,
    /// The latest document not in the API yet, and when to write it. Only one is kept.
    pending: Option<(D, u64, Instant)>,
    /// The pending write is a heartbeat: a newer document replaces it but is written even if
    /// the API holds the same, or the heartbeat would be lost.
    beat_pending: bool,
    /// What the API holds (fingerprint) and when it was written.
    published: Option<(u64, Instant)>,
    /// When the heartbeat is due if nothing is written before.
    heartbeat_at: Option<Instant>,
    backoff: Backoff,
    /// A read [`Self::due`] started runs since this instant.
    reading: Option<Instant>,
    /// The running read replaced one given up for a change ([`Self::restart_read`]).
    restarted: bool,
    /// How long the last read took.
    last_read: Option<Duration>,
}

impl<D> PublishState<D> {
    /// Reads the node at once (the first document).
    pub fn new(debounce: Duration, heartbeat: Duration, now: Instant) -> PublishState<D> {
        PublishState {
            debounce,
            heartbeat,
            read_at: Some(now),
            overlay_at: None,
            forced: false,
            pending: None,
            beat_pending: false,
            published: None,
            heartbeat_at: None,
            backoff: Backoff::new(Duration::from_millis(500)),
            reading: None,
            restarted: false,
            last_read: None,
        }
    }

    /// Something on the node may have changed: read it once the burst is over. Later changes
    /// within the window join it (the window does not move, so a steady stream of changes
    /// cannot hold the document back).
    pub fn changed(&mut self, now: Instant) {
        if self.read_at.is_none() {
            self.read_at = Some(now + self.debounce);
        }
    }

    /// The kernel changed (a link, an address, a route): besides the read, what it changed is
    /// laid over the last read once the burst is over, while a read may be running.
    pub fn kernel_changed(&mut self, now: Instant) {
        self.changed(now);
        if self.overlay_at.is_none() {
            self.overlay_at = Some(now + self.debounce);
        }
    }

    /// A change was seen while a read runs: whether to give that read up and read again once
    /// the change's window is over, the read having barely begun (less than half as long as
    /// the last one took), so that its document is not stale the moment it is written. A read
    /// that replaced one given up is never given up, so a stream of changes cannot keep the
    /// node from being read.
    pub fn restart_read(&mut self, now: Instant) -> bool {
        let (Some(since), Some(last)) = (self.reading, self.last_read) else {
            return false;
        };
        if self.restarted || now - since >= last / 2 {
            return false;
        }
        self.reading = None;
        self.restarted = true;
        true
    }

    /// A read ended at `now`. Changes seen while it ran are read a debounce after its end, its
    /// document written first (it may already show them); a read offered without
    /// [`Self::due`] satisfies any due one.
    fn end_read(&mut self, now: Instant) {
        match self.reading.take() {
            Some(since) => {
                self.last_read = Some(now - since);
                if let Some(at) = &mut self.read_at {
                    *at = (*at).max(now + self.debounce);
                }
            }
            None => self.read_at = None,
        }
        self.restarted = false;
    }

    /// A document read at `now` with `fingerprint`. Replaces any pending one; written at once
    /// unless it is what the API holds (and no heartbeat is due) or a failure's backoff runs.
    pub fn read(&mut self, doc: D, fingerprint: u64, now: Instant) {
        self.end_read(now);
        // A heartbeat that came due while the node was being read is this read's.
        let beat = self.heartbeat_at.is_some_and(|at| at <= now);
        let forced = std::mem::take(&mut self.forced) || beat;
        self.offer(doc, fingerprint, forced, now);
    }

    /// The last read with the kernel's changes laid over it, at `now`: offered as a read's
    /// document is, leaving a read under way to run.
    pub fn overlaid(&mut self, doc: D, fingerprint: u64, now: Instant) {
        self.offer(doc, fingerprint, false, now);
    }

    fn offer(&mut self, doc: D, fingerprint: u64, forced: bool, now: Instant) {
        let forced = forced || (self.pending.is_some() && self.beat_pending);
        let same = self.published.is_some_and(|(f, _)| f == fingerprint);
        if same && !forced {
            self.pending = None;
            return;
        }
        let at = self
            .pending
            .as_ref()
            .map_or(now, |(_, _, at)| (*at).max(now));
        self.pending = Some((doc, fingerprint, at));
        self.beat_pending = forced;
    }

    /// The node could not be read (NetworkManager away): nothing new to offer.
    pub fn unread(&mut self, now: Instant) {
        self.end_read(now);
    }

    /// The document to write when [`Action::Write`] is due.
    pub fn pending(&self) -> Option<&D> {
        self.pending.as_ref().map(|(d, _, _)| d)
    }

    /// The pending document is in the API, written at `now`.
    pub fn written(&mut self, now: Instant) {
        if let Some((_, f, _)) = self.pending.take() {
            self.published = Some((f, now));
        }
        self.heartbeat_at = Some(now + self.heartbeat);
        self.backoff.reset();
    }

    /// The write failed; returns when it is tried again (none: standing aside, the pending
    /// document is dropped and the next heartbeat looks again).
    pub fn failed(&mut self, why: Failure, now: Instant) -> Option<Instant> {
        let cap = match why {
            Failure::Away => AWAY_CAP,
            Failure::Refused => REFUSED_CAP,
            Failure::StandAside => {
                self.pending = None;
                self.backoff.reset();
                self.heartbeat_at = Some(now + self.heartbeat);
                return None;
            }
        };
        let at = now + self.backoff.fail(cap);
        if let Some((_, _, due)) = &mut self.pending {
            *due = at;
        }
        Some(at)
    }

    /// An input of the writes changed (the kubeconfig): a waiting write is tried now.
    pub fn retry_now(&mut self, now: Instant) {
        if let Some((_, _, due)) = &mut self.pending {
            *due = now;
        }
    }

    /// The next instant something is due (none: wait for an event). While a read runs, only
    /// a write: the next read waits for its end.
    pub fn deadline(&self) -> Option<Instant> {
        let idle = self.reading.is_none();
        [
            self.overlay_at,
            self.read_at.filter(|_| idle),
            self.pending.as_ref().map(|(_, _, at)| *at),
            // A pending write is a heartbeat of its own.
            self.heartbeat_at.filter(|_| self.pending.is_none() && idle),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// What is due at `now`. A read it returns runs until [`Self::read`] or [`Self::unread`].
    pub fn due(&mut self, now: Instant) -> Action {
        let idle = self.reading.is_none();
        if self.overlay_at.is_some_and(|at| at <= now) {
            self.overlay_at = None;
            return Action::Overlay;
        }
        if idle && self.read_at.is_some_and(|at| at <= now) {
            self.start_read(now);
            return Action::Read;
        }
        if self.pending.as_ref().is_some_and(|(_, _, at)| *at <= now) {
            return Action::Write;
        }
        if idle && self.pending.is_none() && self.heartbeat_at.is_some_and(|at| at <= now) {
            self.heartbeat_at = None;
            self.forced = true;
            self.start_read(now);
            return Action::Read;
        }
        Action::Nothing
    }

    fn start_read(&mut self, now: Instant) {
        self.read_at = None;
        self.reading = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEBOUNCE: Duration = Duration::from_millis(300);
    const HEARTBEAT: Duration = Duration::from_secs(600);

    fn s(d: u64) -> Duration {
        Duration::from_secs(d)
    }

    fn ms(d: u64) -> Duration {
        Duration::from_millis(d)
    }

    /// A started state whose first document (fingerprint 1) is in the API.
    fn published(t0: Instant) -> PublishState<&'static str> {
        let mut st = PublishState::new(DEBOUNCE, HEARTBEAT, t0);
        assert_eq!(st.due(t0), Action::Read);
        st.read("first", 1, t0);
        assert_eq!(st.due(t0), Action::Write);
        st.written(t0);
        st
    }

    #[test]
    fn a_burst_of_changes_is_read_once_after_the_window_from_the_first() {
        let t0 = Instant::now();
        let mut st = published(t0);
        st.changed(t0 + ms(10));
        st.changed(t0 + ms(200));
        st.changed(t0 + ms(290));
        assert_eq!(st.deadline(), Some(t0 + ms(310)));
        assert_eq!(st.due(t0 + ms(300)), Action::Nothing);
        assert_eq!(st.due(t0 + ms(310)), Action::Read);
    }

    #[test]
    fn an_unchanged_document_is_not_written() {
        let t0 = Instant::now();
        let mut st = published(t0);
        st.changed(t0 + s(1));
        st.read("same", 1, t0 + s(2));
        assert_eq!(st.pending(), None);
        assert_eq!(st.deadline(), Some(t0 + HEARTBEAT));
    }

    #[test]
    fn an_idle_node_writes_only_the_heartbeat() {
        let t0 = Instant::now();
        let mut st = published(t0);
        assert_eq!(st.deadline(), Some(t0 + HEARTBEAT));
        assert_eq!(st.due(t0 + HEARTBEAT - ms(1)), Action::Nothing);
        assert_eq!(st.due(t0 + HEARTBEAT), Action::Read);
        // The same document, written anyway: it refreshes lastSuccessfulUpdateTime.
        st.read("same", 1, t0 + HEARTBEAT);
        assert_eq!(st.due(t0 + HEARTBEAT), Action::Write);
        st.written(t0 + HEARTBEAT);
        assert_eq!(st.deadline(), Some(t0 + HEARTBEAT * 2));
    }

    #[test]
    fn a_change_resets_the_heartbeat() {
        let t0 = Instant::now();
        let mut st = published(t0);
        st.changed(t0 + s(100));
        st.read("second", 2, t0 + s(100));
        st.written(t0 + s(100));
        assert_eq!(st.deadline(), Some(t0 + s(100) + HEARTBEAT));
    }

    #[test]
    fn while_the_server_is_away_only_the_latest_document_is_kept() {
        let t0 = Instant::now();
        let mut st = published(t0);
        st.changed(t0);
        st.read("second", 2, t0 + s(1));
        assert_eq!(st.due(t0 + s(1)), Action::Write);
        let retry = st.failed(Failure::Away, t0 + s(1)).unwrap();
        assert_eq!(retry, t0 + s(1) + ms(500));
        st.changed(t0 + s(1));
        st.read("third", 3, t0 + s(1) + ms(300));
        // The newer document replaced the older one and waits for the same retry.
        assert_eq!(st.pending(), Some(&"third"));
        assert_eq!(st.due(t0 + s(1) + ms(400)), Action::Nothing);
        assert_eq!(st.due(retry), Action::Write);
        st.written(retry);
        assert_eq!(st.pending(), None);
    }

    #[test]
    fn failures_back_off_to_their_cap_and_a_success_resets() {
        let t0 = Instant::now();
        let mut st = published(t0);
        st.read("second", 2, t0);
        let waits: Vec<Duration> = (0..9)
            .map(|_| st.failed(Failure::Away, t0).unwrap() - t0)
            .collect();
        assert_eq!(waits[..4], [ms(500), s(1), s(2), s(4)]);
        assert_eq!(*waits.last().unwrap(), AWAY_CAP);
        st.written(t0);
        st.read("third", 3, t0);
        assert_eq!(st.failed(Failure::Refused, t0), Some(t0 + ms(500)));
        let refused: Vec<Duration> = (0..12)
            .map(|_| st.failed(Failure::Refused, t0).unwrap() - t0)
            .collect();
        assert_eq!(*refused.last().unwrap(), REFUSED_CAP);
    }

    #[test]
    fn a_document_the_api_holds_after_a_failure_is_not_written_again() {
        let t0 = Instant::now();
        let mut st = published(t0);
        st.read("second", 2, t0);
        st.failed(Failure::Away, t0);
        // The change was undone before the server came back.
        st.read("first again", 1, t0 + s(1));
        assert_eq!(st.pending(), None);
    }

    #[test]
    fn standing_aside_drops_the_document_and_looks_again_at_the_heartbeat() {
        let t0 = Instant::now();
        let mut st: PublishState<&str> = PublishState::new(DEBOUNCE, HEARTBEAT, t0);
        st.read("first", 1, t0);
        assert_eq!(st.failed(Failure::StandAside, t0), None);
        assert_eq!(st.pending(), None);
        assert_eq!(st.deadline(), Some(t0 + HEARTBEAT));
        assert_eq!(st.due(t0 + HEARTBEAT), Action::Read);
        st.read("first", 1, t0 + HEARTBEAT);
        assert_eq!(st.due(t0 + HEARTBEAT), Action::Write);
    }

    #[test]
    fn a_heartbeat_passing_during_a_backoff_does_not_wake_the_loop() {
        let t0 = Instant::now();
        let mut st = published(t0);
        st.read("second", 2, t0 + HEARTBEAT - s(1));
        let retry = st.failed(Failure::Away, t0 + HEARTBEAT - s(1)).unwrap();
        st.failed(Failure::Away, t0 + HEARTBEAT - s(1));
        let retry2 = st.failed(Failure::Away, t0 + HEARTBEAT - s(1)).unwrap();
        assert!(retry < retry2 && retry2 > t0 + HEARTBEAT);
        assert_eq!(st.deadline(), Some(retry2));
        assert_eq!(st.due(t0 + HEARTBEAT), Action::Nothing);
    }

    /// A published state whose last read (at `t0 + 10 s`) took 4 s.
    fn read_for_4_s(t0: Instant) -> PublishState<&'static str> {
        let mut st = published(t0);
        st.changed(t0 + s(10) - DEBOUNCE);
        assert_eq!(st.due(t0 + s(10)), Action::Read);
        st.read("second", 2, t0 + s(14));
        st.written(t0 + s(14));
        st
    }

    #[test]
    fn while_a_read_runs_nothing_else_is_read_and_its_changes_wait_for_its_end() {
        let t0 = Instant::now();
        let mut st = read_for_4_s(t0);
        st.changed(t0 + s(20));
        assert_eq!(st.due(t0 + s(20) + DEBOUNCE), Action::Read);
        st.changed(t0 + s(23));
        // Too late to give the read up (3 s of a 4 s read).
        assert!(!st.restart_read(t0 + s(23)));
        assert_eq!(st.deadline(), None);
        assert_eq!(st.due(t0 + s(24)), Action::Nothing);
        st.read("third", 3, t0 + s(24));
        // Its document is written first; the change seen during it is read a debounce later.
        assert_eq!(st.due(t0 + s(24)), Action::Write);
        st.written(t0 + s(24));
        assert_eq!(st.deadline(), Some(t0 + s(24) + DEBOUNCE));
        assert_eq!(st.due(t0 + s(24) + DEBOUNCE), Action::Read);
    }

    #[test]
    fn a_read_barely_begun_is_given_up_for_a_change_once_in_a_row() {
        let t0 = Instant::now();
        let mut st = read_for_4_s(t0);
        st.changed(t0 + s(20));
        assert_eq!(st.due(t0 + s(20) + DEBOUNCE), Action::Read);
        st.changed(t0 + s(21));
        assert!(st.restart_read(t0 + s(21)));
        assert_eq!(st.due(t0 + s(21)), Action::Nothing);
        assert_eq!(st.due(t0 + s(21) + DEBOUNCE), Action::Read);
        // The read that replaced it runs to its end, whatever changes.
        st.changed(t0 + s(22));
        assert!(!st.restart_read(t0 + s(22)));
        st.read("third", 3, t0 + s(25));
        assert_eq!(st.due(t0 + s(25)), Action::Write);
        st.written(t0 + s(25));
        // Then a read may be given up again.
        assert_eq!(st.due(t0 + s(25) + DEBOUNCE), Action::Read);
        st.changed(t0 + s(26));
        assert!(st.restart_read(t0 + s(26)));
    }

    #[test]
    fn a_heartbeat_due_during_a_read_is_that_reads() {
        let t0 = Instant::now();
        let mut st = read_for_4_s(t0);
        let beat = t0 + s(14) + HEARTBEAT;
        st.changed(beat - s(1) - DEBOUNCE);
        assert_eq!(st.due(beat - s(1)), Action::Read);
        assert_eq!(st.deadline(), None);
        assert_eq!(st.due(beat), Action::Nothing);
        // Unchanged, and written: the heartbeat came due while it ran.
        st.read("second", 2, beat + s(2));
        assert_eq!(st.due(beat + s(2)), Action::Write);
        st.written(beat + s(2));
        assert_eq!(st.deadline(), Some(beat + s(2) + HEARTBEAT));
    }

    #[test]
    fn a_kernel_change_is_laid_over_the_last_read_while_the_next_read_runs() {
        let t0 = Instant::now();
        let mut st = read_for_4_s(t0);
        st.kernel_changed(t0 + s(20));
        st.kernel_changed(t0 + s(20) + ms(100));
        // One window for both: the overlay first, then the read.
        assert_eq!(st.deadline(), Some(t0 + s(20) + DEBOUNCE));
        assert_eq!(st.due(t0 + s(20) + DEBOUNCE), Action::Overlay);
        assert_eq!(st.due(t0 + s(20) + DEBOUNCE), Action::Read);
        st.overlaid("overlaid", 3, t0 + s(20) + DEBOUNCE);
        assert_eq!(st.due(t0 + s(20) + DEBOUNCE), Action::Write);
        st.written(t0 + s(20) + DEBOUNCE);
        // A change during the read: laid over at once, the read left running.
        st.kernel_changed(t0 + s(21));
        assert_eq!(st.due(t0 + s(21) + DEBOUNCE), Action::Overlay);
        st.overlaid("overlaid again", 4, t0 + s(21) + DEBOUNCE);
        assert_eq!(st.due(t0 + s(21) + DEBOUNCE), Action::Write);
        st.written(t0 + s(21) + DEBOUNCE);
        // The read ends with what the overlay showed: nothing to write, the change it saw
        // read again after it.
        st.read("read", 4, t0 + s(24));
        assert_eq!(st.pending(), None);
        assert_eq!(st.due(t0 + s(24) + DEBOUNCE), Action::Read);
    }

    #[test]
    fn an_overlay_the_api_holds_is_not_written_and_a_signal_lays_nothing_over() {
        let t0 = Instant::now();
        let mut st = published(t0);
        st.kernel_changed(t0 + s(1));
        assert_eq!(st.due(t0 + s(1) + DEBOUNCE), Action::Overlay);
        st.overlaid("first", 1, t0 + s(1) + DEBOUNCE);
        assert_eq!(st.pending(), None);
        st.changed(t0 + s(5));
        assert_eq!(st.due(t0 + s(5) + DEBOUNCE), Action::Read);
        assert_eq!(st.due(t0 + s(5) + DEBOUNCE), Action::Nothing);
    }

    #[test]
    fn a_heartbeat_waiting_for_the_api_is_not_dropped_by_an_unchanged_overlay() {
        let t0 = Instant::now();
        let mut st = published(t0);
        assert_eq!(st.due(t0 + HEARTBEAT), Action::Read);
        st.read("same", 1, t0 + HEARTBEAT);
        let retry = st.failed(Failure::Away, t0 + HEARTBEAT).unwrap();
        // A kernel change the document does not show (a pod's veth) while the API is away.
        st.kernel_changed(t0 + HEARTBEAT);
        assert_eq!(st.due(t0 + HEARTBEAT + DEBOUNCE), Action::Overlay);
        st.overlaid("same again", 1, t0 + HEARTBEAT + DEBOUNCE);
        assert_eq!(st.pending(), Some(&"same again"));
        // The change's read starts, and the heartbeat is written at its retry.
        let at = retry.max(t0 + HEARTBEAT + DEBOUNCE);
        assert_eq!(st.due(at), Action::Read);
        assert_eq!(st.due(at), Action::Write);
    }

    #[test]
    fn a_new_kubeconfig_retries_a_waiting_write_at_once() {
        let t0 = Instant::now();
        let mut st: PublishState<&str> = PublishState::new(DEBOUNCE, HEARTBEAT, t0);
        st.read("first", 1, t0);
        st.failed(Failure::Away, t0);
        st.failed(Failure::Away, t0);
        st.retry_now(t0 + ms(10));
        assert_eq!(st.due(t0 + ms(10)), Action::Write);
    }
}
