//! Motion files back from the glTF's animations: the original files ride in
//! `scene.extras.rigtrip.motions` (bytes and animation names); each animation found by name is
//! compared with the motion it came from, track by track.
//!
//! A track is unedited when the incoming samples agree, at their own times, with its curve as
//! the export wrote it (sampled at every frame where it moves, played linearly between) within
//! the [`Tolerance`]: then its original bytes are kept. Blender resamples at 24 frames
//! per second, adds constant channels for every joint, reorders animations and may cut a
//! clip's tail; none of that is an edit. A track that disagrees is built again from the samples
//! (keys at the samples' whole frames, values and tangents from the samples) and encoded like
//! the original; a channel that had no track and now moves gets one. An animation no longer
//! present leaves its motion's archive slots empty.

use std::collections::BTreeMap;

use glam::{DQuat, DVec3};
use serde_json::Value;

use super::read::Doc;
use super::scene::extras_err;
use super::{AnimationProblem, ImportError, Tolerance};
use crate::gltf::animation::{property_keys, rotation_keys};
use crate::gltf::read::anim;
use crate::gltf::read::player::{self, Blend, Keys};
use crate::gltf::Space;
use crate::rig::motion::{
    euler_near, Channel, Curve, Interpolation, Key, Motion, MotionFile, Property, Reading,
    Reencoded, RestChannels, Track, FRAMES_PER_SECOND,
};

mod report;
pub use report::{JointError, MotionFileReport, MotionReport, MotionStatus, NotWritten};

/// A rebuilt motion file.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedMotionFile {
    /// Its name (a plain file name).
    pub file: String,
    /// Its bytes (`None` when its only motion was deleted).
    pub bytes: Option<Vec<u8>>,
    /// What happened.
    pub report: MotionFileReport,
}

/// Incoming samples of one joint per property: frames and native values.
#[derive(Debug, Default)]
pub(super) struct Incoming {
    pub translation: Option<(Vec<f64>, Vec<DVec3>)>,
    pub rotation: Option<(Vec<f64>, Vec<DQuat>)>,
    pub scale: Option<(Vec<f64>, Vec<DVec3>)>,
}

/// A plain file name (no folder part), so that writing it stays in the output folder.
pub(super) fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
        && !name.contains(':')
}

/// What rebuilding the motions gives: the files, and the animations not written.
pub(crate) type Rebuilt = (Vec<ImportedMotionFile>, Vec<NotWritten>);

/// Every animation of `doc`, as not written for `reason` (an import that writes no motions).
pub(crate) fn none_written(doc: &Doc, reason: &str) -> Vec<NotWritten> {
    let list = doc.json().get("animations").and_then(Value::as_array);
    list.into_iter()
        .flatten()
        .enumerate()
        .map(|(animation, a)| NotWritten {
            animation,
            name: a.get("name").and_then(Value::as_str).map(str::to_string),
            reason: reason.to_string(),
        })
        .collect()
}

/// Incoming animations by name, per joint (see [`incoming_animations`]).
pub(super) type Animations<'a> = BTreeMap<&'a str, BTreeMap<usize, Incoming>>;

/// An animation of the glTF as the import met it.
#[derive(Debug)]
pub(super) struct Seen<'a> {
    /// Index in the glTF.
    pub index: usize,
    /// Its name.
    pub name: Option<&'a str>,
    /// Whether an earlier animation has its name (then only that one is read).
    pub duplicate: bool,
    /// How many joints of the rig it animates.
    pub joints: usize,
}

impl<'a> Seen<'a> {
    /// Animation `index` named `name`, as met after the animations read so far (`met`).
    pub(super) fn of(index: usize, name: Option<&'a str>, met: &Animations) -> Seen<'a> {
        Seen {
            index,
            name,
            duplicate: name.is_some_and(|n| met.contains_key(n)),
            joints: 0,
        }
    }
}

/// What rebuilding a motion file compares its motions with: the incoming animations, the
/// joints' rest values, the space and the tolerances.
pub(super) struct MotionCx<'a> {
    pub animations: &'a Animations<'a>,
    pub rest: &'a [RestChannels],
    pub space: Space,
    pub tol: &'a Tolerance,
}

