//! keepalived.service through systemd's D-Bus API: reload or start it, stop it, signal it,
//! restart it, and read its main pid.

use zbus::zvariant::OwnedObjectPath;

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

/// A queued job's outcome, as text naming the call.
async fn job(
    call: &str,
    queued: impl Future<Output = zbus::Result<OwnedObjectPath>>,
) -> Result<(), String> {
    queued
        .await
        .map(drop)
        .map_err(|e| format!("{call} {UNIT}: {e}"))
}

/// A connection to the system manager.
pub struct Systemd {
    conn: zbus::Connection,
    manager: ManagerProxy<'static>,
}

impl Systemd {
    pub async fn connect() -> Result<Systemd, String> {
        let conn = zbus::Connection::system()
            .await
            .map_err(|e| format!("system bus: {e}"))?;
        let manager = ManagerProxy::new(&conn)
            .await
            .map_err(|e| format!("systemd manager: {e}"))?;
        Ok(Systemd { conn, manager })
    }

    pub async fn reload_or_start(&self) -> Result<(), String> {
        job(
            "ReloadOrRestartUnit",
            self.manager.reload_or_restart_unit(UNIT, "replace"),
        )
        .await
    }

    pub async fn restart(&self) -> Result<(), String> {
        job("RestartUnit", self.manager.restart_unit(UNIT, "replace")).await
    }

    pub async fn stop(&self) -> Result<(), String> {
        job("StopUnit", self.manager.stop_unit(UNIT, "replace")).await
    }

    /// Signals keepalived's main process (the parent, which passes SIGUSR1 on to its children).
    pub async fn signal_main(&self, signal: nix::sys::signal::Signal) -> Result<(), String> {
        self.manager
            .kill_unit(UNIT, "main", signal as i32)
            .await
            .map_err(|e| format!("KillUnit {UNIT} {signal}: {e}"))
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
