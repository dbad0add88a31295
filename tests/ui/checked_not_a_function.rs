#[elide::checked(requires(self.x > 0))]
struct S {
    x: u32,
}

fn main() {
    let _ = S { x: 1 }.x;
}
