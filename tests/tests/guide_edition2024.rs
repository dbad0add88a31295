//! The guide's examples compile and pass in an edition-2024 crate, as a
//! user who copies them into a new `cargo new` project gets them (edition
//! 2024 makes `std::env::set_var` unsafe, for one).
//!
//! The test writes a crate with `edition = "2024"` that depends on elide by
//! path and includes every chapter of `facade/src/guide/` as the docs of a
//! module of its own, then runs `cargo test --doc` there: rustdoc compiles
//! each example under the crate's edition. A chapter added later is picked
//! up without a change here.

#![cfg(feature = "fixtures")]

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use elide_tests::run_with_deadline;

#[test]
fn guide_examples_pass_in_an_edition_2024_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let guide = root.join("facade/src/guide");
    let mut chapters: Vec<_> = std::fs::read_dir(&guide)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    chapters.sort();
    assert!(chapters.len() >= 5, "guide chapters: {chapters:?}");

    let krate = Path::new(env!("CARGO_TARGET_TMPDIR")).join("guide-edition2024");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"guide-edition2024\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nelide = {{ path = {:?}, features = [\"log\", \"tracing\"] }}\n\n\
         # Not a member of the elide workspace it sits under.\n[workspace]\n",
        root.join("facade").display().to_string()
    );
    std::fs::write(krate.join("Cargo.toml"), manifest).unwrap();
    // The workspace's lock file, so that the build resolves the versions
    // the workspace was tested with, offline too.
    std::fs::copy(root.join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();
    let mut lib = String::from("//! The elide guide, compiled as edition 2024.\n");
    for chapter in &chapters {
        let name = chapter.file_stem().unwrap().to_str().unwrap();
        lib += &format!(
            "#[doc = include_str!({:?})]\npub mod {name} {{}}\n",
            chapter.display().to_string()
        );
    }
    std::fs::write(krate.join("src/lib.rs"), lib).unwrap();

    let out = run_with_deadline(
        Command::new(env!("CARGO"))
            .current_dir(&krate)
            .args(["test", "--doc", "--quiet", "--target-dir"])
            .arg(krate.join("target"))
            // The examples read the environment: start from none of ours.
            .env_remove("RUST_LOG")
            .env_remove("RADICAL_LOG_LVL")
            .env_remove("RADICAL_DEBUG"),
        Duration::from_secs(900),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the guide's examples fail in an edition-2024 crate:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every chapter with an example ran some.
    assert!(stdout.contains("test result: ok"), "{stdout}");
}
