//! Pure parsing of the values of elide's environment variables.
//!
//! Every parser takes the text of one variable (already known to be UTF-8
//! and non-empty after trimming) and returns the value or a short reason that
//! ends up in the warning. Nothing here reads the process environment.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::format::Format;
use crate::record::level::LevelFilter;
use crate::sink::FileMode;

/// Parses `LOG_LVL` / `VERBOSE` with the one level parser that
/// `LevelFilter::from_str` uses (names in any case, `critical`/`warning`,
/// `debug_1`..`debug_9`, Python's numbers).
pub(crate) fn parse_level(text: &str) -> Result<LevelFilter, String> {
    text.parse::<LevelFilter>().map_err(|e| e.reason())
}

/// Parses a flag (`DEBUG`, `PROFILE`): `1 true yes on` / `0 false no off`,
/// case-insensitive, surrounding whitespace ignored.
pub(crate) fn parse_flag(text: &str) -> Result<bool, String> {
    let s = text.trim();
    let is = |words: &[&str]| words.iter().any(|w| s.eq_ignore_ascii_case(w));
    if is(&["1", "true", "yes", "on"]) {
        Ok(true)
    } else if is(&["0", "false", "no", "off"]) {
        Ok(false)
    } else {
        Err("not a flag (expected 1, true, yes, on, 0, false, no or off)".to_owned())
    }
}

/// Parses a directory (`PROFILE_DIR`, `RADICAL_DEFAULT_LOG_DIR`); a relative
/// one is taken relative to `cwd`, the working directory at snapshot time,
/// and a leading `~/` is `home` (see [`expand_home`]).
pub(crate) fn parse_dir(text: &str, cwd: &Path, home: Option<&Path>) -> Result<PathBuf, String> {
    let s = text.trim();
    if s.is_empty() {
        return Err("empty path".to_owned());
    }
    Ok(expand_home(s, home)?.unwrap_or_else(|| cwd.join(s)))
}

/// A path that starts with `~`: `~` and `~/rest` are `home` (`$HOME` at
/// snapshot time), as a shell would expand them; `None` for a path without
/// `~`. An error when HOME is unset or empty, or for `~user` (not
/// expanded): taken literally, either would create a directory named `~`
/// in the working directory.
pub(crate) fn expand_home(path: &str, home: Option<&Path>) -> Result<Option<PathBuf>, String> {
    let Some(rest) = path.strip_prefix('~') else {
        return Ok(None);
    };
    let rest = match rest.strip_prefix('/') {
        Some(rest) => rest,
        None if rest.is_empty() => rest,
        None => return Err("cannot expand `~user` (only a leading `~/` is)".to_owned()),
    };
    match home.filter(|h| !h.as_os_str().is_empty()) {
        Some(home) => Ok(Some(home.join(rest))),
        None => Err("cannot expand `~`: HOME is not set".to_owned()),
    }
}

/// Parses `PROFILE_NAME`: a file name (the `.prof` file is
/// `<dir>/<name>.prof`), so no path separator; surrounding whitespace
/// ignored.
pub(crate) fn parse_profile_name(text: &str) -> Result<String, String> {
    let s = text.trim();
    if s.contains(['/', '\\']) {
        return Err("a profile name is a file name and cannot contain `/` or `\\`".to_owned());
    }
    Ok(s.to_owned())
}

/// Parses `PROFILE_HOST`: one host name as the `sync_abs` line carries it,
/// so no `:` (its field separator), `,` (the line's), whitespace or control
/// character.
pub(crate) fn parse_host(text: &str) -> Result<String, String> {
    let s = text.trim();
    if s.chars()
        .any(|c| matches!(c, ':' | ',') || c.is_whitespace() || c.is_control())
    {
        return Err(
            "a host name cannot contain `:`, `,`, whitespace or control characters".to_owned(),
        );
    }
    Ok(s.to_owned())
}

/// One destination named in `LOG_TGT`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Target {
    /// `-`, `1`, `stdout`.
    Stdout,
    /// `=`, `2`, `stderr`.
    Stderr,
    /// `0`, `null`: nowhere.
    Null,
    /// A file (absolute after parsing).
    File(PathBuf),
    /// `otlp` (the `OTEL_*` endpoint) or `otlp://host:port`: an
    /// OpenTelemetry exporter (cargo feature `otlp`).
    Otlp(Option<String>),
    /// A file that cannot be named (`~/x` without HOME): replaced by stderr
    /// with a warning when the sinks are built.
    Refused {
        /// The item as written.
        item: String,
        /// Why it cannot be used.
        why: String,
    },
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Stdout => f.write_str("stdout"),
            Target::Stderr => f.write_str("stderr"),
            Target::Null => f.write_str("null"),
            Target::File(p) => write!(f, "{}", p.display()),
            Target::Otlp(None) => f.write_str("otlp"),
            Target::Otlp(Some(e)) => write!(f, "otlp://{e}"),
            Target::Refused { item, .. } => f.write_str(item),
        }
    }
}

