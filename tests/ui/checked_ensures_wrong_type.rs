#[elide::checked(ensures(|r| *r, "must be non-zero"))]
fn f(x: u32) -> u32 {
    x
}

fn main() {
    f(1);
}
