//! The NMState front ends: the per-host file at boot and on MCO's restart ([`per_host`]), the
//! node's policies on top of br-ex at boot and on MCO's restart ([`policies`]) and `apply-live`
//! ([`live`]). Each parses and guards its input, hands it to the
//! [`engine`](crate::engine) with its [`checks`], and says what happened.

pub mod checks;
pub mod error;
pub mod live;
pub mod per_host;
pub mod policies;
pub mod rolled_back;

pub use error::DeclarativeError;
