fn main() {
    let n = 3;
    elide::check!(n, "n must be non-zero");
}
