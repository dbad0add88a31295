//! The one table of environment keys: each key elide reads is declared here
//! once, with its name, where it is looked up, its parser and its
//! documentation. The snapshot keeps the variables of these keys, the
//! lookups name them through these statics, [`describe`](crate::describe)
//! shows them, the fuzz hook runs their parsers, and the guide's table of
//! variables is rendered from them (a test holds the guide to it).

use std::fmt;
use std::path::{Path, PathBuf};

use super::lookup::{cascade, default_var, resolve, Decided};
use super::parse::{
    parse_dir, parse_flag, parse_host, parse_level, parse_log_format, parse_log_mode,
    parse_profile_name, parse_targets, LogFormat, LogMode, Targets,
};
use super::{EnvSnapshot, Shown};
use crate::record::level::LevelFilter;

/// Where a key's variables are looked up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Per namespace: the site's cascade (`<NS>_KEY` from the most specific
    /// prefix down), then the root's, then `RADICAL_DEFAULT_KEY`.
    Namespace,
    /// Once for the process: the application root's cascade, then
    /// `RADICAL_DEFAULT_KEY`.
    Process,
    /// Only `RADICAL_DEFAULT_KEY`.
    DefaultOnly,
    /// One variable, named as it is (`NO_COLOR`, `OTEL_SERVICE_NAME`).
    Exact,
}

/// What the parsers of keys with paths need to know.
pub(crate) struct Ctx<'a> {
    /// The working directory at snapshot time: the base of relative paths.
    pub(crate) cwd: &'a Path,
    /// The directory of `LOG_TGT` files.
    pub(crate) log_dir: &'a Path,
    /// The process's name, for `LOG_TGT=.`.
    pub(crate) name: &'a str,
    /// `$HOME`, for a leading `~/` in paths.
    pub(crate) home: Option<&'a Path>,
}

/// A key's documentation: one line each, as the guide shows them.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Doc {
    /// What the key controls.
    pub(crate) meaning: &'static str,
    /// The values it takes.
    pub(crate) values: &'static str,
    /// What applies when it is not set.
    pub(crate) default: &'static str,
}

/// One environment key, parsing to `T`.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Key<T: 'static> {
    /// The name after the namespace prefix (`LOG_FMT`), or the whole
    /// variable name for [`Scope::Exact`] and [`Scope::DefaultOnly`] keys
    /// without it (`NO_COLOR`; `LOG_DIR` is read as `RADICAL_DEFAULT_LOG_DIR`).
    pub(crate) name: &'static str,
    /// Where it is looked up.
    pub(crate) scope: Scope,
    /// Its parser: the value, or a short reason that ends up in the warning.
    pub(crate) parse: fn(&str, &Ctx<'_>) -> Result<T, String>,
    /// Its documentation.
    pub(crate) doc: Doc,
}

impl<T> Key<T> {
    /// The variables of this key for namespace `prefix`, most specific
    /// first, then the root's (see [`cascade`]).
    pub(crate) fn cascade(&self, prefix: &str, root: Option<&str>) -> Vec<String> {
        cascade(prefix, root, self.name)
    }

    /// Resolves the key over `chains` (for [`Scope::Exact`]: the variable
    /// itself), then its `RADICAL_DEFAULT_` variable, then `builtin`.
    pub(crate) fn resolve(
        &self,
        snap: &EnvSnapshot,
        chains: &[Vec<String>],
        ctx: &Ctx<'_>,
        builtin: T,
    ) -> Decided<T> {
        let own = [vec![self.name.to_owned()]];
        let (chains, default) = match self.scope {
            Scope::Exact => (&own[..], None),
            _ => (chains, Some(default_var(self.name))),
        };
        let parse = |s: &str| (self.parse)(s, ctx);
        resolve(snap, chains, default.as_deref(), parse, builtin)
    }
}

/// A key whatever its value type, for the table.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) trait AnyKey: Sync {
    /// The key's name.
    fn name(&self) -> &'static str;
    /// Where it is looked up.
    fn scope(&self) -> Scope;
    /// Its documentation.
    fn doc(&self) -> &Doc;
    /// Runs the parser; the value as text, or the reason of the refusal.
    fn check(&self, text: &str, ctx: &Ctx<'_>) -> Result<String, String>;

    /// A key read under its own name ([`Scope::Exact`]), resolved over
    /// `snap`, as text (`unset` when no variable decides).
    fn exact(&self, snap: &EnvSnapshot) -> Decided<String> {
        let ctx = snap.ctx();
        let var = [vec![self.name().to_owned()]];
        resolve(snap, &var, None, |s| self.check(s, &ctx), "unset".into())
    }
}

