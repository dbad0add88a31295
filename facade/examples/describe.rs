//! Prints the effective configuration and which variable decided each key:
//! `RADICAL_LOG_LVL=debug cargo run --example describe -- radical_asyncflow::engine`.
//!
//! Arguments: namespaces to describe (default: the root namespace).
//! `--ns <root>` sets the application root first, as `elide::init_ns` would.

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let _guard = if args.peek().map(String::as_str) == Some("--ns") {
        args.next();
        elide::init_ns(&args.next().unwrap_or_default())
    } else {
        elide::init()
    };
    let namespaces: Vec<String> = args.collect();
    if namespaces.is_empty() {
        print!("{}", elide::describe());
    }
    for ns in namespaces {
        print!("{}", elide::describe_for(&ns));
    }
}
