//! A minimal blocking HTTP/1.1 client for OTLP/HTTP: one `POST` per
//! connection (`Connection: close`), over plain TCP or, for `https://`
//! endpoints, TLS ([`tls`](super::tls), feature `otlp-tls`).
//!
//! Why not an HTTP crate: an exporter needs exactly one request shape, and
//! the usual clients bring an async runtime or TLS stack that `elide` users
//! who never export would still have to build under the `otlp` feature;
//! TLS is a stream under the same request, built only under `otlp-tls`.

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use super::tls;

/// Where and how to post: host, port, headers.
#[derive(Clone, Debug)]
pub(crate) struct Endpoint {
    pub(crate) host: String,
    pub(crate) port: u16,
    /// Path prefix (no trailing `/`), before `/v1/logs` etc.
    pub(crate) base: String,
    pub(crate) headers: Vec<(String, String)>,
    /// An `https://` URL: requests go over TLS with [`tls`](Self::tls).
    pub(crate) https: bool,
    /// The TLS configuration of an `https://` endpoint, made when the
    /// sink is built (so a bad CA file is an error then, not per request).
    pub(crate) tls: Option<tls::Config>,
}

/// Outcome of one request.
#[derive(Debug)]
pub(crate) enum Sent {
    Ok,
    /// Worth retrying, as the OTLP/HTTP specification lists: no
    /// connection, a timeout, 429, 502, 503, 504; with the delay the
    /// collector asked for in `Retry-After` (delay-seconds form).
    Retry(String, Option<Duration>),
    /// 413: the body is too large; half of it may pass.
    TooLarge(String),
    /// Not worth retrying: any other status (400, 500, ...).
    Refused(String),
}

impl Endpoint {
    /// The URL of a signal path, for messages.
    pub(crate) fn url(&self, path: &str) -> String {
        let scheme = if self.https { "https" } else { "http" };
        format!("{scheme}://{}{}{path}", self.authority(), self.base)
    }

    /// `host:port`, an IPv6 host in brackets (URLs and the `Host` header).
    fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// Posts a protobuf body to `<base><path>`, in `Content-Encoding`
    /// `encoding` when one is given.
    pub(crate) fn post(
        &self,
        path: &str,
        body: &[u8],
        encoding: Option<&str>,
        timeout: Duration,
    ) -> Sent {
        let why = |status| format!("HTTP status {status}");
        match self.try_post(path, body, encoding, timeout) {
            Ok((200..=299, _)) => Sent::Ok,
            Ok((s @ (429 | 502 | 503 | 504), after)) => Sent::Retry(why(s), after),
            Ok((s @ 413, _)) => Sent::TooLarge(why(s)),
            Ok((s, _)) => Sent::Refused(why(s)),
            // A socket timeout reads "Resource temporarily unavailable"
            // (EAGAIN) on Unix: say what happened instead.
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                Sent::Retry(format!("no answer within {timeout:?}"), None)
            }
            Err(e) => match tls::refusal(&e) {
                // A certificate the trusted roots do not vouch for stays
                // so: one clear failure, not retries until the deadline.
                Some(why) => Sent::Refused(why),
                None => Sent::Retry(e.to_string(), None),
            },
        }
    }

    /// The answer's status and `Retry-After` delay.
    fn try_post(
        &self,
        path: &str,
        body: &[u8],
        encoding: Option<&str>,
        timeout: Duration,
    ) -> io::Result<(u16, Option<Duration>)> {
        let addr = (self.host.as_str(), self.port)
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| io::Error::other(format!("{} resolves to no address", self.host)))?;
        let tcp = TcpStream::connect_timeout(&addr, timeout)?;
        tcp.set_read_timeout(Some(timeout))?;
        tcp.set_write_timeout(Some(timeout))?;
        tcp.set_nodelay(true)?;
        let mut s: Box<dyn tls::Stream> = match (&self.tls, self.https) {
            (Some(config), true) => tls::wrap(config, &self.host, tcp)?,
            (None, true) => {
                return Err(io::Error::other(
                    "https endpoint without a TLS configuration",
                ))
            }
            (_, false) => Box::new(tcp),
        };
        let encoding = encoding.map_or(String::new(), |e| format!("Content-Encoding: {e}\r\n"));
        let mut head = format!(
            "POST {}{path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/x-protobuf\r\n\
             Content-Length: {}\r\nConnection: close\r\n{encoding}",
            self.base,
            self.authority(),
            body.len()
        );
        for (k, v) in &self.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        s.write_all(head.as_bytes())?;
        s.write_all(body)?;
        s.flush()?;
        // The status line is all we need; read to the end so the collector
        // is not reset mid-response.
        let mut resp = Vec::with_capacity(256);
        let read = s.take(64 * 1024).read_to_end(&mut resp);
        let line = resp.split(|b| *b == b'\n').next().unwrap_or(&[]);
        let line = String::from_utf8_lossy(line);
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse::<u16>().ok())
            .filter(|_| line.starts_with("HTTP/1."));
        match (status, read) {
            (Some(status), _) => Ok((status, retry_after(&resp))),
            // No status line, and the read failed: say why (a timeout, a
            // reset), not that the answer is malformed.
            (None, Err(e)) => Err(e),
            (None, _) => Err(io::Error::other(format!(
                "malformed HTTP response {:?}",
                line.trim()
            ))),
        }
    }
}

