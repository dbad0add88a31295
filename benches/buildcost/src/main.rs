//! Build cost of an instrumented crate, elide side by side with `log` 0.4 and
//! `tracing` 0.1 (issue 18).
//!
//! Generates, under the target directory, one library crate of N functions
//! per logging library (each its own workspace and target dir), builds them
//! with `-j2` and the default dev/release profiles, and reports compile
//! times, LLVM IR lines, `.text` per site and fixed, and dependency-graph
//! facts. Times are noisy on a shared machine: compare the ratio columns.
//!
//! ```sh
//! cargo run --release -p elide-bench-buildcost -- --n 500,2000 --runs 3
//! cargo run --release -p elide-bench-buildcost -- --fixed-only
//! ```

mod cargo_cmd;
mod deps;
mod elf;
mod generate;
mod icount;
mod ir;
mod report;
mod shapes;
// The benchmarks' shared subprocess helpers; this one uses only
// `valgrind_available`.
#[path = "../../subprocess.rs"]
#[allow(dead_code)]
mod subprocess;

use std::path::{Path, PathBuf};
use std::time::Instant;

use cargo_cmd::{touch, Cargo};
use generate::{Crate, Fixed, Lib};
use report::Results;

const USAGE: &str = "\
usage: elide-bench-buildcost [--n 500,2000] [--runs 3] [--out DIR] [--jobs 2] [--fixed-only]
  --n LIST      numbers of instrumented functions per library (default 500)
  --runs K      incremental build / check samples, median reported (default 3)
  --out DIR     scratch crates go to DIR/work, the CSV to DIR/buildcost.csv
                (default: <workspace>/target/buildcost)
  --jobs J      cargo -jJ for every build (default 2)
  --shapes      like for like: the four site shapes (same arguments and fields,
                log with `kv`), IR lines and functions per site and the dev
                build after a touch, per library, N = the first --n
  --icount      with --shapes: also rustc's instructions for that build,
                counted by callgrind (log and elide; about a minute each):
                the figure that does not drift with the machine's load
  --fixed-only  only the fixed .text of `init()` + one `error!`, elide with
                its default features and console-only (no default features)";

struct Options {
    ns: Vec<usize>,
    runs: usize,
    out: PathBuf,
    jobs: u32,
    fixed_only: bool,
    shapes: bool,
    icount: bool,
}

fn parse_args() -> Result<Options, String> {
    let root = workspace_root();
    let mut o = Options {
        ns: vec![500],
        runs: 3,
        out: root.join("target/buildcost"),
        jobs: 2,
        fixed_only: false,
        shapes: false,
        icount: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--n" => {
                o.ns = value("--n")?
                    .split(',')
                    .map(|n| match n.trim().parse::<usize>() {
                        Ok(n) if n >= 2 => Ok(n),
                        _ => Err(format!("--n: `{n}` is not a number >= 2")),
                    })
                    .collect::<Result<_, _>>()?
            }
            "--runs" => {
                o.runs = value("--runs")?
                    .parse()
                    .ok()
                    .filter(|&r| r >= 1)
                    .ok_or("--runs needs a number >= 1")?
            }
            "--jobs" => {
                o.jobs = value("--jobs")?
                    .parse()
                    .ok()
                    .filter(|&j| j >= 1)
                    .ok_or("--jobs needs a number >= 1")?
            }
            "--out" => o.out = std::path::absolute(value("--out")?).map_err(|e| e.to_string())?,
            "--fixed-only" => o.fixed_only = true,
            "--shapes" => o.shapes = true,
            "--icount" => o.icount = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok(o)
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn main() {
    if let Some(code) = icount::wrap_if_asked() {
        std::process::exit(code);
    }
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("elide-bench-buildcost: {e}");
            std::process::exit(2);
        }
    };
    let start = Instant::now();
    let outcome = if o.shapes {
        like_for_like(&o)
    } else if o.fixed_only {
        fixed_only(&o)
    } else {
        compare(&o)
    };
    if let Err(e) = outcome {
        eprintln!("elide-bench-buildcost: {e}");
        std::process::exit(1);
    }
    eprintln!(
        "wall time of the run: {:.0} s",
        start.elapsed().as_secs_f64()
    );
}

