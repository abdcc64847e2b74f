//! The name the DNS probe looks up, validated when the settings load.

/// Upstream's probe name, looked up as NS.
pub const ROOT_SERVERS: &str = "root-servers.net";

/// A name's length in text, without the root's dot (its wire form is at most 255 bytes).
const MAX_NAME: usize = 253;
const MAX_LABEL: usize = 63;

/// A name the DNS probe looks up (the `dns-probe-name` setting), checked when the settings load
/// as Go's resolver checks it (kubernetes-nmstate's probe): labels of 1 to 63 letters, digits,
/// `-` (not at either end) or `_`, at most 253 characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeName(String);

/// Why a name cannot be looked up.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadProbeName {
    #[error("{0:?} is longer than {MAX_NAME} characters")]
    TooLong(String),
    #[error("{0:?} has an empty label")]
    EmptyLabel(String),
    #[error("{name:?}: the label {label:?} is longer than {MAX_LABEL} bytes")]
    LabelTooLong { name: String, label: String },
    #[error("{name:?}: {c:?} is not a letter, digit, '-' or '_'")]
    Character { name: String, c: char },
    #[error("{name:?}: the label {label:?} begins or ends with '-'")]
    Hyphen { name: String, label: String },
}

impl ProbeName {
    pub fn new(name: &str) -> Result<ProbeName, BadProbeName> {
        let bare = name.strip_suffix('.').unwrap_or(name);
        if bare.len() > MAX_NAME {
            return Err(BadProbeName::TooLong(name.to_owned()));
        }
        for label in bare.split('.') {
            let err = |f: fn(String, String) -> BadProbeName| f(name.to_owned(), label.to_owned());
            if label.is_empty() {
                return Err(BadProbeName::EmptyLabel(name.to_owned()));
            }
            if label.len() > MAX_LABEL {
                return Err(err(|name, label| BadProbeName::LabelTooLong {
                    name,
                    label,
                }));
            }
            if let Some(c) = label
                .chars()
                .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
            {
                return Err(BadProbeName::Character {
                    name: name.to_owned(),
                    c,
                });
            }
            if label.starts_with('-') || label.ends_with('-') {
                return Err(err(|name, label| BadProbeName::Hyphen { name, label }));
            }
        }
        Ok(ProbeName(bare.to_owned()))
    }

    /// The name as looked up, without the root's dot.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for ProbeName {
    fn default() -> ProbeName {
        ProbeName(ROOT_SERVERS.to_owned())
    }
}

impl std::fmt::Display for ProbeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
