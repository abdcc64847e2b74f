//! `apply-live FILE`: a desired NMState applied to the running node now, committed or rolled
//! back; says how long it took.

use std::process::ExitCode;
use std::time::Duration;

use crate::cli::ApplyLiveArgs;
use crate::commands::desired::read_desired;
use crate::commands::failure::failure;
use crate::engine::change::Lasting;
use crate::nmstate::live;
use crate::settings::Settings;

pub async fn exec(s: &Settings, args: &ApplyLiveArgs) -> anyhow::Result<ExitCode> {
    let desired = read_desired(&args.file)?;
    let options = live::Options {
        force: args.force,
        // The flag only: a config file's `persist` (or NM_CONN_SET_PATH) is about br-ex's
        // profiles, not about keeping a day-2 change.
        lasting: if args.settings.persist {
            Lasting::Persistent
        } else {
            Lasting::UntilReboot
        },
        lock_wait: Duration::from_secs(args.lock_wait_secs),
    };
    let took = live::apply_live(s, &desired, options)
        .await
        .map_err(failure)?;
    tracing::info!(
        "{} applied and committed in {:.2}s",
        desired.origin,
        took.as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