struct Paths {
    work: PathBuf,
    facade: PathBuf,
    seed_lock: PathBuf,
}

impl Paths {
    fn new(o: &Options) -> Result<Paths, String> {
        let root = workspace_root()
            .canonicalize()
            .map_err(|e| format!("workspace root: {e}"))?;
        let work = o.out.join("work");
        std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
        Ok(Paths {
            work,
            facade: root.join("facade"),
            seed_lock: root.join("Cargo.lock"),
        })
    }

    fn write(&self, c: &Crate) -> Result<(), String> {
        c.write(&self.facade, &self.seed_lock)
            .map_err(|e| format!("writing {}: {e}", c.dir.display()))
    }

    /// Shared per library, so release dependencies are built once per run.
    fn release_dir(&self, lib: Lib) -> PathBuf {
        self.work.join(format!("release-{}", lib.name()))
    }
}

fn progress(what: &str) {
    eprintln!("[buildcost] {what}");
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let m = xs.len() / 2;
    if xs.len() % 2 == 1 {
        xs[m]
    } else {
        (xs[m - 1] + xs[m]) / 2.0
    }
}

/// Builds `c`'s binary with the release profile; its ELF image.
fn release_image(cargo: &Cargo, p: &Paths, c: &Crate) -> Result<elf::Image, String> {
    let target = p.release_dir(c.lib);
    let target_arg = target.display().to_string();
    cargo.time(
        &c.dir,
        &["build", "--release", "--bin", &c.package()],
        &["--target-dir", &target_arg],
    )?;
    read_image(&target.join("release").join(c.package()))
}

fn read_image(path: &Path) -> Result<elf::Image, String> {
    let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    elf::parse(&data).map_err(|e| format!("{}: {e}", path.display()))
}

/// LLVM IR of the library crate in a dev build.
fn ir_lines(cargo: &Cargo, c: &Crate) -> Result<ir::IrLines, String> {
    ir_lines_in(cargo, &c.dir, &c.package())
}

/// LLVM IR of the library crate `package` in `dir`, dev build.
fn ir_lines_in(cargo: &Cargo, dir: &Path, package: &str) -> Result<ir::IrLines, String> {
    let deps = dir.join("target/debug/deps");
    let prefix = format!("{package}-");
    let ll_files = || -> Vec<PathBuf> {
        std::fs::read_dir(&deps)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let name = p.file_name().unwrap_or_default().to_string_lossy();
                name.starts_with(&prefix) && name.ends_with(".ll")
            })
            .collect()
    };
    for stale in ll_files() {
        let _ = std::fs::remove_file(stale);
    }
    touch(&dir.join("src/lib.rs")).map_err(|e| e.to_string())?;
    // The flags of `cargo llvm-lines`: the IR as rustc hands it to LLVM,
    // before any pass (at opt-level 0 the always-inliner would run).
    let flags = [
        "--",
        "--emit=llvm-ir",
        "-Cno-prepopulate-passes",
        "-Cpasses=name-anon-globals",
    ];
    cargo.time(dir, &["rustc", "--lib"], &flags)?;
    let files = ll_files();
    if files.is_empty() {
        return Err(format!("no {prefix}*.ll in {}", deps.display()));
    }
    let mut n = ir::IrLines::default();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        n += ir::count(&text);
    }
    Ok(n)
}

fn touch_lib(c: &Crate) -> std::io::Result<()> {
    touch(&c.lib_rs())
}

/// Removes the library's incremental caches (build and check) in its own
/// scratch target dir and touches lib.rs: the next build compiles the whole
/// library again, its dependencies stay built.
fn forget_incremental(c: &Crate) -> std::io::Result<()> {
    let dir = c.dir.join("target/debug/incremental");
    let prefix = format!("{}-", c.package());
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            std::fs::remove_dir_all(entry.path())?;
        }
    }
    touch_lib(c)
}

