// SPDX-License-Identifier: Apache-2.0

#[cfg(test)]
mod alt_name;
#[cfg(test)]
mod base;
#[cfg(test)]
mod bond;
#[cfg(test)]
mod bridge;
#[cfg(test)]
mod debug_trait;
#[cfg(test)]
mod dns;
#[cfg(test)]
mod ethernet;
#[cfg(test)]
mod ethtool;
#[cfg(test)]
mod gen_diff;
#[cfg(test)]
mod gen_revert;
#[cfg(test)]
mod hsr;
#[cfg(test)]
mod identifier;
#[cfg(test)]
mod ifaces;
#[cfg(test)]
mod ifaces_ctrller;
#[cfg(test)]
mod infiniband;
#[cfg(test)]
mod ip;
#[cfg(test)]
mod ip_tunnel;
#[cfg(test)]
mod ipsec;
#[cfg(test)]
mod lldp;
#[cfg(test)]
mod loopback;
#[cfg(test)]
mod mac_vlan;
#[cfg(test)]
mod mac_vtap;
#[cfg(test)]
mod mptcp;
#[cfg(test)]
mod net_state;
#[cfg(test)]
mod nm;
#[cfg(test)]
mod ovn;
#[cfg(test)]
mod ovs;
#[cfg(test)]
mod ovsdb;
#[cfg(test)]
mod policy;
#[cfg(test)]
mod route;
#[cfg(test)]
mod route_rule;
#[cfg(test)]
mod sriov;
#[cfg(test)]
mod statistic;
#[cfg(test)]
mod testlib;
#[cfg(test)]
mod vlan;
#[cfg(test)]
mod vrf;
#[cfg(test)]
mod vxlan;
