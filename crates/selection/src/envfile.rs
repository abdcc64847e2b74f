//! systemd `EnvironmentFile=` syntax: `/etc/default/nodeip-configuration`, the resolv-prepender
//! dispatcher env file, and the other environment files MCO templates.
//!
//! The files are read by systemd for the units that consume them (kubelet's and upstream's
//! `nodeip-configuration.service` read the hint file through `EnvironmentFile=`), so this parser
//! reads them the way systemd 252 (RHCOS 9's) does: the same assignments, the same values, and
//! the same lines skipped. A line systemd skips is reported in [`EnvFile::skipped`] rather than
//! failing the whole file: failing would stop a boot over a line that changes nothing for
//! systemd's own readers.

/// One `KEY=VALUE` assignment and the line it started on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    pub key: String,
    pub value: String,
    pub line: usize,
}

/// A line systemd ignores, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub line: usize,
    /// The key as systemd read it (whitespace trimmed).
    pub text: String,
    pub reason: &'static str,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {:?}: {}", self.line, self.text, self.reason)
    }
}

/// What systemd makes of a file: the assignments in force (a later assignment of a key replaces
/// an earlier one) and the lines it skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnvFile {
    pub assignments: Vec<Assignment>,
    pub skipped: Vec<Skipped>,
}

impl EnvFile {
    /// The value of `key`, with the line it was assigned on.
    pub fn get(&self, key: &str) -> Option<&Assignment> {
        self.assignments.iter().find(|a| a.key == key)
    }
}

/// Characters a backslash inside double quotes escapes (systemd's `SHELL_NEED_ESCAPE`); before
/// any other character the backslash is kept, as the shell does.
const DOUBLE_QUOTE_ESCAPED: &[char] = &['"', '\\', '`', '$'];

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

fn is_newline(c: char) -> bool {
    matches!(c, '\n' | '\r')
}

