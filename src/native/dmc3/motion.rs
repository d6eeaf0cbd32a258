//! DMC3 motions (`.mot`; `docs/formats.md`): a header of per-node 9-bit channel masks, a track
//! count and one keyframe track per set mask bit, node by node, bit 8 down to bit 0.
//!
//! Every byte is represented: the fixed header ([`MotHeader`]), the masks, the header tail after
//! the masks (non-zero in most real files, PRESERVED_UNDECODED), the track count word, each
//! track's head, tangent ranges, keys and any bytes between its keys and its span, and the bytes
//! after the last track (padding inside an archive). `write(read(b)) == b` for every accepted
//! input.
//!
//! Counts of lists are the lists' lengths: the header's node count (the masks), the track
//! count word (the tracks) and each head's key count (the keys) are `#[derived]` record fields
//! or computed on write, never held beside the lists. The reader takes them from the file and
//! CHECKS them: it rejects a node count the header size cannot hold, a track count that is not
//! the number of set mask bits and a span shorter than its keys. The writer refuses what the
//! lists cannot be written as: a header size, compression or span that disagrees with them,
//! tracks that are not one per set mask bit, lists too long for their counts.
//! [`Track::encode`] is the one place that sets spans and ranges for new data.

use serde::{Deserialize, Serialize};

use crate::bytes::{Bytes, OutOfBounds};
use crate::native::record::{Counted, Ctx, Hex, HexArray, Int};

/// The motion magic at +0x04.
pub const MOT_MAGIC: [u8; 4] = *b"MOT\0";
/// Frames per second of DMC3 motions (docs/formats.md, motions).
pub const FRAME_RATE: f32 = 60.0;
/// Key time bit 15: PRESERVED_UNDECODED (1 on every Hermite key seen, 0 on every linear one).
pub const TIME_FLAG: u16 = 0x8000;
/// The frame part of a key time.
pub const TIME_FRAME: u16 = 0x7FFF;

/// Whether `data` holds the motion magic at +0x04.
pub fn has_mot_magic(data: &[u8]) -> bool {
    data.get(4..8) == Some(&MOT_MAGIC[..])
}

/// One of the nine animated channels of a node, named by its mask bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    /// Translation X (bit 8).
    Tx,
    /// Translation Y (bit 7).
    Ty,
    /// Translation Z (bit 6).
    Tz,
    /// Rotation X, radians (bit 5).
    Rx,
    /// Rotation Y, radians (bit 4).
    Ry,
    /// Rotation Z, radians (bit 3).
    Rz,
    /// Scale X (bit 2).
    Sx,
    /// Scale Y (bit 1).
    Sy,
    /// Scale Z (bit 0).
    Sz,
}

/// The mask bits a channel mask may use.
pub const CHANNEL_BITS: u16 = 0x01FF;

impl Channel {
    /// All channels in track order (bit 8 down to bit 0).
    pub const ALL: [Channel; 9] = [
        Channel::Tx,
        Channel::Ty,
        Channel::Tz,
        Channel::Rx,
        Channel::Ry,
        Channel::Rz,
        Channel::Sx,
        Channel::Sy,
        Channel::Sz,
    ];

    /// The mask bit number (8 = translation X ... 0 = scale Z).
    pub fn bit(self) -> u8 {
        8 - self as u8
    }

    /// The mask with only this channel's bit set.
    pub fn mask(self) -> u16 {
        1 << self.bit()
    }

    /// The channel of mask bit `bit` (0..=8).
    pub fn from_bit(bit: u8) -> Option<Channel> {
        if bit > 8 {
            return None;
        }
        Channel::ALL.get(usize::from(8 - bit)).copied()
    }

