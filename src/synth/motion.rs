//! Generators of DMC3 motions (`.mot`) and archives (`.pac`) for property tests, fuzz seeds,
//! benchmarks and the samples: random valid files that exercise every layout the reader keeps
//! (all four compressions, non-zero header tails, negative time offsets, bit 15 set and clear,
//! extra bytes before a span's end, end padding), and clean motions for a generated model.

use super::rng::Rng;
use crate::native::dmc3::motion::{
    mask_targets, Compression, KeyF32, KeyF32Hermite, KeyIn, KeyU16, KeyU16Hermite, Keys, Mot,
    MotHeader, TangentRanges, Track, TrackHead, CHANNEL_BITS, TIME_FLAG,
};
use crate::native::dmc3::pac::Pac;

/// Time offsets seen in the census and a few others.
const OFFSETS: [i16; 5] = [0, -11, -19, 7, -1];

fn random_f32(rng: &mut Rng) -> f32 {
    (rng.unit() as f32 - 0.5) * 400.0
}

fn random_track(rng: &mut Rng) -> Track {
    let c = Compression::ALL[rng.index(4)];
    let n = rng.range(0, 12) as usize;
    let hermite = c.is_hermite();
    let mut frame = 0u16;
    let mut time = |rng: &mut Rng| {
        frame = frame.saturating_add(rng.range(0, 9) as u16) & 0x7FFF;
        // Bit 15 on Hermite keys as in the census (a clear one makes a linear segment in
        // compression 3), and sometimes elsewhere.
        let flag = if hermite {
            !rng.chance(0.05)
        } else {
            rng.chance(0.1)
        };
        frame | if flag { TIME_FLAG } else { 0 }
    };
    let w = |rng: &mut Rng| rng.next_u32() as u16;
    let keys = match c {
        Compression::F32Linear => Keys::F32(
            (0..n)
                .map(|_| KeyF32 {
                    time: time(rng),
                    pad_02: if rng.chance(0.2) { w(rng) } else { 0 },
                    value_bits: random_f32(rng).to_bits(),
                })
                .collect(),
        ),
        Compression::F32Hermite => Keys::F32Hermite(
            (0..n)
                .map(|_| KeyF32Hermite {
                    time: time(rng),
                    pad_02: if rng.chance(0.2) { w(rng) } else { 0 },
                    value_bits: random_f32(rng).to_bits(),
                    in_bits: rng.next_u32(),
                    out_bits: random_f32(rng).to_bits(),
                })
                .collect(),
        ),
        Compression::U16Linear => Keys::U16(
            (0..n)
                .map(|_| KeyU16 {
                    time: time(rng),
                    value: w(rng),
                })
                .collect(),
        ),
        Compression::U16Hermite => Keys::U16Hermite(
            (0..n)
                .map(|_| KeyU16Hermite {
                    time: time(rng),
                    value: w(rng),
                    in_tangent: w(rng),
                    out_tangent: w(rng),
                })
                .collect(),
        ),
    };
    let tangents = c.has_tangent_ranges().then(|| TangentRanges {
        in_min_bits: random_f32(rng).to_bits(),
        in_range_bits: (rng.unit() as f32).to_bits(),
        out_min_bits: random_f32(rng).to_bits(),
        out_range_bits: rng.next_u32(),
    });
    let extra = if rng.chance(0.1) {
        {
            let n = rng.range(1, 6) as usize;
            rng.bytes(n)
        }
    } else {
        Vec::new()
    };
    let span = c.span_for(n as u64) + extra.len() as u64;
    Track {
        head: TrackHead {
            span: span as u16,
            compression: c.number(),
            time_offset: OFFSETS[rng.index(OFFSETS.len())],
            min_bits: random_f32(rng).to_bits(),
            range_bits: (rng.unit() as f32 * 10.0).to_bits(),
        },
        tangents,
        keys,
        extra,
    }
}

