mod other {
    #[derive(Clone, Copy)]
    pub enum Level {
        Info,
    }
}

fn main() {
    use other::Level;
    let _ = Level::Info;
    elide::log!(Level::Info, "must be elide's Level");
}
