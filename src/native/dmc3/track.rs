//! One keyframe track of a DMC3 motion: its fixed head, its keys in one of the compressions
//! (`docs/formats.md`, motions), their quantisation, and [`Track::encode`], the one place that
//! sets spans and ranges for new data. [`super::motion`] holds the file around the tracks.
//!
//! What the executable does with a track (EXE): a key plays at frame `(time & 0x7FFF)` plus the
//! head's signed time offset; in compression 3 the left key's bit 15 makes its segment Hermite
//! (set) or linear (clear); compression 2 is always linear; the key count is read as signed.

use serde::{Deserialize, Serialize};

use crate::native::record::{Ctx, Hex, Int};

/// Key time bit 15: in compression 3, the segment from this key to the next is Hermite (set) or
/// linear (clear) (EXE; set on every compression-3 key of the census). Kept raw elsewhere.
pub const TIME_FLAG: u16 = 0x8000;
/// The frame part of a key time.
pub const TIME_FRAME: u16 = 0x7FFF;
/// The most keys a track may hold: the game reads the key count as signed (EXE).
pub const MAX_KEYS: usize = 0x7FFF;

crate::record! {
    /// The fixed 0x10 bytes every track starts with.
    #[derive(Copy)]
    pub struct TrackHead [0x10] "motTrackHead" counts TrackHeadCounts {
        0x00 span: u16 = Int<u16>, "span", Decoded Community,
            "bytes from this track's start to the next track's (census: exactly the keys' end)";
        0x02 #[derived] key_count: u16 = Int<u16>, "key count", Decoded ExeConfirmed,
            "number of keys; the game reads it as signed, so at most 32,767";
        0x04 compression: u16 = Int<u16>, "compression", Decoded Community,
            "0 f32 linear, 1 f32 Hermite, 2 u16 linear, 3 u16 Hermite";
        0x06 time_offset: i16 = Int<i16>, "time offset", Decoded ExeConfirmed,
            "signed, added to every key's frame (census: 0, or -11 and -19 on 117 tracks of three files)";
        0x08 min_bits: u32 = Hex<u32>, "value min", Decoded Community, "value min, f32 bit pattern";
        0x0C range_bits: u32 = Hex<u32>, "value range", Decoded Community,
            "value range, f32 bit pattern";
    }
}

crate::record! {
    /// The tangent ranges of a compression-3 track, right after the head (compression 1 has
    /// none: its tangents are f32).
    #[derive(Copy)]
    pub struct TangentRanges [0x10] "motTangents" {
        0x00 in_min_bits: u32 = Hex<u32>, "in-tangent min", Decoded Community, "in-tangent min, f32";
        0x04 in_range_bits: u32 = Hex<u32>, "in-tangent range", Decoded Community,
            "in-tangent range, f32";
        0x08 out_min_bits: u32 = Hex<u32>, "out-tangent min", Decoded Community,
            "out-tangent min, f32";
        0x0C out_range_bits: u32 = Hex<u32>, "out-tangent range", Decoded Community,
            "out-tangent range, f32";
    }
}

