fn main() {
    elide::info!(uid = , "x");
}
