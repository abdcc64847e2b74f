//! A node on a real Linux kernel: User-Mode Linux (Debian's `user-mode-linux`, Linux 6.1 as an
//! ordinary process) booted over the host's root, with the kernel's bonding, team, 8021q and
//! openvswitch modules, OVS on the kernel (`system`) datapath and the harness's NetworkManager
//! build with none of its `HARNESS_*` switches: the kernel a node has, where this machine's own
//! kernel has none of those modules (reference: real-kernel.md).
//!
//! The guest runs `uml/init.sh`: everything it writes lands on tmpfs or overlays, except one
//! exchange directory shared with the host, through which tests hand it shell scripts and read
//! their output, exit status and the daemons' logs. Dropping the node powers the kernel off and
//! kills what is left of the `linux` process group; the scratch directory goes with it.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::{network_manager, nm_ovs_build};

pub mod uplink;
mod xstate;

/// The UML kernel binary `user-mode-linux` installs.
pub const KERNEL: &str = "/usr/bin/linux";

/// Where `user-mode-linux` keeps its modules, one directory per kernel release.
pub const MODULES: &str = "/usr/lib/uml/modules";

const INIT: &str = include_str!("../../uml/init.sh");
/// The MCO commit whose configure-ovs.sh the real-kernel tier compares with (the commit the MCO
/// templates are pinned to).
pub const MCO_COMMIT: &str = "7ff337a4";

/// Where configure-ovs.sh is in MCO's tree: the `inline` contents of a MachineConfig file.
const CONFIGURE_OVS_TEMPLATE: &str = "templates/common/_base/files/configure-ovs-network.yaml";

/// MCO's configure-ovs.sh, unmodified, from the MCO checkout (at [`MCO_COMMIT`]) that
/// `MCO_CHECKOUT` names; `None` without one. It is not in this repository: without a checkout,
/// tests compare against the profiles it made, recorded as expected data.
pub fn configure_ovs() -> Result<Option<String>, String> {
    let Some(checkout) = std::env::var_os("MCO_CHECKOUT") else {
        return Ok(None);
    };
    let path = Path::new(&checkout).join(CONFIGURE_OVS_TEMPLATE);
    let yaml = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    // The block scalar after `  inline: |`, indented by four spaces, to the end of the file.
    let mut lines = yaml.lines().skip_while(|l| l.trim_end() != "  inline: |");
    if lines.next().is_none() {
        return Err(format!("{}: no `inline: |` block", path.display()));
    }
    let mut script: String = lines
        .map(|l| l.strip_prefix("    ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n");
    script.push('\n');
    Ok(Some(script))
}

/// How long boot may take until the guest serves commands (about 10 s here).
const BOOT_TIMEOUT: Duration = Duration::from_secs(90);

/// Whether the caller may run a real-kernel test: root and the UML kernel. Prints why not;
/// panics under `CI=true`, where a skip is a failure.
pub fn require(test: &str) -> bool {
    if !crate::require_root(test) {
        return false;
    }
    let missing = module_release().is_none() || !Path::new(KERNEL).exists();
    if missing {
        let msg =
            format!("{test}: needs User-Mode Linux ({KERNEL}, {MODULES}): run `cargo xtask deps`");
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{msg} (CI=true: a skip is a failure)"
        );
        eprintln!("SKIPPED {msg}");
    }
    !missing
}

fn module_release() -> Option<String> {
    fs::read_dir(MODULES)
        .ok()?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .next()
}

/// The output and exit status of one script run inside the node.
#[derive(Debug)]
pub struct Run {
    pub status: i32,
    pub output: String,
}

/// One real-kernel node at a time in a process: with two nodes and another suite sharing two
/// cores, a guest was seen to stall (one `apply-nmstate` made no progress for ten minutes that
/// takes 40 s alone), and a tier that only passes on an idle machine proves nothing.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A running real-kernel node.
pub struct RealKernelNode {
    name: String,
    memory: String,
    dir: tempfile::TempDir,
    child: Option<Child>,
    next: AtomicU32,
    /// Released last, once the kernel is gone and the scratch directory removed.
    _turn: MutexGuard<'static, ()>,
}

