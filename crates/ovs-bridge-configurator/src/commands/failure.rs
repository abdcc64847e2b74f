//! The one mapping from a failed command to its exit code: bad input exits 2 (a usage error),
//! any other failure 1.

use selection::app::UsageError;

use crate::commands::boot_run::RunError;
use crate::nmstate::live::LiveError;

/// An error that is either the input's fault or the run's.
pub trait Failure: std::error::Error + Send + Sync + 'static {
    /// Bad input: the state or file itself is wrong, and waiting or retrying changes nothing.
    fn is_bad_input(&self) -> bool;
}

impl Failure for RunError {
    fn is_bad_input(&self) -> bool {
        RunError::is_bad_input(self)
    }
}

impl Failure for LiveError {
    fn is_bad_input(&self) -> bool {
        LiveError::is_bad_input(self)
    }
}

/// A failed command as its error: bad input as a usage error, the rest as it is.
pub fn failure<E: Failure>(e: E) -> anyhow::Error {
    if e.is_bad_input() {
        UsageError(e.to_string()).into()
    } else {
        e.into()
    }
}