/// Instructions rustc executes for the library in `cargo build --lib` after
/// a touch (dependencies and the incremental cache already built).
fn compiler_instructions(cargo: &Cargo, c: &Crate) -> Result<u64, String> {
    // The timed steps end by removing the incremental cache: build it
    // again first, untimed, so the counted build reuses it as (b) does.
    cargo.time(&c.dir, &["build", "--lib"], &[])?;
    touch_build_instructions(cargo, &c.dir, &c.package(), &c.lib_rs())
}

/// Instructions rustc executes for `package` (the library in `dir`) in
/// `cargo build --lib` after a touch of `lib_rs`, under callgrind through
/// this program as the rustc wrapper.
fn touch_build_instructions(
    cargo: &Cargo,
    dir: &Path,
    package: &str,
    lib_rs: &Path,
) -> Result<u64, String> {
    let out = dir.join("target/callgrind.rustc.out");
    let _ = std::fs::remove_file(&out);
    touch(lib_rs).map_err(|e| format!("touch: {e}"))?;
    let me = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let spec = format!("{}={}", package.replace('-', "_"), out.display());
    cargo.time_with(
        dir,
        &["build", "--lib"],
        &[],
        &[
            ("RUSTC_WRAPPER", me.as_os_str()),
            (icount::WRAP_VAR, spec.as_ref()),
        ],
    )?;
    icount::instructions(&out)
}

/// `--shapes`: per shape and library, IR instruction lines and functions
/// per site over the no-logging crate, and the dev build after a touch.
fn like_for_like(o: &Options) -> Result<(), String> {
    let cargo = Cargo::new(o.jobs);
    let p = Paths::new(o)?;
    let n = o.ns[0];
    let libs = [Lib::None, Lib::Log, Lib::Tracing, Lib::Elide];
    println!(
        "| site (N = {n}) | lib | IR lines / site | functions / site | dev build after touch (s) | IR ÷ log | build ÷ log | rustc instructions after touch (M) | ÷ log |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for shape in &shapes::SHAPES {
        let mut rows = Vec::new();
        for lib in libs {
            let dir = shapes::dir(&p.work, lib, n);
            std::fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
            let write = |name: &str, text: String| {
                std::fs::write(dir.join(name), text).map_err(|e| format!("{name}: {e}"))
            };
            write("Cargo.toml", shapes::manifest(lib, n, &p.facade))?;
            write("src/lib.rs", shapes::library_source(shape, lib, n))?;
            if !dir.join("Cargo.lock").exists() && p.seed_lock.exists() {
                std::fs::copy(&p.seed_lock, dir.join("Cargo.lock")).map_err(|e| e.to_string())?;
            }
            progress(&format!("{} {}: dev build", shape.label, lib.name()));
            cargo.time(&dir, &["build", "--lib"], &[])?;
            let mut times = Vec::new();
            for _ in 0..o.runs {
                touch(&dir.join("src/lib.rs")).map_err(|e| e.to_string())?;
                times.push(cargo.time(&dir, &["build", "--lib"], &[])?.as_secs_f64());
            }
            // Counted after the timed builds, so the incremental cache is
            // in the steady state a touch leaves it in (the first rebuild
            // after an edit does several times the work).
            let count = if o.icount && matches!(lib, Lib::Log | Lib::Elide) {
                progress(&format!(
                    "{} {}: rustc under callgrind",
                    shape.label,
                    lib.name()
                ));
                let package = shapes::package(lib, n);
                Some(touch_build_instructions(
                    &cargo,
                    &dir,
                    &package,
                    &dir.join("src/lib.rs"),
                )?)
            } else {
                None
            };
            let ir = ir_lines_in(&cargo, &dir, &shapes::package(lib, n))?;
            rows.push((lib, ir, median(times), count));
        }
        let (_, none, _, _) = rows[0];
        let per = |ir: &ir::IrLines| {
            (
                (ir.instructions as f64 - none.instructions as f64) / n as f64,
                (ir.functions as f64 - none.functions as f64) / n as f64,
            )
        };
        let (log_ir, _) = per(&rows[1].1);
        let (log_time, log_count) = (rows[1].2, rows[1].3);
        for (lib, ir, time, count) in &rows[1..] {
            let (lines, functions) = per(ir);
            let counted = match (count, log_count) {
                (Some(c), Some(l)) => {
                    format!("{:.0} | {:.2}x", *c as f64 / 1e6, *c as f64 / l as f64)
                }
                _ => " | ".to_string(),
            };
            println!(
                "| `{}` | {} | {lines:.1} | {functions:.2} | {time:.2} | {:.2}x | {:.2}x | {counted} |",
                shape.label,
                lib.name(),
                lines / log_ir,
                time / log_time
            );
        }
        println!(
            "| (same crate without sites) | none | {} lines, {} functions in all | | {:.2} | | | | |",
            none.instructions, none.functions, rows[0].2
        );
    }
    Ok(())
}

