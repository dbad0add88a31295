// One sampling option per site: any two of them together are an error.
fn main() {
    elide::debug!(sample = 10, once, "both");
    elide::debug!(sample = 10, every = std::time::Duration::from_secs(1), "both");
    elide::debug!(first = 2, every = std::time::Duration::from_secs(1), "both");
}