/// Declares a key record: every key starts with its time word (its evidence and meaning
/// given), the rest differs by compression.
macro_rules! key_record {
    ($(#[$m:meta])* $name:ident [$len:expr] $schema:literal
        time $evidence:ident $meaning:literal { $($fields:tt)* }) => {
        crate::record! {
            $(#[$m])*
            #[derive(Copy)]
            pub struct $name [$len] $schema {
                0x00 time: u16 = Int<u16>, "time", Decoded $evidence, $meaning;
                $($fields)*
            }
        }
    };
}

key_record! {
    /// A compression-2 key: quantised value, linear.
    KeyU16 [0x04] "motKeyU16" time ExeConfirmed
        "frame = (time & 0x7FFF) + the track's time offset; bit 15 kept raw (compression 2 is always linear)" {
        0x02 value: u16 = Int<u16>, "value", Decoded Community, "q: q * range / 65535 + min";
    }
}

key_record! {
    /// A compression-3 key: quantised value and tangents, Hermite.
    KeyU16Hermite [0x08] "motKeyU16Hermite" time ExeConfirmed
        "frame = (time & 0x7FFF) + the track's time offset; bit 15: the segment to the next key is Hermite (set) or linear (clear)" {
        0x02 value: u16 = Int<u16>, "value", Decoded Community, "q: q * range / 65535 + min";
        0x04 in_tangent: u16 = Int<u16>, "in-tangent", Decoded Community,
            "q: q * in range / 65535 + in min, per frame";
        0x06 out_tangent: u16 = Int<u16>, "out-tangent", Decoded Community,
            "q: q * out range / 65535 + out min, per frame";
    }
}

key_record! {
    /// A compression-0 key: 8 bytes (EXE), never seen in the census; the fields' places are
    /// ASSUMED (see [`Keys::F32`]).
    KeyF32 [0x08] "motKeyF32" time Community
        "assumed as in the u16 layouts: frame = (time & 0x7FFF) + the track's time offset; bit 15 kept raw" {
        0x02 pad_02: u16 = Int<u16>, "+0x02", Preserved PreservedUndecoded,
            "assumed alignment padding before the f32 value, kept raw";
        0x04 value_bits: u32 = Hex<u32>, "value", Decoded Community, "value, f32 bit pattern";
    }
}

key_record! {
    /// A compression-1 key: 16 bytes (EXE), never seen in the census; the fields' places are
    /// ASSUMED (see [`Keys::F32Hermite`]).
    KeyF32Hermite [0x10] "motKeyF32Hermite" time Community
        "assumed as in the u16 layouts: frame = (time & 0x7FFF) + the track's time offset; bit 15 kept raw" {
        0x02 pad_02: u16 = Int<u16>, "+0x02", Preserved PreservedUndecoded,
            "assumed alignment padding before the f32 fields, kept raw";
        0x04 value_bits: u32 = Hex<u32>, "value", Decoded Community, "value, f32 bit pattern";
        0x08 in_bits: u32 = Hex<u32>, "in-tangent", Decoded Community,
            "in-tangent per frame, f32 bit pattern";
        0x0C out_bits: u32 = Hex<u32>, "out-tangent", Decoded Community,
            "out-tangent per frame, f32 bit pattern";
    }
}

/// A track's compression (head +0x04).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Compression {
    /// 0: f32 values, linear (never seen; layout assumed).
    F32Linear = 0,
    /// 1: f32 values and tangents, Hermite (never seen; layout assumed).
    F32Hermite = 1,
    /// 2: u16 quantised values, linear (root motion in the census).
    U16Linear = 2,
    /// 3: u16 quantised values and tangents, Hermite (nearly every track).
    U16Hermite = 3,
}

impl Compression {
    /// All four, by number.
    pub const ALL: [Compression; 4] = [
        Compression::F32Linear,
        Compression::F32Hermite,
        Compression::U16Linear,
        Compression::U16Hermite,
    ];

    /// The compression numbered `v`.
    pub fn from_u16(v: u16) -> Option<Compression> {
        Compression::ALL.get(usize::from(v)).copied()
    }

    /// The number on disk.
    pub fn number(self) -> u16 {
        self as u16
    }

    /// Whether keys carry tangents.
    pub fn is_hermite(self) -> bool {
        matches!(self, Compression::F32Hermite | Compression::U16Hermite)
    }

    /// Whether the track carries tangent ranges after its head (compression 3 alone: the
    /// other Hermite compression keeps its tangents as f32).
    pub fn has_tangent_ranges(self) -> bool {
        self == Compression::U16Hermite
    }

    /// Whether bit 15 of a key's time chooses its segment's interpolation (compression 3,
    /// EXE); in the others it is kept raw and the compression decides.
    pub fn flag_chooses_segment(self) -> bool {
        self == Compression::U16Hermite
    }

    /// Size of one key on disk.
    pub fn key_len(self) -> u64 {
        match self {
            Compression::F32Linear => KeyF32::LEN as u64,
            Compression::F32Hermite => KeyF32Hermite::LEN as u64,
            Compression::U16Linear => KeyU16::LEN as u64,
            Compression::U16Hermite => KeyU16Hermite::LEN as u64,
        }
    }

    /// Size of head plus tangent ranges.
    pub fn fixed_len(self) -> u64 {
        TrackHead::LEN as u64
            + if self.has_tangent_ranges() {
                TangentRanges::LEN as u64
            } else {
                0
            }
    }

    /// The exact span of a track of `keys` keys (before any extra bytes).
    pub fn span_for(self, keys: u64) -> u64 {
        self.fixed_len() + self.key_len() * keys
    }
}

/// The keys of one track, in the layout its compression gives them.
///
/// Compression 0 and 1 were never seen (census, docs/formats.md, motions); the executable reads
/// their keys as f32 keys of 8 and 16 bytes, and only compression 3 has tangent ranges after the
/// head (EXE). Where the fields sit inside those keys is an ASSUMPTION: the u16 key time in the
/// same place as in the quantised layouts, then two bytes of alignment (kept raw), then the f32
/// fields in the order of the quantised layouts. Min and range are kept but unused for f32 keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "layout", content = "keys")]
pub enum Keys {
    /// Compression 0: `{u16 time, u16 pad, f32 value}`.
    F32(Vec<KeyF32>),
    /// Compression 1: `{u16 time, u16 pad, f32 value, f32 in, f32 out}`.
    F32Hermite(Vec<KeyF32Hermite>),
    /// Compression 2: `{u16 time, u16 value}`.
    U16(Vec<KeyU16>),
    /// Compression 3: `{u16 time, u16 value, u16 in, u16 out}`.
    U16Hermite(Vec<KeyU16Hermite>),
}

impl Keys {
    /// The compression whose layout these keys have.
    pub fn compression(&self) -> Compression {
        match self {
            Keys::F32(_) => Compression::F32Linear,
            Keys::F32Hermite(_) => Compression::F32Hermite,
            Keys::U16(_) => Compression::U16Linear,
            Keys::U16Hermite(_) => Compression::U16Hermite,
        }
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        match self {
            Keys::F32(k) => k.len(),
            Keys::F32Hermite(k) => k.len(),
            Keys::U16(k) => k.len(),
            Keys::U16Hermite(k) => k.len(),
        }
    }

    /// Whether there are no keys.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The raw time word of key `i`.
    pub fn time(&self, i: usize) -> Option<u16> {
        match self {
            Keys::F32(k) => k.get(i).map(|k| k.time),
            Keys::F32Hermite(k) => k.get(i).map(|k| k.time),
            Keys::U16(k) => k.get(i).map(|k| k.time),
            Keys::U16Hermite(k) => k.get(i).map(|k| k.time),
        }
    }

    pub(super) fn decode(c: Compression, b: &[u8], n: usize) -> Keys {
        fn each<R: crate::native::record::Record>(b: &[u8], n: usize) -> Vec<R> {
            b.chunks_exact(R::LEN)
                .take(n)
                // decode_slice only fails for codecs that can reject bytes; these cannot.
                .filter_map(|c| R::decode_slice(c, Ctx::default()).ok().map(|(r, _)| r))
                .collect()
        }
        match c {
            Compression::F32Linear => Keys::F32(each(b, n)),
            Compression::F32Hermite => Keys::F32Hermite(each(b, n)),
            Compression::U16Linear => Keys::U16(each(b, n)),
            Compression::U16Hermite => Keys::U16Hermite(each(b, n)),
        }
    }

    pub(super) fn encode_into(&self, out: &mut Vec<u8>) {
        match self {
            Keys::F32(k) => k.iter().for_each(|k| out.extend_from_slice(&k.encode())),
            Keys::F32Hermite(k) => k.iter().for_each(|k| out.extend_from_slice(&k.encode())),
            Keys::U16(k) => k.iter().for_each(|k| out.extend_from_slice(&k.encode())),
            Keys::U16Hermite(k) => k.iter().for_each(|k| out.extend_from_slice(&k.encode())),
        }
    }
}

/// One keyframe track.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Track {
    /// Span, compression, time offset, value min and range, as on disk (the key count is the
    /// number of keys).
    pub head: TrackHead,
    /// The tangent ranges: present exactly for compression 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tangents: Option<TangentRanges>,
    /// The keys.
    #[serde(flatten)]
    pub keys: Keys,
    /// Bytes between the keys' end and the span (none in the census), kept.
    #[serde(with = "crate::bytes::base64_bytes")]
    pub extra: Vec<u8>,
}

