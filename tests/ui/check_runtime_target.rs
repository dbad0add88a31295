fn main() {
    let ns = String::from("my_app::db");
    elide::check!(target: ns.as_str(), 1 + 1 == 2);
}
