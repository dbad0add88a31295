//! The `log` crate and elide, both ways (cargo feature `log`).
//!
//! **Inbound**: [`install`] makes elide the `log` logger. A `log` record's
//! target is its namespace, looked up like a macro site's `target:` (the
//! `RADICAL_*` cascade: `HYPER_LOG_LVL`, then `RADICAL_DEFAULT_LOG_LVL`, or
//! the root's variables under [`init_ns`](crate::init_ns); `set_level_for`),
//! through the per-target cache of [`emit`](crate::emit). Its key-values
//! become fields: numbers, booleans, chars and strings typed, the rest
//! through `Display`. The record keeps the file, line and module path
//! `log`'s macro gave (a hand-built record whose file is not `'static`
//! has none). `log::max_level()` follows elide's configuration on
//! every change (`set_level*`, sinks, `reload_from_env`), so a disabled
//! `log::debug!` in a dependency stops at `log`'s own check. While a test
//! capture ([`testing`](crate::testing)) is active on any thread it is
//! `Trace`, so the capturing thread sees every level; the logger still
//! turns away, per thread, what the configuration does not want.
//! [`init`](crate::init) and [`init_ns`](crate::init_ns) install it when no
//! logger is set yet.
//!
//! **Outbound**: [`LogSink`] hands elide records to the `log` logger the
//! application installed (e.g. `env_logger`), fields as key-values.
//!
//! ```
//! # #[cfg(feature = "log")] {
//! elide::bridge::log::install().unwrap();
//! elide::set_level_for("hyper", elide::LevelFilter::Warn);
//! log::warn!(target: "hyper::proto", peer = "10.0.0.1"; "connection reset");
//! # }
//! ```

use ::log::kv::{self, VisitSource};

use crate::bridge::{forward, forwarding, intern, placed, site_at, Place, Recent, SitePlace};
use crate::dispatch::{interest, Route};
use crate::record::level::{Level, LevelFilter};
use crate::record::metadata::Metadata;
use crate::record::value::{Field, Value};
use crate::record::Record;
use crate::runtime::route::of_target_site as enabled_at;
use crate::runtime::runtime_site::{emit_at, site};
use crate::runtime::{self, Shutdown};
use crate::sink::Sink;

/// The `log` logger that routes `log` records into elide. Installed by
/// [`install`]; there is one, [`LOGGER`].
#[derive(Debug)]
pub struct Logger {
    _private: (),
}

/// The one inbound [`Logger`].
pub static LOGGER: Logger = Logger { _private: () };

/// Makes elide the `log` logger (see the [module docs](self)). Fails if the
/// program already installed one.
///
/// ```
/// # #[cfg(feature = "log")] {
/// let _ = elide::bridge::log::install();
/// log::error!("now an elide record");
/// # }
/// ```
pub fn install() -> Result<(), ::log::SetLoggerError> {
    ::log::set_logger(&LOGGER)?;
    runtime::ensure();
    // `log::max_level()` follows the most verbose level elide can emit.
    interest::on_change(|max| ::log::set_max_level(LOG_FILTERS[max as usize]));
    Ok(())
}

/// Whether elide's inbound [`Logger`] is the installed `log` logger.
pub fn is_installed() -> bool {
    let ours: *const dyn ::log::Log = &LOGGER;
    std::ptr::addr_eq(::log::logger() as *const dyn ::log::Log, ours)
}

/// `log`'s filters, by elide's numeric value (the same order).
const LOG_FILTERS: [::log::LevelFilter; 6] = {
    use ::log::LevelFilter as L;
    [L::Off, L::Error, L::Warn, L::Info, L::Debug, L::Trace]
};

fn to_log(l: Level) -> ::log::Level {
    LOG_FILTERS[l as usize]
        .to_level()
        .expect("a level is not Off")
}

fn from_log(l: ::log::Level) -> Level {
    match l {
        ::log::Level::Error => Level::Error,
        ::log::Level::Warn => Level::Warn,
        ::log::Level::Info => Level::Info,
        ::log::Level::Debug => Level::Debug,
        ::log::Level::Trace => Level::Trace,
    }
}

