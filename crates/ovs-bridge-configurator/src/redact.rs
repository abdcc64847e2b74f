//! What a support bundle never contains: a value that authenticates. The rule is
//! NetworkManager's own list of secret properties (libnm-core's `NM_SETTING_PARAM_SECRET`
//! flag), plus every key of a VPN profile's secrets and a WireGuard peer's pre-shared key,
//! and nmstate's own list for NMState files. A word list ("password", "psk") misses what
//! NetworkManager names otherwise (`mka-cak`, WireGuard's `private-key`, a VPN plugin's keys).

use std::collections::HashMap;

use zbus::zvariant::{OwnedValue, Value};

use crate::nm::profile::{Section, Settings, val};

/// What stands where a secret was.
pub const REDACTED: &str = "<redacted>";

/// NetworkManager 1.52's secret properties, by setting (the properties its libnm-core flags
/// `NM_SETTING_PARAM_SECRET`, `src/libnm-core-impl/nm-setting-*.c`). Checked against NetworkManager itself:
/// the harness test asks it (`GetSecrets`) for every setting of a profile of each kind and
/// requires each property it returns to be here.
const SECRET_PROPERTIES: &[(&str, &[&str])] = &[
    (
        "802-1x",
        &[
            "ca-cert-password",
            "client-cert-password",
            "password",
            "password-raw",
            "phase2-ca-cert-password",
            "phase2-client-cert-password",
            "phase2-private-key-password",
            "pin",
            "private-key-password",
        ],
    ),
    ("adsl", &["password"]),
    ("cdma", &["password"]),
    ("gsm", &["initial-eps-bearer-password", "password", "pin"]),
    ("macsec", &["mka-cak"]),
    ("pppoe", &["password"]),
    (
        "802-11-wireless-security",
        &[
            "leap-password",
            "psk",
            "wep-key0",
            "wep-key1",
            "wep-key2",
            "wep-key3",
        ],
    ),
    ("wireguard", &["private-key"]),
];

/// Private keys that NetworkManager does not flag as secrets because they are usually a path;
/// stored inline (a `data:` blob, a byte list, a PKCS#11 URI that may carry a PIN), the key
/// itself would be in the bundle.
const PRIVATE_KEY_BLOBS: &[(&str, &[&str])] = &[("802-1x", &["private-key", "phase2-private-key"])];

/// Setting names as NetworkManager's keyfiles spell them, where they differ from D-Bus's.
const KEYFILE_ALIASES: &[(&str, &str)] = &[
    ("ethernet", "802-3-ethernet"),
    ("wifi", "802-11-wireless"),
    ("wifi-security", "802-11-wireless-security"),
];

/// A keyfile's VPN secrets (the D-Bus `vpn.secrets` dictionary): every key is one.
const VPN_SECRETS_SECTION: &str = "vpn-secrets";
/// A keyfile's WireGuard peer sections, `[wireguard-peer.<public key>]`, and the peer's secret.
const WIREGUARD_PEER_SECTION: &str = "wireguard-peer.";
const WIREGUARD_PEER_SECRET: &str = "preshared-key";

/// nmstate's secrets in an NMState file (those its `hide_secrets` hides): 802.1X's
/// `password` and `private-key-password`, libreswan's `psk`, MACsec's `mka-cak`.
const NMSTATE_SECRETS: &[&str] = &["password", "private-key-password", "psk", "mka-cak"];

fn setting_name(section: &str) -> &str {
    KEYFILE_ALIASES
        .iter()
        .find(|(alias, _)| *alias == section)
        .map_or(section, |(_, name)| name)
}

fn listed(table: &[(&str, &[&str])], setting: &str, key: &str) -> bool {
    table
        .iter()
        .any(|(s, keys)| *s == setting && keys.contains(&key))
}

/// Whether `key` of the setting (or keyfile section) `section` holds a secret, given its value.
fn is_secret(section: &str, key: &str, value: &str) -> bool {
    if section == VPN_SECRETS_SECTION {
        return true;
    }
    if section.starts_with(WIREGUARD_PEER_SECTION) {
        return key == WIREGUARD_PEER_SECRET;
    }
    let setting = setting_name(section);
    listed(SECRET_PROPERTIES, setting, key)
        || listed(PRIVATE_KEY_BLOBS, setting, key)
            && !(value.starts_with('/') || value.starts_with("file://"))
}

