fn main() {
    elide::info!(uid = 1, 42);
}