impl ::log::Log for Logger {
    fn enabled(&self, metadata: &::log::Metadata<'_>) -> bool {
        !forwarding() && enabled_at(site(metadata.target()), from_log(metadata.level())).is_some()
    }

    fn log(&self, record: &::log::Record<'_>) {
        if forwarding() {
            return;
        }
        let target = record.target();
        // `log`'s macros give the module path as the target unless told
        // otherwise: then every text of the record is `'static`, known by
        // its address, and the site and its placed metadata are found
        // together in this thread's cache. That case is in line here;
        // any other record goes out of line, so the common one keeps few
        // registers to save.
        match (
            record.module_path_static(),
            record.file_static(),
            record.line(),
        ) {
            (Some(m), Some(file), Some(line)) if std::ptr::eq(m, target) => {
                let (cs, meta) = macro_place(m, file, line);
                let level = from_log(record.level());
                let Some(route) = enabled_at(cs, level) else {
                    return;
                };
                emit_wanted(record, meta, route, level)
            }
            _ => log_placed_later(record),
        }
    }

    fn flush(&self) {
        if !forwarding() {
            runtime::shutdown(Shutdown::Flush);
        }
    }
}

/// A record that does not come from `log`'s macros as they are (a
/// `target:` of its own, a hand-built record): its site is its target's,
/// and its place is looked up only once it is wanted.
#[cold]
#[inline(never)]
fn log_placed_later(record: &::log::Record<'_>) {
    let level = from_log(record.level());
    let target = record.target();
    let cs = site(target);
    let Some(route) = enabled_at(cs, level) else {
        return;
    };
    let place = Place {
        file: record.file_static(),
        line: record.line(),
        module_path: record.module_path_static(),
    };
    let meta = placed(cs.metadata(), place);
    emit_wanted(record, meta, route, level)
}

/// A wanted record: without key-values (the common case, nothing to
/// collect) in line, else through [`emit_with_key_values`].
#[inline(always)]
fn emit_wanted(record: &::log::Record<'_>, meta: &'static Metadata, route: Route, level: Level) {
    if record.key_values().count() == 0 {
        return emit_at(meta, route, record.target(), level, &[], *record.args());
    }
    emit_with_key_values(record, meta, route, level)
}

/// A wanted record with key-values: they become its fields.
#[inline(never)]
fn emit_with_key_values(
    record: &::log::Record<'_>,
    meta: &'static Metadata,
    route: Route,
    level: Level,
) {
    let mut kvs = Collect(Vec::new());
    let _ = record.key_values().visit(&mut kvs);
    let fields: Vec<Field<'_>> = kvs.0.iter().map(|(k, v)| (*k, to_value(v))).collect();
    emit_at(meta, route, record.target(), level, &fields, *record.args());
}

/// Where a `log` macro was: its module path (also its target), file and
/// line, by the addresses of its `'static` texts (the same macro hands over
/// the same texts every time).
type MacroKey = (*const u8, usize, *const u8, usize, u32);

thread_local! {
    static RECENT: Recent<MacroKey> = const { Recent::new() };
}

/// The run-time site of target `module` and its metadata placed at `file`
/// and `line`: from this thread's recent macros at a few compares, else
/// through the site table and [`placed`].
#[inline]
fn macro_place(module: &'static str, file: &'static str, line: u32) -> SitePlace {
    let key: MacroKey = (
        module.as_ptr(),
        module.len(),
        file.as_ptr(),
        file.len(),
        line,
    );
    let find = || {
        let place = Place {
            file: Some(file),
            line: Some(line),
            module_path: Some(module),
        };
        site_at(module, place)
    };
    RECENT
        .try_with(|r| r.get(key, line as usize, find))
        .unwrap_or_else(|_| find())
}

/// The key-values of a `log` record, names made `'static`.
struct Collect<'kvs>(Vec<(&'static str, kv::Value<'kvs>)>);

impl<'kvs> VisitSource<'kvs> for Collect<'kvs> {
    fn visit_pair(&mut self, key: kv::Key<'kvs>, value: kv::Value<'kvs>) -> Result<(), kv::Error> {
        self.0.push((intern(key.as_str()), value));
        Ok(())
    }
}

