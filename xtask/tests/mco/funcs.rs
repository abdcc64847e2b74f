//! MCO's template function map at the pinned commit (`renderTemplate` in
//! pkg/controller/template/render.go plus `ctrlcommon.GetTemplateFuncMap`), and nothing else:
//! sprig is gone from MCO since 2023, so a template calling `splitList` (or any name not here)
//! fails to parse, as it does in MCO. Each helper keeps MCO's edge cases: the on-prem IP helpers
//! fail for a platform without its status block (a nil dereference in Go) or a cloud platform,
//! return an empty list for vSphere UPI; `isOpenShiftManagedDefaultLB` is false without a block
//! and true for a platform it does not know.
//!
//! Go's own builtins come from gtmpl, which lacks `html`, `js` and `slice`: a template using
//! those fails here although MCO would render it (stricter, never friendlier).

use std::collections::HashMap;

use gtmpl::{Func, FuncError, Value};

/// The names MCO registers, each with its implementation.
pub const MCO_FUNCS: &[(&str, Func)] = &[
    ("toString", to_string as Func),
    ("indent", indent as Func),
    ("skip", skip as Func),
    ("cloudProvider", cloud_provider as Func),
    (
        "credentialProviderConfigFlag",
        credential_provider_config_flag as Func,
    ),
    (
        "onPremPlatformAPIServerInternalIP",
        api_server_internal_ip as Func,
    ),
    (
        "onPremPlatformAPIServerInternalIPs",
        api_server_internal_ips as Func,
    ),
    ("onPremPlatformIngressIP", ingress_ip as Func),
    ("onPremPlatformIngressIPs", ingress_ips as Func),
    ("onPremPlatformShortName", short_name as Func),
    ("urlHost", url_host as Func),
    ("urlPort", url_port as Func),
    (
        "isOpenShiftManagedDefaultLB",
        is_openshift_managed_default_lb as Func,
    ),
    ("dnsRecordsType", dns_records_type as Func),
    (
        "cloudPlatformAPIIntLoadBalancerIPs",
        cloud_api_int_lb_ips as Func,
    ),
    ("cloudPlatformAPILoadBalancerIPs", cloud_api_lb_ips as Func),
    (
        "cloudPlatformIngressLoadBalancerIPs",
        cloud_ingress_lb_ips as Func,
    ),
    ("platformType", platform_type_func as Func),
    ("join", join as Func),
];

/// configv1's on-prem platforms (`onPremPlatform`).
pub const ON_PREM: [&str; 5] = ["BareMetal", "Ovirt", "OpenStack", "VSphere", "Nutanix"];

fn err(msg: impl Into<String>) -> FuncError {
    FuncError::Generic(msg.into())
}

/// A field of a struct-like value; a Go nil (absent, `Nil`) is `None`.
fn field<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    match v {
        Value::Object(o) | Value::Map(o) => match o.get(name) {
            None | Some(Value::Nil | Value::NoValue) => None,
            Some(x) => Some(x),
        },
        _ => None,
    }
}

fn path<'a>(v: &'a Value, names: &[&str]) -> Option<&'a Value> {
    names.iter().try_fold(v, |v, n| field(v, n))
}

fn string(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    }
}

fn one_arg<'a>(args: &'a [Value], name: &str) -> Result<&'a Value, FuncError> {
    match args {
        [a] => Ok(a),
        _ => Err(FuncError::ExactlyXArgs(name.into(), 1)),
    }
}

fn str_arg<'a>(args: &'a [Value], i: usize, name: &str) -> Result<&'a str, FuncError> {
    match args.get(i) {
        Some(Value::String(s)) => Ok(s),
        _ => Err(err(format!("{name}: argument {} must be a string", i + 1))),
    }
}

/// `.Infra.Status.PlatformStatus` of the render config (`cfg` is `.`).
fn platform_status(cfg: &Value) -> Option<&Value> {
    path(cfg, &["Infra", "Status", "PlatformStatus"])
}

