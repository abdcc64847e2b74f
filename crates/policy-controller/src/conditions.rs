//! Turning computed verdicts into `status.conditions` without needless writes: a condition
//! whose status, reason and message are unchanged is kept as it was, timestamps included, so a
//! resync that changes nothing produces the same list and the runtime writes nothing. (Unlike
//! kubernetes-nmstate, the heartbeat moves only when the condition does.)

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use crate::api::Condition;

/// One condition as computed, before timestamps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub type_: &'static str,
    pub status: &'static str,
    pub reason: &'static str,
    pub message: String,
}

/// Longest condition message: a failure says what failed, not the whole state.
pub const MESSAGE_LIMIT: usize = 1024;

/// `text` cut to at most [`MESSAGE_LIMIT`] bytes on a character boundary, marked with `…`.
pub fn bounded(text: &str) -> String {
    if text.len() <= MESSAGE_LIMIT {
        return text.to_owned();
    }
    let mark = "…";
    let mut end = MESSAGE_LIMIT - mark.len();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{mark}", &text[..end])
}

/// The new condition list, in the verdicts' order, reusing `old` entries that did not change.
pub fn update(old: &[Condition], verdicts: &[Verdict], now: &Time) -> Vec<Condition> {
    verdicts
        .iter()
        .map(|v| {
            let before = old.iter().find(|c| c.type_ == v.type_);
            let message = bounded(&v.message);
            if let Some(c) = before
                .filter(|c| c.status == v.status && c.reason == v.reason && c.message == message)
            {
                return c.clone();
            }
            let transition = before
                .filter(|c| c.status == v.status)
                .and_then(|c| c.last_transition_time.clone())
                .unwrap_or_else(|| now.clone());
            Condition {
                type_: v.type_.to_owned(),
                status: v.status.to_owned(),
                reason: v.reason.to_owned(),
                message,
                last_heartbeat_time: Some(now.clone()),
                last_transition_time: Some(transition),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::jiff::Timestamp;

    fn at(second: i64) -> Time {
        Time(Timestamp::from_second(second).unwrap())
    }

    fn verdict(status: &'static str, message: &str) -> Verdict {
        Verdict {
            type_: "Available",
            status,
            reason: "SuccessfullyConfigured",
            message: message.into(),
        }
    }

    #[test]
    fn an_unchanged_condition_keeps_its_timestamps() {
        let first = update(&[], &[verdict("True", "3/3")], &at(10));
        let again = update(&first, &[verdict("True", "3/3")], &at(20));
        assert_eq!(first, again);
    }

    #[test]
    fn a_new_message_moves_the_heartbeat_but_not_the_transition() {
        let first = update(&[], &[verdict("True", "2/3")], &at(10));
        let next = update(&first, &[verdict("True", "3/3")], &at(20));
        assert_eq!(next[0].last_heartbeat_time, Some(at(20)));
        assert_eq!(next[0].last_transition_time, Some(at(10)));
        let flipped = update(&next, &[verdict("False", "3/3")], &at(30));
        assert_eq!(flipped[0].last_transition_time, Some(at(30)));
    }

    #[test]
    fn messages_are_cut_to_one_kilobyte_on_a_character_boundary() {
        let long = "é".repeat(2000);
        let cut = bounded(&long);
        assert!(cut.len() <= MESSAGE_LIMIT && cut.ends_with('…'));
        assert_eq!(bounded("short"), "short");
    }
}
