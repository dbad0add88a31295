// A `scope!` whose guard is dropped at once (a bare statement) is a
// warning, here denied: the scope would close before the work it times.
#![deny(unused_must_use)]

fn main() {
    elide::scope!("work");
    elide::scope!(target: "app::db", "query", rows = 3);
}