/// One key decoded to numbers (docs/formats.md, motions).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecodedKey {
    /// The frame the time word holds: `time & 0x7FFF`.
    pub frame: u16,
    /// The frame the key plays at: `frame` plus the track's time offset (EXE).
    pub time: i32,
    /// Bit 15 of the time word.
    pub flag: bool,
    /// Whether the segment from this key to the next is Hermite (EXE: compression 3 by the
    /// key's bit 15, compression 1 always, compressions 0 and 2 never).
    pub hermite: bool,
    /// The value (radians for rotations).
    pub value: f32,
    /// The in-tangent per frame (0 for linear tracks).
    pub in_tangent: f32,
    /// The out-tangent per frame (0 for linear tracks).
    pub out_tangent: f32,
}

/// A key to encode with [`Track::encode`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyIn {
    /// The frame its time word holds (the track's time offset not included), at most 0x7FFF.
    pub frame: u16,
    /// Bit 15 of the time word (compression 3: set for a Hermite segment to the next key).
    pub flag: bool,
    /// The value.
    pub value: f32,
    /// The in-tangent per frame (ignored by linear compressions).
    pub in_tangent: f32,
    /// The out-tangent per frame (ignored by linear compressions).
    pub out_tangent: f32,
}

impl From<DecodedKey> for KeyIn {
    fn from(k: DecodedKey) -> KeyIn {
        KeyIn {
            frame: k.frame,
            flag: k.flag,
            value: k.value,
            in_tangent: k.in_tangent,
            out_tangent: k.out_tangent,
        }
    }
}

