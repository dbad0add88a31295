fn main() {
    elide::info!(crate = ::no_such_facade, "the crate path names elide");
}
