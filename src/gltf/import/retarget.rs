//! Animations of another rig put on the template's skeleton (`import --onto` with motions): each
//! glTF animation is played on the glTF's own node tree at every whole frame (60 per second),
//! and each template joint a source joint maps to is turned so that its bones point where the
//! source's do:
//!
//! - the source joint's turn from its rest pose, in world space: `D_j(f) = W_j(f) · W_j⁻¹`;
//! - the template joint's world rotation `D_j(f) · R_j⁻¹ · T_k`, with `R_j` the re-posing's
//!   rotation from the source's rest bones to the template's ([`super::repose`]) and `T_k` the
//!   template's rest; at the source's rest pose the template's bones take the source's rest
//!   directions, so a T-pose clip plays as a T-pose on an A-pose template;
//! - the local rotation is that under the template parent's animated world rotation;
//! - the topmost mapped joint (the hips) moves too: its rest position plus the source's
//!   displacement from rest, scaled by the ratio of the two hips' heights;
//! - a template joint mapped to nothing keeps its rest local transform.
//!
//! Source joints' scale channels are played (they move children) but not carried over.

use std::collections::{BTreeMap, HashMap};

use glam::{DMat4, DQuat, DVec3};
use serde_json::Value;

use super::graph::Graph;
use super::joints::{Identities, JointKey};
use super::motions::{channel_keys, Animations, ChannelKeys, Incoming, Seen};
use super::read::Doc;
use super::repose::Pose;
use super::ImportError;
use crate::gltf::read::anim;
use crate::gltf::read::player::Blend;
use crate::gltf::Space;
use crate::rig::motion::{FRAMES_PER_SECOND, MAX_FRAME};
use crate::rig::{topological_order, Joint};

/// The two skeletons and how one drives the other.
pub(super) struct Retarget<'a> {
    graph: &'a Graph,
    pose: &'a Pose,
    space: Space,
    /// Template skeleton 0: per joint its parent, rest world rotation and position, rest local
    /// rotation and translation (glTF space).
    parents: Vec<Option<usize>>,
    rest_world: Vec<(DQuat, DVec3)>,
    rest_local: Vec<(DQuat, DVec3)>,
    /// Template joints, parents before children.
    order: Vec<usize>,
    /// Per template joint, the source node that turns it (the first mapped to it).
    source: Vec<Option<usize>>,
    /// The template joint that moves, its source node, and the hips' height ratio.
    mover: Option<(usize, usize, f64)>,
    /// Per source node, its rest world rotation.
    source_rest: Vec<DQuat>,
}

/// What [`Retarget::animations`] gives: the animations on the template's joints, every
/// animation as met, and what the report says.
pub(super) type Retargeted<'d> = (Animations<'d>, Vec<Seen<'d>>, Vec<String>);

