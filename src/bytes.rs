//! Bounds-checked little-endian reads and the byte-region bookkeeping every native reader shares.
//!
//! Readers never index a slice directly: every access goes through [`Bytes`], which turns an
//! out-of-range access into an error naming what was read, where, and how long the file is.
//! [`RegionMap`] records which structure owns which bytes, refuses partial overlaps, and turns
//! the complement into explicit [`Gap`]s so that no byte of the input is ever thrown away.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A read that would leave the input (shared with the glTF read model, whose container reader
/// says the same).
pub use rigtrip_gltf::OutOfBounds;

/// Two structures claim some of the same bytes without being the same structure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{first} ({first_start:#x}..{first_end:#x}) overlaps {second} ({second_start:#x}..{second_end:#x})")]
pub struct Overlap {
    /// The claim that starts first.
    pub first: String,
    /// Start of the first claim.
    pub first_start: u64,
    /// End (exclusive) of the first claim.
    pub first_end: u64,
    /// The claim that starts inside the first.
    pub second: String,
    /// Start of the second claim.
    pub second_start: u64,
    /// End (exclusive) of the second claim.
    pub second_end: u64,
}

/// Bytes that no decoded structure covers (padding, gaps between structures, trailing data),
/// kept exactly where they were.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gap {
    /// Absolute offset of the first byte.
    #[serde(with = "hex_u64")]
    pub offset: u64,
    /// The bytes themselves (base64 in JSON: gaps can be large).
    #[serde(with = "base64_bytes")]
    pub bytes: Vec<u8>,
}

impl Gap {
    /// One past the last byte of the gap (saturating: a gap built from a glTF's extras may sit
    /// at any offset).
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.bytes.len() as u64)
    }
}

/// A bounds-checked view of an input file.
#[derive(Debug, Clone, Copy)]
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    /// Wraps an input.
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data }
    }

    /// Length of the input.
    pub fn len(&self) -> u64 {
        self.data.len() as u64
    }

    /// Whether the input is empty.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The whole input.
    pub fn all(&self) -> &'a [u8] {
        self.data
    }

    /// Checks that `len` bytes at `offset` lie inside the input, without reading them.
    /// `what` names the structure in the error; it is only turned into text on failure, so a
    /// lazily formatted label (any `Display`) costs nothing when the check passes.
    #[inline]
    pub fn check(&self, what: impl fmt::Display, offset: u64, len: u64) -> Result<(), OutOfBounds> {
        match offset.checked_add(len) {
            Some(end) if end <= self.len() => Ok(()),
            _ => Err(out_of_bounds(what.to_string(), offset, len, self.len())),
        }
    }

    /// `len` bytes at `offset`.
    #[inline]
    pub fn slice(
        &self,
        what: impl fmt::Display,
        offset: u64,
        len: u64,
    ) -> Result<&'a [u8], OutOfBounds> {
        self.check(what, offset, len)?;
        // check() proved offset + len <= data.len(), which fits in usize.
        Ok(&self.data[offset as usize..(offset + len) as usize])
    }

    /// A fixed-size array at `offset`.
    #[inline]
    pub fn array<const N: usize>(
        &self,
        what: impl fmt::Display,
        offset: u64,
    ) -> Result<[u8; N], OutOfBounds> {
        let s = self.slice(what, offset, N as u64)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    /// A byte at `offset`.
    #[inline]
    pub fn u8(&self, what: impl fmt::Display, offset: u64) -> Result<u8, OutOfBounds> {
        Ok(self.array::<1>(what, offset)?[0])
    }

    /// A little-endian u16 at `offset`.
    #[inline]
    pub fn u16(&self, what: impl fmt::Display, offset: u64) -> Result<u16, OutOfBounds> {
        Ok(u16::from_le_bytes(self.array(what, offset)?))
    }

    /// A little-endian i16 at `offset`.
    #[inline]
    pub fn i16(&self, what: impl fmt::Display, offset: u64) -> Result<i16, OutOfBounds> {
        Ok(i16::from_le_bytes(self.array(what, offset)?))
    }

    /// A little-endian u32 at `offset`.
    #[inline]
    pub fn u32(&self, what: impl fmt::Display, offset: u64) -> Result<u32, OutOfBounds> {
        Ok(u32::from_le_bytes(self.array(what, offset)?))
    }

    /// A little-endian i32 at `offset`.
    #[inline]
    pub fn i32(&self, what: impl fmt::Display, offset: u64) -> Result<i32, OutOfBounds> {
        Ok(i32::from_le_bytes(self.array(what, offset)?))
    }

    /// A little-endian u64 at `offset`.
    #[inline]
    pub fn u64(&self, what: impl fmt::Display, offset: u64) -> Result<u64, OutOfBounds> {
        Ok(u64::from_le_bytes(self.array(what, offset)?))
    }

    /// A little-endian f32 at `offset`, bit pattern intact (NaN payloads and -0.0 included).
    #[inline]
    pub fn f32(&self, what: impl fmt::Display, offset: u64) -> Result<f32, OutOfBounds> {
        Ok(f32::from_bits(self.u32(what, offset)?))
    }
}