/// A random valid motion of `nodes` nodes (every layout the reader keeps; see the module doc).
pub fn random_mot_struct(rng: &mut Rng, nodes: usize) -> Mot {
    let masks: Vec<u16> = (0..nodes)
        .map(|_| match rng.index(4) {
            0 => 0,
            1 => 0x038,
            2 => 0x1F8,
            _ => rng.next_u32() as u16 & CHANNEL_BITS,
        })
        .collect();
    // Census: header size align16(0x1E + 2N); the tail is usually non-zero, sometimes longer.
    let base = Mot::masks_end(nodes);
    let mut tail_len = (crate::bytes::align(base, 16) - base) as usize;
    if rng.chance(0.2) {
        tail_len += 16;
    }
    let header_tail = if rng.chance(0.7) {
        rng.bytes(tail_len)
    } else {
        vec![0; tail_len]
    };
    let tracks = mask_targets(&masks).map(|_| random_track(rng)).collect();
    let end = rng.range(1, 300) as f32;
    let header = MotHeader {
        unknown_08: if rng.chance(0.1) { rng.next_u32() } else { 0 },
        end_frame_bits: end.to_bits(),
        unknown_10_bits: if rng.chance(0.2) { 3f32.to_bits() } else { 0 },
        unknown_14_bits: end.to_bits(),
        flag_18: rng.range(0, 1) as u16,
        unknown_1a: if rng.chance(0.5) { nodes as u16 } else { 0 },
        ..MotHeader::default()
    };
    let tail = if rng.chance(0.3) {
        vec![0; rng.range(1, 15) as usize]
    } else {
        Vec::new()
    };
    // build() sets header size and magic from the vectors (the counts are their lengths).
    Mot::build(header, masks, header_tail, tracks, tail).unwrap_or_else(|_| empty_mot())
}

fn empty_mot() -> Mot {
    Mot {
        header: MotHeader {
            header_size: 0x20,
            magic: crate::native::dmc3::motion::MOT_MAGIC,
            ..MotHeader::default()
        },
        masks: Vec::new(),
        header_tail: vec![0; 2],
        tracks: Vec::new(),
        tail: Vec::new(),
    }
}

/// The bytes of a random valid motion for `seed` (1 to 40 nodes).
pub fn random_mot(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed ^ 0x4D4F_5400);
    let nodes = rng.range(1, 40) as usize;
    random_mot_struct(&mut rng, nodes)
        .write()
        .unwrap_or_default()
}

/// A model's node as [`motion_for_model`] needs it: whether it is a root (its translation
/// tracks are root motion) and its rest offset (local translation, native units).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeRest {
    /// Whether the node has no parent.
    pub root: bool,
    /// Its local rest translation.
    pub offset: [f64; 3],
}

/// Skeleton 0 of `rig` as [`motion_for_model`] takes it.
pub fn model_rest(rig: &crate::rig::Rig) -> Vec<NodeRest> {
    rig.skeletons.first().map_or_else(Vec::new, |sk| {
        sk.joints
            .iter()
            .map(|j| NodeRest {
                root: j.parent.is_none(),
                offset: j.translation.to_array(),
            })
            .collect()
    })
}

/// The nodes of [`crate::rig::motion::bare_rig`]`(nodes)`, for a motion of `nodes` nodes where
/// no model is at hand (empty when the format cannot hold that many).
pub fn chain_rest(nodes: usize) -> Vec<NodeRest> {
    crate::rig::motion::bare_rig(nodes).map_or_else(Vec::new, |r| model_rest(&r))
}

/// `rest` with every offset scaled by `factor`: the same skeleton for a character `factor`
/// times the size (a motion made for it belongs to another character).
pub fn scaled_rest(rest: &[NodeRest], factor: f64) -> Vec<NodeRest> {
    rest.iter()
        .map(|n| NodeRest {
            root: n.root,
            offset: n.offset.map(|x| x * factor),
        })
        .collect()
}

