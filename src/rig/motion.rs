//! Motions in the IR: per joint and channel (translation, rotation, scale × X, Y, Z) a curve of
//! keys with frame times, values and per-frame tangents, each segment Hermite or linear, plus the
//! native payload that gives the original bytes back. This is the one place where such curves are
//! evaluated: between keys (by the left key's interpolation, tangents per frame), end values
//! held, 60 frames per second, Euler X→Y→Z rotations like the rest pose, animated values
//! replacing the rest values, channels without a track taking the model's rest value (scale 1),
//! and the values then taken as the game takes them ([`play`]).
//!
//! `lower(lift(m)) == m` for every motion the native reader accepts: a track whose keys are the
//! ones its payload decodes to keeps its payload's bytes; any other is encoded again.

pub mod dmc3;
pub mod fit;
pub mod play;

pub use play::Reading;

use glam::{DMat4, DQuat, DVec3};
use serde::Serialize;

use super::{topological_order, GateFailure, Rig, Skeleton};

/// Frames per second of every motion.
pub const FRAMES_PER_SECOND: f64 = 60.0;

/// What a channel moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Property {
    /// Local translation, native units.
    Translation,
    /// Local rotation, one Euler angle per axis, radians.
    Rotation,
    /// Local scale factor per axis.
    Scale,
}

/// One of the nine channels of a joint: a property and an axis (0, 1, 2 for X, Y, Z).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Channel {
    /// What it moves.
    pub property: Property,
    /// 0, 1, 2 for X, Y, Z.
    pub axis: u8,
}

impl Channel {
    /// The channel at `index` 0..9 (translation X, Y, Z, rotation X, Y, Z, scale X, Y, Z).
    pub fn from_index(index: usize) -> Option<Channel> {
        let property = match index / 3 {
            0 => Property::Translation,
            1 => Property::Rotation,
            2 => Property::Scale,
            _ => return None,
        };
        Some(Channel {
            property,
            axis: (index % 3) as u8,
        })
    }

    /// Its index 0..9 (see [`Channel::from_index`]).
    pub fn index(self) -> usize {
        let p = match self.property {
            Property::Translation => 0,
            Property::Rotation => 1,
            Property::Scale => 2,
        };
        p * 3 + usize::from(self.axis.min(2))
    }

    /// A short name for messages: `translation x` ... `scale z`.
    pub fn name(self) -> String {
        let p = match self.property {
            Property::Translation => "translation",
            Property::Rotation => "rotation",
            Property::Scale => "scale",
        };
        let a = ["x", "y", "z"].get(usize::from(self.axis)).unwrap_or(&"?");
        format!("{p} {a}")
    }
}

/// How a curve goes from one key to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Interpolation {
    /// Straight from value to value.
    Linear,
    /// Cubic Hermite with the keys' tangents (per frame).
    Hermite,
}

/// One key.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Key {
    /// How the segment from this key to the next plays (the last key's is kept, unused).
    pub interpolation: Interpolation,
    /// Time in frames.
    pub frame: f64,
    /// The value at that frame.
    pub value: f64,
    /// Slope arriving at the key, per frame (Hermite only).
    pub tangent_in: f64,
    /// Slope leaving the key, per frame (Hermite only).
    pub tangent_out: f64,
}

impl Key {
    /// Whether two keys hold the same bits (NaN payloads and -0.0 included).
    pub fn same_bits(&self, other: &Key) -> bool {
        self.frame.to_bits() == other.frame.to_bits()
            && self.value.to_bits() == other.value.to_bits()
            && self.tangent_in.to_bits() == other.tangent_in.to_bits()
            && self.tangent_out.to_bits() == other.tangent_out.to_bits()
            && self.interpolation == other.interpolation
    }
}

/// A curve: keys in increasing frame order, each saying how to go on to the next. Before the
/// first key and after the last the end values hold; a curve without keys has no value (the
/// channel takes the rest value).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Curve {
    /// Keys, increasing frames expected (see [`Curve::is_ordered`]).
    pub keys: Vec<Key>,
}

/// A curve's value and slope (per frame) at one point, from one side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Value.
    pub value: f64,
    /// Slope per frame.
    pub slope: f64,
}

/// The most keys [`Curve::thin_linear`] drops in a row (it bounds the work per key).
const THIN_RUN: usize = 64;

