//! OTLP exporter settings from the standard `OTEL_*` variables, and the
//! endpoint URL syntax.

use super::http::Endpoint;

/// The default OTLP/HTTP endpoint.
pub const DEFAULT_ENDPOINT: &str = "http://localhost:4318";

/// Parses `http://host[:port][/prefix]` (port 80 if absent; an IPv6 host
/// in brackets). Anything else (`https://`, no scheme, a bad port) is an
/// error naming the problem.
pub(crate) fn parse_endpoint(url: &str) -> Result<Endpoint, String> {
    let url = url.trim();
    let rest = if let Some(r) = url.strip_prefix("http://") {
        r
    } else if url.starts_with("https://") {
        return Err("https is not supported (no TLS in elide's exporter): send to a local collector over http://".into());
    } else if let Some(r) = url.strip_prefix("otlp://") {
        r
    } else {
        return Err("expected http://host[:port]".into());
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], rest[i..].trim_end_matches('/')),
        None => (rest, ""),
    };
    let port = |p: &str| p.parse::<u16>().map_err(|_| format!("bad port {p:?}"));
    let (host, port) = match authority.strip_prefix('[') {
        // An IPv6 literal, `[addr]` or `[addr]:port`: its colons are not
        // the port's.
        Some(v6) => match v6.split_once(']') {
            Some((host, "")) => (host, 80),
            Some((host, rest)) => match rest.strip_prefix(':') {
                Some(p) => (host, port(p)?),
                None => return Err(format!("bad port {rest:?}")),
            },
            None => return Err(format!("bad host {authority:?}")),
        },
        None => match authority.rsplit_once(':') {
            Some((host, p)) => (host, port(p)?),
            None => (authority, 80),
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
        assert!(parse_endpoint("https://x:4318")
            .unwrap_err()
            .contains("https"));
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

    #[test]
    fn pairs() {
        super::super::stub::within("parse_pairs", || {
            let (ok, bad) = parse_pairs("a=1, b = x%20y ,broken,=v");
            assert_eq!(ok, [("a".into(), "1".into()), ("b".into(), "x y".into())]);
            assert_eq!(bad, ["broken", "=v"]);
        });
    }
}
