//! One validated settings struct from the TOML file and the flags (which win).

use std::path::{Path, PathBuf};

pub use selection::app::UsageError;
use selection::app::load_config;
use selection::runfiles::{DEFAULT_RUN_DIR, NodeIpFiles};
use serde::Deserialize;

use crate::cli::SettingsArgs;

/// Optional settings file.
pub const DEFAULT_CONFIG: &str = "/etc/resolv-prepender/config.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ConfigFile {
    upstream: Option<PathBuf>,
    output: Option<PathBuf>,
    node_ip_file: Option<PathBuf>,
    base_domain: Option<String>,
    done_flag: Option<PathBuf>,
    env_file: Option<PathBuf>,
    resolved_dropin: Option<PathBuf>,
    br_ex_up_flag: Option<PathBuf>,
}

/// Validated settings.
#[derive(Clone, Debug)]
pub struct Settings {
    pub upstream: PathBuf,
    pub output: PathBuf,
    pub node_ip_file: PathBuf,
    pub base_domain: String,
    pub done_flag: PathBuf,
    pub env_file: PathBuf,
    pub resolved_dropin: PathBuf,
    /// Touched when br-ex is up ([`crate::brex`]).
    pub br_ex_up_flag: PathBuf,
}

/// Merges the flags over the config file (`default_config` only when it exists and no
/// `--config` was given).
pub fn resolve(args: &SettingsArgs, default_config: &Path) -> Result<Settings, UsageError> {
    let (cfg, path): (ConfigFile, _) = load_config(args.config.as_deref(), default_config)?;
    let pick = |flag: &Option<PathBuf>, file: Option<PathBuf>, default: &str| {
        flag.clone().or(file).unwrap_or_else(|| default.into())
    };
    let base_domain = args
        .base_domain
        .clone()
        .or(cfg.base_domain)
        .ok_or_else(|| {
            // Name the file that lacks it, or where one would be read from.
            let file = path.as_deref().unwrap_or(default_config);
            UsageError(format!(
                "no base domain: set --base-domain or base-domain in {}",
                file.display()
            ))
        })?;
    let origin = if args.base_domain.is_some() {
        "--base-domain".to_string()
    } else {
        format!(
            "base-domain in {}",
            path.as_deref().unwrap_or(Path::new("?")).display()
        )
    };
    validate_domain(&base_domain)
        .map_err(|why| UsageError(format!("invalid {origin} {base_domain:?}: {why}")))?;
    Ok(Settings {
        upstream: pick(
            &args.upstream,
            cfg.upstream,
            "/run/NetworkManager/resolv.conf",
        ),
        output: pick(&args.output, cfg.output, "/etc/resolv.conf"),
        node_ip_file: args
            .node_ip_file
            .clone()
            .or(cfg.node_ip_file)
            .unwrap_or_else(|| NodeIpFiles::new(DEFAULT_RUN_DIR).primary_ip()),
        base_domain,
        done_flag: pick(
            &args.done_flag,
            cfg.done_flag,
            "/run/resolv-prepender-kni-conf-done",
        ),
        env_file: pick(&args.env_file, cfg.env_file, "/run/resolv-prepender/env"),
        resolved_dropin: pick(
            &args.resolved_dropin,
            cfg.resolved_dropin,
            "/etc/systemd/resolved.conf.d/60-kni.conf",
        ),
        br_ex_up_flag: args
            .br_ex_up_flag
            .clone()
            .or(cfg.br_ex_up_flag)
            .unwrap_or_else(|| NodeIpFiles::new(DEFAULT_RUN_DIR).br_ex_up()),
    })
}

/// A DNS name usable as a `search` entry: labels of letters, digits, `-` and `_`, 1-63 bytes,
/// 253 in all, an optional final dot.
pub fn validate_domain(d: &str) -> Result<(), &'static str> {
    let name = d.strip_suffix('.').unwrap_or(d);
    if name.is_empty() || name.len() > 253 {
        return Err("must be 1 to 253 characters");
    }
    for label in name.split('.') {
        if label.is_empty() || label.len() > 63 {
            return Err("labels must be 1 to 63 characters");
        }
        if !label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err("only letters, digits, '-', '_' and '.' are allowed");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(argv: &[&str]) -> SettingsArgs {
        let mut full = vec!["resolv-prepender", "once"];
        full.extend_from_slice(argv);
        match crate::cli::Cli::parse_from(full).command {
            crate::cli::Command::Once(a) => a,
            _ => unreachable!(),
        }
    }

    #[test]
    fn defaults_flags_and_config() {
        let d = tempfile::tempdir().unwrap();
        let none = d.path().join("absent");
        let s = resolve(&args(&["--base-domain", "ostest.example.com"]), &none).unwrap();
        assert_eq!(s.upstream, Path::new("/run/NetworkManager/resolv.conf"));
        assert_eq!(s.output, Path::new("/etc/resolv.conf"));
        assert_eq!(
            s.node_ip_file,
            Path::new("/run/nodeip-configuration/primary-ip")
        );
        assert_eq!(
            s.done_flag,
            Path::new("/run/resolv-prepender-kni-conf-done")
        );
        let cfg = d.path().join("c.toml");
        std::fs::write(&cfg, "base-domain = \"a.example\"\noutput = \"/tmp/out\"\n").unwrap();
        let s = resolve(
            &args(&["--config", cfg.to_str().unwrap(), "--output", "/x"]),
            &none,
        )
        .unwrap();
        assert_eq!(
            (s.base_domain.as_str(), s.output.as_path()),
            ("a.example", Path::new("/x"))
        );
    }

    #[test]
    fn bad_settings_are_one_clear_line() {
        let d = tempfile::tempdir().unwrap();
        let none = d.path().join("absent");
        let err = |a: &[&str]| resolve(&args(a), &none).unwrap_err().to_string();
        assert_eq!(
            err(&[]),
            format!(
                "no base domain: set --base-domain or base-domain in {}",
                none.display()
            )
        );
        assert_eq!(
            err(&["--base-domain", "bad domain"]),
            "invalid --base-domain \"bad domain\": only letters, digits, '-', '_' and '.' are allowed"
        );
        let cfg = d.path().join("c.toml");
        std::fs::write(&cfg, "base-domain = \"a.example\"\nouptut = \"/x\"\n").unwrap();
        let e = err(&["--config", cfg.to_str().unwrap()]);
        assert!(
            e.contains("line 2") && e.contains("unknown field `ouptut`"),
            "{e}"
        );
    }
}
