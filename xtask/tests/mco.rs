//! The MCO templates in `units/mco` render as MCO renders them: Go templates (the `gtmpl`
//! engine) with MCO's helper functions, chosen per role and platform by MCO's overlay rule, for
//! ControllerConfig fixtures of every install topology upstream supports. Each rendered config is
//! accepted by its daemon's own parser and holds the expected values; each unit is enabled
//! exactly where upstream enables its counterpart.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Parser;
use gtmpl::{Context, FuncError, Template, Value};
use serde::Deserialize;
use serde_json::json;

// --- MCO's template functions (pkg/controller/template/render.go), over the render config ---

/// `.Infra.Status.PlatformStatus` of the render config.
fn platform_status(args: &[Value]) -> Result<&std::collections::HashMap<String, Value>, FuncError> {
    fn field<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
        match v {
            Value::Object(o) | Value::Map(o) => o.get(name),
            _ => None,
        }
    }
    let status = args
        .first()
        .and_then(|c| field(c, "Infra"))
        .and_then(|i| field(i, "Status"))
        .and_then(|s| field(s, "PlatformStatus"));
    match status {
        Some(Value::Object(o) | Value::Map(o)) => Ok(o),
        _ => Err(FuncError::Generic("no Infra.Status.PlatformStatus".into())),
    }
}

fn platform_type(status: &std::collections::HashMap<String, Value>) -> String {
    match status.get("Type") {
        Some(Value::String(t)) => t.clone(),
        _ => String::new(),
    }
}

/// The platform's own status block (`BareMetal`, `VSphere`, ...): on-prem platforms only, as
/// MCO's helpers fail for any other.
fn on_prem_block(
    status: &std::collections::HashMap<String, Value>,
) -> Result<Option<&std::collections::HashMap<String, Value>>, FuncError> {
    let t = platform_type(status);
    if !ON_PREM.contains(&t.as_str()) {
        return Err(FuncError::Generic(format!(
            "invalid platform {t} for on-prem VIPs"
        )));
    }
    Ok(match status.get(&t) {
        Some(Value::Object(o) | Value::Map(o)) => Some(o),
        _ => None,
    })
}

fn vips(args: &[Value], key: &str) -> Result<Value, FuncError> {
    let status = platform_status(args)?;
    Ok(on_prem_block(status)?
        .and_then(|b| b.get(key).cloned())
        .unwrap_or(Value::Array(Vec::new())))
}

fn on_prem_platform_api_server_internal_ips(args: &[Value]) -> Result<Value, FuncError> {
    vips(args, "APIServerInternalIPs")
}

fn on_prem_platform_ingress_ips(args: &[Value]) -> Result<Value, FuncError> {
    vips(args, "IngressIPs")
}

fn on_prem_platform_short_name(args: &[Value]) -> Result<Value, FuncError> {
    let short = match platform_type(platform_status(args)?).as_str() {
        "BareMetal" => "kni",
        "OpenStack" => "openstack",
        "Ovirt" => "ovirt",
        "VSphere" => "vsphere",
        "Nutanix" => "nutanix",
        _ => "",
    };
    Ok(Value::from(short))
}

/// `isOpenShiftManagedDefaultLB`: the platform's `LoadBalancer.Type` is not `UserManaged`;
/// vSphere without API VIPs counts as user-managed (its UPI installs).
fn is_openshift_managed_default_lb(args: &[Value]) -> Result<Value, FuncError> {
    let status = platform_status(args)?;
    let block = match status.get(&platform_type(status)) {
        Some(Value::Object(o) | Value::Map(o)) => Some(o),
        _ => None,
    };
    if platform_type(status) == "VSphere"
        && block
            .and_then(|b| b.get("APIServerInternalIPs"))
            .is_none_or(|v| matches!(v, Value::Array(a) if a.is_empty()))
    {
        return Ok(Value::Bool(false));
    }
    let lb = block
        .and_then(|b| b.get("LoadBalancer"))
        .and_then(|lb| match lb {
            Value::Object(o) | Value::Map(o) => o.get("Type"),
            _ => None,
        });
    let managed = match lb {
        Some(Value::String(t)) => t == "OpenShiftManagedDefault",
        _ => true,
    };
    Ok(Value::Bool(managed))
}

