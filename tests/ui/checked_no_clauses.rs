#[elide::checked]
fn f(x: u32) -> u32 {
    x
}

fn main() {
    f(1);
}
