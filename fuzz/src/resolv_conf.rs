//! NetworkManager's resolv.conf through the prepender's transform and the DNS probe's reading
//! (`selection::resolv_conf`, one parser for both). Properties: never panics;
//! idempotent; the node IP is the first nameserver; at most three active nameservers; the cluster
//! domains lead the effective search list; every other line is kept, in order.
//!
//! Input: byte 0 picks the node IP, byte 1 the domains, the rest is the file.

use std::net::IpAddr;

use resolv_prepender::resolvconf::{MAX_NAMESERVERS, is_header, transform, validate};
use selection::net::go_text;

/// Node IPs a node can have; the IPv4-mapped one prints as IPv4 text.
const NODE_IPS: [&str; 4] = [
    "192.0.2.10",
    "2001:db8::10",
    "127.0.0.53",
    "::ffff:192.0.2.10",
];
/// Search-list settings the daemon accepts (`validate_domain` passes each).
const DOMAINS: [&[&str]; 4] = [
    &[],
    &["ostest.test.metalkube.org"],
    &["a.example", "b", "a.example"],
    &["example.com.", "example.com"],
];

pub fn check(data: &[u8]) {
    let [ip, dom, rest @ ..] = data else { return };
    let Some(upstream) = crate::text(rest) else {
        return;
    };
    let ip: IpAddr = NODE_IPS[usize::from(*ip) % NODE_IPS.len()].parse().unwrap();
    let domains: Vec<String> = DOMAINS[usize::from(*dom) % DOMAINS.len()]
        .iter()
        .map(|d| d.to_string())
        .collect();
    // The DNS probe reads the same file through the same parser: glibc's first three.
    match selection::resolv_conf::nameservers(upstream) {
        Ok(servers) => assert!(servers.len() <= MAX_NAMESERVERS),
        Err(_) => assert!(
            validate(upstream).is_err(),
            "nameservers refused a valid file"
        ),
    }
    let Ok(out) = transform(upstream, ip, &domains) else {
        // Rejected input: the daemon leaves /etc/resolv.conf as it is.
        return;
    };
    // The node's file as the probe reads it: the node IP is the first nameserver it asks.
    let asked = selection::resolv_conf::nameservers(&out).expect("the output parses");
    assert_eq!(go_text(asked[0].ip), go_text(ip), "{out}");
    validate(&out).unwrap_or_else(|e| panic!("the output is not a resolv.conf: {e}\n{out}"));
    assert_eq!(
        transform(&out, ip, &domains).as_deref(),
        Ok(out.as_str()),
        "not idempotent"
    );

    let node = go_text(ip);
    let input = lines(upstream);
    let output = lines(&out);
    let first = output.iter().find(|l| keyword(l) == Some("nameserver"));
    assert_eq!(
        first.and_then(|l| l.split([' ', '\t']).nth(1)),
        Some(node.as_str()),
        "the node IP is not the first nameserver\n{out}"
    );
    let active = output
        .iter()
        .filter(|l| keyword(l) == Some("nameserver"))
        .count();
    assert!(
        active <= MAX_NAMESERVERS,
        "{active} active nameservers\n{out}"
    );

    if !domains.is_empty() {
        let list = output
            .iter()
            .rev()
            .find(|l| matches!(keyword(l), Some("search" | "domain")))
            .expect("no search list");
        let tokens: Vec<&str> = list.split([' ', '\t']).filter(|t| !t.is_empty()).collect();
        let mut want: Vec<&str> = vec!["search"];
        for d in &domains {
            if !want.contains(&d.as_str()) {
                want.push(d);
            }
        }
        assert!(
            tokens.starts_with(&want),
            "the effective search list {list:?} does not start with {want:?}"
        );
    }

    // Every other nameserver is still there, active or commented out.
    for l in input.iter().filter(|l| keyword(l) == Some("nameserver")) {
        // Arguments as the transform reads them: CRs separate too.
        let addr = l
            .split_once([' ', '\t'])
            .and_then(|(_, args)| args.split([' ', '\t', '\r']).find(|t| !t.is_empty()));
        let is_node = addr
            .and_then(|a| a.split('%').next()?.parse::<IpAddr>().ok())
            .is_some_and(|a| go_text(a) == node);
        let commented = format!("# {l}");
        assert!(
            is_node || output.iter().any(|o| o == l || *o == commented),
            "nameserver line {l:?} was lost\n{out}"
        );
    }

    // Every other line is kept, in order; the only new ones are commented-out nameservers.
    let others = |ls: &[String]| -> Vec<String> {
        ls.iter()
            .filter(|l| !matches!(keyword(l), Some("nameserver" | "search" | "domain")))
            .filter(|l| !is_header(l))
            .cloned()
            .collect()
    };
    let (want, got) = (others(&input), others(&output));
    let mut next = want.iter().peekable();
    for l in &got {
        if next.peek() == Some(&l) {
            next.next();
        } else {
            assert!(
                l.strip_prefix("# ")
                    .is_some_and(|ns| input.iter().any(|i| i == ns)),
                "line {l:?} was added\n{out}"
            );
        }
    }
    assert!(
        next.peek().is_none(),
        "line {:?} was lost\n{out}",
        next.peek()
    );
}

/// Lines as the transform reads them: split on LF, CRs before it dropped, no final empty piece.
fn lines(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text
        .split('\n')
        .map(|l| l.trim_end_matches('\r').to_owned())
        .collect();
    if text.ends_with('\n') || text.is_empty() {
        v.pop();
    }
    v
}

/// The keyword in column 1, as glibc reads it.
fn keyword(line: &str) -> Option<&str> {
    line.split([' ', '\t']).next().filter(|k| !k.is_empty())
}
