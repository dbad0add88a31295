fn main() {
    elide::warn!(= 3, "x");
}