#[cold]
#[inline(never)]
fn out_of_bounds(what: String, offset: u64, len: u64, file_len: u64) -> OutOfBounds {
    OutOfBounds {
        what,
        offset,
        len,
        file_len,
    }
}

/// One structure's claim on a byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim<L = String> {
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// What owns it, for error messages and coverage maps. Any `Display` type: readers use
    /// small enums that become text only when a message is actually shown.
    pub label: L,
}

/// Which structure owns which bytes of one input.
#[derive(Debug, Clone)]
pub struct RegionMap<L = String> {
    claims: Vec<Claim<L>>,
}

impl<L> Default for RegionMap<L> {
    fn default() -> Self {
        RegionMap { claims: Vec::new() }
    }
}

impl<L: fmt::Display> RegionMap<L> {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty map with room for `n` claims.
    pub fn with_capacity(n: usize) -> Self {
        RegionMap {
            claims: Vec::with_capacity(n),
        }
    }

    /// Records that `label` owns `len` bytes at `start`. Empty claims are ignored.
    /// Overlaps are found by [`RegionMap::finish`], once, after every claim is in.
    pub fn claim(&mut self, start: u64, len: u64, label: L) {
        if len > 0 {
            self.claims.push(Claim {
                start,
                end: start.saturating_add(len),
                label,
            });
        }
    }

    /// Checks that no two claims overlap and returns the claims in file order together with
    /// every unclaimed byte range of `data` as a [`Gap`]. Claims with the same range keep the
    /// order they were made in (the sort is stable), so messages name them in that order.
    pub fn finish(self, data: &[u8]) -> Result<(Vec<Claim<L>>, Vec<Gap>), Overlap>
    where
        L: Clone,
    {
        self.finish_labelled(data).map_err(|(o, _, _)| o)
    }

    /// [`RegionMap::finish`], with the labels of the two claims that overlap (first, second)
    /// beside the overlap, so that a caller can name them by type rather than by text.
    #[allow(clippy::type_complexity)]
    pub fn finish_labelled(
        mut self,
        data: &[u8],
    ) -> Result<(Vec<Claim<L>>, Vec<Gap>), (Overlap, L, L)>
    where
        L: Clone,
    {
        sort_claims(&mut self.claims);
        for w in self.claims.windows(2) {
            if w[1].start < w[0].end {
                return Err((
                    Overlap {
                        first: w[0].label.to_string(),
                        first_start: w[0].start,
                        first_end: w[0].end,
                        second: w[1].label.to_string(),
                        second_start: w[1].start,
                        second_end: w[1].end,
                    },
                    w[0].label.clone(),
                    w[1].label.clone(),
                ));
            }
        }
        // At most one gap before each claim and one after the last.
        let mut gaps = Vec::with_capacity(if data.is_empty() {
            0
        } else {
            self.claims.len() + 1
        });
        let mut pos = 0u64;
        let len = data.len() as u64;
        for c in &self.claims {
            let start = c.start.min(len);
            if start > pos {
                gaps.push(Gap {
                    offset: pos,
                    bytes: data[pos as usize..start as usize].to_vec(),
                });
            }
            pos = pos.max(c.end.min(len));
        }
        if pos < len {
            gaps.push(Gap {
                offset: pos,
                bytes: data[pos as usize..].to_vec(),
            });
        }
        Ok((self.claims, gaps))
    }
}

