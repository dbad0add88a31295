fn main() {
    let _ = elide::debug_mode!("my_app");
}
