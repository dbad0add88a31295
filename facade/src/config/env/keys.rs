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

/// A key read under its own name ([`Scope::Exact`]), its value taken as
/// it is, trimmed.
const fn exact_text(
    name: &'static str,
    meaning: &'static str,
    values: &'static str,
    default: &'static str,
) -> Key<String> {
    Key {
        name,
        scope: Scope::Exact,
        parse: |s, _| Ok(s.trim().to_owned()),
        doc: Doc {
            meaning,
            values,
            default,
        },
    }
}

/// `LOG_LVL`: the level of log sites.
pub(crate) static LOG_LVL: Key<LevelFilter> = Key {
    name: "LOG_LVL",
    scope: Scope::Namespace,
    parse: |s, _| parse_level(s),
    doc: Doc {
        meaning: "level of log sites",
        values: "`off`, `critical`/`error`, `warning`/`warn`, `info`, `debug`, `trace`, \
                 `debug_1`..`debug_9` (= trace), any case; numbers `60` off, `50`/`40` error, \
                 `30` warn, `20` info, `10` debug, `0`..`9` trace",
        default: "`error` ([`set_default_level`](crate::set_default_level) changes it)",
    },
};

/// `VERBOSE`: RADICAL's older name of `LOG_LVL`.
pub(crate) static VERBOSE: Key<LevelFilter> = Key {
    name: "VERBOSE",
    scope: Scope::Namespace,
    parse: |s, _| parse_level(s),
    doc: Doc {
        meaning: "legacy name of `LOG_LVL`, read only when the `LOG_LVL` cascade finds no \
                  variable or an empty one",
        values: "as `LOG_LVL`",
        default: "as `LOG_LVL`",
    },
};

/// `DEBUG`: debug mode.
pub(crate) static DEBUG: Key<bool> = Key {
    name: "DEBUG",
    scope: Scope::Namespace,
    parse: |s, _| parse_flag(s),
    doc: Doc {
        meaning: "debug mode: runs `check!` sites",
        values: "true `1 true yes on`, false `0 false no off`, any case",
        default: "off",
    },
};

/// `PROFILE`: telemetry.
pub(crate) static PROFILE: Key<bool> = Key {
    name: "PROFILE",
    scope: Scope::Namespace,
    parse: |s, _| parse_flag(s),
    doc: Doc {
        meaning: "telemetry on/off; on, it also writes a `.prof` file in `PROFILE_DIR` \
                  (cargo feature `prof`, on by default)",
        values: "as `DEBUG`",
        default: "off",
    },
};

/// `LOG_TGT`: where logs go.
pub(crate) static LOG_TGT: Key<Targets> = Key {
    name: "LOG_TGT",
    scope: Scope::Process,
    parse: |s, c| parse_targets(s, c.log_dir, c.name, c.home),
    doc: Doc {
        meaning: "where logs go",
        values: "comma list: `-`/`1`/`stdout`, `=`/`2`/`stderr`, `0`/`null`, `.` = \
                 `<log dir>/<name>.log`, `/abs/path`, `~/path` (in `$HOME`), other = file \
                 relative to the log dir; \
                 files need the cargo feature `file` (on by default), without it they are \
                 replaced by stderr with one warning",
        default: "`stderr`",
    },
};

/// `LOG_MODE`: how `LOG_TGT` files are written.
pub(crate) static LOG_MODE: Key<LogMode> = Key {
    name: "LOG_MODE",
    scope: Scope::Process,
    parse: |s, _| parse_log_mode(s),
    doc: Doc {
        meaning: "how the file targets of `LOG_TGT` are written",
        values: "`async`, `durable`, `sync-durable`, `buffered`, any case (see \
                 [the sinks chapter](crate::guide::sinks)); `async` and `durable` need the \
                 cargo feature `async` (on by default), without it they fall back to \
                 `buffered` and `sync-durable` with one warning",
        default: "`buffered`",
    },
};

/// `LOG_FMT`: the line format of the `LOG_TGT` sinks.
pub(crate) static LOG_FMT: Key<LogFormat> = Key {
    name: "LOG_FMT",
    scope: Scope::Process,
    parse: |s, _| parse_log_format(s),
    doc: Doc {
        meaning: "the line format of the `LOG_TGT` sinks, console and files",
        values: "`radical` (`<time> : <target> : <pid> : <tid> : <LEVEL> : <message>`), \
                 `radical-dotted` (the same with the target spelled as radical.utils' \
                 logger names: `radical.asyncflow.engine`), `json` (one JSON object per line), `compact` (`HH:MM:SS.mmm LEVEL target: \
                 message`), any case, spaces trimmed; `json` needs the cargo feature `json` \
                 (on by default), without it `radical` with one warning",
        default: "`radical`",
    },
};