/// Sorts claims by (start, end), stably: claims of the same range keep the order they were
/// made in. Claims often come in file order, or nearly: a sorted list is left as it is, a
/// short one insertion-sorted in place, a longer one goes to the general sort.
fn sort_claims<L>(claims: &mut [Claim<L>]) {
    let key = |c: &Claim<L>| (c.start, c.end);
    if claims.windows(2).all(|w| key(&w[0]) <= key(&w[1])) {
        return;
    }
    if claims.len() > 16 {
        claims.sort_by_key(key);
        return;
    }
    for i in 1..claims.len() {
        let mut j = i;
        while j > 0 && key(&claims[j - 1]) > key(&claims[j]) {
            claims.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// The `len` bytes of `out` at offset `at`. Writers fill a buffer sized from a layout they
/// checked first, so a region outside it is a writer bug: refused, never skipped.
pub fn region_mut(
    out: &mut [u8],
    what: impl fmt::Display,
    at: u64,
    len: u64,
) -> Result<&mut [u8], OutOfBounds> {
    let file_len = out.len() as u64;
    let range = usize::try_from(at)
        .ok()
        .zip(usize::try_from(len).ok())
        .and_then(|(s, n)| Some(s..s.checked_add(n)?));
    match range {
        Some(r) if r.end <= out.len() => Ok(&mut out[r]),
        _ => Err(out_of_bounds(what.to_string(), at, len, file_len)),
    }
}

/// Copies `bytes` into `out` at offset `at` (see [`region_mut`]).
pub fn put_at(
    out: &mut [u8],
    what: impl fmt::Display,
    at: u64,
    bytes: &[u8],
) -> Result<(), OutOfBounds> {
    region_mut(out, what, at, bytes.len() as u64)?.copy_from_slice(bytes);
    Ok(())
}

/// Rounds `v` up to a multiple of `a` (a power of two).
pub fn align(v: u64, a: u64) -> u64 {
    (v + a - 1) & !(a - 1)
}

/// Lowercase hex digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// A `0x`-prefixed lowercase hex number formatted on the stack (what `{:#010x}` / `{:#x}` give,
/// without an allocation: the exporter writes several per joint).
struct Hex0x {
    buf: [u8; 18],
    len: usize,
}

impl Hex0x {
    /// `{v:#010x}`: `0x` and exactly 8 digits.
    fn u32(v: u32) -> Hex0x {
        Hex0x::digits(u64::from(v), 8)
    }

    /// `{v:#x}`: `0x` and as many digits as needed (at least one).
    fn u64(v: u64) -> Hex0x {
        let n = (16 - v.leading_zeros() as usize / 4).max(1);
        Hex0x::digits(v, n)
    }

    /// `0x` and the low `n` (1..=16) digits of `v`.
    fn digits(v: u64, n: usize) -> Hex0x {
        let mut buf = [b'0'; 18];
        buf[1] = b'x';
        for (i, b) in buf[2..2 + n].iter_mut().enumerate() {
            *b = HEX[((v >> (4 * (n - 1 - i))) & 15) as usize];
        }
        Hex0x { buf, len: 2 + n }
    }

    /// The text (ASCII only).
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or_default()
    }
}

/// Hands `f` the string `d` holds, borrowed when the input allows (a `serde_json::Value`, JSON
/// text without escapes), else for the time of the call: no `String` per field. Errors read as
/// `String::deserialize`'s do ("expected a string").
fn with_str<'de, D, R, F>(d: D, f: F) -> Result<R, D::Error>
where
    D: serde::Deserializer<'de>,
    F: FnOnce(&str) -> Result<R, D::Error>,
{
    struct V<F, R, E>(F, std::marker::PhantomData<(R, E)>);
    impl<'de, F, R, E> serde::de::Visitor<'de> for V<F, R, E>
    where
        F: FnOnce(&str) -> Result<R, E>,
        E: serde::de::Error,
    {
        type Value = Result<R, E>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E2: serde::de::Error>(self, v: &str) -> Result<Self::Value, E2> {
            Ok((self.0)(v))
        }
        fn visit_bytes<E2: serde::de::Error>(self, v: &[u8]) -> Result<Self::Value, E2> {
            match std::str::from_utf8(v) {
                Ok(s) => Ok((self.0)(s)),
                Err(_) => Err(E2::invalid_value(serde::de::Unexpected::Bytes(v), &self)),
            }
        }
    }
    d.deserialize_string(V(f, std::marker::PhantomData))?
}

/// Serde helper: byte vectors as lowercase hex strings, so JSON dumps stay diffable.
pub mod hex_bytes {
    use serde::{Deserializer, Serializer};

    /// Lowercase hex of `bytes`.
    pub fn encode(bytes: &[u8]) -> String {
        Hex(bytes).to_string()
    }

    /// `bytes` as lowercase hex when formatted, without building a `String` first.
    pub struct Hex<'a>(pub &'a [u8]);

    impl std::fmt::Display for Hex<'_> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            let mut buf = [0u8; 128];
            for chunk in self.0.chunks(buf.len() / 2) {
                f.write_str(encode_into(chunk, &mut buf))?;
            }
            Ok(())
        }
    }

    /// Writes the lowercase hex of `bytes` into the start of `out` and returns it; as much as
    /// fits when `out` is shorter than twice `bytes`.
    pub fn encode_into<'o>(bytes: &[u8], out: &'o mut [u8]) -> &'o str {
        let n = bytes.len().min(out.len() / 2);
        for (o, &b) in out.chunks_exact_mut(2).zip(bytes) {
            o[0] = super::HEX[(b >> 4) as usize];
            o[1] = super::HEX[(b & 15) as usize];
        }
        // Only ASCII digits were written.
        std::str::from_utf8(out.get(..2 * n).unwrap_or_default()).unwrap_or_default()
    }

    /// Why hex text is not bytes.
    #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
    pub enum HexError {
        /// An odd number of digits (the length).
        #[error("hex string of odd length {0}")]
        OddLength(usize),
        /// The first character that is not a hex digit (a non-ASCII byte as its Latin-1 char).
        #[error("not a hex digit: {0:?}")]
        NotDigit(char),
    }

    /// Parses lowercase or uppercase hex.
    pub fn decode(s: &str) -> Result<Vec<u8>, HexError> {
        if !s.len().is_multiple_of(2) {
            return Err(HexError::OddLength(s.len()));
        }
        let mut out = vec![0u8; s.len() / 2];
        decode_into(s, &mut out)?;
        Ok(out)
    }

    /// Decodes the even-length hex `s` into `out` (one byte per two digits, as many as both
    /// hold), naming the first character that is not a hex digit.
    pub fn decode_into(s: &str, out: &mut [u8]) -> Result<(), HexError> {
        let nib = |c: u8| -> Result<u8, HexError> {
            match c {
                b'0'..=b'9' => Ok(c - b'0'),
                b'a'..=b'f' => Ok(c - b'a' + 10),
                b'A'..=b'F' => Ok(c - b'A' + 10),
                _ => Err(HexError::NotDigit(c as char)),
            }
        };
        for (o, p) in out.iter_mut().zip(s.as_bytes().chunks_exact(2)) {
            *o = nib(p[0])? << 4 | nib(p[1])?;
        }
        Ok(())
    }

    /// Serializes as hex.
    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&Hex(bytes))
    }

    /// Deserializes from hex.
    pub fn deserialize<'de, D: Deserializer<'de>, T: From<Vec<u8>>>(d: D) -> Result<T, D::Error> {
        super::with_str(d, |s| {
            decode(s).map(T::from).map_err(serde::de::Error::custom)
        })
    }
}

