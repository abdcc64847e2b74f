//! keepalived.service through systemd's D-Bus API: reload or start it, stop it, signal it,
//! restart it, and read its main pid.

use zbus::zvariant::OwnedObjectPath;

use crate::retry::Retry;

/// The unit keepalived runs as on the host.
pub const UNIT: &str = "keepalived.service";

#[zbus::proxy(
    interface = "org.freedesktop.systemd1.Manager",
    default_service = "org.freedesktop.systemd1",
    default_path = "/org/freedesktop/systemd1"
)]
trait Manager {
    /// Reloads a running unit, starts an inactive one.
    fn reload_or_restart_unit(&self, name: &str, mode: &str) -> zbus::Result<OwnedObjectPath>;
    fn restart_unit(&self, name: &str, mode: &str) -> zbus::Result<OwnedObjectPath>;
    fn stop_unit(&self, name: &str, mode: &str) -> zbus::Result<OwnedObjectPath>;
    /// Sends `signal` to the unit's `whom` ("main": the main process only).
    fn kill_unit(&self, name: &str, whom: &str, signal: i32) -> zbus::Result<()>;
    fn get_unit(&self, name: &str) -> zbus::Result<OwnedObjectPath>;
}

#[zbus::proxy(
    interface = "org.freedesktop.systemd1.Service",
    default_service = "org.freedesktop.systemd1"
)]
trait Service {
    #[zbus(property, name = "MainPID")]
    fn main_pid(&self) -> zbus::Result<u32>;
}

/// A call to systemd that failed, naming the call and the unit.
#[derive(Debug, thiserror::Error)]
pub enum SystemdError {
    #[error("{what}: {source}")]
    Connect {
        /// "system bus" or "systemd manager".
        what: &'static str,
        source: Box<zbus::Error>,
    },
    #[error("{call} {UNIT}: {source}")]
    Call {
        call: String,
        source: Box<zbus::Error>,
    },
}

impl Retry for SystemdError {
    /// Only a unit systemd does not know stays that way; the bus, a timeout or a job that
    /// failed this time may work next time.
    fn worth_retrying(&self) -> bool {
        match self {
            SystemdError::Connect { .. } => true,
            SystemdError::Call { source, .. } => !matches!(
                &**source,
                zbus::Error::MethodError(name, _, _)
                    if name.as_str() == "org.freedesktop.systemd1.NoSuchUnit"
            ),
        }
    }
}

/// A queued job's outcome, naming the call.
async fn job(
    call: &str,
    queued: impl Future<Output = zbus::Result<OwnedObjectPath>>,
) -> Result<(), SystemdError> {
    queued.await.map(drop).map_err(|source| SystemdError::Call {
        call: call.to_owned(),
        source: Box::new(source),
    })
}

/// A connection to the system manager.
pub struct Systemd {
    conn: zbus::Connection,
    manager: ManagerProxy<'static>,
}

impl Systemd {
    pub async fn connect() -> Result<Systemd, SystemdError> {
        let conn = zbus::Connection::system()
            .await
            .map_err(|source| SystemdError::Connect {
                what: "system bus",
                source: Box::new(source),
            })?;
        let manager = ManagerProxy::new(&conn)
            .await
            .map_err(|source| SystemdError::Connect {
                what: "systemd manager",
                source: Box::new(source),
            })?;
        Ok(Systemd { conn, manager })
    }

    pub async fn reload_or_start(&self) -> Result<(), SystemdError> {
        job(
            "ReloadOrRestartUnit",
            self.manager.reload_or_restart_unit(UNIT, "replace"),
        )
        .await
    }

    pub async fn restart(&self) -> Result<(), SystemdError> {
        job("RestartUnit", self.manager.restart_unit(UNIT, "replace")).await
    }

    pub async fn stop(&self) -> Result<(), SystemdError> {
        job("StopUnit", self.manager.stop_unit(UNIT, "replace")).await
    }

    /// Signals keepalived's main process (the parent, which passes SIGUSR1 on to its children).
    pub async fn signal_main(&self, signal: nix::sys::signal::Signal) -> Result<(), SystemdError> {
        self.manager
            .kill_unit(UNIT, "main", signal as i32)
            .await
            .map_err(|source| SystemdError::Call {
                call: format!("KillUnit {signal}"),
                source: Box::new(source),
            })
    }

    /// keepalived's main pid; 0 when it is not running (or not loaded).
    pub async fn main_pid(&self) -> u32 {
        self.try_main_pid().await.unwrap_or(0)
    }

    async fn try_main_pid(&self) -> zbus::Result<u32> {
        let path = self.manager.get_unit(UNIT).await?;
        ServiceProxy::builder(&self.conn)
            .path(path)?
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await?
            .main_pid()
            .await
    }
}
