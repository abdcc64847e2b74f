//! `explain`: a readable account of a selection.

use std::fmt::Write;

use selection::default_path::{DefaultVerdict, SortKey};
use selection::net::go_text;
use selection::select::{Candidate, Explanation};
use selection::vip_path::{Via, VipVerdict};
use selection::{Selection, Source, TargetRole};

use crate::choose::NotUsable;

fn role(r: TargetRole) -> &'static str {
    match r {
        TargetRole::Hint => "hint",
        TargetRole::Vip => "VIP",
    }
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn vip_text(v: &VipVerdict, sel: &Selection) -> String {
    let role_of = |ip| {
        sel.explanation
            .targets
            .iter()
            .find(|t| t.ip == ip)
            .map_or("VIP", |t| role(t.role))
    };
    match v {
        VipVerdict::Rejected { reason } => format!("rejected: {reason}"),
        VipVerdict::IsTarget { target } => {
            format!(
                "is {} {} itself (skipped)",
                role_of(*target),
                go_text(*target)
            )
        }
        VipVerdict::Matches { target, via } => {
            let how = match via {
                Via::OwnSubnet { .. } => "own subnet".to_string(),
                Via::RaRoute { network } => format!("RA route prefix /{}", network.prefix_len),
            };
            format!(
                "{} {} in subnet ({how})",
                role_of(*target),
                go_text(*target)
            )
        }
        VipVerdict::NoMatch => "no hint/VIP in subnet".into(),
    }
}

fn default_text(v: &DefaultVerdict) -> String {
    match v {
        DefaultVerdict::Rejected { reason } => format!("rejected: {reason}"),
        DefaultVerdict::NoDefaultRoute => "no default route on link".into(),
        DefaultVerdict::Ranked { rank, key } => format!("rank #{rank} (metric {})", key.metric),
    }
}

fn marker(c: &Candidate) -> &'static str {
    match c.chosen {
        Some(0) => "*",
        Some(_) => "+",
        None => " ",
    }
}

/// Renders the table of candidates, the default-route ranking, the result and the warnings.
/// `usable` is the usability verdict on the primary address.
pub fn render(sel: &Selection, usable: &Result<(), NotUsable>, hint_source: &str) -> String {
    let e = &sel.explanation;
    let mut out = String::new();
    request(e, hint_source, &mut out);
    default_routes(e, &mut out);
    candidates(sel, &mut out);
    ranking(e, &mut out);
    out.push('\n');
    outcome(sel, usable, &mut out);
    if !e.warnings.is_empty() {
        let _ = writeln!(out, "Warnings:");
        for w in &e.warnings {
            let _ = writeln!(out, "  ! {w}");
        }
    }
    out
}

/// What was asked: the targets (hint or VIPs) and the options.
fn request(e: &Explanation, hint_source: &str, out: &mut String) {
    let targets: Vec<String> = e
        .targets
        .iter()
        .map(|t| match t.role {
            TargetRole::Hint => format!("hint {} ({hint_source})", go_text(t.ip)),
            TargetRole::Vip => format!("VIP {}", go_text(t.ip)),
        })
        .collect();
    let _ = writeln!(
        out,
        "Targets:  {}",
        if targets.is_empty() {
            "none (default-route path only)".into()
        } else {
            targets.join(", ")
        }
    );
    let _ = writeln!(
        out,
        "Options:  prefer IPv6 {}, network type {}",
        yes(e.prefer_ipv6),
        e.network_type
    );
}

/// The default routes seen, by link, when there are any.
fn default_routes(e: &Explanation, out: &mut String) {
    if e.default_routes.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nDefault routes (main table, the first listed per link counts):"
    );
    for d in &e.default_routes {
        let name = e
            .candidates
            .iter()
            .find(|c| c.ifindex == d.ifindex)
            .map_or("?", |c| &c.interface);
        let via = d
            .gateway
            .map(|g| format!(" via {}", go_text(g)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {name} (ifindex {}): {} metric {}{via}",
            d.ifindex, d.family, d.metric
        );
    }
}

/// One row per candidate address with both paths' verdicts, in aligned columns.
fn candidates(sel: &Selection, out: &mut String) {
    let rows: Vec<[String; 5]> = sel
        .explanation
        .candidates
        .iter()
        .map(|c| {
            [
                marker(c).into(),
                format!("{} ({})", c.interface, c.ifindex),
                c.address.to_string(),
                c.vip_path.as_ref().map_or("-".into(), |v| vip_text(v, sel)),
                c.default_path.as_ref().map_or("-".into(), default_text),
            ]
        })
        .collect();
    let header = [
        " ",
        "INTERFACE",
        "ADDRESS",
        "HINT/VIP PATH",
        "DEFAULT-ROUTE PATH",
    ]
    .map(String::from);
    let mut widths = [0usize; 5];
    for r in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.len());
        }
    }
    out.push('\n');
    for r in std::iter::once(&header).chain(&rows) {
        let line: Vec<String> = r
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:w$}"))
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
}

