#[elide::checked(requires(x > 0) ensures(|r| *r > 0))]
fn f(x: u32) -> u32 {
    x
}

fn main() {
    f(1);
}
