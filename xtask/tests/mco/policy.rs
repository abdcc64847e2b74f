//! The node-disruption policy (`units/machineconfiguration/node-disruption-policy.yaml`) under
//! MCO's rules at the pinned commit: the CRD's validation of `spec.nodeDisruptionPolicy.files`
//! (`types_machineconfiguration.go`), the merge with the cluster defaults
//! (`apihelpers.MergeClusterPolicies`: a user entry replaces the default of the same path) and
//! the match of a changed file to a policy (`FindClosestFilePolicyPathMatch`: the longest policy
//! path that is the file or a directory above it).

use std::path::{Path, PathBuf};

use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub api_version: String,
    pub kind: String,
    pub metadata: Metadata,
    pub spec: Spec,
}

#[derive(Debug, Deserialize)]
pub struct Metadata {
    pub name: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Spec {
    pub node_disruption_policy: Config,
}

#[derive(Debug, Deserialize)]
pub struct Config {
    pub files: Vec<FilePolicy>,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct FilePolicy {
    pub path: String,
    pub actions: Vec<Action>,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Action {
    #[serde(rename = "type")]
    pub kind: String,
    pub restart: Option<Service>,
    pub reload: Option<Service>,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Service {
    pub service_name: String,
}

pub fn manifest_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../units/machineconfiguration/node-disruption-policy.yaml")
}

pub fn load() -> Manifest {
    let text = std::fs::read_to_string(manifest_path()).unwrap();
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", manifest_path().display()))
}

/// `NodeDisruptionPolicyServiceName`'s two CEL rules: a name, then one of systemd's unit types.
fn valid_service_name(name: &str) -> bool {
    const TYPES: [&str; 12] = [
        "service",
        "socket",
        "device",
        "mount",
        "automount",
        "swap",
        "target",
        "path",
        "timer",
        "snapshot",
        "slice",
        "scope",
    ];
    let Some((stem, kind)) = name.rsplit_once('.') else {
        return false;
    };
    name.len() <= 255
        && TYPES.contains(&kind)
        && !stem.is_empty()
        && stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ":._-\\".contains(c))
}

/// What the API server refuses of `m` (the CRD's schema and CEL rules for files), plus a
/// relative path, which MCO would accept and never match (it compares absolute paths).
pub fn violations(m: &Manifest) -> Vec<String> {
    let mut out = Vec::new();
    if m.api_version != "operator.openshift.io/v1" || m.kind != "MachineConfiguration" {
        out.push(format!("{} {} is not MCO's", m.api_version, m.kind));
    }
    if m.metadata.name != "cluster" {
        out.push(format!(
            "MCO reads only the object \"cluster\", not {:?}",
            m.metadata.name
        ));
    }
    let files = &m.spec.node_disruption_policy.files;
    if files.len() > 50 {
        out.push(format!("{} file policies (at most 50)", files.len()));
    }
    for (i, f) in files.iter().enumerate() {
        if files[..i].iter().any(|g| g.path == f.path) {
            out.push(format!(
                "{}: listed twice (a list-map keyed by path)",
                f.path
            ));
        }
        if !f.path.starts_with('/') {
            out.push(format!("{}: not an absolute path", f.path));
        }
        if f.actions.is_empty() || f.actions.len() > 10 {
            out.push(format!("{}: {} actions (1 to 10)", f.path, f.actions.len()));
        }
        for standalone in ["Reboot", "None"] {
            if f.actions.iter().any(|a| a.kind == standalone) && f.actions.len() != 1 {
                out.push(format!("{}: {standalone} only standalone", f.path));
            }
        }
        for a in &f.actions {
            let known = [
                "Reboot",
                "Drain",
                "Reload",
                "Restart",
                "DaemonReload",
                "None",
            ];
            if !known.contains(&a.kind.as_str()) {
                out.push(format!("{}: unknown action {}", f.path, a.kind));
            }
            for (kind, service) in [("Restart", &a.restart), ("Reload", &a.reload)] {
                match (a.kind == kind, service) {
                    (true, None) => out.push(format!("{}: {kind} needs its service", f.path)),
                    (false, Some(_)) => {
                        out.push(format!("{}: {kind}'s service without {kind}", f.path))
                    }
                    (true, Some(s)) if !valid_service_name(&s.service_name) => {
                        out.push(format!("{}: bad service name {}", f.path, s.service_name))
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// MCO's cluster default for the NMState directory (the one entry of `apihelpers`' defaults
/// that this policy touches).
pub fn mco_defaults() -> Vec<FilePolicy> {
    vec![FilePolicy {
        path: "/etc/nmstate/openshift".into(),
        actions: vec![Action {
            kind: "None".into(),
            restart: None,
            reload: None,
        }],
    }]
}

/// `MergeClusterPolicies` for files: defaults first; a user entry replaces the default of its
/// path in place, or is appended.
pub fn merge(defaults: &[FilePolicy], user: &[FilePolicy]) -> Vec<FilePolicy> {
    let mut merged = defaults.to_vec();
    for u in user {
        match defaults.iter().position(|d| d.path == u.path) {
            Some(i) => merged[i] = u.clone(),
            None => merged.push(u.clone()),
        }
    }
    merged
}

/// `FindClosestFilePolicyPathMatch`: the actions of the longest policy path equal to `changed`
/// or a directory above it (`IsSubdirectory`: a prefix ending in a separator after cleaning).
pub fn closest<'a>(changed: &str, policies: &'a [FilePolicy]) -> Option<&'a [Action]> {
    let mut best: Option<&FilePolicy> = None;
    for p in policies {
        let dir = format!("{}/", p.path.trim_end_matches('/'));
        if (changed == p.path || changed.starts_with(&dir))
            && best.is_none_or(|b| p.path.len() > b.path.len())
        {
            best = Some(p);
        }
    }
    best.map(|p| p.actions.as_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(path: &str, kind: &str) -> FilePolicy {
        FilePolicy {
            path: path.into(),
            actions: vec![Action {
                kind: kind.into(),
                restart: None,
                reload: None,
            }],
        }
    }

    #[test]
    fn the_longest_matching_path_wins_and_a_sibling_prefix_does_not_match() {
        let p = [
            policy("/etc/nmstate", "Reboot"),
            policy("/etc/nmstate/openshift", "None"),
        ];
        let kind = |f| closest(f, &p).map(|a| a[0].kind.as_str());
        assert_eq!(kind("/etc/nmstate/openshift/cluster.yml"), Some("None"));
        assert_eq!(kind("/etc/nmstate/openshift"), Some("None"));
        assert_eq!(kind("/etc/nmstate/other.yml"), Some("Reboot"));
        assert_eq!(kind("/etc/nmstate/openshift-old/x.yml"), Some("Reboot"));
        assert_eq!(kind("/etc/nmstatex"), None);
    }

    #[test]
    fn a_user_policy_replaces_the_default_of_its_path() {
        let merged = merge(
            &mco_defaults(),
            &[policy("/etc/nmstate/openshift", "Reboot")],
        );
        assert_eq!(merged, [policy("/etc/nmstate/openshift", "Reboot")]);
    }

    #[test]
    fn what_the_api_server_refuses_is_named() {
        let mut m: Manifest = serde_yaml::from_str(
            r"
apiVersion: operator.openshift.io/v1
kind: MachineConfiguration
metadata: {name: cluster}
spec:
  nodeDisruptionPolicy:
    files:
      - {path: etc/x, actions: [{type: None}, {type: Drain}]}
      - {path: /etc/y, actions: [{type: Restart}]}
      - {path: /etc/z, actions: [{type: Restart, restart: {serviceName: crio}}]}
",
        )
        .unwrap();
        let v = violations(&m);
        assert_eq!(
            v,
            [
                "etc/x: not an absolute path",
                "etc/x: None only standalone",
                "/etc/y: Restart needs its service",
                "/etc/z: bad service name crio",
            ],
            "{v:?}"
        );
        m.spec.node_disruption_policy.files.truncate(0);
        assert!(violations(&m).is_empty());
    }
}
