//! A private D-Bus system bus on a path socket (usable from any network namespace).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::process::{Daemon, wait_for_start};

/// Policy of the reference (§3.1): root may own names and call methods; NetworkManager's own
/// policy file is included from the host.
const CONFIG: &str = r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=@SOCKET@</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus"/>
  </policy>
  <policy user="root">
    <allow own="*"/>
    <allow send_type="method_call"/>
  </policy>
  <includedir>/usr/share/dbus-1/system.d</includedir>
</busconfig>
"#;

/// A `dbus-daemon` with no service activation, stopped on drop.
#[derive(Debug)]
pub struct DbusBus {
    socket: PathBuf,
    _daemon: Daemon,
}

impl DbusBus {
    /// Starts a bus whose socket and config live in `dir`.
    pub fn start(dir: &Path) -> Result<DbusBus, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let socket = dir.join("system_bus_socket");
        let conf = dir.join("bus.conf");
        std::fs::write(
            &conf,
            CONFIG.replace("@SOCKET@", &socket.display().to_string()),
        )
        .map_err(|e| e.to_string())?;
        let daemon = Daemon::spawn(
            "dbus-daemon",
            Command::new("dbus-daemon")
                .arg(format!("--config-file={}", conf.display()))
                .arg("--nofork"),
            &dir.join("dbus.log"),
        )?;
        if !wait_for_start(Duration::from_secs(5), || socket.exists()) {
            return Err(format!(
                "dbus-daemon did not create its socket: {}",
                daemon.log_tail(5)
            ));
        }
        Ok(DbusBus {
            socket,
            _daemon: daemon,
        })
    }

    /// The value for `DBUS_SYSTEM_BUS_ADDRESS`.
    pub fn address(&self) -> String {
        format!("unix:path={}", self.socket.display())
    }
}
