// SPDX-License-Identifier: Apache-2.0

pub(crate) mod device;
