//! The pure core: (settings, kernel snapshot, node-IP files, peers, mode) -> keepalived.conf
//! model, with the reference's split-brain rules.

use std::net::IpAddr;

use selection::holder::{Lookup, find_interface};
use selection::net::{Cidr, go_text};
use selection::{Request, Snapshot, Target, TargetRole, select};

use crate::model::{Instance, Keepalived, Script, SyncGroup};
use crate::model::{Mode, Role};
use crate::peers::{Peer, Peers};
use crate::settings::Settings;
use crate::vrid::vr_ids;

/// Track scripts of the API and ingress instances (MCO's templates).
pub const API_CHECKS: [&str; 3] = ["chk_ocp_lb", "chk_ocp_both", "chk_mcs"];
pub const INGRESS_CHECKS: [&str; 3] = ["chk_ingress", "chk_ingress_ready", "chk_default_ingress"];

/// Why no configuration may be rendered; the live one stays.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("no interface holds an address for the {0} VIPs")]
    NoInterface(String),
    #[error(
        "only {0} API backend(s) known; every node but the bootstrap needs at least 2 in unicast (split-brain protection)"
    )]
    TooFewBackends(usize),
    #[error("cluster name {0:?} gives no virtual router IDs")]
    NoVrid(String),
}

/// Everything the builder reads.
pub struct Inputs<'a> {
    pub settings: &'a Settings,
    pub snapshot: &'a Snapshot,
    /// `/run/nodeip-configuration/ipv4` and `ipv6`.
    pub node_ipv4: Option<IpAddr>,
    pub node_ipv6: Option<IpAddr>,
    pub peers: &'a Peers,
    pub mode: Mode,
    pub remote_worker: bool,
}

/// The VRRP interface and source address for a family: the interface holding the node-IP file's
/// address (this is how keepalived follows the IP onto br-ex), else the address selection picks
/// for the VIPs (subnet match, then default route), as upstream.
pub fn vrrp_source(inp: &Inputs<'_>, vips: &[IpAddr]) -> Option<(String, IpAddr)> {
    let v6 = vips.first()?.is_ipv6();
    let file_ip = if v6 { inp.node_ipv6 } else { inp.node_ipv4 };
    if let Some(h) = file_ip.and_then(|ip| find_interface(inp.snapshot, ip, Lookup::Exact)) {
        return Some((h.interface, h.address.ip));
    }
    let req = Request {
        targets: vips
            .iter()
            .map(|ip| Target {
                ip: *ip,
                role: TargetRole::Vip,
            })
            .collect(),
        prefer_ipv6: v6,
        network_type: String::new(),
    };
    let sel = select(inp.snapshot, &req);
    let ip = sel.addresses.iter().copied().find(|a| a.is_ipv6() == v6)?;
    let h = find_interface(inp.snapshot, ip, Lookup::Exact)?;
    Some((h.interface, ip))
}

/// A node's address for a VIP family, upstream's `getNodeIpForRequestedIpStack`: with a known
/// machine network, the **last** InternalIP of the family; else, from the OVN annotations, this
/// node's own VRRP source when listed (so it is always in its own peer list), else the **first**
/// annotation address of the family inside the machine network. Without a machine network
/// (VIPs off every local subnet), the **first** InternalIP of the family.
///
/// Decision: where upstream appends an empty peer string, the node is left out.
pub fn peer_address(
    peer: &Peer,
    vips: &[IpAddr],
    machine: Option<Cidr>,
    own: IpAddr,
) -> Option<IpAddr> {
    let v6 = vips.first()?.is_ipv6();
    let family = |a: &&IpAddr| a.is_ipv6() == v6;
    let Some(machine) = machine else {
        return peer.addresses.iter().find(family).copied();
    };
    if let Some(last) = peer.addresses.iter().rfind(family) {
        return Some(*last);
    }
    if peer.ovn_addresses.contains(&own) {
        return Some(own);
    }
    peer.ovn_addresses
        .iter()
        .filter(family)
        .find(|a| !vips.contains(a) && machine.contains(**a))
        .copied()
}