/// The parsed `LOG_TGT` list; displays as the comma list it came from (with
/// files resolved).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Targets(pub(crate) Vec<Target>);

impl fmt::Display for Targets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items: Vec<String> = self.0.iter().map(Target::to_string).collect();
        f.write_str(&items.join(","))
    }
}

/// Parses `LOG_TGT`: a comma list, each item trimmed, empty items skipped,
/// duplicates dropped. Keywords are case-insensitive. `.` is
/// `<log_dir>/<log_name>.log`; an absolute path is used as is; anything else
/// is a file relative to `log_dir`; a leading `~/` is `home` (see
/// [`expand_home`]).
pub(crate) fn parse_targets(
    text: &str,
    log_dir: &Path,
    log_name: &str,
    home: Option<&Path>,
) -> Result<Targets, String> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let is = |words: &[&str]| words.iter().any(|w| item.eq_ignore_ascii_case(w));
        let t = if is(&["-", "1", "stdout"]) {
            Target::Stdout
        } else if is(&["=", "2", "stderr"]) {
            Target::Stderr
        } else if is(&["0", "null"]) {
            Target::Null
        } else if is(&["otlp"]) {
            Target::Otlp(None)
        } else if let Some(e) = item.strip_prefix("otlp://") {
            Target::Otlp(Some(e.to_owned()))
        } else if item == "." {
            Target::File(log_dir.join(format!("{log_name}.log")))
        } else {
            match expand_home(item, home) {
                Ok(Some(path)) => Target::File(path),
                // `join` keeps an absolute item as it is.
                Ok(None) => Target::File(log_dir.join(item)),
                Err(why) => Target::Refused {
                    item: item.to_owned(),
                    why,
                },
            }
        };
        if !out.contains(&t) {
            out.push(t);
        }
    }
    if out.is_empty() {
        return Err(
            "names no target (expected a comma list of stdout, stderr, null, . or paths)"
                .to_owned(),
        );
    }
    Ok(Targets(out))
}

/// How `LOG_TGT` file targets are written: `None` is the plain buffered
/// [`FileSink`](crate::sink::FileSink).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LogMode(pub(crate) Option<FileMode>);

impl fmt::Display for LogMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.map_or("buffered", FileMode::as_str))
    }
}

/// The `LOG_FMT` value: the line format of the `LOG_TGT` sinks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LogFormat(pub(crate) Format);

impl fmt::Display for LogFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_str())
    }
}

/// `radical`, `radical-dotted`, `json` or `compact` (case-insensitive,
/// trimmed).
pub(crate) fn parse_log_format(text: &str) -> Result<LogFormat, String> {
    Format::parse(text).map(LogFormat).ok_or_else(|| {
        "not a line format (expected radical, radical-dotted, json or compact)".to_owned()
    })
}