/// The candidates the default-route path ranked, best first, with every key of the ranking.
fn ranking(e: &Explanation, out: &mut String) {
    let mut ranked: Vec<(usize, &Candidate, &SortKey)> = e
        .candidates
        .iter()
        .filter_map(|c| match &c.default_path {
            Some(DefaultVerdict::Ranked { rank, key }) => Some((*rank, c, key)),
            _ => None,
        })
        .collect();
    if ranked.is_empty() {
        return;
    }
    ranked.sort_by_key(|(r, _, _)| *r);
    let _ = writeln!(
        out,
        "\nDefault-route ranking, best first (keys: metric, ifindex, preferred family, gateway on \
         subnet, public, real IPv6, bytes):"
    );
    for (rank, c, k) in ranked {
        let bytes: String = k.bytes.iter().map(|b| format!("{b:02x}")).collect();
        let _ = writeln!(
            out,
            "  #{rank} {} {}: metric {}, ifindex {}, preferred family {}, gateway on subnet {}, \
             public {}, real IPv6 {}, bytes {bytes}",
            c.interface,
            c.address,
            k.metric,
            k.ifindex,
            yes(k.preferred_family),
            yes(k.gateway_on_subnet),
            yes(k.public),
            yes(k.real_ipv6),
        );
    }
}

/// The addresses chosen, from which path and on which interface, and whether they are usable.
fn outcome(sel: &Selection, usable: &Result<(), NotUsable>, out: &mut String) {
    let (Some(_), Some(source)) = (sel.primary(), sel.source) else {
        let _ = writeln!(
            out,
            "Chosen:   nothing: no address passes the filters on a hint/VIP subnet or a default-route link"
        );
        return;
    };
    let list: Vec<String> = sel.addresses.iter().map(|a| go_text(*a)).collect();
    let path = match source {
        Source::Vip => "the hint/VIP path",
        Source::DefaultRoute => "the default-route path",
    };
    let _ = writeln!(
        out,
        "Chosen:   {} (primary first), from {path}, on {}",
        list.join(", "),
        sel.interface.as_deref().unwrap_or("?")
    );
    let _ = writeln!(
        out,
        "Usable:   {}",
        match usable {
            Ok(()) => "yes".to_string(),
            Err(why) => format!("not yet: {why}"),
        }
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use selection::fixture::{ip, snapshot};
    use selection::{Request, Target, select};

    #[test]
    fn table_shows_every_candidate_verdict_choice_and_warning() {
        let snap = snapshot()
            .link(2, "eth0")
            .addr(2, "192.0.2.10/24")
            .addr(2, "2001:db8::10/64")
            .link(3, "eth1")
            .addr(3, "203.0.113.10/24")
            .default_via(3, "203.0.113.1", 50)
            .build();
        let req = Request {
            targets: vec![
                Target {
                    ip: ip("192.0.2.10"),
                    role: TargetRole::Hint,
                },
                Target {
                    ip: ip("198.51.100.100"),
                    role: TargetRole::Vip,
                },
            ],
            prefer_ipv6: false,
            network_type: "OVNKubernetes".into(),
        };
        let sel = select(&snap, &req);
        let text = render(&sel, &Ok(()), "/etc/default/nodeip-configuration");
        assert!(
            text.contains(
                "hint 192.0.2.10 (/etc/default/nodeip-configuration), VIP 198.51.100.100"
            ),
            "{text}"
        );
        assert!(
            text.contains("is hint 192.0.2.10 itself (skipped)"),
            "{text}"
        );
        assert!(text.contains("*  eth1 (3)   203.0.113.10/24"), "{text}");
        assert!(
            text.contains("eth1 (ifindex 3): IPv4 metric 50 via 203.0.113.1"),
            "{text}"
        );
        assert!(
            !text.contains("hint 192.0.2.10 is on no local subnet"),
            "{text}"
        );
        assert!(text.contains("rank #0 (metric 50)"), "{text}");
        assert!(
            text.contains("#0 eth1 203.0.113.10/24: metric 50, ifindex 3"),
            "{text}"
        );
        assert!(
            text.contains(
                "Chosen:   203.0.113.10 (primary first), from the default-route path, on eth1"
            ),
            "{text}"
        );
        assert!(
            text.contains("! hint 192.0.2.10 is an address of eth0"),
            "{text}"
        );
        assert!(
            text.contains("! VIP 198.51.100.100 is on no local subnet"),
            "{text}"
        );
    }
}