/// A clean motion for a model whose nodes are `rest`: node 0 has translation tracks
/// (compression 2), every node rotation tracks (compression 3, bit 15 set as in the census),
/// some nodes translation tracks too and some scale tracks near 1; rotations within ±π, scales
/// within 0.8..1.2, strictly increasing key frames from 0 to the end frame, header tail zero,
/// start 0. Translations fit the model as a real motion does: a bone keeps its length (its
/// rest offset, each axis within 2% of the offset's length), a root moves over the floor (X and
/// Z within ±300 units of its rest, Y, the game's up axis, within 2% of its rest height).
pub fn motion_for_model(seed: u64, rest: &[NodeRest]) -> Mot {
    let nodes = rest.len();
    let mut rng = Rng::new(seed ^ 0x6D6F_7469);
    let end = rng.range(20, 90) as u16;
    let frames = |rng: &mut Rng| -> Vec<u16> {
        let mut f = vec![0u16];
        while let Some(&last) = f.last() {
            let next = last + rng.range(1, 12) as u16;
            if next >= end {
                break;
            }
            f.push(next);
        }
        f.push(end);
        f
    };
    let mut masks = Vec::with_capacity(nodes);
    let mut tracks = Vec::new();
    for (node, r) in rest.iter().enumerate() {
        let mut mask = 0x038; // rx ry rz
        if node == 0 {
            mask |= 0x1C0;
        }
        if node > 0 && rng.chance(0.2) {
            mask |= 0x007;
        }
        masks.push(mask);
        let length = r.offset.iter().map(|x| x * x).sum::<f64>().sqrt();
        for (_, c) in mask_targets(&[mask]) {
            let fs = frames(&mut rng);
            let (comp, lo, hi) = match c.kind_index() {
                0 => {
                    let axis = c.axis().min(2);
                    let at = r.offset[axis];
                    // A spread of 0 would make a track of range 0.
                    let spread = match (r.root, axis) {
                        (true, 1) => (0.02 * at.abs()).max(1e-3),
                        (true, _) => 300.0,
                        (false, _) => (0.02 * length).max(1e-3),
                    };
                    (Compression::U16Linear, at - spread, at + spread)
                }
                1 => (
                    Compression::U16Hermite,
                    -std::f64::consts::PI,
                    std::f64::consts::PI,
                ),
                _ => (Compression::U16Hermite, 0.8, 1.2),
            };
            let keys: Vec<KeyIn> = fs
                .iter()
                .map(|&frame| {
                    let v = (lo + (hi - lo) * rng.unit()) as f32;
                    let t = ((rng.unit() - 0.5) * 0.1) as f32;
                    KeyIn {
                        frame,
                        flag: comp.is_hermite(),
                        value: v,
                        in_tangent: t,
                        out_tangent: if comp.is_hermite() { t } else { 0.0 },
                    }
                })
                .collect();
            // Frames ≤ 0x7FFF and finite values: encode cannot fail here.
            if let Ok(t) = Track::encode(comp, 0, &keys) {
                tracks.push(t);
            }
        }
    }
    let base = Mot::masks_end(nodes);
    let tail = vec![0; (crate::bytes::align(base, 16) - base) as usize];
    let header = MotHeader {
        end_frame_bits: f32::from(end).to_bits(),
        unknown_14_bits: f32::from(end).to_bits(),
        ..MotHeader::default()
    };
    Mot::build(header, masks, tail, tracks, Vec::new()).unwrap_or_else(|_| empty_mot())
}

/// A motion for a model whose nodes are `rest` that shows what the executable's reading changes
/// (docs/formats.md, motions): every node animates a single axis of a rotation triple (X, Y or
/// Z), some a single translation or scale axis too, so every mask triple has one bit; tracks
/// carry time offsets (0, -11, -19 or 5) with their key words moved to match, so they still end
/// at the end frame; compression-3 keys set or clear bit 15 at random (Hermite and linear segments
/// mixed), some translation tracks are compression 2. Values fit the model as in
/// [`motion_for_model`].
pub fn single_channel_motion(seed: u64, rest: &[NodeRest]) -> Mot {
    let nodes = rest.len();
    let mut rng = Rng::new(seed ^ 0x7369_6E67);
    let end = rng.range(30, 90);
    let mut masks = Vec::with_capacity(nodes);
    let mut tracks = Vec::new();
    for r in rest {
        let mut mask = 0x008 << rng.index(3);
        if r.root || rng.chance(0.3) {
            mask |= 0x040 << rng.index(3);
        }
        if !r.root && rng.chance(0.2) {
            mask |= 0x001 << rng.index(3);
        }
        masks.push(mask);
        for (_, c) in mask_targets(&[mask]) {
            if let Some(t) = single_track(&mut rng, r, c, end) {
                tracks.push(t);
            }
        }
    }
    let base = Mot::masks_end(nodes);
    let tail = vec![0; (crate::bytes::align(base, 16) - base) as usize];
    let header = MotHeader {
        end_frame_bits: (end as f32).to_bits(),
        unknown_14_bits: (end as f32).to_bits(),
        ..MotHeader::default()
    };
    Mot::build(header, masks, tail, tracks, Vec::new()).unwrap_or_else(|_| empty_mot())
}

