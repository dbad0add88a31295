fn main() {
    elide::check!();
}
