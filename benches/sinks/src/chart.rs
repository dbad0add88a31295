//! The latency table as a picture: a hand-written SVG chart of each sink's
//! caller latency at p50, p90, p99, p99.9 and the maximum, log scale.

use std::fmt::Write;

use crate::svg::{self, escape};

/// The percentiles drawn, with their axis labels.
pub(crate) const PERCENTILES: [(f64, &str); 4] = [
    (0.50, "p50"),
    (0.90, "p90"),
    (0.99, "p99"),
    (0.999, "p99.9"),
];

/// One sink's line: its name and its latency in microseconds at each of
/// [`PERCENTILES`], then the maximum.
pub(crate) struct Series {
    pub name: String,
    pub us: Vec<f64>,
}

const COLOURS: [&str; 6] = [
    "#888888", "#d62728", "#1b6ac9", "#17becf", "#e08a1e", "#3f9a5a",
];

/// Renders the series as an SVG document; `note` goes under the title.
pub(crate) fn svg(series: &[Series], note: &str) -> String {
    const WIDTH: f64 = 900.0;
    const LEFT: f64 = 80.0;
    const TOP: f64 = 60.0;
    const PLOT_W: f64 = 480.0;
    const PLOT_H: f64 = 340.0;
    let labels: Vec<&str> = PERCENTILES.iter().map(|p| p.1).chain(["max"]).collect();
    let values = series.iter().flat_map(|s| s.us.iter().copied());
    let lo = values.clone().fold(f64::INFINITY, f64::min).max(1e-3);
    let hi = values.fold(0.0, f64::max).max(lo * 10.0);
    let (d0, d1) = (lo.log10().floor(), hi.log10().ceil());
    // Clamped to the bottom of the axis (a 0 latency), not to the data minimum,
    // so the grid line of the lowest decade sits where it belongs.
    let y = |v: f64| TOP + PLOT_H * (1.0 - (v.max(10f64.powf(d0)).log10() - d0) / (d1 - d0));
    let x = |i: usize| LEFT + PLOT_W * i as f64 / (labels.len() - 1) as f64;
    let height = TOP + PLOT_H + 60.0;

    let mut out = svg::open(
        WIDTH,
        height,
        "Caller latency per log line, microseconds (log scale)",
        note,
    );
    for d in d0 as i32..=d1 as i32 {
        let v = 10f64.powi(d);
        let gy = y(v);
        let text = if d < 0 {
            format!("{v}")
        } else {
            format!("{v:.0}")
        };
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" y1="{gy:.1}" x2="{}" y2="{gy:.1}" stroke="#dddddd"/><text x="{}" y="{:.1}" text-anchor="end" fill="#555555">{text}</text>"##,
            LEFT + PLOT_W,
            LEFT - 6.0,
            gy + 4.0
        );
    }
    for (i, l) in labels.iter().enumerate() {
        let _ = writeln!(
            out,
            r##"<line x1="{0:.1}" y1="{TOP}" x2="{0:.1}" y2="{1}" stroke="#eeeeee"/><text x="{0:.1}" y="{2}" text-anchor="middle" fill="#555555">{l}</text>"##,
            x(i),
            TOP + PLOT_H,
            TOP + PLOT_H + 16.0
        );
    }
    let _ = writeln!(
        out,
        r##"<text x="{}" y="{}" text-anchor="middle" fill="#555555">percentile of the per-call latency</text>"##,
        LEFT + PLOT_W / 2.0,
        TOP + PLOT_H + 36.0
    );
    let mut legend_y = TOP + 10.0;
    for (k, s) in series.iter().enumerate() {
        let c = COLOURS[k % COLOURS.len()];
        let points: Vec<String> =
            s.us.iter()
                .enumerate()
                .map(|(i, v)| format!("{:.1},{:.1}", x(i), y(*v)))
                .collect();
        let _ = writeln!(
            out,
            r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="2"/>"#,
            points.join(" ")
        );
        for (i, v) in s.us.iter().enumerate() {
            let _ = writeln!(
                out,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{c}"><title>{}: {} = {v:.3} us</title></circle>"#,
                x(i),
                y(*v),
                escape(&s.name),
                labels[i]
            );
        }
        // Legend, right of the plot, one entry per sink, below the last.
        let lx = LEFT + PLOT_W + 24.0;
        let _ = writeln!(
            out,
            r#"<line x1="{lx}" y1="{legend_y}" x2="{}" y2="{legend_y}" stroke="{c}" stroke-width="3"/>"#,
            lx + 18.0
        );
        let parts = wrap(&s.name, 42);
        for (j, part) in parts.iter().enumerate() {
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{:.1}">{}</text>"#,
                lx + 24.0,
                legend_y + 4.0 + 13.0 * j as f64,
                escape(part)
            );
        }
        legend_y += 13.0 * parts.len() as f64 + 12.0;
    }
    out.push_str("</svg>\n");
    out
}

/// Splits a legend entry into lines of at most about `width` characters.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().unwrap();
        if !line.is_empty() && line.len() + word.len() + 1 > width {
            lines.push(word.to_owned());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn higher_latency_is_drawn_higher_on_a_log_axis() {
        let s = svg(
            &[Series {
                name: "a <b>".into(),
                us: vec![0.1, 1.0, 10.0, 100.0, 1000.0],
            }],
            "note",
        );
        // Decades 0.1 .. 1000 over 340 px: 85 px per decade from y = 400.
        assert!(
            s.contains(r#"points="80.0,400.0 200.0,315.0 320.0,230.0 440.0,145.0 560.0,60.0""#),
            "{s}"
        );
        assert!(s.contains("a &lt;b&gt;"));
        assert_eq!(wrap("one two three", 7), ["one two", "three"]);
    }
}
