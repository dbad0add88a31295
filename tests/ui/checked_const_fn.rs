#[elide::checked(requires(x > 0))]
const fn f(x: u32) -> u32 {
    x
}

fn main() {
    f(1);
}
