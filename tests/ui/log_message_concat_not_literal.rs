// A message `concat!` of something that is not a literal, and `name:`,
// `target:` or `parent:` given twice: clear errors, not a confusing
// expansion (nor the second one silently winning).
fn main() {
    elide::info!(concat!("a", env!("HOME")));
    elide::info!(name: "a", name: "b", "twice");
    elide::info!(target: "a", target: "b", "twice");
    elide::info!(parent: None::<u8>, target: "a", parent: None::<u8>, "twice");
}