/// A `log` value as an elide value: typed when `log` can say the type.
fn to_value<'a>(v: &'a kv::Value<'_>) -> Value<'a> {
    if let Some(s) = v.to_borrowed_str() {
        Value::Str(s)
    } else if let Some(b) = v.to_bool() {
        Value::Bool(b)
    } else if let Some(c) = v.to_char() {
        Value::Char(c)
    } else if let Some(n) = v.to_u64() {
        Value::U64(n)
    } else if let Some(n) = v.to_i64() {
        Value::I64(n)
    } else if let Some(n) = v.to_f64() {
        Value::F64(n)
    } else {
        Value::Display(v)
    }
}

/// A sink that hands elide records to the installed `log` logger, for a
/// program that keeps its `env_logger` (or any `log` logger): elide sites
/// then show up there, fields as `log` key-values.
///
/// Its level is `log::max_level()` when the sink is made, so make it after
/// the logger is installed. If the installed logger is elide's own inbound
/// [`Logger`], it forwards nothing (that would loop).
///
/// ```
/// # #[cfg(feature = "log")] {
/// use std::sync::Arc;
/// // env_logger::init();  // the application's logger
/// elide::add_sink(Arc::new(elide::bridge::log::LogSink::new()));
/// elide::warn!(uid = 7, "reaches the log logger");
/// # }
/// ```
#[derive(Debug)]
pub struct LogSink {
    max: LevelFilter,
}

impl LogSink {
    /// A sink forwarding up to `log::max_level()` as it is now.
    pub fn new() -> LogSink {
        LogSink {
            max: LevelFilter::from_u8(::log::max_level() as u8),
        }
    }
}

impl Default for LogSink {
    fn default() -> LogSink {
        LogSink::new()
    }
}

/// An elide record's fields as a `log` key-value source.
struct Fields<'a>(&'a [Field<'a>]);

impl kv::Source for Fields<'_> {
    fn visit<'kvs>(&'kvs self, visitor: &mut dyn VisitSource<'kvs>) -> Result<(), kv::Error> {
        for (k, v) in self.0 {
            visitor.visit_pair(kv::Key::from_str(k), to_log_value(v))?;
        }
        Ok(())
    }
}

fn to_log_value<'a>(v: &'a Value<'a>) -> kv::Value<'a> {
    match v {
        Value::I64(n) => kv::Value::from(*n),
        Value::U64(n) => kv::Value::from(*n),
        Value::I128(n) => kv::Value::from(*n),
        Value::U128(n) => kv::Value::from(*n),
        Value::F64(n) => kv::Value::from(*n),
        Value::Bool(b) => kv::Value::from(*b),
        Value::Char(c) => kv::Value::from(*c),
        Value::Str(s) => kv::Value::from(*s),
        Value::Display(d) => kv::Value::from_dyn_display(*d),
        Value::Debug(d) => kv::Value::from_dyn_debug(*d),
    }
}

impl Sink for LogSink {
    fn max_level(&self) -> LevelFilter {
        self.max
    }

    fn emit(&self, record: &Record<'_>) {
        if is_installed() {
            return;
        }
        let meta = record.metadata();
        let fields = Fields(record.fields());
        let logger = ::log::logger();
        forward(|| {
            record.args().with_args(|args| {
                logger.log(
                    &::log::Record::builder()
                        .args(args)
                        .level(to_log(record.level()))
                        .target(record.target())
                        .module_path_static(Some(meta.module_path()))
                        .file_static((!meta.file().is_empty()).then_some(meta.file()))
                        .line((meta.line() != 0).then_some(meta.line()))
                        .key_values(&fields)
                        .build(),
                )
            })
        });
    }

