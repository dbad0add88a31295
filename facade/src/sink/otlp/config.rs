//! OTLP exporter settings from the standard `OTEL_*` variables, and the
//! endpoint URL syntax.

use super::http::Endpoint;

/// The default OTLP/HTTP endpoint.
pub const DEFAULT_ENDPOINT: &str = "http://localhost:4318";

/// Parses `http://host[:port][/prefix]` (port 80 if absent). Anything else
/// (`https://`, no scheme, a bad port) is an error naming the problem.
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
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || authority.starts_with('[') => {
            let port = p.parse::<u16>().map_err(|_| format!("bad port {p:?}"))?;
            (h, port)
        }
        _ => (authority, 80),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
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
    }

    #[test]
    fn pairs() {
        let (ok, bad) = parse_pairs("a=1, b = x%20y ,broken,=v");
        assert_eq!(ok, [("a".into(), "1".into()), ("b".into(), "x y".into())]);
        assert_eq!(bad, ["broken", "=v"]);
    }
}
