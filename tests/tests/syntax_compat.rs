//! The call-site syntax users of `log` and `tracing` already write: each
//! form compiles and records what it says.

use elide_tests::serial;
use std::sync::Arc;

use elide::sink::{MemorySink, OwnedRecord, OwnedValue};
use elide::{info, log, warn, Level, LevelFilter, Sink};

fn capture() -> Arc<MemorySink> {
    let mem = Arc::new(MemorySink::new());
    elide::set_sinks([mem.clone() as Arc<dyn Sink>]);
    elide::set_level(LevelFilter::Trace);
    mem
}

fn fields(r: &OwnedRecord) -> Vec<(&'static str, String)> {
    r.fields.iter().map(|(k, v)| (*k, v.to_string())).collect()
}

#[test]
fn log_key_values_before_a_semicolon() {
    let _s = serial();
    let mem = capture();
    let x = "cats";
    info!(target: "t", cat_1 = "chashu", cat_count = 2; "hello {}", x);
    let lvl = Level::Warn;
    log!(lvl, a = 1; "msg");
    log!(target: "t2", Level::Error, a = 1, b = true; "two {}", 2);
    warn!(a = 1;);
    let r = mem.take();
    assert_eq!(r[0].target, "t");
    assert_eq!(r[0].message, "hello cats");
    assert_eq!(
        fields(&r[0]),
        [("cat_1", "chashu".into()), ("cat_count", "2".into())]
    );
    assert_eq!(r[0].field("cat_count"), Some(&OwnedValue::I64(2)));
    assert_eq!((r[1].level, r[1].message.as_str()), (Level::Warn, "msg"));
    assert_eq!(fields(&r[1]), [("a", "1".into())]);
    assert_eq!(r[2].target, "t2");
    assert_eq!(r[2].message, "two 2");
    assert_eq!(fields(&r[3]), [("a", "1".into())]);
}

#[test]
fn log_capture_modifiers() {
    let _s = serial();
    let mem = capture();
    let e = std::io::Error::other("disk full");
    let v = vec![1, 2];
    info!(v:? = v, e:err = e, n:% = 5, v:?; "captured");
    let r = mem.take();
    assert_eq!(
        fields(&r[0]),
        [
            ("v", "[1, 2]".into()),
            ("e", "disk full".into()),
            ("n", "5".into()),
            ("v", "[1, 2]".into())
        ]
    );
    assert!(matches!(r[0].field("v"), Some(OwnedValue::Debug(_))));
}

#[test]
fn option_fields_record_some_and_omit_none() {
    let _s = serial();
    let mem = capture();
    let port: Option<u16> = Some(8080);
    let peer: Option<&str> = None;
    let name: Option<String> = Some("db".into());
    info!(port, peer, name = &name, plain = 3, "opts");
    info!(gone = None::<u8>, "only none");
    let r = mem.take();
    assert_eq!(
        fields(&r[0]),
        [
            ("port", "8080".into()),
            ("name", "db".into()),
            ("plain", "3".into())
        ]
    );
    assert_eq!(r[0].field("port"), Some(&OwnedValue::U64(8080)));
    assert!(r[1].fields.is_empty());
}

#[derive(Debug)]
struct Pos {
    x: i32,
}

struct Conn {
    addr: std::net::SocketAddr,
}

impl Conn {
    fn moved(&self, pos: &Pos) {
        info!(?pos.x, %self.addr, "moved");
    }
}

#[test]
fn dotted_shorthand_with_a_sigil() {
    let _s = serial();
    let mem = capture();
    let c = Conn {
        addr: "127.0.0.1:80".parse().unwrap(),
    };
    c.moved(&Pos { x: -3 });
    let pos = Pos { x: 4 };
    info!(pos.x, "plain dotted");
    let r = mem.take();
    assert_eq!(
        fields(&r[0]),
        [("pos.x", "-3".into()), ("self.addr", "127.0.0.1:80".into())]
    );
    assert!(matches!(r[0].field("pos.x"), Some(OwnedValue::Debug(_))));
    assert_eq!(r[1].field("pos.x"), Some(&OwnedValue::I64(4)));
}

#[test]
fn string_literal_keys() {
    let _s = serial();
    let mem = capture();
    let ct = "text/plain";
    info!("content-type" = ct, "x-id" = ?7, "req");
    let r = mem.take();
    assert_eq!(r[0].message, "req");
    assert_eq!(
        fields(&r[0]),
        [("content-type", "text/plain".into()), ("x-id", "7".into())]
    );
}

#[test]
fn tracing_level_constants_event_and_enabled_aliases() {
    let _s = serial();
    let mem = capture();
    elide::event!(Level::INFO, answer = 42, "computed");
    elide::event!(target: "ev", Level::DEBUG, "debug {}", 1);
    elide::log!(Level::TRACE, "trace const");
    assert!(elide::log_enabled!(Level::Debug));
    assert!(elide::event_enabled!(Level::TRACE, answer));
    assert!(elide::enabled!(target: "ev", Level::WARN));
    elide::set_level(LevelFilter::Info);
    assert!(!elide::log_enabled!(Level::Debug));
    assert!(!elide::event_enabled!(target: "ev", Level::DEBUG));
    let r = mem.take();
    assert_eq!(r[0].level, Level::Info);
    assert_eq!(r[0].field("answer"), Some(&OwnedValue::I64(42)));
    assert_eq!((r[1].target, r[1].level), ("ev", Level::Debug));
    assert_eq!(r[2].level, Level::Trace);
}

