//! Motions as glTF animations, one per motion, on the joint nodes of the rig's skeleton.
//!
//! How each property is written, and why:
//! - translation and scale: CUBICSPLINE over the union of the three axes' key frames (plus 0
//!   and the last frame). Every piece between two such frames is one cubic (or straight) piece
//!   of each axis's curve, so the spline IS the native curve, linear and Hermite alike, with
//!   the tangents per frame turned into per second (×60) and the space conversion (×0.01 for
//!   DMC3) applied to values and tangents: any loader plays it exactly;
//! - rotation: three Euler curves composed X→Y→Z have no exact quaternion spline, so the
//!   rotation is sampled into LINEAR quaternions at every whole frame where a curve moves (and
//!   where it starts and stops moving): exact at every frame, and between frames off by the
//!   chord of one frame's turn only.
//!
//! What the import needs to rebuild the native motion files (their original bytes, and which
//! animation is which motion) rides in `scene.extras.rigtrip.motions`, since Blender drops
//! `animation.extras`.

use ::gltf_json as json;
use json::animation::{Interpolation as GltfInterpolation, Property};
use json::validation::Checked;
use json::{Index, Node};
use serde::Serialize;

use super::buffer::Builder;
use super::{ExportError, MotionInput};
use crate::rig::motion::{
    rest_channels, rotation_samples, spline, Curve, Motion, RestChannels, FRAMES_PER_SECOND,
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

/// `scene.extras.rigtrip.motions[i]`: one motion file.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct MotionFileTag {
    /// The file's name, as the import writes it back.
    pub file: String,
    /// Its original bytes, base64.
    pub data: String,
    /// Per motion of the file, in file order, its animation's name.
    pub animations: Vec<String>,
}

/// `name` without its last extension.
pub(crate) fn stem(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => name,
    }
}

/// Writes every motion of `motions` as an animation on skeleton 0's joint nodes (`joints`,
/// indexed by joint); returns what was written and the scene extras record.
pub(crate) fn write_motions(
    b: &mut Builder,
    rig: &Rig,
    joints: &[Index<Node>],
    motions: &[MotionInput],
    space: Space,
) -> Result<(Vec<AnimationInfo>, Vec<MotionFileTag>), ExportError> {
    use base64::Engine as _;
    let mut infos = Vec::new();
    let mut tags = Vec::new();
    if motions.is_empty() {
        return Ok((infos, tags));
    }
    let refuse = |name: &str, problem: String| ExportError::Motion {
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
        for (i, slotted) in input.file.motions.iter().enumerate() {
            let name = input.file.animation_name(stem, i);
            if !names.insert(name.clone()) {
                return Err(refuse(
                    &name,
                    "two motions would get this animation name (two files with the same name?)"
                        .into(),
                ));
            }
            animations.push(name.clone());
            let Some(m) = &slotted.motion else { continue };
            if with_joints != 1 || rig.skeletons.len() != 1 {
                return Err(refuse(
                    &name,
                    format!(
                        "motions need a model with one skeleton; this one has {}",
                        rig.skeletons.len()
                    ),
                ));
            }
            if m.joints != joints.len() {
                return Err(refuse(
                    &name,
                    format!(
                        "the motion animates {} nodes, the model has {}",
                        m.joints,
                        joints.len()
                    ),
                ));
            }
            let info = write_animation(b, &name, m, &rest, joints, space)
                .map_err(|problem| refuse(&name, problem))?;
            infos.push(AnimationInfo {
                file: input.file_name.clone(),
                slots: slotted.slots.clone(),
                ..info
            });
        }
        tags.push(MotionFileTag {
            file: input.file_name.clone(),
            data: base64::engine::general_purpose::STANDARD.encode(&input.bytes),
            animations,
        });
    }
    Ok((infos, tags))
}

/// `frame / 60` as the f32 written, and whether it is later than `prev`.
fn time_of(frame: f64, prev: Option<f32>) -> Option<f32> {
    let t = (frame / FRAMES_PER_SECOND) as f32;
    match prev {
        Some(p) if t <= p => None,
        _ => Some(t),
    }
}

/// One sampler and channel.
struct Sampled {
    times: Vec<[f32; 1]>,
    interpolation: GltfInterpolation,
    vec3: Vec<[f32; 3]>,
    vec4: Vec<[f32; 4]>,
    path: Property,
}

