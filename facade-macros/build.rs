//! The static gate reads build-time filters from the environment while the
//! macros expand. Cargo does not see a proc macro read a variable, so this
//! script declares them: changing one re-runs it, rebuilds this crate and so
//! every crate that uses the macros (set in the shell or in
//! `.cargo/config.toml` `[env]`).

fn main() {
    for var in [
        "ELIDE_STATIC_LEVEL",
        "ELIDE_RELEASE_STATIC_LEVEL",
        "ELIDE_STATIC_CHECKS",
        "ELIDE_STATIC_TELEMETRY",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
}
