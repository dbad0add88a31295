// A message argument without its placeholder's trait is a compile error
// that names the trait and points at the argument, as `format_args!`'s
// does, whichever way the site captures its arguments.
struct Opaque;

fn main() {
    let n = 3;
    elide::info!("n {} is {}", n, Opaque);
    elide::info!("hex {:x}", Opaque);
    elide::info!("debug {:?} of {n}", Opaque);
}