impl RealKernelNode {
    /// Boots a node with hostname `name` and waits until D-Bus, OVS and NetworkManager run.
    pub fn boot(name: &str) -> Result<RealKernelNode, String> {
        Self::boot_with_memory(name, "512M")
    }

    /// As [`Self::boot`], with `memory` (UML's `mem=`: `2G`) for a guest that runs more than
    /// one node's daemons.
    pub fn boot_with_memory(name: &str, memory: &str) -> Result<RealKernelNode, String> {
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
        let release = module_release().ok_or(format!("no UML modules under {MODULES}"))?;
        let dir = crate::scratch_dir("uml")?;
        let modroot = dir.path().join("mod/lib/modules");
        fs::create_dir_all(&modroot).map_err(|e| e.to_string())?;
        std::os::unix::fs::symlink(Path::new(MODULES).join(&release), modroot.join(&release))
            .map_err(|e| e.to_string())?;
        for d in ["x", "uml", "x/nm", "x/nm/conf.d"] {
            fs::create_dir(dir.path().join(d)).map_err(|e| e.to_string())?;
        }
        let nm = dir.path().join("x/nm");
        fs::write(nm.join("NetworkManager.conf"), network_manager::CONFIG)
            .map_err(|e| e.to_string())?;
        for (name, text) in network_manager::CONF_D {
            if !name.contains("-harness-") {
                fs::write(nm.join("conf.d").join(name), text).map_err(|e| e.to_string())?;
            }
        }
        let init = dir.path().join("init.sh");
        fs::write(&init, INIT).map_err(|e| e.to_string())?;
        fs::set_permissions(&init, fs::Permissions::from_mode(0o755)).map_err(|e| e.to_string())?;
        let mut node = RealKernelNode {
            name: name.to_owned(),
            memory: memory.to_owned(),
            dir,
            child: None,
            next: AtomicU32::new(0),
            _turn: turn,
        };
        node.start()?;
        Ok(node)
    }

    /// Starts the kernel over the scratch directory and waits until the guest serves commands.
    fn start(&mut self) -> Result<(), String> {
        let dir = self.dir.path();
        let console = fs::File::options()
            .create(true)
            .append(true)
            .open(dir.join("console.log"))
            .map_err(|e| e.to_string())?;
        let p = |sub: &str| dir.join(sub).display().to_string();
        let mut kernel = Command::new(KERNEL);
        if xstate::host_area_differs() {
            xstate::without_xstate_regset(&mut kernel);
            kernel.arg(xstate::GUEST_GLIBC_TUNABLES);
        }
        let child = kernel
            .args([
                format!("mem={}", self.memory),
                "rootfstype=hostfs".to_owned(),
                "ro".to_owned(),
                format!("init={}", p("init.sh")),
                "con=null".to_owned(),
                "con0=null,fd:1".to_owned(),
                format!("uml_dir={}", p("uml")),
                format!("umid={}", dir.file_name().unwrap().to_string_lossy()),
                format!("XCHG={}", p("x")),
                format!("MODROOT={}", p("mod")),
                format!("NM_PREFIX={}", nm_ovs_build::current().display()),
                format!("NODE_NAME={}", self.name),
            ])
            .current_dir("/")
            .stdin(Stdio::null())
            .stdout(console.try_clone().map_err(|e| e.to_string())?)
            .stderr(console)
            .process_group(0)
            .spawn()
            .map_err(|e| format!("{KERNEL}: {e}"))?;
        self.child = Some(child);
        self.wait_for_file("ready", BOOT_TIMEOUT)?;
        Ok(())
    }

    /// Reboots the node as a node reboots: what it wrote under /etc and /var (profiles, the
    /// OVS database, /var/lib/ovnk) survives; /run, the kernel's state and the switch inside it
    /// do not, so the caller cables the switch again.
    pub fn reboot(&mut self) -> Result<(), String> {
        self.sh(
            "sync; tar -C /run/ov --xattrs --xattrs-include='*' -cf /run/x/persist.tar etc/u var/u",
        )?;
        self.power_off(Duration::from_secs(10));
        // The next boot's commands start again at 0.
        let x = self.exchange();
        for e in fs::read_dir(&x).map_err(|e| e.to_string())?.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let command = [".sh", ".rc", ".out", ".tmp"]
                .iter()
                .any(|ext| name.ends_with(ext));
            if command || name == "ready" {
                fs::remove_file(e.path()).map_err(|e| e.to_string())?;
            }
        }
        self.next.store(0, Ordering::Relaxed);
        self.start()
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The exchange directory: the guest sees it as `/run/x`.
    pub fn exchange(&self) -> PathBuf {
        self.dir.path().join("x")
    }

