//! The NetworkManager D-Bus calls the configurator needs: profiles (read, add in memory,
//! update, delete), devices, activation with state waits driven by signals, checkpoints.

pub mod dns;
pub mod keep_alive;
pub mod profile;
pub mod setting;

use std::collections::BTreeMap;
use std::time::Duration;

use futures_util::StreamExt;
use zbus::zvariant::{OwnedObjectPath, OwnedValue};
use zbus::{Connection, proxy};

use crate::nm::profile::Settings;

/// `NMActiveConnectionState`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActiveState {
    Unknown,
    Activating,
    Activated,
    Deactivating,
    Deactivated,
}

impl From<u32> for ActiveState {
    fn from(v: u32) -> Self {
        match v {
            1 => ActiveState::Activating,
            2 => ActiveState::Activated,
            3 => ActiveState::Deactivating,
            4 => ActiveState::Deactivated,
            _ => ActiveState::Unknown,
        }
    }
}

/// `NMDeviceState`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceState {
    Unknown,
    Unmanaged,
    Unavailable,
    Disconnected,
    Prepare,
    Config,
    NeedAuth,
    IpConfig,
    IpCheck,
    Secondaries,
    Activated,
    Deactivating,
    Failed,
}

impl From<u32> for DeviceState {
    fn from(v: u32) -> Self {
        use DeviceState::*;
        match v {
            10 => Unmanaged,
            20 => Unavailable,
            30 => Disconnected,
            40 => Prepare,
            50 => Config,
            60 => NeedAuth,
            70 => IpConfig,
            80 => IpCheck,
            90 => Secondaries,
            100 => Activated,
            110 => Deactivating,
            120 => Failed,
            _ => Unknown,
        }
    }
}

impl DeviceState {
    /// Half way through a state change (PREPARE to SECONDARIES, or DEACTIVATING): a plan made
    /// now would see a state about to change.
    pub fn in_transition(self) -> bool {
        use DeviceState::*;
        matches!(
            self,
            Prepare | Config | NeedAuth | IpConfig | IpCheck | Secondaries | Deactivating
        )
    }
}

impl std::fmt::Display for DeviceState {
    /// nmcli's names.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use DeviceState::*;
        f.write_str(match self {
            Unknown => "unknown",
            Unmanaged => "unmanaged",
            Unavailable => "unavailable",
            Disconnected => "disconnected",
            Prepare => "prepare",
            Config => "config",
            NeedAuth => "need-auth",
            IpConfig => "ip-config",
            IpCheck => "ip-check",
            Secondaries => "secondaries",
            Activated => "activated",
            Deactivating => "deactivating",
            Failed => "failed",
        })
    }
}

/// `NM_DEVICE_TYPE_OVS_PORT`: the OVS port device that shares its uplink's name.
pub const DEVICE_TYPE_OVS_PORT: u32 = 25;
/// `NM_DEVICE_TYPE_OVS_BRIDGE`.
pub const DEVICE_TYPE_OVS_BRIDGE: u32 = 26;

/// Where `Update2` stores a profile (`NM_SETTINGS_UPDATE2_FLAG_*`); `Disk` and `Memory` are also
/// `AddConnection2`'s flags for the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Store {
    /// `TO_DISK`: a keyfile under /etc.
    Disk = 0x1,
    /// `IN_MEMORY`: under /run, shadowing a keyfile under /etc if there is one.
    Memory = 0x2,
    /// `IN_MEMORY_ONLY`: under /run, and a keyfile under /etc deleted.
    MemoryOnly = 0x8,
}
/// `NM_DEVICE_REAPPLY_FLAGS_PRESERVE_EXTERNAL_IP` (NetworkManager 1.42 and later): a reapply
/// keeps the addresses and routes NetworkManager did not configure (keepalived's VIPs,
/// OVN-Kubernetes' masquerade address and routes on br-ex).
const REAPPLY_PRESERVE_EXTERNAL_IP: u32 = 0x1;
/// Checkpoint flags: delete connections added after it, disconnect devices created after it.
const CHECKPOINT_DELETE_NEW_CONNECTIONS: u32 = 0x2;
const CHECKPOINT_DISCONNECT_NEW_DEVICES: u32 = 0x4;

