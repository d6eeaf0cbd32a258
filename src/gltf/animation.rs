//! Motions as glTF animations, one per motion, on the joint nodes of the rig's skeleton.
//!
//! How each property is written, and why: every property (translation, rotation, scale) is
//! sampled at every whole frame where one of its curves moves (and at the frames where they
//! start and stop moving, so still stretches cost two keys), as LINEAR keys: exact at every
//! frame for any loader, and between frames off by the chord of one frame's motion only.
//! - Rotations have no exact spline form at all: three Euler curves composed X→Y→Z are not a
//!   quaternion spline, so they are sampled (quaternions, signs kept continuous).
//! - Translation and scale could be written exactly as CUBICSPLINE over the union of the three
//!   axes' key frames (a Hermite or linear piece is one cubic), and a spec-conforming loader
//!   plays that exactly; but Blender 4.5 does not: measured on the humanoid sample, its
//!   re-export (24 samples per second) of such a spline missed the curve by up to 0.98 m on a
//!   linear root-motion track and by 0.011 on a Hermite scale track, which would make every
//!   unedited translation and scale track look edited after a Blender round trip. LINEAR
//!   samples come back from Blender as what they are, so the import recognises them within
//!   float noise.
//!
//! Values are sampled as the game takes them (rotations through its 16-bit angles, scales near
//! 1 not applied; [`crate::rig::motion::play`]): the animation shows the pose the game shows.
//! That costs no key: every frame where a rotation moves is a key already.
//!
//! What the import needs to rebuild the native motion files (their original bytes, which
//! animation is which motion, and the reading of the format the animations were sampled by)
//! rides in `scene.extras.rigtrip.motions`, since Blender drops `animation.extras`.

use ::gltf_json as json;
use json::animation::{Interpolation as GltfInterpolation, Property};
use json::validation::Checked;
use json::{Index, Node};
use serde::Serialize;

use super::buffer::Builder;
use super::{ExportError, MotionInput, MotionProblem};
use crate::rig::motion::fit::JointMisfit;
use crate::rig::motion::{
    property_samples, rest_channels, rotation_samples, Curve, Motion, Property as Prop, Reading,
    RestChannels, FRAMES_PER_SECOND,
};
use crate::rig::space::Space;
use crate::rig::Rig;

/// One animation as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnimationInfo {
    /// Its name.
    pub name: String,
    /// The motion file it came from.
    pub file: String,
    /// Its archive slots (empty for a lone motion file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slots: Vec<usize>,
    /// Native tracks it holds.
    pub tracks: usize,
    /// glTF channels written.
    pub channels: usize,
    /// The last frame shown.
    pub last_frame: f64,
}

/// A motion that cannot go on the model (another node count, curves a glTF animation cannot
/// hold): it has no animation, and its file rides in the scene extras as it is, so that the
/// import writes it back byte for byte.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CarriedMotion {
    /// The animation name it would have had.
    pub name: String,
    /// The motion file it is in.
    pub file: String,
    /// Its archive slots (empty for a lone motion file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slots: Vec<usize>,
    /// Why it cannot go on the model.
    pub reason: String,
}

/// A motion written as an animation whose translations show it was made for another skeleton
/// ([`crate::rig::motion::fit`]): a warning, joint by joint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MotionMisfit {
    /// Its animation's name.
    pub name: String,
    /// The motion file it is in.
    pub file: String,
    /// Its archive slots (empty for a lone motion file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slots: Vec<usize>,
    /// The joints that do not fit, in joint order.
    pub joints: Vec<JointMisfitInfo>,
}

/// One joint of a [`MotionMisfit`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JointMisfitInfo {
    /// The joint's name in the model.
    pub name: String,
    /// What was compared.
    #[serde(flatten)]
    pub misfit: JointMisfit,
}

/// `scene.extras.rigtrip.motions[i]`: one motion file.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct MotionFileTag {
    /// The file's name, as the import writes it back.
    pub file: String,
    /// Its original bytes, base64.
    pub data: String,
    /// Per motion of the file, in file order, its animation's name.
    pub animations: Vec<String>,
    /// The reading of the format its animations were sampled by (a record without one was
    /// written before rigtrip followed the executable: the old reading).
    pub reading: &'static str,
    /// The motions (indices in file order) that have no animation because they cannot go on
    /// the model: the import keeps them as they are.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub carried: Vec<usize>,
}

