//! The OpenTelemetry ids of timed scopes, the same wherever they are
//! written (OTLP spans and log records, JSON lines): a span id is the
//! scope id mixed with a random per-process salt (so two processes' ids
//! differ), a trace id the salt then the root scope's id.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::OnceLock;

/// This process's salt, drawn once.
pub(crate) fn salt() -> u64 {
    static SALT: OnceLock<u64> = OnceLock::new();
    *SALT.get_or_init(|| {
        RandomState::new().hash_one((std::process::id(), std::time::SystemTime::now()))
    })
}

/// The 8-byte span id of scope `id` under `salt`: never all zero (invalid
/// in OTLP), as `id >= 1` and the mix is a bijection.
pub(crate) fn span_id(salt: u64, id: u64) -> [u8; 8] {
    (id ^ salt).max(1).to_be_bytes()
}

/// The 16-byte trace id of the trace whose root scope is `root`.
pub(crate) fn trace_id(salt: u64, root: u64) -> [u8; 16] {
    let mut t = [0; 16];
    t[..8].copy_from_slice(&salt.to_be_bytes());
    t[8..].copy_from_slice(&root.to_be_bytes());
    t
}

/// Appends `,"trace_id":"<32 hex>","span_id":"<16 hex>"` for the scope
/// `(id, trace)` (the W3C/OTLP hex form, as a collector shows them).
#[cfg(feature = "json")]
pub(crate) fn push_json(scope: Option<(u64, u64)>, out: &mut String) {
    use std::fmt::Write;
    let Some((id, trace)) = scope else { return };
    let salt = salt();
    let _ = write!(
        out,
        ",\"trace_id\":\"{:032x}\",\"span_id\":\"{:016x}\"",
        u128::from_be_bytes(trace_id(salt, trace)),
        u64::from_be_bytes(span_id(salt, id))
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_mix_the_salt_and_are_never_zero() {
        assert_eq!(span_id(0, 5), 5u64.to_be_bytes());
        assert_eq!(span_id(7, 7), 1u64.to_be_bytes());
        let t = trace_id(0x0102, 3);
        assert_eq!(&t[..8], &0x0102u64.to_be_bytes());
        assert_eq!(&t[8..], &3u64.to_be_bytes());
        assert_eq!(salt(), salt());
    }

    #[cfg(feature = "json")]
    #[test]
    fn json_names_both_ids_in_hex() {
        let mut out = String::new();
        push_json(None, &mut out);
        assert_eq!(out, "");
        push_json(Some((2, 1)), &mut out);
        let s = salt();
        assert_eq!(
            out,
            format!(
                ",\"trace_id\":\"{s:016x}{:016x}\",\"span_id\":\"{:016x}\"",
                1,
                (2 ^ s).max(1)
            )
        );
    }
}
