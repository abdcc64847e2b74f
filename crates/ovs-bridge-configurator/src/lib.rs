//! `ovs-bridge-configurator`: owns the node's host networking through NetworkManager. It
//! replaces configure-ovs.sh (`ovs-configuration.service`): the [`automatic`] conversion builds
//! br-ex around the interface that holds the node IP, keeping upstream's profile names and
//! settings, planned purely and applied inside a NetworkManager checkpoint. A user's NMState
//! (the per-host file at boot or changed by MCO, and `apply-live` on day 2: [`nmstate`]) goes
//! through the one NMState [`engine`]. Each command is a module of [`commands`].
//!
//! Layers, each importing only those below it: [`commands`]; [`automatic`] and [`nmstate`]
//! beside each other; the [`engine`], the [`probe`]s and [`recover`]; NetworkManager's client
//! and profiles ([`nm`]), OVSDB, the bonds, the lock, the [`settings`] and br-ex's names.

pub mod automatic;
pub mod bond;
pub mod br_ex;
pub mod cli;
pub mod commands;
pub mod engine;
pub mod lock;
pub mod nm;
pub mod nmstate;
pub mod node_state;
pub mod outcome;
pub mod ovsdb;
pub mod probe;
pub mod publish;
pub mod recover;
pub mod redact;
pub mod settings;
