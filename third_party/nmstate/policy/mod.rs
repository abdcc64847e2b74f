// SPDX-License-Identifier: Apache-2.0

pub(crate) mod capture;
mod iface;
mod json;
mod net_policy;
mod route;
mod route_rule;
mod template;
pub(crate) mod token;

pub use self::{
    capture::NetworkCaptureRules, net_policy::NetworkPolicy,
    template::NetworkStateTemplate,
};