/// A NetworkManager keyfile (or keyfile-style text) with every secret value replaced by
/// [`REDACTED`]; everything else, comments and empty values included, as it was.
pub fn keyfile(text: &str) -> String {
    let mut section = "";
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            section = name;
        } else if !t.starts_with('#')
            && let Some((key, value)) = line.split_once('=')
            && !value.trim().is_empty()
            && is_secret(section, key.trim(), value.trim())
        {
            out.push_str(key);
            out.push('=');
            out.push_str(REDACTED);
            out.push('\n');
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A profile's D-Bus settings with every secret replaced by [`REDACTED`]. NetworkManager's
/// `GetSettings` leaves secrets out, so this is the second lock on the door: a profile read
/// another way, or a NetworkManager that sends one, still leaks nothing.
pub fn settings(s: &Settings) -> Settings {
    s.iter()
        .map(|(name, section)| (name.clone(), redact_section(name, section)))
        .collect()
}

fn redact_section(name: &str, section: &Section) -> Section {
    section
        .iter()
        .map(|(key, v)| {
            let redacted = match (name, key.as_str()) {
                ("vpn", "secrets") => Some(val(REDACTED)),
                ("wireguard", "peers") => peers_without_secrets(v),
                _ => {
                    let text = match &**v {
                        Value::Str(s) => s.as_str(),
                        _ => "",
                    };
                    is_secret(name, key, text).then(|| val(REDACTED))
                }
            };
            let v = redacted.unwrap_or_else(|| v.try_clone().expect("settings carry no fds"));
            (key.clone(), v)
        })
        .collect()
}

/// `wireguard.peers` (`aa{sv}`) with each peer's pre-shared key replaced; `None` when no peer
/// carries one.
fn peers_without_secrets(v: &OwnedValue) -> Option<OwnedValue> {
    let peers = <Vec<HashMap<String, OwnedValue>>>::try_from(v.try_clone().ok()?).ok()?;
    if !peers.iter().any(|p| p.contains_key(WIREGUARD_PEER_SECRET)) {
        return None;
    }
    let peers: Vec<HashMap<String, OwnedValue>> = peers
        .into_iter()
        .map(|mut p| {
            if p.contains_key(WIREGUARD_PEER_SECRET) {
                p.insert(WIREGUARD_PEER_SECRET.to_owned(), val(REDACTED));
            }
            p
        })
        .collect();
    Some(val(peers))
}

/// An NMState file with the values of nmstate's secret keys replaced by [`REDACTED`], the rest
/// (comments, layout, a line that does not parse) as the user wrote it: `key: value` in block
/// or flow style, and the indented lines of a block scalar after such a key. Should the
/// redacted text still hold a secret under a form these lines miss (a flow mapping over several
/// lines, say), the file is given as its parsed tree with the secrets replaced instead.
pub fn nmstate(text: &str) -> String {
    let lines = nmstate_lines(text);
    match serde_yaml::from_str::<serde_yaml::Value>(&lines) {
        Ok(tree) if holds_secret(&tree) => {
            let mut tree = tree;
            hide_in_tree(&mut tree);
            serde_yaml::to_string(&tree).unwrap_or_else(|_| REDACTED.to_owned())
        }
        _ => lines,
    }
}

/// nmstate's own output on its way to being parsed: [`nmstate`]'s line pass alone, the parsed
/// tree then going through [`hide_nmstate_secrets`] — the same tree as parsing [`nmstate`]'s
/// text, with one parse instead of two (a node's state is large).
pub fn nmstate_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // The indentation of a secret key whose block scalar is being skipped.
    let mut skipping: Option<usize> = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        if let Some(key_indent) = skipping {
            if line.trim().is_empty() || indent > key_indent {
                continue;
            }
            skipping = None;
        }
        let (redacted, block) = redact_yaml_line(line);
        if block {
            skipping = Some(indent);
        }
        out.push_str(&redacted);
        out.push('\n');
    }
    out
}

/// One line with the value of every secret `key:` on it replaced; and whether one of them
/// leaves its value to the more-indented lines below (a block scalar, a plain multi-line value).
fn redact_yaml_line(line: &str) -> (String, bool) {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    let mut block = false;
    while let Some((start, key)) = next_secret_key(rest) {
        let value_at = start + key.len() + 1;
        out.push_str(&rest[..value_at]);
        let value = &rest[value_at..];
        let end = value_end(value);
        let v = value[..end].trim();
        // No value on the line (`|`, `>`, nothing or a comment): it is on the lines below.
        block |= v.is_empty() || v.starts_with(['|', '>', '#']);
        out.push(' ');
        out.push_str(REDACTED);
        rest = &value[end..];
    }
    out.push_str(rest);
    (out, block)
}