/// One track of [`single_channel_motion`]: channel `c` of the node `r`, keys from frame 0 to
/// `end` as played.
fn single_track(
    rng: &mut Rng,
    r: &NodeRest,
    c: crate::native::dmc3::motion::Channel,
    end: i64,
) -> Option<Track> {
    let offset: i16 = [0, -11, -19, 5][rng.index(4)];
    let length = r.offset.iter().map(|x| x * x).sum::<f64>().sqrt();
    let (comp, lo, hi) = match c.kind_index() {
        0 => {
            let at = r.offset[c.axis()];
            let spread = if r.root {
                300.0
            } else {
                (0.02 * length).max(1e-3)
            };
            let comp = if rng.chance(0.5) {
                Compression::U16Linear
            } else {
                Compression::U16Hermite
            };
            (comp, at - spread, at + spread)
        }
        1 => (Compression::U16Hermite, -1.2, 1.2),
        _ => (Compression::U16Hermite, 0.8, 1.2),
    };
    // Played frames from 0 (or the offset, when positive: the first value holds before it) to
    // end; key words are those less the offset.
    let mut frames = vec![i64::from(offset.max(0))];
    while let Some(&last) = frames.last() {
        let next = last + rng.range(2, 12);
        if next >= end {
            break;
        }
        frames.push(next);
    }
    frames.push(end);
    let keys: Vec<KeyIn> = frames
        .iter()
        .map(|&f| {
            let v = (lo + (hi - lo) * rng.unit()) as f32;
            let t = ((rng.unit() - 0.5) * 0.1) as f32;
            KeyIn {
                frame: u16::try_from(f - i64::from(offset)).unwrap_or(0),
                flag: comp.is_hermite() && rng.chance(0.6),
                value: v,
                in_tangent: t,
                out_tangent: -t,
            }
        })
        .collect();
    Track::encode(comp, offset, &keys).ok()
}

fn pad16(mut b: Vec<u8>) -> Vec<u8> {
    let n = crate::bytes::align(b.len() as u64, 16) as usize;
    b.resize(n, 0);
    b
}

/// A random valid archive for `seed`: empty slots, non-zero bytes between the table and the
/// first member, motion members padded to 16 bytes, an opaque member, the last member unpadded,
/// sometimes two slots sharing one member.
pub fn random_pac(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed ^ 0x5041_4300);
    let slots = rng.range(1, 12) as usize;
    let nodes = rng.range(1, 30) as usize;
    let gap = if rng.chance(0.7) {
        {
            let n = rng.range(1, 24) as usize;
            rng.bytes(n)
        }
    } else {
        Vec::new()
    };
    let mut members: Vec<Vec<u8>> = Vec::new();
    for _ in 0..rng.range(0, slots as i64) {
        let mut mot = random_mot_struct(&mut rng, nodes);
        mot.tail.clear();
        let bytes = mot.write().unwrap_or_default();
        members.push(if rng.chance(0.1) {
            // an opaque member: not a motion
            {
                let n = rng.range(1, 40) as usize;
                rng.bytes(n)
            }
        } else {
            bytes
        });
    }
    build_pac(&mut rng, slots, gap, members)
}

/// Assigns the members to random slots (the rest empty, sometimes one sharing the first
/// member) and lays them out with [`lay_out`].
fn build_pac(rng: &mut Rng, slots: usize, gap: Vec<u8>, members: Vec<Vec<u8>>) -> Vec<u8> {
    let mut order: Vec<usize> = (0..slots).collect();
    rng.shuffle(&mut order);
    let n = members.len().min(slots);
    let mut placed: Vec<(Vec<usize>, Vec<u8>)> = members
        .into_iter()
        .take(n)
        .enumerate()
        .map(|(i, m)| (vec![order[i]], m))
        .collect();
    // A spare empty slot sometimes shares a member.
    if n < slots && rng.chance(0.3) {
        if let Some(first) = placed.first_mut() {
            first.0.push(order[slots - 1]);
        }
    }
    lay_out(slots, &gap, placed)
}

/// An archive of `slots` slots: the table, `gap`, then the members in the order given, every
/// one but the last padded with zeros to 16 bytes, each named by its slots (empty members are
/// left out, their slots empty).
fn lay_out(slots: usize, gap: &[u8], members: Vec<(Vec<usize>, Vec<u8>)>) -> Vec<u8> {
    let last = members.len().saturating_sub(1);
    let padded = members
        .into_iter()
        .enumerate()
        .map(|(i, (named, m))| (named, if i < last { pad16(m) } else { m }))
        .collect();
    place(slots, gap, padded)
}

/// An archive of `slots` slots: the table, `gap`, then the members exactly as given (any
/// padding already in their bytes), each named by its slots (empty members are left out,
/// their slots empty).
pub(crate) fn place(slots: usize, gap: &[u8], members: Vec<(Vec<usize>, Vec<u8>)>) -> Vec<u8> {
    let mut offsets = vec![0u32; slots];
    let mut at = Pac::table_end(slots) + gap.len() as u64;
    let mut body = Vec::new();
    for (named, m) in members {
        if m.is_empty() {
            continue;
        }
        for s in named {
            if let Some(o) = offsets.get_mut(s) {
                *o = at as u32;
            }
        }
        at += m.len() as u64;
        body.extend_from_slice(&m);
    }
    let mut out = b"PAC\0".to_vec();
    out.extend_from_slice(&(slots as u32).to_le_bytes());
    for o in &offsets {
        out.extend_from_slice(&o.to_le_bytes());
    }
    out.extend_from_slice(gap);
    out.extend_from_slice(&body);
    out
}

