//! What a line looks like: the RADICAL columns as radical.utils writes
//! them, the same line on every sink path, the record's own time in every
//! layout, and no forged lines or pairs from hostile targets, keys and
//! values.

mod line_reader;

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use elide::format::Format;
use elide::sink::{AsyncSink, DurableFileSink, FileSink};
use elide::{Kind, Level, Metadata, Record, Sink, Value};
use line_reader::{parse_compact, parse_radical, splitlines};

/// 2026-11-30 19:26:59.926123456 UTC.
fn t0() -> SystemTime {
    UNIX_EPOCH + Duration::new(1_796_066_819, 926_123_456)
}

fn line(format: Format, record: &Record<'_>) -> String {
    let mut out = String::new();
    format.write(record, &mut out);
    out
}

static RADICAL: Metadata = Metadata::new(
    Kind::Log,
    Level::Info,
    "radical.asyncflow",
    "format_layout",
    file!(),
    1,
    "",
);

/// radical.utils' `%(created).3f : %(name)-20s : %(process)-5d :
/// %(thread)-5d : %(levelname)-8s : %(message)s`, written with Python's
/// level names, for every level.
#[test]
fn radical_columns_at_every_level() {
    let python_names = [
        (Level::Error, "ERROR"),
        (Level::Warn, "WARNING"),
        (Level::Info, "INFO"),
        (Level::Debug, "DEBUG"),
        (Level::Trace, "TRACE"),
    ];
    for (level, name) in python_names {
        let fields = [("uid", Value::Str("task.000001")), ("n", Value::U64(3))];
        let what = String::from("message");
        let args = format_args!("a {what}");
        let r = Record::new(&RADICAL, level, args, &fields)
            .with_time(t0())
            .with_thread(42);
        let got = line(Format::Radical, &r);
        // Masked: time, pid and thread columns are checked for shape only.
        let mask = |l: &str| {
            let cols: Vec<&str> = l.splitn(6, " : ").collect();
            assert_eq!(cols.len(), 6, "{l:?}");
            assert_eq!(cols[2].len().max(5), cols[2].len(), "pid column {l:?}");
            assert_eq!(cols[3].len().max(5), cols[3].len(), "tid column {l:?}");
            format!("T : {} : P : I : {} : {}", cols[1], cols[4], cols[5])
        };
        let want = format!(
            "T : {:<20} : P : I : {:<8} : a message uid=task.000001 n=3\n",
            "radical.asyncflow", name
        );
        assert_eq!(mask(&got), want, "{got:?}");
        // Unmasked, the columns hold this record's values.
        let want = format!(
            "1796066819.926 : radical.asyncflow    : {:<5} : 42    : {name:<8} : a message uid=task.000001 n=3\n",
            std::process::id()
        );
        assert_eq!(got, want);
    }
}

#[test]
fn long_names_are_not_cut_and_columns_stay_apart() {
    static LONG: Metadata = Metadata::new(
        Kind::Log,
        Level::Info,
        "radical_asyncflow::engine::scheduler",
        "m",
        file!(),
        1,
        "",
    );
    let r = Record::new(&LONG, Level::Warn, format_args!("m"), &[])
        .with_time(t0())
        .with_thread(123_456);
    let got = line(Format::Radical, &r);
    assert!(
        got.starts_with("1796066819.926 : radical_asyncflow::engine::scheduler : "),
        "{got:?}"
    );
    assert!(got.contains(" : 123456 : WARNING  : m\n"), "{got:?}");
}

