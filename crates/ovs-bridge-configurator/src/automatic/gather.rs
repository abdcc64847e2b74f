//! Everything the planner reads: NetworkManager's profiles and devices, the kernel's state and
//! the input files.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use selection::Snapshot;
use selection::netlink::NetlinkReader;
use selection::runfiles::{NodeIpFiles, read_ip_file};
use zbus::zvariant::OwnedObjectPath;

use crate::automatic::error::ConvertError;
use crate::automatic::plan::{self, Files, PlanError};
use crate::nm::Nm;
use crate::nm::profile::{self as p, ProfileView};
use crate::settings::Settings;

/// Where the input files are, from the settings.
pub struct Inputs {
    /// nodeip-selector's files: the node IP to convert around, and the node IPs per family.
    pub node_ip_files: NodeIpFiles,
    /// OVN-Kubernetes' bridge files: the interface each bridge is to be built on.
    pub default_bridge: PathBuf,
    pub extra_bridge: PathBuf,
    /// The hint: the interface br-ex was on.
    pub hint: PathBuf,
}

impl Inputs {
    /// The files the settings name (tests point them at a temporary directory).
    pub fn from_settings(s: &Settings) -> Inputs {
        Inputs {
            node_ip_files: s.node_ip_files(),
            default_bridge: s.default_bridge(),
            extra_bridge: s.extra_bridge(),
            hint: s.hint(),
        }
    }
}

/// Everything the planner reads.
pub struct Gathered {
    pub profiles: Vec<(OwnedObjectPath, plan::Profile)>,
    pub devices: Vec<(OwnedObjectPath, plan::Device)>,
    pub snapshot: Snapshot,
    pub files: Files,
    /// The node IPs per family nodeip-selector wrote (`ipv4`, `ipv6`): on a dual-stack node
    /// kubelet gets both, so br-ex must carry both before the run ends.
    pub node_ips: Vec<IpAddr>,
}

impl Gathered {
    /// The plan for what was gathered; `new_uuid` names the profiles it creates.
    pub fn plan(&self, new_uuid: &mut dyn FnMut() -> String) -> Result<plan::Plan, PlanError> {
        let profiles = self.planner_profiles();
        let devices: Vec<plan::Device> = self.devices.iter().map(|(_, d)| d.clone()).collect();
        plan::plan(&profiles, &devices, &self.snapshot, &self.files, new_uuid)
    }

    /// The profiles without their D-Bus paths, as the pure planner takes them.
    pub(crate) fn planner_profiles(&self) -> Vec<plan::Profile> {
        self.profiles
            .iter()
            .map(|(_, x)| plan::Profile {
                settings: p::clone_settings(&x.settings),
                active: x.active,
            })
            .collect()
    }

    pub(crate) fn path_of(&self, id: &str) -> Option<&OwnedObjectPath> {
        self.profiles
            .iter()
            .find(|(_, x)| x.id() == id)
            .map(|(path, _)| path)
    }
}

/// A file's text without its trailing newlines; `None` when it cannot be read (a missing file
/// says nothing).
pub(crate) fn read_text(path: &Path) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|t| t.trim_end_matches('\n').to_owned())
}

/// Reads NM, the kernel and the input files.
pub async fn gather(
    nm: &Nm,
    reader: &mut NetlinkReader,
    inputs: &Inputs,
) -> Result<Gathered, ConvertError> {
    let devices = devices(nm).await?;
    let profiles = profiles(nm, &devices).await?;
    let files = files(inputs);
    let node_ips = node_ips(&inputs.node_ip_files);
    Ok(Gathered {
        profiles,
        devices,
        snapshot: reader.snapshot().await?,
        files,
        node_ips,
    })
}

/// NetworkManager's devices, with their D-Bus paths.
async fn devices(nm: &Nm) -> Result<Vec<(OwnedObjectPath, plan::Device)>, ConvertError> {
    Ok(nm
        .devices()
        .await?
        .into_iter()
        .map(|d| {
            (
                d.path,
                plan::Device {
                    interface: d.interface,
                    device_type: d.device_type,
                    active_uuid: d.active_uuid,
                },
            )
        })
        .collect())
}

/// NetworkManager's profiles, with their D-Bus paths; active when some device of `devices` has
/// them active.
async fn profiles(
    nm: &Nm,
    devices: &[(OwnedObjectPath, plan::Device)],
) -> Result<Vec<(OwnedObjectPath, plan::Profile)>, ConvertError> {
    let active: Vec<&str> = devices
        .iter()
        .filter_map(|(_, d)| d.active_uuid.as_deref())
        .collect();
    Ok(nm
        .profiles()
        .await?
        .into_iter()
        .map(|x| {
            let is_active = active.contains(&x.uuid().as_str());
            (
                x.path,
                plan::Profile {
                    settings: x.settings,
                    active: is_active,
                },
            )
        })
        .collect())
}

/// The input files; an unreadable primary-ip file counts as absent.
fn files(inputs: &Inputs) -> Files {
    let primary_ip = read_ip_file(&inputs.node_ip_files.primary_ip()).unwrap_or_else(|e| {
        tracing::warn!("ignoring {e}");
        None
    });
    Files {
        default_bridge: std::fs::read_to_string(&inputs.default_bridge).ok(),
        primary_ip,
        hint: read_text(&inputs.hint),
        extra_bridge: read_text(&inputs.extra_bridge)
            .and_then(|t| t.lines().next().map(str::to_owned)),
    }
}

/// The node IPs nodeip-selector wrote, IPv4 first; a missing or unreadable file adds none.
fn node_ips(ip_files: &NodeIpFiles) -> Vec<IpAddr> {
    [ip_files.ipv4(), ip_files.ipv6()]
        .iter()
        .filter_map(|f| read_ip_file(f).ok().flatten())
        .collect()
}