/// A motion file compared with the animations, not yet written: its name, its motions (edited
/// ones with new curves, new ones added), the report per motion, and the largest deviation
/// taken as noise.
pub(super) struct Compared {
    pub file: String,
    pub mf: MotionFile,
    pub reports: Vec<MotionReport>,
    pub closest: f64,
}

impl Compared {
    /// The file written again, unless nothing is left of it; tracks encoded again are reported
    /// per motion.
    pub(super) fn write(self) -> Result<ImportedMotionFile, ImportError> {
        let Compared {
            file,
            mf,
            mut reports,
            closest,
        } = self;
        let mut reencoded = Vec::new();
        let written = if mf.motions.iter().all(|s| s.motion.is_none()) && !mf.is_archive() {
            None
        } else {
            Some(mf.write(&mut reencoded).map_err(|e| ImportError::Motion {
                file: file.clone(),
                source: Box::new(e),
            })?)
        };
        // Reencoded tracks are reported per motion (index among the file's motions).
        let mut per_motion: BTreeMap<usize, Vec<Reencoded>> = BTreeMap::new();
        for (m, r) in reencoded {
            per_motion.entry(m).or_default().push(r);
        }
        for (m, r) in per_motion {
            if let Some(rep) = reports.get_mut(m) {
                if rep.status == MotionStatus::Unchanged {
                    rep.status = MotionStatus::Edited;
                }
                rep.reencoded = r;
            }
        }
        Ok(ImportedMotionFile {
            report: MotionFileReport {
                file: file.clone(),
                bytes: written.as_ref().map(Vec::len),
                motions: reports,
                closest,
            },
            file,
            bytes: written,
        })
    }
}

impl MotionCx<'_> {
    /// The motion file the scene extras record as `v` (at `p`), its motions compared with
    /// their animations.
    pub(super) fn compare_file(&self, v: &Value, p: &str) -> Result<Compared, ImportError> {
        let (file, mut mf) = read_recorded_file(v, p)?;
        let names = animation_names(v, p, mf.motions.len())?;
        let carried = motion_indices(v, p, "carried", mf.motions.len())?;
        let unexported = motion_indices(v, p, "unexported", mf.motions.len())?;
        let (reports, closest) = self.compare_motions(&mut mf, &names, &carried, &unexported)?;
        Ok(Compared {
            file,
            mf,
            reports,
            closest,
        })
    }

    /// Compares each motion of `mf` with the animation of its name in `names` (replacing the
    /// curves of edited channels, taking out a motion whose animation is gone); motions the
    /// export `carried` without an animation, and those left `unexported` as unchanged whose
    /// animation is indeed absent, are left as they are. Returns a report per motion and the
    /// largest deviation taken as noise, as a fraction of its tolerance.
    fn compare_motions(
        &self,
        mf: &mut MotionFile,
        names: &[String],
        carried: &[usize],
        unexported: &[usize],
    ) -> Result<(Vec<MotionReport>, f64), ImportError> {
        let mut reports = Vec::with_capacity(names.len());
        let mut closest = 0.0f64;
        for (i, (slotted, name)) in mf.motions.iter_mut().zip(names).enumerate() {
            let mut report = MotionReport::of(name, &slotted.slots, MotionStatus::Unchanged);
            let Some(motion) = slotted.motion.as_mut() else {
                continue;
            };
            match self.animations.get(name.as_str()) {
                // No animation was written for it: whatever has its name is not it.
                _ if carried.contains(&i) => report.status = MotionStatus::Carried,
                // Left out as unchanged; had the exporter written it anyway, it is compared.
                None if unexported.contains(&i) => report.status = MotionStatus::Unexported,
                // A motion without tracks has no animation: nothing was lost.
                None if motion.tracks.is_empty() => {}
                None => {
                    slotted.motion = None;
                    report.status = MotionStatus::Deleted;
                }
                Some(incoming) => {
                    let c = compare(motion, incoming, self.rest, self.space, self.tol)?;
                    closest = closest.max(c);
                }
            }
            reports.push(report);
        }
        Ok((reports, closest))
    }
}

