// SPDX-License-Identifier: Apache-2.0

mod base;
mod ethernet;
mod iface;
mod inter_ifaces;
