//! Turning measurements into the table (markdown) and the CSV.

use std::fmt::Write;
use std::path::PathBuf;

/// What was measured for one variant.
pub struct Measured {
    pub bin: PathBuf,
    pub name: String,
    pub row: String,
    pub lib: String,
    /// The loop function callgrind collects inside.
    pub hot: String,
    /// ns per iteration, one per round.
    pub ns: Vec<f64>,
    /// ns per iteration of the bare loop, timed right after each round.
    pub bare_ns: Vec<f64>,
    /// Instructions per iteration, if callgrind ran.
    pub ir: Option<f64>,
}

/// One line of the table.
struct Line {
    row: String,
    lib: String,
    name: String,
    ns: f64,
    ns_min: f64,
    ns_max: f64,
    delta_ns: f64,
    ir: Option<f64>,
    delta_ir: Option<f64>,
    vs_log: Option<f64>,
    vs_tracing: Option<f64>,
    vs_spdlog: Option<f64>,
    /// Whether the ratios compare instructions (else ns).
    ratio_of_ir: bool,
}

/// The finished table.
pub struct Table {
    lines: Vec<Line>,
    callgrind: bool,
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// Machine and method, printed above the table.
pub fn header(method: &str) -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("machine: {cpus} CPUs, {cpu}\n{method}\n")
}

/// Below this, a cost is indistinguishable from zero for a ratio.
fn is_zero(delta: f64, of_ir: bool) -> bool {
    delta.abs() < if of_ir { 0.05 } else { 0.02 }
}

pub fn table(measured: &[Measured], callgrind: bool) -> Table {
    let base = |m: &Measured| {
        measured
            .iter()
            .find(|b| b.bin == m.bin && b.name == "bare")
            .expect("every build has a bare loop")
    };
    let mut lines: Vec<Line> = measured
        .iter()
        .map(|m| {
            let b = base(m);
            let ns = median(&m.ns);
            Line {
                row: m.row.clone(),
                lib: m.lib.clone(),
                name: m.name.clone(),
                ns,
                ns_min: m.ns.iter().copied().fold(f64::INFINITY, f64::min),
                ns_max: m.ns.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                delta_ns: median(
                    &m.ns
                        .iter()
                        .zip(&m.bare_ns)
                        .map(|(v, b)| v - b)
                        .collect::<Vec<_>>(),
                ),
                ir: m.ir,
                delta_ir: m.ir.zip(b.ir).map(|(a, b)| a - b),
                vs_log: None,
                vs_tracing: None,
                vs_spdlog: None,
                ratio_of_ir: false,
            }
        })
        .collect();
    for i in 0..lines.len() {
        if lines[i].lib != "elide" {
            continue;
        }
        let ratio = |lib: &str| -> Option<(f64, bool)> {
            let e = &lines[i];
            let o = lines.iter().find(|o| o.row == e.row && o.lib == lib)?;
            let (a, b, of_ir) = match (e.delta_ir, o.delta_ir) {
                (Some(a), Some(b)) => (a, b, true),
                _ => (e.delta_ns, o.delta_ns, false),
            };
            match (is_zero(a, of_ir), is_zero(b, of_ir)) {
                (true, true) => Some((1.0, of_ir)),
                (_, true) => None,
                (true, false) => Some((0.0, of_ir)),
                _ => Some((a / b, of_ir)),
            }
        };
        let log = ratio("log");
        let tracing = ratio("tracing");
        let spdlog = ratio("spdlog-rs");
        let l = &mut lines[i];
        l.vs_log = log.map(|r| r.0);
        l.vs_tracing = tracing.map(|r| r.0);
        l.vs_spdlog = spdlog.map(|r| r.0);
        l.ratio_of_ir = log.or(tracing).or(spdlog).is_some_and(|r| r.1);
    }
    Table { lines, callgrind }
}

/// Few significant digits: the noise is larger than more would show.
fn num(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn ratio(r: Option<f64>) -> String {
    r.map_or_else(String::new, |r| format!("{}x", num(r)))
}

impl Table {
    /// A GitHub markdown table, columns padded for the terminal.
    pub fn markdown(&self) -> String {
        let of = if self.callgrind { "instr" } else { "ns" };
        let head = [
            "row".to_owned(),
            "lib".to_owned(),
            "ns/iter".to_owned(),
            "Δ ns".to_owned(),
            "instr/iter".to_owned(),
            "Δ instr".to_owned(),
            format!("÷ log (Δ {of})"),
            format!("÷ tracing (Δ {of})"),
            format!("÷ spdlog-rs (Δ {of})"),
        ];
        let rows: Vec<[String; 9]> = self
            .lines
            .iter()
            .map(|l| {
                [
                    l.row.clone(),
                    l.lib.clone(),
                    num(l.ns),
                    num(l.delta_ns),
                    l.ir.map_or("-".to_owned(), num),
                    l.delta_ir.map_or("-".to_owned(), num),
                    ratio(l.vs_log),
                    ratio(l.vs_tracing),
                    ratio(l.vs_spdlog),
                ]
            })
            .collect();
        let width = |c: usize| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([head[c].chars().count()])
                .max()
                .unwrap_or(0)
        };
        let widths: Vec<usize> = (0..head.len()).map(width).collect();
        let mut out = String::new();
        let mut line = |cells: &[String]| {
            out.push('|');
            for (c, cell) in cells.iter().enumerate() {
                let pad = widths[c] - cell.chars().count();
                if c < 2 {
                    let _ = write!(out, " {cell}{} |", " ".repeat(pad));
                } else {
                    let _ = write!(out, " {}{cell} |", " ".repeat(pad));
                }
            }
            out.push('\n');
        };
        line(&head);
        let rule: Vec<String> = (0..head.len())
            .map(|c| {
                let dashes = "-".repeat(widths[c].max(3));
                if c < 2 {
                    dashes
                } else {
                    format!("{}:", &dashes[1..])
                }
            })
            .collect();
        line(&rule);
        for r in &rows {
            line(r);
        }
        out
    }

    /// The bars of the chart: each variant's cost over the bare loop of its
    /// build (instructions when callgrind ran, else ns), bare loops left out.
    pub fn bars(&self) -> Vec<crate::chart::Bar> {
        self.lines
            .iter()
            .filter(|l| l.name != "bare")
            .map(|l| crate::chart::Bar {
                row: l.row.clone(),
                lib: l.lib.clone(),
                cost: if self.callgrind {
                    l.delta_ir.unwrap_or(f64::NAN)
                } else {
                    l.delta_ns
                }
                .max(0.0),
            })
            .collect()
    }

    /// The same numbers, unrounded, one variant per line.
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "row,lib,variant,ns_median,ns_min,ns_max,delta_ns,instr,delta_instr,ratio_log,ratio_tracing,ratio_spdlog,ratio_of\n",
        );
        let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.4}"));
        for l in &self.lines {
            let _ = writeln!(
                out,
                "\"{}\",{},{},{:.4},{:.4},{:.4},{:.4},{},{},{},{},{},{}",
                l.row.replace('"', "\"\""),
                l.lib,
                l.name,
                l.ns,
                l.ns_min,
                l.ns_max,
                l.delta_ns,
                opt(l.ir),
                opt(l.delta_ir),
                opt(l.vs_log),
                opt(l.vs_tracing),
                opt(l.vs_spdlog),
                if l.lib != "elide" {
                    ""
                } else if l.ratio_of_ir {
                    "instr"
                } else {
                    "ns"
                },
            );
        }
        out
    }
}