/// `PROFILE_DIR`: where `.prof` files go.
pub(crate) static PROFILE_DIR: Key<Shown<PathBuf>> = Key {
    name: "PROFILE_DIR",
    scope: Scope::Process,
    parse: |s, c| parse_dir(s, c.cwd, c.home).map(Shown),
    doc: Doc {
        meaning: "where telemetry profiles go",
        values: "path, relative to the working directory; `~/` is `$HOME`",
        default: "working directory",
    },
};

/// `PROFILE_NAME`: the start-up `.prof` file's name and component.
pub(crate) static PROFILE_NAME: Key<String> = Key {
    name: "PROFILE_NAME",
    scope: Scope::Process,
    parse: |s, _| parse_profile_name(s),
    doc: Doc {
        meaning: "the name of the `.prof` file `PROFILE` opens, and its `comp` column, so each \
                  process of a run is its own component (`RADICAL_PROFILE_NAME=agent_0`); \
                  also `telemetry::enable`'s",
        values: "a file name: no `/` or `\\`",
        default: "the root namespace in lower case (`radical.asyncflow`), else the \
                  executable's name",
    },
};

/// `PROFILE_HOST`: the host of the `.prof` `sync_abs` line.
pub(crate) static PROFILE_HOST: Key<String> = Key {
    name: "PROFILE_HOST",
    scope: Scope::Process,
    parse: |s, _| parse_host(s),
    doc: Doc {
        meaning: "the host in the `.prof` `sync_abs` line, where DNS rather than `/etc/hosts` \
                  gives Python's `socket.getfqdn()`",
        values: "a host name: no `:`, `,`, space or control character",
        default: "found in `/etc/hosts` as `getfqdn()` finds it (below)",
    },
};

/// `RADICAL_DEFAULT_LOG_DIR`: the directory of `LOG_TGT` files.
pub(crate) static LOG_DIR: Key<Shown<PathBuf>> = Key {
    name: "LOG_DIR",
    scope: Scope::DefaultOnly,
    parse: |s, c| parse_dir(s, c.cwd, c.home).map(Shown),
    doc: Doc {
        meaning: "the log dir for `LOG_TGT` files",
        values: "path, relative to the working directory; `~/` is `$HOME`",
        default: "working directory",
    },
};

/// `LOG_OTLP_ATTRS`: what an OTLP exporter built from the environment
/// adds to every record beyond its fields.
pub(crate) static LOG_OTLP_ATTRS: Key<String> = Key {
    name: "LOG_OTLP_ATTRS",
    scope: Scope::Process,
    parse: |s, _| parse_otlp_attrs(s),
    doc: Doc {
        meaning: "the attributes the `otlp` target of `LOG_TGT` adds to every record and span \
                  beyond its fields (cargo feature `otlp`)",
        values: "comma list of `code` (`code.namespace`, `code.filepath`, `code.lineno`) and \
                 `thread` (`thread.id`, `thread.name`); `all`; `none`",
        default: "`none`",
    },
};

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

/// `RUST_LOG`: `env_logger` directives, the last fallback of a level.
pub(crate) static RUST_LOG: Key<String> = exact_text(
    "RUST_LOG",
    "levels where no `LOG_LVL` variable decides (see below; cargo feature \
     `rust-log`, on by default)",
    "`env_logger` directives: `info,my_app::db=trace,hyper=off`",
    "unset",
);

/// `OTEL_EXPORTER_OTLP_ENDPOINT`: where an `otlp` target sends.
pub(crate) static OTEL_ENDPOINT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "where the `otlp` target of `LOG_TGT` sends (cargo feature `otlp`)",
    "`http://host[:port][/prefix]`, or `https://..` (cargo feature `otlp-tls`)",
    "`http://localhost:4318`",
);

/// `OTEL_EXPORTER_OTLP_PROTOCOL`: only `http/protobuf` is spoken.
pub(crate) static OTEL_PROTOCOL: Key<String> = Key {
    name: "OTEL_EXPORTER_OTLP_PROTOCOL",
    scope: Scope::Exact,
    parse: |s, _| match s.trim() {
        "http/protobuf" => Ok("http/protobuf".to_owned()),
        _ => Err("not supported (elide's exporter speaks http/protobuf only)".to_owned()),
    },
    doc: Doc {
        meaning: "the OTLP protocol",
        values: "`http/protobuf` (another value is warned about)",
        default: "`http/protobuf`",
    },
};

/// `OTEL_EXPORTER_OTLP_HEADERS`: headers of every OTLP request.
pub(crate) static OTEL_HEADERS: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_HEADERS",
    "HTTP headers of every OTLP request (an API key)",
    "`k1=v1,k2=v2`, `%XX` escapes; a malformed item is warned about and skipped",
    "none",
);

