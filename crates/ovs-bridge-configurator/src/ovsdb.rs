//! The few OVSDB writes that are not NetworkManager's job, as RFC 7047 transactions on the
//! socket (spawning ovs-vsctl cost a quarter of a re-run, and a quarter of a second on a slow
//! node): clearing `ovn-remote` on every run, and deleting a stale bridge. Also the access check
//! that turns RHCOS's socket permissions into one clear error.

use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Deserialize;

/// As `ovs-vsctl --timeout=30`: how long ovsdb-server may take to appear and to answer.
const DB_TIMEOUT: Duration = Duration::from_secs(30);

/// A failed OVSDB access.
#[derive(Debug, thiserror::Error)]
pub enum OvsError {
    #[error("OVSDB {}: {what}: {error}", path.display())]
    Db {
        path: PathBuf,
        what: &'static str,
        error: String,
    },
    /// RHCOS runs OVS as `openvswitch:hugetlbfs` with `srwxr-x---` sockets: only their owner, or
    /// root with `CAP_DAC_OVERRIDE`, may connect.
    #[error(
        "cannot connect to the OVSDB socket {} ({error}): it is {owner}; this process needs \
         CAP_DAC_OVERRIDE (ovs-configuration.service and nmstate-configuration.service keep it in \
         their CapabilityBoundingSet)",
        path.display()
    )]
    Access {
        path: PathBuf,
        error: io::Error,
        owner: String,
    },
}

/// The socket ovs-vsctl, NetworkManager and nmstate use (`$OVS_RUNDIR/db.sock`, as ovs-vsctl).
pub fn socket_path() -> PathBuf {
    std::env::var_os("OVS_RUNDIR")
        .map_or_else(|| PathBuf::from("/run/openvswitch"), PathBuf::from)
        .join("db.sock")
}

/// Fails at once, naming the socket's owner and mode, when this process may not connect to
/// OVSDB; a socket that does not exist yet or refuses is left to ovs-vsctl's own wait.
pub fn check_access() -> Result<(), OvsError> {
    match UnixStream::connect(socket_path()) {
        Err(error) if error.kind() == io::ErrorKind::PermissionDenied => Err(access_error(error)),
        _ => Ok(()),
    }
}

fn access_error(error: io::Error) -> OvsError {
    let path = socket_path();
    let owner = std::fs::metadata(&path).map_or_else(
        |e| format!("unreadable ({e})"),
        |m| {
            format!(
                "mode {:04o}, owned by uid {} gid {}",
                m.permissions().mode() & 0o7777,
                m.uid(),
                m.gid()
            )
        },
    );
    OvsError::Access { path, error, owner }
}

/// Connects to ovsdb-server, waiting (as ovs-vsctl does) while the socket does not exist yet or
/// refuses.
fn connect() -> Result<UnixStream, OvsError> {
    let path = socket_path();
    let deadline = Instant::now() + DB_TIMEOUT;
    loop {
        match UnixStream::connect(&path) {
            Ok(s) => return Ok(s),
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => return Err(access_error(e)),
            Err(e)
                if Instant::now() < deadline
                    && matches!(
                        e.kind(),
                        io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
                    ) =>
            {
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => {
                return Err(OvsError::Db {
                    path,
                    what: "connect",
                    error: e.to_string(),
                });
            }
        }
    }
}

/// One `transact` of `operations` on the Open_vSwitch database: their results, or the reply's
/// first error.
fn transact(operations: serde_json::Value) -> Result<Vec<serde_json::Value>, OvsError> {
    let path = socket_path();
    let fail = |what: &'static str, error: String| OvsError::Db {
        path: path.clone(),
        what,
        error,
    };
    let mut stream = connect()?;
    stream
        .set_read_timeout(Some(DB_TIMEOUT))
        .map_err(|e| fail("timeout", e.to_string()))?;
    let mut params = vec![serde_json::json!("Open_vSwitch")];
    params.extend(operations.as_array().cloned().unwrap_or_default());
    let request = serde_json::json!({"method": "transact", "params": params, "id": 0});
    stream
        .write_all(request.to_string().as_bytes())
        .map_err(|e| fail("send", e.to_string()))?;
    // ovsdb-server answers with exactly one JSON object; read just that.
    let mut reader = serde_json::Deserializer::from_reader(&stream);
    let reply =
        serde_json::Value::deserialize(&mut reader).map_err(|e| fail("reply", e.to_string()))?;
    if !reply["error"].is_null() {
        return Err(fail("transact", reply["error"].to_string()));
    }
    let results = reply["result"].as_array().cloned().unwrap_or_default();
    if let Some(e) = results.iter().find(|r| !r["error"].is_null()) {
        return Err(fail("transact", e.to_string()));
    }
    if results.first().and_then(|r| r["count"].as_u64()) == Some(0) {
        return Err(fail("transact", "no Open_vSwitch row".into()));
    }
    Ok(results)
}

/// `external_ids:ovn-remote=" "` (as upstream's `ovs-vsctl set Open_vSwitch .
/// external_ids:ovn-remote="\" \""`, without waiting for ovs-vswitchd): ovn-controller must not
/// sync against a stale southbound DB before ovnkube-controller sets the real value (done on
/// every run, as upstream).
pub fn clear_ovn_remote() -> Result<(), OvsError> {
    transact(serde_json::json!([{
        "op": "mutate",
        "table": "Open_vSwitch",
        "where": [],
        "mutations": [
            ["external_ids", "delete", ["set", ["ovn-remote"]]],
            ["external_ids", "insert", ["map", [["ovn-remote", " "]]]],
        ],
    }]))
    .map(drop)
}

/// Deletes `bridge` if it exists (NM does not remove a bridge carrying ports it did not create),
/// as `ovs-vsctl --no-wait --if-exists del-br`: taken out of the Open_vSwitch row, OVSDB
/// collects the bridge and its ports and interfaces, which nothing else refers to.
pub fn delete_bridge(bridge: &str) -> Result<(), OvsError> {
    let found = transact(serde_json::json!([{
        "op": "select",
        "table": "Bridge",
        "where": [["name", "==", bridge]],
        "columns": ["_uuid"],
    }]))?;
    let uuids: Vec<serde_json::Value> = found
        .first()
        .and_then(|r| r["rows"].as_array())
        .into_iter()
        .flatten()
        .map(|row| row["_uuid"].clone())
        .collect();
    if uuids.is_empty() {
        return Ok(());
    }
    transact(serde_json::json!([{
        "op": "mutate",
        "table": "Open_vSwitch",
        "where": [],
        "mutations": [["bridges", "delete", ["set", uuids]]],
    }]))
    .map(drop)
}
