//! The node's NodeNetworkConfigurationPolicies, as policy-controller's MachineConfig writes
//! them: `/etc/nmstate/openshift/policies/<policy>.yml` (a policy's desired state) and
//! `/etc/nmstate/openshift/policies/nodes/<node>` (the policies of the Node named `<node>`, one
//! name a line, in merge order). They are applied on top of br-ex, never in its place: the
//! day-1 file (`<host>.yml`/`cluster.yml`) and the automatic br-ex stay as they are, and the
//! policies' merged state goes through the live engine ([`live::apply_held`]): the guard rails
//! (refused, never forced), one checkpoint, br-ex keeps the node IP, the probes pass again, else
//! rolled back.
//!
//! The merge is policy-controller's own ([`policy_controller::merge::merge`]), in the list's
//! order, so the node applies exactly the union the controller checked for conflicts.
//!
//! When: at boot after br-ex is built (`apply`, every boot: the automatic br-ex is rebuilt in
//! NetworkManager's memory, so what a policy changed on it must be applied again), and live
//! (`apply-nmstate --live`) when the merged state differs from what this boot applied (the
//! record [`applied_record`], under /run) or the day-1 file was just applied. A node without a
//! list file has nothing to apply. Deleting a policy removes it from the list: what it created
//! stays (NetworkManager keeps its profiles, written persistently as kubernetes-nmstate does);
//! to remove it, roll out the policy with `state: absent` first.

use std::path::{Path, PathBuf};
use std::time::Duration;

use policy_controller::merge::{self, Conflict};
use policy_controller::policy::is_dns_subdomain;
use selection::atomic::write_atomic;
use serde_json::Value;

use crate::engine::change::Lasting;
use crate::engine::guard;
use crate::nmstate::error::PolicyError;
use crate::nmstate::live::{self, LiveError, Probing};
use crate::nmstate::per_host::Moment;
use crate::nmstate::rolled_back::{self, Subject};
use crate::settings::Settings;

/// `/etc/nmstate/openshift/policies`: one `<policy>.yml` per policy of the pool.
pub fn dir(s: &Settings) -> PathBuf {
    s.nmstate_dir().join("policies")
}

/// `/etc/nmstate/openshift/policies/nodes/<Node name>`: this node's policies, in merge order.
pub fn list_file(s: &Settings) -> PathBuf {
    dir(s).join("nodes").join(&s.node_name)
}

/// The merged state applied in this boot (`/run/ovs-bridge-configurator/policies-applied.yml`):
/// gone at reboot, when the boot applies the policies again.
pub fn applied_record(s: &Settings) -> PathBuf {
    s.run_dir
        .join("ovs-bridge-configurator/policies-applied.yml")
}

/// The node's policies merged: what is applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub list: PathBuf,
    pub names: Vec<String>,
    /// The merged state as YAML (keys sorted: the same policies give the same text).
    pub yaml: String,
}

impl Merged {
    /// For messages: `the policies a, b of /etc/.../nodes/node1`.
    pub fn origin(&self) -> String {
        format!(
            "the policies {} of {}",
            self.names.join(", "),
            self.list.display()
        )
    }
}

/// What applying the node's policies did.
#[derive(Debug, PartialEq, Eq)]
pub enum Applied {
    /// No list file for this node (or an empty one): nothing to apply.
    NoList,
    /// The merged state is the one applied already in this boot.
    Unchanged,
    /// Applied and committed in `took`.
    Committed { names: Vec<String>, took: Duration },
}

/// The names of a list file: one a line, blank lines ignored; a name that is not a Kubernetes
/// object name (it becomes a path) is refused.
pub fn parse_list(text: &str) -> Result<Vec<String>, String> {
    let names: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    match names.iter().find(|n| !is_dns_subdomain(n)) {
        Some(bad) => Err(format!("{bad:?} is not a policy name")),
        None => Ok(names),
    }
}

/// The union of `states` (one per name, in order) by the controller's rule; a conflict names
/// the policy that brought it and the earlier one it meets.
pub fn merge_states(
    names: &[String],
    states: &[Value],
) -> Result<Value, (String, String, Conflict)> {
    let refs: Vec<&Value> = states.iter().collect();
    merge::merge(&refs).map_err(|(i, conflict)| {
        let with = (0..i)
            .find(|&j| merge::conflict(&states[j], &states[i]).is_some())
            .map_or_else(|| "(an earlier one)".to_owned(), |j| names[j].clone());
        (names[i].clone(), with, conflict)
    })
}

