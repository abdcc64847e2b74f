//! Network namespaces driven through iproute2.

use std::io::Write;
use std::os::fd::AsRawFd;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// Every namespace, temp dir and process argument the harness creates carries this prefix, so
/// a leak check can find anything left behind.
pub const PREFIX: &str = "hx-";

/// A name unique to this process and call: `hx-<prefix>-<pid>-<n>`.
pub fn unique_name(prefix: &str) -> String {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{PREFIX}{prefix}-{}-{n}", std::process::id())
}

/// A temporary directory `/tmp/hx-<prefix>-XXXXXX`, removed on drop.
pub fn scratch_dir(prefix: &str) -> Result<tempfile::TempDir, String> {
    tempfile::Builder::new()
        .prefix(&format!("{PREFIX}{prefix}-"))
        .tempdir()
        .map_err(|e| format!("temp dir: {e}"))
}

fn check(what: &str, out: std::io::Result<Output>) -> Result<String, String> {
    let out = out.map_err(|e| format!("{what}: cannot run: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{what}: {} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// A network namespace, deleted (with every link in it) on drop.
#[derive(Debug)]
pub struct Netns {
    name: String,
}

impl Netns {
    /// Creates `hx-<prefix>-<pid>-<n>` with `lo` up.
    pub fn new(prefix: &str) -> Result<Self, String> {
        let name = unique_name(prefix);
        check(
            "ip netns add",
            Command::new("ip").args(["netns", "add", &name]).output(),
        )?;
        let ns = Netns { name };
        ns.ip(&["link", "set", "lo", "up"])?;
        Ok(ns)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// A command that runs `program` inside the namespace (`ip netns exec`).
    pub fn command(&self, program: &str) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.name, program]);
        c
    }

    /// Runs `program args` inside the namespace; its stdout, or an error with its stderr.
    pub fn exec(&self, program: &str, args: &[&str]) -> Result<String, String> {
        check(
            &format!("{program} {}", args.join(" ")),
            self.command(program).args(args).output(),
        )
    }

    /// `ip -n <ns> <args>`.
    pub fn ip(&self, args: &[&str]) -> Result<String, String> {
        check(
            &format!("ip {}", args.join(" ")),
            Command::new("ip")
                .args(["-n", &self.name])
                .args(args)
                .output(),
        )
    }

    /// Many `ip` commands at once (`ip -n <ns> -batch -`), one per line: fast for bulk routes.
    pub fn ip_batch(&self, commands: &str) -> Result<(), String> {
        let mut child = Command::new("ip")
            .args(["-n", &self.name, "-batch", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("ip -batch: {e}"))?;
        child
            .stdin
            .take()
            .expect("piped stdin")
            .write_all(commands.as_bytes())
            .map_err(|e| format!("ip -batch: {e}"))?;
        check("ip -batch", child.wait_with_output()).map(drop)
    }

    /// `sysctl -w key=value` inside the namespace.
    pub fn sysctl(&self, key: &str, value: &str) -> Result<(), String> {
        self.exec("sysctl", &["-qw", &format!("{key}={value}")])
            .map(drop)
    }

    /// A stand-in for a NIC (no `dummy` module here): a veth pair `name` / `name`p, both up.
    /// The peer has IPv6 disabled so it carries no address of its own.
    pub fn nic(&self, name: &str) -> Result<(), String> {
        let peer = format!("{name}p");
        self.ip(&["link", "add", name, "type", "veth", "peer", "name", &peer])?;
        self.sysctl(&format!("net.ipv6.conf.{peer}.disable_ipv6"), "1")?;
        self.ip(&["link", "set", &peer, "up"])?;
        self.ip(&["link", "set", name, "up"]).map(drop)
    }

    /// A veth pair from this namespace (`here`) to `other` (`there`), both up.
    pub fn veth_to(&self, here: &str, other: &Netns, there: &str) -> Result<(), String> {
        self.ip(&[
            "link",
            "add",
            here,
            "type",
            "veth",
            "peer",
            "name",
            there,
            "netns",
            other.name(),
        ])?;
        self.ip(&["link", "set", here, "up"])?;
        other.ip(&["link", "set", there, "up"]).map(drop)
    }

    /// A Linux bridge (a shared L2 segment), up.
    pub fn bridge(&self, name: &str) -> Result<(), String> {
        self.ip(&["link", "add", name, "type", "bridge"])?;
        self.ip(&["link", "set", name, "up"]).map(drop)
    }

    /// `ip addr add <cidr> dev <dev> [extra...]`.
    pub fn addr(&self, dev: &str, cidr: &str, extra: &[&str]) -> Result<(), String> {
        let mut args = vec!["addr", "add", cidr, "dev", dev];
        args.extend_from_slice(extra);
        self.ip(&args).map(drop)
    }

    /// `ip route add <spec...>` (IPv6 is detected by iproute2 from the addresses).
    pub fn route(&self, spec: &[&str]) -> Result<(), String> {
        let mut args = vec!["route", "add"];
        args.extend_from_slice(spec);
        self.ip(&args).map(drop)
    }

    /// Runs `f` on a new thread that has joined this namespace: sockets it opens (netlink,
    /// tokio runtimes it builds) live in the namespace. The calling thread is unaffected.
    pub fn run_in<T: Send>(&self, f: impl FnOnce() -> T + Send) -> Result<T, String> {
        let path = format!("/run/netns/{}", self.name);
        let file = std::fs::File::open(&path).map_err(|e| format!("open {path}: {e}"))?;
        std::thread::scope(|scope| {
            scope
                .spawn(move || {
                    // SAFETY: setns on a valid namespace fd affects only this new thread.
                    if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
                        return Err(format!("setns {path}: {}", std::io::Error::last_os_error()));
                    }
                    Ok(f())
                })
                .join()
                .map_err(|_| "thread in namespace panicked".to_string())?
        })
    }

    /// Writes `/etc/netns/<name>/resolv.conf`, which `ip netns exec` bind-mounts over
    /// `/etc/resolv.conf` for every command it starts from now on. Removed on drop.
    pub fn set_resolv_conf(&self, text: &str) -> Result<(), String> {
        let dir = format!("/etc/netns/{}", self.name);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{dir}: {e}"))?;
        std::fs::write(format!("{dir}/resolv.conf"), text)
            .map_err(|e| format!("{dir}/resolv.conf: {e}"))
    }

    /// What a power cycle does to the namespace's links, for a node's reboot: the links software
    /// made (OVS's internal-port taps, NetworkManager's bridges and VLANs) are gone, the NICs
    /// (veths, standing in for hardware) stay, down and without addresses, and the main routing
    /// tables are empty. `while_off` runs then (the daemons that own links start again), and
    /// the NICs come up, as the firmware leaves them.
    pub fn power_cycle_links(
        &self,
        while_off: impl FnOnce() -> Result<(), String>,
    ) -> Result<(), String> {
        let text = self.ip(&["-j", "-d", "link", "show"])?;
        let links: Vec<serde_json::Value> =
            serde_json::from_str(&text).map_err(|e| format!("ip -j link show: {e}"))?;
        let mut nics = Vec::new();
        for link in &links {
            let name = link["ifname"].as_str().unwrap_or_default();
            if name == "lo" {
                continue;
            }
            if link["linkinfo"]["info_kind"] == "veth" {
                self.ip(&["link", "set", name, "down"])?;
                self.ip(&["addr", "flush", "dev", name])?;
                nics.push(name.to_owned());
            } else if let Err(e) = self.ip(&["link", "del", name]) {
                // A link can go with one deleted before it (a VLAN with its parent).
                if self.ip(&["link", "show", name]).is_ok() {
                    return Err(e);
                }
            }
        }
        for family in ["-4", "-6"] {
            self.ip(&[family, "route", "flush", "table", "main"])?;
        }
        while_off()?;
        for nic in &nics {
            self.ip(&["link", "set", nic, "up"])?;
        }
        Ok(())
    }

    /// The interface index of `dev`.
    pub fn ifindex(&self, dev: &str) -> Result<u32, String> {
        let text = self.exec("cat", &[&format!("/sys/class/net/{dev}/ifindex")])?;
        text.trim()
            .parse()
            .map_err(|e| format!("ifindex of {dev}: {e}"))
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // Deleting the namespace removes every link inside it.
        let _ = Command::new("ip")
            .args(["netns", "del", &self.name])
            .status();
        let _ = std::fs::remove_dir_all(format!("/etc/netns/{}", self.name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_links_addresses_and_cleanup() {
        if !crate::require_root("namespace_links_addresses_and_cleanup") {
            return;
        }
        let name;
        {
            let a = Netns::new("it-a").unwrap();
            let b = Netns::new("it-b").unwrap();
            name = a.name().to_owned();
            a.veth_to("up0", &b, "down0").unwrap();
            a.addr("up0", "192.0.2.1/24", &[]).unwrap();
            b.addr("down0", "192.0.2.2/24", &[]).unwrap();
            a.nic("eth9").unwrap();
            assert!(a.ifindex("eth9").unwrap() > 1);
            b.exec("ping", &["-c1", "-W2", "192.0.2.1"]).unwrap();
            assert!(
                a.ip(&["link", "show", "nope"])
                    .unwrap_err()
                    .contains("nope")
            );
        }
        let list = String::from_utf8(
            Command::new("ip")
                .args(["netns", "list"])
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        assert!(!list.contains(&name), "namespace {name} left behind");
    }
}
