//! The one engine every NMState path shares: the boot-time `apply-nmstate`, the
//! `apply-nmstate --live` MCO's restart of its unit runs, and `apply-live`. It parses
//! ([`desired`]) and guards ([`guard`]) a desired state, applies it inside a NetworkManager
//! checkpoint kept alive as a dead man's switch ([`checkpoint`]), writing and reapplying or
//! adding the profiles itself for the changes [`reapply`] covers (its module documentation lists
//! them; [`profile_change`], [`profile_new`], [`profile_ovs`] and [`plan_ports`] write them) and
//! verifying them in the kernel ([`in_kernel`]), then runs the caller's checks and commits or
//! undoes the change ([`change`], [`undo`]); a process left behind undoes it the same way if
//! the change's own process is killed before that ([`keeper`]). It reads nmstate's states
//! through [`state`], and writes NetworkManager's settings through [`crate::nm::setting`].
//!
//! Imports go one way: the NMState front ends (`crate::nmstate`) import the engine and bring
//! their checks; the engine imports NetworkManager's client and profiles, the bonds' state,
//! br-ex's name and the change lock, nothing above them.

pub mod change;
pub mod checkpoint;
pub mod desired;
pub mod detach;
pub mod dns;
pub mod guard;
pub mod in_kernel;
pub mod keeper;
pub mod kernel_kinds;
pub mod plan_ports;
pub mod profile_change;
pub mod profile_new;
pub mod profile_ovs;
pub mod reapply;
pub mod state;
pub mod undo;
