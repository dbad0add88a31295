fn main() {
    elide::log!(NoSuchType::Warn, "the level path must resolve");
}
