//! The MCO templates in `units/mco` render under MCO's own rules ([`overlay`], [`funcs`]) for
//! ControllerConfig fixtures of every install topology upstream supports ([`fixtures`]), for
//! every pool MCO renders. Each rendered config is accepted by its daemon's own parser and holds
//! the expected values; each unit is enabled exactly where upstream enables its counterpart;
//! laid over upstream's templates, `units/mco` retires, replaces and keeps exactly what
//! [`upstream`] lists.
//!
//! `MCO_TEMPLATES=<MCO checkout>/templates` also holds the list against upstream's tree;
//! `MCO_RENDER_DUMP=DIR` writes the fixtures and this renderer's output there as JSON, to
//! compare with MCO's own renderer (see `units/README.md`).

mod fixtures;
mod funcs;
mod overlay;
mod policy;
mod upstream;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use clap::Parser;

use fixtures::{MANAGED, fixtures, pools};
use funcs::ON_PREM;
use overlay::{MachineConfig, Tree, render_role};
use upstream::{Fate, ON_PREM_DIRS, UPSTREAM};

fn mco_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../units/mco")
}

/// Every file under `dir`, relative to it.
fn files_under(dir: &Path) -> BTreeSet<PathBuf> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeSet<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.insert(p.strip_prefix(base).unwrap().to_path_buf());
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, &mut out);
    out
}

