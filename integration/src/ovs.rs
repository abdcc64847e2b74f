//! Open vSwitch (ovsdb-server + ovs-vswitchd) inside a namespace, on the kernel's datapath where
//! the kernel has one ([`kernel_datapath`]) and the userspace one otherwise, with private
//! run/db/log directories, running as RHEL/RHCOS run it: as a dedicated user
//! (`OVS_USER_ID=openvswitch:hugetlbfs`), so its sockets are `srwxr-x---` and owned by that user,
//! and root without `CAP_DAC_OVERRIDE` cannot connect.

use std::os::unix::fs::{PermissionsExt, chown};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::netns::Netns;
use crate::process::{Daemon, output, wait_for_start};

/// Whether the running kernel has OVS's datapath (the `openvswitch` module is loaded, as on a
/// node and inside a real-kernel guest): then the harness runs as production does, with
/// NetworkManager's default (`system`) datapath, no `HARNESS_NM_OVS_*` switches and no healing
/// of br-ex; elsewhere (this machine's kernel has no such module) it falls back to the
/// userspace datapath and its harness-only workarounds.
pub fn kernel_datapath() -> bool {
    Path::new("/sys/module/openvswitch").exists()
}

/// The numeric user and group OVS runs as: RHEL's `openvswitch:hugetlbfs` without touching the
/// host's user database (the daemons need no names; ownership and modes are what matter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OvsUser {
    pub uid: u32,
    pub gid: u32,
}

impl OvsUser {
    /// The first id from 900 up that neither /etc/passwd nor /etc/group uses, for both.
    pub fn unused() -> OvsUser {
        let used = |file: &str| -> Vec<u32> {
            std::fs::read_to_string(file)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| l.split(':').nth(2)?.parse().ok())
                .collect()
        };
        let (users, groups) = (used("/etc/passwd"), used("/etc/group"));
        let id = (900..)
            .find(|id| !users.contains(id) && !groups.contains(id))
            .expect("a free id");
        OvsUser { uid: id, gid: id }
    }

    /// `program` under `setpriv` as this user, with exactly the capabilities OVS's `--user`
    /// keeps (`CAP_NET_ADMIN`, `CAP_NET_RAW`, `CAP_NET_BIND_SERVICE`; lib/daemon-unix.c).
    fn command(&self, ns: &Netns, program: &str) -> Command {
        let caps = "+net_admin,+net_raw,+net_bind_service";
        let mut c = ns.command("setpriv");
        c.arg(format!("--reuid={}", self.uid))
            .arg(format!("--regid={}", self.gid))
            .arg("--clear-groups")
            .arg(format!("--inh-caps=-all,{caps}"))
            .arg(format!("--ambient-caps=-all,{caps}"))
            .arg(format!("--bounding-set=-all,{caps}"))
            .arg("--")
            .arg(program);
        c
    }
}

/// An OVS instance. Drop removes its bridges and taps (`exit --cleanup`) and stops both daemons.
#[derive(Debug)]
pub struct Ovs {
    rundir: PathBuf,
    user: OvsUser,
    vswitchd: Option<Daemon>,
    ovsdb: Daemon,
}

/// Lets `user` reach `dir` through the test's private temp dirs (created 0700 by root), as
/// `/run` is reachable on a node: search permission for others on each ancestor below the
/// system temp dir.
fn make_reachable(dir: &Path) -> Result<(), String> {
    let tmp = std::env::temp_dir();
    for a in dir.ancestors().skip(1) {
        if a == tmp || !a.starts_with(&tmp) {
            break;
        }
        let mode = std::fs::metadata(a)
            .map_err(|e| e.to_string())?
            .permissions()
            .mode();
        std::fs::set_permissions(a, std::fs::Permissions::from_mode(mode | 0o001))
            .map_err(|e| format!("chmod {}: {e}", a.display()))?;
    }
    Ok(())
}

