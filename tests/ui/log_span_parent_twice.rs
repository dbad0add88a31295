// A span's `parent:` given twice is an error, not the second one winning.
fn main() {
    let _s = elide::info_span!(parent: None::<u8>, parent: None::<u8>, "twice");
}