/// Parses `LOG_MODE`: `async`, `durable`, `sync-durable` (see
/// [`FileMode::parse`]), or `buffered` for the default, so a specific
/// namespace can undo a general setting.
pub(crate) fn parse_log_mode(text: &str) -> Result<LogMode, String> {
    if text.trim().eq_ignore_ascii_case("buffered") {
        return Ok(LogMode(None));
    }
    FileMode::parse(text)
        .map(|m| LogMode(Some(m)))
        .ok_or_else(|| {
            "not a log mode (expected buffered, async, durable or sync-durable)".to_owned()
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use LevelFilter::*;

    #[test]
    fn level_names_any_case_and_whitespace() {
        for (s, l) in [
            ("off", Off),
            ("OFF", Off),
            ("critical", Error),
            ("Error", Error),
            ("warning", Warn),
            ("WaRn", Warn),
            (" info ", Info),
            ("\tdebug\n", Debug),
            ("trace", Trace),
            ("debug_1", Trace),
            ("DEBUG_9", Trace),
            ("Debug_5", Trace),
        ] {
            assert_eq!(parse_level(s), Ok(l), "{s:?}");
        }
    }

    #[test]
    fn level_numbers_follow_python_logging() {
        for (s, l) in [
            ("60", Off),
            ("50", Error),
            ("40", Error),
            ("30", Warn),
            ("20", Info),
            ("10", Debug),
            ("0", Trace),
            ("9", Trace),
            ("5", Trace),
            (" 20 ", Info),
            ("010", Debug),
        ] {
            assert_eq!(parse_level(s), Ok(l), "{s:?}");
        }
    }

    #[test]
    fn level_rejects_garbage_out_of_range_and_negative() {
        for s in [
            "verbose",
            "debug_0",
            "debug_10",
            "debug_",
            "debug_x",
            "infos",
            "35",
            "61",
            "70",
            "11",
            "100",
            "99999999999999999999999",
            "-1",
            "-10",
            "+10",
            "1.5",
            "in fo",
            "ïnfo",
            "debugé",
            "débug_1",
        ] {
            let e = parse_level(s).expect_err(s);
            assert!(e.contains("expected"), "{s:?}: {e}");
        }
    }

    #[test]
    fn flags() {
        for s in ["1", "true", "TRUE", "Yes", " on ", "On\n"] {
            assert_eq!(parse_flag(s), Ok(true), "{s:?}");
        }
        for s in ["0", "false", "False", "NO", " off", "\t0 "] {
            assert_eq!(parse_flag(s), Ok(false), "{s:?}");
        }
        for s in ["2", "-1", "enabled", "y", "n", "tru", "1 1", "ön"] {
            assert!(parse_flag(s).is_err(), "{s:?}");
        }
    }

    #[test]
    fn dirs_are_resolved_against_cwd() {
        let cwd = Path::new("/work");
        assert_eq!(parse_dir("/abs/p", cwd, None), Ok(PathBuf::from("/abs/p")));
        assert_eq!(
            parse_dir(" prof ", cwd, None),
            Ok(PathBuf::from("/work/prof"))
        );
        assert!(parse_dir("  ", cwd, None).is_err());
    }

    #[test]
    fn a_leading_tilde_is_home_and_never_a_literal_directory() {
        let home = Some(Path::new("/home/u"));
        let cwd = Path::new("/work");
        assert_eq!(
            parse_dir("~/prof", cwd, home),
            Ok(PathBuf::from("/home/u/prof"))
        );
        assert_eq!(parse_dir("~", cwd, home), Ok(PathBuf::from("/home/u")));
        let t = |s, home| parse_targets(s, cwd, "app", home).map(|t| t.0);
        assert_eq!(
            t("~/logs/x.log,a~b.log", home),
            Ok(vec![
                Target::File("/home/u/logs/x.log".into()),
                Target::File("/work/a~b.log".into())
            ])
        );
        // Without HOME (or with an empty one), and for `~user`: refused,
        // with the reason; the other items still count.
        for home in [None, Some(Path::new(""))] {
            assert_eq!(
                parse_dir("~/prof", cwd, home),
                Err("cannot expand `~`: HOME is not set".to_owned())
            );
            assert_eq!(
                t("~/x.log,stdout", home),
                Ok(vec![
                    Target::Refused {
                        item: "~/x.log".into(),
                        why: "cannot expand `~`: HOME is not set".into()
                    },
                    Target::Stdout
                ])
            );
        }
        assert!(matches!(
            &t("~root/x.log", home).unwrap()[0],
            Target::Refused { why, .. } if why.contains("~user")
        ));
        assert!(parse_dir("~root", cwd, home).is_err());
    }

    #[test]
    fn targets() {
        let dir = Path::new("/logs");
        let t = |s| parse_targets(s, dir, "radical.asyncflow", None).map(|t| t.0);
        assert_eq!(t("-"), Ok(vec![Target::Stdout]));
        assert_eq!(t("1,STDOUT"), Ok(vec![Target::Stdout]));
        assert_eq!(t("=, 2 ,stderr"), Ok(vec![Target::Stderr]));
        assert_eq!(t("0"), Ok(vec![Target::Null]));
        assert_eq!(t("Null"), Ok(vec![Target::Null]));
        assert_eq!(
            t("stdout, ./x.log"),
            Ok(vec![Target::Stdout, Target::File("/logs/./x.log".into())])
        );
        assert_eq!(
            t("."),
            Ok(vec![Target::File("/logs/radical.asyncflow.log".into())])
        );
        assert_eq!(
            t("/var/log/a.log,sub/b.log,"),
            Ok(vec![
                Target::File("/var/log/a.log".into()),
                Target::File("/logs/sub/b.log".into())
            ])
        );
        assert!(t(",").is_err());
        assert!(t(" , ,").is_err());
        assert_eq!(
            Targets(t("stderr,/a.log").unwrap()).to_string(),
            "stderr,/a.log"
        );
    }
}
