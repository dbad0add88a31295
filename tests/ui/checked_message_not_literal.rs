const MSG: &str = "x must be positive";

#[elide::checked(requires(x > 0, MSG))]
fn f(x: u32) -> u32 {
    x
}

fn main() {
    f(1);
}
