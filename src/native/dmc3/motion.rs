//! DMC3 motions (`.mot`; `docs/formats.md`): a header of per-node 9-bit channel masks, a track
//! count and one keyframe track per set mask bit, node by node, within a node in the order
//! translation X, Y, Z, rotation X, Y, Z, scale X, Y, Z (the executable's table order, not bit
//! order: see [`Channel`]).
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
//! The tracks themselves are [`super::track`]'s; [`Track::encode`] is the one place that sets
//! spans and ranges for new data.

use serde::{Deserialize, Serialize};

use crate::bytes::{Bytes, OutOfBounds};
use crate::native::record::{Counted, Ctx, Hex, HexArray, Int};

pub use super::track::{
    dequantise, quantise, Compression, DecodedKey, EncodeError, KeyF32, KeyF32Hermite, KeyIn,
    KeyU16, KeyU16Hermite, Keys, TangentRanges, Track, TrackHead, TrackHeadCounts, TrackProblem,
    MAX_KEYS, TIME_FLAG, TIME_FRAME,
};

/// The motion magic at +0x04.
pub const MOT_MAGIC: [u8; 4] = *b"MOT\0";
/// Frames per second of DMC3 motions (docs/formats.md, motions).
pub const FRAME_RATE: f32 = 60.0;

/// Whether `data` holds the motion magic at +0x04.
pub fn has_mot_magic(data: &[u8]) -> bool {
    data.get(4..8) == Some(&MOT_MAGIC[..])
}

/// One of the nine animated channels of a node, in track order, with its mask bit as the
/// executable reads it (EXE): within each triple the axes go up with the bits, so 0x100 alone
/// is translation Z. The public importers read each triple the other way round (0x100 as
/// translation X); where all three bits of a triple are set both readings agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    /// Translation X (bit 6, 0x040).
    Tx,
    /// Translation Y (bit 7, 0x080).
    Ty,
    /// Translation Z (bit 8, 0x100).
    Tz,
    /// Rotation X, radians (bit 3, 0x008).
    Rx,
    /// Rotation Y, radians (bit 4, 0x010).
    Ry,
    /// Rotation Z, radians (bit 5, 0x020).
    Rz,
    /// Scale X (bit 0, 0x001).
    Sx,
    /// Scale Y (bit 1, 0x002).
    Sy,
    /// Scale Z (bit 2, 0x004).
    Sz,
}

/// The mask bits a channel mask may use.
pub const CHANNEL_BITS: u16 = 0x01FF;

impl Channel {
    /// All channels in track order (the executable's table order).
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

    /// The mask bit number (EXE): 6, 7, 8 for translation X, Y, Z; 3, 4, 5 for rotation; 0, 1,
    /// 2 for scale.
    pub fn bit(self) -> u8 {
        3 * (2 - self.kind_index() as u8) + self.axis() as u8
    }

    /// The mask with only this channel's bit set.
    pub fn mask(self) -> u16 {
        1 << self.bit()
    }

    /// The channel of mask bit `bit` (0..=8).
    pub fn from_bit(bit: u8) -> Option<Channel> {
        Channel::ALL.into_iter().find(|c| c.bit() == bit)
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
    let tangents = if c.has_tangent_ranges() {
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
            -11,
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
                (0, Channel::Tz),
                (0, Channel::Rz),
                (2, Channel::Sx),
                (2, Channel::Sy)
            ]
        );
    }

    #[test]
    fn channel_bits() {
        for c in Channel::ALL {
            assert_eq!(Channel::from_bit(c.bit()), Some(c));
            assert_eq!(Channel::from_name(c.name()), Some(c));
        }
        // The executable's table (docs/formats.md, motions), written out.
        let masks: Vec<u16> = Channel::ALL.iter().map(|c| c.mask()).collect();
        assert_eq!(
            masks,
            [0x040, 0x080, 0x100, 0x008, 0x010, 0x020, 0x001, 0x002, 0x004]
        );
        assert_eq!(Channel::from_bit(9), None);
        // Tracks follow table order, not bit order.
        let order: Vec<Channel> = Channel::in_mask(0x1FF).collect();
        assert_eq!(order, Channel::ALL);
    }
}