/// The file name (plain) and the motion file the record `v` (at `p`) carries as base64, lifted
/// by the reading its animations were written by (`reading`; none: the old one).
fn read_recorded_file(v: &Value, p: &str) -> Result<(String, MotionFile), ImportError> {
    let file = v
        .get("file")
        .and_then(Value::as_str)
        .filter(|f| plain_name(f))
        .ok_or_else(|| extras_err(format!("{p}/file"), "missing or not a plain file name"))?
        .to_string();
    let data = v
        .get("data")
        .and_then(Value::as_str)
        .ok_or_else(|| extras_err(format!("{p}/data"), "missing or not a string"))?;
    let bytes = crate::bytes::b64::decode(data.trim().as_bytes())
        .map_err(|e| extras_err(format!("{p}/data"), format!("not base64: {e}")))?;
    let reading = match v.get("reading") {
        None => Reading::Community,
        Some(r) => r
            .as_str()
            .and_then(Reading::from_name)
            .ok_or_else(|| extras_err(format!("{p}/reading"), "not \"exe\" or \"community\""))?,
    };
    let mf = crate::rig::motion::read_file_as(&bytes, reading).map_err(|e| {
        extras_err(
            format!("{p}/data"),
            format!("not a motion file: {}", crate::chain(&e)),
        )
    })?;
    Ok((file, mf))
}

/// The animation name of each of a file's `count` motions (`animations` of the record `v` at
/// `p`).
fn animation_names(v: &Value, p: &str, count: usize) -> Result<Vec<String>, ImportError> {
    v.get("animations")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect()
        })
        .filter(|n: &Vec<String>| n.len() == count)
        .ok_or_else(|| {
            extras_err(
                format!("{p}/animations"),
                format!("missing, or not {count} names"),
            )
        })
}

/// The motions of a file (`count` of them) listed under `key` of the record `v` at `p` (none
/// when absent): `carried`, those the export carried without an animation; `unexported`, those
/// whose unchanged animation the Blender add-on left out of the glTF.
fn motion_indices(v: &Value, p: &str, key: &str, count: usize) -> Result<Vec<usize>, ImportError> {
    let Some(list) = v.get(key) else {
        return Ok(Vec::new());
    };
    list.as_array()
        .into_iter()
        .flatten()
        .map(|x| {
            x.as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .filter(|&i| i < count)
        })
        .collect::<Option<Vec<usize>>>()
        .filter(|_| list.is_array())
        .ok_or_else(|| {
            extras_err(
                format!("{p}/{key}"),
                format!("not a list of motion indices below {count}"),
            )
        })
}

/// One channel's sampler read: key times (seconds), its output accessor's values, and how many
/// elements each key has (3 for CUBICSPLINE: in-tangent, value, out-tangent).
pub(super) struct ChannelKeys {
    pub times: Vec<f64>,
    pub values: super::read::Elements,
    pub per: usize,
    pub interpolation: player::Interpolation,
}

impl ChannelKeys {
    /// The value these keys play at time `t` (seconds).
    pub(super) fn play(&self, t: f64, blend: Blend) -> Option<Vec<f64>> {
        Keys {
            times: &self.times,
            values: &self.values.data,
            width: self.values.comps,
            interpolation: self.interpolation,
        }
        .play(t, blend)
    }
}