/// The first secret key of `s` written as a mapping key (`key:` at the start of the line, after
/// `- `, `{` or `,`): where it starts, and the key.
fn next_secret_key(s: &str) -> Option<(usize, &'static str)> {
    let mut first: Option<(usize, &'static str)> = None;
    for key in NMSTATE_SECRETS {
        let written_as_key = s.match_indices(key).map(|(i, _)| i).find(|&i| {
            let before = s[..i].trim_end();
            s[i + key.len()..].starts_with(':')
                && (before.is_empty()
                    || before.ends_with('-')
                    || before.ends_with('{')
                    || before.ends_with(','))
        });
        if let Some(i) = written_as_key
            && first.is_none_or(|(f, _)| i < f)
        {
            first = Some((i, key));
        }
    }
    first
}

/// Where a value that starts `s` ends: at a `,` or `}` outside quotes (flow style), else at the
/// end of the line.
fn value_end(s: &str) -> usize {
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, ',' | '}') => return i,
            _ => {}
        }
    }
    s.len()
}

/// Every non-null value of an nmstate secret key in a parsed state replaced by [`REDACTED`].
pub fn hide_nmstate_secrets(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m.iter_mut() {
                if NMSTATE_SECRETS.contains(&k.as_str()) && !v.is_null() {
                    *v = serde_json::Value::String(REDACTED.to_owned());
                } else {
                    hide_nmstate_secrets(v);
                }
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(hide_nmstate_secrets),
        _ => {}
    }
}

fn is_nmstate_secret(key: &serde_yaml::Value) -> bool {
    key.as_str().is_some_and(|k| NMSTATE_SECRETS.contains(&k))
}

/// Whether a secret key of `v` still has a value other than [`REDACTED`].
fn holds_secret(v: &serde_yaml::Value) -> bool {
    match v {
        serde_yaml::Value::Mapping(m) => m.iter().any(|(k, v)| {
            is_nmstate_secret(k) && !v.is_null() && v.as_str() != Some(REDACTED) || holds_secret(v)
        }),
        serde_yaml::Value::Sequence(s) => s.iter().any(holds_secret),
        serde_yaml::Value::Tagged(t) => holds_secret(&t.value),
        _ => false,
    }
}

