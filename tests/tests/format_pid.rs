//! Lines carry the process id, which elide caches: a forked child must
//! still print its own id, not its parent's.

use elide::format::Format;
use elide::{Kind, Level, Metadata, Record};

static META: Metadata = Metadata::new(
    Kind::Log,
    Level::Info,
    "pid_test",
    "pid_test",
    file!(),
    1,
    "",
);

/// The pid field of a RADICAL line (`<time> : <target> : <pid> : ...`).
fn pid_of(line: &str) -> Option<u32> {
    line.split(" : ").nth(2)?.trim_end().parse().ok()
}

fn line(out: &mut String) {
    out.clear();
    Format::Radical.write(
        &Record::new(&META, Level::Info, format_args!("m"), &[]),
        out,
    );
}

extern "C" {
    fn fork() -> i32;
    fn waitpid(pid: i32, status: *mut i32, options: i32) -> i32;
    fn _exit(code: i32) -> !;
}

#[test]
fn a_forked_child_prints_its_own_pid() {
    let mut out = String::with_capacity(4096);
    // Fills the cache in the parent first.
    line(&mut out);
    assert_eq!(pid_of(&out), Some(std::process::id()), "{out}");
    // SAFETY: the child only formats into an already allocated buffer,
    // compares, and leaves with `_exit` (no destructors, no atexit).
    let child = unsafe { fork() };
    assert!(child >= 0, "fork failed");
    if child == 0 {
        line(&mut out);
        let ok = pid_of(&out) == Some(std::process::id());
        // SAFETY: `_exit` ends the forked child without running the
        // parent's exit handlers or destructors.
        unsafe { _exit(if ok { 0 } else { 1 }) }
    }
    let mut status = 0;
    // SAFETY: waiting for the child just created.
    let waited = unsafe { waitpid(child, &mut status, 0) };
    assert_eq!(waited, child);
    // WIFEXITED && WEXITSTATUS == 0: the child saw its own pid.
    assert_eq!(status, 0, "child exit status {status:#x}");
    // And the parent still prints its own.
    line(&mut out);
    assert_eq!(pid_of(&out), Some(std::process::id()));
}