impl Curve {
    /// Whether every segment is linear (the last key's interpolation plays no segment).
    pub fn is_linear(&self) -> bool {
        let n = self.keys.len().saturating_sub(1);
        self.keys[..n]
            .iter()
            .all(|k| k.interpolation == Interpolation::Linear)
    }

    /// Whether every segment is Hermite.
    pub fn is_hermite(&self) -> bool {
        let n = self.keys.len().saturating_sub(1);
        self.keys[..n]
            .iter()
            .all(|k| k.interpolation == Interpolation::Hermite)
    }

    /// Whether some segment plays `i` (a lone key: whether it says `i`).
    pub fn has_segment(&self, i: Interpolation) -> bool {
        match self.keys.as_slice() {
            [k] => k.interpolation == i,
            keys => keys.iter().rev().skip(1).any(|k| k.interpolation == i),
        }
    }

    /// Sets every key's interpolation.
    pub fn set_interpolation(&mut self, interpolation: Interpolation) {
        self.keys
            .iter_mut()
            .for_each(|k| k.interpolation = interpolation);
    }

    /// Drops keys of a linear curve that the line between the keys kept around them plays
    /// within `eps` (at most [`THIN_RUN`] in a row); the first and last keys stay. Both curves
    /// being linear, they then differ by at most `eps` at every frame.
    pub fn thin_linear(&mut self, eps: f64) {
        let keys = &self.keys;
        let (Some(&first), Some(&last)) = (keys.first(), keys.last()) else {
            return;
        };
        if !self.is_linear() || keys.len() < 3 {
            return;
        }
        let near = |a: &Key, b: &Key, k: &Key| {
            let u = (k.frame - a.frame) / (b.frame - a.frame);
            (a.value + (b.value - a.value) * u - k.value).abs() <= eps
        };
        let mut kept = vec![first];
        let mut anchor = 0;
        for i in 1..keys.len() - 1 {
            let joinable = i - anchor < THIN_RUN
                && (anchor + 1..=i).all(|j| near(&keys[anchor], &keys[i + 1], &keys[j]));
            if !joinable {
                kept.push(keys[i]);
                anchor = i;
            }
        }
        kept.push(last);
        self.keys = kept;
    }

    /// Whether every key's frame is finite and not smaller than the previous one (two keys
    /// at one frame make a step: the later one holds from that frame on). The glTF export
    /// needs it; for other curves [`Curve::value`] still answers, by a binary search.
    pub fn is_ordered(&self) -> bool {
        self.keys.iter().all(|k| k.frame.is_finite())
            && self.keys.windows(2).all(|w| w[0].frame <= w[1].frame)
    }

    /// Whether every value and tangent is finite.
    pub fn is_finite(&self) -> bool {
        self.keys
            .iter()
            .all(|k| k.value.is_finite() && k.tangent_in.is_finite() && k.tangent_out.is_finite())
    }

    /// Whether the keys bit-equal `keys`.
    pub fn same_keys(&self, keys: &[Key]) -> bool {
        self.keys.len() == keys.len() && self.keys.iter().zip(keys).all(|(a, b)| a.same_bits(b))
    }

    /// The value at frame `f` (`None` without keys).
    pub fn value(&self, f: f64) -> Option<f64> {
        self.point(f, true).map(|p| p.value)
    }

    /// Value and slope at frame `f`, taken from the segment after `f` (`right`) or before it: at
    /// a key the two sides can differ in slope. Held ends have slope 0.
    pub fn point(&self, f: f64, right: bool) -> Option<Point> {
        let first = self.keys.first()?;
        // The segment (i-1, i): right side t[i-1] <= f < t[i], left side t[i-1] < f <= t[i].
        let i = if right {
            self.keys.partition_point(|k| k.frame <= f)
        } else {
            self.keys.partition_point(|k| k.frame < f)
        };
        let (Some(k0), Some(k1)) = (
            i.checked_sub(1).and_then(|p| self.keys.get(p)),
            self.keys.get(i),
        ) else {
            let held = if i == 0 {
                first
            } else {
                self.keys.last().unwrap_or(first)
            };
            return Some(Point {
                value: held.value,
                slope: 0.0,
            });
        };
        Some(segment(k0, k1, f))
    }

