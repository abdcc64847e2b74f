//! Hint and environment files as systemd's `EnvironmentFile=` reads them. Properties: never
//! panics; every assignment has a valid name; written back with double quotes, the assignments
//! parse to the same keys and values.

use selection::envfile::parse;

pub fn check(data: &[u8]) {
    let Some(text) = crate::text(data) else {
        return;
    };
    let env = parse(text);
    let lines = text.split('\n').count();
    let mut quoted = String::new();
    for a in &env.assignments {
        assert!(
            !a.key.is_empty()
                && !a.key.starts_with(|c: char| c.is_ascii_digit())
                && a.key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "invalid name {:?} accepted",
            a.key
        );
        assert!(a.line >= 1 && a.line <= lines, "line {} of {lines}", a.line);
        quoted.push_str(&a.key);
        quoted.push_str("=\"");
        for c in a.value.chars() {
            if matches!(c, '"' | '\\' | '`' | '$') {
                quoted.push('\\');
            }
            quoted.push(c);
        }
        quoted.push_str("\"\n");
    }
    for s in &env.skipped {
        assert!(s.line >= 1 && s.line <= lines, "line {} of {lines}", s.line);
    }
    let again = parse(&quoted);
    let pairs = |e: &selection::envfile::EnvFile| -> Vec<(String, String)> {
        e.assignments
            .iter()
            .map(|a| (a.key.clone(), a.value.clone()))
            .collect()
    };
    assert!(again.skipped.is_empty(), "{:?}", again.skipped);
    assert_eq!(pairs(&again), pairs(&env), "round trip through {quoted:?}");
}
