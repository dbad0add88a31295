fn main() {
    let n = 3;
    let msg = "n must be small";
    elide::check!(n < 2, msg);
}