/// The time column is the record's time, rounded as Python's `%.3f` rounds
/// `time.time()`; JSON carries it to the microsecond and Compact writes its
/// UTC time of day.
#[test]
fn every_layout_writes_the_records_own_time() {
    let r = Record::new(&RADICAL, Level::Info, format_args!("m"), &[]).with_time(t0());
    assert!(line(Format::Radical, &r).starts_with("1796066819.926 : "));
    assert!(line(Format::Compact, &r).starts_with("19:26:59.926 INFO  radical.asyncflow: m"));
    let json: serde_json::Value = serde_json::from_str(&line(Format::Json, &r)).unwrap();
    assert_eq!(json["time"].as_f64(), Some(1_796_066_819.926_123));
    assert!(line(Format::Json, &r).starts_with(r#"{"time":1796066819.926123,"level":"INFO","#));

    // Rounded, not truncated: .9996 s is the next second.
    let late = UNIX_EPOCH + Duration::new(1_796_066_819, 999_600_000);
    let r = Record::new(&RADICAL, Level::Info, format_args!("m"), &[]).with_time(late);
    assert!(line(Format::Radical, &r).starts_with("1796066820.000 : "));
    assert!(line(Format::Compact, &r).starts_with("19:26:59.999 "));

    // Another time of day, far from the first in every unit.
    let t = UNIX_EPOCH + Duration::new(1_700_000_000 + 3 * 3600 + 7 * 60 + 5, 4_000_000);
    let r = Record::new(&RADICAL, Level::Info, format_args!("m"), &[]).with_time(t);
    assert!(line(Format::Compact, &r).starts_with("01:20:25.004 "));
    assert!(line(Format::Radical, &r).starts_with("1700011225.004 : "));
}

/// Every file path writes the same bytes as `Format::Radical.write`: the
/// buffered file sink, the durable one, and both async writers (which
/// format on their own thread from what the caller captured).
#[test]
fn same_line_on_every_sink_path() {
    struct Shown(&'static str);
    impl fmt::Display for Shown {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }
    let dir = elide_tests::Scratch::dir("layout");
    let shown = Shown(" key=forged\u{2028}");
    let fields = [
        ("uid", Value::Str("task.1")),
        ("d", Value::Display(&shown)),
        ("n", Value::I64(-3)),
    ];
    let message = String::from("dynamic\nmessage");
    let args = format_args!("{message}");
    let r = Record::new(&RADICAL, Level::Warn, args, &fields)
        .with_time(t0())
        .with_thread(9);
    let want = line(Format::Radical, &r);
    assert_eq!(
        want,
        format!(
            "1796066819.926 : radical.asyncflow    : {:<5} : 9     : WARNING  : dynamic\\nmessage uid=task.1 d=\" key=forged\\u{{2028}}\" n=-3\n",
            std::process::id()
        )
    );
    let sinks: Vec<(&str, Arc<dyn Sink>)> = vec![
        ("file", Arc::new(FileSink::open(dir.join("file")).unwrap())),
        (
            "durable",
            Arc::new(DurableFileSink::open(dir.join("durable")).unwrap()),
        ),
        (
            "async",
            Arc::new(AsyncSink::open(dir.join("async")).unwrap()),
        ),
        (
            "async-durable",
            Arc::new(AsyncSink::open_durable(dir.join("async-durable")).unwrap()),
        ),
    ];
    for (name, sink) in &sinks {
        sink.emit(&r);
        sink.flush();
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        assert_eq!(text, want, "{name}");
    }
    drop(sinks);
}

/// `info!(target: "tgt\nFORGED : x", ..)` and friends: whatever the target,
/// message, key or value, one record is one line for Python's
/// `splitlines()`, and reads back as the same target and fields.
#[test]
fn hostile_targets_keys_and_values_forge_nothing() {
    struct Evil;
    impl fmt::Display for Evil {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(" key=forged")
        }
    }
    impl fmt::Debug for Evil {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("x\" y=\"z\\")
        }
    }
    static EVIL: Metadata = Metadata::new(
        Kind::Log,
        Level::Info,
        "tgt\nFORGED : x\u{2028}y\u{85}z\\ w:",
        "m",
        file!(),
        1,
        "",
    );
    let fields = [
        ("d", Value::Display(&Evil)),
        ("g", Value::Debug(&Evil)),
        ("k ey=\n", Value::Str("v\u{2029}")),
        ("c", Value::Char(' ')),
        ("s", Value::Str("a\"b\\c")),
        ("e", Value::Str("")),
        ("plain", Value::Str("RUNNING")),
    ];
    let args = format_args!("m\u{2028}{}", 1);
    let r = Record::new(&EVIL, Level::Info, args, &fields).with_time(t0());
    let want_fields: Vec<(String, String)> = [
        ("d", " key=forged"),
        ("g", "x\" y=\"z\\"),
        ("k ey=\n", "v\u{2029}"),
        ("c", " "),
        ("s", "a\"b\\c"),
        ("e", ""),
        ("plain", "RUNNING"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    for format in [
        Format::Radical,
        Format::RadicalDotted,
        Format::Compact,
        Format::Json,
    ] {
        let l = line(format, &r);
        assert_eq!(splitlines(&l).len(), 1, "{format:?}: {l:?}");
        assert!(l.is_ascii(), "{format:?}: {l:?}");
    }
    let radical = line(Format::Radical, &r);
    // Exact spelling of the quoting rule, for the eye.
    assert!(
        radical.ends_with(
            " d=\" key=forged\" g=\"x\\\" y=\\\"z\\\\\" \"k ey=\\n\"=\"v\\u{2029}\" c=\" \" s=\"a\\\"b\\\\c\" e=\"\" plain=RUNNING\n"
        ),
        "{radical:?}"
    );
    let p = parse_radical(radical.trim_end_matches('\n'), fields.len()).unwrap();
    assert_eq!(p.target, EVIL.target());
    assert_eq!(p.fields, want_fields);
    assert_eq!(p.level, "INFO");
    let c = line(Format::Compact, &r);
    let p = parse_compact(c.trim_end_matches('\n'), fields.len()).unwrap();
    assert_eq!(p.target, EVIL.target());
    assert_eq!(p.fields, want_fields);
    let json: serde_json::Value = serde_json::from_str(&line(Format::Json, &r)).unwrap();
    assert_eq!(json["target"], EVIL.target());
    assert_eq!(json["fields"]["k ey=\n"], "v\u{2029}");
    assert!(line(Format::Json, &r).contains("\\u2028"));
}

/// Plain values stay bare (a reader greps `state=RUNNING`); numbers and
/// bools too.
#[test]
fn plain_values_are_not_quoted() {
    let fields = [
        ("state", Value::Str("RUNNING")),
        ("uid", Value::Str("task.000001")),
        ("c", Value::Char('x')),
        ("n", Value::U64(7)),
        ("f", Value::F64(0.5)),
        ("ok", Value::Bool(true)),
        ("d", Value::Display(&"shown")),
        // Non-ASCII that shares a lead byte with C1 controls (0xC2) or the
        // line separators (0xE2) is text, not a line break.
        ("t", Value::Str("5°C→€‰")),
    ];
    let r = Record::new(&RADICAL, Level::Info, format_args!("m"), &fields).with_time(t0());
    let tail = "m state=RUNNING uid=task.000001 c=x n=7 f=0.5 ok=true d=shown t=5°C→€‰\n";
    let radical = line(Format::Radical, &r);
    assert!(radical.ends_with(&format!(" : {tail}")), "{radical:?}");
    let compact = line(Format::Compact, &r);
    assert!(compact.ends_with(&format!(": {tail}")), "{compact:?}");
}

/// Through the macros and the global sink set, as a user writes it.
#[test]
fn forged_target_through_a_macro_is_one_line() {
    struct Lines(Mutex<String>);
    impl Sink for Lines {
        fn emit(&self, r: &Record<'_>) {
            for f in [
                Format::Radical,
                Format::RadicalDotted,
                Format::Compact,
                Format::Json,
            ] {
                f.write(r, &mut self.0.lock().unwrap());
            }
        }
    }
    let lines = Arc::new(Lines(Mutex::new(String::new())));
    elide::set_sinks([lines.clone() as Arc<dyn Sink>]);
    elide::set_level(elide::LevelFilter::Info);
    elide::info!(target: "tgt\nFORGED : x", d = %" key=forged", "hi\u{2029}");
    let text = lines.0.lock().unwrap().clone();
    assert_eq!(splitlines(&text).len(), 4, "{text:?}");
    assert!(text.contains(" d=\" key=forged\""), "{text:?}");
    elide::set_sinks([]);
}

/// A message from a macro, its arguments of every kind and format spec,
/// reads in a JSON line and in a RADICAL line as `format!` writes it (the
/// lines write the pieces and integers themselves, not through `fmt`).
#[test]
fn a_macro_message_is_the_text_format_writes_in_every_layout() {
    struct Lines(Mutex<Vec<String>>);
    impl Sink for Lines {
        fn emit(&self, r: &Record<'_>) {
            for f in [Format::Json, Format::Radical] {
                self.0.lock().unwrap().push(line(f, r));
            }
        }
    }
    let lines = Arc::new(Lines(Mutex::new(Vec::new())));
    elide::set_sinks([lines.clone() as Arc<dyn Sink>]);
    elide::set_level(elide::LevelFilter::Info);
    let (n, i, x, s) = (18_446_744_073_709_551_615u64, -42i32, 1.5f64, "q\"\\ \n");
    elide::info!(
        "n={} i={} x={} x2={:.2} s={} s?={:?} w=[{:>5}] h={:#x} u={}",
        n,
        i,
        x,
        x,
        s,
        s,
        i,
        n,
        7u8
    );
    let want = format!(
        "n={} i={} x={} x2={:.2} s={} s?={:?} w=[{:>5}] h={:#x} u={}",
        n, i, x, x, s, s, i, n, 7u8
    );
    elide::set_sinks([]);
    let lines = lines.0.lock().unwrap();
    let json: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(json["msg"], want.as_str(), "{}", lines[0]);
    let escaped = want.replace('\n', "\\n");
    assert!(
        lines[1].ends_with(&format!(" : INFO     : {escaped}\n")),
        "{}",
        lines[1]
    );
}

/// `Format::RadicalDotted` under `init_ns("radical.asyncflow")` spells the name
/// column as radical.utils' logger names read.
#[test]
fn dotted_names_under_the_root_namespace() {
    static ENGINE: Metadata = Metadata::new(
        Kind::Log,
        Level::Info,
        "radical_asyncflow::engine",
        "m",
        file!(),
        1,
        "",
    );
    static OTHER: Metadata =
        Metadata::new(Kind::Log, Level::Info, "my_app::db", "m", file!(), 1, "");
    let _guard = elide::init_ns("radical.asyncflow");
    let r = Record::new(&ENGINE, Level::Info, format_args!("m"), &[]).with_time(t0());
    let o = Record::new(&OTHER, Level::Info, format_args!("m"), &[]).with_time(t0());
    assert!(line(Format::Radical, &r).starts_with("1796066819.926 : radical_asyncflow::engine : "));
    let dotted = line(Format::RadicalDotted, &r);
    let other = line(Format::RadicalDotted, &o);
    let compact = line(Format::Compact, &r);
    assert!(
        dotted.starts_with("1796066819.926 : radical.asyncflow.engine : "),
        "{dotted:?}"
    );
    assert!(
        other.starts_with(&format!("1796066819.926 : {:<20} : ", "my_app.db")),
        "{other:?}"
    );
    // The option belongs to the value: the other layouts, and the plain
    // RADICAL line written after it, keep the target as written.
    assert!(
        compact.contains(" radical_asyncflow::engine: "),
        "{compact:?}"
    );
    assert!(line(Format::Radical, &r).starts_with("1796066819.926 : radical_asyncflow::engine : "));
}

/// `key = ?value` of a string is quoted once, as tracing's fmt writes it,
/// in every layout; other Debug text is a value as before; hostile strings
/// stay one line and read back.
#[test]
fn debug_strings_are_quoted_once_in_every_layout() {
    let name = "alice";
    let root = String::from("/tmp/t");
    let evil = "a \"b\"\nforged=1\u{2028}";
    let opt = Some("x");
    let fields = [
        ("user", Value::Debug(&name)),
        ("root", Value::Debug(&root)),
        ("evil", Value::Debug(&evil)),
        ("opt", Value::Debug(&opt)),
    ];
    let r = Record::new(&RADICAL, Level::Info, format_args!("m"), &fields).with_time(t0());
    let tail = r#"m user="alice" root="/tmp/t" evil="a \"b\"\nforged=1\u{2028}" opt="Some(\"x\")""#;
    for format in [Format::Radical, Format::Compact] {
        let out = line(format, &r);
        assert!(out.ends_with(&format!("{tail}\n")), "{format:?}: {out:?}");
        assert_eq!(splitlines(&out).len(), 1, "{out:?}");
    }
    let json: serde_json::Value = serde_json::from_str(&line(Format::Json, &r)).unwrap();
    assert_eq!(json["fields"]["user"], "alice");
    assert_eq!(json["fields"]["root"], "/tmp/t");
    assert_eq!(json["fields"]["evil"], evil);
    assert_eq!(json["fields"]["opt"], "Some(\"x\")");
}
