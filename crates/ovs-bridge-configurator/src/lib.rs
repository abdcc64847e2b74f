//! `ovs-bridge-configurator`: replaces configure-ovs.sh (`ovs-configuration.service`). It keeps
//! its profile names and settings, but talks to NetworkManager over D-Bus, plans purely
//! ([`plan`]), applies inside an NM checkpoint and verifies through netlink ([`apply`]). A
//! user's NMState (the per-host file at boot or changed by MCO, [`declarative`]; `apply-live`,
//! [`live`]) goes through the one NMState [`engine`]; [`boot`] picks between the two at boot.

pub mod apply;
pub mod bond;
pub mod boot;
pub mod cli;
pub mod collect;
pub mod declarative;
pub mod engine;
pub mod live;
pub mod live_failure;
pub mod lock;
pub mod nic;
pub mod nm;
pub mod node_event;
pub mod node_state;
pub mod outcome;
pub mod ovsdb;
pub mod plan;
pub mod probe;
pub mod profile;
pub mod recover;
pub mod redact;
pub mod settings;
pub mod troubleshoot;

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use selection::netlink::NetlinkReader;

use crate::cli::{Cli, Command};
use crate::nm::Nm;
use crate::settings::{DEFAULT_CONFIG, Settings, resolve};

/// Runs one command.
pub fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    let s = resolve(cli.command.settings(), Path::new(DEFAULT_CONFIG))?;
    let rt = selection::service::runtime()?;
    rt.block_on(async {
        match &cli.command {
            Command::Apply(_) => apply_with_retry(&s, "apply", boot::apply).await,
            Command::ApplyNmstate { live: false, .. } => {
                apply_with_retry(&s, "apply-nmstate", boot::apply_nmstate).await
            }
            Command::ApplyNmstate { live: true, .. } => {
                match locked_run(&s, "apply-nmstate --live", &declarative::apply_changed).await {
                    Ok(outcome) => {
                        tracing::info!("done: {outcome:?}");
                        Ok(ExitCode::SUCCESS)
                    }
                    Err(e) => {
                        node_event::warn(&s, node_event::reason(&e), &e.to_string()).await;
                        Err(failure(e))
                    }
                }
            }
            Command::Plan { json, .. } => plan(&s, *json).await,
            Command::Rollback(_) => {
                let nm = Nm::connect(s.dbus_timeout).await?;
                apply::cleanup(&nm, s.activation_timeout).await?;
                Ok(ExitCode::SUCCESS)
            }
            Command::Status(_) => status(&s).await,
            Command::ApplyLive {
                settings,
                file,
                force,
                lock_wait_secs,
            } => {
                let options = live::Options {
                    force: *force,
                    // The flag only: a config file's `persist` (or NM_CONN_SET_PATH) is about
                    // br-ex's profiles, not about keeping a day-2 change.
                    lasting: if settings.persist {
                        engine::change::Lasting::Persistent
                    } else {
                        engine::change::Lasting::UntilReboot
                    },
                    lock_wait: Duration::from_secs(*lock_wait_secs),
                };
                apply_live(&s, &read_desired(file)?, options).await
            }
            Command::Show {
                node_network_state, ..
            } => {
                Nm::connect_running(s.dbus_timeout).await?;
                let now = node_state::current().await?;
                let text = if *node_network_state {
                    node_state::node_network_state(
                        &s.node_name,
                        &now,
                        std::time::SystemTime::now(),
                    )?
                } else {
                    node_state::to_yaml(&now)?
                };
                print!("{text}");
                Ok(ExitCode::SUCCESS)
            }
            Command::Diff { file, .. } => diff(&s, &read_desired(file)?).await,
            Command::Collect { dir, .. } => {
                let target = dir.clone().unwrap_or_else(collect::default_target);
                let missing = collect::collect(&s, &target).await?;
                println!("collected into {}", target.display());
                for m in &missing {
                    eprintln!("not gathered: {m}");
                }
                Ok(ExitCode::SUCCESS)
            }
        }
    })
}