/// keepalived truncates PASS passwords to 8 characters, and `keepalived -t` rejects longer
/// ones. Rendering the first 8 keeps the wire password upstream's nodes use.
///
/// Upstream also renders `authentication` and `label vip` for IPv6 VIPs; keepalived ignores
/// both there (VRRPv3 has no authentication, Linux labels only IPv4 addresses) but warns, and
/// the warnings make `keepalived -t` fail. Leaving them out changes nothing on the wire and
/// lets IPv6 candidates pass validation.
fn auth(cluster: &str, kind: &str, vip: IpAddr) -> Option<String> {
    vip.is_ipv4()
        .then(|| format!("{cluster}_{kind}_vip").chars().take(8).collect())
}

/// An empty peer list as upstream's placeholder backend (`0.0.0.0`, `::` for IPv6). Upstream
/// renders an empty `unicast_peer {}` here (a bootstrap before any master is known, a lone
/// worker); keepalived 2.2.7 then falls back to multicast with a warning, and `keepalived -t`
/// rejects the file (exit 5), so it would never pass our gate. The placeholder (which upstream
/// itself uses for two-node topologies) keeps the instance unicast, alone, and the file's
/// `unicast_peer` block, which is how the running mode is read back.
fn or_placeholder(peers: Vec<String>, src: IpAddr) -> Vec<String> {
    if !peers.is_empty() {
        return peers;
    }
    vec![placeholder(src)]
}

/// Upstream's placeholder backend address for `ip`'s family.
fn placeholder(ip: IpAddr) -> String {
    if ip.is_ipv6() { "::" } else { "0.0.0.0" }.to_owned()
}

/// How many API backends upstream lists for the VIPs `vips` (their family): with a known
/// machine network every master, an unresolved one as an empty entry; without one, the masters
/// with an InternalIP of the family.
fn known_backends(inp: &Inputs<'_>, vips: &[IpAddr], masters: &[&Peer]) -> usize {
    let v6 = vips[0].is_ipv6();
    if find_interface(inp.snapshot, vips[0], Lookup::Subnet).is_some() {
        return masters.len();
    }
    masters
        .iter()
        .filter(|m| m.addresses.iter().any(|a| a.is_ipv6() == v6))
        .count()
}

/// Builds the configuration.
pub fn build(inp: &Inputs<'_>) -> Result<Keepalived, BuildError> {
    let s = inp.settings;
    let mut conf = Keepalived::default();
    if inp.remote_worker {
        conf.notes.push(format!(
            "remote worker ({} exists): no VIP subnet is local to this node, so it runs no VRRP instance",
            s.node_ip_files().remote_worker().display()
        ));
        return Ok(conf);
    }
    let cx = Context::new(inp)?;
    let count = s.api_vips.len().max(s.ingress_vips.len());
    let sets: Vec<Vec<IpAddr>> = (0..count).map(|i| vips_of(s, i)).collect();
    let sources: Vec<Option<(String, IpAddr)>> =
        sets.iter().map(|vips| vrrp_source(inp, vips)).collect();
    if count > 0 && sources.iter().all(Option::is_none) {
        let mut families: Vec<&str> = sets.iter().map(|vips| family_of(vips)).collect();
        families.dedup();
        return Err(BuildError::NoInterface(families.join(" and ")));
    }
    cx.guard(sets.first().map(Vec::as_slice))?;
    let mut names = Names::default();
    for (i, source) in sources.into_iter().enumerate() {
        // A dual-stack node without an address of this family yet (slow DHCPv6/RA, an
        // IPv4-only NIC) still serves the other family; this one's instances join when its
        // address appears. Upstream would give them another family's source: a broken instance.
        let Some(source) = source else {
            conf.notes.push(format!(
                "no interface holds an {} address for VIP set {i}: its instances are left out until one does",
                family_of(&sets[i])
            ));
            continue;
        };
        cx.vip_set(
            &VipSet::new(&cx, i, &sets[i], source),
            &mut conf,
            &mut names,
        );
    }
    sync_groups(s, count, &mut conf, &names);
    conf.scripts = used_scripts(s, &conf);
    Ok(conf)
}

/// The VIPs of set `i`: its API VIP, then its ingress VIP (one family).
fn vips_of(s: &Settings, i: usize) -> Vec<IpAddr> {
    s.api_vips
        .get(i)
        .into_iter()
        .chain(s.ingress_vips.get(i))
        .copied()
        .collect()
}

/// "IPv4" or "IPv6": the family of a VIP set, as the notes and errors name it.
fn family_of(vips: &[IpAddr]) -> &'static str {
    if vips[0].is_ipv6() { "IPv6" } else { "IPv4" }
}

