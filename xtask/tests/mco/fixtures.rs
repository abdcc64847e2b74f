//! ControllerConfig fixtures, one per install topology upstream supports, in the shape MCO's
//! templates see (`RenderConfig`'s Go field names).

use serde_json::json;

use crate::funcs::ON_PREM;

pub struct Fixture {
    pub name: &'static str,
    pub config: serde_json::Value,
}

pub const MANAGED: &str = "OpenShiftManagedDefault";

/// The platform's status block: VIPs and load balancer type, or none at all (vSphere UPI,
/// whose installs leave `PlatformStatus.VSphere` unset).
pub enum Block<'a> {
    Vips {
        api: &'a [&'a str],
        ingress: &'a [&'a str],
        lb: &'a str,
    },
    Absent,
}

/// A render config for `platform` with its block, the IP families and the control-plane
/// topology.
pub fn controller_config(
    platform: &str,
    block: Block,
    families: &str,
    topology: &str,
) -> serde_json::Value {
    let mut status = json!({ "Type": platform });
    if let Block::Vips { api, ingress, lb } = block {
        assert!(ON_PREM.contains(&platform), "VIPs on {platform}");
        status[platform] = json!({
            "APIServerInternalIPs": api,
            "IngressIPs": ingress,
            "LoadBalancer": { "Type": lb },
        });
    }
    json!({
        "Infra": { "Status": {
            "PlatformStatus": status,
            "ControlPlaneTopology": topology,
            "InfrastructureTopology": "HighlyAvailable",
        }},
        "DNS": { "Spec": { "BaseDomain": "ostest.test.metalkube.org" } },
        "NetworkType": "OVNKubernetes",
        "IPFamilies": families,
    })
}

pub fn fixtures() -> Vec<Fixture> {
    let v4 = (&["192.0.2.5"][..], &["192.0.2.4"][..]);
    let dual = (
        &["192.0.2.5", "2001:db8::5"][..],
        &["192.0.2.4", "2001:db8::4"][..],
    );
    let v6_first = (
        &["2001:db8::5", "192.0.2.5"][..],
        &["2001:db8::4", "192.0.2.4"][..],
    );
    let managed =
        |(api, ingress): (&'static [&'static str], &'static [&'static str])| Block::Vips {
            api,
            ingress,
            lb: MANAGED,
        };
    let ha = "HighlyAvailable";
    let fx = |name, config| Fixture { name, config };
    vec![
        fx(
            "bare metal IPv4",
            controller_config("BareMetal", managed(v4), "IPv4", ha),
        ),
        fx(
            "bare metal dual stack",
            controller_config("BareMetal", managed(dual), "DualStack", ha),
        ),
        fx(
            "bare metal IPv6-primary dual stack",
            controller_config("BareMetal", managed(v6_first), "DualStackIPv6Primary", ha),
        ),
        fx(
            "vSphere with a user-managed load balancer",
            controller_config(
                "VSphere",
                Block::Vips {
                    api: &["198.51.100.5"],
                    ingress: &["198.51.100.4"],
                    lb: "UserManaged",
                },
                "IPv4",
                ha,
            ),
        ),
        fx(
            "vSphere UPI (no VIPs)",
            controller_config("VSphere", Block::Absent, "IPv4", ha),
        ),
        fx(
            "OpenStack dual stack",
            controller_config("OpenStack", managed(dual), "DualStack", ha),
        ),
        fx(
            "single node",
            controller_config("BareMetal", managed(v4), "IPv4", "SingleReplica"),
        ),
        fx(
            "two-node arbiter",
            controller_config("BareMetal", managed(v4), "IPv4", "HighlyAvailableArbiter"),
        ),
        fx(
            "two-node with fencing",
            controller_config("BareMetal", managed(v4), "IPv4", "DualReplica"),
        ),
        fx(
            "AWS (not on-prem)",
            controller_config("AWS", Block::Absent, "IPv4", ha),
        ),
    ]
}

/// The pools MCO renders for a config (`generateTemplateMachineConfigs`): every role directory
/// but `common`, `arbiter` only on an arbiter topology.
pub fn pools(config: &serde_json::Value) -> Vec<&'static str> {
    let arbiter = config["Infra"]["Status"]["ControlPlaneTopology"] == "HighlyAvailableArbiter";
    let mut pools = vec!["master", "worker"];
    if arbiter {
        pools.insert(0, "arbiter");
    }
    pools
}
