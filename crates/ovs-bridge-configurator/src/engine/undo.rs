//! Undoing a change of the engine's own apply that did not stay: by the process that made it,
//! or, when that process is killed before its commit, by the one it leaves behind
//! ([`crate::engine::keeper`]), from the same record.
//!
//! A change that leaves every interface where it is (no bridge added, nothing moving under a
//! bridge or out of one) is undone by deleting the profiles it added and writing the previous
//! profiles back, reapplied the same way: NetworkManager's checkpoint rollback re-activates
//! every device it restores, which removes what NetworkManager did not configure (keepalived's
//! VIPs among them, which keepalived then gives up to another node). The checkpoint is rolled
//! back where putting back fails, and for a change of a bridge's ports: the moved interfaces
//! are re-activated either way, and NetworkManager's rollback deletes the new profiles, brings
//! back the deleted OVS ports' and re-activates them in one go.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use zbus::zvariant::serialized::{Context, Data};
use zbus::zvariant::{LE, OwnedObjectPath, Type};

use crate::engine::change::ChangeFailed;
use crate::nm::profile::{self, Settings};
use crate::nm::setting::{Connection, Setting};
use crate::nm::{Nm, NmError, Store};

/// How long an activation (where NetworkManager refuses a reapply) may take.
pub const ACTIVATION_BOUND: Duration = Duration::from_secs(30);

/// What undoes one change: its checkpoint, the profiles it adds (by UUID) and those it
/// rewrites, each recorded before it is written.
#[derive(Debug, Serialize, Deserialize, Type)]
pub struct Undo {
    checkpoint: OwnedObjectPath,
    /// The checkpoint's rollback timeout, in seconds.
    timeout_secs: u32,
    /// Whether putting the previous profiles back undoes it (else only the rollback does).
    put_back: bool,
    /// The interface and the UUID of each profile added.
    added: Vec<(String, String)>,
    written: Vec<Previous>,
}

/// How a change was undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undone {
    /// The previous profiles written back and reapplied.
    PutBack,
    /// NetworkManager's checkpoint rolled back (its devices re-activated).
    RolledBack,
}

impl std::fmt::Display for Undone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Undone::PutBack => "the previous profiles put back and reapplied",
            Undone::RolledBack => "NetworkManager's checkpoint rolled back",
        })
    }
}

/// A rewritten profile as it was, the device it is reapplied on, and where it is put back
/// ([`Store`]'s flags).
#[derive(Debug, Serialize, Deserialize, Type)]
struct Previous {
    iface: String,
    profile: OwnedObjectPath,
    device: OwnedObjectPath,
    settings: Settings,
    store: u32,
}

impl Undo {
    /// Nothing written yet inside `checkpoint` (rolled back by NetworkManager `timeout` after
    /// it was last extended); `put_back`: whether writing the previous profiles back undoes
    /// the change.
    pub fn new(checkpoint: OwnedObjectPath, put_back: bool, timeout: Duration) -> Undo {
        Undo {
            checkpoint,
            timeout_secs: u32::try_from(timeout.as_secs()).unwrap_or(u32::MAX),
            put_back,
            added: Vec::new(),
            written: Vec::new(),
        }
    }

    pub fn checkpoint(&self) -> &OwnedObjectPath {
        &self.checkpoint
    }

    /// The checkpoint's rollback timeout.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_secs.into())
    }

    /// Records `iface`'s profile as it is (`settings`, stored in `store`) before it is
    /// rewritten and reapplied on `device`.
    pub fn rewriting(
        &mut self,
        iface: &str,
        (profile, device): (&OwnedObjectPath, &OwnedObjectPath),
        settings: &Settings,
        store: Store,
    ) {
        self.written.push(Previous {
            iface: iface.to_owned(),
            profile: profile.clone(),
            device: device.clone(),
            settings: settings.clone(),
            store: store as u32,
        });
    }

    /// Records the profile (`settings`) the change is about to add for `iface`.
    pub fn adding(&mut self, iface: &str, settings: &Settings) {
        self.added.push((iface.to_owned(), profile::uuid(settings)));
    }

    /// Undoes the change: the previous profiles put back and the checkpoint destroyed where
    /// that is enough, the checkpoint rolled back otherwise; how (`None`: the checkpoint could
    /// not be ended, which is said).
    pub async fn run(&self, nm: &Nm) -> Option<Undone> {
        let restored = self.put_back && self.put_everything_back(nm).await;
        let (done, how) = if restored {
            (
                nm.checkpoint_destroy(&self.checkpoint).await,
                Undone::PutBack,
            )
        } else {
            let rolled_back = nm.checkpoint_rollback(&self.checkpoint).await;
            (rolled_back, Undone::RolledBack)
        };
        match done {
            Ok(()) => Some(how),
            Err(e) => {
                tracing::error!("ending the change's checkpoint: {e}");
                None
            }
        }
    }

    /// Deletes the profiles added and writes back those rewritten (reapplied), the last first;
    /// whether all of that worked.
    async fn put_everything_back(&self, nm: &Nm) -> bool {
        let mut restored = true;
        for (iface, uuid) in &self.added {
            // NetworkManager takes a software device (a VLAN) down with its profile; one not
            // added yet is nothing to delete.
            if let Err(e) = nm.delete_uuid(uuid).await {
                tracing::warn!("{iface}: deleting the profile the change added: {e}");
                restored = false;
            }
        }
        for p in self.written.iter().rev() {
            let store = [Store::Disk, Store::Memory, Store::MemoryOnly]
                .into_iter()
                .find(|s| *s as u32 == p.store)
                .unwrap_or(Store::MemoryOnly);
            if let Err(e) = write(nm, (&p.profile, &p.device), &p.settings, store).await {
                tracing::warn!("{}: putting the previous profile back: {e}", p.iface);
                restored = false;
            }
        }
        restored
    }

    /// The record in D-Bus's own encoding (the settings' variants carried as they are).
    pub fn to_bytes(&self) -> Result<Vec<u8>, zbus::zvariant::Error> {
        Ok(zbus::zvariant::to_bytes(context(), self)?.to_vec())
    }

    /// A record [`Undo::to_bytes`] wrote.
    pub fn from_bytes(bytes: &[u8]) -> Result<Undo, zbus::zvariant::Error> {
        let (undo, _) = Data::new(bytes, context()).deserialize()?;
        Ok(undo)
    }
}

