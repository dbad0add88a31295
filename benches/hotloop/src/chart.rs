//! The table as a picture: a hand-written SVG bar chart of each site's cost
//! over the bare loop (instructions per iteration, or ns without callgrind),
//! every library's bar beside elide's, on a log scale.

use std::fmt::Write;

use crate::svg::{self, escape};

/// One bar: the table row, the library, and its cost over the bare loop.
pub struct Bar {
    pub row: String,
    pub lib: String,
    pub cost: f64,
}

/// The colour of a library's bars; elide first so it stands out.
fn colour(lib: &str) -> &'static str {
    match lib {
        "elide" => "#1b6ac9",
        "log" => "#e08a1e",
        "tracing" => "#7a4fb0",
        "metrics" => "#3f9a5a",
        "spdlog-rs" => "#c0392b",
        _ => "#888888",
    }
}

fn label(v: f64) -> String {
    if v < 0.5 {
        "0".to_owned()
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Renders `bars` (in table order) as an SVG document. `unit` names the
/// measure (`instructions` or `ns`); `note` goes under the title.
pub fn svg(bars: &[Bar], unit: &str, note: &str) -> String {
    const WIDTH: f64 = 980.0;
    const LEFT: f64 = 370.0; // row labels end here
    const RIGHT: f64 = 60.0; // room for the value of the longest bar
    const TOP: f64 = 92.0;
    const BAR: f64 = 12.0;
    const GAP: f64 = 2.0;
    const GROUP_GAP: f64 = 9.0;

    // Group consecutive bars of the same row.
    let mut groups: Vec<(&str, Vec<&Bar>)> = Vec::new();
    for b in bars {
        match groups.last_mut() {
            Some((row, v)) if *row == b.row => v.push(b),
            _ => groups.push((&b.row, vec![b])),
        }
    }
    let max = bars.iter().map(|b| b.cost).fold(1.0, f64::max);
    let decades = max.log10().ceil().max(1.0);
    let plot = WIDTH - LEFT - RIGHT;
    // Log scale from 1 to 10^decades; costs under 1 get no bar, only a label.
    let x = |v: f64| LEFT + plot * (v.max(1.0).log10() / decades);
    let height = TOP
        + groups
            .iter()
            .map(|(_, v)| v.len() as f64 * (BAR + GAP) + GROUP_GAP)
            .sum::<f64>()
        + 40.0;

    let title = format!(
        "Cost of one call site in a hot loop: {unit} per iteration over the bare loop (log scale)"
    );
    let mut out = svg::open(WIDTH, height, &title, note);
    // Legend: the libraries in order of first appearance.
    let mut libs: Vec<&str> = Vec::new();
    for b in bars {
        if !libs.contains(&b.lib.as_str()) {
            libs.push(&b.lib);
        }
    }
    let mut lx = 12.0;
    for lib in &libs {
        let _ = writeln!(
            out,
            r#"<rect x="{lx}" y="52" width="12" height="12" fill="{}"/><text x="{}" y="62">{}</text>"#,
            colour(lib),
            lx + 16.0,
            escape(lib)
        );
        lx += 24.0 + 7.0 * lib.len() as f64;
    }
    // Decade grid lines and their labels, top and bottom.
    let bottom = height - 32.0;
    for d in 0..=decades as i32 {
        let v = 10f64.powi(d);
        let gx = x(v);
        let _ = writeln!(
            out,
            r##"<line x1="{gx:.1}" y1="{}" x2="{gx:.1}" y2="{bottom}" stroke="#dddddd"/><text x="{gx:.1}" y="{}" text-anchor="middle" fill="#555555">{}</text><text x="{gx:.1}" y="{}" text-anchor="middle" fill="#555555">{}</text>"##,
            TOP - 14.0,
            TOP - 18.0,
            v,
            bottom + 14.0,
            v
        );
    }
    let _ = writeln!(
        out,
        r##"<text x="{}" y="{}" text-anchor="middle" fill="#555555">{} per iteration over the bare loop</text>"##,
        LEFT + plot / 2.0,
        bottom + 28.0,
        escape(unit)
    );
    let mut y = TOP;
    for (row, group) in &groups {
        let group_height = group.len() as f64 * (BAR + GAP);
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            LEFT - 8.0,
            y + group_height / 2.0 + 4.0,
            escape(row)
        );
        for b in group {
            let w = x(b.cost) - LEFT;
            if w > 0.0 {
                let _ = writeln!(
                    out,
                    r#"<rect x="{LEFT}" y="{y:.1}" width="{w:.1}" height="{BAR}" fill="{}"><title>{} / {}: {}</title></rect>"#,
                    colour(&b.lib),
                    escape(row),
                    escape(&b.lib),
                    label(b.cost)
                );
            } else {
                // Nothing to draw on a log scale: a tick marks the library.
                let _ = writeln!(
                    out,
                    r#"<rect x="{LEFT}" y="{y:.1}" width="2" height="{BAR}" fill="{}"/>"#,
                    colour(&b.lib)
                );
            }
            let _ = writeln!(
                out,
                r##"<text x="{:.1}" y="{:.1}" fill="#333333">{}</text>"##,
                LEFT + w.max(2.0) + 4.0,
                y + BAR - 2.0,
                label(b.cost)
            );
            y += BAR + GAP;
        }
        y += GROUP_GAP;
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_logarithmically_and_zero_gets_a_label() {
        let bar = |row: &str, lib: &str, cost| Bar {
            row: row.into(),
            lib: lib.into(),
            cost,
        };
        let s = svg(
            &[
                bar("off", "elide", 0.0),
                bar("off", "log", 10.0),
                bar("on", "elide", 100.0),
                bar("a<b", "tracing", 1000.0),
            ],
            "instructions",
            "test",
        );
        assert!(s.starts_with("<svg ") && s.ends_with("</svg>\n"));
        // 3 decades over 550 px: 10 is a third, 100 two thirds, 1000 all of it.
        assert!(s.contains(r#"width="183.3""#), "{s}");
        assert!(s.contains(r#"width="366.7""#), "{s}");
        assert!(s.contains(r#"width="550.0""#), "{s}");
        assert!(s.contains(">0</text>"));
        assert!(s.contains("a&lt;b") && !s.contains("a<b"));
    }
}
