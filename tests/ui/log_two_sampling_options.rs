fn main() {
    elide::debug!(sample = 10, once, "both");
}
