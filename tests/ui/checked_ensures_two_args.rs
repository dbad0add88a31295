#[elide::checked(ensures(|a, b| a < b))]
fn f(x: u32) -> u32 {
    x
}

fn main() {
    f(1);
}