    fn flush(&self) {
        // Flushing elide's own inbound logger would flush this sink again.
        if !is_installed() {
            forward(|| ::log::logger().flush());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::owned_value::OwnedValue;
    use std::fmt;

    /// Every level and filter crosses to `log` and back unchanged (the
    /// tables count on both crates numbering them alike).
    #[test]
    fn levels_and_filters_cross_both_ways() {
        for l in Level::ALL {
            assert_eq!(from_log(to_log(l)), l);
            assert_eq!(to_log(l).as_str(), l.as_str());
        }
        for f in (0..=5).map(LevelFilter::from_u8) {
            let theirs = LOG_FILTERS[f as usize];
            assert_eq!(theirs.as_str().to_lowercase(), f.as_str());
            assert_eq!(LevelFilter::from_u8(theirs as u8), f);
        }
    }

    /// Each macro place gets its own placed metadata, also when two places
    /// share a slot of the thread's cache (lines 4 and 12) or differ only by
    /// file, and a place found again from the cache is the same copy.
    #[test]
    fn macro_places_sharing_a_slot_or_a_line_keep_their_own_place() {
        let module = "bridge_cache_test::m";
        let places = [("src/a.rs", 4), ("src/a.rs", 12), ("src/b.rs", 4)];
        let first: Vec<_> = places
            .iter()
            .map(|&(file, line)| macro_place(module, file, line))
            .collect();
        for _ in 0..2 {
            for (&(file, line), &(cs, meta)) in places.iter().zip(&first) {
                let (again_cs, again) = macro_place(module, file, line);
                assert!(std::ptr::eq(again_cs, cs) && std::ptr::eq(again, meta));
                assert_eq!(
                    (
                        again.target(),
                        again.module_path(),
                        again.file(),
                        again.line()
                    ),
                    (module, module, file, line)
                );
            }
        }
        assert!(std::ptr::eq(first[0].0, site(module)));
    }

    /// Every shape of `log` record reaches elide whole: from the macros
    /// as they are (place from the cache), with key-values, with a target
    /// of its own, and hand-built with a file that is not `'static` (no
    /// place kept). A non-negative integer arrives as `u64`, the first type
    /// `log` is asked for.
    #[test]
    fn each_shape_of_log_record_arrives_with_its_place_and_fields() {
        use ::log::Log;
        let file = String::from("src/built.rs");
        // Logs a record as `log`'s macros build it here, but for the target.
        fn here<'a>(
            b: &mut ::log::RecordBuilder<'a>,
            target: &'a str,
            line: u32,
            args: fmt::Arguments<'a>,
        ) {
            LOGGER.log(
                &b.target(target)
                    .module_path_static(Some(module_path!()))
                    .file_static(Some(file!()))
                    .line(Some(line))
                    .args(args)
                    .build(),
            )
        }
        let kvs: [(&str, i64); 2] = [("a", 7), ("b", -2)];
        let run = crate::testing::capture(|| {
            let line = line!();
            let b = &mut ::log::Record::builder();
            here(
                b.level(::log::Level::Warn),
                module_path!(),
                line,
                format_args!("plain {}", 1),
            );
            let b = &mut ::log::Record::builder();
            here(
                b.level(::log::Level::Info).key_values(&kvs),
                module_path!(),
                9,
                format_args!("with fields"),
            );
            let b = &mut ::log::Record::builder();
            here(
                b.level(::log::Level::Error).key_values(&kvs),
                "bridge_shapes::own",
                11,
                format_args!("own target"),
            );
            let b = &mut ::log::Record::builder();
            b.level(::log::Level::Error)
                .target("bridge_shapes::hand")
                .file(Some(&file))
                .line(Some(3));
            LOGGER.log(&b.args(format_args!("hand-built")).build());
            line
        });
        let plain = run.records.assert_logged(Level::Warn, "plain 1");
        assert_eq!(
            (plain.target, plain.file, plain.line),
            (module_path!(), file!(), run.value)
        );
        let fields = run.records.assert_logged(Level::Info, "with fields");
        assert_eq!(fields.line, 9);
        assert_eq!(
            fields.fields,
            [("a", OwnedValue::U64(7)), ("b", OwnedValue::I64(-2))]
        );
        let own = run.records.assert_logged(Level::Error, "own target");
        assert_eq!(
            (own.target, own.file, own.line),
            ("bridge_shapes::own", file!(), 11)
        );
        assert_eq!(own.fields.len(), 2);
        let hand = run.records.assert_logged(Level::Error, "hand-built");
        assert_eq!((hand.target, hand.file), ("bridge_shapes::hand", ""));
        assert_eq!(run.records.len(), 4);
    }
}
