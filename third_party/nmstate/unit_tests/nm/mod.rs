// SPDX-License-Identifier: Apache-2.0

#[cfg(test)]
mod dns;
#[cfg(test)]
mod route;
#[cfg(test)]
mod route_rule;
