//! keepalived's mode files (`/etc/keepalived/monitor.conf`, `monitor-user.conf`). Properties:
//! never panics; `unicast` only for a mapping whose `mode` is the string `unicast`.

use keepalived_monitor::apply::parse_mode;
use keepalived_monitor::model::Mode;

pub fn check(data: &[u8]) {
    let Some(text) = crate::text(data) else {
        return;
    };
    if matches!(parse_mode(text), Ok(Mode::Unicast)) {
        assert!(
            text.contains("mode"),
            "unicast without a mode key: {text:?}"
        );
    }
}
