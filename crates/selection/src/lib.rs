//! Shared by every daemon of the project: the kernel network model, its netlink reader and
//! change stream, node-IP selection as pure functions with explanations, the
//! `/run/nodeip-configuration` file contract, and "which interface holds this IP".
//!
//! Behaviour follows OpenShift's baremetal-runtimecfg `node-ip` (see the project's reference
//! documents); every deliberate difference is documented where it is made.

pub mod app;
pub mod atomic;
pub mod default_path;
pub mod envfile;
pub mod filter;
pub mod holder;
pub mod logging;
pub mod model;
pub mod net;
pub mod netlink;
pub mod resolv_conf;
pub mod runfiles;
pub mod select;
#[cfg(test)]
mod select_tests;
pub mod service;
pub mod vip_path;

#[cfg(any(test, feature = "fixtures"))]
pub mod fixture;

pub use model::{Address, Family, Link, Route, Snapshot};
pub use select::{Request, Selection, Source, select};
pub use vip_path::{Target, TargetRole};
