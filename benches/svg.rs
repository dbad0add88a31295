//! What the two benchmark charts share: the SVG document's opening (size,
//! font, white background, title and note) and text escaping. Included by
//! both benchmark crates with `#[path]`; no plotting dependency.

use std::fmt::Write;

/// Escapes text for SVG character data.
pub(crate) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Starts a `width` x `height` SVG document with a title line and a grey
/// note under it; the caller appends the drawing and `</svg>`.
pub(crate) fn open(width: f64, height: f64, title: &str, note: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Verdana, sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        out,
        r##"<rect width="100%" height="100%" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        out,
        r#"<text x="12" y="22" font-size="15" font-weight="bold">{}</text>"#,
        escape(title)
    );
    let _ = writeln!(
        out,
        r##"<text x="12" y="40" fill="#555555">{}</text>"##,
        escape(note)
    );
    out
}
