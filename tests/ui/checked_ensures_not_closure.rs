#[elide::checked(ensures(ret > 0, "result must be positive"))]
fn f(x: u32) -> u32 {
    x
}

fn main() {
    f(1);
}