    /// A file the guest wrote in its exchange directory (`nm.log`, `ovs-vswitchd.log`, ...).
    pub fn file(&self, name: &str) -> String {
        fs::read_to_string(self.exchange().join(name)).unwrap_or_default()
    }

    /// Runs `script` with bash inside the node; waits up to `timeout`.
    pub fn run(&mut self, script: &str, timeout: Duration) -> Result<Run, String> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let x = self.exchange();
        let tmp = x.join(format!("{n}.tmp"));
        fs::write(&tmp, script).map_err(|e| e.to_string())?;
        fs::rename(&tmp, x.join(format!("{n}.sh"))).map_err(|e| e.to_string())?;
        let rc = self.wait_for_file(&format!("{n}.rc"), timeout)?;
        let status = rc
            .trim()
            .parse()
            .map_err(|_| format!("{}: bad exit status {rc:?}", self.name))?;
        Ok(Run {
            status,
            output: self.file(&format!("{n}.out")),
        })
    }

    /// Runs `script` and returns its output; a non-zero exit is an error carrying the output.
    pub fn sh(&mut self, script: &str) -> Result<String, String> {
        let run = self.run(script, Duration::from_secs(120))?;
        if run.status != 0 {
            return Err(format!(
                "{}: exit {} from\n{script}\n--- output\n{}",
                self.name, run.status, run.output
            ));
        }
        Ok(run.output)
    }

    /// Waits for the guest to write `name` (non-empty) in the exchange directory.
    fn wait_for_file(&mut self, name: &str, timeout: Duration) -> Result<String, String> {
        let path = self.exchange().join(name);
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(text) = fs::read_to_string(&path)
                && text.ends_with('\n')
            {
                return Ok(text);
            }
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                return Err(format!(
                    "{}: the kernel exited ({status}) waiting for {name}\n{}",
                    self.name,
                    self.diagnostics()
                ));
            }
            if Instant::now() > deadline {
                // A command that did not finish: what it printed so far.
                let partial = name
                    .strip_suffix(".rc")
                    .map(|n| tail(&self.exchange().join(format!("{n}.out")), 40))
                    .unwrap_or_default();
                return Err(format!(
                    "{}: no {name} within {timeout:?}\n--- its output\n{partial}\n{}",
                    self.name,
                    self.diagnostics()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The tails of the console, init, NetworkManager and ovs-vswitchd logs, for failure
    /// messages (an OVS interface stuck in NetworkManager is often explained by vswitchd's).
    pub fn diagnostics(&self) -> String {
        format!(
            "--- console\n{}\n--- init.log\n{}\n--- nm.log\n{}\n--- ovs-vswitchd.log\n{}",
            tail(&self.dir.path().join("console.log"), 15),
            tail(&self.exchange().join("init.log"), 15),
            tail(&self.exchange().join("nm.log"), 60),
            tail(&self.exchange().join("ovs-vswitchd.log"), 30),
        )
    }

    /// Powers the kernel off (its process exits) and waits for it; kills the process group if
    /// it does not go within `grace`.
    pub fn power_off(&mut self, grace: Duration) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let x = self.exchange();
        let _ = fs::write(x.join(format!("{n}.sh")), "echo o > /proc/sysrq-trigger\n");
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if matches!(child.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // UML runs as several host processes in the group; none may outlive the node.
        // SAFETY: plain syscall on the process group we created.
        unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
        let _ = child.wait();
    }
}

impl Drop for RealKernelNode {
    fn drop(&mut self) {
        self.power_off(Duration::from_secs(5));
    }
}

/// The last `n` lines of a file (empty if it cannot be read).
fn tail(path: &Path, n: usize) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    // ovs-vswitchd's periodic coverage counters say nothing about what went wrong.
    let lines: Vec<&str> = text.lines().filter(|l| !l.contains("|coverage|")).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}
