fn main() {
    let name = "x";
    elide::counter!(name);
}
