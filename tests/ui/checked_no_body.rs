trait Store {
    #[elide::checked(requires(key.len() < 64))]
    fn get(&self, key: &str) -> Option<u32>;
}

fn main() {}
