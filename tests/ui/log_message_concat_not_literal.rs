// A message `concat!` of something that is not a literal, and `name:`
// given twice: clear errors, not a confusing expansion.
fn main() {
    elide::info!(concat!("a", env!("HOME")));
    elide::info!(name: "a", name: "b", "twice");
}