fn graph(cargo: &Cargo, dir: &Path) -> Result<deps::Graph, String> {
    let tree = cargo.stdout(dir, &["tree", "-e", "normal,build", "--prefix", "none"])?;
    Ok(deps::Graph::parse(&tree))
}

fn compare(o: &Options) -> Result<(), String> {
    let cargo = Cargo::new(o.jobs);
    let p = Paths::new(o)?;
    let mut r = Results::default();

    // .text of the one-function crates, shared by every N.
    progress("release builds of the one-function crates");
    let mut one = Vec::new();
    for lib in [Lib::None, Lib::Log, Lib::Tracing, Lib::Elide] {
        let c = Crate::new(&p.work, lib, 1);
        p.write(&c)?;
        one.push((lib, release_image(&cargo, &p, &c)?.text));
    }
    let text_of = |table: &[(Lib, u64)], lib: Lib| table.iter().find(|(l, _)| *l == lib).unwrap().1;
    // The `--fixed-only` programs: `init()` and one `error!`, with elide's
    // default features and console-only, against `eprintln!`.
    let fixed = fixed_images(
        &cargo,
        &p,
        &[Fixed::Baseline, Fixed::Default, Fixed::ConsoleOnly],
    )?;
    let init_fixed = |i: usize| fixed[i].text as f64 - fixed[0].text as f64;

    for &n in &o.ns {
        let crates: Vec<Crate> = Lib::COMPARED
            .iter()
            .map(|&lib| Crate::new(&p.work, lib, n))
            .collect();
        let none = Crate::new(&p.work, Lib::None, n);
        for c in crates.iter().chain([&none]) {
            p.write(c)?;
        }

        // (f) dependency graph, untimed; also settles each Cargo.lock.
        for c in &crates {
            let g = graph(&cargo, &c.dir)?;
            r.put(n, c.lib, "syn_versions", g.versions("syn").len() as f64);
            r.put(n, c.lib, "packages", (g.packages.len() - 1) as f64);
            r.put(
                n,
                c.lib,
                "crossbeam_in_graph",
                g.versions("crossbeam-channel").len() as f64,
            );
        }

        // (a) clean dev build of the library, dependencies included.
        for c in &crates {
            progress(&format!("N={n} {}: clean dev build", c.lib.name()));
            let target = c.dir.join("target");
            if target.exists() {
                std::fs::remove_dir_all(&target)
                    .map_err(|e| format!("{}: {e}", target.display()))?;
            }
            let t = cargo.time(&c.dir, &["build", "--lib"], &[])?;
            r.put(n, c.lib, "clean_s", t.as_secs_f64());
            // Check artefacts are separate: warm them, untimed.
            cargo.time(&c.dir, &["check", "--lib"], &[])?;
        }

        // (b), (c) dev builds and checks of the library, dependencies
        // reused, libraries interleaved per run so a slow phase of the
        // machine hits all three alike. "touch": the content is unchanged,
        // so incremental compilation re-expands the macros and reuses nearly
        // everything else. "full": the library's incremental cache is
        // removed first, so every function is compiled and code-generated
        // again (what a real edit of a file full of sites tends to cost).
        type Step = (
            &'static str,
            fn(&Crate) -> std::io::Result<()>,
            &'static str,
        );
        let steps: [Step; 4] = [
            ("incr_touch_s", touch_lib, "build"),
            ("check_touch_s", touch_lib, "check"),
            ("full_s", forget_incremental, "build"),
            ("check_full_s", forget_incremental, "check"),
        ];
        let mut samples = vec![vec![Vec::new(); steps.len()]; crates.len()];
        for run in 1..=o.runs {
            progress(&format!(
                "N={n}: incremental builds and checks, run {run}/{}",
                o.runs
            ));
            for ((key, change, command), step) in steps.iter().zip(0..) {
                for (c, lib_samples) in crates.iter().zip(&mut samples) {
                    change(c).map_err(|e| format!("{key}: {e}"))?;
                    let t = cargo.time(&c.dir, &[command, "--lib"], &[])?;
                    lib_samples[step].push(t.as_secs_f64());
                }
            }
        }
        for (c, lib_samples) in crates.iter().zip(samples) {
            for ((key, _, _), xs) in steps.iter().zip(lib_samples) {
                r.put(n, c.lib, key, median(xs));
            }
        }

        // (b') the compiler's instructions in one incremental build after
        // a touch (callgrind, through this program as RUSTC_WRAPPER): the
        // load-independent figure of (b).
        if subprocess::valgrind_available() {
            for c in &crates {
                progress(&format!("N={n} {}: compiler instructions", c.lib.name()));
                let instructions = compiler_instructions(&cargo, c)?;
                r.put(n, c.lib, "incr_touch_minstr", instructions as f64 / 1e6);
            }
        } else {
            eprintln!("valgrind not found: compiler instructions are left out");
        }

        // (d) LLVM IR of the library crate, dev profile.
        for c in &crates {
            progress(&format!("N={n} {}: LLVM IR", c.lib.name()));
            let lines = ir_lines(&cargo, c)?;
            r.put(n, c.lib, "ir_fn_lines", lines.instructions as f64);
            r.put(n, c.lib, "ir_total_lines", lines.total as f64);
            r.put(n, c.lib, "ir_functions", lines.functions as f64);
        }

        // (e) .text, release profile. With b(L, k) = .text of the binary
        // calling all k functions of library L, and L = none the same
        // functions without sites:
        //   per site = ((b(L,N) - b(none,N)) - (b(L,1) - b(none,1))) / (N-1)
        //   fixed    = (b(L,1) - b(none,1)) - per site
        progress(&format!("N={n}: release builds for .text"));
        let none_n = release_image(&cargo, &p, &none)?.text as f64;
        let none_1 = text_of(&one, Lib::None) as f64;
        for c in &crates {
            let image = release_image(&cargo, &p, c)?;
            let with_n = image.text as f64 - none_n;
            let with_1 = text_of(&one, c.lib) as f64 - none_1;
            let per_site = (with_n - with_1) / (n - 1) as f64;
            r.put(n, c.lib, "text_bin", image.text as f64);
            r.put(n, c.lib, "text_per_site", per_site);
            r.put(n, c.lib, "text_fixed", with_1 - per_site);
            if c.lib == Lib::Elide {
                r.put(n, c.lib, "text_init_default", init_fixed(1));
                r.put(n, c.lib, "text_init_console", init_fixed(2));
            }
            r.put(
                n,
                c.lib,
                "crossbeam_bytes",
                image.code_of("crossbeam_channel").1 as f64,
            );
        }
    }

    println!("{}", r.markdown(&o.ns));
    println!(
        "Method: each library crate has N functions `task_i(us) -> u64`, each with \
         `info!(uid = i, state = \"RUNNING\", \"task {{}} took {{}} us\", i, us)` and \
         `debug!(\"step {{}}\", i)` (log 0.4 without its `kv` feature has no fields: they \
         go into its message). Default dev and release profiles, -j{}, each crate its own \
         workspace. Clean = one `cargo build --lib` from an empty target dir; incremental / \
         check = median of {} `cargo build --lib` / `cargo check --lib` after touching lib.rs \
         (content unchanged: incremental reuse), or with the library's incremental cache removed \
         first (full: the whole library compiled again, dependencies reused), libraries \
         interleaved. rustc instructions = callgrind's count for the library's rustc \
         (procedural macros included) in one more build after a touch, this program \
         serving as RUSTC_WRAPPER: independent of the machine's load. \
         IR = instruction lines inside `define`s \
         of the library's .ll (`cargo rustc --lib -- --emit=llvm-ir -Cno-prepopulate-passes \
         -Cpasses=name-anon-globals`, dev profile, as `cargo llvm-lines` counts; `run_all` \
         adds about 4 lines per function to every library). .text from the ELF section table of a \
         release binary calling all N functions (no logger/subscriber/init installed), \
         minus the same program without sites: per site = (Δ(N) - Δ(1)) / (N-1), \
         fixed = Δ(1) - per site. The init rows: `.text` of a program calling `elide::init()` \
         and one `error!` minus one calling `eprintln!` (as `--fixed-only`), elide with its \
         default features and with `default-features = false`.",
        o.jobs, o.runs
    );
    let csv = o.out.join("buildcost.csv");
    std::fs::write(&csv, r.csv()).map_err(|e| format!("{}: {e}", csv.display()))?;
    eprintln!("CSV written to {}", csv.display());
    Ok(())
}

