// SPDX-License-Identifier: Apache-2.0

mod db;
mod global_conf;
mod json_rpc;
mod method;
mod operation;
mod show;

pub(crate) use show::{ovsdb_is_running, ovsdb_retrieve};

pub(crate) use self::{
    db::{
        DEFAULT_OVS_DB_SOCKET_PATH, OVS_DB_NAME, OvsDbCondition,
        OvsDbConnection,
    },
    global_conf::ovsdb_apply_global_conf,
    method::{OvsDbMethodEcho, OvsDbMethodTransact},
    operation::{
        OvsDbMutate, OvsDbMutation, OvsDbOperation, OvsDbSelect, OvsDbUpdate,
    },
};