#[test]
fn run_time_targets_need_not_be_static() {
    let _s = serial();
    let mem = capture();
    elide::set_level_for("dyn.quiet", LevelFilter::Off);
    for name in ["dyn.loud", "dyn.quiet", "dyn.loud"] {
        let owned = String::from(name); // not 'static
        info!(target: owned.as_str(), n = 1, "from {}", name);
        let lvl = Level::Warn;
        log!(target: &owned, lvl, "dynamic level");
        assert_eq!(
            elide::enabled!(target: &owned, Level::Info),
            name == "dyn.loud"
        );
    }
    let r = mem.take();
    let got: Vec<_> = r.iter().map(|r| (r.target, r.message.as_str())).collect();
    assert_eq!(
        got,
        [
            ("dyn.loud", "from dyn.loud"),
            ("dyn.loud", "dynamic level"),
            ("dyn.loud", "from dyn.loud"),
            ("dyn.loud", "dynamic level"),
        ]
    );
    // A later change reaches the cached run-time site.
    elide::set_level_for("dyn.quiet", LevelFilter::Info);
    let owned = String::from("dyn.quiet");
    info!(target: owned.as_str(), "now on");
    assert_eq!(mem.messages(), ["now on"]);
}

const CONST_TARGET: &str = "consts.target";

#[test]
fn constant_targets_keep_their_static_site() {
    let _s = serial();
    let mem = capture();
    info!(target: CONST_TARGET, "c");
    info!(target: concat!("con", "cat"), "m");
    let r = mem.take();
    assert_eq!((r[0].target, r[1].target), ("consts.target", "concat"));
    // A static site knows its line; a run-time target's shared site does not.
    assert_ne!(r[0].line, 0);
}

mod facade {
    //! A crate that re-exports elide under another path, as a facade crate
    //! or a renamed dependency would.
    pub(crate) use elide as renamed_elide;
}

#[test]
fn crate_argument_names_a_renamed_elide() {
    let _s = serial();
    let mem = capture();
    info!(
        crate = crate::facade::renamed_elide,
        n = 1,
        "through the facade"
    );
    facade::renamed_elide::log!(crate = facade::renamed_elide, Level::Warn, "log too");
    assert!(elide::enabled!(
        crate = crate::facade::renamed_elide,
        Level::Warn
    ));
    assert_eq!(mem.messages(), ["through the facade", "log too"]);
}

/// An error with a source, as `thiserror` or `io::Error::other` make them.
#[derive(Debug)]
struct Outer(std::io::Error);

impl std::fmt::Display for Outer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("reading config")
    }
}

impl std::error::Error for Outer {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// tracing's idioms: a `&dyn Error` field with its source chain,
/// `field::debug`/`display`/`Empty`, `name:` and `parent:`, braced fields,
/// `concat!`/`stringify!` messages, and `message =` as the message.
#[test]
fn tracing_idioms_record_what_they_say() {
    use std::error::Error;
    let _s = serial();
    let mem = capture();
    let e = Outer(std::io::Error::other("permission denied"));
    elide::error!(error = &e as &dyn Error, "failed");
    let boxed: Box<dyn Error + Send + Sync> = Box::new(Outer(std::io::Error::other("gone")));
    elide::error!(error = &*boxed as &(dyn Error + Send + Sync), "boxed");
    info!(
        a = elide::field::debug("x"),
        b = elide::field::display(3),
        c = elide::field::Empty,
        "helpers"
    );
    info!(name: "conn.open", target: "net", parent: None::<&elide::span::Span>, "named");
    info!({ a = 1, b = ?"q" }, "braced");
    info!(concat!("con", "cat ", 1, '!'));
    info!(stringify!(x + y));
    info!(message = "hello", n = 2);
    info!(message = ?"dbg");
    let r = mem.take();
    assert_eq!(r.len(), 9, "{r:?}");
    assert_eq!(
        fields(&r[0]),
        [("error", "reading config: permission denied".into())]
    );
    assert_eq!(fields(&r[1]), [("error", "reading config: gone".into())]);
    assert_eq!(fields(&r[2]), [("a", "\"x\"".into()), ("b", "3".into())]);
    assert_eq!(
        (r[3].name, r[3].target, r[3].message.as_str()),
        ("conn.open", "net", "named")
    );
    assert_eq!(fields(&r[4]), [("a", "1".into()), ("b", "\"q\"".into())]);
    assert_eq!(r[5].message, "concat 1!");
    assert_eq!(r[6].message, "x + y");
    assert_eq!(
        (r[7].message.as_str(), fields(&r[7])),
        ("hello", vec![("n", "2".into())])
    );
    assert_eq!(r[8].message, "\"dbg\"");
}

/// Fields named like the message macros elide reads (`concat!`,
/// `stringify!`) stay fields: only the name followed by `!` is a message.
#[test]
fn fields_named_concat_or_stringify_stay_fields() {
    let _s = serial();
    let mem = capture();
    info!(concat = 1, stringify = 2, "fields");
    let r = mem.take();
    assert_eq!(
        fields(&r[0]),
        [("concat", "1".into()), ("stringify", "2".into())]
    );
    assert_eq!(r[0].message, "fields");
}

/// log's capture syntax on fields named like tracing's arguments stays a
/// field.
#[test]
fn name_and_parent_fields_with_log_captures_stay_fields() {
    let _s = serial();
    let mem = capture();
    let (name, parent) = ("n", 7);
    info!(name:? = name, parent:% = parent; "captures");
    info!(name:debug, parent:err; "shorthand");
    // A capture as the only thing of a site without a message.
    info!(name:debug);
    let r = mem.take();
    assert_eq!(
        fields(&r[0]),
        [("name", "\"n\"".into()), ("parent", "7".into())]
    );
    assert_eq!(
        fields(&r[1]),
        [("name", "\"n\"".into()), ("parent", "7".into())]
    );
    assert_eq!(fields(&r[2]), [("name", "\"n\"".into())]);
}