    /// A stable short name: `tx`, `ty`, `tz`, `rx`, `ry`, `rz`, `sx`, `sy`, `sz`.
    pub fn name(self) -> &'static str {
        ["tx", "ty", "tz", "rx", "ry", "rz", "sx", "sy", "sz"][self as usize]
    }

    /// The channel named `name` (as [`Channel::name`] writes it).
    pub fn from_name(name: &str) -> Option<Channel> {
        Channel::ALL.into_iter().find(|c| c.name() == name)
    }

    /// 0 for translation, 1 for rotation, 2 for scale.
    pub fn kind_index(self) -> usize {
        self as usize / 3
    }

    /// 0, 1, 2 for X, Y, Z.
    pub fn axis(self) -> usize {
        self as usize % 3
    }

    /// The channels set in `mask`, in track order (bits beyond 8 ignored).
    pub fn in_mask(mask: u16) -> impl Iterator<Item = Channel> {
        Channel::ALL
            .into_iter()
            .filter(move |c| mask & c.mask() != 0)
    }
}

impl std::fmt::Display for Channel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

crate::record! {
    /// The fixed 0x1E bytes of a motion header, before the masks.
    #[derive(Copy)]
    pub struct MotHeader [0x1E] "motHeader" counts MotHeaderCounts {
        0x00 header_size: u32 = Hex<u32>, "header size", Decoded Community,
            "header size: where the track count word sits; census: align16(0x1E + 2N)";
        0x04 magic: [u8; 4] = HexArray<4>, "magic", Decoded Community, "magic \"MOT\\0\"";
        0x08 unknown_08: u32 = Hex<u32>, "+0x08", Preserved CorpusConfirmed,
            "census: 0; one importer reads it as an id";
        0x0C end_frame_bits: u32 = Hex<u32>, "end frame", Decoded Community,
            "end frame, f32 bit pattern";
        0x10 unknown_10_bits: u32 = Hex<u32>, "+0x10", Preserved Community,
            "f32, usually 0; read by one engine study as loop start";
        0x14 unknown_14_bits: u32 = Hex<u32>, "+0x14", Preserved CorpusConfirmed,
            "f32; census: equals the end frame";
        0x18 flag_18: u16 = Int<u16>, "+0x18", Preserved CorpusConfirmed,
            "census: 0 or 1, meaning unknown";
        0x1A unknown_1a: u16 = Int<u16>, "+0x1A", Preserved CorpusConfirmed,
            "census: 0 or the node count";
        0x1C #[derived] node_count: u16 = Int<u16>, "node count", Decoded Community,
            "N, node count: the masks that follow; must equal the model's node count";
    }
}

crate::record! {
    /// The fixed 0x10 bytes every track starts with.
    #[derive(Copy)]
    pub struct TrackHead [0x10] "motTrackHead" counts TrackHeadCounts {
        0x00 span: u16 = Int<u16>, "span", Decoded Community,
            "bytes from this track's start to the next track's (census: exactly the keys' end)";
        0x02 #[derived] key_count: u16 = Int<u16>, "key count", Decoded Community,
            "number of keys";
        0x04 compression: u16 = Int<u16>, "compression", Decoded Community,
            "0 f32 linear, 1 f32 Hermite, 2 u16 linear, 3 u16 Hermite";
        0x06 start: u16 = Int<u16>, "start", Preserved CorpusConfirmed,
            "signed in practice (census: 0, -11 or -19); meaning unknown, kept raw";
        0x08 min_bits: u32 = Hex<u32>, "value min", Decoded Community, "value min, f32 bit pattern";
        0x0C range_bits: u32 = Hex<u32>, "value range", Decoded Community,
            "value range, f32 bit pattern";
    }
}