/// Dequantises `q` with a track's `min` and `range`: `q · range / 65535 + min` (docs/formats.md,
/// motions).
///
/// Computed in f64 and rounded once to f32: the formula's value to the nearest f32, which the
/// tests and an independent decoder can reproduce exactly. The engine may well compute in f32
/// (the public importers multiply by a rounded 1/65535), which can differ by an ulp or so.
pub fn dequantise(q: u16, min: f32, range: f32) -> f32 {
    (f64::from(q) * f64::from(range) / 65535.0 + f64::from(min)) as f32
}

/// The q in 0..=65535 nearest to `v` for `min` and `range` (round to nearest; 0 when the range
/// is 0 or not finite).
pub fn quantise(v: f32, min: f32, range: f32) -> u16 {
    let r = f64::from(range);
    if r == 0.0 || !r.is_finite() {
        return 0;
    }
    let q = ((f64::from(v) - f64::from(min)) * 65535.0 / r).round();
    q.clamp(0.0, 65535.0) as u16
}

fn min_range(values: impl Iterator<Item = f32>) -> (f32, f32) {
    let (lo, hi) = values.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if lo > hi {
        (0.0, 0.0)
    } else {
        (lo, hi - lo)
    }
}

impl Track {
    /// The compression named by the head, if it is one of the four.
    pub fn compression(&self) -> Option<Compression> {
        Compression::from_u16(self.head.compression)
    }