fn platform_type(status: &Value) -> String {
    string(field(status, "Type"))
}

/// `toString`: sprig's `strval` as MCO copied it.
fn to_string(args: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::from(match one_arg(args, "toString")? {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }))
}

/// `indent N STRING`: every line prefixed with N spaces.
fn indent(args: &[Value]) -> Result<Value, FuncError> {
    let n = match args.first() {
        Some(Value::Number(n)) => n
            .as_i64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| err("indent: a count of spaces"))?,
        _ => return Err(err("indent: a count of spaces")),
    };
    let pad = " ".repeat(n);
    let text = str_arg(args, 1, "indent")?;
    Ok(Value::from(format!(
        "{pad}{}",
        text.replace('\n', &format!("\n{pad}"))
    )))
}

/// `skip KEY` leaves `{{.KEY}}` for the machine-config-server to fill in.
fn skip(args: &[Value]) -> Result<Value, FuncError> {
    let key = str_arg(args, 0, "skip")?;
    let mut chars = key.chars();
    let valid = chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_lowercase())
        && chars.all(|c| c == '_' || c.is_alphanumeric());
    if !valid {
        return Err(err("invalid key for skipKey"));
    }
    Ok(Value::from(format!("{{{{.{key}}}}}")))
}

/// library-go's `IsCloudProviderExternal`.
fn cloud_provider(args: &[Value]) -> Result<Value, FuncError> {
    let Some(status) = platform_status(one_arg(args, "cloudProvider")?) else {
        return Ok(Value::from(""));
    };
    let external = match platform_type(status).as_str() {
        "AlibabaCloud" | "AWS" | "Azure" | "GCP" | "IBMCloud" | "KubeVirt" | "Nutanix"
        | "OpenStack" | "PowerVS" | "VSphere" => true,
        "External" => {
            string(path(
                status,
                &["External", "CloudControllerManager", "State"],
            )) == "External"
        }
        _ => false,
    };
    Ok(Value::from(if external { "external" } else { "" }))
}

fn credential_provider_config_flag(args: &[Value]) -> Result<Value, FuncError> {
    let cfg = one_arg(args, "credentialProviderConfigFlag")?;
    let file = match platform_status(cfg).map(platform_type).as_deref() {
        Some("AWS") => "ecr-credential-provider.yaml",
        Some("GCP") => "gcr-credential-provider.yaml",
        Some("Azure") => "acr-credential-provider.yaml",
        _ => return Ok(Value::from("")),
    };
    Ok(Value::from(format!(
        "--image-credential-provider-bin-dir=/usr/libexec/kubelet-image-credential-provider-plugins \
         --image-credential-provider-config=/etc/kubernetes/credential-providers/{file}"
    )))
}

/// The list `key` of the on-prem platform's block, as MCO's `onPremPlatform*IPs` reads it.
fn on_prem_list(args: &[Value], key: &str, what: &str) -> Result<Vec<Value>, FuncError> {
    let cfg = one_arg(args, what)?;
    let status = platform_status(cfg).ok_or_else(|| err(""))?;
    let platform = platform_type(status);
    if !ON_PREM.contains(&platform.as_str()) {
        return Err(err(format!("invalid platform for {what}")));
    }
    match field(status, &platform) {
        // vSphere UPI has no block: no error, no data.
        None if platform == "VSphere" => Ok(Vec::new()),
        None => Err(err(format!(
            "error calling {what}: runtime error: invalid memory address or nil pointer \
             dereference (no {platform} block)"
        ))),
        Some(block) => match field(block, key) {
            Some(Value::Array(a)) => Ok(a.clone()),
            None => Ok(Vec::new()),
            Some(other) => Err(err(format!("{key} is not a list: {other}"))),
        },
    }
}