    /// Whether the curve keeps one value over `[a, b]`, which no key lies strictly inside.
    fn constant_on(&self, a: f64, b: f64) -> bool {
        let mid = 0.5 * (a + b);
        let i = self.keys.partition_point(|k| k.frame <= mid);
        let (Some(k0), Some(k1)) = (
            i.checked_sub(1).and_then(|p| self.keys.get(p)),
            self.keys.get(i),
        ) else {
            return true;
        };
        k0.value == k1.value
            && match k0.interpolation {
                Interpolation::Linear => true,
                Interpolation::Hermite => k0.tangent_out == 0.0 && k1.tangent_in == 0.0,
            }
    }
}

/// The value and slope of the segment from `k0` to `k1` at frame `f` (docs/formats.md, motions:
/// Hermite with tangents per frame, or linear, as `k0` says).
fn segment(k0: &Key, k1: &Key, f: f64) -> Point {
    let d = k1.frame - k0.frame;
    let u = (f - k0.frame) / d;
    match k0.interpolation {
        Interpolation::Linear => Point {
            value: k0.value + (k1.value - k0.value) * u,
            slope: (k1.value - k0.value) / d,
        },
        Interpolation::Hermite => {
            let (u2, u3) = (u * u, u * u * u);
            let h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
            let h10 = u3 - 2.0 * u2 + u;
            let h01 = -2.0 * u3 + 3.0 * u2;
            let h11 = u3 - u2;
            let value = h00 * k0.value
                + h10 * d * k0.tangent_out
                + h01 * k1.value
                + h11 * d * k1.tangent_in;
            let dh00 = 6.0 * u2 - 6.0 * u;
            let dh10 = 3.0 * u2 - 4.0 * u + 1.0;
            let dh01 = -dh00;
            let dh11 = 3.0 * u2 - 2.0 * u;
            let slope = (dh00 * k0.value + dh01 * k1.value) / d
                + dh10 * k0.tangent_out
                + dh11 * k1.tangent_in;
            Point { value, slope }
        }
    }
}

/// One animated channel of one joint.
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    /// Joint (native node index).
    pub joint: usize,
    /// Channel.
    pub channel: Channel,
    /// The curve.
    pub curve: Curve,
    /// The native track it was lifted from (`None` for a track made in the IR).
    pub native: Option<TrackPayload>,
}

impl Track {
    /// The interpolation a curve rebuilt from samples takes for this track: Hermite when some
    /// segment of it is (a lone key: when it says so), or when it has no keys and its native
    /// track carries tangents; else linear.
    pub fn rebuilt_interpolation(&self) -> Interpolation {
        let hermite = if self.curve.keys.is_empty() {
            self.native
                .as_ref()
                .is_some_and(|TrackPayload::Dmc3(t)| t.is_hermite())
        } else {
            self.curve.has_segment(Interpolation::Hermite)
        };
        if hermite {
            Interpolation::Hermite
        } else {
            Interpolation::Linear
        }
    }
}

/// A track's native form.
#[derive(Debug, Clone, PartialEq)]
pub enum TrackPayload {
    /// A DMC3 `.mot` track.
    Dmc3(crate::native::dmc3::motion::Track),
}

/// What a motion keeps besides its tracks.
#[derive(Debug, Clone, PartialEq)]
pub enum MotionPayload {
    /// A DMC3 `.mot` with its tracks moved out into [`Motion::tracks`].
    Dmc3(Box<crate::native::dmc3::motion::Mot>),
}

/// One motion: a curve per animated channel of a skeleton's joints.
#[derive(Debug, Clone, PartialEq)]
pub struct Motion {
    /// Joints (nodes) it animates: must equal the model's joint count.
    pub joints: usize,
    /// The end frame the file states (may be past the last key, or not finite in a hostile file).
    pub end_frame: f64,
    /// Tracks, in native order.
    pub tracks: Vec<Track>,
    /// The reading of the format its curves follow (what the game plays, unless it was lifted
    /// for a glTF written before rigtrip followed the executable).
    pub reading: Reading,
    /// The native remainder.
    pub native: MotionPayload,
}