fn is_empty_file(p: &Path) -> bool {
    std::fs::metadata(p).unwrap().len() == 0
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

/// Every pool of every topology, rendered from `units/mco` alone: no error (an error leaves
/// the pool without a MachineConfig), the enabled units, and the configs as the daemons read
/// them.
#[test]
fn every_pool_of_every_topology_renders_and_the_daemons_accept_the_configs() {
    let tree = Tree::new(&[&mco_dir()]);
    let mut used = BTreeSet::new();
    let mut dump = BTreeMap::new();
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
        for role in pools(&fx.config) {
            let ctx = format!("{} ({role})", fx.name);
            let mcs = render_role(&tree, &fx.config, role)
                .unwrap_or_else(|e| panic!("{ctx}: MCO would render no MachineConfig: {e}"));
            for mc in mcs.values() {
                used.extend(mc.templates.iter().cloned());
            }
            dump.insert(format!("{}/{role}", fx.name), mcs.clone());
            let r: &MachineConfig = &mcs[&format!("00-{role}")];

            if !on_prem {
                // Nothing at all: cloud platforms keep upstream's templates.
                assert!(r.units.is_empty() && r.files.is_empty(), "{ctx}: {r:?}");
                continue;
            }

            // Enablement: the br-ex units as upstream (OVNKubernetes; nmstate-configuration on
            // every on-prem platform; its files' day-2 changes are MCO's daemon's restart of
            // nmstate-configuration-live.service, which nothing enables); the NodeNetworkState
            // publisher on every on-prem pool, whatever the network type (it reads the node
            // through NetworkManager, as kubernetes-nmstate's handler runs on every node);
            // the node IP with API VIPs, and on vSphere without them (upstream's UPI unit);
            // resolv.conf only with API VIPs; keepalived only with OpenShift's own load
            // balancer.
            let mut expected = vec![
                "nmstate-configuration.service",
                "node-network-state-publisher.service",
                "ovs-configuration.service",
            ];
            if has_vips || platform == "VSphere" {
                expected.push("nodeip-configuration.service");
            }
            if has_vips {
                expected.push("resolv-prepender.service");
            }
            if managed_lb {
                expected.push("keepalived-monitor.service");
            }
            expected.sort_unstable();
            assert_eq!(r.enabled(), expected, "{ctx}");

            // The TNF drop-in on two-node-with-fencing masters only.
            let ovs = &r.units["ovs-configuration.service"];
            if topology == "DualReplica" && role == "master" {
                assert_eq!(
                    ovs.dropins.keys().collect::<Vec<_>>(),
                    ["10-skip-rerun.conf"],
                    "{ctx}"
                );
                assert!(
                    ovs.dropins["10-skip-rerun.conf"]
                        .contains("ConditionPathExists=!/var/run/ovs-config-executed")
                );
            } else {
                assert!(ovs.dropins.is_empty(), "{ctx}: {:?}", ovs.dropins);
            }

            // NetworkManager leaves /etc/resolv.conf to resolv-prepender only where it runs;
            // elsewhere (vSphere UPI) the file is empty and NetworkManager writes resolv.conf.
            let short = match platform {
                "BareMetal" => "kni",
                "VSphere" => "vsphere",
                "OpenStack" => "openstack",
                other => panic!("no fixture for {other}"),
            };
            let nm = r.file(&format!("/etc/NetworkManager/conf.d/99-{short}.conf"));
            let unmanaged = if has_vips {
                "[main]\nrc-manager=unmanaged\n"
            } else {
                ""
            };
            assert_eq!(nm, unmanaged, "{ctx}");

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
                nodeip.has_vips(),
                has_vips,
                "{ctx}: enable-forwarding only with VIPs"
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
            assert_eq!(
                k.cluster_name, "ostest",
                "{ctx}: the first label of the base domain"
            );
            let parsed = clap::ValueEnum::to_possible_value(&k.role).unwrap();
            assert_eq!(parsed.get_name(), role, "{ctx}");
            let ips = |v: &[std::net::IpAddr]| v.iter().map(|i| i.to_string()).collect::<Vec<_>>();
            assert_eq!(ips(&k.api_vips), api, "{ctx}");
            assert_eq!(ips(&k.ingress_vips), ingress, "{ctx}");
            assert_eq!(k.platform, platform, "{ctx}");
            assert_eq!(k.topology, topology, "{ctx}");
            assert_eq!(k.user_managed_lb, user_managed, "{ctx}");
        }
    }
    // Every template is rendered by some topology, but the zero-byte ones, which only delete.
    let unused: Vec<_> = files_under(&mco_dir())
        .into_iter()
        .filter(|p| !used.contains(p) && !is_empty_file(&mco_dir().join(p)))
        .collect();
    assert!(
        unused.is_empty(),
        "templates no fixture renders: {unused:?}"
    );

    if let Some(dir) = std::env::var_os("MCO_RENDER_DUMP") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        let configs: BTreeMap<&str, serde_json::Value> = fixtures()
            .into_iter()
            .map(|f| {
                (
                    f.name,
                    serde_json::json!({ "pools": pools(&f.config), "config": f.config }),
                )
            })
            .collect();
        std::fs::write(
            dir.join("fixtures.json"),
            serde_json::to_string_pretty(&configs).unwrap(),
        )
        .unwrap();
        std::fs::write(
            dir.join("ours.json"),
            serde_json::to_string_pretty(&dump).unwrap(),
        )
        .unwrap();
    }
}

/// Every unit a template enables is one the RPMs ship (`units/system`) with an `[Install]`
/// section: enabling a unit that is not installed, or has nothing to enable, is a MachineConfig
/// that fails on the node (a misspelt name included).
#[test]
fn every_unit_the_templates_enable_is_shipped_and_installable() {
    let tree = Tree::new(&[&mco_dir()]);
    let units = Path::new(env!("CARGO_MANIFEST_DIR")).join("../units/system");
    let mut enabled = BTreeSet::new();
    for fx in fixtures() {
        for role in pools(&fx.config) {
            for mc in render_role(&tree, &fx.config, role).unwrap().values() {
                enabled.extend(mc.enabled().into_iter().map(str::to_owned));
            }
        }
    }
    assert!(!enabled.is_empty());
    for unit in &enabled {
        let text = std::fs::read_to_string(units.join(unit))
            .unwrap_or_else(|e| panic!("{unit}: enabled by a template, not shipped: {e}"));
        assert!(
            text.lines().any(|l| l.trim() == "[Install]"),
            "{unit}: enabled by a template, but it has no [Install] section"
        );
    }
}