/// What [`write_motions`] wrote and found.
#[derive(Debug, Default)]
pub(crate) struct WrittenMotions {
    /// One entry per animation written.
    pub animations: Vec<AnimationInfo>,
    /// Motions carried without an animation.
    pub carried: Vec<CarriedMotion>,
    /// Animations whose translations do not fit the model's skeleton.
    pub misfits: Vec<MotionMisfit>,
    /// The scene extras records, one per file.
    pub tags: Vec<MotionFileTag>,
}

/// `name` without its last extension.
pub(crate) fn stem(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => name,
    }
}

/// Writes every motion of `motions` that can go on skeleton 0 (`joints`: its joint nodes, by
/// joint) as an animation; the others are carried as they are. Refused as a whole only when
/// the model cannot take motions (not exactly one skeleton) or two motions would share a name.
pub(crate) fn write_motions(
    b: &mut Builder,
    rig: &Rig,
    joints: &[Index<Node>],
    motions: &[MotionInput],
    space: Space,
) -> Result<WrittenMotions, ExportError> {
    let mut out = WrittenMotions::default();
    if motions.is_empty() {
        return Ok(out);
    }
    let refuse = |name: &str, problem: MotionProblem| ExportError::Motion {
        name: name.to_string(),
        problem,
    };
    let with_joints = rig
        .skeletons
        .iter()
        .filter(|s| !s.joints.is_empty())
        .count();
    let rest = rest_channels(rig, 0);
    let mut names = std::collections::BTreeSet::new();
    for input in motions {
        let stem = stem(&input.file_name);
        let mut animations = Vec::with_capacity(input.file.motions.len());
        let mut carried = Vec::new();
        for (i, slotted) in input.file.motions.iter().enumerate() {
            let name = input.file.animation_name(stem, i);
            if !names.insert(name.clone()) {
                return Err(refuse(&name, MotionProblem::SharedName));
            }
            animations.push(name.clone());
            let Some(m) = &slotted.motion else { continue };
            let (Some(skeleton), 1, 1) = (rig.skeletons.first(), with_joints, rig.skeletons.len())
            else {
                return Err(refuse(&name, MotionProblem::Skeletons(rig.skeletons.len())));
            };
            let written = if m.joints != joints.len() {
                Err(MotionProblem::NodeCount {
                    motion: m.joints,
                    model: joints.len(),
                })
            } else {
                write_animation(b, &name, m, &rest, joints, space)
            };
            let info = match written {
                Ok(info) => info,
                Err(reason) => {
                    carried.push(i);
                    out.carried.push(CarriedMotion {
                        name,
                        file: input.file_name.clone(),
                        slots: slotted.slots.clone(),
                        reason: reason.to_string(),
                    });
                    continue;
                }
            };
            let joints = joint_misfits(m, skeleton, &rest, space);
            if !joints.is_empty() {
                out.misfits.push(MotionMisfit {
                    name: name.clone(),
                    file: input.file_name.clone(),
                    slots: slotted.slots.clone(),
                    joints,
                });
            }
            out.animations.push(AnimationInfo {
                file: input.file_name.clone(),
                slots: slotted.slots.clone(),
                ..info
            });
        }
        out.tags.push(MotionFileTag {
            file: input.file_name.clone(),
            data: crate::bytes::b64::encode(&input.bytes),
            animations,
            reading: reading_of(&input.file).name(),
            carried,
        });
    }
    Ok(out)
}

/// The reading a motion file's motions were lifted by (the executable's for a file of none).
fn reading_of(file: &crate::rig::motion::MotionFile) -> Reading {
    file.motions
        .iter()
        .find_map(|s| s.motion.as_ref().map(|m| m.reading))
        .unwrap_or_default()
}

/// The joints of `skeleton` (rest channels `rest`) that `m` shows to belong to another
/// skeleton, with their names.
fn joint_misfits(
    m: &Motion,
    skeleton: &crate::rig::Skeleton,
    rest: &[RestChannels],
    space: Space,
) -> Vec<JointMisfitInfo> {
    // The space's rotation is its own inverse: glTF's up (+Y) in native space.
    let up = space.direction(glam::DVec3::Y);
    crate::rig::motion::fit::misfits(m, skeleton, rest, up)
        .into_iter()
        .map(|misfit| JointMisfitInfo {
            name: skeleton
                .joints
                .get(misfit.joint)
                .map(|j| j.name.clone())
                .unwrap_or_default(),
            misfit,
        })
        .collect()
}