/// The `Retry-After` header's delay, in its delay-seconds form (an
/// HTTP-date is left to the exporter's own backoff).
fn retry_after(resp: &[u8]) -> Option<Duration> {
    let text = String::from_utf8_lossy(resp);
    let head = text.split("\r\n\r\n").next().unwrap_or("");
    head.lines().skip(1).find_map(|line| {
        let (name, value) = line.split_once(':')?;
        if !name.trim().eq_ignore_ascii_case("retry-after") {
            return None;
        }
        value.trim().parse::<u64>().ok().map(Duration::from_secs)
    })
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{Shutdown, TcpListener, TcpStream};
    use std::time::Duration;

    use super::super::stub::{Stub, PATIENCE};
    use super::{Endpoint, Sent};

    const TIMEOUT: Duration = Duration::from_secs(10);

    fn kind(s: &Sent) -> &'static str {
        match s {
            Sent::Ok => "ok",
            Sent::Retry(..) => "retry",
            Sent::TooLarge(_) => "too large",
            Sent::Refused(_) => "refused",
        }
    }

    /// Reads a request with a one-byte body (so closing the connection
    /// leaves nothing unread: no reset).
    fn read_request(c: TcpStream) -> TcpStream {
        c.set_read_timeout(Some(PATIENCE)).unwrap();
        let mut r = BufReader::new(c);
        let mut line = String::new();
        while line != "\r\n" {
            line.clear();
            r.read_line(&mut line).unwrap();
        }
        r.read_exact(&mut [0; 1]).unwrap();
        r.into_inner()
    }

    /// 2xx is sent; 429, 502, 503 and 504 are worth a retry (the OTLP
    /// specification's list); 413 asks for a smaller body; other statuses,
    /// 500 included, are a refusal.
    #[test]
    fn the_status_decides_sent_retry_or_refused() {
        let stub = Stub::start();
        let ep = stub.endpoint();
        for (status, want) in [
            (200, "ok"),
            (204, "ok"),
            (429, "retry"),
            (502, "retry"),
            (503, "retry"),
            (504, "retry"),
            (500, "refused"),
            (501, "refused"),
            (413, "too large"),
            (400, "refused"),
            (404, "refused"),
            (499, "refused"),
        ] {
            stub.set(|s| s.status = status);
            let got = ep.post("/v1/logs", b"x", None, TIMEOUT);
            assert_eq!(kind(&got), want, "{status}: {got:?}");
            if let Sent::Retry(why, _) | Sent::Refused(why) | Sent::TooLarge(why) = got {
                assert_eq!(why, format!("HTTP status {status}"));
            }
        }
    }

    /// `Retry-After` in seconds comes back with the retry, whatever the
    /// header's case; a date (or no header) leaves the delay to the
    /// exporter.
    #[test]
    fn retry_after_seconds_are_read() {
        let stub = Stub::start();
        let ep = stub.endpoint();
        for (extra, want) in [
            ("Retry-After: 7\r\n", Some(Duration::from_secs(7))),
            ("retry-after:  2 \r\n", Some(Duration::from_secs(2))),
            ("Retry-After: Wed, 21 Oct 2015 07:28:00 GMT\r\n", None),
            ("", None),
        ] {
            stub.set(|s| {
                s.status = 429;
                s.extra = extra.to_owned();
            });
            match ep.post("/v1/logs", b"x", None, TIMEOUT) {
                Sent::Retry(_, after) => assert_eq!(after, want, "{extra:?}"),
                other => panic!("{other:?}"),
            }
        }
    }

    /// One POST to the base path plus the signal's, with the protobuf
    /// content type, the body's length, the configured headers, the body.
    #[test]
    fn the_request_carries_path_headers_and_body() {
        let stub = Stub::start();
        let mut ep =
            super::super::config::parse_endpoint(&format!("{}/otlp/", stub.url())).unwrap();
        ep.headers.push(("x-api-key".into(), "k1".into()));
        assert!(matches!(
            ep.post("/v1/traces", &[0, 1, 255], None, TIMEOUT),
            Sent::Ok
        ));
        let s = stub.state();
        let r = &s.requests[0];
        assert_eq!(r.path, "/otlp/v1/traces");
        assert!(
            r.head.starts_with("POST /otlp/v1/traces HTTP/1.1\r\n"),
            "{}",
            r.head
        );
        for h in [
            "Content-Type: application/x-protobuf\r\n",
            "Content-Length: 3\r\n",
            "x-api-key: k1\r\n",
        ] {
            assert!(r.head.contains(h), "{h:?} in {}", r.head);
        }
        assert_eq!(r.body, [0, 1, 255]);
    }

    /// A server that does not answer HTTP, or no server at all: retry.
    #[test]
    fn no_collector_or_no_http_answer_is_worth_a_retry() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let (c, _) = l.accept().unwrap();
            let mut c = read_request(c);
            let _ = c.write_all(b"SSH-2.0-OpenSSH\r\n");
        });
        let ep = Endpoint {
            host: "127.0.0.1".into(),
            port,
            base: String::new(),
            headers: Vec::new(),
            https: false,
            tls: None,
        };
        match ep.post("/v1/logs", b"x", None, TIMEOUT) {
            Sent::Retry(why, _) => assert!(why.contains("malformed HTTP response"), "{why}"),
            other => panic!("{other:?}"),
        }
        // A collector that takes the request and never answers: the
        // reason is the timeout, not a malformed answer.
        let silent = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = silent.local_addr().unwrap().port();
        let (hold_tx, hold_rx) = std::sync::mpsc::channel::<()>();
        let holder = std::thread::spawn(move || {
            let (c, _) = silent.accept().unwrap();
            let c = read_request(c);
            let _ = hold_rx.recv_timeout(PATIENCE);
            drop(c);
        });
        let quick = Duration::from_millis(200);
        match (Endpoint { port, ..ep.clone() }).post("/v1/logs", b"x", None, quick) {
            Sent::Retry(why, _) => assert_eq!(why, "no answer within 200ms"),
            other => panic!("{other:?}"),
        }
        drop(hold_tx);
        holder.join().unwrap();
        let closed = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        match (Endpoint { port, ..ep }).post("/v1/logs", b"x", None, TIMEOUT) {
            Sent::Retry(..) => {}
            other => panic!("{other:?}"),
        }
    }

    /// The client reads the whole answer before closing, so the collector
    /// sees an orderly close rather than a reset in the middle of its
    /// answer.
    #[test]
    fn the_whole_answer_is_read_before_the_connection_closes() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (c, _) = l.accept().unwrap();
            let mut c = read_request(c);
            let answer = [
                &b"HTTP/1.1 200 OK\r\nContent-Length: 8192\r\n\r\n"[..],
                &[b'.'; 8192],
            ]
            .concat();
            c.write_all(&answer).unwrap();
            c.shutdown(Shutdown::Write).unwrap();
            // An orderly close reads as the end; a reset as an error.
            let _ = tx.send(c.read(&mut [0; 16]).map_err(|e| e.kind()));
        });
        let ep = Endpoint {
            host: "127.0.0.1".into(),
            port,
            base: String::new(),
            headers: Vec::new(),
            https: false,
            tls: None,
        };
        assert!(matches!(ep.post("/v1/logs", b"x", None, TIMEOUT), Sent::Ok));
        assert_eq!(rx.recv_timeout(PATIENCE).unwrap(), Ok(0));
    }
}
