// SPDX-License-Identifier: Apache-2.0

use super::super::{NmSettingIpVlan, ToKeyfile};

impl ToKeyfile for NmSettingIpVlan {}