    /// Whether the keys carry tangents (compression 1 or 3); which segments play Hermite is
    /// per key ([`DecodedKey::hermite`]).
    pub fn is_hermite(&self) -> bool {
        self.keys.compression().is_hermite()
    }

    /// The time offset added to every key's frame (census: 0, -11 or -19).
    pub fn time_offset(&self) -> i16 {
        self.head.time_offset
    }

    /// Value min as f32.
    pub fn min(&self) -> f32 {
        f32::from_bits(self.head.min_bits)
    }

    /// Value range as f32.
    pub fn range(&self) -> f32 {
        f32::from_bits(self.head.range_bits)
    }

    /// The bytes this track occupies when written (head, tangents, keys, extra).
    pub fn encoded_len(&self) -> u64 {
        self.keys.compression().span_for(self.keys.len() as u64) + self.extra.len() as u64
    }

    /// Every key as numbers: frame, time played, bit 15, its segment's interpolation, value and
    /// tangents (docs/formats.md, motions; see [`dequantise`]).
    pub fn decoded_keys(&self) -> Vec<DecodedKey> {
        let c = self.keys.compression();
        let offset = i32::from(self.head.time_offset);
        let (min, range) = (self.min(), self.range());
        let t = self.tangents.unwrap_or_default();
        let (imin, irange) = (
            f32::from_bits(t.in_min_bits),
            f32::from_bits(t.in_range_bits),
        );
        let (omin, orange) = (
            f32::from_bits(t.out_min_bits),
            f32::from_bits(t.out_range_bits),
        );
        let key = |time: u16, value: f32, i: f32, o: f32| DecodedKey {
            frame: time & TIME_FRAME,
            time: i32::from(time & TIME_FRAME) + offset,
            flag: time & TIME_FLAG != 0,
            hermite: if c.flag_chooses_segment() {
                time & TIME_FLAG != 0
            } else {
                c.is_hermite()
            },
            value,
            in_tangent: i,
            out_tangent: o,
        };
        match &self.keys {
            Keys::F32(k) => k
                .iter()
                .map(|k| key(k.time, f32::from_bits(k.value_bits), 0.0, 0.0))
                .collect(),
            Keys::F32Hermite(k) => k
                .iter()
                .map(|k| {
                    key(
                        k.time,
                        f32::from_bits(k.value_bits),
                        f32::from_bits(k.in_bits),
                        f32::from_bits(k.out_bits),
                    )
                })
                .collect(),
            Keys::U16(k) => k
                .iter()
                .map(|k| key(k.time, dequantise(k.value, min, range), 0.0, 0.0))
                .collect(),
            Keys::U16Hermite(k) => k
                .iter()
                .map(|k| {
                    key(
                        k.time,
                        dequantise(k.value, min, range),
                        dequantise(k.in_tangent, imin, irange),
                        dequantise(k.out_tangent, omin, orange),
                    )
                })
                .collect(),
        }
    }