/// The keys of channel `ch` of animation `a`; `bad` words a problem of the animation.
pub(super) fn channel_keys(
    doc: &Doc,
    a: &Value,
    ch: &anim::Channel<'_>,
    bad: impl Fn(AnimationProblem) -> ImportError,
) -> Result<ChannelKeys, ImportError> {
    let sampler = ch
        .sampler_in(a)
        .ok_or_else(|| bad(AnimationProblem::NoSampler))?;
    let acc =
        |k: &'static str, x: Option<usize>| x.ok_or_else(|| bad(AnimationProblem::NoAccessor(k)));
    let times = super::read::elements(doc, acc("input", sampler.input)?)?.data;
    let values = super::read::elements(doc, acc("output", sampler.output)?)?;
    let interpolation = player::Interpolation::parse(sampler.interpolation)
        .unwrap_or(player::Interpolation::Linear);
    let per = interpolation.per_key();
    if values.len() != times.len() * per {
        return Err(bad(AnimationProblem::Count {
            times: times.len(),
            values: values.len(),
        }));
    }
    Ok(ChannelKeys {
        times,
        values,
        per,
        interpolation,
    })
}

/// Keys as written with their times in frames.
fn in_frames<T>(keys: Vec<(f32, T)>) -> Vec<(f64, T)> {
    keys.into_iter()
        .map(|(t, v)| (f64::from(t) * FRAMES_PER_SECOND, v))
        .collect()
}

/// Samples as keyframes for the player: frames and flattened values.
pub(super) fn keys<const N: usize>(
    samples: impl Iterator<Item = (f64, [f64; N])>,
) -> (Vec<f64>, Vec<f64>) {
    let mut frames = Vec::new();
    let mut values = Vec::new();
    for (f, v) in samples {
        frames.push(f);
        values.extend_from_slice(&v);
    }
    (frames, values)
}

/// What a loader plays at frame `f` from keyframes `(frames, values)` of `N` components, LINEAR
/// (held before the first and after the last key); `fallback` without keys.
pub(super) fn played<const N: usize>(
    k: &(Vec<f64>, Vec<f64>),
    f: f64,
    blend: Blend,
    fallback: [f64; N],
) -> [f64; N] {
    let keys = Keys {
        times: &k.0,
        values: &k.1,
        width: N,
        interpolation: player::Interpolation::Linear,
    };
    keys.play(f, blend)
        .and_then(|v| <[f64; N]>::try_from(v).ok())
        .unwrap_or(fallback)
}

/// A curve rebuilt from samples: keys at the samples' whole frames, values from the samples
/// (linear between them), Hermite tangents from the neighbouring keys.
fn curve_from_samples(frames: &[f64], values: &[f64], interpolation: Interpolation) -> Curve {
    let mut pairs: Vec<(f64, f64)> = frames
        .iter()
        .zip(values)
        .filter(|(f, v)| f.is_finite() && v.is_finite())
        .map(|(f, v)| (*f, *v))
        .collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    pairs.dedup_by(|b, a| a.0 == b.0);
    let samples = Curve {
        keys: pairs
            .iter()
            .map(|&(frame, value)| Key {
                frame,
                value,
                tangent_in: 0.0,
                tangent_out: 0.0,
                interpolation: Interpolation::Linear,
            })
            .collect(),
    };
    let mut whole: Vec<f64> = pairs
        .iter()
        .map(|(f, _)| f.round().clamp(0.0, crate::rig::motion::MAX_FRAME))
        .collect();
    whole.dedup();
    let values: Vec<f64> = whole
        .iter()
        .map(|&f| samples.value(f).unwrap_or(0.0))
        .collect();
    let keys = (0..whole.len())
        .map(|k| {
            let slope = match interpolation {
                Interpolation::Linear => 0.0,
                Interpolation::Hermite => {
                    let a = k.saturating_sub(1);
                    let b = (k + 1).min(whole.len() - 1);
                    if b > a {
                        (values[b] - values[a]) / (whole[b] - whole[a])
                    } else {
                        0.0
                    }
                }
            };
            Key {
                frame: whole[k],
                value: values[k],
                tangent_in: slope,
                tangent_out: slope,
                interpolation,
            }
        })
        .collect();
    Curve { keys }
}

