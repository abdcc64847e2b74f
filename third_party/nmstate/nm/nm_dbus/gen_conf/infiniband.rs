// SPDX-License-Identifier: Apache-2.0

use super::super::{NmSettingInfiniBand, ToKeyfile};

impl ToKeyfile for NmSettingInfiniBand {}