    /// Builds a track from keys: min and range from the values (and tangent ranges from the
    /// tangents), values quantised to the nearest q for u16 compressions, span and key count set.
    /// Linear compressions ignore the tangents. Refuses frames over 0x7FFF, non-finite numbers,
    /// more keys than the game reads ([`MAX_KEYS`]) and more than a u16 span can hold.
    pub fn encode(c: Compression, time_offset: i16, keys: &[KeyIn]) -> Result<Track, EncodeError> {
        if keys.len() > MAX_KEYS {
            return Err(EncodeError::TooManyKeys { keys: keys.len() });
        }
        let span = c.span_for(keys.len() as u64);
        if span > u64::from(u16::MAX) {
            return Err(EncodeError::SpanOverflow {
                keys: keys.len(),
                compression: c.number(),
                bytes: span,
            });
        }
        for (i, k) in keys.iter().enumerate() {
            if k.frame > TIME_FRAME {
                return Err(EncodeError::Frame {
                    key: i,
                    frame: k.frame,
                });
            }
            let used = [k.value, k.in_tangent, k.out_tangent];
            let n = if c.is_hermite() { 3 } else { 1 };
            if used[..n].iter().any(|v| !v.is_finite()) {
                return Err(EncodeError::NotFinite { key: i });
            }
        }
        let (min, range) = min_range(keys.iter().map(|k| k.value));
        let (imin, irange) = min_range(keys.iter().map(|k| k.in_tangent));
        let (omin, orange) = min_range(keys.iter().map(|k| k.out_tangent));
        if !range.is_finite()
            || !irange.is_finite() && c.has_tangent_ranges()
            || !orange.is_finite() && c.has_tangent_ranges()
        {
            return Err(EncodeError::RangeOverflow);
        }
        let time = |k: &KeyIn| k.frame | if k.flag { TIME_FLAG } else { 0 };
        let tangents = c.has_tangent_ranges().then_some(TangentRanges {
            in_min_bits: imin.to_bits(),
            in_range_bits: irange.to_bits(),
            out_min_bits: omin.to_bits(),
            out_range_bits: orange.to_bits(),
        });
        fn each<K>(keys: &[KeyIn], key: impl Fn(&KeyIn) -> K) -> Vec<K> {
            keys.iter().map(key).collect()
        }
        let keys_out = match c {
            Compression::F32Linear => Keys::F32(each(keys, |k| KeyF32 {
                time: time(k),
                pad_02: 0,
                value_bits: k.value.to_bits(),
            })),
            Compression::F32Hermite => Keys::F32Hermite(each(keys, |k| KeyF32Hermite {
                time: time(k),
                pad_02: 0,
                value_bits: k.value.to_bits(),
                in_bits: k.in_tangent.to_bits(),
                out_bits: k.out_tangent.to_bits(),
            })),
            Compression::U16Linear => Keys::U16(each(keys, |k| KeyU16 {
                time: time(k),
                value: quantise(k.value, min, range),
            })),
            Compression::U16Hermite => Keys::U16Hermite(each(keys, |k| KeyU16Hermite {
                time: time(k),
                value: quantise(k.value, min, range),
                in_tangent: quantise(k.in_tangent, imin, irange),
                out_tangent: quantise(k.out_tangent, omin, orange),
            })),
        };
        Ok(Track {
            head: TrackHead {
                span: span as u16,
                compression: c.number(),
                time_offset,
                min_bits: min.to_bits(),
                range_bits: range.to_bits(),
            },
            tangents,
            keys: keys_out,
            extra: Vec::new(),
        })
    }

    /// The worst absolute difference between `keys` and what this track decodes to, over
    /// values and (for Hermite tracks) tangents; infinite when the key counts differ.
    pub fn quantisation_error(&self, keys: &[KeyIn]) -> f64 {
        let dec = self.decoded_keys();
        if dec.len() != keys.len() {
            return f64::INFINITY;
        }
        let h = self.is_hermite();
        dec.iter()
            .zip(keys)
            .flat_map(|(d, k)| {
                let mut e = vec![(d.value, k.value)];
                if h {
                    e.push((d.in_tangent, k.in_tangent));
                    e.push((d.out_tangent, k.out_tangent));
                }
                e
            })
            .map(|(a, b)| (f64::from(a) - f64::from(b)).abs())
            .fold(0.0, f64::max)
    }

    /// The head's derived field from the keys: the key count (at most [`MAX_KEYS`]).
    pub fn counts(&self) -> Result<TrackHeadCounts, TrackProblem> {
        let keys = self.keys.len();
        match u16::try_from(keys) {
            Ok(key_count) if keys <= MAX_KEYS => Ok(TrackHeadCounts { key_count }),
            _ => Err(TrackProblem::TooManyKeys { keys }),
        }
    }

