//! TLS for `https://` endpoints (cargo feature `otlp-tls`): rustls with
//! the pure-Rust `ring` provider, trusting either the system's root
//! certificates or the CA certificates of one PEM file
//! (`OTEL_EXPORTER_OTLP_CERTIFICATE`, [`certificate`]). Without the
//! feature the types exist but nothing can be built, so an `https://`
//! endpoint is refused when the sink is configured, naming the feature.
//!
//! [`certificate`]: crate::sink::OtlpSinkBuilder::certificate

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::path::Path;

/// A client configuration, shared by every request of one endpoint.
#[cfg(feature = "otlp-tls")]
pub(crate) type Config = std::sync::Arc<rustls::ClientConfig>;
/// Without the feature no configuration can exist.
#[cfg(not(feature = "otlp-tls"))]
pub(crate) type Config = std::convert::Infallible;

/// The configuration for an `https://` endpoint on `host`: the CA
/// certificates of the PEM file `ca` when one is given (they replace the
/// system's roots, as the OpenTelemetry SDKs do), else the system's root
/// certificates. A host no certificate can name (neither a DNS name nor an
/// IP address) is an error here, when the sink is built.
#[cfg(feature = "otlp-tls")]
pub(crate) fn config(ca: Option<&Path>, host: &str) -> Result<Config, String> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::CertificateDer;

    let mut roots = rustls::RootCertStore::empty();
    match ca {
        Some(path) => {
            let certs = CertificateDer::pem_file_iter(path)
                .and_then(|it| it.collect::<Result<Vec<_>, _>>())
                .map_err(|e| format!("CA certificate file {path:?}: {e}"))?;
            let (added, _) = roots.add_parsable_certificates(certs);
            if added == 0 {
                return Err(format!(
                    "CA certificate file {path:?} holds no usable certificate"
                ));
            }
        }
        None => {
            roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
            if roots.is_empty() {
                return Err("no system root certificates were found \
                            (OTEL_EXPORTER_OTLP_CERTIFICATE names a CA file)"
                    .into());
            }
        }
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    rustls::pki_types::ServerName::try_from(host).map_err(|e| format!("TLS: {host:?}: {e}"))?;
    Ok(std::sync::Arc::new(config))
}

/// Without the feature: the refusal, naming it.
#[cfg(not(feature = "otlp-tls"))]
pub(crate) fn config(_ca: Option<&Path>, _host: &str) -> Result<Config, String> {
    Err("https needs elide's `otlp-tls` cargo feature \
         (or send to a local collector over http://)"
        .into())
}

/// A byte stream to the collector: plain TCP or TLS over it.
pub(crate) trait Stream: Read + Write {}
impl<S: Read + Write> Stream for S {}

/// TLS over `tcp` to `host`, as `config` says. The handshake happens on
/// the first write or read, under the socket's timeouts.
#[cfg(feature = "otlp-tls")]
pub(crate) fn wrap(config: &Config, host: &str, tcp: TcpStream) -> io::Result<Box<dyn Stream>> {
    let name = rustls::pki_types::ServerName::try_from(host.to_owned())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("TLS: {e}")))?;
    let conn = rustls::ClientConnection::new(config.clone(), name)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    Ok(Box::new(rustls::StreamOwned::new(conn, tcp)))
}

#[cfg(not(feature = "otlp-tls"))]
pub(crate) fn wrap(config: &Config, _host: &str, _tcp: TcpStream) -> io::Result<Box<dyn Stream>> {
    match *config {}
}

/// A TLS failure that no retry mends (an unknown issuer, a name mismatch,
/// an expired certificate, a handshake the collector refuses), as its
/// message; `None` for anything else (a reset, a timeout: worth a retry).
#[cfg(feature = "otlp-tls")]
pub(crate) fn refusal(e: &io::Error) -> Option<String> {
    let tls = e.get_ref()?.downcast_ref::<rustls::Error>()?;
    Some(format!("TLS: {tls}"))
}

#[cfg(not(feature = "otlp-tls"))]
pub(crate) fn refusal(_e: &io::Error) -> Option<String> {
    None
}
