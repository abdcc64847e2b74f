// SPDX-License-Identifier: Apache-2.0

mod dns;
mod hostname;
mod ifaces;
mod net_state;
mod ovn;
mod ovsdb;
mod route;
mod route_rule;
mod state;
