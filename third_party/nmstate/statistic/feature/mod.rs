// SPDX-License-Identifier: Apache-2.0

mod dns;
mod ethernet;
mod features;
mod hostname;
mod iface;
mod inter_ifaces;
mod ip;
mod ovs;
mod route;
mod route_rule;

pub use self::features::NmstateFeature;