/// `OTEL_SERVICE_NAME`: the exported `service.name`.
pub(crate) static OTEL_SERVICE_NAME: Key<String> = exact_text(
    "OTEL_SERVICE_NAME",
    "the `service.name` of exported records",
    "text",
    "the root namespace, else the executable's name",
);

/// `OTEL_RESOURCE_ATTRIBUTES`: extra resource attributes.
pub(crate) static OTEL_RESOURCE_ATTRIBUTES: Key<String> = exact_text(
    "OTEL_RESOURCE_ATTRIBUTES",
    "resource attributes of exported records",
    "as `OTEL_EXPORTER_OTLP_HEADERS`",
    "none",
);

// The exporter's own reader parses (and warns about) the values of these.
/// `OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT`: one signal's own URL.
pub(crate) static OTEL_LOGS_ENDPOINT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
    "where log records and events go, as it is (no `/v1/logs` appended)",
    "`http[s]://host[:port][/path]`; a malformed one is warned about",
    "`OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/logs`",
);
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`.
pub(crate) static OTEL_TRACES_ENDPOINT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "where spans (timed scopes) go, as it is",
    "as `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`",
    "`OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`",
);
/// `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`.
pub(crate) static OTEL_METRICS_ENDPOINT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    "where counters go, as it is",
    "as `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`",
    "`OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/metrics`",
);
/// `OTEL_EXPORTER_OTLP_TIMEOUT`: each request's timeout.
pub(crate) static OTEL_TIMEOUT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_TIMEOUT",
    "the timeout of one OTLP request (connect, send, answer)",
    "milliseconds; another value is warned about",
    "5000",
);
/// `OTEL_EXPORTER_OTLP_LOGS_TIMEOUT`.
pub(crate) static OTEL_LOGS_TIMEOUT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_LOGS_TIMEOUT",
    "the timeout of one request of log records",
    "milliseconds",
    "`OTEL_EXPORTER_OTLP_TIMEOUT`",
);
/// `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`.
pub(crate) static OTEL_TRACES_TIMEOUT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
    "the timeout of one request of spans",
    "milliseconds",
    "`OTEL_EXPORTER_OTLP_TIMEOUT`",
);
/// `OTEL_EXPORTER_OTLP_METRICS_TIMEOUT`.
pub(crate) static OTEL_METRICS_TIMEOUT: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT",
    "the timeout of one request of counters",
    "milliseconds",
    "`OTEL_EXPORTER_OTLP_TIMEOUT`",
);
/// `OTEL_EXPORTER_OTLP_COMPRESSION`: gzip the bodies.
pub(crate) static OTEL_COMPRESSION: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_COMPRESSION",
    "compression of OTLP request bodies",
    "`gzip` or `none`; another value is warned about",
    "`none`",
);
/// `OTEL_EXPORTER_OTLP_CERTIFICATE`: the CA of `https://` endpoints.
pub(crate) static OTEL_CERTIFICATE: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_CERTIFICATE",
    "the CA certificates an `https://` collector's certificate is checked against, \
     instead of the system's roots (cargo feature `otlp-tls`)",
    "a PEM file; unreadable, no exporter is installed, with a warning",
    "the system's root certificates",
);
/// `OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE`.
pub(crate) static OTEL_LOGS_CERTIFICATE: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE",
    "the CA file of an `https://` `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`",
    "a PEM file",
    "`OTEL_EXPORTER_OTLP_CERTIFICATE`",
);
/// `OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE`.
pub(crate) static OTEL_TRACES_CERTIFICATE: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE",
    "the CA file of an `https://` `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`",
    "a PEM file",
    "`OTEL_EXPORTER_OTLP_CERTIFICATE`",
);
/// `OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE`.
pub(crate) static OTEL_METRICS_CERTIFICATE: Key<String> = exact_text(
    "OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE",
    "the CA file of an `https://` `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`",
    "a PEM file",
    "`OTEL_EXPORTER_OTLP_CERTIFICATE`",
);
/// `OTEL_SDK_DISABLED`: no exporter at all.
pub(crate) static OTEL_SDK_DISABLED: Key<String> = exact_text(
    "OTEL_SDK_DISABLED",
    "`true`: the `otlp` target installs no exporter (one note says so)",
    "`true` or `false`; another value is warned about",
    "`false`",
);

/// `NO_COLOR`: no colours on the console (<https://no-color.org>).
pub(crate) static NO_COLOR: Key<String> = exact_text(
    "NO_COLOR",
    "no colours on the console, even on a terminal",
    "any non-empty value",
    "colours on a terminal only",
);

/// `CLICOLOR_FORCE`: colours on the console even into a pipe.
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
