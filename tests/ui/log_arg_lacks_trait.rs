// A message argument without its placeholder's trait is a compile error
// that names the trait and labels the argument, whichever way the site
// captures it: a type without the trait, or a value kind the site would
// copy (`{:x}` of a float or a `bool`, `{:e}` of a string).
struct Opaque;

fn main() {
    let n = 3;
    elide::info!("n {} is {}", n, Opaque);
    elide::info!("hex {:x}", Opaque);
    elide::info!("debug {:?} of {n}", Opaque);
    elide::info!("hex {:x} {:X}", 1.5f64, true);
    elide::info!("exp {:e}", "text");
}