impl Ovs {
    /// Starts OVS in `ns` with its sockets, database and logs in `rundir` (a node's
    /// `/run/openvswitch`, so NetworkManager finds `db.sock` where production has it), as a
    /// dedicated user that owns `rundir` and the database.
    pub fn start(ns: &Netns, rundir: &Path) -> Result<Ovs, String> {
        let user = OvsUser::unused();
        std::fs::create_dir_all(rundir).map_err(|e| e.to_string())?;
        make_reachable(rundir)?;
        chown(rundir, Some(user.uid), Some(user.gid))
            .map_err(|e| format!("chown {}: {e}", rundir.display()))?;
        output(
            user.command(ns, "ovsdb-tool")
                .arg("create")
                .arg(rundir.join("conf.db"))
                .arg("/usr/share/openvswitch/vswitch.ovsschema"),
        )?;
        let ovsdb = Self::spawn_ovsdb(ns, rundir, user)?;
        let mut ovs = Ovs {
            rundir: rundir.to_owned(),
            user,
            vswitchd: None,
            ovsdb,
        };
        ovs.vsctl(&["--no-wait", "init"])?;
        ovs.vswitchd = Some(ovs.spawn_vswitchd(ns)?);
        Ok(ovs)
    }

    /// What a node's reboot does to OVS and the links of `ns`: both daemons stop, the links go
    /// as with a power cycle ([`Netns::power_cycle_links`]: the bridges' taps too, which
    /// ovs-vswitchd leaves behind on SIGTERM while the kernel datapath's ports go with the
    /// kernel), and the daemons start again on the database they left, so the previous boot's
    /// bridges, ports and interfaces are still in it. A tap left over would be adopted by the
    /// new ovs-vswitchd without NetworkManager ever seeing it appear, and the ovs-interface
    /// would wait for it forever.
    pub fn reboot(&mut self, ns: &Netns) -> Result<(), String> {
        if let Some(mut v) = self.vswitchd.take() {
            v.stop(Duration::from_secs(5));
        }
        self.ovsdb.stop(Duration::from_secs(5));
        ns.power_cycle_links(|| {
            self.ovsdb = Self::spawn_ovsdb(ns, &self.rundir, self.user)?;
            self.vswitchd = Some(self.spawn_vswitchd(ns)?);
            Ok(())
        })
    }

    /// The environment both daemons run with: everything in `rundir`.
    fn env(rundir: &Path, c: &mut Command) {
        for k in ["OVS_RUNDIR", "OVS_DBDIR", "OVS_LOGDIR"] {
            c.env(k, rundir);
        }
    }

    fn spawn_ovsdb(ns: &Netns, rundir: &Path, user: OvsUser) -> Result<Daemon, String> {
        let sock = rundir.join("db.sock");
        // A stopped server's socket would pass the wait below before the new one listens.
        let _ = std::fs::remove_file(&sock);
        let mut cmd = user.command(ns, "ovsdb-server");
        Self::env(rundir, &mut cmd);
        cmd.arg(rundir.join("conf.db"))
            .arg(format!("--remote=punix:{}", sock.display()))
            .arg(format!(
                "--pidfile={}",
                rundir.join("ovsdb-server.pid").display()
            ))
            .arg("--no-chdir");
        let ovsdb = Daemon::spawn("ovsdb-server", &mut cmd, &rundir.join("ovsdb-server.log"))?;
        if !wait_for_start(Duration::from_secs(5), || sock.exists()) {
            return Err(format!("ovsdb-server did not start: {}", ovsdb.log_tail(5)));
        }
        Ok(ovsdb)
    }

    fn spawn_vswitchd(&self, ns: &Netns) -> Result<Daemon, String> {
        let rundir = &self.rundir;
        let mut cmd = self.user.command(ns, "ovs-vswitchd");
        Self::env(rundir, &mut cmd);
        cmd.arg(format!("unix:{}", rundir.join("db.sock").display()))
            .arg(format!(
                "--pidfile={}",
                rundir.join("ovs-vswitchd.pid").display()
            ))
            .arg("--no-chdir");
        let vswitchd = Daemon::spawn("ovs-vswitchd", &mut cmd, &rundir.join("ovs-vswitchd.log"))?;
        let ctl = rundir.join(format!("ovs-vswitchd.{}.ctl", vswitchd.pid()));
        if !wait_for_start(Duration::from_secs(10), || ctl.exists()) {
            return Err(format!(
                "ovs-vswitchd did not start: {}",
                vswitchd.log_tail(5)
            ));
        }
        Ok(vswitchd)
    }

    /// The user OVS runs as (the owner of its sockets).
    pub fn user(&self) -> OvsUser {
        self.user
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
