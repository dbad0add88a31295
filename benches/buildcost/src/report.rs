//! The results: one markdown table (libraries side by side, ratios) and a
//! long-format CSV.

use crate::generate::Lib;
use std::fmt::Write as _;

/// (N, library, metric key, value).
#[derive(Default)]
pub struct Results {
    rows: Vec<(usize, Lib, &'static str, f64)>,
}

/// Table rows: metric key, label, decimals.
const ROWS: &[(&str, &str, usize)] = &[
    ("clean_s", "clean dev build incl. deps (s)", 2),
    (
        "incr_touch_s",
        "incremental dev build after touch, median (s)",
        2,
    ),
    (
        "incr_touch_minstr",
        "rustc instructions, incremental dev build after touch (callgrind, millions)",
        0,
    ),
    (
        "full_s",
        "dev build of the library, no incremental cache, median (s)",
        2,
    ),
    ("check_touch_s", "`cargo check` after touch, median (s)", 2),
    (
        "check_full_s",
        "`cargo check`, no incremental cache, median (s)",
        2,
    ),
    (
        "ir_fn_lines",
        "LLVM IR instruction lines (as llvm-lines), dev",
        0,
    ),
    ("ir_total_lines", "LLVM IR lines, whole .ll (dev)", 0),
    ("ir_functions", "LLVM IR function definitions", 0),
    (
        "text_per_site",
        "`.text` per function (info! + debug!), bytes",
        1,
    ),
    ("text_fixed", "fixed `.text` once any site exists, bytes", 0),
    (
        "text_init_default",
        "fixed `.text` of `init()` + one site, default features, bytes",
        0,
    ),
    (
        "text_init_console",
        "fixed `.text` of `init()` + one site, console only (`default-features = false`), bytes",
        0,
    ),
    ("text_bin", "`.text` of the release binary, bytes", 0),
    ("syn_versions", "`syn` versions built", 0),
    ("packages", "dependency packages built", 0),
    ("crossbeam_in_graph", "crossbeam-channel in the graph", 0),
    (
        "crossbeam_bytes",
        "crossbeam-channel code in the binary, bytes",
        0,
    ),
];

impl Results {
    pub fn put(&mut self, n: usize, lib: Lib, key: &'static str, value: f64) {
        self.rows.push((n, lib, key, value));
    }

    fn get(&self, n: usize, lib: Lib, key: &str) -> Option<f64> {
        self.rows
            .iter()
            .rev()
            .find(|r| r.0 == n && r.1 == lib && r.2 == key)
            .map(|r| r.3)
    }

    /// One table per N: log | tracing | elide | elide/log | elide/tracing.
    pub fn markdown(&self, ns: &[usize]) -> String {
        let mut s = String::new();
        for &n in ns {
            let _ = writeln!(
                s,
                "\nN = {n}\n\n| | log | tracing | elide | elide/log | elide/tracing |\n|---|---:|---:|---:|---:|---:|"
            );
            for &(key, label, decimals) in ROWS {
                let cell = |lib| {
                    self.get(n, lib, key)
                        .map_or("-".into(), |v| format!("{v:.decimals$}"))
                };
                let ratio = |other| match (self.get(n, Lib::Elide, key), self.get(n, other, key)) {
                    (Some(e), Some(o)) => ratio_cell(e, o),
                    _ => "-".into(),
                };
                let _ = writeln!(
                    s,
                    "| {label} | {} | {} | {} | {} | {} |",
                    cell(Lib::Log),
                    cell(Lib::Tracing),
                    cell(Lib::Elide),
                    ratio(Lib::Log),
                    ratio(Lib::Tracing)
                );
            }
        }
        s
    }

    pub fn csv(&self) -> String {
        let mut s = String::from("n,library,metric,value\n");
        for (n, lib, key, value) in &self.rows {
            let _ = writeln!(s, "{n},{},{key},{value}", lib.name());
        }
        s
    }
}

/// `e / o` as `1.23x`; `-` where the ratio means nothing (o near zero).
fn ratio_cell(e: f64, o: f64) -> String {
    if o.abs() < 1e-9 {
        if e.abs() < 1e-9 {
            "1.00x".into()
        } else {
            "-".into()
        }
    } else {
        format!("{:.2}x", e / o)
    }
}