/// The first element, as the singular helpers take it (`[0]`: an empty list panics in Go, an
/// error here; vSphere answers nil instead).
fn first(args: &[Value], key: &str, what: &str) -> Result<Value, FuncError> {
    let list = on_prem_list(args, key, what)?;
    let vsphere = platform_status(&args[0]).map(platform_type).as_deref() == Some("VSphere");
    match list.into_iter().next() {
        Some(v) => Ok(v),
        None if vsphere => Ok(Value::Nil),
        None => Err(err(format!(
            "error calling {what}: runtime error: index out of range [0] with length 0"
        ))),
    }
}

fn api_server_internal_ips(args: &[Value]) -> Result<Value, FuncError> {
    on_prem_list(args, "APIServerInternalIPs", "API Server Internal IP").map(Value::Array)
}

fn api_server_internal_ip(args: &[Value]) -> Result<Value, FuncError> {
    first(args, "APIServerInternalIPs", "API Server Internal IP")
}

fn ingress_ips(args: &[Value]) -> Result<Value, FuncError> {
    on_prem_list(args, "IngressIPs", "Ingress IP").map(Value::Array)
}

fn ingress_ip(args: &[Value]) -> Result<Value, FuncError> {
    first(args, "IngressIPs", "Ingress IP")
}

fn short_name(args: &[Value]) -> Result<Value, FuncError> {
    let cfg = one_arg(args, "onPremPlatformShortName")?;
    let short = match platform_status(cfg).map(platform_type).as_deref() {
        Some("BareMetal") => "kni",
        Some("Ovirt") => "ovirt",
        Some("OpenStack") => "openstack",
        Some("VSphere") => "vsphere",
        Some("Nutanix") => "nutanix",
        _ => "",
    };
    Ok(Value::from(short))
}

/// Scheme, host and port of a URL, as Go's `url.Parse` splits an absolute URL.
fn url_parts(u: &str) -> Result<(&str, &str, &str), FuncError> {
    let (scheme, rest) = u
        .split_once("://")
        .ok_or_else(|| err(format!("invalid url: {u}")))?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
        let (host, tail) = v6
            .split_once(']')
            .ok_or_else(|| err(format!("invalid url: missing ']' in host of {u}")))?;
        (host, tail.strip_prefix(':').unwrap_or_default())
    } else {
        hostport.split_once(':').unwrap_or((hostport, ""))
    };
    Ok((scheme, host, port))
}

fn url_host(args: &[Value]) -> Result<Value, FuncError> {
    let (_, host, _) = url_parts(str_arg(args, 0, "urlHost")?)?;
    Ok(Value::from(host))
}

fn url_port(args: &[Value]) -> Result<Value, FuncError> {
    let u = str_arg(args, 0, "urlPort")?;
    let (scheme, _, port) = url_parts(u)?;
    Ok(Value::from(match (port, scheme) {
        ("", "https") => "443",
        ("", "http") => "80",
        ("", _) => return Err(err(format!("unknown scheme in {u}"))),
        (p, _) => p,
    }))
}

fn is_openshift_managed_default_lb(args: &[Value]) -> Result<Value, FuncError> {
    let cfg = one_arg(args, "isOpenShiftManagedDefaultLB")?;
    let Some(status) = platform_status(cfg) else {
        return Ok(Value::Bool(false));
    };
    let platform = platform_type(status);
    if !ON_PREM.contains(&platform.as_str()) {
        // "If a new on-prem platform is newly supported, the default ... is internal."
        return Ok(Value::Bool(true));
    }
    let Some(block) = field(status, &platform) else {
        return Ok(Value::Bool(false));
    };
    // vSphere without API VIPs: the user's load balancer (UPI-style).
    if platform == "VSphere"
        && !matches!(field(block, "APIServerInternalIPs"), Some(Value::Array(a)) if !a.is_empty())
    {
        return Ok(Value::Bool(false));
    }
    let lb = match path(block, &["LoadBalancer", "Type"]) {
        Some(Value::String(t)) => t.as_str(),
        _ => "OpenShiftManagedDefault",
    };
    Ok(Value::Bool(lb == "OpenShiftManagedDefault"))
}