#[proxy(
    interface = "org.freedesktop.NetworkManager",
    default_service = "org.freedesktop.NetworkManager",
    default_path = "/org/freedesktop/NetworkManager"
)]
trait NetworkManager {
    fn get_devices(&self) -> zbus::Result<Vec<OwnedObjectPath>>;
    fn activate_connection(
        &self,
        connection: &zbus::zvariant::ObjectPath<'_>,
        device: &zbus::zvariant::ObjectPath<'_>,
        specific_object: &zbus::zvariant::ObjectPath<'_>,
    ) -> zbus::Result<OwnedObjectPath>;
    fn checkpoint_create(
        &self,
        devices: &[zbus::zvariant::ObjectPath<'_>],
        rollback_timeout: u32,
        flags: u32,
    ) -> zbus::Result<OwnedObjectPath>;
    fn checkpoint_destroy(&self, checkpoint: &zbus::zvariant::ObjectPath<'_>) -> zbus::Result<()>;
    fn checkpoint_rollback(
        &self,
        checkpoint: &zbus::zvariant::ObjectPath<'_>,
    ) -> zbus::Result<BTreeMap<String, u32>>;
    fn checkpoint_adjust_rollback_timeout(
        &self,
        checkpoint: &zbus::zvariant::ObjectPath<'_>,
        add_timeout: u32,
    ) -> zbus::Result<()>;
    #[zbus(property)]
    fn checkpoints(&self) -> zbus::Result<Vec<OwnedObjectPath>>;
    #[zbus(property)]
    fn active_connections(&self) -> zbus::Result<Vec<OwnedObjectPath>>;
    #[zbus(property)]
    fn global_dns_configuration(&self) -> zbus::Result<OwnedValue>;
}

#[proxy(
    interface = "org.freedesktop.NetworkManager.Settings",
    default_service = "org.freedesktop.NetworkManager",
    default_path = "/org/freedesktop/NetworkManager/Settings"
)]
trait NmSettings {
    fn list_connections(&self) -> zbus::Result<Vec<OwnedObjectPath>>;
    fn get_connection_by_uuid(&self, uuid: &str) -> zbus::Result<OwnedObjectPath>;
    fn add_connection2(
        &self,
        settings: &Settings,
        flags: u32,
        args: &BTreeMap<String, OwnedValue>,
    ) -> zbus::Result<(OwnedObjectPath, BTreeMap<String, OwnedValue>)>;
}

#[proxy(
    interface = "org.freedesktop.NetworkManager.Settings.Connection",
    default_service = "org.freedesktop.NetworkManager"
)]
trait NmConnection {
    fn get_settings(&self) -> zbus::Result<Settings>;
    fn update2(
        &self,
        settings: &Settings,
        flags: u32,
        args: &BTreeMap<String, OwnedValue>,
    ) -> zbus::Result<BTreeMap<String, OwnedValue>>;
    fn delete(&self) -> zbus::Result<()>;
    #[zbus(property)]
    fn filename(&self) -> zbus::Result<String>;
}

#[proxy(
    interface = "org.freedesktop.NetworkManager.Device",
    default_service = "org.freedesktop.NetworkManager"
)]
trait NmDevice {
    #[zbus(property)]
    fn interface(&self) -> zbus::Result<String>;
    #[zbus(property)]
    fn device_type(&self) -> zbus::Result<u32>;
    #[zbus(property)]
    fn state(&self) -> zbus::Result<u32>;
    #[zbus(property)]
    fn active_connection(&self) -> zbus::Result<OwnedObjectPath>;
    fn reapply(&self, connection: &Settings, version_id: u64, flags: u32) -> zbus::Result<()>;
}

