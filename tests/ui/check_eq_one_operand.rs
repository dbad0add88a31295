fn main() {
    let a = 1;
    elide::check_eq!(a);
}
