//! MCO's rules for turning a template tree into a pool's MachineConfigs
//! (`GenerateMachineConfigsForRole`, `generateMachineConfigForName`, `filterTemplates`,
//! `getPaths` and `TranspileCoreOSConfigToIgn` at the pinned commit):
//! - a role renders every `<role>/<name>` directory into the MachineConfig `<name>`; `common`
//!   joins only the first of them (`00-<role>`);
//! - within one, the directories `_base`, `on-prem` (on-prem platforms), the platform's own
//!   (`baremetal`, `vsphere`, ...), `sno`, `two-node-with-fencing` are walked in that order,
//!   `common`'s first; `files`, `units` and `extensions` each fill a map keyed by the template's
//!   **file name**, so a later template of the same name replaces an earlier one wherever it is;
//! - a zero-byte template deletes the name ("empty templates signify don't create"); a template
//!   that renders to whitespace adds nothing (and leaves an earlier one of its name in place);
//! - any template that fails to parse or execute fails the whole role: it gets no MachineConfig;
//! - the survivors, sorted by template name, are merged as Ignition merges configs: files by
//!   path, units by unit name (`enabled` and `contents` of the later one when set, drop-ins by
//!   name).
//!
//! A tree is a stack of roots, later ones laid over earlier ones path by path: `units/mco` over
//! MCO's templates is exactly the overlay a user makes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gtmpl::{Context, Template};
use serde::Deserialize;

use crate::funcs::{MCO_FUNCS, ON_PREM, to_value};

/// Template roots, later ones laid over earlier ones.
pub struct Tree {
    /// Relative path -> the file that wins at that path.
    files: BTreeMap<PathBuf, PathBuf>,
}

impl Tree {
    pub fn new(roots: &[&Path]) -> Tree {
        let mut files = BTreeMap::new();
        for root in roots {
            for f in walk(root) {
                let rel = f.strip_prefix(root).unwrap().to_path_buf();
                files.insert(rel, f);
            }
        }
        Tree { files }
    }

    fn is_dir(&self, rel: &Path) -> bool {
        self.files.keys().any(|p| p.starts_with(rel) && p != rel)
    }

    /// Files under `rel`, in `filepath.Walk`'s (lexical) order.
    fn walk(&self, rel: &Path) -> Vec<(&Path, &Path)> {
        self.files
            .iter()
            .filter(|(p, _)| p.starts_with(rel))
            .map(|(p, a)| (p.as_path(), a.as_path()))
            .collect()
    }

    /// The immediate subdirectories of `rel`, sorted (`os.ReadDir`).
    fn subdirs(&self, rel: &Path) -> Vec<String> {
        let mut out: Vec<String> = self
            .files
            .keys()
            .filter_map(|p| p.strip_prefix(rel).ok())
            .filter(|p| p.components().count() > 1)
            .map(|p| {
                p.components()
                    .next()
                    .unwrap()
                    .as_os_str()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        out.dedup();
        out
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// One file as Ignition writes it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct File {
    pub mode: Option<u32>,
    pub contents: String,
}

/// One unit as Ignition leaves it: enablement, contents, drop-ins by name.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Unit {
    pub enabled: Option<bool>,
    pub contents: Option<String>,
    pub dropins: BTreeMap<String, String>,
}

/// One MachineConfig's Ignition content.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct MachineConfig {
    pub files: BTreeMap<String, File>,
    pub units: BTreeMap<String, Unit>,
    pub extensions: Vec<String>,
    /// The templates that produced it (relative paths), for "every template is used".
    #[serde(skip)]
    pub templates: Vec<PathBuf>,
}

impl MachineConfig {
    pub fn enabled(&self) -> Vec<&str> {
        self.units
            .iter()
            .filter(|(_, u)| u.enabled == Some(true))
            .map(|(n, _)| n.as_str())
            .collect()
    }

