//! The reconcile core: from policies, pools and nodes to the MachineConfigs to write and where
//! each policy stands on each node it selects. A pure function, so the runtime only has to feed
//! it what its watches hold, compare the result with the API and write the difference.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::api::{MachineConfig, MachineConfigPool};
use crate::merge::{self, Conflict};
use crate::policy::Policy;
use crate::render::{self, PoolContent, RenderError};
use crate::select::{self, Node};

/// Everything the core reads.
pub struct Cluster<'a> {
    pub policies: &'a [Policy],
    pub pools: &'a [MachineConfigPool],
    pub nodes: &'a [Node],
}

/// Where a policy stands on one node it selects.
#[derive(Clone, Debug, PartialEq)]
pub enum Placement {
    /// In the node's list: the node applies it.
    Applied,
    /// Left out on this node: it and `other` both select the node and disagree.
    Conflict { other: String, conflict: Conflict },
    /// Left out of the pool's MachineConfig, which would otherwise be `size` bytes of JSON.
    TooLarge { machine_config: String, size: usize },
}

/// A selected node: its pool and the policy's placement there.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub pool: String,
    pub placement: Placement,
}

/// One policy's outcome. Empty for a refused policy.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolicyPlan {
    /// The selected nodes that are in a pool, by name.
    pub nodes: BTreeMap<String, Placed>,
    /// Selected nodes in no pool (MCO updates none of them).
    pub unpooled: usize,
}

/// The result of one reconcile.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// One per pool that has at least one node with a policy, by name.
    pub machine_configs: Vec<MachineConfig>,
    /// Every policy given, by name.
    pub policies: BTreeMap<String, PolicyPlan>,
}

type PerNode<'a> = BTreeMap<&'a str, (&'a str, Vec<&'a Policy>)>;

/// Computes the plan. Policies are merged in ascending name order.
pub fn plan(cluster: &Cluster) -> Result<Plan, RenderError> {
    let mut result = Plan::default();
    for p in cluster.policies {
        result.policies.entry(p.name.clone()).or_default();
    }
    let mut valid: Vec<&Policy> = cluster
        .policies
        .iter()
        .filter(|p| p.desired().is_some())
        .collect();
    valid.sort_by(|a, b| a.name.cmp(&b.name));
    let per_node = assign(cluster, &valid, &mut result.policies);
    let mut pairs = Pairs::default();
    let mut pools: BTreeMap<&str, PoolContent> = BTreeMap::new();
    for (node, (pool, policies)) in &per_node {
        let applied = place(node, pool, policies, &mut pairs, &mut result.policies);
        if applied.is_empty() {
            continue;
        }
        let content = pools.entry(pool).or_insert_with(|| PoolContent {
            pool,
            lists: BTreeMap::new(),
            states: BTreeMap::new(),
        });
        for p in &applied {
            content.states.insert(&p.name, desired(p));
        }
        content
            .lists
            .insert(node, applied.iter().map(|p| p.name.as_str()).collect());
    }
    for content in pools.values_mut() {
        let mc = fit(content, &mut result.policies)?;
        result.machine_configs.push(mc);
    }
    Ok(result)
}

fn desired(p: &Policy) -> &Value {
    p.desired().unwrap_or(&Value::Null)
}

/// Each node with the valid policies that select it, in merge order, and its pool.
fn assign<'a>(
    cluster: &Cluster<'a>,
    valid: &[&'a Policy],
    plans: &mut BTreeMap<String, PolicyPlan>,
) -> PerNode<'a> {
    let mut per_node = PerNode::new();
    for node in cluster.nodes {
        let pool = select::pool_of(&node.labels, cluster.pools);
        for p in valid {
            if !select::policy_selects(&p.node_selector, &node.labels) {
                continue;
            }
            match pool {
                Some(pool) => per_node
                    .entry(node.name.as_str())
                    .or_insert((pool, Vec::new()))
                    .1
                    .push(p),
                None => plans.entry(p.name.clone()).or_default().unpooled += 1,
            }
        }
    }
    per_node
}

/// Conflicts depend only on the two policies: computed once per pair that meets on a node.
#[derive(Default)]
struct Pairs<'a>(BTreeMap<(&'a str, &'a str), Option<Conflict>>);

impl<'a> Pairs<'a> {
    fn get(&mut self, a: &'a Policy, b: &'a Policy) -> Option<&Conflict> {
        self.0
            .entry((&a.name, &b.name))
            .or_insert_with(|| merge::conflict(desired(a), desired(b)))
            .as_ref()
    }
}

