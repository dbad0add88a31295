fn main() {
    elide::debug!(sample = 0, "never");
}
