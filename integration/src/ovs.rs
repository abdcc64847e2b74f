//! Open vSwitch (ovsdb-server + ovs-vswitchd) inside a namespace, userspace datapath, with
//! private run/db/log directories.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::netns::Netns;
use crate::process::{Daemon, output, wait_for};

/// An OVS instance. Drop removes its bridges and taps (`exit --cleanup`) and stops both daemons.
#[derive(Debug)]
pub struct Ovs {
    rundir: PathBuf,
    vswitchd: Option<Daemon>,
    _ovsdb: Daemon,
}

impl Ovs {
    /// Starts OVS in `ns` with its sockets, database and logs in `rundir` (a node's
    /// `/run/openvswitch`, so NetworkManager finds `db.sock` where production has it).
    pub fn start(ns: &Netns, rundir: &Path) -> Result<Ovs, String> {
        std::fs::create_dir_all(rundir).map_err(|e| e.to_string())?;
        let db = rundir.join("conf.db");
        output(
            Command::new("ovsdb-tool")
                .arg("create")
                .arg(&db)
                .arg("/usr/share/openvswitch/vswitch.ovsschema"),
        )?;
        let sock = rundir.join("db.sock");
        let env = |c: &mut Command| {
            for k in ["OVS_RUNDIR", "OVS_DBDIR", "OVS_LOGDIR"] {
                c.env(k, rundir);
            }
        };
        let mut cmd = ns.command("ovsdb-server");
        env(&mut cmd);
        cmd.arg(&db)
            .arg(format!("--remote=punix:{}", sock.display()))
            .arg(format!(
                "--pidfile={}",
                rundir.join("ovsdb-server.pid").display()
            ))
            .arg("--no-chdir");
        let ovsdb = Daemon::spawn("ovsdb-server", &mut cmd, &rundir.join("ovsdb-server.log"))?;
        if !wait_for(Duration::from_secs(5), || sock.exists()) {
            return Err(format!("ovsdb-server did not start: {}", ovsdb.log_tail(5)));
        }
        let mut ovs = Ovs {
            rundir: rundir.to_owned(),
            vswitchd: None,
            _ovsdb: ovsdb,
        };
        ovs.vsctl(&["--no-wait", "init"])?;
        let mut cmd = ns.command("ovs-vswitchd");
        env(&mut cmd);
        cmd.arg(format!("unix:{}", sock.display()))
            .arg(format!(
                "--pidfile={}",
                rundir.join("ovs-vswitchd.pid").display()
            ))
            .arg("--no-chdir");
        let vswitchd = Daemon::spawn("ovs-vswitchd", &mut cmd, &rundir.join("ovs-vswitchd.log"))?;
        let ctl = rundir.join(format!("ovs-vswitchd.{}.ctl", vswitchd.pid()));
        if !wait_for(Duration::from_secs(10), || ctl.exists()) {
            return Err(format!(
                "ovs-vswitchd did not start: {}",
                vswitchd.log_tail(5)
            ));
        }
        ovs.vswitchd = Some(vswitchd);
        Ok(ovs)
    }

    /// Fault injection: kills ovs-vswitchd (the database stays up), as a crash would.
    pub fn kill_vswitchd(&mut self) {
        if let Some(mut v) = self.vswitchd.take() {
            let _ = v.signal(9);
            v.stop(Duration::from_secs(5));
        }
    }

    /// `ovs-vsctl` against this instance (10 s timeout).
    pub fn vsctl(&self, args: &[&str]) -> Result<String, String> {
        output(
            Command::new("ovs-vsctl")
                .arg(format!(
                    "--db=unix:{}",
                    self.rundir.join("db.sock").display()
                ))
                .arg("--timeout=10")
                .args(args),
        )
    }

    /// `ovs-appctl` against this instance's vswitchd.
    pub fn appctl(&self, args: &[&str]) -> Result<String, String> {
        let pid = self.vswitchd.as_ref().map_or(0, Daemon::pid);
        output(
            Command::new("ovs-appctl")
                .arg("-t")
                .arg(self.rundir.join(format!("ovs-vswitchd.{pid}.ctl")))
                .args(args),
        )
    }
}

impl Drop for Ovs {
    fn drop(&mut self) {
        // Removes the bridges' taps; the namespace's deletion would too, but not before.
        let _ = self.appctl(&["exit", "--cleanup"]);
        if let Some(mut v) = self.vswitchd.take() {
            v.stop(Duration::from_secs(5));
        }
    }
}