    pub fn file(&self, path: &str) -> &str {
        match self.files.get(path) {
            Some(f) => &f.contents,
            None => panic!("{path} not rendered; files: {:?}", self.files.keys()),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UnitTemplate {
    name: String,
    enabled: Option<bool>,
    contents: Option<String>,
    #[serde(default)]
    dropins: Vec<DropinTemplate>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DropinTemplate {
    name: String,
    contents: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTemplate {
    /// `0644` in MCO's templates: octal for MCO's YAML 1.1 parser, a string for serde_yaml's
    /// YAML 1.2 ([`yaml11_mode`]).
    mode: Option<serde_yaml::Value>,
    path: String,
    contents: Inline,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Inline {
    inline: String,
}

/// A file mode as MCO's YAML 1.1 parser reads it: a leading `0` makes it octal.
fn yaml11_mode(v: &serde_yaml::Value) -> Option<u32> {
    match v {
        serde_yaml::Value::String(s) if s.starts_with('0') => u32::from_str_radix(s, 8).ok(),
        serde_yaml::Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        _ => None,
    }
}

/// One template rendered with MCO's function map; `Err` names the template as MCO does.
pub fn render_template(
    path: &Path,
    text: &str,
    config: &serde_json::Value,
) -> Result<String, String> {
    let mut t = Template::default();
    t.add_funcs(MCO_FUNCS);
    t.parse(text)
        .map_err(|e| format!("failed to parse template {}: {e}", path.display()))?;
    t.render(&Context::from(to_value(config)))
        .map_err(|e| format!("failed to execute template {}: {e}", path.display()))
}

/// `platformStringFromControllerConfigSpec`.
fn platform_dir(platform: &str) -> Result<String, String> {
    const KNOWN: [&str; 13] = [
        "AWS",
        "Azure",
        "BareMetal",
        "GCP",
        "OpenStack",
        "Libvirt",
        "Ovirt",
        "VSphere",
        "KubeVirt",
        "PowerVS",
        "None",
        "External",
        "Nutanix",
    ];
    match platform {
        "" => Err("cannot generate MachineConfigs when no platformStatus.type is set".into()),
        "_base" => Err("platform _base unsupported".into()),
        p if KNOWN.contains(&p) => Ok(p.to_lowercase()),
        _ => Ok("none".into()),
    }
}

/// `getPaths`: the platform directories a role walks, in order.
pub fn platform_paths(config: &serde_json::Value) -> Result<Vec<String>, String> {
    let status = &config["Infra"]["Status"];
    let platform = status["PlatformStatus"]["Type"]
        .as_str()
        .unwrap_or_default();
    let mut paths = vec!["_base".to_owned()];
    if ON_PREM.contains(&platform) {
        paths.push("on-prem".into());
    }
    let lb = &status["PlatformStatus"][platform]["CloudLoadBalancerConfig"];
    if ["AWS", "Azure", "GCP"].contains(&platform)
        && lb["DNSType"] == "ClusterHosted"
        && !lb["ClusterHosted"].is_null()
    {
        paths.push("cloud-platform-alt-dns".into());
    }
    paths.push(platform_dir(platform)?);
    match status["ControlPlaneTopology"].as_str() {
        Some("SingleReplica") => paths.push("sno".into()),
        Some("DualReplica") => paths.push("two-node-with-fencing".into()),
        _ => {}
    }
    Ok(paths)
}

/// Every MachineConfig MCO generates for `role` (by name), or the error that leaves the role
/// without any.
pub fn render_role(
    tree: &Tree,
    config: &serde_json::Value,
    role: &str,
) -> Result<BTreeMap<String, MachineConfig>, String> {
    let paths = platform_paths(config)?;
    // Custom pools reuse the worker's templates.
    let role_dir = if ["master", "worker", "arbiter"].contains(&role) {
        role
    } else {
        "worker"
    };
    if !tree.is_dir(Path::new(role_dir)) {
        return Err(format!("failed to read dir {role_dir:?}"));
    }
    let mut out = BTreeMap::new();
    let mut common_added = false;
    for name in tree.subdirs(Path::new(role_dir)) {
        let mut dirs: Vec<PathBuf> = Vec::new();
        if !common_added {
            dirs.extend(paths.iter().map(|p| Path::new("common").join(p)));
            common_added = true;
        }
        dirs.extend(
            paths
                .iter()
                .map(|p| Path::new(role_dir).join(&name).join(p)),
        );
        let mut maps: [BTreeMap<String, (PathBuf, String)>; 3] = Default::default();
        for dir in dirs.iter().filter(|d| tree.is_dir(d)) {
            for (kind, map) in ["files", "units", "extensions"].iter().zip(maps.iter_mut()) {
                filter_templates(tree, &dir.join(kind), config, map)?;
            }
        }
        let [files, units, extensions] = maps;
        out.insert(name, transpile(files, units, extensions)?);
    }
    Ok(out)
}

/// `filterTemplates` over one `files`, `units` or `extensions` directory.
fn filter_templates(
    tree: &Tree,
    dir: &Path,
    config: &serde_json::Value,
    map: &mut BTreeMap<String, (PathBuf, String)>,
) -> Result<(), String> {
    for (rel, abs) in tree.walk(dir) {
        let name = rel.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(abs).map_err(|e| format!("{}: {e}", abs.display()))?;
        if bytes.is_empty() {
            map.remove(&name);
            continue;
        }
        let text = String::from_utf8(bytes).map_err(|e| format!("{}: {e}", abs.display()))?;
        let rendered = render_template(rel, &text, config)?;
        if !rendered.trim().is_empty() {
            map.insert(name, (rel.to_path_buf(), rendered));
        }
    }
    Ok(())
}

/// `TranspileCoreOSConfigToIgn` and Ignition's merge, in template-name order.
fn transpile(
    files: BTreeMap<String, (PathBuf, String)>,
    units: BTreeMap<String, (PathBuf, String)>,
    extensions: BTreeMap<String, (PathBuf, String)>,
) -> Result<MachineConfig, String> {
    let mut mc = MachineConfig::default();
    for (rel, text) in files.into_values() {
        let f: FileTemplate = serde_yaml::from_str(&text)
            .map_err(|e| format!("{}: {e}; rendered:\n{text}", rel.display()))?;
        let mode = f.mode.as_ref().and_then(yaml11_mode);
        let entry = mc.files.entry(f.path).or_insert(File {
            mode: None,
            contents: String::new(),
        });
        entry.mode = mode.or(entry.mode);
        entry.contents = f.contents.inline;
        mc.templates.push(rel);
    }
    for (rel, text) in units.into_values() {
        let u: UnitTemplate = serde_yaml::from_str(&text)
            .map_err(|e| format!("{}: {e}; rendered:\n{text}", rel.display()))?;
        let entry = mc.units.entry(u.name).or_default();
        entry.enabled = u.enabled.or(entry.enabled);
        entry.contents = u.contents.or(entry.contents.take());
        for d in u.dropins {
            entry.dropins.insert(d.name, d.contents);
        }
        mc.templates.push(rel);
    }
    for (name, (rel, _)) in extensions {
        mc.extensions.push(name);
        mc.templates.push(rel);
    }
    Ok(mc)
}
