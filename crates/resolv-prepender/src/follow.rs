//! Follows NetworkManager for the dispatcher script's other duties: the br-ex-up flag
//! ([`crate::brex`]) and the DHCPv6 host name ([`crate::hostname`]). The dispatcher ran on `up`
//! and `dhcp6-change`; here the same moments are NetworkManager's signals: a device's
//! `StateChanged` to "activated", and a DHCPv6 lease that came or changed (`PropertiesChanged`
//! of a device's `Dhcp6Config` or of the `DHCP6Config` object itself). Both duties also run at
//! start, so what happened before the daemon is not missed. One connection is held for these
//! signals; without a bus the follower waits for its socket to appear (inotify), never polls.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use futures_util::StreamExt;
use selection::service::DirWatcher;
use zbus::zvariant::OwnedValue;
use zbus::{Connection, MatchRule, MessageStream};

use crate::brex::{self, ACTIVATED};
use crate::hostname;

/// What one session has done for the boot: br-ex-up is touched once (`/run` is new every boot).
#[derive(Debug, Default)]
struct Done {
    br_ex_up: bool,
}

/// Both duties, as the dispatcher script ran them on one event.
async fn duties(conn: &Connection, flag: &Path, done: &mut Done) {
    if !done.br_ex_up {
        done.br_ex_up = brex::touch_if_up(conn, flag).await;
    }
    hostname::adopt_dhcp6_fqdn(conn).await;
}

/// `PropertiesChanged` of `interface`'s objects.
fn properties_changed(interface: &'static str) -> zbus::Result<MatchRule<'static>> {
    Ok(MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .interface("org.freedesktop.DBus.Properties")?
        .member("PropertiesChanged")?
        .arg(0, interface)?
        .build())
}

/// Whether a signal is one of the dispatcher's moments: a device activated, a device's DHCPv6
/// lease object came or went (`Dhcp6Config`), or a lease's options changed.
fn is_relevant(msg: &zbus::Message) -> bool {
    let header = msg.header();
    match header.member().map(|m| m.as_str()) {
        Some("StateChanged") => msg
            .body()
            .deserialize::<(u32, u32, u32)>()
            .is_ok_and(|(new, _, _)| new == ACTIVATED),
        Some("PropertiesChanged") => msg
            .body()
            .deserialize::<(String, HashMap<String, OwnedValue>, Vec<String>)>()
            .is_ok_and(|(interface, changed, _)| {
                interface == DHCP6_CONFIG || changed.contains_key("Dhcp6Config")
            }),
        _ => false,
    }
}

const DEVICE: &str = "org.freedesktop.NetworkManager.Device";
const DHCP6_CONFIG: &str = "org.freedesktop.NetworkManager.DHCP6Config";

/// One connection's life: the duties at start and on every relevant signal; returns when the
/// connection ends.
async fn session(flag: &Path, done: &mut Done) -> zbus::Result<()> {
    let conn = Connection::system().await?;
    let state = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .interface(DEVICE)?
        .member("StateChanged")?
        .build();
    // Subscribed before the first run: an event in between is not missed.
    let mut events = futures_util::stream::select_all([
        MessageStream::for_match_rule(state, &conn, None).await?,
        MessageStream::for_match_rule(properties_changed(DEVICE)?, &conn, None).await?,
        MessageStream::for_match_rule(properties_changed(DHCP6_CONFIG)?, &conn, None).await?,
    ]);
    // The signals are read by their own task, always: NetworkManager sends hundreds while a
    // bridge activates, and a stream left unread while a duty awaits a method reply fills
    // zbus's queue, which stalls the connection's reader and with it that reply (seen: a
    // DHCPv6 query timing out and br-ex-up never touched). Relevant signals only leave a wake-up
    // behind; the duties run once per wake-up, however many signals came meanwhile.
    let wake = std::sync::Arc::new(tokio::sync::Notify::new());
    let mut reader = tokio::spawn({
        let wake = wake.clone();
        async move {
            while let Some(msg) = events.next().await {
                if is_relevant(&msg?) {
                    wake.notify_one();
                }
            }
            zbus::Result::Ok(())
        }
    });
    duties(&conn, flag, done).await;
    loop {
        tokio::select! {
            ended = &mut reader => {
                return ended.unwrap_or_else(|e| Err(zbus::Error::Failure(e.to_string())));
            }
            () = wake.notified() => duties(&conn, flag, done).await,
        }
    }
}

/// The system bus socket, from `DBUS_SYSTEM_BUS_ADDRESS` (`unix:path=...`) or the default.
fn bus_socket() -> PathBuf {
    std::env::var("DBUS_SYSTEM_BUS_ADDRESS")
        .ok()
        .and_then(|a| {
            a.split(';').find_map(|part| {
                part.strip_prefix("unix:path=")
                    .map(|p| p.split(',').next().unwrap_or(p).to_owned())
            })
        })
        .map_or_else(
            || PathBuf::from("/run/dbus/system_bus_socket"),
            PathBuf::from,
        )
}

/// Follows NetworkManager for the daemon's life, reconnecting whenever the bus comes back.
pub fn spawn(br_ex_up_flag: PathBuf) {
    tokio::spawn(async move {
        let socket = bus_socket();
        let mut done = Done::default();
        loop {
            // Watched before connecting: a bus that appears in between wakes the wait below.
            let watch = DirWatcher::new(vec![socket.clone()]).map(|(mut w, wakes)| {
                w.rewatch(None);
                (w, wakes)
            });
            match session(&br_ex_up_flag, &mut done).await {
                Ok(()) => tracing::warn!("the system bus connection ended; waiting for the bus"),
                Err(e) => tracing::warn!(
                    "cannot follow NetworkManager ({e}); waiting for {}",
                    socket.display()
                ),
            }
            let Ok((mut watcher, mut wakes)) = watch else {
                tracing::error!(
                    "cannot watch {}: br-ex-up and the DHCPv6 host name are not followed",
                    socket.display()
                );
                return;
            };
            watcher.rewatch(None);
            if wakes.recv().await.is_none() {
                return;
            }
        }
    });
}