/// Serde helper: a u32 as a `0x`-prefixed hex string, so it survives JSON doubles and tools that
/// turn integers of 2^31 and more into strings (Blender does).
pub mod hex_u32 {
    use serde::{Deserializer, Serializer};

    /// Serializes as `0x...`.
    pub fn serialize<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(super::Hex0x::u32(*v).as_str())
    }

    /// Deserializes from `0x...` hex.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        super::with_str(d, |s| {
            let h = s
                .strip_prefix("0x")
                .ok_or_else(|| serde::de::Error::custom(format!("expected 0x-hex, got {s:?}")))?;
            u32::from_str_radix(h, 16).map_err(serde::de::Error::custom)
        })
    }
}

/// Serde helper: a u64 as a `0x`-prefixed hex string.
pub mod hex_u64 {
    use serde::{Deserializer, Serializer};

    /// Serializes as `0x...`.
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(super::Hex0x::u64(*v).as_str())
    }

    /// Deserializes from `0x...` hex.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        super::with_str(d, |s| {
            let h = s
                .strip_prefix("0x")
                .ok_or_else(|| serde::de::Error::custom(format!("expected 0x-hex, got {s:?}")))?;
            u64::from_str_radix(h, 16).map_err(serde::de::Error::custom)
        })
    }
}

/// Serde helper: a fixed-size array of u32 (e.g. f32 bit patterns) as `0x` hex strings.
pub mod hex_u32s {
    use serde::de::Error;
    use serde::ser::SerializeSeq;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serializes as an array of `0x...` strings.
    pub fn serialize<S: Serializer, const N: usize>(v: &[u32; N], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(N))?;
        for x in v {
            seq.serialize_element(super::Hex0x::u32(*x).as_str())?;
        }
        seq.end()
    }

    /// Deserializes from an array of exactly N `0x...` strings.
    pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        d: D,
    ) -> Result<[u32; N], D::Error> {
        let v = Vec::<String>::deserialize(d)?;
        let n = v.len();
        let parsed = v
            .iter()
            .map(|s| {
                s.strip_prefix("0x")
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .ok_or_else(|| D::Error::custom(format!("expected 0x-hex, got {s:?}")))
            })
            .collect::<Result<Vec<u32>, _>>()?;
        parsed
            .try_into()
            .map_err(|_| D::Error::custom(format!("{n} values, expected {N}")))
    }
}

/// Serde helper: a vector of u32 (offsets, bit patterns) as `0x` hex strings.
pub mod hex_u32s_vec {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serializes as an array of `0x...` strings.
    pub fn serialize<S: Serializer>(v: &[u32], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|x| format!("{x:#010x}")))
    }

    /// Deserializes from an array of `0x...` strings.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|s| {
                s.strip_prefix("0x")
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .ok_or_else(|| D::Error::custom(format!("expected 0x-hex, got {s:?}")))
            })
            .collect()
    }
}

