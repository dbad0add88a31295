//! OTLP exporter settings from the standard `OTEL_*` variables, and the
//! endpoint URL syntax.

use std::path::PathBuf;
use std::time::Duration;

use super::http::Endpoint;

/// The default OTLP/HTTP endpoint.
pub const DEFAULT_ENDPOINT: &str = "http://localhost:4318";

/// Parses `http://host[:port][/prefix]` or `https://..` (port 80 or 443
/// if absent; an IPv6 host in brackets). Anything else (no scheme, a bad
/// port) is an error naming the problem. An `https://` endpoint still
/// needs its TLS configuration ([`tls::config`](super::tls::config)).
pub(crate) fn parse_endpoint(url: &str) -> Result<Endpoint, String> {
    let url = url.trim();
    let schemes = [("http://", false), ("https://", true), ("otlp://", false)];
    let scheme = |(s, https): &(&str, bool)| Some((url.strip_prefix(s)?, *https));
    let Some((rest, https)) = schemes.iter().find_map(scheme) else {
        return Err("expected http://host[:port] or https://host[:port]".into());
    };
    let default_port = if https { 443 } else { 80 };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], rest[i..].trim_end_matches('/')),
        None => (rest, ""),
    };
    let port = |p: &str| p.parse::<u16>().map_err(|_| format!("bad port {p:?}"));
    let (host, port) = match authority.strip_prefix('[') {
        // An IPv6 literal, `[addr]` or `[addr]:port`: its colons are not
        // the port's.
        Some(v6) => match v6.split_once(']') {
            Some((host, "")) => (host, default_port),
            Some((host, rest)) => match rest.strip_prefix(':') {
                Some(p) => (host, port(p)?),
                None => return Err(format!("bad port {rest:?}")),
            },
            None => return Err(format!("bad host {authority:?}")),
        },
        None => match authority.rsplit_once(':') {
            Some((host, p)) => (host, port(p)?),
            None => (authority, default_port),
        },
    };
    if host.is_empty() || host.contains(|c: char| c.is_whitespace() || c == '@') {
        return Err(format!("bad host {host:?}"));
    }
    Ok(Endpoint {
        host: host.to_owned(),
        port,
        base: path.to_owned(),
        headers: Vec::new(),
        https,
        tls: None,
    })
}