/// Samples at their times as written (`frame / 60` in f32), those that would not come later
/// than the previous one dropped: exactly the keys an animation holds (the import compares
/// against these).
fn as_written<T>(samples: Vec<(f64, T)>) -> Vec<(f32, T)> {
    let mut out: Vec<(f32, T)> = Vec::with_capacity(samples.len());
    for (f, v) in samples {
        let t = (f / FRAMES_PER_SECOND) as f32;
        if out.last().is_none_or(|(p, _)| t > *p) {
            out.push((t, v));
        }
    }
    out
}

/// A translation or scale property's keys as written: (time in seconds, native values).
pub(crate) fn property_keys(
    curves: [Option<&Curve>; 3],
    rest: [f64; 3],
    last: f64,
    property: Prop,
    reading: Reading,
) -> Vec<(f32, [f64; 3])> {
    as_written(property_samples(curves, rest, last, property, reading))
}

/// A rotation's keys as written: (time in seconds, native rotation).
pub(crate) fn rotation_keys(
    curves: [Option<&Curve>; 3],
    rest: [f64; 3],
    last: f64,
    reading: Reading,
) -> Vec<(f32, glam::DQuat)> {
    as_written(rotation_samples(curves, rest, last, reading))
}

/// The most keys one motion's animation may hold (about 40 MB of samples): a 24-node motion
/// moving every channel of every node for 9 minutes at 60 frames per second.
pub(crate) const MAX_KEYS: usize = 1 << 21;

/// One sampler and channel.
struct Sampled {
    times: Vec<[f32; 1]>,
    vec3: Vec<[f32; 3]>,
    vec4: Vec<[f32; 4]>,
    path: Property,
}

/// A translation or scale property sampled into LINEAR keys (values converted by `convert`).
fn linear_channel(
    curves: [Option<&Curve>; 3],
    rest: [f64; 3],
    last: f64,
    reading: Reading,
    convert: impl Fn([f64; 3]) -> [f64; 3],
    path: Property,
) -> Sampled {
    let property = if path == Property::Scale {
        Prop::Scale
    } else {
        Prop::Translation
    };
    let keys = property_keys(curves, rest, last, property, reading);
    let mut times: Vec<[f32; 1]> = Vec::with_capacity(keys.len());
    let mut vec3 = Vec::with_capacity(keys.len());
    for (t, v) in keys {
        times.push([t]);
        vec3.push(convert(v).map(|x| x as f32 + 0.0));
    }
    Sampled {
        times,
        vec3,
        vec4: Vec::new(),
        path,
    }
}

