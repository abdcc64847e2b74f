//! What NetworkManager makes of the node's DNS: whether its global DNS is set (then every
//! profile's DNS settings are ignored), and the name servers it hands to resolv.conf, by the
//! interface whose profile gave them (how a DNS change is verified in place).

use std::collections::HashMap;
use std::net::IpAddr;

use zbus::proxy;
use zbus::zvariant::{OwnedValue, Value};

use crate::nm::{Nm, NmError, call};

#[proxy(
    interface = "org.freedesktop.NetworkManager.DnsManager",
    default_service = "org.freedesktop.NetworkManager",
    default_path = "/org/freedesktop/NetworkManager/DnsManager"
)]
trait DnsManager {
    #[zbus(property)]
    fn configuration(&self) -> zbus::Result<OwnedValue>;
}

/// One entry of NetworkManager's DNS configuration: the name servers and search domains one
/// interface's profile gives (an empty interface: the global DNS), and their priority.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DnsEntry {
    pub interface: String,
    pub servers: Vec<IpAddr>,
    pub domains: Vec<String>,
    pub priority: i32,
}

impl Nm {
    /// Whether NetworkManager's global DNS is set (nmstate's apply sets it for static DNS).
    pub async fn global_dns_set(&self) -> Result<bool, NmError> {
        let config = self
            .nm()
            .await?
            .global_dns_configuration()
            .await
            .map_err(call("GlobalDnsConfiguration"))?;
        self.count(1);
        // As nmstate reads it: set when it has search domains, options or a domain's servers.
        let Ok(config) = HashMap::<String, OwnedValue>::try_from(config) else {
            return Ok(false);
        };
        let some = |key: &str| match config.get(key).map(|v| &**v) {
            Some(Value::Array(a)) => !a.is_empty(),
            Some(Value::Dict(d)) => d.iter().next().is_some(),
            _ => false,
        };
        Ok(some("searches") || some("options") || some("domains"))
    }

    /// The name servers NetworkManager uses now, by interface.
    pub async fn dns_entries(&self) -> Result<Vec<DnsEntry>, NmError> {
        let p: DnsManagerProxy = self.proxy(None, "DnsManager").await?;
        let entries = p
            .configuration()
            .await
            .map_err(call("DnsManager.Configuration"))?;
        self.count(1);
        let Value::Array(entries) = &*entries else {
            return Ok(Vec::new());
        };
        Ok(entries
            .iter()
            .filter_map(|e| e.try_clone().ok())
            .filter_map(|e| HashMap::<String, OwnedValue>::try_from(e).ok())
            .map(|e| entry(&e))
            .collect())
    }
}

/// An entry of `Configuration` (`nameservers`: strings; `interface`: absent for the global DNS).
fn entry(e: &HashMap<String, OwnedValue>) -> DnsEntry {
    let interface = e
        .get("interface")
        .and_then(|v| String::try_from(v.try_clone().ok()?).ok())
        .unwrap_or_default();
    let strings = |key: &str| {
        e.get(key)
            .and_then(|v| Vec::<String>::try_from(v.try_clone().ok()?).ok())
            .unwrap_or_default()
    };
    let servers = strings("nameservers")
        .iter()
        .filter_map(|s| s.parse().ok())
        .collect();
    let priority = e
        .get("priority")
        .and_then(|v| i32::try_from(v.try_clone().ok()?).ok())
        .unwrap_or_default();
    DnsEntry {
        interface,
        servers,
        domains: strings("domains"),
        priority,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_names_its_interface_and_servers() {
        let mut e = HashMap::new();
        e.insert(
            "nameservers".to_owned(),
            OwnedValue::try_from(Value::new(vec!["192.0.2.53", "2001:db8::53"])).unwrap(),
        );
        e.insert(
            "interface".to_owned(),
            OwnedValue::try_from(Value::new("br-ex")).unwrap(),
        );
        e.insert(
            "domains".to_owned(),
            OwnedValue::try_from(Value::new(vec!["example.test"])).unwrap(),
        );
        e.insert("priority".to_owned(), OwnedValue::from(40i32));
        let got = entry(&e);
        assert_eq!(got.interface, "br-ex");
        assert_eq!(
            (got.domains.as_slice(), got.priority),
            (&["example.test".to_owned()][..], 40)
        );
        assert_eq!(
            got.servers,
            [
                "192.0.2.53".parse::<IpAddr>().unwrap(),
                "2001:db8::53".parse().unwrap()
            ]
        );
        e.remove("interface");
        assert_eq!(entry(&e).interface, "");
    }
}
