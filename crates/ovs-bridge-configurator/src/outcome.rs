//! What a successful boot-time run did: the automatic conversion's result or the NMState
//! file's, reported the same way by either command.

/// What a successful run did.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The user's NMState file was applied and recorded.
    DeclarativeApplied,
    /// `/etc/nmstate/openshift/applied` exists and nothing is pending: NMState owns br-ex.
    Declarative,
    /// `apply-nmstate` found no NMState file: the automatic mode builds br-ex.
    NoNmstateFile,
    /// br-ex already carried the node IP and every profile was active.
    AlreadyConverted,
    Converted {
        interface: String,
    },
}