/// Records each policy's placement on the node; returns those that apply there. A policy in
/// conflict with any other on the node does not apply there (nor does the other).
fn place<'a>(
    node: &str,
    pool: &str,
    policies: &[&'a Policy],
    pairs: &mut Pairs<'a>,
    plans: &mut BTreeMap<String, PolicyPlan>,
) -> Vec<&'a Policy> {
    let mut excluded: BTreeMap<&str, (&str, Conflict)> = BTreeMap::new();
    for (i, a) in policies.iter().enumerate() {
        for b in &policies[i + 1..] {
            if let Some(c) = pairs.get(a, b) {
                excluded.entry(&a.name).or_insert((&b.name, c.clone()));
                excluded.entry(&b.name).or_insert((&a.name, c.clone()));
            }
        }
    }
    let mut applied = Vec::new();
    for p in policies {
        let placement = match excluded.get(p.name.as_str()) {
            Some((other, conflict)) => Placement::Conflict {
                other: other.to_string(),
                conflict: conflict.clone(),
            },
            None => {
                applied.push(*p);
                Placement::Applied
            }
        };
        let placed = Placed {
            pool: pool.to_owned(),
            placement,
        };
        let plan = plans.entry(p.name.clone()).or_default();
        plan.nodes.insert(node.to_owned(), placed);
    }
    applied
}

