//! An application that uses `library-on-elide` and never sets elide up; its
//! only argument says which logger it installs itself (if any). The
//! library's records should go where that logger writes (stdout here, each
//! line marked), else to elide's own default (stderr).

use std::io::Write;

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    match mode.as_str() {
        "env_logger" | "env_logger-then-init" => {
            env_logger::Builder::new()
                .parse_filters("info")
                .target(env_logger::Target::Stdout)
                .format(|buf, r| {
                    writeln!(
                        buf,
                        "via-env_logger {} {} {}",
                        r.level(),
                        r.target(),
                        r.args()
                    )
                })
                .init();
            if mode == "env_logger-then-init" {
                // The application sets elide up: elide's own sinks from now.
                let _guard = elide::init();
                library_on_elide::work(3);
                return;
            }
        }
        "tracing_fmt" => {
            tracing_subscriber::fmt()
                .with_writer(std::io::stdout)
                .with_max_level(tracing::Level::INFO)
                .with_ansi(false)
                .without_time()
                .with_target(true)
                .init();
        }
        "none" => {}
        "none-then-init" => {
            library_on_elide::work(3);
            eprintln!("-- init --");
            let _guard = elide::init();
            library_on_elide::work(3);
            return;
        }
        other => panic!("unknown mode {other:?}"),
    }
    library_on_elide::work(3);
}
