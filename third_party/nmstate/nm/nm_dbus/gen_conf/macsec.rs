// SPDX-License-Identifier: Apache-2.0

use super::super::{NmSettingMacSec, ToKeyfile};

impl ToKeyfile for NmSettingMacSec {}
