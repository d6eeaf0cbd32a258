//! Standard base64 (RFC 4648 alphabet, padded): the codec of the blobs rigtrip writes and reads
//! (extras, vertex streams, `data:` URIs, motion files; `base64_bytes` formats blobs under 64
//! bytes in place with the `base64` crate's formatter, the same text). The work is done by
//! `base64-simd` (a vertex
//! stream's few KB encode and decode 6-8x faster than with the `base64` crate: a tenth of a
//! model's `verify`), and every result is the one the `base64` crate gives:
//! - encoding: the same text (a property test compares them);
//! - decoding: `base64-simd`'s bytes are taken only when they encode back to the very text read,
//!   which makes the text the canonical encoding of those bytes, the only text the `base64`
//!   crate's standard engine accepts for them. Anything else (an error, or a non-canonical text
//!   one decoder might take and the other refuse) is decoded by the `base64` crate: its bytes,
//!   or its error and its words.

use base64::Engine as _;

/// Appends the base64 of `bytes` to `out`.
pub fn encode_into(bytes: &[u8], out: &mut String) {
    base64_simd::STANDARD.encode_append(bytes, out);
}

/// The base64 of `bytes`.
pub fn encode(bytes: &[u8]) -> String {
    base64_simd::STANDARD.encode_to_string(bytes)
}

/// Length of the base64 of `n` bytes (padded).
pub fn encoded_len(n: usize) -> usize {
    base64_simd::STANDARD.encoded_length(n)
}

/// Decodes `text` (see the module comment).
pub fn decode(text: &[u8]) -> Result<Vec<u8>, base64::DecodeError> {
    if let Ok(bytes) = base64_simd::STANDARD.decode_to_vec(text) {
        if base64_simd::STANDARD.encode_to_string(&bytes).as_bytes() == text {
            return Ok(bytes);
        }
    }
    base64::engine::general_purpose::STANDARD.decode(text)
}
