//! Reading the kernel's network state over rtnetlink: consistent snapshots for selection and a
//! coalesced change stream for daemons that follow the node IP.
//!
//! A netlink socket belongs to the network namespace of the thread that created it; create
//! readers after any `setns()`, outside a multi-threaded runtime (or run under `ip netns exec`).

mod changes;
pub mod convert;
mod reader;

pub use changes::{ChangeStream, Changes};
pub use reader::NetlinkReader;

/// A failure to talk to the kernel.
#[derive(Debug, thiserror::Error)]
pub enum NetlinkError {
    #[error("cannot open a netlink socket: {0}")]
    Socket(#[source] std::io::Error),
    #[error("netlink request failed: {0}")]
    Request(#[source] rtnetlink::Error),
    #[error("the kernel refused the {what} dump: {source}")]
    Kernel {
        what: &'static str,
        source: std::io::Error,
    },
    #[error("the {what} dump was interrupted by changes {attempts} times in a row")]
    Inconsistent { what: &'static str, attempts: u32 },
}