impl<T: fmt::Display + 'static> AnyKey for Key<T> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn scope(&self) -> Scope {
        self.scope
    }
    fn doc(&self) -> &Doc {
        &self.doc
    }
    fn check(&self, text: &str, ctx: &Ctx<'_>) -> Result<String, String> {
        (self.parse)(text, ctx).map(|v| v.to_string())
    }
}

impl dyn AnyKey {
    /// Whether the variable `var` is one of this key's.
    pub(crate) fn matches(&self, var: &str) -> bool {
        match self.scope() {
            Scope::Exact => var == self.name(),
            _ => super::is_for_key(var, self.name()),
        }
    }
}

/// A key, with its documentation: what it controls (`meaning`), the
/// values it takes, and what applies when it is not set (`default`).
const fn key<T>(
    name: &'static str,
    scope: Scope,
    parse: fn(&str, &Ctx<'_>) -> Result<T, String>,
    meaning: &'static str,
    values: &'static str,
    default: &'static str,
) -> Key<T> {
    let doc = Doc {
        meaning,
        values,
        default,
    };
    Key {
        name,
        scope,
        parse,
        doc,
    }
}

/// A key read under its own name ([`Scope::Exact`]), its value taken as
/// it is, trimmed.
const fn exact_text(
    name: &'static str,
    meaning: &'static str,
    values: &'static str,
    default: &'static str,
) -> Key<String> {
    let text = |s: &str, _: &Ctx<'_>| Ok(s.trim().to_owned());
    key(name, Scope::Exact, text, meaning, values, default)
}

// The keys; each one's `meaning`, `values` and `default` are its documentation.
pub(crate) static LOG_LVL: Key<LevelFilter> = key(
    "LOG_LVL",
    Scope::Namespace,
    |s, _| parse_level(s),
    "level of log sites",
    "`off`, `critical`/`error`, `warning`/`warn`, `info`, `debug`, `trace`, \
     `debug_1`..`debug_9` (= trace), any case; numbers `60` off, `50`/`40` error, \
     `30` warn, `20` info, `10` debug, `0`..`9` trace",
    "`error` ([`set_default_level`](crate::set_default_level) changes it)",
);

pub(crate) static VERBOSE: Key<LevelFilter> = key(
    "VERBOSE",
    Scope::Namespace,
    |s, _| parse_level(s),
    "legacy name of `LOG_LVL`, read only when the `LOG_LVL` cascade finds no \
     variable or an empty one",
    "as `LOG_LVL`",
    "as `LOG_LVL`",
);

pub(crate) static DEBUG: Key<bool> = key(
    "DEBUG",
    Scope::Namespace,
    |s, _| parse_flag(s),
    "debug mode: runs `check!` sites",
    "true `1 true yes on`, false `0 false no off`, any case",
    "off",
);

pub(crate) static PROFILE: Key<bool> = key(
    "PROFILE",
    Scope::Namespace,
    |s, _| parse_flag(s),
    "telemetry on/off; on, it also writes a `.prof` file in `PROFILE_DIR` \
     (cargo feature `prof`, on by default)",
    "as `DEBUG`",
    "off",
);

pub(crate) static LOG_TGT: Key<Targets> = key(
    "LOG_TGT",
    Scope::Process,
    |s, c| parse_targets(s, c.log_dir, c.name, c.home),
    "where logs go",
    "comma list: `-`/`1`/`stdout`, `=`/`2`/`stderr`, `0`/`null`, `.` = \
     `<log dir>/<name>.log`, `/abs/path`, `~/path` (in `$HOME`), other = file \
     relative to the log dir; \
     files need the cargo feature `file` (on by default), without it they are \
     replaced by stderr with one warning",
    "`stderr`",
);

pub(crate) static LOG_MODE: Key<LogMode> = key(
    "LOG_MODE",
    Scope::Process,
    |s, _| parse_log_mode(s),
    "how the file targets of `LOG_TGT` are written",
    "`async`, `durable`, `sync-durable`, `buffered`, any case (see \
     [the sinks chapter](crate::guide::sinks)); `async` and `durable` need the \
     cargo feature `async` (on by default), without it they fall back to \
     `buffered` and `sync-durable` with one warning",
    "`buffered`",
);

pub(crate) static LOG_FMT: Key<LogFormat> = key(
    "LOG_FMT",
    Scope::Process,
    |s, _| parse_log_format(s),
    "the line format of the `LOG_TGT` sinks, console and files",
    "`radical` (`<time> : <target> : <pid> : <tid> : <LEVEL> : <message>`), \
     `radical-dotted` (the same with the target spelled as radical.utils' \
     logger names: `radical.asyncflow.engine`), `json` (one JSON object per line), `compact` (`HH:MM:SS.mmm LEVEL target: \
     message`), any case, spaces trimmed; `json` needs the cargo feature `json` \
     (on by default), without it `radical` with one warning",
    "`radical`",
);

pub(crate) static PROFILE_DIR: Key<Shown<PathBuf>> = key(
    "PROFILE_DIR",
    Scope::Process,
    |s, c| parse_dir(s, c.cwd, c.home).map(Shown),
    "where telemetry profiles go",
    "path, relative to the working directory; `~/` is `$HOME`",
    "working directory",
);

pub(crate) static PROFILE_NAME: Key<String> = key(
    "PROFILE_NAME",
    Scope::Process,
    |s, _| parse_profile_name(s),
    "the name of the `.prof` file `PROFILE` opens, and its `comp` column, so each \
     process of a run is its own component (`RADICAL_PROFILE_NAME=agent_0`); \
     also `telemetry::enable`'s",
    "a file name: no `/` or `\\`",
    "the root namespace in lower case (`radical.asyncflow`), else the \
     executable's name",
);

pub(crate) static PROFILE_HOST: Key<String> = key(
    "PROFILE_HOST",
    Scope::Process,
    |s, _| parse_host(s),
    "the host in the `.prof` `sync_abs` line, where DNS rather than `/etc/hosts` \
     gives Python's `socket.getfqdn()`",
    "a host name: no `:`, `,`, space or control character",
    "found in `/etc/hosts` as `getfqdn()` finds it (below)",
);

pub(crate) static LOG_DIR: Key<Shown<PathBuf>> = key(
    "LOG_DIR",
    Scope::DefaultOnly,
    |s, c| parse_dir(s, c.cwd, c.home).map(Shown),
    "the log dir for `LOG_TGT` files",
    "path, relative to the working directory; `~/` is `$HOME`",
    "working directory",
);

pub(crate) static LOG_OTLP_ATTRS: Key<String> = key(
    "LOG_OTLP_ATTRS",
    Scope::Process,
    |s, _| parse_otlp_attrs(s),
    "the attributes the `otlp` target of `LOG_TGT` adds to every record and span \
     beyond its fields (cargo feature `otlp`)",
    "comma list of `code` (`code.namespace`, `code.filepath`, `code.lineno`) and \
     `thread` (`thread.id`, `thread.name`); `all`; `none`",
    "`none`",
);

/// `LOG_OTLP_ATTRS`'s value: `code`, `thread`, both (`code,thread`) or
/// `none`.
fn parse_otlp_attrs(s: &str) -> Result<String, String> {
    let (mut code, mut thread) = (false, false);
    for word in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        match word.to_ascii_lowercase().as_str() {
            "code" => code = true,
            "thread" => thread = true,
            "all" => (code, thread) = (true, true),
            "none" => {}
            _ => return Err(format!("{word:?} is not code, thread, all or none")),
        }
    }
    Ok(match (code, thread) {
        (true, true) => "code,thread",
        (true, false) => "code",
        (false, true) => "thread",
        (false, false) => "none",
    }
    .to_owned())
}

