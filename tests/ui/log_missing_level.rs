fn main() {
    elide::log!();
}