/// Replaces the curve of `channel` of `joint` with one rebuilt from samples (adding a track
/// when the channel had none).
fn replace(motion: &mut Motion, joint: usize, channel: Channel, frames: &[f64], values: &[f64]) {
    match motion
        .tracks
        .iter_mut()
        .find(|t| t.joint == joint && t.channel == channel)
    {
        Some(t) => t.curve = curve_from_samples(frames, values, t.rebuilt_interpolation()),
        None => motion.tracks.push(Track {
            joint,
            channel,
            curve: curve_from_samples(frames, values, Interpolation::Hermite),
            native: None,
        }),
    }
}

/// Compares one motion with its incoming animation and replaces the curves of edited channels;
/// returns the largest deviation taken as noise, as a fraction of its tolerance.
pub(super) fn compare(
    motion: &mut Motion,
    incoming: &BTreeMap<usize, Incoming>,
    rest: &[RestChannels],
    space: Space,
    tol: &Tolerance,
) -> Result<f64, ImportError> {
    let last = motion.last_frame();
    let mut found = Found::default();
    {
        let curves = motion.by_joint();
        for (&joint, inc) in incoming {
            let (Some(cs), Some(r)) = (curves.get(joint), rest.get(joint)) else {
                continue;
            };
            let judge = JointCurves {
                joint,
                cs,
                r,
                last,
                reading: motion.reading,
                space,
                tol,
            };
            if let Some(s) = &inc.translation {
                judge.linear(Property::Translation, 0, s, &mut found);
            }
            if let Some(s) = &inc.scale {
                judge.linear(Property::Scale, 6, s, &mut found);
            }
            if let Some((frames, qs)) = &inc.rotation {
                judge.rotation(frames, qs, &mut found);
            }
        }
    }
    for (joint, channel, frames, values) in found.edits {
        replace(motion, joint, channel, &frames, &values);
    }
    Ok(found.closest)
}

/// What comparing a motion with its animation finds.
#[derive(Default)]
struct Found {
    /// The largest deviation taken as noise, as a fraction of its tolerance.
    closest: f64,
    /// The edited channels: joint, channel, and the incoming frames and values.
    edits: Vec<(usize, Channel, Vec<f64>, Vec<f64>)>,
}

impl Found {
    /// Takes a deviation `off` within `allowed` as noise.
    fn noise(&mut self, off: f64, allowed: f64) {
        self.closest = self
            .closest
            .max(if allowed > 0.0 { off / allowed } else { 0.0 });
    }
}

/// One joint's curves `cs` as the export wrote them (rest values `r` where none), to judge
/// incoming samples against.
struct JointCurves<'a> {
    joint: usize,
    cs: &'a [Option<&'a Curve>; 9],
    r: &'a RestChannels,
    last: f64,
    /// The reading the export sampled the curves by.
    reading: Reading,
    space: Space,
    tol: &'a Tolerance,
}

