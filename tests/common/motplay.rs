//! The tests' own reader and player of DMC3 motions, written from the format notes alone (the
//! motion section of `docs/formats.md`: the executable's channel table, time offsets, per-segment
//! interpolation and the rounding the game applies), not from the library: it parses the bytes
//! itself and shares no code with `rigtrip::native` or `rigtrip::rig::motion`.
//!
//! - Mask bits: 0x040, 0x080, 0x100 translation X, Y, Z; 0x008, 0x010, 0x020 rotation X, Y, Z;
//!   0x001, 0x002, 0x004 scale X, Y, Z; a node's tracks in that table order.
//! - A track: u16 span, u16 key count, u16 compression, i16 time offset, f32 min, f32 range;
//!   compression 3 then four f32 tangent ranges (in min, in range, out min, out range). Keys:
//!   compression 2 `{u16 time, u16 q}`, 3 `{u16 time, u16 q, u16 in, u16 out}`, 0 and 1 f32 keys
//!   of 8 and 16 bytes (`{u16 time, u16 pad, f32 value[, f32 in, f32 out]}`, the layout the notes
//!   assume). A key plays at `(time & 0x7FFF) + offset`; `q · range / 65535 + min`, an f32.
//! - Between two keys: compression 3 by the left key's bit 15 (set: Hermite), 2 and 0 linear, 1
//!   Hermite; Hermite `h00·v0 + h10·Δ·out0 + h01·v1 + h11·Δ·in1`; end values held (two keys at
//!   one frame: from that frame on the segment after the later one plays).
//! - The game's pose: an animated rotation angle `r` becomes `trunc(r · 10430.377)` wrapped to a
//!   signed 16-bit integer, times 9.587381e−5; an animated scale is used only when one of its
//!   factors leaves (0.99999, 1.00001).

/// Translation X ... scale Z: the mask bit of each channel, in track order.
pub const CHANNEL_BITS: [u16; 9] = [
    0x040, 0x080, 0x100, 0x008, 0x010, 0x020, 0x001, 0x002, 0x004,
];

/// One key: the frame it plays at, value, in- and out-tangent per frame, and whether the segment
/// after it is Hermite.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayKey {
    pub time: f64,
    pub value: f64,
    pub tin: f64,
    pub tout: f64,
    pub hermite: bool,
}

/// One track: the node and channel (0..9, translation X ... scale Z) it animates, its head and
/// its keys.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayTrack {
    pub node: usize,
    pub channel: usize,
    pub compression: u16,
    pub offset: i16,
    pub keys: Vec<PlayKey>,
}

/// A motion as this file reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayMot {
    pub end_frame: f32,
    pub masks: Vec<u16>,
    pub tracks: Vec<PlayTrack>,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn f32_at(b: &[u8], at: usize) -> f64 {
    f64::from(f32::from_bits(u32_at(b, at)))
}

/// Reads a motion's bytes (panics on a malformed one: the tests feed it valid files).
pub fn read(b: &[u8]) -> PlayMot {
    assert_eq!(&b[4..8], b"MOT\0", "magic");
    let header_size = u32_at(b, 0) as usize;
    let nodes = usize::from(u16_at(b, 0x1C));
    let masks: Vec<u16> = (0..nodes).map(|n| u16_at(b, 0x1E + 2 * n)).collect();
    let count = u32_at(b, header_size) as usize;
    let mut at = header_size + 4;
    let mut tracks = Vec::new();
    for (node, &mask) in masks.iter().enumerate() {
        for (channel, &bit) in CHANNEL_BITS.iter().enumerate() {
            if mask & bit != 0 {
                let (t, span) = read_track(b, at, node, channel);
                tracks.push(t);
                at += span;
            }
        }
    }
    assert_eq!(tracks.len(), count, "track count");
    PlayMot {
        end_frame: f32::from_bits(u32_at(b, 0x0C)),
        masks,
        tracks,
    }
}

