#[elide::checked(ensures(|r| true))]
fn f() -> ! {
    loop {}
}

fn main() {}