/// A policy's state as data (an empty file is an empty state).
fn parse_state(path: &Path, text: &str) -> Result<Value, PolicyError> {
    let invalid = |message: String| PolicyError::Invalid {
        path: path.to_owned(),
        message,
    };
    crate::engine::desired::parse(text).map_err(invalid)?;
    let value: Value = serde_yaml::from_str(text).map_err(|e| invalid(e.to_string()))?;
    Ok(match value {
        Value::Null => Value::Object(Default::default()),
        v => v,
    })
}

fn read(path: &Path) -> Result<String, PolicyError> {
    std::fs::read_to_string(path).map_err(|error| PolicyError::Read {
        path: path.to_owned(),
        error,
    })
}

/// This node's policies merged; `None` without a list file or with an empty one.
pub fn desired(s: &Settings) -> Result<Option<Merged>, PolicyError> {
    let list = list_file(s);
    let text = match std::fs::read_to_string(&list) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        other => other.map_err(|error| PolicyError::Read {
            path: list.clone(),
            error,
        })?,
    };
    let names = parse_list(&text).map_err(|message| PolicyError::Invalid {
        path: list.clone(),
        message,
    })?;
    if names.is_empty() {
        return Ok(None);
    }
    let mut states = Vec::new();
    for name in &names {
        let path = dir(s).join(format!("{name}.yml"));
        states.push(parse_state(&path, &read(&path)?)?);
    }
    let merged = merge_states(&names, &states).map_err(|(policy, with, conflict)| {
        PolicyError::Conflict {
            list: list.clone(),
            policy,
            with,
            conflict,
        }
    })?;
    let yaml = serde_yaml::to_string(&merged).map_err(|e| PolicyError::Invalid {
        path: list.clone(),
        message: e.to_string(),
    })?;
    Ok(Some(Merged { list, names, yaml }))
}

/// Whether to apply `merged` now: always at boot and after the day-1 file was applied (it may
/// have rebuilt what the policies changed), otherwise when it is not what this boot applied.
pub fn needed(at: Moment, day1_applied: bool, merged: &str, recorded: Option<&str>) -> bool {
    at == Moment::Boot || day1_applied || recorded != Some(merged)
}

/// Applies this node's policies when [`needed`]; the caller holds the change lock. At
/// [`Moment::Running`] a rollback is remembered, and the same merged state later fails at once.
pub async fn apply(s: &Settings, at: Moment, day1_applied: bool) -> Result<Applied, PolicyError> {
    let record = applied_record(s);
    let Some(m) = desired(s)? else {
        tracing::info!(
            "no policies for node {} ({} absent or empty)",
            s.node_name,
            list_file(s).display()
        );
        remove(&record);
        return Ok(Applied::NoList);
    };
    let recorded = std::fs::read_to_string(&record).ok();
    if !needed(at, day1_applied, &m.yaml, recorded.as_deref()) {
        tracing::info!("{} are applied already", m.origin());
        return Ok(Applied::Unchanged);
    }
    let running = at == Moment::Running;
    if running && let Some(e) = rolled_back::earlier(s, Subject::Policies, &m.list, &m.yaml) {
        return Err(PolicyError::AlreadyRolledBack {
            origin: m.origin(),
            at: e.at,
            why: e.why,
            record: rolled_back::record(s, Subject::Policies),
        });
    }
    tracing::info!("applying {}", m.origin());
    let took = match apply_merged(s, at, &m).await {
        Ok(took) => took,
        Err(e) => {
            if running && let Some(why) = why_rolled_back(&e) {
                rolled_back::remember(s, Subject::Policies, &m.list, &m.yaml, &why);
            }
            return Err(e);
        }
    };
    if running {
        rolled_back::forget(s, Subject::Policies);
    }
    write_atomic(&record, m.yaml.as_bytes(), 0o600).map_err(|error| PolicyError::Write {
        path: record,
        error,
    })?;
    Ok(Applied::Committed {
        names: m.names,
        took,
    })
}

/// The merged state through the guard rails and the live engine, with the probes of `at`.
async fn apply_merged(s: &Settings, at: Moment, m: &Merged) -> Result<Duration, PolicyError> {
    let state = crate::engine::desired::parse(&m.yaml).map_err(|message| PolicyError::Invalid {
        path: m.list.clone(),
        message,
    })?;
    let reasons = guard::refusals(&state, &live::node_ips(s));
    if !reasons.is_empty() {
        return Err(PolicyError::Refused {
            origin: m.origin(),
            reasons,
        });
    }
    let (targets, bound, checkpoint) = at.probes(s);
    let probing = Probing {
        targets,
        bound,
        checkpoint,
        deadline: at.deadline(s),
        // As kubernetes-nmstate: the profiles outlive a reboot and a deleted policy.
        lasting: Lasting::Persistent,
    };
    Ok(live::apply_held(s, &m.origin(), state, probing).await?)
}

