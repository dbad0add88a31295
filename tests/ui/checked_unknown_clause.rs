#[elide::checked(require(x > 0, "x must be positive"))]
fn f(x: u32) -> u32 {
    x
}

fn main() {
    f(1);
}
