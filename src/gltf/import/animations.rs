//! The motions of an imported glTF: its animations read per joint ([`incoming_animations`]),
//! compared with the motion files the scene extras record ([`super::motions`]), and those that
//! came from none written as new motions ([`super::new_motions`]).

use std::collections::BTreeMap;

use glam::{DMat4, DQuat, DVec3};
use serde_json::Value;

use super::graph::{Graph, Tag};
use super::motions::*;
use super::read::Doc;
use super::scene::extras_err;
use super::{AnimationProblem, ImportError, Tolerance};
use crate::gltf::read::anim;
use crate::gltf::Space;
use crate::rig::motion::{RestChannels, FRAMES_PER_SECOND};

/// Rebuilds every motion file the scene extras `r` (at `ptr`) record, and writes each
/// animation that came from none as a new motion (see [`super::new_motions`]; `into`: the
/// archive for new motions that name none). Animations not written are named with the reason.
#[allow(clippy::too_many_arguments)]
pub(crate) fn import(
    doc: &Doc,
    graph: &Graph,
    r: &Value,
    ptr: &str,
    space: Space,
    rest: &[RestChannels],
    tol: &Tolerance,
    into: Option<&str>,
) -> Result<Rebuilt, ImportError> {
    let list = match r.get("motions") {
        None => &[][..],
        Some(list) => list
            .as_array()
            .ok_or_else(|| extras_err(format!("{ptr}/motions"), "not an array"))?,
    };
    let (animations, seen) = incoming_animations(doc, graph, space)?;
    let cx = MotionCx {
        animations: &animations,
        rest,
        space,
        tol,
    };
    let mut files = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        files.push(cx.compare_file(v, &format!("{ptr}/motions/{i}"))?);
    }
    let not_written = super::new_motions::place(&cx, &seen, &mut files, into)?;
    let files = files
        .into_iter()
        .map(Compared::write)
        .collect::<Result<_, _>>()?;
    Ok((files, not_written))
}

/// Every incoming animation by name (the first of a name), per joint of skeleton 0 its samples
/// in native space; and every animation of the glTF as met.
fn incoming_animations<'a>(
    doc: &'a Doc,
    graph: &Graph,
    space: Space,
) -> Result<(Animations<'a>, Vec<Seen<'a>>), ImportError> {
    let mut out = BTreeMap::new();
    let mut seen = Vec::new();
    let Some(list) = doc.json().get("animations").and_then(Value::as_array) else {
        return Ok((out, seen));
    };
    let joint_of = joint_folds(graph);
    for (ai, a) in list.iter().enumerate() {
        let name = a.get("name").and_then(Value::as_str);
        let mut s = Seen::of(ai, name, &out);
        if let (Some(name), false) = (name, s.duplicate) {
            let reader = AnimationReader {
                doc,
                space,
                joint_of: &joint_of,
                ai,
                name,
            };
            let joints = reader.joints(a)?;
            s.joints = joints.len();
            out.insert(name, joints);
        }
        seen.push(s);
    }
    Ok((out, seen))
}

/// The joint of each joint node of skeleton 0, and the static transform between it and its
/// joint parent (Blender's armature object above the roots), folded into the incoming local
/// values.
fn joint_folds(graph: &Graph) -> BTreeMap<usize, (usize, DMat4)> {
    let mut joint_of: BTreeMap<usize, (usize, DMat4)> = BTreeMap::new();
    for (n, node) in graph.nodes.iter().enumerate() {
        if let Tag::Joint {
            skeleton: 0, joint, ..
        } = node.tag
        {
            let chain = graph.between(n, None);
            let top = chain.iter().rposition(|&a| {
                matches!(
                    graph.nodes.get(a).map(|x| &x.tag),
                    Some(Tag::Joint { skeleton: 0, .. })
                )
            });
            let mut fold = DMat4::IDENTITY;
            for &a in chain.iter().skip(top.map_or(0, |t| t + 1)) {
                if let Some(x) = graph.nodes.get(a) {
                    fold *= x.local.matrix();
                }
            }
            joint_of.insert(n, (joint, fold));
        }
    }
    joint_of
}

/// Reading animation `ai` (named `name`): the document, the space, and the joint and fold of
/// each joint node (see [`joint_folds`]).
struct AnimationReader<'r> {
    doc: &'r Doc<'r>,
    space: Space,
    joint_of: &'r BTreeMap<usize, (usize, DMat4)>,
    ai: usize,
    name: &'r str,
}

impl AnimationReader<'_> {
    /// The animation's error for `problem`.
    fn bad(&self, problem: AnimationProblem) -> ImportError {
        ImportError::Animation {
            animation: self.ai,
            name: self.name.to_string(),
            problem,
        }
    }

    /// The samples of animation `a` per joint, from its channels that target joint nodes.
    fn joints(&self, a: &Value) -> Result<BTreeMap<usize, Incoming>, ImportError> {
        let mut joints: BTreeMap<usize, Incoming> = BTreeMap::new();
        for ch in anim::channels(a) {
            self.channel(a, ch, &mut joints)?;
        }
        Ok(joints)
    }

    /// Reads channel `ch` of animation `a` into its joint's samples, when it targets a joint
    /// node: its sampler's key values (the middle of each CUBICSPLINE triple) at their frames.
    fn channel(
        &self,
        a: &Value,
        ch: anim::Channel<'_>,
        joints: &mut BTreeMap<usize, Incoming>,
    ) -> Result<(), ImportError> {
        let Some(node) = ch.node else {
            return Ok(());
        };
        let Some(&(joint, fold)) = self.joint_of.get(&node) else {
            return Ok(());
        };
        let path = ch.path;
        let ChannelKeys {
            times, values, per, ..
        } = channel_keys(self.doc, a, &ch, |p| self.bad(p))?;
        let frames: Vec<f64> = times.iter().map(|t| t * FRAMES_PER_SECOND).collect();
        // The key values (the middle of each CUBICSPLINE triple).
        let value = |i: usize| values.get(i * per + per / 2);
        let entry = joints.entry(joint).or_default();
        let (_, r_fold, _) = fold.to_scale_rotation_translation();
        let space = self.space;
        match (path, values.comps) {
            (Some("translation"), 3) => {
                let v = (0..frames.len())
                    .map(|i| {
                        let t = DVec3::from_slice(value(i));
                        space.invert_point(fold.transform_point3(t))
                    })
                    .collect();
                entry.translation = Some((frames, v));
            }
            (Some("rotation"), 4) => {
                let v = (0..frames.len())
                    .map(|i| {
                        let q = DQuat::from_slice(value(i)).normalize();
                        space.invert_rotation(r_fold * q)
                    })
                    .collect();
                entry.rotation = Some((frames, v));
            }
            (Some("scale"), 3) => {
                let v = (0..frames.len())
                    .map(|i| DVec3::from_slice(value(i)))
                    .collect();
                entry.scale = Some((frames, v));
            }
            _ => {}
        }
        Ok(())
    }
}