/// One motion of a file: the archive slots that name it (none for a lone motion file) and the
/// motion, `None` once it was taken out (its slots are written empty).
#[derive(Debug, Clone, PartialEq)]
pub struct Slotted {
    /// Archive slots, ascending (empty for a `.mot`).
    pub slots: Vec<usize>,
    /// The motion.
    pub motion: Option<Motion>,
}

/// A motion file's native remainder.
#[derive(Debug, Clone, PartialEq)]
pub enum FilePayload {
    /// A DMC3 `.mot`: everything is in its one motion.
    Dmc3Mot,
    /// A DMC3 `.pac` as read (its motion members are also lifted into [`MotionFile::motions`],
    /// in member order).
    Dmc3Pac(Box<crate::native::dmc3::pac::Pac>),
}

/// A motion file in the IR: a lone motion, or an archive's motions.
#[derive(Debug, Clone, PartialEq)]
pub struct MotionFile {
    /// The motions, in file order.
    pub motions: Vec<Slotted>,
    /// The native remainder.
    pub native: FilePayload,
}

/// A track that lowering had to encode again.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Reencoded {
    /// Joint.
    pub joint: usize,
    /// Channel.
    pub channel: Channel,
    /// Keys written.
    pub keys: usize,
    /// The largest difference between a key's value or tangent and what was stored.
    pub error: f64,
}

/// Why a motion file could not be read, or a motion not lowered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MotionError {
    /// Neither a motion nor an archive.
    #[error("not a motion file (no \"MOT\\0\" at offset 0x4) nor a motion archive (no \"PAC\\0\" at offset 0x0)")]
    Unrecognised,
    /// The motion reader refused the bytes, or the writer the structure.
    #[error("motion")]
    Mot(#[source] crate::native::dmc3::motion::MotError),
    /// The archive reader refused the bytes, or the writer the structure.
    #[error("archive")]
    Pac(#[source] crate::native::dmc3::pac::PacError),
    /// A track cannot be lowered.
    #[error("joint {joint}, {}: {problem}", .channel.name())]
    Track {
        /// Joint.
        joint: usize,
        /// Channel.
        channel: Channel,
        /// What is wrong.
        problem: MotionTrackProblem,
    },
    /// A track's keys cannot be encoded.
    #[error("joint {joint}, {}: cannot encode the keys", .channel.name())]
    Encode {
        /// Joint.
        joint: usize,
        /// Channel.
        channel: Channel,
        /// Why.
        #[source]
        source: crate::native::dmc3::motion::EncodeError,
    },
    /// The joint count changed.
    #[error("the motion animates {motion} joints, its native form {native}")]
    Joints {
        /// IR count.
        motion: usize,
        /// Native count.
        native: usize,
    },
    /// A lone motion file's motion was taken out: there is nothing to write.
    #[error("the file's only motion was taken out")]
    Removed,
}

/// Why a track cannot be lowered to the native motion.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MotionTrackProblem {
    /// A key's frame is not a whole number the native form holds.
    #[error("key {key} at frame {frame}: key frames are whole numbers, 0..=32767 from the track's time offset")]
    Frame {
        /// Key index in the track.
        key: usize,
        /// Its frame.
        frame: f64,
    },
    /// The keys lie further apart than one track's time words reach.
    #[error("keys from frame {first} to {last}: one track's keys lie at most 32767 frames apart")]
    Spread {
        /// The first key's frame.
        first: i64,
        /// The last key's frame.
        last: i64,
    },
    /// The track's joint is past the motion's (the count).
    #[error("the motion has {0} joints")]
    JointPastEnd(usize),
    /// Two tracks animate the same channel.
    #[error("two tracks for one channel")]
    Duplicate,
}

/// A model of `joints` bare joints in one chain, for playing motions where no model is at hand
/// (`None` when the format cannot hold that many).
pub fn bare_rig(joints: usize) -> Option<Rig> {
    dmc3::bare_rig(joints)
}

/// Whether `data` looks like a motion file or archive (by content).
pub fn detect(data: &[u8]) -> bool {
    crate::native::dmc3::motion::has_mot_magic(data)
        || crate::native::dmc3::pac::has_pac_magic(data)
}

/// Reads a motion file or archive (told apart by content) and lifts it as the game plays it.
pub fn read_file(data: &[u8]) -> Result<MotionFile, MotionError> {
    read_file_as(data, Reading::Exe)
}

