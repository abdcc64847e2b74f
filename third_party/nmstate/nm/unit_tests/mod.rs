// SPDX-License-Identifier: Apache-2.0

#[cfg(test)]
mod profiles;