/// The desired state named on the command line: a file, or stdin for `-`. Unreadable is a
/// usage error (exit 2).
fn read_desired(file: &Path) -> anyhow::Result<live::Desired> {
    let (origin, content) = if file == Path::new("-") {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|e| selection::app::UsageError(format!("cannot read stdin: {e}")))?;
        ("stdin".to_owned(), text)
    } else {
        let text = std::fs::read_to_string(file).map_err(|e| {
            selection::app::UsageError(format!("cannot read {}: {e}", file.display()))
        })?;
        (file.display().to_string(), text)
    };
    Ok(live::Desired { origin, content })
}

/// `apply-live`: applies the desired state, says how long it took. Bad input (invalid or
/// refused) exits 2, as a usage error.
async fn apply_live(
    s: &Settings,
    desired: &live::Desired,
    options: live::Options,
) -> anyhow::Result<ExitCode> {
    match live::apply_live(s, desired, options).await {
        Ok(took) => {
            tracing::info!(
                "{} applied and committed in {:.2}s",
                desired.origin,
                took.as_secs_f64()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e) if e.is_bad_input() => Err(selection::app::UsageError(e.to_string()).into()),
        Err(e) => Err(e.into()),
    }
}

/// `diff`: prints what of the desired state differs from the node's network now, or says that
/// nothing does (on stderr, so that stdout stays YAML). Invalid NMState exits 2.
async fn diff(s: &Settings, desired: &live::Desired) -> anyhow::Result<ExitCode> {
    let want = desired
        .parse()
        .map_err(|e| selection::app::UsageError(e.to_string()))?;
    Nm::connect_running(s.dbus_timeout).await?;
    let now = node_state::current().await?;
    match node_state::diff(&want, &now)? {
        Some(changed) => print!("{}", node_state::to_yaml(&changed)?),
        None => eprintln!("{}: the node already has this state", desired.origin),
    }
    Ok(ExitCode::SUCCESS)
}

/// How long a boot-time run waits for a live apply (or another run) to finish changing the
/// network: a live apply ends within its forwarding timeout plus nmstate's own work.
const BOOT_LOCK_WAIT: Duration = Duration::from_secs(120);

/// One boot-time run (`what`), holding the change lock (see [`lock`]) while it runs.
async fn locked_run<F>(
    s: &Settings,
    what: &'static str,
    run: &F,
) -> Result<apply::Outcome, apply::ApplyError>
where
    F: AsyncFn(&Settings) -> Result<apply::Outcome, apply::ApplyError>,
{
    let path = lock::path(&s.run_dir);
    let held =
        tokio::task::spawn_blocking(move || lock::ChangeLock::acquire(&path, what, BOOT_LOCK_WAIT))
            .await
            .map_err(apply::ApplyError::LockTask)??;
    let outcome = run(s).await;
    drop(held);
    outcome
}

/// Upstream's policy by default: a failed run is retried every 15 minutes until it succeeds (a
/// SIGTERM during the wait ends it with a failure). The change lock is held per attempt, not
/// across the wait.
async fn apply_with_retry<F>(s: &Settings, what: &'static str, run: F) -> anyhow::Result<ExitCode>
where
    F: AsyncFn(&Settings) -> Result<apply::Outcome, apply::ApplyError>,
{
    loop {
        match locked_run(s, what, &run).await {
            Ok(outcome) => {
                tracing::info!("done: {outcome:?}");
                return Ok(ExitCode::SUCCESS);
            }
            // A SIGTERM ends the run; socket permissions do not change by waiting (the unit
            // lacks a grant).
            Err(
                e @ (apply::ApplyError::Terminated
                | apply::ApplyError::Ovs(ovsdb::OvsError::Access { .. })),
            ) => return Err(e.into()),
            Err(e) if is_bad_input(&e) => return Err(failure(e)),
            Err(e) => match s.retry {
                None => return Err(e.into()),
                Some(wait) => {
                    tracing::error!("{e}; retrying in {}s", wait.as_secs());
                    let mut term =
                        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = term.recv() => return Err(apply::ApplyError::Terminated.into()),
                    }
                }
            },
        }
    }
}

/// A malformed NMState file: waiting changes nothing.
fn is_bad_input(e: &apply::ApplyError) -> bool {
    matches!(
        e,
        apply::ApplyError::Declarative(declarative::DeclarativeError::Invalid { .. })
    )
}

/// A failed run as the command's error: bad input exits 2 (a usage error), the rest 1.
fn failure(e: apply::ApplyError) -> anyhow::Error {
    if is_bad_input(&e) {
        selection::app::UsageError(e.to_string()).into()
    } else {
        e.into()
    }
}

async fn plan(s: &Settings, json: bool) -> anyhow::Result<ExitCode> {
    let nm = Nm::connect(s.dbus_timeout).await?;
    let mut reader = NetlinkReader::connect()?;
    let g = apply::gather(&nm, &mut reader, s).await?;
    print!("{}", plan_report(&g, json)?);
    Ok(ExitCode::SUCCESS)
}

/// What `apply` would do now for what was gathered: keyfile-style text (or one JSON object)
/// with placeholder UUIDs. Shared by `plan` and `collect`.
pub fn plan_report(g: &apply::Gathered, json: bool) -> Result<String, plan::PlanError> {
    use std::fmt::Write;
    let mut n = 0;
    let mut uuids = || {
        n += 1;
        format!("<new-uuid-{n}>")
    };
    let plan = g.plan(&mut uuids)?;
    let mut out = String::new();
    if json {
        let bridges: Vec<serde_json::Value> = plan
            .bridges
            .iter()
            .map(|b| {
                serde_json::json!({
                    "bridge": b.names.bridge,
                    "interface": b.interface,
                    "original": b.original_uuid,
                    "add": b.add.iter().map(profile::to_json).collect::<Vec<_>>(),
                    "warnings": b.warnings,
                })
            })
            .collect();
        let report = serde_json::json!({
            "choice": plan.choice,
            "already_converted": plan.already_converted,
            "bridges": bridges,
            "remove": plan.remove,
            "activate": plan.activate,
        });
        let _ = writeln!(out, "{report:#}");
        return Ok(out);
    }
    let _ = writeln!(
        out,
        "# interface {} ({:?})",
        plan.choice.interface, plan.choice.reason
    );
    for b in &plan.bridges {
        for w in &b.warnings {
            let _ = writeln!(out, "# warning: {w}");
        }
        for settings in &b.add {
            let _ = writeln!(
                out,
                "# {}.nmconnection\n{}",
                profile::id(settings),
                profile::render(settings)
            );
        }
    }
    for u in &plan.remove {
        let _ = writeln!(out, "# remove {u}");
    }
    let _ = writeln!(out, "# activation order: {}", plan.activate.join(", "));
    Ok(out)
}

async fn status(s: &Settings) -> anyhow::Result<ExitCode> {
    let nm = Nm::connect(s.dbus_timeout).await?;
    let active = nm.active_uuids().await?;
    let owner = if s.nmstate_dir().join("applied").exists() {
        "nmstate (declarative)"
    } else {
        "ovs-bridge-configurator (automatic)"
    };
    println!("mode: {owner}");
    for x in nm.profiles().await? {
        let id = profile::id(&x.settings);
        if plan::is_ours(&id) {
            let state = if active.contains(&profile::uuid(&x.settings)) {
                "active"
            } else {
                "inactive"
            };
            let file = if x.filename.is_empty() {
                "(in memory)".into()
            } else {
                x.filename.clone()
            };
            println!("profile {id}: {state}, {file}");
        }
    }
    for b in [plan::BR_EX.bridge, plan::BR_EX1.bridge] {
        let exists = std::process::Command::new("ovs-vsctl")
            .args(["--timeout=5", "br-exists", b])
            .status()
            .is_ok_and(|st| st.success());
        println!(
            "ovs bridge {b}: {}",
            if exists { "present" } else { "absent" }
        );
    }
    Ok(ExitCode::SUCCESS)
}
#[cfg(test)]
mod plan_tests;
