//! A real crate migrated by renaming its `log` dependency alone: globset
//! 0.4.22, vendored in `fixtures/globset` with its licences, its source
//! untouched, `log = { package = "elide", .. }` in its manifest. Its own
//! test suite builds and passes, and its `log::debug!` sites reach elide.

#![cfg(feature = "fixtures")]

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use elide_tests::run_with_deadline;

#[test]
fn globset_passes_its_own_tests_on_elide_under_logs_name() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/globset");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("globset");
    let out = run_with_deadline(
        Command::new(env!("CARGO"))
            .current_dir(&fixture)
            .args(["test", "--target-dir"])
            .arg(&target)
            .env_remove("RUST_LOG"),
        Duration::from_secs(900),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "globset's tests fail on elide:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Its unit tests ran (hundreds), not an empty harness.
    let passed: u32 = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("test result: ok. "))
        .filter_map(|l| l.split(" ").next()?.parse::<u32>().ok())
        .sum();
    assert!(passed >= 300, "{stdout}");
}
