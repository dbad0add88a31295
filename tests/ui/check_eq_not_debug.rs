#[derive(PartialEq)]
struct Opaque(u32);

fn main() {
    elide::check_eq!(Opaque(1), Opaque(1));
}
