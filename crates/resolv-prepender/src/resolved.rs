//! Hosts where systemd-resolved owns `/etc/resolv.conf` (OKD/FCOS): the node IP goes into a
//! resolved drop-in instead of the stub file.

use std::net::IpAddr;
use std::path::Path;

use selection::net::go_text;

use crate::resolvconf::is_resolved_stub;

/// Whether `output` is systemd-resolved's stub: a symlink to `stub-resolv.conf`, or a file whose
/// only nameserver is 127.0.0.53. Prepending to it would bypass resolved.
pub fn owns(output: &Path) -> bool {
    let link = std::fs::read_link(output).is_ok_and(|t| t.ends_with("stub-resolv.conf"));
    link || std::fs::read_to_string(output).is_ok_and(|t| is_resolved_stub(&t))
}

/// The `60-kni.conf` drop-in: `DNS=<node ip>`, `Domains=` the dispatcher's IPv4 and IPv6 search
/// domains and the base domain, in that order as upstream (each once; upstream's shell joined
/// them with stray spaces).
pub fn dropin(node_ip: IpAddr, domains: &[String]) -> String {
    let mut unique: Vec<&str> = Vec::new();
    for d in domains {
        if !unique.contains(&d.as_str()) {
            unique.push(d);
        }
    }
    format!(
        "[Resolve]\nDNS={}\nDomains={}\n",
        go_text(node_ip),
        unique.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropin_lists_the_node_ip_and_domains_once() {
        let d = dropin(
            "192.0.2.20".parse().unwrap(),
            &["a.test".into(), "b.test".into(), "a.test".into()],
        );
        assert_eq!(d, "[Resolve]\nDNS=192.0.2.20\nDomains=a.test b.test\n");
    }

    #[test]
    fn recognizes_the_stub_by_symlink_or_content() {
        let dir = tempfile::tempdir().unwrap();
        let stub = dir.path().join("stub-resolv.conf");
        std::fs::write(&stub, "nameserver 127.0.0.53\n").unwrap();
        let link = dir.path().join("resolv.conf");
        std::os::unix::fs::symlink(&stub, &link).unwrap();
        assert!(owns(&link) && owns(&stub));
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "nameserver 192.0.2.1\n").unwrap();
        assert!(!owns(&plain) && !owns(&dir.path().join("missing")));
    }
}
