//! `run`: the controller in the cluster, until SIGTERM.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use selection::app::UsageError;

use crate::cli::RunArgs;
use crate::runtime::{self, Settings, leader::LeaseSettings};

/// The settings from the flags and the Pod's environment (the Deployment passes its name and
/// namespace through the downward API).
pub fn settings(args: &RunArgs) -> Result<Settings, UsageError> {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let hostname = || {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|h| h.trim().to_owned())
    };
    let identity = args
        .identity
        .clone()
        .or_else(|| env("POD_NAME"))
        .or_else(hostname)
        .ok_or_else(|| UsageError("no --identity, $POD_NAME or host name".into()))?;
    if args.lease_retry * 2 >= args.lease_duration {
        return Err(UsageError(format!(
            "--lease-retry ({} s) must be under half of --lease-duration ({} s)",
            args.lease_retry, args.lease_duration
        )));
    }
    Ok(Settings {
        lease: LeaseSettings {
            namespace: args
                .namespace
                .clone()
                .or_else(|| env("POD_NAMESPACE"))
                .unwrap_or_else(|| "onprem-policy-controller".into()),
            name: args.lease_name.clone(),
            identity,
            duration: Duration::from_secs(args.lease_duration),
            retry: Duration::from_secs(args.lease_retry),
        },
        debounce: Duration::from_millis(100),
    })
}

pub fn exec(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let settings = settings(args)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(async {
        let config = kube::Config::infer()
            .await
            .context("cannot find the cluster (in-cluster service account or KUBECONFIG)")?;
        let client = kube::Client::try_from(config).context("cannot build the API client")?;
        tracing::info!(
            "policy-controller {} as {} (Lease {}/{})",
            env!("CARGO_PKG_VERSION"),
            settings.lease.identity,
            settings.lease.namespace,
            settings.lease.name
        );
        runtime::run(client, settings, terminated()).await?;
        Ok(ExitCode::SUCCESS)
    })
}

/// SIGTERM (the kubelet stopping the Pod) or SIGINT.
async fn terminated() {
    use tokio::signal::unix::{SignalKind, signal};
    let Ok(mut term) = signal(SignalKind::terminate()) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}