#[proxy(
    interface = "org.freedesktop.NetworkManager.Connection.Active",
    default_service = "org.freedesktop.NetworkManager"
)]
trait NmActive {
    #[zbus(property)]
    fn state(&self) -> zbus::Result<u32>;
    #[zbus(property)]
    fn uuid(&self) -> zbus::Result<String>;
    /// The controller's device (`/`: none); `Master` is the name every version since 1.0 has.
    #[zbus(property)]
    fn master(&self) -> zbus::Result<OwnedObjectPath>;
    /// Named apart from the `State` property's own change stream.
    #[zbus(signal, name = "StateChanged")]
    fn activation_state_changed(&self, state: u32, reason: u32) -> zbus::Result<()>;
}

#[proxy(
    interface = "org.freedesktop.NetworkManager.Checkpoint",
    default_service = "org.freedesktop.NetworkManager"
)]
trait NmCheckpoint {
    #[zbus(property)]
    fn devices(&self) -> zbus::Result<Vec<OwnedObjectPath>>;
    #[zbus(property)]
    fn created(&self) -> zbus::Result<i64>;
    #[zbus(property)]
    fn rollback_timeout(&self) -> zbus::Result<u32>;
}

/// A stored profile.
#[derive(Clone, Debug)]
pub struct Profile {
    pub path: OwnedObjectPath,
    pub settings: Settings,
    /// The keyfile, `""` for profiles NM generated.
    pub filename: String,
}

/// An active connection: a profile being (or done) activated on a device.
#[derive(Clone, Debug)]
pub struct ActiveConnection {
    pub path: OwnedObjectPath,
    /// The profile's UUID.
    pub uuid: String,
    pub state: ActiveState,
}

impl crate::nm::profile::ProfileView for Profile {
    fn settings(&self) -> &Settings {
        &self.settings
    }
}

/// A device NetworkManager knows.
#[derive(Clone, Debug)]
pub struct Device {
    pub path: OwnedObjectPath,
    pub interface: String,
    /// `NMDeviceType`.
    pub device_type: u32,
    pub state: DeviceState,
    /// UUID of the profile active on it.
    pub active_uuid: Option<String>,
}

/// A failure talking to NetworkManager.
#[derive(Debug, thiserror::Error)]
pub enum NmError {
    // `error`, not `source`: the message already holds it, and a chained display (`{:#}`)
    // would print it twice.
    #[error("{what}: {error}")]
    Call { what: String, error: zbus::Error },
    /// A call that got no reply within the connection's method timeout: NetworkManager is hung
    /// (or stopped), which must be a clear error, never a unit that waits forever.
    #[error("{what}: NetworkManager did not answer within {timeout:?}")]
    Unanswered { what: String, timeout: Duration },
    #[error("{what}: not done within {timeout:?}")]
    Timeout { what: String, timeout: Duration },
    #[error("activation of {id} failed (NetworkManager deactivated it)")]
    ActivationFailed { id: String },
    #[error("cannot bring up {id} after {attempts} attempts; the last: {last}")]
    GaveUp {
        id: String,
        attempts: u32,
        last: Box<NmError>,
    },
}

const NM_NAME: &str = "org.freedesktop.NetworkManager";

/// NetworkManager cannot be asked anything: said once, before anything is selected or changed.
#[derive(Debug, thiserror::Error)]
pub enum Unreachable {
    #[error("cannot reach the system bus ({address}): {error}: is D-Bus running?")]
    Bus { address: String, error: NmError },
    #[error("NetworkManager is not on the system bus ({address}): is NetworkManager running?")]
    NotRunning { address: String },
}

/// The system bus's address, as zbus finds it (for messages).
fn system_bus_address() -> String {
    std::env::var("DBUS_SYSTEM_BUS_ADDRESS")
        .unwrap_or_else(|_| "unix:path=/var/run/dbus/system_bus_socket".to_owned())
}

/// How long a failed run waits for a restarting NetworkManager before it cleans up.
const RESTART_WAIT: Duration = Duration::from_secs(30);

