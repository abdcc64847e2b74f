//! `show`'s YAML parsed a piece at a time: each top-level key on its own, and the interfaces
//! one by one. serde_yaml loads all of a document's events before it builds anything, several
//! times the memory of the tree it builds, while a piece's events are a few KiB. The pieces
//! are found on the lines at column 0, which in the block style serde_yaml writes are a
//! top-level key or an item of a top-level sequence (a nested value, a block scalar's text and
//! a wrapped quoted string are all indented); text of any other shape is parsed whole, as is
//! text whose pieces do not parse.

use serde_json::{Map, Value};

/// `yaml` as JSON.
pub fn state(yaml: &str) -> Result<Value, serde_yaml::Error> {
    by_pieces(yaml)
        .or_else(|| serde_yaml::from_str(yaml).ok())
        .map_or_else(
            // The whole text's own error, the one worth reporting.
            || serde_yaml::from_str(yaml),
            Ok,
        )
}

/// The top-level mapping built a key at a time; none when `yaml` is not a block mapping whose
/// pieces parse.
fn by_pieces(yaml: &str) -> Option<Value> {
    let mut top = Map::new();
    for piece in pieces(yaml, |l| !l.starts_with("- "))? {
        let value = match sequence_items(piece) {
            Some((key, items)) => {
                let list = items
                    .map(|item| {
                        let mut one: Vec<Value> = serde_yaml::from_str(item).ok()?;
                        (one.len() == 1).then(|| one.remove(0))
                    })
                    .collect::<Option<Vec<Value>>>()?;
                Map::from_iter([(key.to_owned(), Value::Array(list))])
            }
            None => serde_yaml::from_str(piece).ok()?,
        };
        for (k, v) in value {
            if top.insert(k, v).is_some() {
                return None;
            }
        }
    }
    Some(Value::Object(top))
}

/// `text` cut before every line at column 0 that `starts` a piece; none when the first line
/// with text does not start one, or is not a plain `key:` line.
fn pieces(text: &str, starts: impl Fn(&str) -> bool) -> Option<Vec<&str>> {
    let mut cuts = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let content = !line.trim().is_empty() && !line.starts_with(' ');
        if content && starts(line) {
            cuts.push(at);
        } else if content && cuts.is_empty() {
            return None;
        }
        at += line.len();
    }
    let first = text[*cuts.first()?..].lines().next()?;
    if first.starts_with(['-', '{', '[', '"', '\'', '?', '!', '&', '*', '%', '#']) {
        return None;
    }
    cuts.push(text.len());
    Some(cuts.windows(2).map(|w| &text[w[0]..w[1]]).collect())
}

/// A piece that is `key:` and a sequence written at column 0: the key and each item's text
/// (cut before every `- ` line at column 0).
fn sequence_items(piece: &str) -> Option<(&str, impl Iterator<Item = &str>)> {
    let (first, rest) = piece.split_once('\n')?;
    let key = first.strip_suffix(':')?;
    if key.is_empty() || key.contains([':', ' ', '"', '\'']) || !rest.starts_with("- ") {
        return None;
    }
    let mut cuts = Vec::new();
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if line.starts_with("- ") {
            cuts.push(at);
        }
        at += line.len();
    }
    cuts.push(rest.len());
    let items = (0..cuts.len() - 1).map(move |i| &rest[cuts[i]..cuts[i + 1]]);
    Some((key, items))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(yaml: &str) -> Value {
        serde_yaml::from_str(yaml).unwrap()
    }

    const STATE: &str = "hostname:\n  running: node1\n  config: node1\n\
        dns-resolver:\n  config: {}\n  running:\n    server:\n    - 192.0.2.53\n\
        route-rules:\n  config: []\n\
        routes:\n  running:\n  - destination: 0.0.0.0/0\n    next-hop-interface: ens3\n\
        \x20 config: []\n\
        interfaces:\n- name: ens3\n  type: ethernet\n  state: up\n  description: |-\n\
        \x20   first\n    - not an item\n  ipv4:\n    address:\n    - ip: 192.0.2.10\n\
        \x20     prefix-length: 24\n\
        - name: 'eth: 1'\n  type: ethernet\n  note: \"a long quoted string that a writer may\n    \
        wrap\"\n- name: lo\n  type: loopback\n  mtu: 65536\n\
        ovs-db:\n  external_ids: {}\n";

    #[test]
    fn pieces_give_the_tree_the_whole_text_gives() {
        assert_eq!(by_pieces(STATE), Some(whole(STATE)));
        assert_eq!(state(STATE).unwrap(), whole(STATE));
        let v = by_pieces(STATE).unwrap();
        assert_eq!(v["interfaces"].as_array().unwrap().len(), 3);
    }

    #[test]
    fn the_state_show_prints_on_a_node_with_many_interfaces_is_the_same_tree() {
        let mut y = String::from("interfaces:\n");
        for i in 0..300 {
            y.push_str(&format!(
                "- name: veth{i}\n  type: veth\n  state: up\n  veth:\n    peer: p{i}\n  \
                 ethtool:\n    feature:\n      rx-gro: false\n"
            ));
        }
        y.push_str("routes:\n  config: []\n  running: []\n");
        assert_eq!(by_pieces(&y), Some(whole(&y)));
    }

    #[test]
    fn text_of_another_shape_is_parsed_whole() {
        for yaml in [
            "{}\n",
            "- a\n- b\n",
            "---\ninterfaces: []\n",
            "interfaces: []\n",
            "",
        ] {
            assert_eq!(
                state(yaml).ok(),
                serde_yaml::from_str::<Value>(yaml).ok(),
                "{yaml:?}"
            );
        }
        assert!(by_pieces("- a\n").is_none());
        assert!(state("interfaces:\n- name: [eth1\n").is_err());
    }
}