impl<'a> Retarget<'a> {
    /// The retargeting of `graph`'s joints (matched to the template's by `ids`, re-posed by
    /// `pose`) onto the template's skeleton 0 (`joints`; `rest`: their world matrices in glTF
    /// space, none when the skeleton fails its gate: then no joint is driven).
    pub fn new(
        graph: &'a Graph,
        ids: &Identities,
        pose: &'a Pose,
        rest: &[DMat4],
        joints: &[Joint],
        space: Space,
    ) -> Retarget<'a> {
        let (rest, order) = match topological_order(joints) {
            Ok(order) if rest.len() == joints.len() => (rest, order),
            _ => (&[][..], Vec::new()),
        };
        let parents: Vec<Option<usize>> = joints.iter().map(|j| j.parent).collect();
        let rot_pos = |m: &DMat4| {
            let (_, r, t) = m.to_scale_rotation_translation();
            (r.normalize(), t)
        };
        let rest_world: Vec<(DQuat, DVec3)> = rest.iter().map(rot_pos).collect();
        let rest_local = (0..rest.len())
            .map(|k| match parents[k].and_then(|p| rest_world.get(p)) {
                Some(&(qp, pp)) => {
                    let (q, p) = rest_world[k];
                    (qp.inverse() * q, qp.inverse() * (p - pp))
                }
                None => rest_world[k],
            })
            .collect();
        let mut source = vec![None; rest.len()];
        for &n in &graph.preorder {
            let Some(j) = ids.nodes.get(n).and_then(Option::as_ref) else {
                continue;
            };
            if let (0, JointKey::Old(k)) = (j.skeleton, j.key) {
                if let Some(s @ None) = source.get_mut(k) {
                    *s = Some(n);
                }
            }
        }
        let source_rest = graph.world.iter().map(|m| rot_pos(m).0).collect();
        let mover = graph.preorder.iter().find_map(|&n| {
            let k = source.iter().position(|&s| s == Some(n))?;
            let (h_t, h_s) = (rest_world[k].1.y, graph.world[n].w_axis.y);
            let ratio = if h_t > 1e-6 && h_s > 1e-6 {
                h_t / h_s
            } else {
                1.0
            };
            Some((k, n, ratio))
        });
        Retarget {
            graph,
            pose,
            space,
            order,
            parents,
            rest_world,
            rest_local,
            source,
            mover,
            source_rest,
        }
    }

    /// Every animation of `doc` on the template's joints (native space, per joint of
    /// skeleton 0), each as met under its name in `names` (see [`names`]), and the report's
    /// notes (`joints`: the template joints' names).
    pub fn animations<'d>(
        &self,
        doc: &Doc,
        names: &'d [String],
        joints: &[String],
    ) -> Result<Retargeted<'d>, ImportError> {
        let mut out = Animations::new();
        let mut seen = Vec::new();
        let list = doc.json().get("animations").and_then(Value::as_array);
        for (ai, a) in list.into_iter().flatten().enumerate() {
            let name = names.get(ai).map(String::as_str);
            let mut s = Seen::of(ai, name, &out);
            if let (Some(name), false) = (name, s.duplicate) {
                let tracks = node_tracks(doc, ai, name, a)?;
                if !tracks.is_empty() {
                    let joints = self.play(&tracks);
                    s.joints = joints.len();
                    out.insert(name, joints);
                }
            }
            seen.push(s);
        }
        Ok((out, seen, self.notes(joints)))
    }

    /// What the report says of the retargeting (`names`: the template joints' names).
    fn notes(&self, names: &[String]) -> Vec<String> {
        let name = |k: usize| names.get(k).cloned().unwrap_or_else(|| k.to_string());
        let mut notes = Vec::new();
        if let Some((k, n, ratio)) = self.mover {
            notes.push(format!(
                "animations: the mapped joints turn so that their bones point where the glTF's \
                 do; {} moves with {} (its displacement taken {ratio:.3}x, the hips' heights' \
                 ratio)",
                name(k),
                self.graph.display_name(n)
            ));
        }
        let rest: Vec<String> = (0..self.source.len())
            .filter(|&k| self.source[k].is_none())
            .map(name)
            .collect();
        if !rest.is_empty() && self.mover.is_some() {
            notes.push(format!(
                "animations: {} template joint(s) mapped to nothing stay at rest: {}",
                rest.len(),
                rest.join(", ")
            ));
        }
        notes
    }

    /// The samples of one animation (`tracks`) on the template's joints, at every whole frame
    /// to its last key.
    fn play(&self, tracks: &NodeTracks) -> BTreeMap<usize, Incoming> {
        let end = tracks
            .values()
            .flatten()
            .flatten()
            .filter_map(|t| t.times.last())
            .fold(0.0f64, |a, &t| a.max(t * FRAMES_PER_SECOND));
        // One frame past what a motion holds, so that the encoder refuses it by name.
        let end = end.ceil().clamp(0.0, MAX_FRAME + 1.0) as u32;
        let frames: Vec<f64> = (0..=end).map(f64::from).collect();
        let mut out: BTreeMap<usize, Incoming> = BTreeMap::new();
        for &f in &frames {
            let locals = self.template_at(&self.source_at(tracks, f / FRAMES_PER_SECOND));
            for (k, &(q, t)) in locals.iter().enumerate() {
                if self.source[k].is_none() {
                    continue;
                }
                let inc = out.entry(k).or_default();
                let r = inc.rotation.get_or_insert_with(Default::default);
                r.0.push(f);
                r.1.push(self.space.invert_rotation(q));
                if self.mover.is_some_and(|m| m.0 == k) {
                    let tr = inc.translation.get_or_insert_with(Default::default);
                    tr.0.push(f);
                    tr.1.push(self.space.invert_point(t));
                }
            }
        }
        out
    }

    /// The glTF's node world matrices at time `t` (seconds) of an animation.
    fn source_at(&self, tracks: &NodeTracks, t: f64) -> Vec<DMat4> {
        let g = self.graph;
        let mut world = g.world.clone();
        for &i in &g.preorder {
            let mut trs = g.nodes[i].local;
            if let Some([tt, tr, ts]) = tracks.get(&i) {
                let at = |k: &Option<ChannelKeys>, blend| k.as_ref().and_then(|k| k.play(t, blend));
                if let Some(v) = at(tt, Blend::Lerp).filter(|v| v.len() == 3) {
                    trs.t = DVec3::from_slice(&v);
                }
                if let Some(v) = at(tr, Blend::Slerp).filter(|v| v.len() == 4) {
                    trs.r = DQuat::from_slice(&v).normalize();
                }
                if let Some(v) = at(ts, Blend::Lerp).filter(|v| v.len() == 3) {
                    trs.s = DVec3::from_slice(&v);
                }
                trs.from_matrix = None;
            }
            let local = trs.matrix();
            world[i] = match g.parent[i] {
                Some(p) => world[p] * local,
                None => local,
            };
        }
        world
    }

    /// The template joints' local rotations and translations (glTF space) for the glTF's node
    /// world matrices `src` (see the module doc).
    fn template_at(&self, src: &[DMat4]) -> Vec<(DQuat, DVec3)> {
        let n = self.rest_world.len();
        let mut world = vec![(DQuat::IDENTITY, DVec3::ZERO); n];
        let mut local = self.rest_local.clone();
        for &k in &self.order {
            let (qp, pp) = self.parents[k]
                .and_then(|p| world.get(p).copied())
                .unwrap_or((DQuat::IDENTITY, DVec3::ZERO));
            let (lq, lt) = self.rest_local[k];
            let q = match self.source[k] {
                Some(j) => {
                    let (_, w, _) = src[j].to_scale_rotation_translation();
                    let d = w.normalize() * self.source_rest[j].inverse();
                    let r = self.pose.r.get(&j).copied().unwrap_or(DQuat::IDENTITY);
                    (d * r.inverse() * self.rest_world[k].0).normalize()
                }
                None => qp * lq,
            };
            let p = match self.mover {
                Some((m, j, ratio)) if m == k => {
                    let moved = src[j].w_axis.truncate() - self.graph.world[j].w_axis.truncate();
                    self.rest_world[k].1 + moved * ratio
                }
                _ => pp + qp * lt,
            };
            world[k] = (q, p);
            local[k] = (qp.inverse() * q, qp.inverse() * (p - pp));
        }
        local
    }
}