/// NetworkManager's unique bus name now, or its well-known name when it is not running.
async fn current_owner(conn: &Connection) -> zbus::names::OwnedBusName {
    let well_known = || zbus::names::OwnedBusName::try_from(NM_NAME).expect("a valid bus name");
    let Ok(dbus) = zbus::fdo::DBusProxy::new(conn).await else {
        return well_known();
    };
    let name = zbus::names::BusName::try_from(NM_NAME).expect("a valid bus name");
    match dbus.get_name_owner(name).await {
        Ok(unique) => zbus::names::BusName::Unique(unique.into_inner()).into(),
        Err(_) => well_known(),
    }
}

fn call(what: impl Into<String>) -> impl FnOnce(zbus::Error) -> NmError {
    let what = what.into();
    move |error| match &error {
        zbus::Error::InputOutput(e) if e.kind() == std::io::ErrorKind::TimedOut => {
            NmError::Unanswered {
                what,
                timeout: CALL_TIMEOUT.get().copied().unwrap_or_default(),
            }
        }
        _ => NmError::Call { what, error },
    }
}

/// The method timeout of the connection (for [`NmError::Unanswered`]'s message).
static CALL_TIMEOUT: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();

impl NmError {
    /// NetworkManager did not answer: further calls would only wait as long again.
    pub fn is_unanswered(&self) -> bool {
        matches!(self, NmError::Unanswered { .. })
    }
}

/// A connection to NetworkManager on the system bus (`DBUS_SYSTEM_BUS_ADDRESS` honoured).
#[derive(Clone)]
pub struct Nm {
    conn: Connection,
    /// Where calls go: the NetworkManager process found at connect (its unique bus name), not
    /// whichever process owns the well-known name later. A restarted NetworkManager numbers its
    /// object paths anew, so a path this run remembered may name another profile there; calls
    /// to the old process fail instead of reaching it. [`Nm::follow_restart`] moves on
    /// deliberately. The well-known name when NetworkManager was not running at connect.
    owner: std::sync::Arc<std::sync::Mutex<zbus::names::OwnedBusName>>,
    /// Calls made, for the benchmark's "number of D-Bus calls".
    calls: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Nm {
    /// Connects, and requires NetworkManager to own its name on the bus: the commands that only
    /// read or change through NetworkManager say so at once when it is not there.
    pub async fn connect_running(call_timeout: Duration) -> Result<Nm, Unreachable> {
        let address = system_bus_address();
        let nm = Nm::connect(call_timeout)
            .await
            .map_err(|error| Unreachable::Bus {
                address: address.clone(),
                error,
            })?;
        let running = matches!(
            nm.owner.lock().unwrap_or_else(|p| p.into_inner()).inner(),
            zbus::names::BusName::Unique(_)
        );
        if running {
            Ok(nm)
        } else {
            Err(Unreachable::NotRunning { address })
        }
    }

    /// Connects; every method call (property reads included) fails with
    /// [`NmError::Unanswered`] when no reply comes within `call_timeout`.
    pub async fn connect(call_timeout: Duration) -> Result<Nm, NmError> {
        let _ = CALL_TIMEOUT.set(call_timeout);
        let conn = zbus::connection::Builder::system()
            .map_err(call("system bus address"))?
            .method_timeout(call_timeout)
            .build()
            .await
            .map_err(call("connect to the system bus"))?;
        let owner = current_owner(&conn).await;
        Ok(Nm {
            conn,
            owner: std::sync::Arc::new(std::sync::Mutex::new(owner)),
            calls: Default::default(),
        })
    }

    /// After a failure: whether NetworkManager was restarted since this run connected; if so,
    /// later calls go to the new process (whose paths this run must look up afresh, by UUID).
    /// A failure seen while NetworkManager is between processes (a restart's stop noticed
    /// through the checkpoint's extension) waits up to [`RESTART_WAIT`] for the new process to
    /// own its name and answer for its profiles: asked earlier, the clean-up found no one to
    /// remove this run's profiles from and left them behind.
    pub async fn follow_restart(&self) -> bool {
        let deadline = tokio::time::Instant::now() + RESTART_WAIT;
        let mut now = current_owner(&self.conn).await;
        while now.as_str() == NM_NAME && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
            now = current_owner(&self.conn).await;
        }
        {
            let mut owner = self
                .owner
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if *owner == now || now.as_str() == NM_NAME {
                return false;
            }
            *owner = now;
        }
        // The new process owns its name before it exports its settings.
        while tokio::time::Instant::now() < deadline {
            if let Ok(s) = self.settings().await
                && s.list_connections().await.is_ok()
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        true
    }

    /// A proxy of `P` at `path` (its default path when `None`) on the process this run talks
    /// to, reading properties afresh on every call.
    async fn proxy<'a, P>(
        &'a self,
        path: Option<&OwnedObjectPath>,
        what: &str,
    ) -> Result<P, NmError>
    where
        P: From<zbus::Proxy<'a>> + zbus::proxy::Defaults,
    {
        let owner = self
            .owner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let mut b = zbus::proxy::Builder::<P>::new(&self.conn)
            .destination(owner)
            .map_err(call(what))?
            .cache_properties(zbus::proxy::CacheProperties::No);
        if let Some(path) = path {
            b = b.path(path.clone()).map_err(call(what))?;
        }
        b.build().await.map_err(call(what))
    }