/// systemd's `env_name_is_valid`: letters, digits and `_`, not starting with a digit.
fn valid_name(key: &str) -> bool {
    !key.is_empty()
        && !key.starts_with(|c: char| c.is_ascii_digit())
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// systemd's `env_value_is_valid`: no control characters but tab and newline.
fn valid_value(value: &str) -> bool {
    !value
        .chars()
        .any(|c| c.is_control() && c != '\t' && c != '\n')
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    PreKey,
    Key,
    PreValue,
    Value,
    ValueEscape,
    Single,
    Double,
    DoubleEscape,
    Comment,
    CommentEscape,
}

/// The assignment being read.
#[derive(Default)]
struct Pending {
    key: String,
    value: String,
    line: usize,
    /// Where trailing whitespace of the key/value starts (systemd trims it).
    key_space: Option<usize>,
    value_space: Option<usize>,
}

impl Pending {
    fn finish(mut self, trim_value: bool, out: &mut EnvFile) {
        if let Some(at) = self.key_space {
            self.key.truncate(at);
        }
        if trim_value && let Some(at) = self.value_space {
            self.value.truncate(at);
        }
        let reason = if !valid_name(&self.key) {
            "not a valid variable name; systemd ignores this assignment"
        } else if !valid_value(&self.value) {
            "the value holds control characters; systemd ignores this assignment"
        } else {
            out.assignments.retain(|a| a.key != self.key);
            out.assignments.push(Assignment {
                key: self.key,
                value: self.value,
                line: self.line,
            });
            return;
        };
        out.skipped.push(Skipped {
            line: self.line,
            text: self.key,
            reason,
        });
    }
}

/// Parses `text` as systemd 252's `load_env_file` does: `#`/`;` comments (a comment ending in a
/// backslash swallows the next line, as in 252), `KEY=VALUE` with whitespace around key and
/// value trimmed, single quotes (literal), double quotes (backslash escapes only `"\`$` and a
/// newline), unquoted backslash escapes and continuation lines, a quoted value running on to its
/// closing quote (or the end of the file). Lines without `=` and assignments with an invalid name
/// or value are reported in [`EnvFile::skipped`].
pub fn parse(text: &str) -> EnvFile {
    let mut reader = Reader {
        out: EnvFile::default(),
        state: State::PreKey,
        line: 1,
        cur: Pending::default(),
    };
    for c in text.chars() {
        reader.step(c);
    }
    reader.end()
}

/// Appends `c` to `text`, keeping `space` at the start of its trailing whitespace (systemd
/// trims it).
fn push_noting_space(text: &mut String, space: &mut Option<usize>, c: char) {
    if !is_space(c) {
        *space = None;
    } else if space.is_none() {
        *space = Some(text.len());
    }
    text.push(c);
}

/// The parser part-way through a file: its state, the line (counted as systemd reads them; a
/// value's line is where its key started), the assignment being read and what it has made.
struct Reader {
    out: EnvFile,
    state: State,
    line: usize,
    cur: Pending,
}

impl Reader {
    fn step(&mut self, c: char) {
        let newline = is_newline(c);
        self.state = match self.state {
            State::PreKey => self.pre_key(c),
            State::Key => self.key(c, newline),
            State::PreValue => self.pre_value(c, newline),
            State::Value => self.value(c, newline),
            State::ValueEscape => {
                if !newline {
                    self.cur.value.push(c);
                }
                State::Value
            }
            state @ (State::Single | State::Double | State::DoubleEscape) => self.quoted(state, c),
            State::Comment if c == '\\' => State::CommentEscape,
            State::Comment if newline => State::PreKey,
            State::Comment | State::CommentEscape => State::Comment,
        };
        if c == '\n' {
            self.line += 1;
        }
    }

    fn pre_key(&mut self, c: char) -> State {
        if c == '#' || c == ';' {
            return State::Comment;
        }
        if is_space(c) {
            return State::PreKey;
        }
        self.cur = Pending {
            line: self.line,
            ..Pending::default()
        };
        self.cur.key.push(c);
        State::Key
    }

    fn key(&mut self, c: char, newline: bool) -> State {
        if newline {
            self.no_equals();
            return State::PreKey;
        }
        if c == '=' {
            return State::PreValue;
        }
        push_noting_space(&mut self.cur.key, &mut self.cur.key_space, c);
        State::Key
    }

    fn pre_value(&mut self, c: char, newline: bool) -> State {
        match c {
            _ if newline => {
                std::mem::take(&mut self.cur).finish(false, &mut self.out);
                State::PreKey
            }
            '\'' => State::Single,
            '"' => State::Double,
            '\\' => State::ValueEscape,
            _ if is_space(c) => State::PreValue,
            _ => {
                self.cur.value.push(c);
                State::Value
            }
        }
    }

    fn value(&mut self, c: char, newline: bool) -> State {
        if newline {
            std::mem::take(&mut self.cur).finish(true, &mut self.out);
            return State::PreKey;
        }
        if c == '\\' {
            self.cur.value_space = None;
            return State::ValueEscape;
        }
        push_noting_space(&mut self.cur.value, &mut self.cur.value_space, c);
        State::Value
    }

    /// Inside single or double quotes, or after a backslash inside double quotes.
    fn quoted(&mut self, state: State, c: char) -> State {
        let value = &mut self.cur.value;
        match (state, c) {
            (State::Single, '\'') | (State::Double, '"') => State::PreValue,
            (State::Double, '\\') => State::DoubleEscape,
            (State::DoubleEscape, _) => {
                if DOUBLE_QUOTE_ESCAPED.contains(&c) {
                    value.push(c);
                } else if c != '\n' {
                    value.push('\\');
                    value.push(c);
                }
                State::Double
            }
            _ => {
                value.push(c);
                state
            }
        }
    }

    /// A key ended by the end of its line without `=`.
    fn no_equals(&mut self) {
        self.out.skipped.push(Skipped {
            line: self.cur.line,
            text: self.cur.key.trim_end().to_owned(),
            reason: "no '='; systemd ignores this line",
        });
    }

    /// The end of the file ends whatever was being read: an assignment (a quoted or continued
    /// value included) or a key without `=`.
    fn end(mut self) -> EnvFile {
        match self.state {
            State::PreValue
            | State::ValueEscape
            | State::Single
            | State::Double
            | State::DoubleEscape => self.cur.finish(false, &mut self.out),
            State::Value => self.cur.finish(true, &mut self.out),
            State::Key => self.no_equals(),
            State::PreKey | State::Comment | State::CommentEscape => {}
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(f: &EnvFile, k: &str) -> Option<(String, usize)> {
        f.get(k).map(|a| (a.value.clone(), a.line))
    }

    #[test]
    fn parses_comments_quotes_continuations_and_last_assignment_wins() {
        let text = "# hint\n; other\n\n  NODEIP_HINT = \"192.0.2.1\"\nKUBELET_NODEIP_HINT='198.51.100.1'\n\
                    X=a\\\nb\nNODEIP_HINT=203.0.113.1  \n";
        let f = parse(text);
        assert_eq!(value(&f, "NODEIP_HINT"), Some(("203.0.113.1".into(), 8)));
        assert_eq!(
            value(&f, "KUBELET_NODEIP_HINT"),
            Some(("198.51.100.1".into(), 5))
        );
        assert_eq!(value(&f, "X"), Some(("ab".into(), 6)));
        assert!(f.skipped.is_empty(), "{:?}", f.skipped);
    }

    #[test]
    fn quoting_follows_systemd() {
        let f =
            parse("A=\"x\" 'y'\nB=a\"b\"\nC=\"1\\$2\\q\"\nD=\"multi\nline\"\nE=\nF='unterminated");
        assert_eq!(value(&f, "A").unwrap().0, "xy", "quoted pieces join");
        assert_eq!(
            value(&f, "B").unwrap().0,
            "a\"b\"",
            "quotes inside a value are literal"
        );
        assert_eq!(value(&f, "C").unwrap().0, "1$2\\q");
        assert_eq!(value(&f, "D"), Some(("multi\nline".into(), 4)));
        assert_eq!(value(&f, "E").unwrap().0, "");
        assert_eq!(value(&f, "F").unwrap().0, "unterminated");
    }

    #[test]
    fn lines_systemd_skips_are_reported_not_fatal() {
        let f = parse(
            "NODEIP_HINT=192.0.2.1\n192.0.2.1\nexport X=1\n1KEY=x\nBAD-NAME=y\nCC=a\u{1}b\nLAST=ok",
        );
        assert_eq!(value(&f, "NODEIP_HINT").unwrap().0, "192.0.2.1");
        assert_eq!(value(&f, "LAST").unwrap().0, "ok");
        let lines: Vec<(usize, &str)> = f
            .skipped
            .iter()
            .map(|s| (s.line, s.text.as_str()))
            .collect();
        assert_eq!(
            lines,
            [
                (2, "192.0.2.1"),
                (3, "export X"),
                (4, "1KEY"),
                (5, "BAD-NAME"),
                (6, "CC")
            ]
        );
        assert!(f.skipped[0].to_string().contains("no '='"));
    }

    #[test]
    fn a_comment_ending_in_a_backslash_swallows_the_next_line_as_in_systemd_252() {
        let f = parse("# note \\\nHIDDEN=1\nSHOWN=2\n");
        assert!(f.get("HIDDEN").is_none());
        assert_eq!(value(&f, "SHOWN"), Some(("2".into(), 3)));
    }
}