/// [`read_file`] by the given reading of the format (see [`Reading`]).
pub fn read_file_as(data: &[u8], reading: Reading) -> Result<MotionFile, MotionError> {
    use crate::native::dmc3::{motion::Mot, pac::Pac};
    if crate::native::dmc3::pac::has_pac_magic(data) {
        Pac::read(data)
            .map(|p| dmc3::lift_pac(p, reading))
            .map_err(MotionError::Pac)
    } else if crate::native::dmc3::motion::has_mot_magic(data) {
        Mot::read(data)
            .map(|m| dmc3::lift_mot(m, reading))
            .map_err(MotionError::Mot)
    } else {
        Err(MotionError::Unrecognised)
    }
}

/// What holds an archive slot, for a new motion that wants it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotUse {
    /// Nothing: empty, past the table (the archive grows), or its motion was taken out.
    Free,
    /// Motion `i` of the file.
    Motion(usize),
    /// A member that is not a motion (its kind).
    Other(&'static str),
    /// The file is a lone motion, not an archive.
    NotAnArchive,
}

impl MotionFile {
    /// The file's bytes: unchanged motions as they were read, edited ones encoded again
    /// (listed in `reencoded` with the index of their motion), taken-out ones leaving their
    /// archive slots empty.
    pub fn write(&self, reencoded: &mut Vec<(usize, Reencoded)>) -> Result<Vec<u8>, MotionError> {
        dmc3::lower_file(self, reencoded)
    }

    /// What holds slot `slot` (archives; see [`SlotUse`]).
    pub fn slot_use(&self, slot: usize) -> SlotUse {
        dmc3::slot_use(self, slot)
    }

    /// The first slot a new motion can take: an empty one, else the first past the table.
    pub fn first_free_slot(&self) -> Option<usize> {
        (0..Self::MAX_SLOTS).find(|&s| self.slot_use(s) == SlotUse::Free)
    }

    /// The most slots an archive may grow to (the archive format's limit).
    pub const MAX_SLOTS: usize = crate::native::dmc3::pac::MAX_GROWN_SLOTS;

    /// Whether it is an archive (its motions are named by slot).
    pub fn is_archive(&self) -> bool {
        matches!(self.native, FilePayload::Dmc3Pac(_))
    }

    /// The animation name of motion `i` for a file whose name without extension is `stem`:
    /// the stem for a lone motion, `<stem>_<first slot, two digits>` in an archive.
    pub fn animation_name(&self, stem: &str, i: usize) -> String {
        match self.motions.get(i).and_then(|s| s.slots.first()) {
            Some(slot) if self.is_archive() => format!("{stem}_{slot:02}"),
            _ => stem.to_string(),
        }
    }
}

/// Per joint, the rest value of each of the nine channels (index as [`Channel::index`]).
pub type RestChannels = [f64; 9];

/// A joint's local transform at one frame, native units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Local {
    /// Translation.
    pub translation: DVec3,
    /// Rotation.
    pub rotation: DQuat,
    /// Scale.
    pub scale: DVec3,
}

