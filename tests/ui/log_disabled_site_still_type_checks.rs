// `trace!` is above the default level at run time, but a typo inside it is
// still a compile error: sites always type-check.
fn main() {
    let count = 3;
    elide::trace!("{}", cuont);
    elide::trace!(n = count, v = NoDisplay, "x");
    let _ = count;
}
struct NoDisplay;