    fn count(&self, n: u64) {
        self.calls
            .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }

    /// D-Bus method calls and property reads made so far.
    pub fn calls(&self) -> u64 {
        self.calls.load(std::sync::atomic::Ordering::Relaxed)
    }

    async fn nm(&self) -> Result<NetworkManagerProxy<'_>, NmError> {
        self.proxy(None, "NetworkManager").await
    }

    async fn settings(&self) -> Result<NmSettingsProxy<'_>, NmError> {
        self.proxy(None, "Settings").await
    }

    async fn connection(&self, path: &OwnedObjectPath) -> Result<NmConnectionProxy<'_>, NmError> {
        self.proxy(Some(path), "connection").await
    }

    /// Every stored profile with its settings and keyfile.
    pub async fn profiles(&self) -> Result<Vec<Profile>, NmError> {
        let settings = self.settings().await?;
        let paths = settings
            .list_connections()
            .await
            .map_err(call("ListConnections"))?;
        self.count(1);
        // All read at once over the one connection: the round trips overlap.
        let reads = paths.into_iter().map(|path| async move {
            let c = self.connection(&path).await?;
            self.count(2);
            // A profile deleted between the list and this read is simply gone.
            let Ok(settings) = c.get_settings().await else {
                return Ok(None);
            };
            let filename = c.filename().await.unwrap_or_default();
            Ok(Some(Profile {
                path,
                settings,
                filename,
            }))
        });
        let out: Vec<Option<Profile>> = futures_util::future::try_join_all(reads).await?;
        Ok(out.into_iter().flatten().collect())
    }

    /// Every device with its state and active profile.
    pub async fn devices(&self) -> Result<Vec<Device>, NmError> {
        let paths = self.device_paths().await?;
        let reads = paths.iter().map(|path| self.device(path.clone()));
        let results = futures_util::future::join_all(reads).await;
        let mut out = Vec::with_capacity(paths.len());
        let mut now: Option<Vec<OwnedObjectPath>> = None;
        for (path, r) in paths.iter().zip(results) {
            match r {
                Ok(d) => out.push(d),
                Err(e) => {
                    if now.is_none() {
                        now = Some(self.device_paths().await?);
                    }
                    // Removed since GetDevices (a bridge port going away): no longer a device.
                    if now.as_ref().is_some_and(|n| n.contains(path)) {
                        return Err(e);
                    }
                }
            }
        }
        Ok(out)
    }

    async fn device_paths(&self) -> Result<Vec<OwnedObjectPath>, NmError> {
        self.count(1);
        self.nm()
            .await?
            .get_devices()
            .await
            .map_err(call("GetDevices"))
    }

    async fn device(&self, path: OwnedObjectPath) -> Result<Device, NmError> {
        let d: NmDeviceProxy = self.proxy(Some(&path), "device").await?;
        let (ac, interface, device_type, state) = futures_util::try_join!(
            async {
                d.active_connection()
                    .await
                    .map_err(call("Device.ActiveConnection"))
            },
            async { d.interface().await.map_err(call("Device.Interface")) },
            async { d.device_type().await.map_err(call("Device.DeviceType")) },
            async { d.state().await.map_err(call("Device.State")) },
        )?;
        let active_uuid = if ac.as_str() == "/" {
            None
        } else {
            self.active(&ac).await?.uuid().await.ok()
        };
        self.count(5);
        Ok(Device {
            interface,
            device_type,
            state: state.into(),
            active_uuid,
            path,
        })
    }

    async fn active(&self, path: &OwnedObjectPath) -> Result<NmActiveProxy<'_>, NmError> {
        self.proxy(Some(path), "active connection").await
    }

    /// Adds a profile in memory (`/run/NetworkManager/system-connections`, as configure-ovs's
    /// `nmcli c add save no`); returns its path.
    pub async fn add(&self, settings: &Settings) -> Result<OwnedObjectPath, NmError> {
        self.add_stored(settings, Store::Memory).await
    }

    /// Adds a profile stored as `store` says (`Disk` or `Memory`: the same flag values as
    /// `Update2`'s), autoconnecting as its settings say; returns its path.
    pub async fn add_stored(
        &self,
        settings: &Settings,
        store: Store,
    ) -> Result<OwnedObjectPath, NmError> {
        let id = crate::nm::profile::id(settings);
        let s = self.settings().await?;
        let (path, _) = s
            .add_connection2(settings, store as u32, &BTreeMap::new())
            .await
            .map_err(call(format!("AddConnection2({id})")))?;
        self.count(1);
        Ok(path)
    }

    /// Replaces a profile's settings, in memory (`/run`) or on disk (`/etc`).
    pub async fn update(
        &self,
        path: &OwnedObjectPath,
        settings: &Settings,
        store: Store,
    ) -> Result<(), NmError> {
        let c = self.connection(path).await?;
        c.update2(settings, store as u32, &BTreeMap::new())
            .await
            .map_err(call("Update2"))?;
        self.count(1);
        Ok(())
    }

    /// The stored profile `uuid` (settings without secrets).
    pub async fn profile_by_uuid(&self, uuid: &str) -> Result<Profile, NmError> {
        let path = self
            .settings()
            .await?
            .get_connection_by_uuid(uuid)
            .await
            .map_err(call(format!("GetConnectionByUuid({uuid})")))?;
        let c = self.connection(&path).await?;
        let settings = c
            .get_settings()
            .await
            .map_err(call(format!("GetSettings({uuid})")))?;
        let filename = c.filename().await.unwrap_or_default();
        self.count(3);
        Ok(Profile {
            path,
            settings,
            filename,
        })
    }

    /// Reapplies the device's profile as it is stored now, keeping the addresses and routes
    /// NetworkManager did not configure. NetworkManager refuses (an error) a change it cannot
    /// reapply without re-activating.
    pub async fn reapply(&self, device: &OwnedObjectPath) -> Result<(), NmError> {
        let d: NmDeviceProxy = self.proxy(Some(device), "device").await?;
        d.reapply(&Settings::new(), 0, REAPPLY_PRESERVE_EXTERNAL_IP)
            .await
            .map_err(call(format!("Reapply({})", device.as_str())))?;
        self.count(1);
        Ok(())
    }

    /// The active connections' paths.
    pub async fn active_paths(&self) -> Result<Vec<OwnedObjectPath>, NmError> {
        let paths = self
            .nm()
            .await?
            .active_connections()
            .await
            .map_err(call("ActiveConnections"))?;
        self.count(1);
        Ok(paths)
    }

    /// The active connections.
    pub async fn active_connections(&self) -> Result<Vec<ActiveConnection>, NmError> {
        let paths = self.active_paths().await?;
        let reads = paths.into_iter().map(|path| async move {
            let a = self.active(&path).await?;
            self.count(2);
            // An active connection that went away meanwhile is skipped.
            Ok::<_, NmError>(match futures_util::join!(a.uuid(), a.state()) {
                (Ok(uuid), Ok(state)) => Some(ActiveConnection {
                    path,
                    uuid,
                    state: state.into(),
                }),
                _ => None,
            })
        });
        let out = futures_util::future::try_join_all(reads).await?;
        Ok(out.into_iter().flatten().collect())
    }

    /// An activation of profile `uuid` as a port of a controller other than those of `earlier`
    /// (active connections from before), if there is one now: a controller whose ports come up
    /// with it has started it.
    pub async fn port_activation(
        &self,
        uuid: &str,
        earlier: &[OwnedObjectPath],
    ) -> Result<Option<OwnedObjectPath>, NmError> {
        for a in self.active_connections().await? {
            let old = earlier.contains(&a.path);
            let going = matches!(
                a.state,
                ActiveState::Deactivating | ActiveState::Deactivated
            );
            if a.uuid != uuid || old || going {
                continue;
            }
            let controller = self.active(&a.path).await?.master().await;
            self.count(1);
            if controller.is_ok_and(|c| c.as_str() != "/") {
                return Ok(Some(a.path));
            }
        }
        Ok(None)
    }

    /// The UUIDs of the profiles active now (in any state).
    pub async fn active_uuids(&self) -> Result<Vec<String>, NmError> {
        Ok(self
            .active_connections()
            .await?
            .into_iter()
            .map(|a| a.uuid)
            .collect())
    }

    /// Whether profile `uuid` is activated now.
    pub async fn is_activated(&self, uuid: &str) -> Result<bool, NmError> {
        Ok(self
            .active_connections()
            .await?
            .iter()
            .any(|a| a.uuid == uuid && a.state == ActiveState::Activated))
    }

    /// `nmcli device connect`: NM activates the best available profile on `device`.
    pub async fn connect_device(
        &self,
        device: &OwnedObjectPath,
        name: &str,
        timeout: Duration,
    ) -> Result<(), NmError> {
        let root = zbus::zvariant::ObjectPath::try_from("/").expect("root path");
        let ac = self
            .nm()
            .await?
            .activate_connection(&root, &device.as_ref(), &root)
            .await
            .map_err(call(format!("ActivateConnection(device {name})")))?;
        self.count(1);
        self.wait_active(&ac, name, timeout).await
    }

    /// Deletes the profile with `uuid`, if NetworkManager has it; whether it did. By UUID, not
    /// by object path: a NetworkManager restart renumbers the paths, and a path remembered
    /// from before it may name another profile (the user's own) afterwards.
    pub async fn delete_uuid(&self, uuid: &str) -> Result<bool, NmError> {
        let s = self.settings().await?;
        let path = match s.get_connection_by_uuid(uuid).await {
            Ok(p) => p,
            // org.freedesktop.NetworkManager.Settings.InvalidConnection: no such profile.
            Err(zbus::Error::MethodError(..)) => return Ok(false),
            Err(e) => return Err(call(format!("GetConnectionByUuid({uuid})"))(e)),
        };
        self.count(1);
        self.delete(&path).await.map(|()| true)
    }

    pub async fn delete(&self, path: &OwnedObjectPath) -> Result<(), NmError> {
        self.connection(path)
            .await?
            .delete()
            .await
            .map_err(call("Delete"))?;
        self.count(1);
        Ok(())
    }

    /// Activates `profile` and waits, driven by the active connection's StateChanged signal,
    /// until it is activated (or NM gives up on it, or `timeout` passes).
    pub async fn activate(
        &self,
        profile: &OwnedObjectPath,
        id: &str,
        timeout: Duration,
    ) -> Result<(), NmError> {
        let root = zbus::zvariant::ObjectPath::try_from("/").expect("root path");
        let ac = self
            .nm()
            .await?
            .activate_connection(&profile.as_ref(), &root, &root)
            .await
            .map_err(call(format!("ActivateConnection({id})")))?;
        self.count(1);
        self.wait_active(&ac, id, timeout).await
    }

    /// Waits until the active connection `ac` is activated.
    pub async fn wait_active(
        &self,
        ac: &OwnedObjectPath,
        id: &str,
        timeout: Duration,
    ) -> Result<(), NmError> {
        let proxy = self.active(ac).await?;
        // Subscribe first, then read the current state: no transition is missed.
        let mut changes = proxy
            .receive_activation_state_changed()
            .await
            .map_err(call("StateChanged"))?;
        let wait = async {
            let mut state = proxy
                .state()
                .await
                .map_err(call("ActiveConnection.State"))?;
            self.count(2);
            loop {
                match ActiveState::from(state) {
                    ActiveState::Activated => return Ok(()),
                    ActiveState::Deactivated => {
                        return Err(NmError::ActivationFailed { id: id.into() });
                    }
                    _ => {}
                }
                let Some(sig) = changes.next().await else {
                    // The object vanished: NM removed the active connection.
                    return Err(NmError::ActivationFailed { id: id.into() });
                };
                state = sig.args().map_err(call("StateChanged args"))?.state;
            }
        };
        tokio::time::timeout(timeout, wait)
            .await
            .map_err(|_| NmError::Timeout {
                what: format!("activation of {id}"),
                timeout,
            })?
    }

    /// A checkpoint over `devices` (all when empty): NM restores them and deletes what was added
    /// after it on rollback, or by itself when `timeout` passes without a commit.
    pub async fn checkpoint_create(
        &self,
        devices: &[OwnedObjectPath],
        timeout: Duration,
    ) -> Result<OwnedObjectPath, NmError> {
        let devs: Vec<zbus::zvariant::ObjectPath<'_>> =
            devices.iter().map(|d| d.as_ref()).collect();
        let cp = self
            .nm()
            .await?
            .checkpoint_create(
                &devs,
                timeout.as_secs() as u32,
                CHECKPOINT_DELETE_NEW_CONNECTIONS | CHECKPOINT_DISCONNECT_NEW_DEVICES,
            )
            .await
            .map_err(call("CheckpointCreate"))?;
        self.count(1);
        Ok(cp)
    }

    /// Commits: the changes stay.
    pub async fn checkpoint_destroy(&self, cp: &OwnedObjectPath) -> Result<(), NmError> {
        self.nm()
            .await?
            .checkpoint_destroy(&cp.as_ref())
            .await
            .map_err(call("CheckpointDestroy"))?;
        self.count(1);
        Ok(())
    }

    /// Rolls back to the checkpoint.
    pub async fn checkpoint_rollback(&self, cp: &OwnedObjectPath) -> Result<(), NmError> {
        self.nm()
            .await?
            .checkpoint_rollback(&cp.as_ref())
            .await
            .map_err(call("CheckpointRollback"))?;
        self.count(1);
        Ok(())
    }

    /// Moves the checkpoint's automatic rollback to `timeout` from now.
    pub async fn checkpoint_extend(
        &self,
        cp: &OwnedObjectPath,
        timeout: Duration,
    ) -> Result<(), NmError> {
        self.nm()
            .await?
            .checkpoint_adjust_rollback_timeout(&cp.as_ref(), timeout.as_secs() as u32)
            .await
            .map_err(call("CheckpointAdjustRollbackTimeout"))?;
        self.count(1);
        Ok(())
    }

    /// One checkpoint's devices, creation time (`CLOCK_BOOTTIME` ms) and rollback timeout (s),
    /// for `collect`.
    pub async fn checkpoint_details(
        &self,
        cp: &OwnedObjectPath,
    ) -> Result<(Vec<OwnedObjectPath>, i64, u32), NmError> {
        let c: NmCheckpointProxy = self.proxy(Some(cp), "checkpoint").await?;
        self.count(3);
        Ok((
            c.devices().await.map_err(call("Checkpoint.Devices"))?,
            c.created().await.map_err(call("Checkpoint.Created"))?,
            c.rollback_timeout()
                .await
                .map_err(call("Checkpoint.RollbackTimeout"))?,
        ))
    }

    /// Checkpoints that exist now (a crashed earlier run may have left one).
    pub async fn checkpoints(&self) -> Result<Vec<OwnedObjectPath>, NmError> {
        self.count(1);
        self.nm()
            .await?
            .checkpoints()
            .await
            .map_err(call("Checkpoints"))
    }
}
