#[elide::checked(requires(x, "x must be non-zero"))]
fn f(x: u32) -> u32 {
    x
}

fn main() {
    f(1);
}