pub(crate) static RUST_LOG: Key<String> = exact_text(
    "RUST_LOG",
    "levels where no `LOG_LVL` variable decides (see below; cargo feature \
     `rust-log`, on by default)",
    "`env_logger` directives: `info,my_app::db=trace,hyper=off`",
    "unset",
);

pub(crate) static OTEL_ENDPOINT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "where the `otlp` target of `LOG_TGT` sends (cargo feature `otlp`)",
    "`http://host[:port][/prefix]`, or `https://..` (cargo feature `otlp-tls`)",
    "`http://localhost:4318`",
);

pub(crate) static OTEL_PROTOCOL: Key<String> = key(
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    Scope::Exact,
    |s, _| match s.trim() {
        "http/protobuf" => Ok("http/protobuf".to_owned()),
        _ => Err("not supported (elide's exporter speaks http/protobuf only)".to_owned()),
    },
    "the OTLP protocol",
    "`http/protobuf` (another value is warned about)",
    "`http/protobuf`",
);

pub(crate) static OTEL_HEADERS: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_HEADERS",
    "HTTP headers of every OTLP request (an API key)",
    "`k1=v1,k2=v2`, `%XX` escapes; a malformed item is warned about and skipped",
    "none",
);

pub(crate) static OTEL_SERVICE_NAME: Key<String> = exact_text(
    "OTEL_SERVICE_NAME",
    "the `service.name` of exported records",
    "text",
    "the root namespace, else the executable's name",
);

