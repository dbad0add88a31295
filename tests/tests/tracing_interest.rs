//! The tracing layer answers per namespace for spans as for events: a span
//! in a namespace that is off is never built, as under tracing's own
//! `EnvFilter`. One test in its own process: tracing's callsite interest and
//! elide's levels are process-wide.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// Counts the spans the subscriber builds.
struct CountSpans(Arc<AtomicUsize>);

impl<S: tracing::Subscriber> Layer<S> for CountSpans {
    fn on_new_span(&self, _: &tracing::span::Attributes<'_>, _: &tracing::Id, _: Context<'_, S>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn span_in_a() {
    let _s = tracing::trace_span!(target: "a::inner", "in_a").entered();
}

fn span_in_b() {
    let _s = tracing::trace_span!(target: "b::inner", "in_b").entered();
}

#[test]
fn a_span_in_a_namespace_that_is_off_is_never_built() {
    elide::set_sinks([Arc::new(elide::sink::NullSink::new()) as Arc<dyn elide::sink::Sink>]);
    elide::set_level_for("a", elide::LevelFilter::Trace);
    elide::set_level_for("b", elide::LevelFilter::Off);
    let built = Arc::new(AtomicUsize::new(0));
    let subscriber = tracing_subscriber::registry()
        .with(elide::bridge::tracing::layer())
        .with(CountSpans(built.clone()));
    tracing::subscriber::with_default(subscriber, || {
        span_in_b();
        assert_eq!(
            built.load(Ordering::SeqCst),
            0,
            "a span in `b` (off) was built"
        );
        span_in_a();
        assert_eq!(built.load(Ordering::SeqCst), 1, "the span in `a` (trace)");
        // A change of elide's levels reaches tracing's interest cache.
        elide::set_level_for("b", elide::LevelFilter::Trace);
        span_in_b();
        assert_eq!(built.load(Ordering::SeqCst), 2, "`b` is on now");
        elide::set_level_for("b", elide::LevelFilter::Off);
        span_in_b();
        assert_eq!(built.load(Ordering::SeqCst), 2, "`b` is off again");
    });
}