fn hide_in_tree(v: &mut serde_yaml::Value) {
    match v {
        serde_yaml::Value::Mapping(m) => {
            for (k, v) in m.iter_mut() {
                if is_nmstate_secret(k) && !v.is_null() {
                    *v = serde_yaml::Value::String(REDACTED.to_owned());
                } else {
                    hide_in_tree(v);
                }
            }
        }
        serde_yaml::Value::Sequence(s) => s.iter_mut().for_each(hide_in_tree),
        serde_yaml::Value::Tagged(t) => hide_in_tree(&mut t.value),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_hidden(out: &str, secrets: &[&str], kept: &[&str]) {
        for s in secrets {
            assert!(!out.contains(s), "{s} leaked:\n{out}");
        }
        for k in kept {
            assert!(out.contains(k), "{k} lost:\n{out}");
        }
    }

    #[test]
    fn a_keyfile_loses_what_network_manager_calls_secret_and_nothing_else() {
        let text = "[connection]\nid=wg0\ntype=wireguard\n\n\
                    [wireguard]\nprivate-key=WGPRIVATE\nprivate-key-flags=0\nlisten-port=51820\n\n\
                    [wireguard-peer.PEERPUBLIC=]\nendpoint=192.0.2.9:51820\n\
                    preshared-key=WGPSK\npreshared-key-flags=0\nallowed-ips=0.0.0.0/0;\n\n\
                    [macsec]\nmka-cak=MACSECCAK\nmka-ckn=0123abcd\n\n\
                    [vpn]\nservice-type=org.freedesktop.NetworkManager.openvpn\nremote=vpn.example\n\n\
                    [vpn-secrets]\ncert-pass=VPNCERT\ntoken=VPNTOKEN\n\n\
                    [wifi-security]\nkey-mgmt=wpa-psk\npsk=WIFIPSK\nwep-key1=WEPKEY\n\n\
                    [802-1x]\neap=tls;\nidentity=user\nprivate-key=data:;base64,KEYBLOB\n\
                    private-key-password=KEYPASS\nca-cert=/etc/pki/ca.pem\n\
                    client-cert=/etc/pki/client.pem\nphase2-private-key=/etc/pki/p2.key\n\n\
                    [gsm]\napn=internet\npin=GSMPIN\npassword=GSMPASS\n\n\
                    [pppoe]\nusername=u\npassword=PPPOEPASS\n\n\
                    [ipv4]\naddress1=198.51.100.11/24\n# password=commented\n";
        let out = keyfile(text);
        assert_hidden(
            &out,
            &[
                "WGPRIVATE",
                "WGPSK",
                "MACSECCAK",
                "VPNCERT",
                "VPNTOKEN",
                "WIFIPSK",
                "WEPKEY",
                "KEYBLOB",
                "KEYPASS",
                "GSMPIN",
                "GSMPASS",
                "PPPOEPASS",
            ],
            &[
                "private-key-flags=0",
                "listen-port=51820",
                "endpoint=192.0.2.9:51820",
                "mka-ckn=0123abcd",
                "remote=vpn.example",
                "key-mgmt=wpa-psk",
                "identity=user",
                "ca-cert=/etc/pki/ca.pem",
                "phase2-private-key=/etc/pki/p2.key",
                "apn=internet",
                "username=u",
                "address1=198.51.100.11/24",
                "# password=commented",
                "[wireguard-peer.PEERPUBLIC=]",
                "cert-pass=<redacted>",
            ],
        );
    }

    #[test]
    fn a_private_key_given_as_a_path_is_kept_and_one_given_inline_is_not() {
        let out = keyfile("[802-1x]\nprivate-key=file:///k.pem\nphase2-private-key=48;130;1;\n");
        assert_hidden(&out, &["48;130"], &["private-key=file:///k.pem"]);
    }

    #[test]
    fn dbus_settings_lose_secrets_and_peer_keys() {
        let mut s = Settings::new();
        crate::nm::profile::set(&mut s, "802-11-wireless-security", "psk", "WIFIPSK");
        crate::nm::profile::set(&mut s, "802-11-wireless-security", "key-mgmt", "wpa-psk");
        let secrets: HashMap<String, String> = [("token".to_owned(), "VPNTOKEN".to_owned())].into();
        crate::nm::profile::set(&mut s, "vpn", "secrets", secrets);
        let peer: HashMap<String, OwnedValue> = [
            ("public-key".to_owned(), val("PEERPUBLIC")),
            ("preshared-key".to_owned(), val("WGPSK")),
        ]
        .into();
        crate::nm::profile::set(&mut s, "wireguard", "peers", vec![peer]);
        let out = crate::nm::profile::render(&settings(&s));
        assert_hidden(
            &out,
            &["WIFIPSK", "VPNTOKEN", "WGPSK"],
            &["key-mgmt=wpa-psk", "PEERPUBLIC", "preshared-key=<redacted>"],
        );
    }

    #[test]
    fn an_nmstate_file_loses_its_secrets_in_any_style() {
        let text = "# keep this comment\ninterfaces:\n- name: eth1\n  type: ethernet\n  \
                    802.1x:\n    identity: user\n    password: EAPPASS\n    \
                    private-key-password: 'KEY PASS'\n    private-key: /etc/pki/key.pem\n\
                    - name: macsec0\n  type: macsec\n  macsec: {encrypt: true, mka-cak: \"CAK,1\", mka-ckn: abc}\n\
                    - name: hosta_conn\n  type: ipsec\n  libreswan:\n    psk: |\n      BLOCKPSK\n      MORE\n    right: 192.0.2.1\n";
        let out = nmstate(text);
        assert_hidden(
            &out,
            &["EAPPASS", "KEY PASS", "CAK,1", "BLOCKPSK", "MORE"],
            &[
                "# keep this comment",
                "identity: user",
                "private-key: /etc/pki/key.pem",
                "mka-ckn: abc",
                "right: 192.0.2.1",
            ],
        );
        let tree: serde_yaml::Value = serde_yaml::from_str(&out).unwrap();
        assert!(!holds_secret(&tree), "{out}");
    }

    #[test]
    fn a_secret_the_lines_miss_is_caught_by_the_parsed_tree() {
        let text = "interfaces:\n- name: m\n  macsec: {\"mka-cak\": CAK1, mka-ckn: abc}\n";
        let out = nmstate(text);
        assert_hidden(&out, &["CAK1"], &["mka-ckn: abc"]);
    }

    #[test]
    fn the_line_pass_and_the_parsed_tree_give_what_parsing_the_redacted_text_gives() {
        for text in [
            "interfaces:\n- name: m\n  macsec: {\"mka-cak\": CAK1, mka-ckn: abc}\n",
            "interfaces:\n- name: eth1\n  802.1x:\n    password: EAPPASS\n    identity: u\n\
             - name: ipsec\n  libreswan:\n    psk: |\n      BLOCK\n    right: 192.0.2.1\n",
            "interfaces:\n- name: eth0\n  802.1x:\n    password: null\n",
        ] {
            let want: serde_json::Value = serde_yaml::from_str(&nmstate(text)).unwrap();
            let mut got: serde_json::Value = serde_yaml::from_str(&nmstate_lines(text)).unwrap();
            hide_nmstate_secrets(&mut got);
            assert_eq!(got, want, "{text}");
        }
    }

    #[test]
    fn a_malformed_nmstate_file_still_loses_its_secret_lines() {
        let out = nmstate("interfaces:\n  - name: [eth1\n    password: BROKEN\n");
        assert_hidden(&out, &["BROKEN"], &["name: [eth1"]);
    }
}