pub(crate) static OTEL_RESOURCE_ATTRIBUTES: Key<String> = exact_text(
    "OTEL_RESOURCE_ATTRIBUTES",
    "resource attributes of exported records",
    "as `OTEL_EXPORTER_OTLP_HEADERS`",
    "none",
);

// The exporter's own reader parses (and warns about) the values of these.
pub(crate) static OTEL_LOGS_ENDPOINT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
    "where log records and events go, as it is (no `/v1/logs` appended)",
    "`http[s]://host[:port][/path]`; a malformed one is warned about",
    "`OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/logs`",
);
pub(crate) static OTEL_TRACES_ENDPOINT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "where spans (timed scopes) go, as it is",
    "as `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`",
    "`OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`",
);
pub(crate) static OTEL_METRICS_ENDPOINT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    "where counters go, as it is",
    "as `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`",
    "`OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/metrics`",
);
pub(crate) static OTEL_TIMEOUT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_TIMEOUT",
    "the timeout of one OTLP request (connect, send, answer)",
    "milliseconds; another value is warned about",
    "5000",
);
pub(crate) static OTEL_LOGS_TIMEOUT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_LOGS_TIMEOUT",
    "the timeout of one request of log records",
    "milliseconds",
    "`OTEL_EXPORTER_OTLP_TIMEOUT`",
);
pub(crate) static OTEL_TRACES_TIMEOUT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
    "the timeout of one request of spans",
    "milliseconds",
    "`OTEL_EXPORTER_OTLP_TIMEOUT`",
);
pub(crate) static OTEL_METRICS_TIMEOUT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT",
    "the timeout of one request of counters",
    "milliseconds",
    "`OTEL_EXPORTER_OTLP_TIMEOUT`",
);
pub(crate) static OTEL_COMPRESSION: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_COMPRESSION",
    "compression of OTLP request bodies",
    "`gzip` or `none`; another value is warned about",
    "`none`",
);
pub(crate) static OTEL_CERTIFICATE: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_CERTIFICATE",
    "the CA certificates an `https://` collector's certificate is checked against, \
     instead of the system's roots (cargo feature `otlp-tls`)",
    "a PEM file; unreadable, no exporter is installed, with a warning",
    "the system's root certificates",
);
pub(crate) static OTEL_LOGS_CERTIFICATE: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE",
    "the CA file of an `https://` `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`",
    "a PEM file",
    "`OTEL_EXPORTER_OTLP_CERTIFICATE`",
);
pub(crate) static OTEL_TRACES_CERTIFICATE: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE",
    "the CA file of an `https://` `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`",
    "a PEM file",
    "`OTEL_EXPORTER_OTLP_CERTIFICATE`",
);
pub(crate) static OTEL_METRICS_CERTIFICATE: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE",
    "the CA file of an `https://` `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`",
    "a PEM file",
    "`OTEL_EXPORTER_OTLP_CERTIFICATE`",
);
pub(crate) static OTEL_SDK_DISABLED: Key<String> = exact_text(
    "OTEL_SDK_DISABLED",
    "`true`: the `otlp` target installs no exporter (one note says so)",
    "`true` or `false`; another value is warned about",
    "`false`",
);

/// <https://no-color.org>
pub(crate) static NO_COLOR: Key<String> = exact_text(
    "NO_COLOR",
    "no colours on the console, even on a terminal",
    "any non-empty value",
    "colours on a terminal only",
);