/// Each animation's name, `animation_N` (its index) for one without: a clip from elsewhere
/// often has none, and a new motion is written under its name.
pub(super) fn names(doc: &Doc) -> Vec<String> {
    let list = doc.json().get("animations").and_then(Value::as_array);
    list.into_iter()
        .flatten()
        .enumerate()
        .map(|(i, a)| match a.get("name").and_then(Value::as_str) {
            Some(n) => n.to_string(),
            None => format!("animation_{i}"),
        })
        .collect()
}

/// Per animated node, its translation, rotation and scale channels' keys.
type NodeTracks = HashMap<usize, [Option<ChannelKeys>; 3]>;

/// The keys of animation `a` (index `ai`, named `name`) per node it animates.
fn node_tracks(doc: &Doc, ai: usize, name: &str, a: &Value) -> Result<NodeTracks, ImportError> {
    let bad = |problem| ImportError::Animation {
        animation: ai,
        name: name.to_string(),
        problem,
    };
    let mut out = NodeTracks::new();
    for ch in anim::channels(a) {
        let (Some(node), Some(path)) = (ch.node, ch.path) else {
            continue;
        };
        let slot = match path {
            "translation" => 0,
            "rotation" => 1,
            "scale" => 2,
            _ => continue,
        };
        let keys = channel_keys(doc, a, &ch, bad)?;
        out.entry(node).or_default()[slot] = Some(keys);
    }
    Ok(out)
}
