//! `OtlpSink` to an `https://` endpoint (feature `otlp-tls`): a TLS server
//! made here (rustls, with a CA and a server certificate made by rcgen in
//! the test) in front of the loopback receiver (`otlp_receiver.rs`), or in
//! front of rotel when `ELIDE_ROTEL` names its binary (rotel's receiver
//! speaks plain HTTP only, so TLS ends here and rotel forwards to the
//! receiver). Run with
//! `cargo test -p elide-tests --features otlp-tls --test otlp_tls`.
//!
//! The environment cases run this test binary again as a child (the
//! `child` test, with `ELIDE_TLS_CHILD` set), so that the `OTEL_*`
//! variables are read at its start as a user's program reads them.

#![cfg(feature = "otlp-tls")]

mod otlp_receiver;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use elide::sink::OtlpSink;
use elide::{LevelFilter, Sink};
use elide_tests::{serial, Scratch};
use otlp_receiver::{Received, Receiver};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A CA and a server certificate it signed for `localhost` and
/// `127.0.0.1`; the CA's PEM file in `dir`.
struct Pki {
    ca_file: PathBuf,
    chain: Vec<CertificateDer<'static>>,
    key: Vec<u8>,
}

impl Pki {
    fn make(dir: &Path, name: &str) -> Pki {
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(rcgen::DnType::CommonName, format!("elide test CA {name}"));
        let ca_cert = ca.self_signed(&ca_key).unwrap();
        let issuer = rcgen::Issuer::new(ca, ca_key);
        let key = rcgen::KeyPair::generate().unwrap();
        let server =
            rcgen::CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
                .unwrap()
                .signed_by(&key, &issuer)
                .unwrap();
        let ca_file = dir.join(format!("{name}-ca.pem"));
        std::fs::write(&ca_file, ca_cert.pem()).unwrap();
        Pki {
            ca_file,
            chain: vec![server.der().clone(), ca_cert.der().clone()],
            key: key.serialize_der(),
        }
    }
}

/// Reads one HTTP message (head and `Content-Length` body) from `r`;
/// `None` at the end of the stream.
fn read_message(r: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut msg = Vec::new();
    let mut len = 0usize;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap();
            }
        }
        msg.extend_from_slice(line.as_bytes());
        if line == "\r\n" {
            break;
        }
    }
    let at = msg.len();
    msg.resize(at + len, 0);
    r.read_exact(&mut msg[at..]).ok()?;
    Some(msg)
}

/// A TLS server on loopback that ends TLS and passes each request to
/// `upstream` (plain HTTP), and its answer back. Returns its port.
fn tls_front(pki: &Pki, upstream: u16) -> u16 {
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(pki.key.clone()));
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(pki.chain.clone(), key)
        .unwrap();
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let config = config.clone();
            std::thread::spawn(move || {
                conn.set_read_timeout(Some(Duration::from_secs(10)))
                    .unwrap();
                let tls = rustls::ServerConnection::new(config).unwrap();
                let mut client = BufReader::new(rustls::StreamOwned::new(tls, conn));
                // A client that refuses the certificate ends here.
                let Some(request) = read_message(&mut client) else {
                    return;
                };
                let mut up = TcpStream::connect(("127.0.0.1", upstream)).unwrap();
                up.write_all(&request).unwrap();
                let answer = read_message(&mut BufReader::new(up)).unwrap_or_default();
                let tls = client.get_mut();
                let _ = tls.write_all(&answer);
                tls.conn.send_close_notify();
                let _ = tls.flush();
            });
        }
    });
    port
}

/// Log records of the `elide_tls` test whose message starts with `what`.
fn count(got: &Mutex<Received>, what: &str) -> usize {
    let g = got.lock().unwrap();
    g.logs
        .iter()
        .filter(
            |(_, r)| match r.body.as_ref().and_then(|b| b.value.as_ref()) {
                Some(opentelemetry_proto::tonic::common::v1::any_value::Value::StringValue(s)) => {
                    s.starts_with(what)
                }
                _ => false,
            },
        )
        .count()
}

