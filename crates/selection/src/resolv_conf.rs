//! resolv.conf as glibc reads it: one parser for the daemons that read it (resolv-prepender's
//! transform, ovs-bridge-configurator's DNS probe), strict about what is not a resolv.conf.

use std::net::IpAddr;

/// glibc's `MAXNS`: later nameservers are ignored by the resolver.
pub const MAX_NAMESERVERS: usize = 3;

/// Why a file is not a resolv.conf.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("is not text (NUL bytes or invalid UTF-8)")]
    NotText,
    #[error("line {line}: {text:?}: {reason}")]
    Line {
        line: usize,
        text: String,
        reason: &'static str,
    },
}

/// One line, classified the way glibc's parser does (keyword in column 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// `nameserver <ip>[%scope]`: the line as written, and its address and scope.
    Nameserver {
        ip: IpAddr,
        scope: Option<String>,
        text: String,
    },
    Search(Vec<String>),
    Domain(String),
    /// Comments, blank lines, `options`, `sortlist`: kept as they are.
    Kept(String),
}

/// Keywords glibc and NetworkManager use; anything else in column 1 means the file is not a
/// resolv.conf (a truncated download, an editor backup, binary junk).
const OTHER_KEYWORDS: &[&str] = &["options", "sortlist"];

/// The file's lines, classified; an error says the file is not text or names the first line
/// that is not a resolv.conf's.
pub fn parse(text: &str) -> Result<Vec<Line>, ParseError> {
    if text.contains('\0') {
        return Err(ParseError::NotText);
    }
    let mut lines = text
        .split('\n')
        .enumerate()
        // Every CR before the LF: one left behind would be stripped by the next pass, so the
        // transform would not be idempotent.
        .map(|(i, raw)| parse_line(i + 1, raw.trim_end_matches('\r')))
        .collect::<Result<Vec<_>, _>>()?;
    // `split` yields one empty piece after a final newline.
    if text.ends_with('\n') || text.is_empty() {
        lines.pop();
    }
    Ok(lines)
}

/// Line number `n`, `line`, as glibc classifies it.
fn parse_line(n: usize, line: &str) -> Result<Line, ParseError> {
    let bad = |reason| ParseError::Line {
        line: n,
        text: line.to_owned(),
        reason,
    };
    if line.trim().is_empty() || line.starts_with('#') || line.starts_with(';') {
        return Ok(Line::Kept(line.to_owned()));
    }
    // glibc only reads keywords in column 1.
    if line.starts_with([' ', '\t']) {
        return Err(bad("not a resolv.conf keyword"));
    }
    // The keyword ends at a space or tab, as glibc's `MATCH` reads it (`search\r` is no
    // keyword). In the arguments a stray CR separates too: kept in a token, it would end a
    // written `search` line, and the next pass would strip it (both found by fuzzing).
    let (keyword, args) = line.split_once([' ', '\t']).unwrap_or((line, ""));
    let mut tokens = args.split([' ', '\t', '\r']).filter(|t| !t.is_empty());
    match keyword {
        "nameserver" => {
            let addr = tokens
                .next()
                .ok_or_else(|| bad("nameserver without an address"))?;
            // IPv6 nameservers may carry a %scope (an interface name or index).
            let (addr, scope) = match addr.split_once('%') {
                Some((a, s)) => (a, Some(s)),
                None => (addr, None),
            };
            let ip: IpAddr = addr
                .parse()
                .map_err(|_| bad("nameserver address is not an IP address"))?;
            Ok(Line::Nameserver {
                ip,
                scope: scope.map(str::to_owned),
                text: line.to_owned(),
            })
        }
        "search" => Ok(Line::Search(tokens.map(str::to_owned).collect())),
        "domain" => {
            let d = tokens.next().ok_or_else(|| bad("domain without a name"))?;
            Ok(Line::Domain(d.to_owned()))
        }
        k if OTHER_KEYWORDS.contains(&k) => Ok(Line::Kept(line.to_owned())),
        _ => Err(bad("not a resolv.conf keyword")),
    }
}

/// Validates `text` as a resolv.conf.
pub fn validate(text: &str) -> Result<(), ParseError> {
    parse(text).map(drop)
}

/// A nameserver as glibc's resolver uses it: its address and, for an IPv6 link-local one, the
/// interface written after `%` (a name or an index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nameserver {
    pub ip: IpAddr,
    pub scope: Option<String>,
}

/// The nameservers glibc's resolver asks: the first [`MAX_NAMESERVERS`] `nameserver` lines.
pub fn nameservers(text: &str) -> Result<Vec<Nameserver>, ParseError> {
    Ok(parse(text)?
        .into_iter()
        .filter_map(|l| match l {
            Line::Nameserver { ip, scope, .. } => Some(Nameserver { ip, scope }),
            _ => None,
        })
        .take(MAX_NAMESERVERS)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(ip: &str, scope: Option<&str>) -> Nameserver {
        Nameserver {
            ip: ip.parse().unwrap(),
            scope: scope.map(str::to_owned),
        }
    }

    #[test]
    fn the_first_three_nameservers_with_their_scope_as_glibc_reads_them() {
        let text = "# generated\nsearch example.com\nnameserver 192.0.2.53\n\
                    nameserver fe80::1%br-ex\noptions ndots:2\nnameserver 2001:db8::53 \n\
                    nameserver 192.0.2.54\n";
        assert_eq!(
            nameservers(text).unwrap(),
            vec![
                ns("192.0.2.53", None),
                ns("fe80::1", Some("br-ex")),
                ns("2001:db8::53", None)
            ]
        );
    }

    #[test]
    fn what_is_not_a_resolv_conf_is_named_by_line() {
        for (text, line) in [
            ("nameserver 192.0.2.1\nnameserver bogus\n", 2),
            ("nameserver\n", 1),
            ("<html>\n", 1),
        ] {
            match nameservers(text) {
                Err(ParseError::Line { line: l, .. }) => assert_eq!(l, line, "{text:?}"),
                other => panic!("{text:?}: {other:?}"),
            }
        }
        assert_eq!(nameservers("\0"), Err(ParseError::NotText));
    }
}
