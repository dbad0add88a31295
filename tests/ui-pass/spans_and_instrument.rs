#![deny(warnings)]
// Spans and `#[instrument]` as `tracing` code writes them compile without
// a warning: on methods (`self` skipped or recorded), with `err`/`ret`,
// on `impl Trait` returns and `async fn`s, through `use elide as tracing`.
use elide as tracing;

use tracing::{info_span, instrument, Instrument, Level};

#[derive(Debug)]
struct Conn {
    id: u32,
}

impl Conn {
    #[instrument(skip(self), fields(id = %self.id), err, level = "debug")]
    fn send(&self, n: usize) -> Result<usize, String> {
        if n > 3 {
            return Err("too big".into());
        }
        Ok(n)
    }

    #[instrument(ret)]
    fn id(&mut self) -> &mut u32 {
        &mut self.id
    }
}

#[instrument(skip_all)]
fn evens(n: u32) -> impl Iterator<Item = u32> {
    (0..n).filter(|x| x % 2 == 0)
}

#[instrument(name = "fetch", target = "app::net", err(Debug), ret(Display))]
async fn fetch(url: &str) -> Result<usize, std::io::Error> {
    Ok(url.len())
}

fn main() {
    let span = tracing::span!(Level::INFO, "outer", a = 1);
    let _e = span.enter();
    let _s = info_span!(target: "app", parent: None::<u32>, "inner", ?span).entered();
    let mut conn = Conn { id: 1 };
    let _ = conn.send(2);
    *conn.id() += 1;
    assert_eq!(evens(5).count(), 3);
    let _f = fetch("x").instrument(tracing::Span::current());
    tracing::debug_span!("quiet").in_scope(|| tracing::info!("in"));
}