/// `k1=v1,k2=v2` (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_RESOURCE_ATTRIBUTES`),
/// with `%XX` escapes decoded. Malformed items are returned separately.
pub(crate) fn parse_pairs(text: &str) -> (Vec<(String, String)>, Vec<String>) {
    let mut ok = Vec::new();
    let mut bad = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match item.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                ok.push((decode(k.trim()), decode(v.trim())));
            }
            _ => bad.push(item.to_owned()),
        }
    }
    (ok, bad)
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("");
            if let Ok(v) = u8::from_str_radix(hex, 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The signals, with their path under a base endpoint and the infix of
/// their own `OTEL_EXPORTER_OTLP_<SIGNAL>_*` variables.
pub(crate) const SIGNALS: [(&str, &str); 3] = [
    ("/v1/logs", "LOGS"),
    ("/v1/traces", "TRACES"),
    ("/v1/metrics", "METRICS"),
];

/// The exporter variables of the OpenTelemetry specification that elide
/// does not read (name after `OTEL_EXPORTER_OTLP_`, alone and per signal;
/// those read alone are not listed alone), with what is used instead.
const NOT_READ: [(&str, &str); 3] = [
    ("CLIENT_KEY", NO_MTLS),
    ("CLIENT_CERTIFICATE", NO_MTLS),
    (
        "INSECURE",
        "the endpoint's scheme decides (http:// or https://)",
    ),
];
const NO_MTLS: &str = "no client certificate is sent (no mutual TLS)";

/// Per-signal variables of the specification elide does not read: the
/// base one applies to every signal.
const NOT_READ_PER_SIGNAL: [&str; 3] = ["HEADERS", "COMPRESSION", "PROTOCOL"];

/// The `OTEL_*` settings beyond endpoint, headers and resource
/// ([`read_otel`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct OtelExtra {
    /// `OTEL_SDK_DISABLED=true`: no exporter.
    pub(crate) disabled: bool,
    /// `OTEL_EXPORTER_OTLP_TIMEOUT` (milliseconds): each request's timeout.
    pub(crate) timeout: Option<Duration>,
    /// Per signal path: its own endpoint URL (used as it is, no path
    /// appended) and timeout.
    pub(crate) signals: Vec<(&'static str, Option<String>, Option<Duration>)>,
    /// `OTEL_EXPORTER_OTLP_COMPRESSION=gzip`.
    pub(crate) gzip: bool,
    /// `OTEL_EXPORTER_OTLP_CERTIFICATE`: the CA file for `https://`.
    pub(crate) certificate: Option<PathBuf>,
    /// Per signal path: `OTEL_EXPORTER_OTLP_<SIGNAL>_CERTIFICATE`.
    pub(crate) signal_certificates: Vec<(&'static str, PathBuf)>,
}

/// Reads [`OtelExtra`]: `get(name)` is the variable's value if set and
/// not blank (pure: whichever environment table holds them can feed it);
/// each malformed value gives one warning through `warn` naming the
/// variable, the value and what is used instead.
pub(crate) fn read_otel(get: &dyn Fn(&str) -> Option<String>, warn: &dyn Fn(&str)) -> OtelExtra {
    let timeout = |name: &str| -> Option<Duration> {
        let v = get(name)?;
        match v.trim().parse::<u64>() {
            Ok(ms) => Some(Duration::from_millis(ms.max(1))),
            Err(_) => {
                warn(&format!(
                    "{name}={v:?} is not a number of milliseconds; the default is used"
                ));
                None
            }
        }
    };
    // A two-valued variable: whether it is `yes` (`no` if unset; anything
    // else is warned about).
    let flag = |name: &str, yes: &str, no: &str, any_case: bool| {
        let Some(v) = get(name) else { return false };
        let is = |w: &str| v.trim() == w || any_case && v.trim().eq_ignore_ascii_case(w);
        if !is(yes) && !is(no) {
            warn(&format!(
                "{name}={v:?} is neither {yes} nor {no}; {no} is used"
            ));
        }
        is(yes)
    };
    let disabled = flag("OTEL_SDK_DISABLED", "true", "false", true);
    let per_signal = |suffix: &str| -> Vec<(&'static str, String)> {
        let var = |(path, sig): &(&'static str, &str)| {
            (*path, format!("OTEL_EXPORTER_OTLP_{sig}_{suffix}"))
        };
        SIGNALS.iter().map(var).collect()
    };
    let signals = per_signal("ENDPOINT")
        .into_iter()
        .zip(per_signal("TIMEOUT"))
        .map(|((path, e), (_, t))| (path, get(&e), timeout(&t)))
        .filter(|(_, e, t)| e.is_some() || t.is_some())
        .collect();
    let gzip = flag("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip", "none", false);
    let not_read = |name: &str, instead: &str| {
        if let Some(v) = get(name) {
            warn(&format!(
                "{name}={v:?} is not read by elide's exporter; {instead}"
            ));
        }
    };
    for (suffix, instead) in NOT_READ {
        not_read(&format!("OTEL_EXPORTER_OTLP_{suffix}"), instead);
        for (_, name) in per_signal(suffix) {
            not_read(&name, instead);
        }
    }
    for suffix in NOT_READ_PER_SIGNAL {
        let instead = format!("OTEL_EXPORTER_OTLP_{suffix} applies to every signal");
        for (_, name) in per_signal(suffix) {
            not_read(&name, &instead);
        }
    }
    let signal_certificates = per_signal("CERTIFICATE")
        .into_iter()
        .filter_map(|(path, name)| Some((path, get(&name)?.into())))
        .collect();
    OtelExtra {
        certificate: get("OTEL_EXPORTER_OTLP_CERTIFICATE").map(PathBuf::from),
        signal_certificates,
        gzip,
        disabled,
        timeout: timeout("OTEL_EXPORTER_OTLP_TIMEOUT"),
        signals,
    }
}

/// Why a header cannot be sent as it is, if it cannot: a name that is not
/// an HTTP token, a value with control characters (a CR or LF would start
/// a header of its own in the request).
pub(crate) fn bad_header(name: &str, value: &str) -> Option<&'static str> {
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return Some("its name is not an HTTP token");
    }
    if value.chars().any(|c| c.is_control() && c != '\t') {
        return Some("its value has control characters");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints() {
        let e = parse_endpoint("http://127.0.0.1:4318").unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.base.as_str()),
            ("127.0.0.1", 4318, "")
        );
        let e = parse_endpoint("http://collector/otlp/").unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.base.as_str()),
            ("collector", 80, "/otlp")
        );
        let e = parse_endpoint("otlp://localhost:9").unwrap();
        assert_eq!(e.port, 9);
        let e = parse_endpoint("https://x/otlp").unwrap();
        assert_eq!((e.https, e.port), (true, 443));
        assert_eq!(e.url("/v1/logs"), "https://x:443/otlp/v1/logs");
        assert!(parse_endpoint("localhost:4318").is_err());
        assert!(parse_endpoint("http://:4318").is_err());
        assert!(parse_endpoint("http://h:99999")
            .unwrap_err()
            .contains("port"));
        for bad in ["http://user@collector:4318", "http://a b:4318"] {
            assert!(parse_endpoint(bad).unwrap_err().contains("host"), "{bad}");
        }
    }

    /// An IPv6 host is written in brackets, with or without a port, and
    /// URLs name it so again.
    #[test]
    fn ipv6_endpoints() {
        let e = parse_endpoint("http://[::1]:4318").unwrap();
        assert_eq!((e.host.as_str(), e.port), ("::1", 4318));
        assert_eq!(e.url("/v1/logs"), "http://[::1]:4318/v1/logs");
        let e = parse_endpoint("http://[fe80::1]/otlp").unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.base.as_str()),
            ("fe80::1", 80, "/otlp")
        );
        assert!(parse_endpoint("http://[::1").unwrap_err().contains("host"));
        assert!(parse_endpoint("http://[::1]4318")
            .unwrap_err()
            .contains("port"));
        assert!(parse_endpoint("http://[]:4318").is_err());
    }

    /// `%XX` escapes are decoded; anything else, a `%` without two hex
    /// digits included, is kept as it is. (On a thread, bounded: a decoder
    /// that stops advancing must fail the test, not hang it.)
    #[test]
    fn escapes_decode_and_everything_else_is_kept() {
        super::super::stub::within("decode", || {
            assert_eq!(decode("a%3Db%2c"), "a=b,");
            for s in ["a12", "%4", "a%4", "50%", "%zz", "%", ""] {
                assert_eq!(decode(s), s);
            }
        });
    }

    /// Only HTTP tokens as names, no control characters in values: a
    /// CR/LF cannot start a header of its own.
    #[test]
    fn headers_that_would_break_the_request_are_refused() {
        assert_eq!(bad_header("x-api-key", "a b\tc"), None);
        assert!(bad_header("x-a", "1\r\nX-Injected: yes").is_some());
        assert!(bad_header("x-a", "1\n").is_some());
        assert!(bad_header("x a", "1").is_some());
        assert!(bad_header("x:a", "1").is_some());
        assert!(bad_header("", "1").is_some());
    }

    /// The per-signal variables, the timeouts in milliseconds and
    /// `OTEL_SDK_DISABLED`; a malformed value is warned about by name.
    #[test]
    fn otel_extras_are_read_through_the_lookup() {
        let vars = [
            ("OTEL_SDK_DISABLED", "TRUE"),
            ("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "2500"),
            ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://l:1/custom/logs"),
            ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "soon"),
            ("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "700"),
        ];
        let get = |k: &str| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        };
        let warnings = std::cell::RefCell::new(Vec::new());
        let x = read_otel(&get, &|w| warnings.borrow_mut().push(w.to_owned()));
        assert!(x.disabled && x.gzip);
        assert_eq!(x.timeout, Some(Duration::from_millis(2500)));
        assert_eq!(
            x.signals,
            [
                ("/v1/logs", Some("http://l:1/custom/logs".to_owned()), None),
                ("/v1/metrics", None, Some(Duration::from_millis(700))),
            ]
        );
        assert_eq!(
            warnings.into_inner(),
            ["OTEL_EXPORTER_OTLP_TRACES_TIMEOUT=\"soon\" is not a number of milliseconds; the default is used"]
        );
        // The specification's variables elide does not read: one warning
        // each, naming it, its value and what applies instead.
        let unread = [
            ("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_CLIENT_KEY", "/k.pem"),
        ];
        let get = |k: &str| {
            unread
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        };
        let warnings = std::cell::RefCell::new(Vec::new());
        read_otel(&get, &|w| warnings.borrow_mut().push(w.to_owned()));
        assert_eq!(
            warnings.into_inner(),
            [
                "OTEL_EXPORTER_OTLP_CLIENT_KEY=\"/k.pem\" is not read by elide's exporter; \
                 no client certificate is sent (no mutual TLS)",
                "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL=\"grpc\" is not read by elide's exporter; \
                 OTEL_EXPORTER_OTLP_PROTOCOL applies to every signal",
            ]
        );
        let none = read_otel(&|_| None, &|w| panic!("{w}"));
        assert_eq!(none, OtelExtra::default());
    }

    #[test]
    fn pairs() {
        super::super::stub::within("parse_pairs", || {
            let (ok, bad) = parse_pairs("a=1, b = x%20y ,broken,=v");
            assert_eq!(ok, [("a".into(), "1".into()), ("b".into(), "x y".into())]);
            assert_eq!(bad, ["broken", "=v"]);
        });
    }
}
