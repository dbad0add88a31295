#![deny(warnings)]
// The static gate is a constant the body is chosen by: under `impl Trait`
// the function's value must still have one type (each closure is a type
// of its own, so the body cannot be written twice).

#[elide::checked(requires(n > 0), ensures(|it| it.size_hint().1 <= Some(n as usize)))]
fn evens(n: u32) -> impl Iterator<Item = u32> {
    (0..n).filter(|x| x % 2 == 0)
}

#[elide::timed]
fn adder(k: u32) -> impl Fn(u32) -> u32 {
    move |x| x + k
}

#[elide::timed(name = "later")]
async fn later(k: u32) -> impl Fn(u32) -> u32 {
    move |x| x * k
}

fn main() {
    assert_eq!(evens(5).count(), 3);
    assert_eq!(adder(1)(1), 2);
    let _ = later(2);
}