fn install(sink: &Arc<OtlpSink>) {
    elide::set_sinks([sink.clone() as Arc<dyn Sink>]);
    elide::set_level(LevelFilter::Info);
}

/// An `https://` endpoint whose certificate the given CA signed: every
/// record arrives, through TLS, and is counted as exported.
#[test]
fn an_https_endpoint_exports_through_tls() {
    let _g = serial();
    let dir = Scratch::dir("tls-ok");
    let pki = Pki::make(&dir, "ok");
    let rx = Receiver::start(0, Arc::default());
    let front = tls_front(&pki, rx.port);
    let sink = Arc::new(
        OtlpSink::builder(&format!("https://localhost:{front}"))
            .certificate(&pki.ca_file)
            .batch_size(100)
            .build()
            .unwrap(),
    );
    assert_eq!(sink.endpoint(), format!("https://localhost:{front}"));
    install(&sink);
    for i in 0..500 {
        elide::info!(i, "tls record {i}");
    }
    elide::flush();
    elide::set_sinks([]);
    let stats = sink.stats();
    assert_eq!((stats.logs, stats.failed, stats.dropped), (500, 0, 0));
    assert_eq!(count(&rx.got, "tls record "), 500);
    rx.stop();
}

/// A CA file that does not exist, or holds no certificate, fails the build
/// with an error naming the file, and so does a host that is no DNS name
/// or IP address: no exporter that can never send.
#[test]
fn an_unusable_ca_file_fails_the_build() {
    let dir = Scratch::dir("tls-bad-file");
    let empty = dir.join("empty.pem");
    std::fs::write(&empty, "not a certificate\n").unwrap();
    for file in [dir.join("missing.pem"), empty] {
        let e = OtlpSink::builder("https://localhost:4318")
            .certificate(&file)
            .build()
            .unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains(&*file.to_string_lossy()), "{e}");
    }
    // A host no certificate can name: said at build, not per request.
    let e = OtlpSink::builder("https://a..b:4318").build().unwrap_err();
    assert!(e.to_string().contains("TLS: \"a..b\""), "{e}");
}

/// Runs this binary's `child` test with `vars` and returns its stderr.
fn run_child(vars: &[(&str, String)]) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child", "--nocapture", "--test-threads", "1"])
        .env("ELIDE_TLS_CHILD", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let mut c = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while c.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the child hung");
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = c.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    stderr
}

/// The child: an exporter from the `OTEL_*` variables, 200 records, the
/// exporter's counters on stderr (`stats logs failed dropped`).
#[test]
fn child() {
    if std::env::var_os("ELIDE_TLS_CHILD").is_none() {
        return;
    }
    let sink = Arc::new(
        OtlpSink::builder_from_env(None)
            .batch_size(50)
            // Long: a refusal must fail at once, not after retries.
            .retry_for(Duration::from_secs(60))
            .build()
            .unwrap(),
    );
    install(&sink);
    for i in 0..200 {
        elide::info!(i, "env record {i}");
    }
    elide::flush();
    elide::set_sinks([]);
    let s = sink.stats();
    eprintln!("stats {} {} {}", s.logs, s.failed, s.dropped);
}

fn stats_line(stderr: &str) -> (u64, u64, u64) {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("stats "))
        .unwrap_or_else(|| panic!("{stderr}"));
    let n: Vec<u64> = line.split(' ').map(|n| n.parse().unwrap()).collect();
    (n[0], n[1], n[2])
}

