//! What every daemon binary shares: the usage error (exit code 2), the optional TOML config
//! file, verbosity flags and the mapping of results to exit codes.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{ArgAction, Args};
use serde::de::DeserializeOwned;

/// Bad input or settings: reported as one line, exit code 2, nothing written.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// `-v`/`-q` counts, global to every subcommand.
#[derive(Debug, Args)]
pub struct Verbosity {
    /// More logging (-v debug, -vv trace); `RUST_LOG` also works.
    #[arg(short, long, action = ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Less logging (-q warnings only, -qq errors only).
    #[arg(short, long, action = ArgAction::Count, global = true, conflicts_with = "verbose")]
    pub quiet: u8,
}

/// Reads the config file: `explicit` (which must exist) or else `default` when it exists.
/// Unknown keys and bad values are errors naming the file, the line and the key. Returns the
/// settings (defaults when there is no file) and the path read.
pub fn load_config<T: DeserializeOwned + Default>(
    explicit: Option<&Path>,
    default: &Path,
) -> Result<(T, Option<PathBuf>), UsageError> {
    let path = match explicit {
        Some(p) => p,
        None if default.exists() => default,
        None => return Ok((T::default(), None)),
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("cannot read config {}: {e}", path.display())))?;
    let cfg = toml::from_str(&text).map_err(|e| {
        let line = e
            .span()
            .map_or(1, |s| text[..s.start].matches('\n').count() + 1);
        UsageError(format!(
            "invalid config {} (line {line}): {}",
            path.display(),
            e.message()
        ))
    })?;
    Ok((cfg, Some(path.to_owned())))
}

/// The process exit code for a command's result: [`UsageError`] is 2 with its one line, any
/// other error 1 with its chain.
pub fn exit(name: &str, result: anyhow::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(e) if e.is::<UsageError>() => {
            eprintln!("{name}: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("{name}: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line, each said once: most of the project's errors carry
/// their cause in their own message, so a cause whose text is already there is not repeated.
fn one_line(e: &anyhow::Error) -> String {
    let mut line = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !line.contains(&cause) {
            line.push_str(": ");
            line.push_str(&cause);
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, serde::Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "kebab-case")]
    struct Cfg {
        base_domain: Option<String>,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("cannot read {path}: {source}")]
    struct Unreadable {
        path: &'static str,
        source: std::io::Error,
    }

    #[test]
    fn each_cause_is_said_once() {
        let io = std::io::Error::other("permission denied");
        let e = anyhow::Error::new(Unreadable {
            path: "/etc/x",
            source: io,
        })
        .context("loading");
        assert_eq!(
            one_line(&e),
            "loading: cannot read /etc/x: permission denied"
        );
        let e = anyhow::anyhow!("inner").context("outer");
        assert_eq!(one_line(&e), "outer: inner");
    }

    #[test]
    fn config_errors_name_file_line_and_key() {
        let d = tempfile::tempdir().unwrap();
        let absent = d.path().join("absent");
        let (cfg, path) = load_config::<Cfg>(None, &absent).unwrap();
        assert!(cfg.base_domain.is_none() && path.is_none());
        let p = d.path().join("c.toml");
        std::fs::write(&p, "base-domain = \"a\"\nbase-domian = \"b\"\n").unwrap();
        let e = load_config::<Cfg>(Some(&p), &absent)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!(
                "invalid config {} (line 2): unknown field `base-domian`",
                p.display()
            )),
            "{e}"
        );
        let e = load_config::<Cfg>(Some(&absent), &absent)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("cannot read config"), "{e}");
    }
}