impl Local {
    /// `T · R · S`, column-vector convention.
    pub fn matrix(&self) -> DMat4 {
        DMat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// The rotation of Euler angles (radians) applied X first, then Y, then Z: the rest pose's
/// convention ([`super::dmc3::rotation_xyz`]).
pub fn euler_rotation(angles: [f64; 3]) -> DQuat {
    super::dmc3::rotation_xyz(angles)
}

/// The Euler angles X, Y, Z (X applied first) of `q` nearest to `reference`: of the two
/// triples every rotation has (away from gimbal lock), each angle moved by whole turns towards
/// the reference, the one closer to it.
pub fn euler_near(q: DQuat, reference: [f64; 3]) -> [f64; 3] {
    use std::f64::consts::{PI, TAU};
    let [x, y, z] = super::dmc3::euler_xyz(q);
    let near = |a: [f64; 3]| {
        let mut out = a;
        for (o, r) in out.iter_mut().zip(reference) {
            let turns = ((r - *o) / TAU).round();
            if turns.is_finite() {
                *o += turns * TAU;
            }
        }
        out
    };
    let off = |a: &[f64; 3]| -> f64 { a.iter().zip(reference).map(|(a, r)| (a - r).abs()).sum() };
    let first = near([x, y, z]);
    let second = near([x + PI, PI - y, z + PI]);
    if off(&second) < off(&first) {
        second
    } else {
        first
    }
}

/// Frames a motion is shown over: 0 to the later of its end frame (when it is a usable frame
/// number) and its last key.
pub const MAX_FRAME: f64 = 32767.0;

impl Motion {
    /// A motion of no tracks ending at `end_frame`, on this motion's native shell (a motion of
    /// the same model: the header's undecoded fields are taken over). Returns it and what was
    /// taken over, for a report.
    pub fn blank_like(&self, end_frame: f64) -> (Motion, String) {
        dmc3::blank_like(self, end_frame)
    }

    /// The motion as its format stores it: lowered and lifted again, so that its curves are
    /// the quantised ones a game plays.
    pub fn encoded(&self) -> Result<Motion, MotionError> {
        let (mot, _) = dmc3::lower(self)?;
        Ok(dmc3::lift(mot, self.reading))
    }

    /// A lone motion file (`.mot`) holding only this motion.
    pub fn into_lone_file(self) -> MotionFile {
        MotionFile {
            motions: vec![Slotted {
                slots: Vec::new(),
                motion: Some(self),
            }],
            native: FilePayload::Dmc3Mot,
        }
    }

    /// The last frame worth showing: the stated end frame when it is a frame number in
    /// 0..=32767, or the last key if that is later (keys are at most frame 32767).
    pub fn last_frame(&self) -> f64 {
        let end = if self.end_frame.is_finite() {
            self.end_frame.clamp(0.0, MAX_FRAME)
        } else {
            0.0
        };
        self.tracks
            .iter()
            .filter_map(|t| t.curve.keys.last())
            .map(|k| k.frame)
            .filter(|f| f.is_finite())
            .fold(end, |a, f| a.max(f.clamp(0.0, MAX_FRAME)))
    }

    /// Per joint, the curve of each channel (`None`: no track), indexed like the joints.
    /// Tracks naming a joint past `joints` are not listed.
    pub fn by_joint(&self) -> Vec<[Option<&Curve>; 9]> {
        let mut out = vec![[None; 9]; self.joints];
        for t in &self.tracks {
            if let Some(slot) = out
                .get_mut(t.joint)
                .and_then(|c| c.get_mut(t.channel.index()))
            {
                *slot = Some(&t.curve);
            }
        }
        out
    }

    /// Every joint's nine channel values at frame `f` as the game takes them: the track's
    /// value, or the rest value ([`Reading::played`]).
    pub fn channels_at(&self, rest: &[RestChannels], f: f64) -> Vec<RestChannels> {
        let curves = self.by_joint();
        rest.iter()
            .enumerate()
            .map(|(j, r)| {
                let mut v = *r;
                let Some(cs) = curves.get(j) else {
                    return v;
                };
                for (p, property) in PROPERTIES.into_iter().enumerate() {
                    let part = [cs[3 * p], cs[3 * p + 1], cs[3 * p + 2]];
                    let rest3 = [v[3 * p], v[3 * p + 1], v[3 * p + 2]];
                    let got = played_at(part, rest3, f, property, self.reading);
                    v[3 * p..3 * p + 3].copy_from_slice(&got);
                }
                v
            })
            .collect()
    }

    /// Every joint's local transform at frame `f` (see [`local_of`]).
    pub fn locals_at(&self, rest: &[RestChannels], f: f64) -> Vec<Local> {
        self.channels_at(rest, f).iter().map(local_of).collect()
    }

    /// `skeleton` posed by the motion at frame `f`: every joint's world matrix (native units),
    /// `rest` giving the channels without a track ([`rest_channels`]).
    pub fn world_at(
        &self,
        skeleton: &Skeleton,
        rest: &[RestChannels],
        f: f64,
    ) -> Result<Vec<DMat4>, GateFailure> {
        pose(skeleton, &self.locals_at(rest, f))
    }
}

/// The local transform of nine channel values.
pub fn local_of(v: &RestChannels) -> Local {
    Local {
        translation: DVec3::new(v[0], v[1], v[2]),
        rotation: euler_rotation([v[3], v[4], v[5]]),
        scale: DVec3::new(v[6], v[7], v[8]),
    }
}

/// World matrices of `skeleton`'s joints posed by `locals` (native units), parents first.
pub fn pose(skeleton: &Skeleton, locals: &[Local]) -> Result<Vec<DMat4>, GateFailure> {
    skeleton.gate.clone()?;
    let order = topological_order(&skeleton.joints)?;
    let mut world = vec![DMat4::IDENTITY; skeleton.joints.len()];
    for j in order {
        let local = locals.get(j).map_or(DMat4::IDENTITY, Local::matrix);
        world[j] = match skeleton.joints[j].parent {
            Some(p) => world.get(p).copied().unwrap_or(DMat4::IDENTITY) * local,
            None => local,
        };
    }
    Ok(world)
}

/// The rest value of every channel of skeleton `s`'s joints, as the format stores them.
pub fn rest_channels(rig: &Rig, s: usize) -> Vec<RestChannels> {
    let format = rig.source.format();
    rig.skeletons.get(s).map_or_else(Vec::new, |sk| {
        sk.joints
            .iter()
            .map(|j| {
                let t = j.translation;
                let [rx, ry, rz] = format.rest_euler(j);
                [t.x, t.y, t.z, rx, ry, rz, 1.0, 1.0, 1.0]
            })
            .collect()
    })
}

/// The three properties in channel order.
const PROPERTIES: [Property; 3] = [Property::Translation, Property::Rotation, Property::Scale];

/// The values of one property's three channels `curves` at frame `f` as the game takes them
/// (`rest` for axes without a curve).
fn played_at(
    curves: [Option<&Curve>; 3],
    rest: [f64; 3],
    f: f64,
    property: Property,
    reading: Reading,
) -> [f64; 3] {
    let mut v = rest;
    let mut animated = [false; 3];
    for ((x, a), c) in v.iter_mut().zip(&mut animated).zip(curves) {
        if let Some(y) = c.and_then(|c| c.value(f)) {
            (*x, *a) = (y, true);
        }
    }
    reading.played(property, v, animated)
}

/// The frames where some curve of `curves` has a key, plus 0 and `last`, sorted and distinct.
fn breakpoints(curves: &[Option<&Curve>], last: f64) -> Vec<f64> {
    let mut frames: Vec<f64> = curves
        .iter()
        .flatten()
        .flat_map(|c| c.keys.iter().map(|k| k.frame))
        .filter(|f| (0.0..=last).contains(f))
        .chain([0.0, last])
        .collect();
    frames.sort_by(f64::total_cmp);
    frames.dedup();
    frames
}

/// The three channels of one property of one joint (`curves` its X, Y, Z; `rest` the values of
/// axes without one) sampled at every whole frame where one of them moves, and at the frames
/// where they start and stop moving (their keys, plus 0 and `last`), as the game takes them
/// ([`Reading::played`]): what a glTF animation holds of them, exact at every frame.
pub fn property_samples(
    curves: [Option<&Curve>; 3],
    rest: [f64; 3],
    last: f64,
    property: Property,
    reading: Reading,
) -> Vec<(f64, [f64; 3])> {
    let frames = breakpoints(&curves, last);
    let mut times = Vec::with_capacity(frames.len());
    for (i, &f) in frames.iter().enumerate() {
        times.push(f);
        let Some(&next) = frames.get(i + 1) else {
            break;
        };
        if curves.iter().flatten().any(|c| !c.constant_on(f, next)) {
            let mut k = f.floor() + 1.0;
            while k < next {
                times.push(k);
                k += 1.0;
            }
        }
    }
    times
        .into_iter()
        .map(|f| (f, played_at(curves, rest, f, property, reading)))
        .collect()
}

/// [`property_samples`] of the rotation angles, as quaternions whose signs keep neighbours less
/// than half a turn apart.
pub fn rotation_samples(
    curves: [Option<&Curve>; 3],
    rest: [f64; 3],
    last: f64,
    reading: Reading,
) -> Vec<(f64, DQuat)> {
    let mut out: Vec<(f64, DQuat)> = Vec::new();
    for (f, angles) in property_samples(curves, rest, last, Property::Rotation, reading) {
        let mut q = euler_rotation(angles);
        if let Some((_, prev)) = out.last() {
            if prev.dot(q) < 0.0 {
                q = -q;
            }
        }
        out.push((f, q));
    }
    out
}

#[cfg(test)]
mod tests;
