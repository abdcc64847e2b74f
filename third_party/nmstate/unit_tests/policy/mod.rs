// SPDX-License-Identifier: Apache-2.0

#[cfg(test)]
mod capture;
#[cfg(test)]
mod error;
#[cfg(test)]
mod example;
#[cfg(test)]
mod net_policy;
#[cfg(test)]
mod token;
