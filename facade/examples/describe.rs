//! Prints the effective configuration and which variable decided each key:
//! `RADICAL_LOG_LVL=debug cargo run --example describe -- radical_asyncflow::engine`.
//!
//! Usage: `describe [--ns <root>] [namespace ..]`. Without namespaces it
//! describes the application (`elide::describe()`). `--ns <root>` sets the
//! application root first, as `elide::init_ns` would.

const USAGE: &str = "usage: describe [--ns <root>] [namespace ..]
  Prints elide's effective configuration for each namespace (default: the
  application) and the variable, API call or default that decided each key.";

fn main() {
    let mut root = None;
    let mut namespaces = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return;
            }
            "--ns" => match args.next() {
                Some(ns) => root = Some(ns),
                None => usage_error("--ns needs a root namespace"),
            },
            flag if flag.starts_with('-') => usage_error(&format!("unknown option {flag}")),
            _ => namespaces.push(arg),
        }
    }
    let _guard = match &root {
        Some(ns) => elide::init_ns(ns),
        None => elide::init(),
    };
    if namespaces.is_empty() {
        print!("{}", elide::describe());
    }
    for ns in namespaces {
        print!("{}", elide::describe_for(&ns));
    }
}

fn usage_error(problem: &str) -> ! {
    eprintln!("describe: {problem}\n{USAGE}");
    std::process::exit(2);
}