/// Why the merged state was rolled back; `None` when it was not applied at all, or for a
/// failure that says nothing about the state.
fn why_rolled_back(e: &PolicyError) -> Option<String> {
    match e {
        PolicyError::Live(LiveError::Apply { source, .. }) => Some(source.to_string()),
        PolicyError::Live(LiveError::Probe { source, .. }) => Some(source.to_string()),
        _ => None,
    }
}

fn remove(path: &Path) {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            tracing::warn!("cannot remove {}: {e}", path.display());
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_list_is_one_name_a_line_and_a_path_is_no_name() {
        assert_eq!(
            parse_list("vlan-100\n\n  bond0 \n").unwrap(),
            names(&["vlan-100", "bond0"])
        );
        assert!(parse_list("").unwrap().is_empty());
        assert!(parse_list("ok\n../../x\n").unwrap_err().contains("../../x"));
        assert!(parse_list("a/b\n").is_err());
    }

    #[test]
    fn states_merge_in_the_lists_order_by_the_controllers_rule() {
        let a = json!({"interfaces": [{"name": "eth1.100", "type": "vlan", "state": "up"}]});
        let b = json!({"interfaces": [{"name": "br1", "type": "linux-bridge", "state": "up"}]});
        let merged = merge_states(&names(&["b", "a"]), &[b.clone(), a.clone()]).unwrap();
        assert_eq!(merged["interfaces"][0]["name"], "br1");
        assert_eq!(merged["interfaces"][1]["name"], "eth1.100");
        assert_eq!(
            merged,
            merge::merge(&[&b, &a]).unwrap(),
            "the controller's merge"
        );
    }

    #[test]
    fn a_conflict_names_both_policies_and_the_key() {
        let mtu = |m: u32| json!({"interfaces": [{"name": "eth1", "mtu": m}]});
        let other = json!({"interfaces": [{"name": "eth2", "state": "up"}]});
        let (policy, with, c) =
            merge_states(&names(&["a", "b", "c"]), &[mtu(1500), other, mtu(9000)]).unwrap_err();
        assert_eq!((policy.as_str(), with.as_str()), ("c", "a"));
        assert_eq!(c.to_string(), "interface eth1 key mtu");
    }

    #[test]
    fn applied_again_at_boot_after_the_day1_file_or_when_it_differs() {
        let (boot, running) = (Moment::Boot, Moment::Running);
        assert!(needed(boot, false, "a", Some("a")));
        assert!(needed(running, true, "a", Some("a")));
        assert!(needed(running, false, "b", Some("a")));
        assert!(needed(running, false, "a", None));
        assert!(!needed(running, false, "a", Some("a")));
    }

    #[test]
    fn a_node_reads_its_own_list_and_the_listed_policies_only() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.toml");
        std::fs::write(&config, "node-name = \"worker-0\"\n").unwrap();
        let args = crate::settings::SettingsArgs {
            etc_dir: Some(dir.path().to_owned()),
            ..Default::default()
        };
        let s = crate::settings::resolve(&args, &config).unwrap();
        assert_eq!(desired(&s).unwrap(), None, "no list file");
        let policies = dir.path().join("nmstate/openshift/policies");
        std::fs::create_dir_all(policies.join("nodes")).unwrap();
        let vlan = "interfaces:\n- name: eth1.100\n  type: vlan\n  state: up\n  vlan:\n    \
                    base-iface: eth1\n    id: 100\n";
        std::fs::write(policies.join("vlan.yml"), vlan).unwrap();
        std::fs::write(policies.join("other.yml"), "interfaces: [unclosed\n").unwrap();
        std::fs::write(policies.join("nodes/worker-1"), "other\n").unwrap();
        assert_eq!(desired(&s).unwrap(), None, "another node's list");
        std::fs::write(policies.join("nodes/worker-0"), "vlan\n").unwrap();
        let m = desired(&s).unwrap().unwrap();
        assert_eq!(m.names, names(&["vlan"]));
        assert!(m.yaml.contains("eth1.100"), "{}", m.yaml);
        std::fs::write(policies.join("nodes/worker-0"), "vlan\nmissing\n").unwrap();
        let e = desired(&s).unwrap_err();
        assert!(e.to_string().contains("missing.yml"), "{e}");
        assert_eq!(e.event_reason(), "NMStatePolicyInvalid");
    }
}