    /// Checks head against keys (compression, tangents, span); the problem if any.
    pub(super) fn check(&self) -> Option<TrackProblem> {
        let c = self.keys.compression();
        if self.head.compression != c.number() {
            return Some(TrackProblem::CompressionMismatch {
                head: self.head.compression,
                keys: c.number(),
            });
        }
        if self.tangents.is_some() != c.has_tangent_ranges() {
            return Some(TrackProblem::Tangents {
                compression: c.number(),
            });
        }
        let len = self.encoded_len();
        if u64::from(self.head.span) != len {
            return Some(TrackProblem::SpanMismatch {
                span: self.head.span,
                len,
            });
        }
        None
    }
}

/// Why [`Track::encode`] cannot encode some keys.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EncodeError {
    /// More keys than the game reads (it reads the key count as signed).
    #[error("{keys} keys: a track holds at most 32767 (the game reads the key count as signed)")]
    TooManyKeys {
        /// Number of keys.
        keys: usize,
    },
    /// The track would be longer than a u16 span.
    #[error("{keys} keys of compression {compression} need {bytes} bytes, but the span is a u16")]
    SpanOverflow {
        /// Number of keys.
        keys: usize,
        /// The compression.
        compression: u16,
        /// The bytes the track would occupy.
        bytes: u64,
    },
    /// A frame does not fit in 15 bits.
    #[error("key {key}: frame {frame} is over 0x7FFF")]
    Frame {
        /// Key index.
        key: usize,
        /// The frame.
        frame: u16,
    },
    /// A value or tangent is NaN or infinite.
    #[error("key {key}: value or tangent is not finite")]
    NotFinite {
        /// Key index.
        key: usize,
    },
    /// max - min overflows f32.
    #[error("the values' range overflows f32")]
    RangeOverflow,
}

/// What is wrong with one track.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TrackProblem {
    /// The head or keys run past the end of the input.
    #[error(
        "{what} ({len} bytes at {offset:#x}) runs past the end of the file ({file_len:#x} bytes)"
    )]
    Truncated {
        /// Head, tangent ranges or keys.
        what: &'static str,
        /// Offset of the cut structure.
        offset: u64,
        /// Its length.
        len: u64,
        /// Input length.
        file_len: u64,
    },
    /// Compression is not 0..=3.
    #[error("unknown compression {0}")]
    UnknownCompression(u16),
    /// The span is shorter than head, tangents and keys.
    #[error("span {span:#x} is shorter than the {need:#x} bytes its {keys} keys need")]
    SpanTooShort {
        /// The span.
        span: u16,
        /// What the keys need.
        need: u64,
        /// Key count.
        keys: u16,
    },
    /// The span runs past the end of the input.
    #[error("span {span:#x} runs past the end of the file ({file_len:#x} bytes)")]
    SpanPastEnd {
        /// The span.
        span: u16,
        /// Input length.
        file_len: u64,
    },
    /// (write) The head's compression differs from the keys' layout.
    #[error("head says compression {head}, the keys have the layout of compression {keys}")]
    CompressionMismatch {
        /// Head value.
        head: u16,
        /// Keys' compression.
        keys: u16,
    },
    /// (write) More keys than the game reads (the key count is read as signed).
    #[error(
        "{keys} keys, but a track holds at most 32767 (the game reads the key count as signed)"
    )]
    TooManyKeys {
        /// Keys held.
        keys: usize,
    },
    /// (write) Tangent ranges present on a track that is not compression 3, or missing on one.
    #[error("tangent ranges must be present exactly on compression-3 tracks (this one is compression {compression})")]
    Tangents {
        /// The keys' compression.
        compression: u16,
    },
    /// (write) The span differs from what the track occupies.
    #[error("span {span:#x}, but the track occupies {len:#x} bytes")]
    SpanMismatch {
        /// Head value.
        span: u16,
        /// Bytes the track occupies.
        len: u64,
    },
}
