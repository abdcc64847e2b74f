//! One question the daemon asks of every failure: is it worth trying again later?
//!
//! Transient failures go away by themselves: keepalived not up yet or restarting, the D-Bus name
//! not there yet, an API server or `keepalived -t` that did not answer this time. Permanent ones
//! need someone to fix an input: a malformed peer list, a configuration keepalived rejects, a
//! unit that does not exist. Each module's error type answers for its own variants.

/// Whether a failure may go away without anyone changing an input.
pub trait Retry {
    fn worth_retrying(&self) -> bool;
}