/// The track at `at` and its span.
fn read_track(b: &[u8], at: usize, node: usize, channel: usize) -> (PlayTrack, usize) {
    let span = usize::from(u16_at(b, at));
    // The game reads the count as signed.
    let count = u16_at(b, at + 2) as i16;
    assert!(count >= 0, "negative key count");
    let compression = u16_at(b, at + 4);
    let offset = u16_at(b, at + 6) as i16;
    let (min, range) = (f32_at(b, at + 8), f32_at(b, at + 12));
    // The game's key values are f32: the formula's value rounded once.
    let q = |x: u16, min: f64, range: f64| f64::from((f64::from(x) * range / 65535.0 + min) as f32);
    let (first, len) = match compression {
        0 => (at + 0x10, 8),
        1 => (at + 0x10, 16),
        2 => (at + 0x10, 4),
        3 => (at + 0x20, 8),
        c => panic!("compression {c}"),
    };
    let (imin, irange, omin, orange) = if compression == 3 {
        (
            f32_at(b, at + 0x10),
            f32_at(b, at + 0x14),
            f32_at(b, at + 0x18),
            f32_at(b, at + 0x1C),
        )
    } else {
        (0.0, 0.0, 0.0, 0.0)
    };
    let keys = (0..count as usize)
        .map(|k| {
            let p = first + k * len;
            let word = u16_at(b, p);
            let time = f64::from(word & 0x7FFF) + f64::from(offset);
            let bit = word & 0x8000 != 0;
            let (value, tin, tout, hermite) = match compression {
                0 => (f32_at(b, p + 4), 0.0, 0.0, false),
                1 => (f32_at(b, p + 4), f32_at(b, p + 8), f32_at(b, p + 12), true),
                2 => (q(u16_at(b, p + 2), min, range), 0.0, 0.0, false),
                _ => (
                    q(u16_at(b, p + 2), min, range),
                    q(u16_at(b, p + 4), imin, irange),
                    q(u16_at(b, p + 6), omin, orange),
                    bit,
                ),
            };
            PlayKey {
                time,
                value,
                tin,
                tout,
                hermite,
            }
        })
        .collect();
    let t = PlayTrack {
        node,
        channel,
        compression,
        offset,
        keys,
    };
    (t, span)
}

/// The value of `keys` at frame `f` (`None` without keys).
pub fn value_at(keys: &[PlayKey], f: f64) -> Option<f64> {
    let (first, last) = (keys.first()?, keys.last()?);
    if f < first.time {
        return Some(first.value);
    }
    if f >= last.time {
        return Some(last.value);
    }
    let k = keys.iter().rposition(|k| k.time <= f)?;
    let (a, b) = (keys[k], keys[k + 1]);
    let d = b.time - a.time;
    let u = (f - a.time) / d;
    if !a.hermite {
        return Some(a.value + (b.value - a.value) * u);
    }
    let h00 = (1.0 + 2.0 * u) * (1.0 - u) * (1.0 - u);
    let h10 = u * (1.0 - u) * (1.0 - u);
    let h01 = u * u * (3.0 - 2.0 * u);
    let h11 = u * u * (u - 1.0);
    Some(h00 * a.value + h10 * d * a.tout + h01 * b.value + h11 * d * b.tin)
}

/// An animated rotation angle as the game uses it, in f32 as the executable computes it (its
/// angles are f32).
pub fn game_angle(r: f64) -> f64 {
    let units = ((r as f32) * 10430.377f32).trunc() as i64;
    let wrapped = (units + 32768).rem_euclid(65536) - 32768;
    f64::from(wrapped as f32 * 9.587381e-5f32)
}

/// Per node, its nine channels at frame `f` as the game builds the pose from them: `rest` (the
/// model's values, scale 1) where a channel has no track.
pub fn channels_at(m: &PlayMot, rest: &[[f64; 9]], f: f64) -> Vec<[f64; 9]> {
    let mut out = rest.to_vec();
    let mut animated = vec![[false; 9]; rest.len()];
    for t in &m.tracks {
        if let Some(v) = value_at(&t.keys, f) {
            out[t.node][t.channel] = v;
            animated[t.node][t.channel] = true;
        }
    }
    for (c, a) in out.iter_mut().zip(&animated) {
        for k in 3..6 {
            if a[k] {
                c[k] = game_angle(c[k]);
            }
        }
        let near_one = (6..9).all(|k| c[k] > 0.99999 && c[k] < 1.00001);
        if a[6..9].contains(&true) && near_one {
            c[6..9].copy_from_slice(&[1.0; 3]);
        }
    }
    out
}