/// A translation or scale property as CUBICSPLINE (LINEAR when it has a single key time).
fn spline_channel(
    curves: [Option<&Curve>; 3],
    rest: [f64; 3],
    last: f64,
    convert: impl Fn([f64; 3]) -> [f64; 3],
    path: Property,
) -> Sampled {
    let s = spline(curves, rest, last);
    let mut times: Vec<[f32; 1]> = Vec::with_capacity(s.frames.len());
    let mut keep = Vec::with_capacity(s.frames.len());
    for (i, &f) in s.frames.iter().enumerate() {
        if let Some(t) = time_of(f, times.last().map(|t| t[0])) {
            times.push([t]);
            keep.push(i);
        }
    }
    let f32s = |v: [f64; 3]| v.map(|x| x as f32 + 0.0);
    let per_second = |v: [f64; 3]| convert(v.map(|x| x * FRAMES_PER_SECOND));
    let cubic = keep.len() >= 2;
    let mut vec3 = Vec::with_capacity(keep.len() * 3);
    for i in keep {
        let v = f32s(convert(s.values[i]));
        if cubic {
            vec3.push(f32s(per_second(s.slopes_in[i])));
            vec3.push(v);
            vec3.push(f32s(per_second(s.slopes_out[i])));
        } else {
            vec3.push(v);
        }
    }
    Sampled {
        times,
        interpolation: if cubic {
            GltfInterpolation::CubicSpline
        } else {
            GltfInterpolation::Linear
        },
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
) -> Result<AnimationInfo, String> {
    for t in &m.tracks {
        let problem = if !t.curve.is_ordered() {
            "its key frames go back in time, which a glTF animation cannot hold"
        } else if !t.curve.is_finite() {
            "a key's value or tangent is not a finite number"
        } else {
            continue;
        };
        return Err(format!(
            "joint {}, {}: {problem}",
            t.joint,
            t.channel.name()
        ));
    }
    let last = m.last_frame();
    let curves = m.by_joint();
    let mut sampled: Vec<(usize, Sampled)> = Vec::new();
    for (j, cs) in curves.iter().enumerate() {
        let r = rest
            .get(j)
            .copied()
            .unwrap_or([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
        let part = |k: usize| [cs[k], cs[k + 1], cs[k + 2]];
        let rest3 = |k: usize| [r[k], r[k + 1], r[k + 2]];
        if part(0).iter().any(Option::is_some) {
            let to_gltf = |v: [f64; 3]| space.point(glam::DVec3::from_array(v)).to_array();
            sampled.push((
                j,
                spline_channel(part(0), rest3(0), last, to_gltf, Property::Translation),
            ));
        }
        if part(3).iter().any(Option::is_some) {
            let samples = rotation_samples(part(3), rest3(3), last);
            let mut times: Vec<[f32; 1]> = Vec::with_capacity(samples.len());
            let mut vec4 = Vec::with_capacity(samples.len());
            for (f, q) in samples {
                let Some(t) = time_of(f, times.last().map(|t| t[0])) else {
                    continue;
                };
                let q = space.rotation(q).normalize();
                times.push([t]);
                vec4.push([q.x, q.y, q.z, q.w].map(|x| x as f32 + 0.0));
            }
            sampled.push((
                j,
                Sampled {
                    times,
                    interpolation: GltfInterpolation::Linear,
                    vec3: Vec::new(),
                    vec4,
                    path: Property::Rotation,
                },
            ));
        }
        if part(6).iter().any(Option::is_some) {
            sampled.push((
                j,
                spline_channel(part(6), rest3(6), last, |v| v, Property::Scale),
            ));
        }
    }
    for (j, s) in &sampled {
        let finite = s
            .vec3
            .iter()
            .flatten()
            .chain(s.vec4.iter().flatten())
            .all(|x| x.is_finite());
        if !finite {
            return Err(format!(
                "joint {j}: its {} values or tangents do not fit 32-bit floats",
                match s.path {
                    Property::Translation => "translation",
                    Property::Rotation => "rotation",
                    _ => "scale",
                }
            ));
        }
    }
    let mut channels = Vec::with_capacity(sampled.len());
    let mut samplers = Vec::with_capacity(sampled.len());
    for (j, s) in sampled {
        let node = *joints
            .get(j)
            .ok_or_else(|| format!("joint {j} has no node"))?;
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
            interpolation: Checked::Valid(s.interpolation),
            output,
        });
    }
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