/// A stand-in for each listed upstream template at its path: a unit or file that names where
/// it came from, so the rendered pools show which upstream templates survive the overlay.
fn stub_upstream_tree(root: &Path) {
    for (rel, _) in UPSTREAM {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        let kind = Path::new(rel).parent().unwrap().file_name().unwrap();
        let text = if kind == "units" {
            format!("name: {}\nenabled: true\n", stub_unit(rel))
        } else {
            format!(
                "mode: 0644\npath: \"{}\"\ncontents:\n  inline: stub\n",
                stub_path(rel)
            )
        };
        std::fs::write(p, text).unwrap();
    }
}

fn stub_unit(rel: &str) -> String {
    format!("upstream-{}.service", rel.replace(['/', '.'], "-"))
}

fn stub_path(rel: &str) -> String {
    format!("/upstream/{rel}")
}

/// `units/mco` laid over upstream's templates (stand-ins at upstream's paths): on every on-prem
/// pool each retired template is gone, each replaced one lost to ours, each kept one rendered
/// where MCO walks its directory; on a cloud platform every upstream template renders as
/// before. Every zero-byte template of ours retires a listed template.
#[test]
fn units_mco_over_upstreams_templates_retires_replaces_and_keeps_as_listed() {
    let upstream = tempfile::tempdir().unwrap();
    stub_upstream_tree(upstream.path());
    let tree = Tree::new(&[upstream.path(), &mco_dir()]);
    let mut failures = Vec::new();
    for fx in fixtures() {
        let platform = fx.config["Infra"]["Status"]["PlatformStatus"]["Type"]
            .as_str()
            .unwrap();
        let on_prem = ON_PREM.contains(&platform);
        let walked = overlay::platform_paths(&fx.config).unwrap();
        for role in pools(&fx.config) {
            let mcs = render_role(&tree, &fx.config, role).unwrap();
            let rendered = |rel: &str| {
                mcs.values().any(|mc| {
                    mc.units.contains_key(&stub_unit(rel)) || mc.files.contains_key(&stub_path(rel))
                })
            };
            for (rel, fate) in UPSTREAM {
                let parts: Vec<&str> = rel.split('/').collect();
                let (owner, dir) = if parts[0] == "common" {
                    ("common", parts[1])
                } else {
                    (parts[0], parts[2])
                };
                let reaches =
                    (owner == "common" || owner == role) && walked.iter().any(|w| w == dir);
                let expected = reaches && (!on_prem || matches!(fate, Fate::Kept(_)));
                if rendered(rel) != expected {
                    failures.push(format!(
                        "{} ({role}): {rel} ({fate:?}) {}",
                        fx.name,
                        if expected {
                            "missing"
                        } else {
                            "still rendered"
                        }
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));

    // Each zero-byte template of ours retires a listed template of its name and kind.
    for rel in files_under(&mco_dir()) {
        if !is_empty_file(&mco_dir().join(&rel)) {
            continue;
        }
        let (name, kind) = (
            rel.file_name().unwrap(),
            rel.parent().unwrap().file_name().unwrap(),
        );
        let retires = UPSTREAM.iter().any(|(u, f)| {
            let u = Path::new(u);
            matches!(f, Fate::Retired(_))
                && u.file_name().unwrap() == name
                && u.parent().unwrap().file_name().unwrap() == kind
        });
        assert!(
            retires,
            "units/mco/{}: an empty template that retires nothing listed",
            rel.display()
        );
    }
}

/// The list against upstream's own tree (`MCO_TEMPLATES`): every listed template exists, and
/// every template in a directory MCO walks for an on-prem pool that names a program or unit
/// this project replaces (or sits in an `on-prem` directory) is listed. Without the tree, the
/// list's own shape: known directories, no duplicates, a fate for each.
#[test]
fn the_retirement_list_covers_upstreams_templates() {
    let mut seen = BTreeSet::new();
    for (rel, _) in UPSTREAM {
        assert!(seen.insert(*rel), "{rel} listed twice");
        let parts: Vec<&str> = rel.split('/').collect();
        let dir = if parts[0] == "common" {
            parts[1]
        } else {
            parts[2]
        };
        assert!(
            ON_PREM_DIRS.contains(&dir),
            "{rel}: not in a directory MCO walks on-prem"
        );
        assert!(rel.ends_with(".yaml"), "{rel}");
    }
    let Some(templates) = std::env::var_os("MCO_TEMPLATES") else {
        eprintln!("MCO_TEMPLATES not set: the list was checked against units/mco only");
        return;
    };
    let templates = PathBuf::from(templates);
    let all = files_under(&templates);
    let mut failures: Vec<String> = UPSTREAM
        .iter()
        .filter(|(rel, _)| !all.contains(Path::new(rel)))
        .map(|(rel, _)| format!("{rel}: listed, but upstream has no such template (renamed?)"))
        .collect();
    for rel in &all {
        let s = rel.to_string_lossy();
        let parts: Vec<&str> = s.split('/').collect();
        if parts.len() < 4 || rel.file_name().unwrap() == "OWNERS" {
            continue;
        }
        let dir = if parts[0] == "common" {
            parts[1]
        } else {
            parts[2]
        };
        if !ON_PREM_DIRS.contains(&dir) || seen.contains(s.as_ref()) {
            continue;
        }
        let text = std::fs::read_to_string(templates.join(rel)).unwrap_or_default();
        if dir == "on-prem" || upstream::KEYWORDS.iter().any(|k| text.contains(k)) {
            failures.push(format!(
                "{s}: upstream template not in the list: replaced, retired or kept?"
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The renderer refuses and merges as MCO does, on small trees.
#[test]
fn the_renderer_keeps_mcos_rules() {
    let config = fixtures::controller_config(
        "BareMetal",
        fixtures::Block::Vips {
            api: &["192.0.2.5"],
            ingress: &["192.0.2.4"],
            lb: MANAGED,
        },
        "IPv4",
        "HighlyAvailable",
    );
    let write = |root: &Path, rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    let file =
        |path: &str, body: &str| format!("mode: 0644\npath: {path}\ncontents:\n  inline: {body}\n");

    // A sprig function is unknown to MCO: the pool fails, naming the template and function.
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "master/00-master/on-prem/files/x.yaml",
        &file("/x", "{{index (splitList \".\" \"a.b\") 0}}"),
    );
    let e = render_role(&Tree::new(&[t.path()]), &config, "master").unwrap_err();
    assert!(
        e.contains("x.yaml") && e.contains("function splitList not defined"),
        "{e}"
    );

    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    // Later directories win by file name; an empty template deletes, wherever it is.
    write(root, "common/_base/files/a.yaml", &file("/a", "base"));
    write(
        root,
        "master/00-master/on-prem/files/a.yaml",
        &file("/a", "role"),
    );
    write(root, "common/_base/files/gone.yaml", &file("/gone", "x"));
    write(root, "common/on-prem/files/gone.yaml", "");
    // Whitespace adds nothing and leaves the earlier template of its name.
    write(root, "common/_base/files/kept.yaml", &file("/kept", "base"));
    write(
        root,
        "common/baremetal/files/kept.yaml",
        "{{if false}}x{{end}}\n  \n",
    );
    // Units of one name from templates of different names merge: the later `enabled`, every
    // drop-in.
    write(
        root,
        "common/_base/units/u.yaml",
        "name: u.service\nenabled: false\ndropins:\n- name: 1.conf\n  contents: one\n",
    );
    write(
        root,
        "common/on-prem/units/v.yaml",
        "name: u.service\nenabled: true\ndropins:\n- name: 2.conf\n  contents: two\n",
    );
    // The SNO directory only on a single-node topology; worker pools do not see master's.
    write(root, "common/sno/files/sno.yaml", &file("/sno", "x"));
    write(
        root,
        "worker/00-worker/_base/files/w.yaml",
        &file("/w", "x"),
    );
    let tree = Tree::new(&[root]);
    let master = &render_role(&tree, &config, "master").unwrap()["00-master"];
    assert_eq!(master.file("/a"), "role");
    assert!(!master.files.contains_key("/gone"));
    assert_eq!(master.file("/kept"), "base");
    assert!(!master.files.contains_key("/sno"));
    let u = &master.units["u.service"];
    assert_eq!(u.enabled, Some(true));
    assert_eq!(u.dropins.keys().collect::<Vec<_>>(), ["1.conf", "2.conf"]);
    let worker = &render_role(&tree, &config, "worker").unwrap()["00-worker"];
    assert_eq!(
        worker.file("/a"),
        "base",
        "master's template is not the worker's"
    );
    let mut sno = config.clone();
    sno["Infra"]["Status"]["ControlPlaneTopology"] = "SingleReplica".into();
    assert_eq!(
        render_role(&tree, &sno, "master").unwrap()["00-master"].file("/sno"),
        "x"
    );
    // The on-prem helpers fail without the platform's block: MCO renders no pool.
    let mut bare = config.clone();
    bare["Infra"]["Status"]["PlatformStatus"] = serde_json::json!({ "Type": "BareMetal" });
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "worker/00-worker/_base/files/w.yaml",
        &file("/w", "x"),
    );
    assert!(render_role(&Tree::new(&[t.path()]), &config, "worker").is_ok());
    write(
        t.path(),
        "common/on-prem/files/ips.yaml",
        &file("/ips", "{{len (onPremPlatformAPIServerInternalIPs .)}}"),
    );
    assert!(render_role(&Tree::new(&[t.path()]), &bare, "worker").is_err());
}

/// The node-disruption policy for the NMState files: the API server accepts it;
/// merged with MCO's defaults, a change of any host's file under /etc/nmstate/openshift gets
/// None (no drain, no reboot); no file the templates render falls under it (it makes nothing
/// else rebootless); and the path unit the templates enable watches exactly its paths and
/// starts the live apply.
#[test]
fn the_nmstate_files_policy_restarts_the_live_unit_without_a_reboot() {
    let m = policy::load();
    assert_eq!(policy::violations(&m), Vec::<String>::new());
    let ours = &m.spec.node_disruption_policy.files;
    let merged = policy::merge(&policy::mco_defaults(), ours);
    for changed in [
        "/etc/nmstate/openshift/cluster.yml",
        "/etc/nmstate/openshift/master-0.yml",
        "/etc/nmstate/openshift/worker-12.yml",
    ] {
        let actions = policy::closest(changed, &merged)
            .unwrap_or_else(|| panic!("{changed}: no policy, MCO reboots"));
        let restarted: Vec<(&str, Option<&str>)> = actions
            .iter()
            .map(|a| {
                let service = a.restart.as_ref().map(|r| r.service_name.as_str());
                (a.kind.as_str(), service)
            })
            .collect();
        assert_eq!(
            restarted,
            [("Restart", Some("nmstate-configuration-live.service"))],
            "{changed}"
        );
    }

    let tree = Tree::new(&[&mco_dir()]);
    for fx in fixtures() {
        for role in pools(&fx.config) {
            for mc in render_role(&tree, &fx.config, role).unwrap().values() {
                for path in mc.files.keys() {
                    assert!(
                        policy::closest(path, ours).is_none(),
                        "{} ({role}): {path} would not reboot the node",
                        fx.name
                    );
                }
            }
        }
    }

    // The unit MCO's daemon restarts: ours, a oneshot that applies this node's file live, and
    // started by nothing else (no [Install] for a preset to enable, no path unit watching the
    // directory: a second trigger of one write would start it while MCO's restart stops it).
    let units = Path::new(env!("CARGO_MANIFEST_DIR")).join("../units/system");
    let service =
        std::fs::read_to_string(units.join("nmstate-configuration-live.service")).unwrap();
    for line in [
        "Type=oneshot",
        "ExecStart=/usr/bin/ovs-bridge-configurator apply-nmstate --live",
    ] {
        assert!(service.lines().any(|l| l == line), "{line}\n{service}");
    }
    assert!(!service.contains("[Install]"), "{service}");
    for e in std::fs::read_dir(&units).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap_or_default();
        assert!(!text.contains("PathChanged=/etc/nmstate"), "{text}");
    }
}