/// sprig's `splitList` (MCO registers sprig's functions next to its own).
fn split_list(args: &[Value]) -> Result<Value, FuncError> {
    match args {
        [Value::String(sep), Value::String(s)] => Ok(Value::Array(
            s.split(sep.as_str()).map(Value::from).collect(),
        )),
        _ => Err(FuncError::Generic("splitList SEP STRING".into())),
    }
}

const ON_PREM: [&str; 5] = ["BareMetal", "Ovirt", "OpenStack", "VSphere", "Nutanix"];

fn to_gtmpl(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::from(n.as_i64().expect("integer")),
        serde_json::Value::String(s) => Value::from(s.as_str()),
        serde_json::Value::Array(a) => Value::Array(a.iter().map(to_gtmpl).collect()),
        serde_json::Value::Object(o) => {
            Value::Object(o.iter().map(|(k, v)| (k.clone(), to_gtmpl(v))).collect())
        }
    }
}

fn render(path: &Path, config: &serde_json::Value) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut t = Template::default();
    t.add_func(
        "onPremPlatformAPIServerInternalIPs",
        on_prem_platform_api_server_internal_ips,
    );
    t.add_func("onPremPlatformIngressIPs", on_prem_platform_ingress_ips);
    t.add_func("onPremPlatformShortName", on_prem_platform_short_name);
    t.add_func(
        "isOpenShiftManagedDefaultLB",
        is_openshift_managed_default_lb,
    );
    t.add_func("splitList", split_list);
    t.parse(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    t.render(&Context::from(to_gtmpl(config)))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// --- MCO's template formats ---

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UnitTemplate {
    name: String,
    enabled: Option<bool>,
    contents: Option<String>,
    #[serde(default)]
    dropins: Vec<Dropin>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Dropin {
    name: String,
    contents: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTemplate {
    /// Written `0644` as in MCO's templates: octal for MCO's YAML 1.1 parser, a string for
    /// serde_yaml's YAML 1.2 ([`yaml11_mode`]).
    mode: serde_yaml::Value,
    path: String,
    contents: Inline,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Inline {
    inline: String,
}

/// What MCO would write for one role: units by name (enablement and drop-ins merged as
/// Ignition merges same-named units) and files by path.
#[derive(Debug, Default)]
struct Rendered {
    units: BTreeMap<String, (Option<bool>, Vec<Dropin>)>,
    files: BTreeMap<String, String>,
    templates: Vec<PathBuf>,
}

impl Rendered {
    fn enabled(&self) -> Vec<&str> {
        self.units
            .iter()
            .filter(|(_, (e, _))| *e == Some(true))
            .map(|(n, _)| n.as_str())
            .collect()
    }

    fn file(&self, path: &str) -> &str {
        self.files
            .get(path)
            .unwrap_or_else(|| panic!("{path} not rendered; files: {:?}", self.files.keys()))
    }
}

/// A file mode as MCO's YAML 1.1 parser reads it: a leading `0` makes it octal.
fn yaml11_mode(v: &serde_yaml::Value) -> Option<u32> {
    match v {
        serde_yaml::Value::String(s) if s.starts_with('0') => u32::from_str_radix(s, 8).ok(),
        serde_yaml::Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        _ => None,
    }
}

fn mco_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../units/mco")
}

/// MCO's overlay (`getPaths`): `_base`, then `on-prem` for on-prem platforms, then the
/// topology directories, for `common` and then the role's own `00-<role>` tree.
fn template_dirs(config: &serde_json::Value, role: &str) -> Vec<PathBuf> {
    let platform = config["Infra"]["Status"]["PlatformStatus"]["Type"]
        .as_str()
        .unwrap();
    let topology = config["Infra"]["Status"]["ControlPlaneTopology"]
        .as_str()
        .unwrap();
    let mut kinds = vec!["_base"];
    if ON_PREM.contains(&platform) {
        kinds.push("on-prem");
    }
    match topology {
        "SingleReplica" => kinds.push("sno"),
        "DualReplica" => kinds.push("two-node-with-fencing"),
        _ => {}
    }
    let root = mco_dir();
    let mut dirs = Vec::new();
    for base in [
        root.join("common"),
        root.join(role).join(format!("00-{role}")),
    ] {
        for kind in &kinds {
            for sub in ["units", "files"] {
                dirs.push(base.join(kind).join(sub));
            }
        }
    }
    dirs
}

fn render_role(config: &serde_json::Value, role: &str) -> Rendered {
    let mut out = Rendered::default();
    for dir in template_dirs(config, role) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        paths.sort();
        for path in paths {
            let text = render(&path, config);
            let what = || format!("{} rendered:\n{text}", path.display());
            if dir.ends_with("units") {
                let u: UnitTemplate =
                    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{e}: {}", what()));
                assert!(
                    u.contents.is_none(),
                    "{}: the RPM ships the unit; MCO only enables it",
                    what()
                );
                let entry = out.units.entry(u.name).or_default();
                if u.enabled.is_some() {
                    entry.0 = u.enabled;
                }
                entry.1.extend(u.dropins);
            } else {
                let f: FileTemplate =
                    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{e}: {}", what()));
                assert_eq!(yaml11_mode(&f.mode), Some(0o644), "{}", what());
                out.files.insert(f.path, f.contents.inline);
            }
            out.templates.push(path);
        }
    }
    out
}

// --- ControllerConfig fixtures ---

struct Fixture {
    name: &'static str,
    config: serde_json::Value,
    roles: &'static [&'static str],
}

/// A render config: `platform` with its VIPs and load balancer type, the IP families, the
/// control-plane topology.
fn controller_config(
    platform: &str,
    api: &[&str],
    ingress: &[&str],
    lb: &str,
    families: &str,
    topology: &str,
) -> serde_json::Value {
    let mut status = json!({ "Type": platform });
    if ON_PREM.contains(&platform) {
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

const MANAGED: &str = "OpenShiftManagedDefault";

fn fixtures() -> Vec<Fixture> {
    let v4 = (["192.0.2.5"], ["192.0.2.4"]);
    let dual = (["192.0.2.5", "2001:db8::5"], ["192.0.2.4", "2001:db8::4"]);
    let v6_first = (["2001:db8::5", "192.0.2.5"], ["2001:db8::4", "192.0.2.4"]);
    let ha = "HighlyAvailable";
    vec![
        Fixture {
            name: "bare metal IPv4",
            config: controller_config("BareMetal", &v4.0, &v4.1, MANAGED, "IPv4", ha),
            roles: &["master", "worker"],
        },
        Fixture {
            name: "bare metal dual stack",
            config: controller_config("BareMetal", &dual.0, &dual.1, MANAGED, "DualStack", ha),
            roles: &["master", "worker"],
        },
        Fixture {
            name: "bare metal IPv6-primary dual stack",
            config: controller_config(
                "BareMetal",
                &v6_first.0,
                &v6_first.1,
                MANAGED,
                "DualStackIPv6Primary",
                ha,
            ),
            roles: &["master", "worker"],
        },
        Fixture {
            name: "vSphere with a user-managed load balancer",
            config: controller_config(
                "VSphere",
                &["198.51.100.5"],
                &["198.51.100.4"],
                "UserManaged",
                "IPv4",
                ha,
            ),
            roles: &["master", "worker"],
        },
        Fixture {
            name: "vSphere UPI (no VIPs)",
            config: controller_config("VSphere", &[], &[], MANAGED, "IPv4", ha),
            roles: &["master", "worker"],
        },
        Fixture {
            name: "OpenStack dual stack",
            config: controller_config("OpenStack", &dual.0, &dual.1, MANAGED, "DualStack", ha),
            roles: &["master", "worker"],
        },
        Fixture {
            name: "single node",
            config: controller_config("BareMetal", &v4.0, &v4.1, MANAGED, "IPv4", "SingleReplica"),
            roles: &["master"],
        },
        Fixture {
            name: "two-node arbiter",
            config: controller_config(
                "BareMetal",
                &v4.0,
                &v4.1,
                MANAGED,
                "IPv4",
                "HighlyAvailableArbiter",
            ),
            roles: &["master", "arbiter"],
        },
        Fixture {
            name: "two-node with fencing",
            config: controller_config("BareMetal", &v4.0, &v4.1, MANAGED, "IPv4", "DualReplica"),
            roles: &["master"],
        },
        Fixture {
            name: "AWS (not on-prem)",
            config: controller_config("AWS", &[], &[], MANAGED, "IPv4", ha),
            roles: &["master", "worker"],
        },
    ]
}

// --- What each daemon makes of its rendered config ---

/// The daemon's command line `BIN SUB --config FILE` parsed, with FILE holding `text`.
fn cli<C: Parser>(bin: &str, sub: &str, text: &str) -> (C, tempfile::NamedTempFile) {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), text).unwrap();
    let argv = [bin, sub, "--config", f.path().to_str().unwrap()];
    (C::try_parse_from(argv).unwrap(), f)
}

fn nodeip_settings(text: &str) -> nodeip_selector::settings::Settings {
    let (c, f): (nodeip_selector::cli::Cli, _) = cli("nodeip-selector", "set", text);
    nodeip_selector::settings::resolve(c.command.select_args(), f.path())
        .unwrap_or_else(|e| panic!("nodeip-selector refuses\n{text}\n{e}"))
}

fn keepalived_settings(text: &str) -> keepalived_monitor::settings::Settings {
    use keepalived_monitor::cli::{Cli, Command};
    let (c, f): (Cli, _) = cli("keepalived-monitor", "render", text);
    let Command::Render(args) = c.command else {
        unreachable!("parsed render")
    };
    keepalived_monitor::settings::resolve(&args, f.path())
        .unwrap_or_else(|e| panic!("keepalived-monitor refuses\n{text}\n{e}"))
}

fn resolv_settings(text: &str) -> resolv_prepender::settings::Settings {
    use resolv_prepender::cli::{Cli, Command};
    let (c, f): (Cli, _) = cli("resolv-prepender", "once", text);
    let Command::Once(args) = c.command else {
        unreachable!("parsed once")
    };
    resolv_prepender::settings::resolve(&args, f.path())
        .unwrap_or_else(|e| panic!("resolv-prepender refuses\n{text}\n{e}"))
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(|s| s.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

/// Every template against every fixture and role: the enabled units, and the configs as the
/// daemons read them.
#[test]
fn every_template_renders_for_every_topology_and_the_daemons_accept_the_configs() {
    let mut used = std::collections::BTreeSet::new();
    for fx in fixtures() {
        let status = &fx.config["Infra"]["Status"]["PlatformStatus"];
        let platform = status["Type"].as_str().unwrap();
        let block = &status[platform];
        let (api, ingress) = (
            strings(&block["APIServerInternalIPs"]),
            strings(&block["IngressIPs"]),
        );
        let on_prem = ON_PREM.contains(&platform);
        let has_vips = on_prem && !api.is_empty();
        let managed_lb = has_vips && block["LoadBalancer"]["Type"] == MANAGED;
        let user_managed = !managed_lb;
        let families = fx.config["IPFamilies"].as_str().unwrap();
        let topology = fx.config["Infra"]["Status"]["ControlPlaneTopology"]
            .as_str()
            .unwrap();
        for role in fx.roles {
            let ctx = format!("{} ({role})", fx.name);
            let r = render_role(&fx.config, role);
            used.extend(r.templates.iter().cloned());

            if !on_prem {
                // Nothing at all: cloud platforms keep upstream's templates.
                assert!(r.units.is_empty() && r.files.is_empty(), "{ctx}: {r:?}");
                continue;
            }

            // Enablement: the br-ex units as upstream (OVNKubernetes; nmstate-configuration on
            // every on-prem platform), the on-prem ones only with API VIPs, keepalived only with
            // OpenShift's own load balancer.
            let mut expected = vec!["nmstate-configuration.service", "ovs-configuration.service"];
            if has_vips {
                expected.extend(["nodeip-configuration.service", "resolv-prepender.service"]);
            }
            if managed_lb {
                expected.push("keepalived-monitor.service");
            }
            expected.sort_unstable();
            assert_eq!(r.enabled(), expected, "{ctx}");

            // The TNF drop-in on two-node-with-fencing masters only.
            let dropins: Vec<&str> = r.units["ovs-configuration.service"]
                .1
                .iter()
                .map(|d| d.name.as_str())
                .collect();
            if topology == "DualReplica" && *role == "master" {
                assert_eq!(dropins, ["10-skip-rerun.conf"], "{ctx}");
                assert!(
                    r.units["ovs-configuration.service"].1[0]
                        .contents
                        .contains("ConditionPathExists=!/var/run/ovs-config-executed")
                );
            } else {
                assert!(dropins.is_empty(), "{ctx}: {dropins:?}");
            }

            let short = match platform {
                "BareMetal" => "kni",
                "VSphere" => "vsphere",
                "OpenStack" => "openstack",
                other => panic!("no fixture for {other}"),
            };
            let nm = r.file(&format!("/etc/NetworkManager/conf.d/99-{short}.conf"));
            assert_eq!(nm, "[main]\nrc-manager=unmanaged\n", "{ctx}");

            let nodeip = nodeip_settings(r.file("/etc/nodeip-selector/config.toml"));
            let targets: Vec<String> = nodeip
                .request
                .targets
                .iter()
                .map(|t| t.ip.to_string())
                .collect();
            let vips: Vec<String> = api.iter().chain(&ingress).cloned().collect();
            assert_eq!(
                targets, vips,
                "{ctx}: API VIPs, then ingress VIPs, in order"
            );
            assert_eq!(
                nodeip.request.prefer_ipv6,
                matches!(families, "IPv6" | "DualStackIPv6Primary"),
                "{ctx}"
            );
            assert_eq!(nodeip.platform, platform, "{ctx}");
            assert_eq!(nodeip.user_managed_lb, user_managed, "{ctx}");
            assert_eq!(nodeip.request.network_type, "OVNKubernetes", "{ctx}");
            assert_eq!(
                nodeip.dual_stack,
                families.starts_with("DualStack"),
                "{ctx}"
            );

            let resolv = resolv_settings(r.file("/etc/resolv-prepender/config.toml"));
            assert_eq!(resolv.base_domain, "ostest.test.metalkube.org", "{ctx}");

            let k = keepalived_settings(r.file("/etc/keepalived-monitor/config.toml"));
            assert_eq!(k.cluster_name, "ostest", "{ctx}");
            let parsed = clap::ValueEnum::to_possible_value(&k.role).unwrap();
            assert_eq!(parsed.get_name(), *role, "{ctx}");
            let ips = |v: &[std::net::IpAddr]| v.iter().map(|i| i.to_string()).collect::<Vec<_>>();
            assert_eq!(ips(&k.api_vips), api, "{ctx}");
            assert_eq!(ips(&k.ingress_vips), ingress, "{ctx}");
            assert_eq!(k.platform, platform, "{ctx}");
            assert_eq!(k.topology, topology, "{ctx}");
            assert_eq!(k.user_managed_lb, user_managed, "{ctx}");
        }
    }
    // No template that no topology uses.
    let all: std::collections::BTreeSet<PathBuf> = walk(&mco_dir());
    let unused: Vec<_> = all.difference(&used).collect();
    assert!(
        unused.is_empty(),
        "templates no fixture renders: {unused:?}"
    );
}

fn walk(dir: &Path) -> std::collections::BTreeSet<PathBuf> {
    let mut out = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "yaml") {
            out.insert(p);
        }
    }
    out
}