fn context() -> Context {
    Context::new_dbus(LE, 0)
}

/// Writes one profile's `settings` (in `store`) and reapplies it on its device, or activates it
/// where NetworkManager refuses to reapply (as nmstate does): a change's own step, and its
/// undo's.
pub async fn write(
    nm: &Nm,
    (profile, device): (&OwnedObjectPath, &OwnedObjectPath),
    settings: &Settings,
    store: Store,
) -> Result<(), ChangeFailed> {
    let connection = Connection::of(settings);
    let id = connection.id.unwrap_or_default();
    let iface = connection.interface_name.unwrap_or_default();
    nm.update(profile, settings, store)
        .await
        .map_err(nm_failed)?;
    if let Err(e) = nm.reapply(device).await {
        tracing::info!("{iface}: {e}; activating {id} instead");
        nm.activate(profile, &id, ACTIVATION_BOUND)
            .await
            .map_err(nm_failed)?;
    } else {
        tracing::info!("{iface}: {id} rewritten and reapplied");
    }
    Ok(())
}

/// NetworkManager's error as the change's.
pub fn nm_failed(e: NmError) -> ChangeFailed {
    ChangeFailed::NetworkManager(Box::new(e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nm::profile::val;

    fn path(p: &str) -> OwnedObjectPath {
        OwnedObjectPath::try_from(p).unwrap()
    }

    #[test]
    fn a_record_reads_back_as_it_was_written_settings_variants_included() {
        let cp = path("/org/freedesktop/NetworkManager/Checkpoint/3");
        let mut undo = Undo::new(cp, true, Duration::from_secs(8));
        let mut settings = Settings::new();
        settings.entry("connection".into()).or_default().extend([
            ("id".to_owned(), val("br-ex-if")),
            ("autoconnect".to_owned(), val(true)),
        ]);
        settings
            .entry("ipv4".into())
            .or_default()
            .insert("route-metric".into(), val(48i64));
        let profile = path("/org/freedesktop/NetworkManager/Settings/7");
        let device = path("/org/freedesktop/NetworkManager/Devices/4");
        undo.rewriting("br-ex", (&profile, &device), &settings, Store::MemoryOnly);
        undo.rewriting("ens4", (&profile, &device), &settings, Store::Disk);
        let mut new = Settings::new();
        new.entry("connection".into())
            .or_default()
            .insert("uuid".into(), val("5f0c3c4e-8d42-4c37-9d3e-3a3f1b6b9a10"));
        undo.adding("ex0", &new);

        let back = Undo::from_bytes(&undo.to_bytes().unwrap()).unwrap();
        assert_eq!(back.checkpoint, undo.checkpoint);
        assert_eq!(back.timeout(), Duration::from_secs(8));
        assert!(back.put_back);
        assert_eq!(back.added, undo.added);
        let p = &back.written[0];
        assert_eq!(
            (p.iface.as_str(), &p.profile, &p.device),
            ("br-ex", &profile, &device)
        );
        assert_eq!(p.settings, settings);
        assert_eq!(p.store, Store::MemoryOnly as u32);
        assert_eq!(back.written[1].store, Store::Disk as u32);
    }

    #[test]
    fn bytes_that_are_not_a_record_are_an_error() {
        assert!(Undo::from_bytes(b"\x01\x02garbage").is_err());
    }
}