impl JointCurves<'_> {
    /// The value channel `k` has at frame `f` (its rest value without a curve).
    fn channel_value(&self, k: usize, f: f64) -> f64 {
        self.cs[k].and_then(|c| c.value(f)).unwrap_or(self.r[k])
    }

    /// Judges the incoming samples of a translation or scale (channels `base..base + 3`)
    /// axis by axis against what a loader plays; an axis off by more than the tolerance at
    /// any sample is an edit.
    fn linear(
        &self,
        prop: Property,
        base: usize,
        samples: &(Vec<f64>, Vec<DVec3>),
        found: &mut Found,
    ) {
        let (cs, r, space, tol) = (self.cs, self.r, self.space, self.tol);
        let (frames, values) = samples;
        let rest3 = [r[base], r[base + 1], r[base + 2]];
        let written = keys(
            in_frames(property_keys(
                [cs[base], cs[base + 1], cs[base + 2]],
                rest3,
                self.last,
                prop,
                self.reading,
            ))
            .into_iter(),
        );
        for axis in 0..3 {
            let mut edited = false;
            let mut column = Vec::with_capacity(frames.len());
            for (f, v) in frames.iter().zip(values) {
                let want = played(&written, *f, Blend::Lerp, [0.0; 3])[axis];
                let got = v[axis];
                column.push(got);
                let (off, allowed) = match prop {
                    Property::Translation => (
                        ((got - want) * space.scale).abs(),
                        tol.translation_at(want * space.scale),
                    ),
                    // f32 noise grows with the value: relative beyond 1.
                    _ => ((got - want).abs(), tol.scale * want.abs().max(1.0)),
                };
                if off <= allowed {
                    found.noise(off, allowed);
                } else {
                    edited = true;
                }
            }
            if edited {
                let c = Channel::from_index(base + axis).unwrap_or(Channel {
                    property: prop,
                    axis: axis as u8,
                });
                found.edits.push((self.joint, c, frames.clone(), column));
            }
        }
    }

    /// Judges the incoming rotation samples `qs` at `frames` by their angle from the rotation
    /// a loader (Blender) plays: the normalised linear blend of the two samples around the
    /// frame. When one is off by more than the tolerance, the Euler angles are edits.
    fn rotation(&self, frames: &[f64], qs: &[DQuat], found: &mut Found) {
        let (cs, r) = (self.cs, self.r);
        let rest3 = [r[3], r[4], r[5]];
        let samples = keys(
            in_frames(rotation_keys(
                [cs[3], cs[4], cs[5]],
                rest3,
                self.last,
                self.reading,
            ))
            .into_iter()
            .map(|(f, q)| (f, q.to_array())),
        );
        let played_q =
            |f: f64| DQuat::from_array(played(&samples, f, Blend::Nlerp, [0.0, 0.0, 0.0, 1.0]));
        let rotation_rad = self.tol.rotation_rad;
        let mut moved = false;
        for (f, q) in frames.iter().zip(qs) {
            let want = played_q(*f);
            let angle = 2.0 * want.dot(*q).abs().min(1.0).acos();
            if angle <= rotation_rad {
                found.noise(angle, rotation_rad);
            } else {
                moved = true;
            }
        }
        if moved {
            self.euler_edits(frames, qs, played_q, found);
        }
    }

    /// The Euler angle columns of a rotation that moved: per axis, the incoming angles
    /// nearest to what was played (`played_q`); the axes off by more than the tolerance are
    /// edits (all three when none is on its own).
    fn euler_edits(
        &self,
        frames: &[f64],
        qs: &[DQuat],
        played_q: impl Fn(f64) -> DQuat,
        found: &mut Found,
    ) {
        let mut columns = [
            Vec::with_capacity(frames.len()),
            Vec::with_capacity(frames.len()),
            Vec::with_capacity(frames.len()),
        ];
        let mut edited = [false; 3];
        for (f, q) in frames.iter().zip(qs) {
            let reference = [3, 4, 5].map(|k| self.channel_value(k, *f));
            let want = euler_near(played_q(*f), reference);
            let got = euler_near(*q, want);
            for a in 0..3 {
                columns[a].push(got[a]);
                edited[a] |= (got[a] - want[a]).abs() > self.tol.rotation_rad;
            }
        }
        if !edited.iter().any(|&e| e) {
            // Moved, though no single angle by the tolerance: all three are redone.
            edited = [true; 3];
        }
        for (a, column) in columns.into_iter().enumerate() {
            if edited[a] {
                if let Some(c) = Channel::from_index(3 + a) {
                    found.edits.push((self.joint, c, frames.to_vec(), column));
                }
            }
        }
    }
}
