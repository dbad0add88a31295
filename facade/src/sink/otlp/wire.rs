//! The protobuf wire format, written by hand for the messages sent per
//! record (log records, spans, their attributes) and for the request
//! envelopes around them: a record is encoded once, on the queue's writer
//! thread, straight into its bytes, and a request is those bytes copied
//! behind the resource and scope headers. No message structs are built, no
//! sizes computed twice (prost's nested `encoded_len`), one allocation per
//! record. The field numbers are those of `opentelemetry-proto`; the tests
//! decode what is written here with its prost types.

use std::fmt;

/// Wire types.
const VARINT: u8 = 0;
const FIXED64: u8 = 1;
const LEN: u8 = 2;

/// Bytes of `v` as a varint.
#[inline]
pub(crate) fn varint_len(v: u64) -> usize {
    // 1 byte per 7 bits, at least 1.
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

#[inline]
pub(crate) fn varint(b: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        b.push((v as u8) | 0x80);
        v >>= 7;
    }
    b.push(v as u8);
}

/// A field's key (all field numbers used here are below 16: one byte).
#[inline]
fn key(b: &mut Vec<u8>, field: u8, wire: u8) {
    b.push(field << 3 | wire);
}

/// A varint field (enum, bool, int64 as two's complement), 0 included
/// (callers leave out what proto3 would).
#[inline]
pub(crate) fn uint(b: &mut Vec<u8>, field: u8, v: u64) {
    key(b, field, VARINT);
    varint(b, v);
}

/// A `fixed64` (or `double`) field.
#[inline]
pub(crate) fn fixed64(b: &mut Vec<u8>, field: u8, v: u64) {
    key(b, field, FIXED64);
    b.extend_from_slice(&v.to_le_bytes());
}

/// A `string` or `bytes` field (empty ones too: callers leave those out
/// where proto3 would).
#[inline]
pub(crate) fn bytes(b: &mut Vec<u8>, field: u8, v: &[u8]) {
    key(b, field, LEN);
    varint(b, v.len() as u64);
    b.extend_from_slice(v);
}

/// Bytes of a length-delimited field holding `n` bytes.
#[inline]
pub(crate) fn field_len(n: usize) -> usize {
    1 + varint_len(n as u64) + n
}

/// A length-delimited field whose content `f` writes: one byte is kept
/// for the length, and the content moved on in the rare case it needs
/// more (128 bytes or longer).
#[inline]
pub(crate) fn nested(b: &mut Vec<u8>, field: u8, f: impl FnOnce(&mut Vec<u8>)) {
    key(b, field, LEN);
    let at = b.len();
    b.push(0);
    f(b);
    let n = b.len() - at - 1;
    if n < 0x80 {
        b[at] = n as u8;
    } else {
        patch_len(b, at, n);
    }
}

#[cold]
fn patch_len(b: &mut Vec<u8>, at: usize, n: usize) {
    let mut len = Vec::with_capacity(10);
    varint(&mut len, n as u64);
    b[at] = len[0];
    b.splice(at + 1..at + 1, len[1..].iter().copied());
}

/// Appends text to the buffer (for `write!` of `Display` values straight
/// into a field).
pub(crate) struct Text<'a>(pub(crate) &'a mut Vec<u8>);

impl fmt::Write for Text<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

// `AnyValue`'s fields.
pub(crate) const ANY_STRING: u8 = 1;
pub(crate) const ANY_BOOL: u8 = 2;
pub(crate) const ANY_INT: u8 = 3;
pub(crate) const ANY_DOUBLE: u8 = 4;
pub(crate) const ANY_ARRAY: u8 = 5;
pub(crate) const ANY_KVLIST: u8 = 6;
// `KeyValue`'s, `KeyValueList`'s and `ArrayValue`'s.
pub(crate) const KV_KEY: u8 = 1;
pub(crate) const KV_VALUE: u8 = 2;
pub(crate) const LIST_VALUES: u8 = 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_are_as_long_as_their_bytes() {
        for v in [
            0,
            1,
            127,
            128,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut b = Vec::new();
            varint(&mut b, v);
            assert_eq!(b.len(), varint_len(v), "{v}");
            assert_eq!(prost::encoding::encoded_len_varint(v), b.len(), "{v}");
        }
    }

    /// A nested field of 128 bytes or more gets its longer length and
    /// keeps what follows it intact.
    #[test]
    fn long_nested_fields_move_their_content_on() {
        use opentelemetry_proto::tonic::common::v1::{any_value, KeyValue};
        use prost::Message;
        for n in [0, 1, 127, 128, 300, 20_000] {
            let text = "x".repeat(n);
            let mut b = Vec::new();
            nested(&mut b, 1, |b| {
                bytes(b, KV_KEY, b"k");
                nested(b, KV_VALUE, |b| bytes(b, ANY_STRING, text.as_bytes()));
            });
            let (_, rest) = b.split_at(1);
            let mut rest = rest;
            let len = prost::encoding::decode_varint(&mut rest).unwrap();
            assert_eq!(len as usize, rest.len());
            let kv = KeyValue::decode(rest).unwrap();
            assert_eq!(kv.key, "k");
            assert_eq!(
                kv.value.and_then(|v| v.value),
                Some(any_value::Value::StringValue(text))
            );
        }
    }
}