/// Renders the pool's MachineConfig, leaving out policies (largest first) until it fits.
fn fit(
    content: &mut PoolContent,
    plans: &mut BTreeMap<String, PolicyPlan>,
) -> Result<MachineConfig, RenderError> {
    loop {
        let mc = render::machine_config(content)?;
        let size = render::to_json(&mc)?.len();
        let dropped = render::too_large(content, size);
        if dropped.is_empty() {
            return Ok(mc);
        }
        let name = render::name_for(content.pool);
        for policy in dropped {
            content.states.remove(policy);
            for list in content.lists.values_mut() {
                list.retain(|p| *p != policy);
            }
            let plan = plans.entry(policy.to_owned()).or_default();
            for placed in plan.nodes.values_mut() {
                if placed.pool == content.pool && placed.placement == Placement::Applied {
                    placed.placement = Placement::TooLarge {
                        machine_config: name.clone(),
                        size,
                    };
                }
            }
        }
        content.lists.retain(|_, list| !list.is_empty());
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::policy::tests::nncp;
    use crate::select::tests::{labels, role_pool};
    use serde_json::json;

    pub(crate) fn node(name: &str, role: &str) -> Node {
        Node {
            name: name.into(),
            uid: Some(format!("uid-{name}")),
            labels: labels(&[
                (&format!("node-role.kubernetes.io/{role}"), ""),
                ("kubernetes.io/hostname", name),
            ]),
        }
    }

    pub(crate) fn iface(name: &str, mtu: u32) -> Value {
        json!({"interfaces": [{"name": name, "type": "ethernet", "state": "up", "mtu": mtu}]})
    }

    const WORKER: (&str, &str) = ("node-role.kubernetes.io/worker", "");

    fn cluster_plan(policies: &[Policy], nodes: &[Node]) -> Plan {
        let pools = [role_pool("master"), role_pool("worker")];
        plan(&Cluster {
            policies,
            pools: &pools,
            nodes,
        })
        .unwrap()
    }

    fn files(plan: &Plan) -> Vec<String> {
        plan.machine_configs
            .iter()
            .flat_map(|mc| mc.spec.config.storage.files.iter().map(|f| f.path.clone()))
            .collect()
    }

    #[test]
    fn a_policy_reaches_only_the_nodes_it_selects() {
        let nodes = [
            node("w0", "worker"),
            node("w1", "worker"),
            node("m0", "master"),
        ];
        let p = nncp(
            "w0-only",
            &[("kubernetes.io/hostname", "w0")],
            iface("eth1", 9000),
        );
        let plan = cluster_plan(&[p], &nodes);
        assert_eq!(plan.machine_configs.len(), 1);
        assert_eq!(
            files(&plan),
            [
                "/etc/nmstate/openshift/policies/w0-only.yml",
                "/etc/nmstate/openshift/policies/nodes/w0"
            ]
        );
        let placed = &plan.policies["w0-only"].nodes;
        assert_eq!(placed.keys().collect::<Vec<_>>(), ["w0"]);
        assert_eq!(placed["w0"].pool, "worker");
    }

    #[test]
    fn a_policy_selecting_nothing_has_no_nodes_and_renders_nothing() {
        let nodes = [node("w0", "worker")];
        let p = nncp("gpu", &[("gpu", "true")], iface("eth1", 9000));
        let plan = cluster_plan(&[p], &nodes);
        assert!(plan.machine_configs.is_empty());
        assert!(plan.policies["gpu"].nodes.is_empty());
    }

    #[test]
    fn each_pool_gets_its_own_machine_config() {
        let nodes = [node("w0", "worker"), node("m0", "master")];
        let p = nncp("all", &[], iface("eth1", 9000));
        let plan = cluster_plan(&[p], &nodes);
        let names: Vec<_> = plan
            .machine_configs
            .iter()
            .map(|m| m.metadata.name.clone().unwrap())
            .collect();
        assert_eq!(
            names,
            ["50-master-nmstate-policies", "50-worker-nmstate-policies"]
        );
    }

    #[test]
    fn conflicting_policies_apply_on_neither_node_where_they_meet_and_name_each_other() {
        let nodes = [node("w0", "worker"), node("w1", "worker")];
        let a = nncp("a-jumbo", &[WORKER], iface("eth1", 9000));
        let b = nncp(
            "b-small",
            &[("kubernetes.io/hostname", "w1")],
            iface("eth1", 1500),
        );
        let plan = cluster_plan(&[b, a], &nodes);
        let on = |p: &str, n: &str| plan.policies[p].nodes[n].placement.clone();
        assert_eq!(on("a-jumbo", "w0"), Placement::Applied);
        let Placement::Conflict { other, conflict } = on("a-jumbo", "w1") else {
            panic!("no conflict on w1");
        };
        assert_eq!(
            (other.as_str(), conflict.to_string().as_str()),
            ("b-small", "interface eth1 key mtu")
        );
        assert!(
            matches!(on("b-small", "w1"), Placement::Conflict { other, .. } if other == "a-jumbo")
        );
        assert_eq!(
            files(&plan),
            [
                "/etc/nmstate/openshift/policies/a-jumbo.yml",
                "/etc/nmstate/openshift/policies/nodes/w0"
            ]
        );
    }

    #[test]
    fn a_node_lists_its_policies_in_name_order() {
        let nodes = [node("w0", "worker")];
        let policies = [
            nncp("zeta", &[], iface("eth2", 9000)),
            nncp("alpha", &[], iface("eth1", 9000)),
        ];
        let plan = cluster_plan(&policies, &nodes);
        let list = &plan.machine_configs[0].spec.config.storage.files[2];
        assert_eq!(list.path, "/etc/nmstate/openshift/policies/nodes/w0");
        let b64 = list
            .contents
            .source
            .as_deref()
            .unwrap()
            .trim_start_matches("data:;base64,");
        use base64::Engine;
        let text = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap();
        assert_eq!(text, b"alpha\nzeta\n");
    }

    #[test]
    fn a_refused_policy_renders_nothing() {
        let nodes = [node("w0", "worker")];
        let p = nncp("bad", &[], json!({"interfacez": []}));
        let plan = cluster_plan(&[p], &nodes);
        assert!(plan.machine_configs.is_empty());
        assert_eq!(plan.policies["bad"], PolicyPlan::default());
    }

    #[test]
    fn a_node_in_no_pool_is_counted_not_rendered() {
        let mut lone = node("x0", "worker");
        lone.labels.clear();
        let plan = cluster_plan(&[nncp("all", &[], iface("eth1", 9000))], &[lone]);
        assert_eq!(plan.policies["all"].unpooled, 1);
        assert!(plan.machine_configs.is_empty());
    }

    #[test]
    fn per_node_policies_past_the_size_limit_are_left_out_and_say_so() {
        let nodes: Vec<Node> = (0..40).map(|i| node(&format!("w{i}"), "worker")).collect();
        let policies: Vec<Policy> = (0..40)
            .map(|i| {
                let state = json!({"interfaces": [{"name": "eth1", "description": format!("{i}{}", "x".repeat(40_000))}]});
                nncp(&format!("p{i:02}"), &[("kubernetes.io/hostname", &format!("w{i}"))], state)
            })
            .collect();
        let plan = cluster_plan(&policies, &nodes);
        let size = render::to_json(&plan.machine_configs[0]).unwrap().len();
        assert!(size <= render::SIZE_LIMIT, "{size}");
        let left_out: Vec<&String> = plan
            .policies
            .iter()
            .filter(|(_, p)| {
                p.nodes
                    .values()
                    .any(|n| matches!(n.placement, Placement::TooLarge { .. }))
            })
            .map(|(name, _)| name)
            .collect();
        assert!(
            !left_out.is_empty() && left_out.len() < 40,
            "{}",
            left_out.len()
        );
        let carried = files(&plan);
        assert!(!carried.contains(&render::policy_path(left_out[0])));
    }

    #[test]
    fn a_resync_with_nothing_changed_renders_identical_bytes() {
        let nodes = [node("w0", "worker"), node("w1", "worker")];
        let policies = [
            nncp("a", &[], iface("eth1", 9000)),
            nncp("b", &[], iface("eth2", 9000)),
        ];
        let first = cluster_plan(&policies, &nodes);
        let mut shuffled = policies.to_vec();
        shuffled.reverse();
        let nodes_rev = [nodes[1].clone(), nodes[0].clone()];
        let second = cluster_plan(&shuffled, &nodes_rev);
        let bytes = |p: &Plan| render::to_json(&p.machine_configs[0]).unwrap();
        assert_eq!(bytes(&first), bytes(&second));
    }
}
