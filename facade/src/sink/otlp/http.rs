//! A minimal blocking HTTP/1.1 client for OTLP/HTTP: one `POST` per
//! connection (`Connection: close`), plain TCP only.
//!
//! Why not an HTTP crate: an exporter needs exactly one request shape, and
//! the usual clients bring an async runtime or TLS stack that `elide` users
//! who never export would still have to build under the `otlp` feature.
//! No TLS: `https://` endpoints are refused when the sink is configured
//! (send to a local collector, which forwards securely).

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// Where and how to post: host, port, headers.
#[derive(Clone, Debug)]
pub(crate) struct Endpoint {
    pub(crate) host: String,
    pub(crate) port: u16,
    /// Path prefix (no trailing `/`), before `/v1/logs` etc.
    pub(crate) base: String,
    pub(crate) headers: Vec<(String, String)>,
}

/// Outcome of one request.
#[derive(Debug)]
pub(crate) enum Sent {
    Ok,
    /// Worth retrying: no connection, a timeout, 429 or 5xx.
    Retry(String),
    /// Not worth retrying: the collector refused the request (4xx).
    Refused(String),
}

impl Endpoint {
    /// The URL of a signal path, for messages.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}:{}{}{path}", self.host, self.port, self.base)
    }

    /// Posts a protobuf body to `<base><path>`.
    pub(crate) fn post(&self, path: &str, body: &[u8], timeout: Duration) -> Sent {
        match self.try_post(path, body, timeout) {
            Ok(status) if (200..300).contains(&status) => Sent::Ok,
            Ok(status) if status == 429 || status >= 500 => {
                Sent::Retry(format!("HTTP status {status}"))
            }
            Ok(status) => Sent::Refused(format!("HTTP status {status}")),
            Err(e) => Sent::Retry(e.to_string()),
        }
    }

    fn try_post(&self, path: &str, body: &[u8], timeout: Duration) -> io::Result<u16> {
        let addr = (self.host.as_str(), self.port)
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| io::Error::other(format!("{} resolves to no address", self.host)))?;
        let mut s = TcpStream::connect_timeout(&addr, timeout)?;
        s.set_read_timeout(Some(timeout))?;
        s.set_write_timeout(Some(timeout))?;
        s.set_nodelay(true)?;
        let mut head = format!(
            "POST {}{path} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/x-protobuf\r\n\
             Content-Length: {}\r\nConnection: close\r\n",
            self.base,
            self.host,
            self.port,
            body.len()
        );
        for (k, v) in &self.headers {
            head.push_str(k);
            head.push_str(": ");
            head.push_str(v);
            head.push_str("\r\n");
        }
        head.push_str("\r\n");
        s.write_all(head.as_bytes())?;
        s.write_all(body)?;
        s.flush()?;
        // The status line is all we need; read to the end so the collector
        // is not reset mid-response.
        let mut resp = Vec::with_capacity(256);
        let _ = s.take(64 * 1024).read_to_end(&mut resp);
        let line = resp.split(|b| *b == b'\n').next().unwrap_or(&[]);
        let line = String::from_utf8_lossy(line);
        line.split_whitespace()
            .nth(1)
            .and_then(|c| c.parse::<u16>().ok())
            .filter(|_| line.starts_with("HTTP/1."))
            .ok_or_else(|| io::Error::other(format!("malformed HTTP response {:?}", line.trim())))
    }
}