/// Release builds of the fixed-cost programs, in the order given; their
/// images.
fn fixed_images(cargo: &Cargo, p: &Paths, which: &[Fixed]) -> Result<Vec<elf::Image>, String> {
    let target = p.work.join("release-fixed");
    let target_arg = target.display().to_string();
    let mut images = Vec::new();
    for &f in which {
        let dir = f
            .write(&p.work, &p.facade, &p.seed_lock)
            .map_err(|e| format!("writing {}: {e}", f.package()))?;
        progress(&format!("release build of {}", f.package()));
        cargo.time(
            &dir,
            &["build", "--release"],
            &["--target-dir", &target_arg],
        )?;
        images.push(read_image(&target.join("release").join(f.package()))?);
    }
    Ok(images)
}

fn fixed_only(o: &Options) -> Result<(), String> {
    let cargo = Cargo::new(o.jobs);
    let p = Paths::new(o)?;
    let images = fixed_images(
        &cargo,
        &p,
        &[Fixed::Baseline, Fixed::Default, Fixed::ConsoleOnly],
    )?;
    let [without, default, console] = &images[..] else {
        unreachable!("three programs built");
    };
    let fixed = |with: &elf::Image| with.text as i64 - without.text as i64;
    println!("| program (release, default profile) | .text bytes | fixed cost of elide |");
    println!("|---|---:|---:|");
    println!("| `eprintln!` only, no elide | {} | |", without.text);
    println!(
        "| elide, default features: `init()` + one `error!`, console sink | {} | {} |",
        default.text,
        fixed(default)
    );
    println!(
        "| elide, `default-features = false` (console only): the same | {} | **{}** |",
        console.text,
        fixed(console)
    );
    for (what, with) in [("default features", default), ("console only", console)] {
        println!();
        println!("Functions only in the elide program ({what}), by crate of the symbol:");
        println!("| crate | functions | bytes |");
        println!("|---|---:|---:|");
        for (krate, count, bytes) in only_in(without, with) {
            println!("| {krate} | {count} | {bytes} |");
        }
    }
    Ok(())
}

/// Functions of `with` that `without` lacks, by the crate their mangled
/// name names, largest first: where a fixed cost comes from.
fn only_in<'a>(without: &elf::Image, with: &'a elf::Image) -> Vec<(&'a str, usize, u64)> {
    let baseline: std::collections::HashSet<&str> = without
        .functions
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    let mut by_crate: std::collections::BTreeMap<&str, (usize, u64)> = Default::default();
    for (name, bytes) in &with.functions {
        if !baseline.contains(name.as_str()) {
            let entry = by_crate
                .entry(elf::crate_of(name).unwrap_or("(other)"))
                .or_default();
            entry.0 += 1;
            entry.1 += bytes;
        }
    }
    let mut rows: Vec<_> = by_crate
        .into_iter()
        .map(|(krate, (count, bytes))| (krate, count, bytes))
        .collect();
    rows.sort_by_key(|&(_, _, bytes)| std::cmp::Reverse(bytes));
    rows
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn median_of_odd_and_even_samples() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
    }
}
