//! The OTLP exporter's settings from the environment snapshot: the
//! standard `OTEL_*` variables of the key table, so
//! [`describe`](crate::describe) shows them and
//! [`reload_from_env`](crate::reload_from_env) re-reads them with the rest.

use crate::config;
use crate::config::env::keys::{
    Key, OTEL_ENDPOINT, OTEL_HEADERS, OTEL_PROTOCOL, OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME,
};
use crate::config::env::{self, EnvSnapshot};
use crate::sink::otlp::{builder_from_vars, read_otel, warn, OtelVars};
use crate::sink::{OtlpSink, OtlpSinkBuilder};

/// The `OTEL_*` settings in `snap`: blank variables are unset; a protocol
/// other than `http/protobuf` gets one warning (the exporter speaks only
/// that one).
pub(crate) fn vars(snap: &EnvSnapshot) -> OtelVars {
    let protocol = OTEL_PROTOCOL.resolve(snap, &[], &snap.ctx(), "http/protobuf".into());
    env::report(&protocol);
    let get = |key: &Key<String>| {
        let d = key.resolve(snap, &[], &snap.ctx(), String::new());
        (d.origin != env::Origin::Default).then_some((key.name, d.value))
    };
    OtelVars {
        endpoint: get(&OTEL_ENDPOINT).map(|(_, v)| v),
        headers: get(&OTEL_HEADERS),
        resource_attributes: get(&OTEL_RESOURCE_ATTRIBUTES),
        service_name: get(&OTEL_SERVICE_NAME).map(|(_, v)| v),
        extra: read_otel(
            &|name| {
                snap.get(name)
                    .map(|v| v.to_string_lossy().into_owned())
                    .filter(|v| !v.trim().is_empty())
            },
            &warn,
        ),
    }
}

/// The builder of an `otlp` target, from the process's snapshot: the
/// `OTEL_*` variables and `LOG_OTLP_ATTRS`.
pub(crate) fn builder(endpoint: Option<&str>) -> OtlpSinkBuilder {
    let cfg = config::read();
    let snap = cfg.snapshot();
    let attrs = env::otlp_attrs(snap, cfg.root().as_deref());
    env::report(&attrs);
    let (code, thread) = extra(&attrs.value);
    builder_from_vars(endpoint, vars(snap), warn)
        .code_attributes(code)
        .thread_attributes(thread)
}

/// `LOG_OTLP_ATTRS`'s parsed value: (code, thread).
fn extra(value: &str) -> (bool, bool) {
    let has = |w| value.split(',').any(|v| v == w);
    (has("code"), has("thread"))
}

