fn main() {
    let _ = elide::enabled!(elide::Level::Info, "message");
}