/// Serde helper: a fixed-size byte array as a hex string.
pub mod hex_array {
    use serde::{Deserializer, Serializer};

    /// Serializes as hex (arrays of up to 64 bytes formatted on the stack).
    pub fn serialize<S: Serializer, const N: usize>(v: &[u8; N], s: S) -> Result<S::Ok, S::Error> {
        let mut buf = [0u8; 128];
        match buf.get_mut(..2 * N) {
            Some(out) => s.serialize_str(super::hex_bytes::encode_into(v, out)),
            None => s.serialize_str(&super::hex_bytes::encode(v)),
        }
    }

    /// Deserializes from hex of exactly N bytes.
    pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        d: D,
    ) -> Result<[u8; N], D::Error> {
        super::with_str(d, |s| {
            let mut out = [0u8; N];
            if s.len() == 2 * N {
                // The right length: decoded in place (a bad digit is worded as `decode` words it).
                super::hex_bytes::decode_into(s, &mut out).map_err(serde::de::Error::custom)?;
                return Ok(out);
            }
            let n = super::hex_bytes::decode(s)
                .map_err(serde::de::Error::custom)?
                .len();
            Err(serde::de::Error::custom(format!("{n} bytes, expected {N}")))
        })
    }
}

/// Base64 (see [`rigtrip_gltf::b64`]: glTF data URIs use it too).
pub use rigtrip_gltf::b64;

/// Serde helper: byte vectors as standard base64 (large blobs: gaps, streams).
pub mod base64_bytes {
    use serde::{Deserializer, Serializer};

    /// Serializes as base64. Long blobs (vertex streams: most of a model's scene extras) are
    /// encoded into one string and handed to the serializer as a JSON fragment
    /// ([`RawValue`](serde_json::value::RawValue)): `serde_json` copies it as it stands instead of
    /// looking at every byte for something to escape (base64 has nothing to escape, and the
    /// fragment's own check reads eight bytes at a time). Short ones are formatted straight into
    /// the output. Every serializer here is `serde_json`'s (text, pretty text, `to_value`), and
    /// each writes the same string either way (`tests::base64_writes_one_string_every_way`).
    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        if bytes.len() < FRAGMENT_FROM {
            let engine = &base64::engine::general_purpose::STANDARD;
            return s.collect_str(&base64::display::Base64Display::new(bytes, engine));
        }
        let mut text =
            String::with_capacity(super::b64::encoded_len(bytes.len()).saturating_add(2));
        text.push('"');
        super::b64::encode_into(bytes, &mut text);
        text.push('"');
        let fragment =
            serde_json::value::RawValue::from_string(text).map_err(serde::ser::Error::custom)?;
        serde::Serialize::serialize(&fragment, s)
    }

    /// Blobs of at least this many bytes go out as a fragment (below it, the fragment's
    /// allocation and check cost more than the escape scan they save).
    const FRAGMENT_FROM: usize = 64;

    /// Deserializes from base64.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        super::with_str(d, |s| {
            super::b64::decode(s.as_bytes()).map_err(serde::de::Error::custom)
        })
    }
}

/// A fixed-size little-endian item of a vertex stream.
pub trait LeItem: Sized {
    /// Encoded size in bytes.
    const SIZE: usize;
    /// Appends the little-endian encoding.
    fn put(&self, out: &mut Vec<u8>);
    /// Decodes from exactly `SIZE` bytes.
    fn get(b: &[u8]) -> Self;
}

macro_rules! le_item {
    ($t:ty, $n:expr) => {
        impl LeItem for $t {
            const SIZE: usize = $n;
            fn put(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                let mut a = [0u8; $n];
                a.copy_from_slice(b);
                <$t>::from_le_bytes(a)
            }
        }
    };
}
le_item!(u8, 1);
le_item!(u16, 2);
le_item!(i16, 2);
le_item!(u32, 4);

impl<T: LeItem + Copy + Default, const N: usize> LeItem for [T; N] {
    const SIZE: usize = T::SIZE * N;
    fn put(&self, out: &mut Vec<u8>) {
        for v in self {
            v.put(out);
        }
    }
    fn get(b: &[u8]) -> Self {
        let mut a = [T::default(); N];
        for (i, v) in a.iter_mut().enumerate() {
            *v = T::get(&b[i * T::SIZE..(i + 1) * T::SIZE]);
        }
        a
    }
}

/// Serde helper: a vertex stream as base64 of its exact little-endian bytes: compact, and no
/// f32 bit pattern ever passes through a JSON number.
pub mod le_stream {
    use super::LeItem;
    use serde::{Deserializer, Serializer};