/// The humanoid sample model's nodes (`samples/dmc3_humanoid.mod`).
pub fn humanoid_rest() -> Vec<NodeRest> {
    let data = super::dmc3::sample_mod();
    crate::native::NativeFile::read(None, &data)
        .map(|f| model_rest(&crate::rig::lift(f)))
        .unwrap_or_default()
}

/// The sample motion for the humanoid sample model (`samples/dmc3_humanoid.mot`).
pub fn sample_mot() -> Vec<u8> {
    motion_for_model(0x5A3D_0701, &humanoid_rest())
        .write()
        .unwrap_or_default()
}

/// The sample archive for the humanoid (`samples/dmc3_humanoid.pac`): three motions, an empty
/// slot, non-zero bytes after the table, an opaque member.
pub fn sample_pac() -> Vec<u8> {
    let rest = humanoid_rest();
    let mut members: Vec<Vec<u8>> = (0..3)
        .map(|i| {
            motion_for_model(0x5A3D_0710 + i, &rest)
                .write()
                .unwrap_or_default()
        })
        .collect();
    members.insert(2, b"rigtrip opaque member".to_vec());
    let placed = [0, 1, 3, 4]
        .into_iter()
        .zip(members)
        .map(|(slot, m)| (vec![slot], m))
        .collect();
    lay_out(6, b"\x01\x00\x00\x00gap!", placed)
}

/// An archive of three motions for the model whose nodes are `rest` in slots 0, 1 and 3 of 5
/// (2 and 4 empty), after a gap that is not zero, as in most archives of the census.
pub fn pac_for_model(seed: u64, rest: &[NodeRest]) -> Vec<u8> {
    let placed = [0, 1, 3]
        .into_iter()
        .map(|slot| {
            let m = motion_for_model(seed + slot as u64, rest);
            (vec![slot], m.write().unwrap_or_default())
        })
        .collect();
    lay_out(5, b"\x02\x00\x00\x00", placed)
}

/// A MOD in the real file's layout ([`super::dmc3::real_layout`]) that takes motions: the first
/// of seeds 0..200 whose first skeleton has at least 4 joints and passes the spatial gate, and
/// which has meshes; with its nodes as [`motion_for_model`] takes them.
pub fn real_layout_for_motions() -> Option<(Vec<u8>, Vec<NodeRest>)> {
    (0..200u64).find_map(|seed| {
        let data = super::dmc3::real_layout(seed, false);
        let file =
            crate::native::NativeFile::read(Some(crate::native::Format::Dmc3), &data).ok()?;
        let rig = crate::rig::lift(file);
        let sk = rig.skeletons.first()?;
        (sk.joints.len() >= 4 && sk.gate.is_ok() && !rig.meshes().is_empty())
            .then(|| (data, model_rest(&rig)))
    })
}

/// A whole motion set for the model whose nodes are `rest`, shaped like the real player set (a
/// few dozen archives of motions each): `archives` archives named `pl000_00_NN.pac`, each with
/// `per` motions in its first slots and one empty slot after them, after a gap that is not
/// zero.
pub fn motion_set(
    seed: u64,
    rest: &[NodeRest],
    archives: usize,
    per: usize,
) -> Vec<(String, Vec<u8>)> {
    (0..archives)
        .map(|a| {
            let placed = (0..per)
                .map(|slot| {
                    let m = motion_for_model(seed + (a * per + slot) as u64, rest);
                    (vec![slot], m.write().unwrap_or_default())
                })
                .collect();
            (
                format!("pl000_00_{a:02}.pac"),
                lay_out(per + 1, b"\x02\x00\x00\x00", placed),
            )
        })
        .collect()
}

/// An archive of motions for the model whose nodes are `rest`, shaped like the real player set's
/// odd one out (one of its 24 archives holds a member animating 31 nodes where the model has
/// 24): slots 0 and 2 hold motions of the model, slot 1 a motion of `other` nodes (a chain, see
/// [`chain_rest`]).
pub fn pac_with_foreign_member(seed: u64, rest: &[NodeRest], other: usize) -> Vec<u8> {
    let members = [
        motion_for_model(seed, rest),
        motion_for_model(seed + 1, &chain_rest(other)),
        motion_for_model(seed + 2, rest),
    ];
    let placed = members
        .iter()
        .enumerate()
        .map(|(slot, m)| (vec![slot], m.write().unwrap_or_default()))
        .collect();
    lay_out(3, b"", placed)
}