crate::record! {
    /// The tangent ranges of a Hermite track (compression 1 and 3), right after the head.
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

/// Declares a key record: every key starts with its frame word, the rest differs by compression.
macro_rules! key_record {
    ($(#[$m:meta])* $name:ident [$len:expr] $schema:literal { $($fields:tt)* }) => {
        crate::record! {
            $(#[$m])*
            #[derive(Copy)]
            pub struct $name [$len] $schema {
                0x00 time: u16 = Int<u16>, "time", Decoded Community,
                    "frame = time & 0x7FFF; bit 15 PRESERVED_UNDECODED";
                $($fields)*
            }
        }
    };
}

key_record! {
    /// A compression-2 key: quantised value, linear.
    KeyU16 [0x04] "motKeyU16" {
        0x02 value: u16 = Int<u16>, "value", Decoded Community, "q: q * range / 65535 + min";
    }
}

key_record! {
    /// A compression-3 key: quantised value and tangents, Hermite.
    KeyU16Hermite [0x08] "motKeyU16Hermite" {
        0x02 value: u16 = Int<u16>, "value", Decoded Community, "q: q * range / 65535 + min";
        0x04 in_tangent: u16 = Int<u16>, "in-tangent", Decoded Community,
            "q: q * in range / 65535 + in min, per frame";
        0x06 out_tangent: u16 = Int<u16>, "out-tangent", Decoded Community,
            "q: q * out range / 65535 + out min, per frame";
    }
}

key_record! {
    /// A compression-0 key (ASSUMED layout: never seen in the census, see [`Keys::F32`]).
    KeyF32 [0x08] "motKeyF32" {
        0x02 pad_02: u16 = Int<u16>, "+0x02", Preserved PreservedUndecoded,
            "assumed alignment padding before the f32 value, kept raw";
        0x04 value_bits: u32 = Hex<u32>, "value", Decoded Community, "value, f32 bit pattern";
    }
}

key_record! {
    /// A compression-1 key (ASSUMED layout: never seen in the census, see [`Keys::F32Hermite`]).
    KeyF32Hermite [0x10] "motKeyF32Hermite" {
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

    /// Whether keys carry tangents (and the track the tangent ranges).
    pub fn is_hermite(self) -> bool {
        matches!(self, Compression::F32Hermite | Compression::U16Hermite)
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
            + if self.is_hermite() {
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
/// Compression 0 and 1 were never seen (census, docs/formats.md, motions) and the public importers
/// do not read them (COMMUNITY: the Blender importers name them `LINEAR_FLOAT32`/`HERMITE_FLOAT32`
/// but skip their keys). The layouts here are an ASSUMPTION: the u16 key time kept in the same
/// place as in the quantised layouts, then two bytes of alignment (kept raw), then the f32 fields
/// in the order of the quantised layouts; compression 1 has the tangent ranges after the head like
/// compression 3 (unused for decoding, kept raw). Min and range are kept but unused for f32 keys.
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

    fn decode(c: Compression, b: &[u8], n: usize) -> Keys {
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

    fn encode_into(&self, out: &mut Vec<u8>) {
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
    /// Span, compression, start, value min and range, as on disk (the key count is the number
    /// of keys).
    pub head: TrackHead,
    /// The tangent ranges: present exactly for Hermite compressions (1 and 3).
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
    /// Frame: `time & 0x7FFF`.
    pub frame: u16,
    /// Bit 15 of the time word (PRESERVED_UNDECODED).
    pub flag: bool,
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
    /// Frame, at most 0x7FFF.
    pub frame: u16,
    /// Bit 15 of the time word.
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

    /// Whether the keys are Hermite (compression 1 or 3).
    pub fn is_hermite(&self) -> bool {
        self.keys.compression().is_hermite()
    }

    /// The start word read as signed (census: 0, -11 or -19).
    pub fn start(&self) -> i16 {
        self.head.start as i16
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

    /// Every key as numbers: frame, bit 15, value and tangents (docs/formats.md, motions; see
    /// [`dequantise`]).
    pub fn decoded_keys(&self) -> Vec<DecodedKey> {
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
            flag: time & TIME_FLAG != 0,
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
    /// and more keys than a u16 span can hold.
    pub fn encode(c: Compression, start_raw: u16, keys: &[KeyIn]) -> Result<Track, EncodeError> {
        let span = c.span_for(keys.len() as u64);
        if span > u64::from(u16::MAX) {
            return Err(EncodeError::TooManyKeys { keys: keys.len() });
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
            || !irange.is_finite() && c.is_hermite()
            || !orange.is_finite() && c.is_hermite()
        {
            return Err(EncodeError::RangeOverflow);
        }
        let time = |k: &KeyIn| k.frame | if k.flag { TIME_FLAG } else { 0 };
        let tangents = c.is_hermite().then_some(TangentRanges {
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
                start: start_raw,
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

    /// The head's derived field from the keys: the key count (a u16).
    pub fn counts(&self) -> Result<TrackHeadCounts, TrackProblem> {
        Ok(TrackHeadCounts {
            key_count: u16::try_from(self.keys.len()).map_err(|_| TrackProblem::TooManyKeys {
                keys: self.keys.len(),
            })?,
        })
    }

    /// Checks head against keys (compression, tangents, span); the problem if any.
    fn check(&self) -> Option<TrackProblem> {
        let c = self.keys.compression();
        if self.head.compression != c.number() {
            return Some(TrackProblem::CompressionMismatch {
                head: self.head.compression,
                keys: c.number(),
            });
        }
        if self.tangents.is_some() != c.is_hermite() {
            return Some(TrackProblem::Tangents {
                hermite: c.is_hermite(),
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
    /// The track would be longer than a u16 span.
    #[error("{keys} keys do not fit in a track (the span is a u16)")]
    TooManyKeys {
        /// Number of keys.
        keys: usize,
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
    /// (write) More keys than the head's u16 key count holds.
    #[error("{keys} keys, but the key count is a u16")]
    TooManyKeys {
        /// Keys held.
        keys: usize,
    },
    /// (write) Tangent ranges present on a linear track or missing on a Hermite one.
    #[error(
        "tangent ranges must be present exactly on Hermite tracks (this one is Hermite: {hermite})"
    )]
    Tangents {
        /// Whether the track is Hermite.
        hermite: bool,
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

/// A whole motion file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mot {
    /// The fixed header fields (the node count is the number of masks).
    pub header: MotHeader,
    /// Per node the 9-bit channel mask.
    #[serde(with = "mask_list")]
    pub masks: Vec<u16>,
    /// Bytes after the masks up to the header size (PRESERVED_UNDECODED).
    #[serde(with = "crate::bytes::base64_bytes")]
    pub header_tail: Vec<u8>,
    /// The tracks in file order (see [`Mot::targets`]): one per set mask bit; their number is
    /// the track count word after the header.
    pub tracks: Vec<Track>,
    /// Bytes after the last track (padding inside an archive).
    #[serde(with = "crate::bytes::base64_bytes")]
    pub tail: Vec<u8>,
}

/// The dump form of a track: its head with the key count in its place.
#[derive(Serialize)]
#[serde(rename = "Track", rename_all = "camelCase")]
struct TrackForm<'a> {
    head: Counted<'a, TrackHead>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tangents: Option<&'a TangentRanges>,
    #[serde(flatten)]
    keys: &'a Keys,
    #[serde(with = "crate::bytes::base64_bytes")]
    extra: &'a [u8],
}

impl Serialize for Track {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_form(s, self.counts(), |counts| TrackForm {
            head: self.head.counted(counts),
            tangents: self.tangents.as_ref(),
            keys: &self.keys,
            extra: &self.extra,
        })
    }
}

/// The dump form of a motion: the header with the node count in its place and the track count
/// word between the header tail and the tracks, both from the lists they count (read back,
/// the counts are left to the reader of the dump, which checks them against the lists).
#[derive(Serialize)]
#[serde(rename = "Mot", rename_all = "camelCase")]
struct MotForm<'a> {
    header: Counted<'a, MotHeader>,
    #[serde(with = "mask_list")]
    masks: &'a [u16],
    #[serde(with = "crate::bytes::base64_bytes")]
    header_tail: &'a [u8],
    track_count: u32,
    tracks: &'a [Track],
    #[serde(with = "crate::bytes::base64_bytes")]
    tail: &'a [u8],
}

impl Serialize for Mot {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let counts = self.counts().and_then(|c| Ok((c, self.track_count()?)));
        serialize_form(s, counts, |(counts, track_count)| MotForm {
            header: self.header.counted(counts),
            masks: &self.masks,
            header_tail: &self.header_tail,
            track_count,
            tracks: &self.tracks,
            tail: &self.tail,
        })
    }
}

/// Serializes the dump form `form` makes of the counts, or the error that kept them from
/// being counted.
fn serialize_form<S: serde::Serializer, C, E: std::fmt::Display, F: Serialize>(
    s: S,
    counts: Result<C, E>,
    form: impl FnOnce(C) -> F,
) -> Result<S::Ok, S::Error> {
    let counts = counts.map_err(serde::ser::Error::custom)?;
    form(counts).serialize(s)
}

mod mask_list {
    //! Masks as `0x` hex strings: they are bit patterns.
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serializes each mask as `0x1ff`.
    pub fn serialize<S: Serializer>(v: &[u16], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|m| format!("{m:#05x}")))
    }

    /// Parses `0x` hex masks.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u16>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|s| {
                s.strip_prefix("0x")
                    .and_then(|h| u16::from_str_radix(h, 16).ok())
                    .ok_or_else(|| serde::de::Error::custom(format!("mask {s:?} is not 0x hex")))
            })
            .collect()
    }
}

/// Why a motion was rejected or cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MotError {
    /// A header structure runs past the end of the input.
    #[error(transparent)]
    OutOfBounds(#[from] OutOfBounds),
    /// +0x04 is not `"MOT\0"`.
    #[error("magic at offset 0x4 is {} (hex), expected \"MOT\\0\"", crate::bytes::hex_bytes::encode(.found))]
    BadMagic {
        /// The four bytes found.
        found: [u8; 4],
    },
    /// The header size cannot hold the node count's masks.
    #[error("header size {header_size:#x} at offset 0x0 cannot hold the fixed header and {nodes} masks (node count at offset 0x1c); needs {need:#x}")]
    HeaderSize {
        /// Header size read.
        header_size: u32,
        /// Node count read.
        nodes: u16,
        /// Bytes needed.
        need: u64,
    },
    /// A mask uses bits beyond the nine channels.
    #[error("node {node} mask {mask:#06x} at offset {offset:#x} sets bits beyond the 9 channels")]
    MaskBits {
        /// Node index.
        node: usize,
        /// The mask.
        mask: u16,
        /// Its offset.
        offset: u64,
    },
    /// The track count word is not the number of set mask bits.
    #[error(
        "track count {count} at offset {offset:#x} is not the {expected} channels the masks set"
    )]
    TrackCount {
        /// Track count read.
        count: u32,
        /// Set mask bits.
        expected: u64,
        /// Offset of the word.
        offset: u64,
    },
    /// One track is bad.
    #[error("track {index} (node {node} {channel}) at offset {offset:#x}: {problem}")]
    Track {
        /// Track index in file order.
        index: usize,
        /// Node it animates.
        node: usize,
        /// Channel it animates.
        channel: Channel,
        /// Track offset.
        offset: u64,
        /// What is wrong.
        problem: TrackProblem,
    },
    /// (write) The header disagrees with the vectors.
    #[error("cannot write motion header: {0}")]
    Inconsistent(String),
    /// (write) More masks than the u16 node count holds.
    #[error("cannot write motion header: {masks} masks, but the node count (+0x1c) is a u16")]
    TooManyNodes {
        /// Masks held.
        masks: usize,
    },
    /// (write) The tracks are not one per set mask bit.
    #[error("cannot write motion: {tracks} tracks, but the masks set {channels} channels")]
    Tracks {
        /// Tracks held.
        tracks: usize,
        /// Set mask bits.
        channels: u64,
    },
}

/// The (node, channel) of every set mask bit in file order (bits beyond 8 ignored).
pub fn mask_targets(masks: &[u16]) -> impl Iterator<Item = (usize, Channel)> + '_ {
    masks
        .iter()
        .enumerate()
        .flat_map(|(n, m)| Channel::in_mask(*m).map(move |c| (n, c)))
}

/// Number of set channel bits over all masks.
pub fn channel_count(masks: &[u16]) -> u64 {
    masks
        .iter()
        .map(|m| u64::from((m & CHANNEL_BITS).count_ones()))
        .sum()
}

impl Mot {
    /// The header size the masks need before any tail: 0x1E + 2N.
    pub fn masks_end(nodes: usize) -> u64 {
        MotHeader::LEN as u64 + 2 * nodes as u64
    }

    /// Reads a motion (docs/formats.md, motions). Strict: see the module comment for what is
    /// rejected.
    pub fn read(data: &[u8]) -> Result<Mot, MotError> {
        let b = Bytes::new(data);
        let head = b.array::<{ MotHeader::LEN }>("motion header", 0)?;
        // MotHeader's codecs accept every byte pattern.
        let (header, counts) = MotHeader::decode(&head, Ctx::default())
            .map_err(|_| MotError::Inconsistent("motion header field cannot be decoded".into()))?;
        if header.magic != MOT_MAGIC {
            return Err(MotError::BadMagic {
                found: header.magic,
            });
        }
        let nodes = usize::from(counts.node_count);
        let need = Mot::masks_end(nodes);
        let hsize = u64::from(header.header_size);
        if hsize < need {
            return Err(MotError::HeaderSize {
                header_size: header.header_size,
                nodes: counts.node_count,
                need,
            });
        }
        let mask_bytes = b.slice("channel masks", MotHeader::LEN as u64, 2 * nodes as u64)?;
        let masks: Vec<u16> = mask_bytes
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        for (node, &mask) in masks.iter().enumerate() {
            if mask & !CHANNEL_BITS != 0 {
                return Err(MotError::MaskBits {
                    node,
                    mask,
                    offset: MotHeader::LEN as u64 + 2 * node as u64,
                });
            }
        }
        let header_tail = b.slice("header tail", need, hsize - need)?.to_vec();
        let count = b.u32("track count", hsize)?;
        let expected = channel_count(&masks);
        if u64::from(count) != expected {
            return Err(MotError::TrackCount {
                count,
                expected,
                offset: hsize,
            });
        }
        let mut at = hsize + 4;
        let file_len = b.len();
        // Each track is at least a head: bound the allocation by the input.
        let cap = (count as usize).min(data.len() / TrackHead::LEN);
        let mut tracks = Vec::with_capacity(cap);
        for (index, (node, channel)) in mask_targets(&masks).enumerate() {
            let t = read_track(&b, at).map_err(|problem| MotError::Track {
                index,
                node,
                channel,
                offset: at,
                problem,
            })?;
            at += u64::from(t.head.span);
            tracks.push(t);
        }
        let tail = b.slice("motion tail", at, file_len - at)?.to_vec();
        Ok(Mot {
            header,
            masks,
            header_tail,
            tracks,
            tail,
        })
    }

    /// Writes the motion; for an unmodified read the exact input bytes.
    pub fn write(&self) -> Result<Vec<u8>, MotError> {
        let mut out = Vec::new();
        self.write_into(&mut out)?;
        Ok(out)
    }

    /// [`Mot::write`] into a caller's buffer (cleared first).
    pub fn write_into(&self, out: &mut Vec<u8>) -> Result<(), MotError> {
        out.clear();
        let nodes = self.masks.len();
        let counts = self.counts()?;
        let hsize = Mot::masks_end(nodes) + self.header_tail.len() as u64;
        if u64::from(self.header.header_size) != hsize {
            return Err(MotError::Inconsistent(format!(
                "header size {:#x} (+0x0), but fixed header, {} masks and a {}-byte tail make {:#x}",
                self.header.header_size,
                nodes,
                self.header_tail.len(),
                hsize
            )));
        }
        for (node, &mask) in self.masks.iter().enumerate() {
            if mask & !CHANNEL_BITS != 0 {
                return Err(MotError::MaskBits {
                    node,
                    mask,
                    offset: MotHeader::LEN as u64 + 2 * node as u64,
                });
            }
        }
        let expected = channel_count(&self.masks);
        if self.tracks.len() as u64 != expected {
            return Err(MotError::Tracks {
                tracks: self.tracks.len(),
                channels: expected,
            });
        }
        let track_count = self.track_count()?;
        let mut at = hsize + 4;
        let mut heads = Vec::with_capacity(self.tracks.len());
        for (index, ((node, channel), t)) in mask_targets(&self.masks).zip(&self.tracks).enumerate()
        {
            let bad = |problem| MotError::Track {
                index,
                node,
                channel,
                offset: at,
                problem,
            };
            if let Some(problem) = t.check() {
                return Err(bad(problem));
            }
            heads.push(t.counts().map_err(bad)?);
            at += t.encoded_len();
        }
        out.reserve(at as usize + self.tail.len());
        out.extend_from_slice(&self.header.encode(&counts));
        for m in &self.masks {
            out.extend_from_slice(&m.to_le_bytes());
        }
        out.extend_from_slice(&self.header_tail);
        out.extend_from_slice(&track_count.to_le_bytes());
        for (t, counts) in self.tracks.iter().zip(&heads) {
            out.extend_from_slice(&t.head.encode(counts));
            if let Some(tg) = &t.tangents {
                out.extend_from_slice(&tg.encode());
            }
            t.keys.encode_into(out);
            out.extend_from_slice(&t.extra);
        }
        out.extend_from_slice(&self.tail);
        Ok(())
    }

    /// Every track with the node and channel it animates, in file order.
    pub fn targets(&self) -> impl Iterator<Item = (usize, Channel, &Track)> + '_ {
        mask_targets(&self.masks)
            .zip(&self.tracks)
            .map(|((n, c), t)| (n, c, t))
    }

    /// End frame (+0x0C) as f32.
    pub fn end_frame(&self) -> f32 {
        f32::from_bits(self.header.end_frame_bits)
    }

    /// The header's derived field from the masks: the node count (a u16).
    pub fn counts(&self) -> Result<MotHeaderCounts, MotError> {
        Ok(MotHeaderCounts {
            node_count: u16::try_from(self.masks.len()).map_err(|_| MotError::TooManyNodes {
                masks: self.masks.len(),
            })?,
        })
    }

    /// The track count word: the number of tracks (a u32).
    pub fn track_count(&self) -> Result<u32, MotError> {
        u32::try_from(self.tracks.len()).map_err(|_| MotError::Tracks {
            tracks: self.tracks.len(),
            channels: channel_count(&self.masks),
        })
    }

    /// Builds a motion from tracks: header fields as given in `header` except header size and
    /// magic, which are set from `masks` and `header_tail` (the node count, track count and key
    /// counts are the vectors' lengths). The tracks must follow [`mask_targets`] order
    /// (checked by [`Mot::write`]).
    pub fn build(
        mut header: MotHeader,
        masks: Vec<u16>,
        header_tail: Vec<u8>,
        tracks: Vec<Track>,
        tail: Vec<u8>,
    ) -> Result<Mot, MotError> {
        if u16::try_from(masks.len()).is_err() {
            return Err(MotError::TooManyNodes { masks: masks.len() });
        }
        let hsize = u32::try_from(Mot::masks_end(masks.len()) + header_tail.len() as u64)
            .map_err(|_| MotError::Inconsistent("header size over u32".into()))?;
        header.header_size = hsize;
        header.magic = MOT_MAGIC;
        let mot = Mot {
            header,
            masks,
            header_tail,
            tracks,
            tail,
        };
        Ok(mot)
    }
}

fn read_track(b: &Bytes<'_>, at: u64) -> Result<Track, TrackProblem> {
    let file_len = b.len();
    let cut = |what, offset, len| TrackProblem::Truncated {
        what,
        offset,
        len,
        file_len,
    };
    let raw = b
        .array::<{ TrackHead::LEN }>("track head", at)
        .map_err(|_| cut("track head", at, TrackHead::LEN as u64))?;
    // TrackHead's codecs accept every byte pattern. Its key count is what finds the keys.
    let (head, counts) = TrackHead::decode(&raw, Ctx::default())
        .map_err(|_| TrackProblem::UnknownCompression(u16::MAX))?;
    let c = Compression::from_u16(head.compression)
        .ok_or(TrackProblem::UnknownCompression(head.compression))?;
    let keys = counts.key_count;
    let need = c.span_for(u64::from(keys));
    if u64::from(head.span) < need {
        return Err(TrackProblem::SpanTooShort {
            span: head.span,
            need,
            keys,
        });
    }
    let mut pos = at + TrackHead::LEN as u64;
    let tangents = if c.is_hermite() {
        let raw = b
            .array::<{ TangentRanges::LEN }>("tangent ranges", pos)
            .map_err(|_| cut("tangent ranges", pos, TangentRanges::LEN as u64))?;
        pos += TangentRanges::LEN as u64;
        TangentRanges::decode(&raw, Ctx::default()).ok()
    } else {
        None
    };
    let klen = c.key_len() * u64::from(keys);
    let kb = b
        .slice("keys", pos, klen)
        .map_err(|_| cut("keys", pos, klen))?;
    let keys = Keys::decode(c, kb, usize::from(keys));
    pos += klen;
    let end = at + u64::from(head.span);
    let extra = b
        .slice("track extra", pos, end - pos)
        .map_err(|_| TrackProblem::SpanPastEnd {
            span: head.span,
            file_len,
        })?
        .to_vec();
    Ok(Track {
        head,
        tangents,
        keys,
        extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Mot {
        let k = |f: u16, v: f32| KeyIn {
            frame: f,
            flag: true,
            value: v,
            in_tangent: v * 0.5,
            out_tangent: -v,
        };
        let t0 = Track::encode(Compression::U16Linear, 0, &[k(0, 1.0), k(10, 3.0)]).unwrap();
        let t1 = Track::encode(
            Compression::U16Hermite,
            0xFFF5,
            &[k(0, 0.5), k(5, -0.5), k(9, 0.0)],
        )
        .unwrap();
        let t2 = Track::encode(Compression::F32Linear, 0, &[k(0, 2.0)]).unwrap();
        let t3 = Track::encode(Compression::F32Hermite, 0, &[k(0, 2.0), k(1, 4.0)]).unwrap();
        Mot::build(
            MotHeader {
                end_frame_bits: 10f32.to_bits(),
                ..Default::default()
            },
            vec![0x100 | 0x020, 0, 0x003],
            vec![0xAB, 0xCD],
            vec![t0, t1, t2, t3],
            vec![0; 6],
        )
        .unwrap()
    }

    #[test]
    fn round_trip() {
        let m = sample();
        let b = m.write().unwrap();
        let back = Mot::read(&b).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.write().unwrap(), b);
        let t: Vec<_> = back.targets().map(|(n, c, _)| (n, c)).collect();
        assert_eq!(
            t,
            vec![
                (0, Channel::Tx),
                (0, Channel::Rx),
                (2, Channel::Sy),
                (2, Channel::Sz)
            ]
        );
    }

    #[test]
    fn channel_bits() {
        for c in Channel::ALL {
            assert_eq!(Channel::from_bit(c.bit()), Some(c));
            assert_eq!(Channel::from_name(c.name()), Some(c));
        }
        assert_eq!(Channel::Tx.bit(), 8);
        assert_eq!(Channel::Rz.bit(), 3);
        assert_eq!(Channel::Sz.bit(), 0);
        assert_eq!(Channel::from_bit(9), None);
    }
}
