#[elide::checked(requires(y > 0, "y must be positive"))]
fn f(x: u32) -> u32 {
    x
}

fn main() {
    f(1);
}