fn dns_records_type(args: &[Value]) -> Result<Value, FuncError> {
    let cfg = one_arg(args, "dnsRecordsType")?;
    if let Some(status) = platform_status(cfg) {
        let platform = platform_type(status);
        if ["BareMetal", "Nutanix", "OpenStack", "VSphere"].contains(&platform.as_str())
            && let Some(block) = field(status, &platform)
        {
            return Ok(Value::from(string(field(block, "DNSRecordsType"))));
        }
    }
    Ok(Value::from("Internal"))
}

/// `cloudPlatformLoadBalancerIPs`: the cluster-hosted DNS load balancer addresses of AWS,
/// Azure and GCP.
fn cloud_lb_ips(args: &[Value], key: &str, what: &str) -> Result<Value, FuncError> {
    let status = platform_status(one_arg(args, what)?).ok_or_else(|| err(""))?;
    let platform = platform_type(status);
    if !["GCP", "AWS", "Azure"].contains(&platform.as_str()) {
        return Err(err("invalid cloud platform for API Server Internal IPs"));
    }
    let lb = path(status, &[&platform, "CloudLoadBalancerConfig"]);
    if lb.map(|c| string(field(c, "DNSType"))).as_deref() != Some("ClusterHosted") {
        return Err(err(""));
    }
    match lb.and_then(|c| field(c, "ClusterHosted")) {
        Some(hosted) => Ok(field(hosted, key)
            .cloned()
            .unwrap_or(Value::Array(Vec::new()))),
        None => Err(err(format!(
            "{platform} {what} Load Balancer IPs unavailable when the DNSType is ClusterHosted"
        ))),
    }
}

fn cloud_api_int_lb_ips(args: &[Value]) -> Result<Value, FuncError> {
    cloud_lb_ips(args, "APIIntLoadBalancerIPs", "Internal API Server")
}

fn cloud_api_lb_ips(args: &[Value]) -> Result<Value, FuncError> {
    cloud_lb_ips(args, "APILoadBalancerIPs", "API Server")
}

fn cloud_ingress_lb_ips(args: &[Value]) -> Result<Value, FuncError> {
    cloud_lb_ips(args, "IngressLoadBalancerIPs", "Ingress")
}

fn platform_type_func(args: &[Value]) -> Result<Value, FuncError> {
    platform_status(one_arg(args, "platformType")?)
        .map(|s| Value::from(platform_type(s)))
        .ok_or_else(|| err("could not determine platform type"))
}

/// `join` is Go's `strings.Join(elems, sep)`.
fn join(args: &[Value]) -> Result<Value, FuncError> {
    let elems = match args.first() {
        Some(Value::Array(a)) => a,
        _ => return Err(err("join: a list of strings first")),
    };
    let sep = str_arg(args, 1, "join")?;
    let strings: Vec<String> = elems
        .iter()
        .map(|e| match e {
            Value::String(s) => Ok(s.clone()),
            _ => Err(err("join: a list of strings first")),
        })
        .collect::<Result<_, _>>()?;
    Ok(Value::from(strings.join(sep)))
}

