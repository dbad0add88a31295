#![deny(warnings)]
use elide::Level;

fn main() {
    elide::log!(Level::Info, "the import is used");
    let _ = elide::enabled!(Level::DEBUG);
}
