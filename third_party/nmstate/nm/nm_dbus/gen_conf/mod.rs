// SPDX-License-Identifier: Apache-2.0

mod bond;
mod bridge;
mod conn;
mod ethtool;
mod ieee8021x;
mod iface_match;
mod infiniband;
mod ip;
mod ipvlan;
mod keyfile;
mod mac_vlan;
mod macsec;
mod ovs;
mod route;
mod route_rule;
mod sriov;
mod user;
mod veth;
mod vlan;
mod vpn;
mod vrf;
mod vxlan;
mod wired;

pub(crate) use keyfile::ToKeyfile;
