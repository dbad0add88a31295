//! The README is the entry point a new user reads first, and it ships in
//! the `elide` crate (crates.io renders it). These tests keep it that way:
//! short, free of references that mean nothing outside the project's
//! tracker, with no relative image (it would not render from the package)
//! and no relative link to a file that is not there.

use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

fn readme() -> String {
    let path = repo_root().join("README.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The text after each occurrence of `open` up to the next `close`.
fn delimited<'a>(text: &'a str, open: &str, close: char) -> Vec<&'a str> {
    text.match_indices(open)
        .filter_map(|(i, _)| {
            let rest = &text[i + open.len()..];
            rest.find(close).map(|end| &rest[..end])
        })
        .collect()
}

#[test]
fn the_readme_has_at_most_300_lines() {
    let lines = readme().lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines; it is an entry point of at most 300 lines \
         (reference material goes to the guide, facade/src/guide/*.md, figures to BENCHMARKS.md)"
    );
}

#[test]
fn the_readme_names_no_issue_numbers() {
    let text = readme();
    let lower = text.to_lowercase();
    let found: Vec<String> = lower
        .match_indices("issue")
        .filter_map(|(i, _)| {
            // "issue 14", "issue-14", "issues 14-18", "issue #14".
            let rest = lower[i + "issue".len()..].trim_start_matches('s');
            let rest = rest.trim_start_matches([' ', '-', '#']);
            rest.starts_with(|c: char| c.is_ascii_digit())
                .then(|| text[i..(i + 12).min(text.len())].to_string())
        })
        .collect();
    assert!(
        found.is_empty(),
        "README.md refers to the tracker: {found:?}"
    );
}

#[test]
fn the_readme_states_the_test_command() {
    // CI runs the command the README gives; the two must not drift apart.
    assert!(readme().contains("cargo test --workspace"));
}

#[test]
fn the_readme_has_no_relative_images() {
    let text = readme();
    let relative: Vec<&str> = delimited(&text, "![", ')')
        .into_iter()
        .filter_map(|img| img.split_once("](").map(|(_, target)| target))
        .filter(|target| !target.starts_with("https://"))
        .collect();
    assert!(
        relative.is_empty(),
        "README.md ships in the crate, where relative images do not render: {relative:?}"
    );
}

#[test]
fn the_readme_links_only_to_files_that_exist() {
    let text = readme();
    let root = repo_root();
    let missing: Vec<&str> = delimited(&text, "](", ')')
        .into_iter()
        .filter(|target| !target.contains("://") && !target.starts_with('#'))
        .filter(|target| {
            let file = target.split('#').next().unwrap_or(target);
            !root.join(file).exists()
        })
        .collect();
    assert!(
        missing.is_empty(),
        "README.md links to missing files: {missing:?}"
    );
}

#[test]
fn the_readme_links_every_guide_chapter() {
    // The README's "Read more" names the guide's chapters; a chapter added
    // to the guide must appear there too, so the two cannot disagree.
    let text = readme();
    let guide = repo_root().join("facade/src/guide");
    let mut unlinked: Vec<String> = std::fs::read_dir(&guide)
        .unwrap_or_else(|e| panic!("reading {}: {e}", guide.display()))
        .map(|entry| entry.expect("a directory entry").file_name())
        .filter_map(|name| name.to_str().map(str::to_owned))
        .filter(|name| name.ends_with(".md"))
        .filter(|name| !text.contains(&format!("](facade/src/guide/{name})")))
        .collect();
    unlinked.sort();
    assert!(
        unlinked.is_empty(),
        "README.md does not link these guide chapters: {unlinked:?}"
    );
}
