//! One module per command: each reads its input, calls the library below and prints its output.
//! How a failure becomes an exit code is decided once, in [`failure`].

pub mod apply;
pub mod apply_live;
pub mod apply_nmstate;
pub mod boot_run;
pub mod collect;
pub mod desired;
pub mod diff;
pub mod failure;
pub mod keep_undo;
pub mod node_event;
pub mod plan;
pub mod publish_state;
pub mod rollback;
pub mod show;
pub mod status;

use std::path::Path;
use std::process::ExitCode;

use crate::cli::{Cli, Command};
use crate::settings::{DEFAULT_CONFIG, resolve};

/// Runs the command `cli` names.
pub fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    let s = resolve(cli.command.settings(), Path::new(DEFAULT_CONFIG))?;
    let rt = selection::service::runtime()?;
    rt.block_on(async {
        match &cli.command {
            Command::Apply(_) => apply::exec(&s).await,
            Command::ApplyNmstate { live, .. } => apply_nmstate::exec(&s, *live).await,
            Command::Plan { json, .. } => plan::exec(&s, *json).await,
            Command::Rollback(_) => rollback::exec(&s).await,
            Command::Status(_) => status::exec(&s).await,
            Command::ApplyLive(args) => apply_live::exec(&s, args).await,
            Command::Show {
                node_network_state, ..
            } => show::exec(&s, *node_network_state).await,
            Command::Diff { file, .. } => diff::exec(&s, file).await,
            Command::Collect { dir, .. } => collect::exec(&s, dir.as_deref()).await,
            Command::PublishState(args) => publish_state::exec(&s, args).await,
            Command::KeepUndo(_) => keep_undo::exec(&s).await,
        }
    })
}