/// Writes one motion; `name`, tracks, channels and last frame filled in.
fn write_animation(
    b: &mut Builder,
    name: &str,
    m: &Motion,
    rest: &[RestChannels],
    joints: &[Index<Node>],
    space: Space,
) -> Result<AnimationInfo, MotionProblem> {
    check_tracks(m)?;
    let last = m.last_frame();
    let curves = m.by_joint();
    let mut sampled: Vec<(usize, Sampled)> = Vec::new();
    for (j, cs) in curves.iter().enumerate() {
        let r = rest
            .get(j)
            .copied()
            .unwrap_or([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
        sampled.extend(sample_joint(cs, r, last, m.reading, space).map(|s| (j, s)));
        // A few keys spread over 32,767 frames on every joint would ask for hundreds of MB.
        let keys: usize = sampled.iter().map(|(_, s)| s.times.len()).sum();
        if keys > MAX_KEYS {
            return Err(MotionProblem::TooManyKeys);
        }
    }
    check_samples(&sampled)?;
    let (channels, samplers) = write_channels(b, sampled, joints)?;
    let written = channels.len();
    if written > 0 {
        b.root.push(json::Animation {
            extensions: None,
            extras: None,
            channels,
            name: Some(name.to_string()),
            samplers,
        });
    }
    Ok(AnimationInfo {
        name: name.to_string(),
        file: String::new(),
        slots: Vec::new(),
        tracks: m.tracks.len(),
        channels: written,
        last_frame: last,
    })
}

/// Refuses a track whose keys go back in time or are not finite.
fn check_tracks(m: &Motion) -> Result<(), MotionProblem> {
    for t in &m.tracks {
        let (joint, channel) = (t.joint, t.channel);
        if !t.curve.is_ordered() {
            return Err(MotionProblem::Unordered { joint, channel });
        }
        if !t.curve.is_finite() {
            return Err(MotionProblem::NotFinite { joint, channel });
        }
    }
    Ok(())
}

/// One joint's sampled channels: translation, rotation and scale, each only when one of its
/// curves `cs` is animated (`r` holds the rest values of the others).
fn sample_joint(
    cs: &[Option<&Curve>; 9],
    r: RestChannels,
    last: f64,
    reading: Reading,
    space: Space,
) -> impl Iterator<Item = Sampled> {
    let part = |k: usize| [cs[k], cs[k + 1], cs[k + 2]];
    let rest3 = |k: usize| [r[k], r[k + 1], r[k + 2]];
    let moves = |k: usize| part(k).iter().any(Option::is_some);
    let to_gltf = |v: [f64; 3]| space.point(glam::DVec3::from_array(v)).to_array();
    let (t, s) = (Property::Translation, Property::Scale);
    let translation =
        moves(0).then(|| linear_channel(part(0), rest3(0), last, reading, to_gltf, t));
    let rotation = moves(3).then(|| rotation_channel(part(3), rest3(3), last, reading, space));
    let scale = moves(6).then(|| linear_channel(part(6), rest3(6), last, reading, |v| v, s));
    [translation, rotation, scale].into_iter().flatten()
}

/// A rotation property sampled into LINEAR keys (glTF-space unit quaternions).
fn rotation_channel(
    curves: [Option<&Curve>; 3],
    rest: [f64; 3],
    last: f64,
    reading: Reading,
    space: Space,
) -> Sampled {
    let keys = rotation_keys(curves, rest, last, reading);
    let mut times: Vec<[f32; 1]> = Vec::with_capacity(keys.len());
    let mut vec4 = Vec::with_capacity(keys.len());
    for (t, q) in keys {
        let q = space.rotation(q).normalize();
        times.push([t]);
        vec4.push([q.x, q.y, q.z, q.w].map(|x| x as f32 + 0.0));
    }
    Sampled {
        times,
        vec3: Vec::new(),
        vec4,
        path: Property::Rotation,
    }
}

/// Refuses sampled values that do not fit 32-bit floats.
fn check_samples(sampled: &[(usize, Sampled)]) -> Result<(), MotionProblem> {
    for (j, s) in sampled {
        let finite = s
            .vec3
            .iter()
            .flatten()
            .chain(s.vec4.iter().flatten())
            .all(|x| x.is_finite());
        if !finite {
            return Err(MotionProblem::Samples {
                joint: *j,
                property: match s.path {
                    Property::Translation => "translation",
                    Property::Rotation => "rotation",
                    _ => "scale",
                },
            });
        }
    }
    Ok(())
}

/// Writes every sampled channel's keys; returns the channels (targeting the joints' nodes)
/// and their samplers.
fn write_channels(
    b: &mut Builder,
    sampled: Vec<(usize, Sampled)>,
    joints: &[Index<Node>],
) -> Result<(Vec<json::animation::Channel>, Vec<json::animation::Sampler>), MotionProblem> {
    let mut channels = Vec::with_capacity(sampled.len());
    let mut samplers = Vec::with_capacity(sampled.len());
    for (j, s) in sampled {
        let node = *joints.get(j).ok_or(MotionProblem::NoNode(j))?;
        let input = b.floats(&s.times, None, true, "");
        let output = if s.vec4.is_empty() {
            b.floats(&s.vec3, None, false, "")
        } else {
            b.floats(&s.vec4, None, false, "")
        };
        channels.push(json::animation::Channel {
            sampler: Index::new(samplers.len() as u32),
            target: json::animation::Target {
                extensions: None,
                extras: None,
                node,
                path: Checked::Valid(s.path),
            },
            extensions: None,
            extras: None,
        });
        samplers.push(json::animation::Sampler {
            extensions: None,
            extras: None,
            input,
            interpolation: Checked::Valid(GltfInterpolation::Linear),
            output,
        });
    }
    Ok((channels, samplers))
}