    /// Serializes as base64 of the stream's bytes.
    pub fn serialize<S: Serializer, T: LeItem>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
        let mut out = Vec::with_capacity(v.len() * T::SIZE);
        for x in v {
            x.put(&mut out);
        }
        super::base64_bytes::serialize(&out, s)
    }

    /// Deserializes from base64; the length must be a whole number of items.
    pub fn deserialize<'de, D: Deserializer<'de>, T: LeItem>(d: D) -> Result<Vec<T>, D::Error> {
        // The text borrowed where the input allows (no copy of it), as `base64_bytes` does.
        let b = super::with_str(d, |s| {
            super::b64::decode(s.as_bytes()).map_err(serde::de::Error::custom)
        })?;
        if b.len() % T::SIZE != 0 {
            return Err(serde::de::Error::custom(format!(
                "{} bytes is not a whole number of {}-byte items",
                b.len(),
                T::SIZE
            )));
        }
        Ok(b.chunks_exact(T::SIZE).map(T::get).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Hex of any length (the formatter works in chunks of 64 bytes) is two lowercase
        /// digits a byte, serialises as that string, and decodes back; decoding takes either
        /// case and names the first character that is not a digit.
        #[test]
        fn hex_bytes_round_trip(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            let want: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            proptest::prop_assert_eq!(&hex_bytes::encode(&bytes), &want);
            let mut ser = serde_json::Serializer::new(Vec::new());
            hex_bytes::serialize(&bytes, &mut ser).unwrap();
            proptest::prop_assert_eq!(ser.into_inner(), format!("{want:?}").into_bytes());
            proptest::prop_assert_eq!(&hex_bytes::decode(&want).unwrap(), &bytes);
            proptest::prop_assert_eq!(&hex_bytes::decode(&want.to_uppercase()).unwrap(), &bytes);
        }
    }

    proptest::proptest! {
        /// Base64 blobs on either side of the fragment threshold: compact and pretty text and
        /// `to_value` all give the one JSON string of the encoding, which reads back.
        #[test]
        fn base64_writes_one_string_every_way(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200)
        ) {
            use base64::Engine;
            #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
            struct Blob {
                #[serde(with = "base64_bytes")]
                b: Vec<u8>,
            }
            let want = base64::engine::general_purpose::STANDARD.encode(&bytes);
            let blob = Blob { b: bytes };
            let compact = serde_json::to_string(&blob).unwrap();
            proptest::prop_assert_eq!(&compact, &format!("{{\"b\":\"{want}\"}}"));
            proptest::prop_assert_eq!(
                serde_json::to_string_pretty(&blob).unwrap(),
                format!("{{\n  \"b\": \"{want}\"\n}}")
            );
            proptest::prop_assert_eq!(
                serde_json::to_value(&blob).unwrap(),
                serde_json::json!({ "b": want })
            );
            proptest::prop_assert_eq!(serde_json::from_str::<Blob>(&compact).unwrap(), blob);
        }

        /// Fixed-size hex arrays: the digits `hex_bytes` writes, read back in either case
        /// (refusals: `hex_array_refusals`).
        #[test]
        fn hex_arrays_round_trip(a in proptest::array::uniform16(proptest::num::u8::ANY)) {
            #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
            struct A {
                #[serde(with = "hex_array")]
                a: [u8; 16],
            }
            let text = serde_json::to_string(&A { a }).unwrap();
            proptest::prop_assert_eq!(&text, &format!("{{\"a\":\"{}\"}}", hex_bytes::encode(&a)));
            proptest::prop_assert_eq!(serde_json::from_str::<A>(&text).unwrap(), A { a });
            let upper = text.to_uppercase().replace("\"A\"", "\"a\"");
            proptest::prop_assert_eq!(serde_json::from_str::<A>(&upper).unwrap(), A { a });
        }
    }

    proptest::proptest! {
        /// The one base64 codec agrees with the `base64` crate's standard engine: the same text
        /// for any bytes, and for any text (valid, non-canonical padding or trailing bits,
        /// stray characters, whitespace) the same bytes or the same error.
        #[test]
        fn b64_is_the_base64_crates_standard_engine(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300),
            noise in proptest::collection::vec(
                proptest::sample::select(b"AZaz09+/=-_ \n.Q".to_vec()), 0..6),
            at in proptest::num::usize::ANY,
            cut in 0usize..4,
        ) {
            use base64::Engine as _;
            let engine = &base64::engine::general_purpose::STANDARD;
            let text = engine.encode(&bytes);
            proptest::prop_assert_eq!(b64::encode(&bytes), text.clone());
            let mut appended = String::from("x");
            b64::encode_into(&bytes, &mut appended);
            proptest::prop_assert_eq!(&appended[1..], &text);
            proptest::prop_assert_eq!(b64::encoded_len(bytes.len()), text.len());
            proptest::prop_assert_eq!(b64::decode(text.as_bytes()), Ok(bytes.clone()));
            // Damaged texts: noise spliced in, the end cut off, both.
            let mut damaged = text.clone().into_bytes();
            let i = if damaged.is_empty() { 0 } else { at % (damaged.len() + 1) };
            damaged.splice(i..i, noise.iter().copied());
            let short = &text.as_bytes()[..text.len().saturating_sub(cut)];
            for t in [&damaged[..], short] {
                proptest::prop_assert_eq!(b64::decode(t), engine.decode(t));
            }
        }
    }

    #[test]
    fn b64_non_canonical_texts_decode_as_the_base64_crate_decodes_them() {
        use base64::Engine as _;
        let engine = &base64::engine::general_purpose::STANDARD;
        // Trailing bits set, padding missing or extra, padding inside.
        for t in [
            "QR==", "QUJ=", "QQ", "QQ===", "QQ==QQ==", "Q===", "====", "QUJD\n",
        ] {
            assert_eq!(b64::decode(t.as_bytes()), engine.decode(t), "{t:?}");
            assert!(b64::decode(t.as_bytes()).is_err(), "{t:?}");
        }
        assert_eq!(b64::decode(b"QUJD"), Ok(b"ABC".to_vec()));
        assert_eq!(b64::decode(b""), Ok(Vec::new()));
    }

    #[test]
    fn hex_array_refusals() {
        #[derive(serde::Deserialize, Debug)]
        struct A {
            #[allow(dead_code)]
            #[serde(with = "hex_array")]
            a: [u8; 2],
        }
        let err = |t: &str| serde_json::from_str::<A>(t).unwrap_err().to_string();
        assert_eq!(
            err(r#"{"a":"00112233"}"#),
            "4 bytes, expected 2 at line 1 column 16"
        );
        assert_eq!(
            err(r#"{"a":"001"}"#),
            "hex string of odd length 3 at line 1 column 11"
        );
        assert_eq!(
            err(r#"{"a":"0g11"}"#),
            "not a hex digit: 'g' at line 1 column 12"
        );
        assert_eq!(
            err(r#"{"a":"0g"}"#),
            "not a hex digit: 'g' at line 1 column 10"
        );
    }

    #[test]
    fn hex_into_a_short_buffer_writes_what_fits() {
        let mut out = [0u8; 5];
        assert_eq!(
            hex_bytes::encode_into(&[0xab, 0xcd, 0xef], &mut out),
            "abcd"
        );
        let mut back = [0u8; 2];
        hex_bytes::decode_into("abcdef", &mut back).unwrap();
        assert_eq!(back, [0xab, 0xcd]);
    }

    #[test]
    fn hex_bytes_refusals() {
        assert_eq!(
            hex_bytes::decode("abc").unwrap_err().to_string(),
            "hex string of odd length 3"
        );
        assert_eq!(
            hex_bytes::decode("0g").unwrap_err().to_string(),
            "not a hex digit: 'g'"
        );
        assert_eq!(
            hex_bytes::decode("x0zz").unwrap_err().to_string(),
            "not a hex digit: 'x'"
        );
        assert_eq!(hex_bytes::decode("").unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn hex_on_the_stack_is_what_format_writes() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut values = vec![
            0,
            1,
            0xf,
            0x10,
            0xff,
            0x100,
            u64::from(u32::MAX),
            1 << 32,
            u64::MAX,
        ];
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(x >> (x % 64));
        }
        for v in values {
            assert_eq!(Hex0x::u64(v).as_str(), format!("{v:#x}"));
            let w = v as u32;
            assert_eq!(Hex0x::u32(w).as_str(), format!("{w:#010x}"));
        }
    }

    #[test]
    fn reads_are_bounds_checked() {
        let b = Bytes::new(&[1, 2, 3, 4, 5]);
        assert_eq!(b.u32("x", 0).unwrap(), 0x0403_0201);
        assert_eq!(b.u32("x", 1).unwrap(), 0x0504_0302);
        let e = b.u32("slot 3", 2).unwrap_err();
        assert_eq!(
            e.to_string(),
            "slot 3 at offset 0x2 (4 bytes) runs past the end of the file (0x5 bytes)"
        );
        assert!(b.slice("huge", u64::MAX, 2).is_err());
    }

    #[test]
    fn region_map_reports_gaps_and_overlaps() {
        let data: Vec<u8> = (0..16).collect();
        let mut m = RegionMap::new();
        m.claim(2, 3, "a");
        m.claim(8, 4, "b");
        let (claims, gaps) = m.finish(&data).unwrap();
        assert_eq!(claims.len(), 2);
        assert_eq!(
            gaps,
            vec![
                Gap {
                    offset: 0,
                    bytes: vec![0, 1]
                },
                Gap {
                    offset: 5,
                    bytes: vec![5, 6, 7]
                },
                Gap {
                    offset: 12,
                    bytes: vec![12, 13, 14, 15]
                },
            ]
        );
        let mut m = RegionMap::new();
        m.claim(2, 4, "a");
        m.claim(5, 4, "b");
        let e = m.finish(&data).unwrap_err();
        assert_eq!(e.to_string(), "a (0x2..0x6) overlaps b (0x5..0x9)");
    }

    #[test]
    fn claims_sort_stably_short_and_long() {
        for n in [0usize, 1, 5, 64, 65, 300] {
            let mut claims: Vec<Claim<usize>> = (0..n)
                .map(|i| {
                    let start = ((i * 7919) % 13) as u64;
                    Claim {
                        start,
                        end: start + (i % 3) as u64,
                        label: i,
                    }
                })
                .collect();
            let mut expect = claims.clone();
            expect.sort_by_key(|c| (c.start, c.end));
            sort_claims(&mut claims);
            assert_eq!(claims, expect, "{n} claims");
        }
    }

    #[test]
    fn json_forms_keep_every_bit() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct T {
            #[serde(with = "hex_u32")]
            a: u32,
            #[serde(with = "hex_u64")]
            b: u64,
            #[serde(with = "hex_array")]
            c: [u8; 3],
        }
        let t = T {
            a: 0xffff_fffe,
            b: 1 << 63,
            c: [1, 0xab, 0],
        };
        let j = serde_json::to_string(&t).unwrap();
        assert_eq!(
            j,
            r#"{"a":"0xfffffffe","b":"0x8000000000000000","c":"01ab00"}"#
        );
        assert_eq!(serde_json::from_str::<T>(&j).unwrap(), t);
        let g = Gap {
            offset: 0x10,
            bytes: vec![0, 1, 2, 0xff],
        };
        let j = serde_json::to_string(&g).unwrap();
        assert_eq!(j, r#"{"offset":"0x10","bytes":"AAEC/w=="}"#);
        assert_eq!(serde_json::from_str::<Gap>(&j).unwrap(), g);
        assert!(serde_json::from_str::<T>(r#"{"a":"12","b":"0x1","c":"00"}"#).is_err());

        // Read from a borrowed `Value`, from an owned one, and from escaped text (handed over
        // owned, not borrowed); refusals read as they did with `String::deserialize`.
        let v = serde_json::json!({"a": "0x0000002a", "b": "0x1f", "c": "0aff01"});
        let want = T {
            a: 42,
            b: 31,
            c: [0x0a, 0xff, 1],
        };
        assert_eq!(T::deserialize(&v).unwrap(), want);
        assert_eq!(serde_json::from_value::<T>(v).unwrap(), want);
        let escaped = r#"{"a": "0x0000002\u0061", "b": "0x1f", "c": "0aff01"}"#;
        assert_eq!(serde_json::from_str::<T>(escaped).unwrap(), want);
        let refused = |v: serde_json::Value| T::deserialize(&v).unwrap_err().to_string();
        assert_eq!(
            refused(serde_json::json!({"a": 5, "b": "0x1", "c": "000000"})),
            "invalid type: integer `5`, expected a string"
        );
        assert_eq!(
            refused(serde_json::json!({"a": "5", "b": "0x1", "c": "000000"})),
            "expected 0x-hex, got \"5\""
        );
        assert_eq!(
            refused(serde_json::json!({"a": "0x1", "b": "0x1", "c": "00"})),
            "1 bytes, expected 3"
        );
    }

    #[test]
    fn streams_serialize_as_their_exact_bytes() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct T {
            #[serde(with = "le_stream")]
            p: Vec<[u32; 3]>,
            #[serde(with = "le_stream")]
            w: Vec<u16>,
        }
        let t = T {
            p: vec![[0x7fc0_0001, 0x8000_0000, 1]],
            w: vec![0x8001],
        };
        let j = serde_json::to_string(&t).unwrap();
        assert_eq!(j, r#"{"p":"AQDAfwAAAIABAAAA","w":"AYA="}"#);
        assert_eq!(serde_json::from_str::<T>(&j).unwrap(), t);
        assert!(serde_json::from_str::<T>(r#"{"p":"AQI=","w":""}"#).is_err());
    }

    #[test]
    fn hex_round_trip() {
        let v = vec![0u8, 0x7f, 0x80, 0xff];
        assert_eq!(hex_bytes::encode(&v), "007f80ff");
        assert_eq!(hex_bytes::decode("007F80ff").unwrap(), v);
        assert!(hex_bytes::decode("0").is_err());
        assert!(hex_bytes::decode("zz").is_err());
    }
}