/// A JSON render config as gtmpl values (Go's struct fields become an object).
pub fn to_value(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::from(n.as_i64().expect("integer")),
        serde_json::Value::String(s) => Value::from(s.as_str()),
        serde_json::Value::Array(a) => Value::Array(a.iter().map(to_value).collect()),
        serde_json::Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), to_value(v)))
                .collect::<HashMap<_, _>>(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(f: Func, cfg: serde_json::Value) -> Result<Value, FuncError> {
        f(&[to_value(&cfg)])
    }

    fn status(s: serde_json::Value) -> serde_json::Value {
        json!({ "Infra": { "Status": { "PlatformStatus": s } } })
    }

    #[test]
    fn the_ip_helpers_fail_where_mco_fails() {
        let bare = status(json!({ "Type": "BareMetal" }));
        assert!(
            call(api_server_internal_ips, bare.clone()).is_err(),
            "no block"
        );
        assert!(call(ingress_ips, bare).is_err());
        let aws = status(json!({ "Type": "AWS" }));
        let e = call(api_server_internal_ips, aws).unwrap_err().to_string();
        assert_eq!(e, "invalid platform for API Server Internal IP");
        let empty = status(json!({ "Type": "BareMetal", "BareMetal": {} }));
        assert!(
            matches!(call(api_server_internal_ips, empty.clone()), Ok(Value::Array(a)) if a.is_empty())
        );
        assert!(
            call(api_server_internal_ip, empty).is_err(),
            "[0] of nothing"
        );
        let upi = status(json!({ "Type": "VSphere" }));
        assert!(
            matches!(call(api_server_internal_ips, upi.clone()), Ok(Value::Array(a)) if a.is_empty())
        );
        assert!(matches!(call(api_server_internal_ip, upi), Ok(Value::Nil)));
        assert!(
            call(
                api_server_internal_ips,
                json!({ "Infra": { "Status": {} } })
            )
            .is_err()
        );
    }

    #[test]
    fn managed_lb_is_false_without_a_block_and_true_off_prem() {
        let yes = |s| {
            matches!(
                call(is_openshift_managed_default_lb, status(s)),
                Ok(Value::Bool(true))
            )
        };
        assert!(!yes(json!({ "Type": "BareMetal" })));
        assert!(!yes(json!({ "Type": "VSphere" })));
        assert!(yes(json!({ "Type": "AWS" })));
        assert!(yes(json!({ "Type": "BareMetal", "BareMetal": {} })));
        assert!(!yes(
            json!({ "Type": "VSphere", "VSphere": { "APIServerInternalIPs": [] } })
        ));
        assert!(!yes(json!({ "Type": "OpenStack", "OpenStack": {
            "APIServerInternalIPs": ["192.0.2.5"], "LoadBalancer": { "Type": "UserManaged" } } })));
        assert!(yes(
            json!({ "Type": "VSphere", "VSphere": { "APIServerInternalIPs": ["192.0.2.5"] } })
        ));
    }

    #[test]
    fn small_helpers_as_in_go() {
        let host = |u: &str| url_host(&[Value::from(u)]).unwrap().to_string();
        let port = |u: &str| url_port(&[Value::from(u)]).map(|v| v.to_string());
        assert_eq!(
            host("https://api-int.ostest.example.org:6443"),
            "api-int.ostest.example.org"
        );
        assert_eq!(host("https://[2001:db8::5]:6443/x"), "2001:db8::5");
        assert_eq!(port("https://api.example.org").unwrap(), "443");
        assert_eq!(port("http://user@h:8080/").unwrap(), "8080");
        assert!(port("ftp://h").is_err());
        assert_eq!(
            skip(&[Value::from("token")]).unwrap().to_string(),
            "{{.token}}"
        );
        assert!(skip(&[Value::from("Token")]).is_err());
        let joined = join(&[
            Value::Array(vec![Value::from("a"), Value::from("b")]),
            Value::from(","),
        ]);
        assert_eq!(joined.unwrap().to_string(), "a,b");
        assert_eq!(
            indent(&[Value::from(2i64), Value::from("a\nb")])
                .unwrap()
                .to_string(),
            "  a\n  b"
        );
        let ext = status(json!({ "Type": "External", "External": {
            "CloudControllerManager": { "State": "External" } } }));
        assert_eq!(call(cloud_provider, ext).unwrap().to_string(), "external");
        assert_eq!(
            call(cloud_provider, status(json!({ "Type": "BareMetal" })))
                .unwrap()
                .to_string(),
            ""
        );
        assert_eq!(
            call(dns_records_type, status(json!({ "Type": "AWS" })))
                .unwrap()
                .to_string(),
            "Internal"
        );
    }
}
