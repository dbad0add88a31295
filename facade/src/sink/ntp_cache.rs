//! radical.utils' NTP cache, `<base>/.radical/utils/ntp.cache`: this host's
//! clock offset from an NTP server, as radical.utils last measured it. A
//! `.prof` file carries it in its `sync_abs` line (`<t_sys>:<t_ntp>:ntp`),
//! so radical.analytics corrects elide's rows by the same offset as
//! radical.utils' own. elide only reads the cache; it never asks an NTP
//! server.
//!
//! Statics owned here: `WARNED` (one warning per process for a cache that
//! cannot be used).

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

/// Whether a cache that cannot be used was reported already.
static WARNED: AtomicBool = AtomicBool::new(false);

/// How far this host's clock is ahead of NTP time, in seconds (`t_sys -
/// t_ntp`; negative when behind).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Offset(f64);

impl Offset {
    /// NTP time at system time `t`; `None` if it is not representable.
    pub(crate) fn ntp_time(self, t: SystemTime) -> Option<SystemTime> {
        let d = Duration::try_from_secs_f64(self.0.abs()).ok()?;
        if self.0 >= 0.0 {
            t.checked_sub(d)
        } else {
            t.checked_add(d)
        }
    }
}

/// The offset in the cache file radical.utils reads, if there is one.
/// A missing file is the usual case and says nothing; a file that cannot be
/// read or parsed gives one warning per process naming it, and `None` (the
/// profile then carries system time only, mode `sys`, as radical.utils
/// falls back). A cache of any age is used: radical.utils refreshes one
/// older than 60 s from an NTP server, which elide never contacts, so the
/// last measured offset is the best one this host has.
pub(crate) fn offset() -> Option<Offset> {
    let path = cache_path(|k| std::env::var_os(k), || std::env::current_dir().ok())?;
    let reason = match std::fs::read_to_string(&path).map(|text| parse(&text)) {
        Ok(Ok(offset)) => return Some(offset),
        Ok(Err(reason)) => reason,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => e.to_string(),
    };
    if !WARNED.swap(true, Ordering::Relaxed) {
        let _ = crate::os::process::write_stderr(
            format!(
                "elide: ignoring radical.utils' NTP cache {} ({reason}); using the \
                 system time in .prof sync_abs lines (mode `sys`)\n",
                path.display()
            )
            .as_bytes(),
        );
    }
    None
}

/// Where radical.utils keeps the cache: `.radical/utils/ntp.cache` under
/// the first of `$RADICAL_BASE`, `$HOME`, `$PWD` that is set and not
/// empty, else under the working directory.
pub(crate) fn cache_path(
    var: impl Fn(&str) -> Option<OsString>,
    cwd: impl FnOnce() -> Option<PathBuf>,
) -> Option<PathBuf> {
    let base = ["RADICAL_BASE", "HOME", "PWD"]
        .into_iter()
        .find_map(|k| var(k).filter(|v| !v.is_empty()).map(PathBuf::from))
        .or_else(cwd)?;
    Some(base.join(".radical").join("utils").join("ntp.cache"))
}

/// The offset in a cache's text: its first two whitespace-separated words
/// are the system time and the NTP time of one measurement, in epoch
/// seconds (radical.utils writes `%f\n%f\n`; further words are ignored, as
/// radical.utils ignores them).
pub(crate) fn parse(text: &str) -> Result<Offset, String> {
    let mut words = text.split_whitespace();
    let mut time = |what: &str| -> Result<f64, String> {
        let word = words
            .next()
            .ok_or_else(|| format!("no {what} time: expected two numbers"))?;
        match word.parse::<f64>() {
            Ok(t) if t.is_finite() && t > 0.0 => Ok(t),
            _ => Err(format!("{what} time {word:?} is not a positive number")),
        }
    };
    let t_sys = time("system")?;
    let t_ntp = time("NTP")?;
    Ok(Offset(t_sys - t_ntp))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    #[test]
    fn the_cache_holds_the_system_and_ntp_times_of_one_measurement() {
        let off = parse("1718000000.500000\n1718000000.000000\n").unwrap();
        assert!((off.0 - 0.5).abs() < 1e-6, "{off:?}");
        let off = parse("  100.25 100.5 trailing words\n").unwrap();
        assert!((off.0 + 0.25).abs() < 1e-9, "{off:?}");
        for bad in ["", "1718000000.5", "x 1", "1 nan", "inf 1", "-3 1", "0 1"] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        assert!(parse("1 nan").unwrap_err().contains("\"nan\""));
    }

    #[test]
    fn ntp_time_is_system_time_minus_the_offset() {
        let t = UNIX_EPOCH + Duration::from_secs(1_000);
        let ahead = Offset(0.5).ntp_time(t).unwrap();
        assert_eq!(t.duration_since(ahead).unwrap(), Duration::from_millis(500));
        let behind = Offset(-2.0).ntp_time(t).unwrap();
        assert_eq!(behind.duration_since(t).unwrap(), Duration::from_secs(2));
    }

    /// The base radical.utils uses: `RADICAL_BASE`, `HOME`, `PWD`, the
    /// working directory, each skipped when unset or empty.
    #[test]
    fn the_cache_is_where_radical_utils_keeps_it() {
        let vars = |set: &'static [(&str, &str)]| {
            move |k: &str| {
                set.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let cwd = || Some(PathBuf::from("/cwd"));
        let path = |set| cache_path(vars(set), cwd).unwrap();
        let all = &[
            ("RADICAL_BASE", "/rb"),
            ("HOME", "/home/u"),
            ("PWD", "/pwd"),
        ];
        assert_eq!(path(all), PathBuf::from("/rb/.radical/utils/ntp.cache"));
        let no_base = &[("RADICAL_BASE", ""), ("HOME", "/home/u"), ("PWD", "/pwd")];
        assert_eq!(
            path(no_base),
            PathBuf::from("/home/u/.radical/utils/ntp.cache")
        );
        assert_eq!(
            path(&[("PWD", "/pwd")]),
            PathBuf::from("/pwd/.radical/utils/ntp.cache")
        );
        assert_eq!(path(&[]), PathBuf::from("/cwd/.radical/utils/ntp.cache"));
        assert_eq!(cache_path(vars(&[]), || None), None);
    }
}