/// `OTEL_EXPORTER_OTLP_CERTIFICATE` names the CA an `https://` endpoint is
/// checked against; a certificate another CA signed fails at once, every
/// record counted as failed (not retried for a minute, not dropped), and
/// said once, naming TLS and the reason.
#[test]
fn otel_certificate_is_the_trusted_ca_and_a_wrong_one_fails_once() {
    let _g = serial();
    let dir = Scratch::dir("tls-env");
    let (good, other) = (Pki::make(&dir, "good"), Pki::make(&dir, "other"));
    let rx = Receiver::start(0, Arc::default());
    let front = tls_front(&good, rx.port);
    let endpoint = format!("https://127.0.0.1:{front}");
    let base = |ca: &Pki| {
        vec![
            ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.clone()),
            (
                "OTEL_EXPORTER_OTLP_CERTIFICATE",
                ca.ca_file.display().to_string(),
            ),
        ]
    };
    let ok = run_child(&base(&good));
    assert_eq!(stats_line(&ok), (200, 0, 0), "{ok}");
    assert_eq!(count(&rx.got, "env record "), 200);

    let wrong = run_child(&base(&other));
    assert_eq!(stats_line(&wrong), (0, 200, 0), "{wrong}");
    let reports: Vec<&str> = wrong
        .lines()
        .filter(|l| l.starts_with("elide: OTLP export to "))
        .collect();
    assert_eq!(reports.len(), 1, "{wrong}");
    assert!(
        reports[0].contains("TLS: invalid peer certificate: UnknownIssuer"),
        "{wrong}"
    );
    assert_eq!(count(&rx.got, "env record "), 200);

    // A per-signal endpoint takes its own CA file before the base one.
    let mut per_signal = base(&other);
    per_signal.push((
        "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
        format!("{endpoint}/v1/logs"),
    ));
    per_signal.push((
        "OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE",
        good.ca_file.display().to_string(),
    ));
    let ok = run_child(&per_signal);
    assert_eq!(stats_line(&ok), (200, 0, 0), "{ok}");
    assert_eq!(count(&rx.got, "env record "), 400);
    rx.stop();
}

/// Through rotel (when `ELIDE_ROTEL` names it): TLS in front of rotel's
/// OTLP/HTTP receiver, rotel forwarding to the loopback receiver; every
/// record arrives.
#[test]
fn an_https_endpoint_exports_to_rotel() {
    let Some(bin) = std::env::var_os("ELIDE_ROTEL").map(PathBuf::from) else {
        println!("skipped: ELIDE_ROTEL is unset (ELIDE_ROTEL=$(.ci/rotel-venv) runs this test)");
        return;
    };
    let _g = serial();
    let dir = Scratch::dir("tls-rotel");
    let pki = Pki::make(&dir, "rotel");
    let rx = Receiver::start(0, Arc::default());
    let free = || {
        TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    };
    let port = free();
    let _rotel = KillOnDrop(
        Command::new(bin)
            .args(["start", "--otlp-http-endpoint"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--otlp-grpc-endpoint")
            .arg(format!("127.0.0.1:{}", free()))
            .args(["--exporter", "otlp", "--otlp-exporter-protocol", "http"])
            .args(["--batch-timeout", "100ms", "--otlp-exporter-endpoint"])
            .arg(rx.endpoint())
            .arg("--pid-file")
            .arg(dir.join("rotel.pid"))
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "rotel does not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
    let front = tls_front(&pki, port);
    let sink = Arc::new(
        OtlpSink::builder(&format!("https://localhost:{front}"))
            .certificate(&pki.ca_file)
            .build()
            .unwrap(),
    );
    install(&sink);
    for i in 0..300 {
        elide::info!(i, "rotel tls {i}");
    }
    elide::flush();
    elide::set_sinks([]);
    assert_eq!(sink.stats().logs, 300);
    let deadline = Instant::now() + Duration::from_secs(30);
    while count(&rx.got, "rotel tls ") < 300 {
        assert!(
            Instant::now() < deadline,
            "rotel did not forward every record"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    rx.stop();
}

/// A child process, ended when the test ends (a failing one included).
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
