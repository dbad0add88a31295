fn main() {
    let v = 1;
    elide::info!(v:serde = v; "log's serde capture is not supported");
}