pub(crate) static CLICOLOR_FORCE: Key<String> = exact_text(
    "CLICOLOR_FORCE",
    "colours on the console even into a pipe or file (`NO_COLOR` wins)",
    "anything but empty or `0`",
    "colours on a terminal only",
);

/// Every key elide reads, in the guide's order.
pub(crate) static KEYS: [&dyn AnyKey; 33] = [
    &LOG_LVL,
    &VERBOSE,
    &DEBUG,
    &PROFILE,
    &LOG_TGT,
    &LOG_MODE,
    &LOG_FMT,
    &PROFILE_DIR,
    &PROFILE_NAME,
    &PROFILE_HOST,
    &LOG_DIR,
    &RUST_LOG,
    &OTEL_ENDPOINT,
    &OTEL_PROTOCOL,
    &OTEL_HEADERS,
    &OTEL_SERVICE_NAME,
    &OTEL_RESOURCE_ATTRIBUTES,
    &OTEL_LOGS_ENDPOINT,
    &OTEL_TRACES_ENDPOINT,
    &OTEL_METRICS_ENDPOINT,
    &OTEL_TIMEOUT,
    &OTEL_LOGS_TIMEOUT,
    &OTEL_TRACES_TIMEOUT,
    &OTEL_METRICS_TIMEOUT,
    &OTEL_COMPRESSION,
    &OTEL_CERTIFICATE,
    &OTEL_LOGS_CERTIFICATE,
    &OTEL_TRACES_CERTIFICATE,
    &OTEL_METRICS_CERTIFICATE,
    &OTEL_SDK_DISABLED,
    &LOG_OTLP_ATTRS,
    &NO_COLOR,
    &CLICOLOR_FORCE,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The guide's table of variables, as markdown.
    fn render_guide_table() -> String {
        let mut out = String::from(
            "| key | read for | meaning | values | default |\n|---|---|---|---|---|\n",
        );
        for k in KEYS {
            let d = k.doc();
            out.push_str(&format!(
                "| `{}` | {} | {} | {} | {} |\n",
                shown_name(k),
                read_for(k.scope()),
                d.meaning,
                d.values,
                d.default
            ));
        }
        out
    }

    /// The name a user sets: `<NS>_KEY`, `RADICAL_DEFAULT_KEY`, or the
    /// variable itself.
    fn shown_name(k: &dyn AnyKey) -> String {
        match k.scope() {
            Scope::DefaultOnly => default_var(k.name()),
            _ => k.name().to_owned(),
        }
    }

    /// The guide's words for a scope.
    fn read_for(scope: Scope) -> &'static str {
        match scope {
            Scope::Namespace => "each namespace",
            Scope::Process => "the application",
            Scope::DefaultOnly | Scope::Exact => "the process",
        }
    }

    /// The guide's table of variables is the key table: a key added,
    /// renamed or documented differently here fails until the guide says
    /// the same (the message holds the text to paste).
    #[test]
    fn the_guides_table_of_variables_is_the_key_table() {
        let guide = include_str!("../../guide/configuration.md");
        let (start, end) = (
            "<!-- table of variables: begin -->\n",
            "<!-- table of variables: end -->",
        );
        let from = guide.find(start).expect("the guide marks its table") + start.len();
        let to = guide[from..].find(end).expect("the table's end marker") + from;
        let expected = render_guide_table();
        assert!(
            guide[from..to] == expected,
            "facade/src/guide/configuration.md's table of variables differs from the key \
             table; between the markers it should read:\n{expected}"
        );
    }

    #[test]
    fn names_are_unique_and_every_key_is_in_the_table() {
        let names: Vec<_> = KEYS.iter().map(|k| k.name()).collect();
        for (i, n) in names.iter().enumerate() {
            assert!(!names[i + 1..].contains(n), "{n} twice");
        }
    }

    #[test]
    fn a_variable_belongs_to_its_key_by_scope() {
        let key = |name| *KEYS.iter().find(|k| k.name() == name).unwrap();
        assert!(key("LOG_FMT").matches("APP_LOG_FMT"));
        assert!(!key("LOG_FMT").matches("LOG_FMT"));
        assert!(key("NO_COLOR").matches("NO_COLOR"));
        assert!(!key("NO_COLOR").matches("APP_NO_COLOR"));
        assert_eq!(shown_name(key("LOG_DIR")), "RADICAL_DEFAULT_LOG_DIR");
    }
}