impl OtlpSink {
    /// A builder from the standard variables, as elide's environment
    /// snapshot holds them (read at [`init`](crate::init) or the first
    /// site, again at [`reload_from_env`](crate::reload_from_env)):
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` (default
    /// [`OTLP_DEFAULT_ENDPOINT`](crate::sink::OTLP_DEFAULT_ENDPOINT); `endpoint`
    /// overrides it), `OTEL_EXPORTER_OTLP_PROTOCOL` (only `http/protobuf`;
    /// another value gives a warning and http/protobuf is used),
    /// `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME` and
    /// `OTEL_RESOURCE_ATTRIBUTES` (`k=v,..`; malformed items are warned
    /// about and skipped), the other `OTEL_EXPORTER_OTLP_*` variables of the
    /// guide's table, and `LOG_OTLP_ATTRS` (`code`, `thread`: the
    /// [`code_attributes`](OtlpSinkBuilder::code_attributes) and
    /// [`thread_attributes`](OtlpSinkBuilder::thread_attributes) options).
    pub fn builder_from_env(endpoint: Option<&str>) -> OtlpSinkBuilder {
        super::ensure();
        builder(endpoint)
    }

    /// [`builder_from_env(None)`](Self::builder_from_env), built. A
    /// malformed endpoint gives one warning on stderr (naming the variable,
    /// the value and that no exporter is installed) and `None`.
    pub fn from_env() -> Option<OtlpSink> {
        OtlpSink::builder_from_env(None).build_or_warn(OTEL_ENDPOINT.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(vars: &[(&str, &str)]) -> EnvSnapshot {
        EnvSnapshot::from_vars(vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).into())))
    }

    /// Each variable reaches its setting, with the name for warnings.
    #[test]
    fn the_otel_variables_reach_the_exporters_settings() {
        let v = vars(&snap(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", " http://collector:4318 "),
            ("OTEL_EXPORTER_OTLP_HEADERS", "k=v"),
            ("OTEL_RESOURCE_ATTRIBUTES", "a=b"),
            ("OTEL_SERVICE_NAME", "checkout"),
        ]));
        assert_eq!(v.endpoint.as_deref(), Some("http://collector:4318"));
        assert_eq!(
            v.headers,
            Some(("OTEL_EXPORTER_OTLP_HEADERS", "k=v".into()))
        );
        assert_eq!(
            v.resource_attributes,
            Some(("OTEL_RESOURCE_ATTRIBUTES", "a=b".into()))
        );
        assert_eq!(v.service_name.as_deref(), Some("checkout"));
    }

    /// Every `OTEL_*` variable of the key table (the guide's table) reaches
    /// the exporter's settings through the environment snapshot, the path
    /// a program takes: none is dropped on the way.
    #[test]
    fn every_otel_variable_of_the_table_reaches_the_exporter() {
        use crate::config::env::keys::KEYS;
        use crate::sink::otlp::OtelExtra;
        use std::time::Duration;
        let set = [
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:1"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "k=v"),
            ("OTEL_SERVICE_NAME", "svc"),
            ("OTEL_RESOURCE_ATTRIBUTES", "a=b"),
            ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://l:2/logs"),
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://t:3/traces"),
            ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://m:4/metrics"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "1500"),
            ("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", "100"),
            ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "200"),
            ("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "300"),
            ("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"),
            ("OTEL_EXPORTER_OTLP_CERTIFICATE", "/ca.pem"),
            ("OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE", "/l.pem"),
            ("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", "/t.pem"),
            ("OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE", "/m.pem"),
            ("OTEL_SDK_DISABLED", "true"),
        ];
        for k in KEYS.iter().filter(|k| k.name().starts_with("OTEL_")) {
            assert!(
                set.iter().any(|(n, _)| *n == k.name()),
                "{} is not checked here",
                k.name()
            );
        }
        let v = vars(&snap(&set));
        assert_eq!(v.endpoint.as_deref(), Some("http://base:1"));
        assert_eq!(v.headers.map(|h| h.1).as_deref(), Some("k=v"));
        assert_eq!(v.resource_attributes.map(|h| h.1).as_deref(), Some("a=b"));
        assert_eq!(v.service_name.as_deref(), Some("svc"));
        let ms = |n| Some(Duration::from_millis(n));
        assert_eq!(
            v.extra,
            OtelExtra {
                disabled: true,
                timeout: ms(1500),
                signals: vec![
                    ("/v1/logs", Some("http://l:2/logs".into()), ms(100)),
                    ("/v1/traces", Some("http://t:3/traces".into()), ms(200)),
                    ("/v1/metrics", Some("http://m:4/metrics".into()), ms(300)),
                ],
                gzip: true,
                certificate: Some("/ca.pem".into()),
                signal_certificates: vec![
                    ("/v1/logs", "/l.pem".into()),
                    ("/v1/traces", "/t.pem".into()),
                    ("/v1/metrics", "/m.pem".into()),
                ],
            }
        );
    }

    /// The exporter's variables elide does not read stay in the snapshot,
    /// so the exporter can name them in its warning.
    #[test]
    fn unread_exporter_variables_are_kept_to_be_warned_about() {
        let s = snap(&[
            ("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "grpc"),
            ("OTEL_UNRELATED", "x"),
        ]);
        assert!(s.get("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL").is_some());
        assert!(s.get("OTEL_UNRELATED").is_none());
    }

    /// `LOG_OTLP_ATTRS` names the extra attributes (any order and case,
    /// `all`, `none`); another word is rejected with a warning and none
    /// are added.
    #[test]
    fn log_otlp_attrs_turns_on_code_and_thread_attributes() {
        use crate::config::env::keys::LOG_OTLP_ATTRS;
        let read = |v: &str| {
            let s = snap(&[("RADICAL_DEFAULT_LOG_OTLP_ATTRS", v)]);
            let d = LOG_OTLP_ATTRS.resolve(&s, &[], &s.ctx(), "none".into());
            (extra(&d.value), d.warnings().len())
        };
        assert_eq!(read("code"), ((true, false), 0));
        assert_eq!(read(" Thread "), ((false, true), 0));
        assert_eq!(read("thread,code"), ((true, true), 0));
        assert_eq!(read("all"), ((true, true), 0));
        assert_eq!(read("none"), ((false, false), 0));
        assert_eq!(read("lines"), ((false, false), 1));
    }

    /// A blank variable counts as unset.
    #[test]
    fn blank_otel_variables_are_unset() {
        let v = vars(&snap(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", " "),
            ("OTEL_SERVICE_NAME", ""),
        ]));
        assert_eq!((v.endpoint, v.service_name), (None, None));
    }

    /// Only `http/protobuf` is spoken: another protocol is rejected with
    /// the standard warning, naming the fallback.
    #[test]
    fn an_unsupported_protocol_is_warned_about() {
        let s = snap(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]);
        let d = OTEL_PROTOCOL.resolve(&s, &[], &s.ctx(), "http/protobuf".into());
        let w = d.warnings();
        assert_eq!(w.len(), 1);
        assert!(
            w[0].to_string().contains(
                "ignoring OTEL_EXPORTER_OTLP_PROTOCOL=\"grpc\": not supported (elide's \
                 exporter speaks http/protobuf only); using http/protobuf (the built-in default)"
            ),
            "{}",
            w[0]
        );
        let s = snap(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")]);
        let d = OTEL_PROTOCOL.resolve(&s, &[], &s.ctx(), "http/protobuf".into());
        assert!(d.warnings().is_empty());
    }
}