/// The instance names rendered, by kind, for the sync groups.
#[derive(Default)]
struct Names {
    api: Vec<String>,
    ingress: Vec<String>,
}

/// What every VIP set's instances share: the settings, the transport and the masters.
struct Context<'a> {
    inp: &'a Inputs<'a>,
    s: &'a Settings,
    api_vrid: u8,
    ingress_vrid: u8,
    unicast: bool,
    bootstrap: bool,
    masters: Vec<&'a Peer>,
    /// Upstream's two-node topologies: a lone master gets a placeholder backend.
    lone_master_placeholder: bool,
}

impl<'a> Context<'a> {
    fn new(inp: &'a Inputs<'a>) -> Result<Self, BuildError> {
        let s = inp.settings;
        let (api_vrid, ingress_vrid) =
            vr_ids(&s.cluster_name).ok_or_else(|| BuildError::NoVrid(s.cluster_name.clone()))?;
        let masters: Vec<&Peer> = inp
            .peers
            .nodes
            .iter()
            .filter(|n| n.role == Role::Master)
            .collect();
        let lone_master_placeholder = masters.len() == 1
            && matches!(
                s.topology.as_str(),
                "HighlyAvailableArbiter" | "DualReplica"
            );
        Ok(Context {
            inp,
            s,
            api_vrid,
            ingress_vrid,
            unicast: inp.mode == Mode::Unicast,
            bootstrap: s.role == Role::Bootstrap,
            masters,
            lone_master_placeholder,
        })
    }

    /// Upstream's guard: every non-bootstrap role, on the first VIP family only, counting the
    /// backends upstream lists (a single master can never have two: SNO, PR #394, is exempt).
    /// `first` is the first VIP set; without one there is nothing to guard.
    fn guard(&self, first: Option<&[IpAddr]>) -> Result<(), BuildError> {
        let Some(first) = first else { return Ok(()) };
        if !self.unicast || self.bootstrap || self.s.topology == "SingleReplica" {
            return Ok(());
        }
        let known = known_backends(self.inp, first, &self.masters)
            + usize::from(self.lone_master_placeholder);
        if known < 2 {
            return Err(BuildError::TooFewBackends(known));
        }
        Ok(())
    }

    /// The API and ingress instances of one VIP set, or notes saying why one is left out.
    fn vip_set(&self, set: &VipSet, conf: &mut Keepalived, names: &mut Names) {
        let (s, i) = (self.s, set.index);
        let wants_api = matches!(s.role, Role::Master | Role::Arbiter | Role::Bootstrap);
        if let Some(vip) = s.api_vips.get(i).copied().filter(|_| wants_api) {
            // Split-brain protection: join only when registered as a backend (the bootstrap is
            // never a backend; it lists all of them).
            if !self.unicast || self.bootstrap || set.backends.contains(&set.own) {
                let peers = if self.bootstrap {
                    set.backends.clone()
                } else {
                    set.peers_without_self(&set.backends)
                };
                let instance = self.instance(set, Kind::Api, vip, peers);
                names.api.push(instance.name.clone());
                conf.instances.push(instance);
            } else {
                conf.notes.push(format!(
                    "{} is not an API backend: no {}_API_{i} instance",
                    set.own, s.cluster_name
                ));
            }
        }
        if let Some(vip) = s.ingress_vips.get(i).copied().filter(|_| !self.bootstrap) {
            if !self.unicast || set.ingress_peers.contains(&set.own) {
                let peers = set.peers_without_self(&set.ingress_peers);
                let instance = self.instance(set, Kind::Ingress, vip, peers);
                names.ingress.push(instance.name.clone());
                conf.instances.push(instance);
            } else {
                conf.notes.push(format!(
                    "{} is not an ingress peer: no {}_INGRESS_{i} instance",
                    set.own, s.cluster_name
                ));
            }
        }
    }

