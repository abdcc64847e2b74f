//! systemd `EnvironmentFile=` syntax: `/etc/default/nodeip-configuration`, the resolv-prepender
//! dispatcher env file, and the other environment files MCO templates.

/// One `KEY=VALUE` assignment and the line it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    pub key: String,
    pub value: String,
    pub line: usize,
}

/// A line that is neither blank, a comment nor an assignment.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {text:?} is not KEY=VALUE")]
pub struct SyntaxError {
    pub line: usize,
    pub text: String,
}

/// Parses the subset of systemd's environment-file syntax that admins write: blank lines,
/// `#`/`;` comments, `KEY=VALUE` with optional whitespace around the key, single- or
/// double-quoted values (backslash escapes inside double quotes), and backslash line
/// continuation. Later assignments of a key replace earlier ones, as in systemd.
pub fn parse(text: &str) -> Result<Vec<Assignment>, SyntaxError> {
    let mut out: Vec<Assignment> = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, raw)) = lines.next() {
        let mut logical = raw.to_owned();
        while logical.ends_with('\\') {
            logical.pop();
            match lines.next() {
                Some((_, next)) => logical.push_str(next),
                None => break,
            }
        }
        let trimmed = logical.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let line = i + 1;
        let Some((key, value)) = trimmed.split_once('=') else {
            return Err(SyntaxError {
                line,
                text: raw.to_owned(),
            });
        };
        let key = key.trim_end();
        let valid_key = !key.is_empty()
            && !key.starts_with(|c: char| c.is_ascii_digit())
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid_key {
            return Err(SyntaxError {
                line,
                text: raw.to_owned(),
            });
        }
        let value = unquote(value.trim()).ok_or_else(|| SyntaxError {
            line,
            text: raw.to_owned(),
        })?;
        out.retain(|a| a.key != key);
        out.push(Assignment {
            key: key.to_owned(),
            value,
            line,
        });
    }
    Ok(out)
}

fn unquote(v: &str) -> Option<String> {
    let quote = v.chars().next().filter(|c| *c == '"' || *c == '\'');
    let Some(q) = quote else {
        return Some(v.to_owned());
    };
    let inner = v.strip_prefix(q)?.strip_suffix(q)?;
    if q == '\'' {
        return Some(inner.to_owned());
    }
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        out.push(if c == '\\' { chars.next()? } else { c });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_comments_quotes_continuations_and_last_assignment_wins() {
        let text = "# hint\n; other\n\n  NODEIP_HINT = \"192.0.2.1\"\nKUBELET_NODEIP_HINT='198.51.100.1'\n\
                    X=a\\\nb\nNODEIP_HINT=203.0.113.1\n";
        let a = parse(text).unwrap();
        let get = |k: &str| {
            a.iter()
                .find(|x| x.key == k)
                .map(|x| (x.value.clone(), x.line))
        };
        assert_eq!(get("NODEIP_HINT"), Some(("203.0.113.1".into(), 8)));
        assert_eq!(get("KUBELET_NODEIP_HINT"), Some(("198.51.100.1".into(), 5)));
        assert_eq!(get("X"), Some(("ab".into(), 6)));
    }

    #[test]
    fn rejects_lines_that_are_not_assignments() {
        assert_eq!(
            parse("NODEIP_HINT=192.0.2.1\n192.0.2.1\n"),
            Err(SyntaxError {
                line: 2,
                text: "192.0.2.1".into()
            })
        );
        assert!(parse("1KEY=x").is_err());
        assert!(parse("KEY=\"unterminated").is_err());
        assert!(parse("export NODEIP_HINT=1.2.3.4").is_err());
    }
}
