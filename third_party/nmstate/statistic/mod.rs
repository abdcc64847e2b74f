// SPDX-License-Identifier: Apache-2.0

mod feature;
mod inter_ifaces;
mod ip;
mod net_state;

pub use self::{feature::NmstateFeature, net_state::NmstateStatistic};