    /// One `vrrp_instance` of `kind` for `vip`; in unicast mode `peers` are its unicast peers
    /// (upstream's placeholder when there are none).
    fn instance(&self, set: &VipSet, kind: Kind, vip: IpAddr, peers: Vec<String>) -> Instance {
        let cluster = &self.s.cluster_name;
        let (tag, vrid, priority, checks) = match kind {
            Kind::Api if self.bootstrap => ("API", self.api_vrid, 70, vec![]),
            Kind::Api => ("API", self.api_vrid, 40, API_CHECKS.to_vec()),
            Kind::Ingress => ("INGRESS", self.ingress_vrid, 20, INGRESS_CHECKS.to_vec()),
        };
        Instance {
            name: format!("{cluster}_{tag}_{}", set.index),
            interface: set.interface.clone(),
            vrid,
            priority,
            unicast: self
                .unicast
                .then(|| (set.own.clone(), or_placeholder(peers, set.source))),
            auth_pass: auth(cluster, &tag.to_lowercase(), vip),
            vip: format!("{}/{}", go_text(vip), if vip.is_ipv6() { 128 } else { 32 }),
            label: vip.is_ipv4(),
            track_scripts: checks.into_iter().map(String::from).collect(),
        }
    }
}

/// The two kinds of VRRP instance a VIP set gives.
enum Kind {
    Api,
    Ingress,
}

/// One VIP set's VRRP source and the peer lists its instances draw from.
struct VipSet {
    index: usize,
    interface: String,
    source: IpAddr,
    /// The source as upstream writes it, compared with the peer lists' entries.
    own: String,
    /// API backends: masters, sorted by address text (upstream compares strings). A master
    /// whose address cannot be resolved yet counts for the guard but is never rendered.
    backends: Vec<String>,
    ingress_peers: Vec<String>,
}

impl VipSet {
    fn new(
        cx: &Context<'_>,
        index: usize,
        vips: &[IpAddr],
        (interface, source): (String, IpAddr),
    ) -> Self {
        // The machine network: a DHCPv6 /128 host stands for its /64 (upstream), or no peer
        // of a /128 worker is ever inside it and every worker takes the ingress VIP.
        let machine = find_interface(cx.inp.snapshot, vips[0], Lookup::Subnet)
            .map(|h| h.address.host_network());
        let address_of = |p: &Peer| peer_address(p, vips, machine, source).map(go_text);
        let mut backends: Vec<String> = cx.masters.iter().copied().filter_map(address_of).collect();
        if cx.lone_master_placeholder {
            backends.push(placeholder(vips[0]));
        }
        backends.sort();
        VipSet {
            index,
            interface,
            source,
            own: go_text(source),
            backends,
            ingress_peers: cx.inp.peers.nodes.iter().filter_map(address_of).collect(),
        }
    }

    /// `list` without this node's own address.
    fn peers_without_self(&self, list: &[String]) -> Vec<String> {
        list.iter().filter(|p| **p != self.own).cloned().collect()
    }
}

/// OpenStack dual stack (MCO's master and worker templates; not the arbiter's): both
/// families fail over together, tracked once per group. A group of one instance (a family
/// missing here, or this node in only one family's peer list) is not rendered: keepalived
/// 2.2.7 rejects it ("has only 1 virtual router(s)"), and the instance keeps its own checks.
fn sync_groups(s: &Settings, count: usize, conf: &mut Keepalived, names: &Names) {
    if s.platform != "OpenStack" || count < 2 || !matches!(s.role, Role::Master | Role::Worker) {
        return;
    }
    for (group, names, checks) in [
        ("VG_API", &names.api, API_CHECKS),
        ("VG_INGRESS", &names.ingress, INGRESS_CHECKS),
    ] {
        if names.len() < 2 {
            continue;
        }
        conf.sync_groups.push(SyncGroup {
            name: group.into(),
            instances: names.clone(),
            track_scripts: checks.map(String::from).to_vec(),
        });
        for i in conf
            .instances
            .iter_mut()
            .filter(|i| names.contains(&i.name))
        {
            i.track_scripts.clear();
        }
    }
}

/// The `vrrp_script` definitions some instance or sync group tracks, in the settings' order.
fn used_scripts(s: &Settings, conf: &Keepalived) -> Vec<(String, Script)> {
    let used: Vec<&String> = conf
        .instances
        .iter()
        .flat_map(|i| &i.track_scripts)
        .chain(conf.sync_groups.iter().flat_map(|g| &g.track_scripts))
        .collect();
    s.scripts
        .iter()
        .filter(|(n, _)| used.contains(n))
        .map(|(n, sc)| (n.clone(), sc.clone()))
        .collect()
}
