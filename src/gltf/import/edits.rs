//! Edits and noise: each skeleton rebuilt from its joint nodes. A joint's local transform is
//! read relative to its nearest joint ancestor; its format restores the original bits where
//! the incoming values are float noise (judged here, against what the export writes for them)
//! and takes the rest as edits. Joints are then numbered (originals by index, added ones after),
//! and what the new numbering would break is refused.

use std::collections::HashMap;

use glam::{DMat4, DQuat, DVec3};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::graph::{joint_native, Graph, Trs};
use super::joints::{Identities, JointKey, JointNode};
use super::matching::classify;
use super::num_hash::NumHash;
use super::read::Doc;
use super::scene::{extras_err, SceneExtras, SkelExtras};
use super::{ImportError, JointReport, Noise, Refusal, Refusals, SkeletonReport, Tolerance};
use crate::gltf::export::written_trs;
use crate::rig::format::{
    Deviation, IncomingJoint, JointProblem, Judge, Recorded, Restored, RigFormat, WrittenJoint,
};
use crate::rig::space::{Space, TransformProblem};
use crate::rig::{check_structure, Joint, Rig, Skeleton};

/// Everything the import decided, before lowering.
pub(crate) struct Built {
    /// The rebuilt rig.
    pub rig: Rig,
    /// Which node is which joint, and each written joint's identity.
    pub ids: Identities,
    /// Per skeleton, what happened to it (recomputed fields come after lowering).
    pub reports: Vec<SkeletonReport>,
    /// Per skeleton, per written joint: what lowering needs to say what it recomputed.
    pub written: Vec<Vec<WrittenJoint>>,
    /// The largest deviations taken as noise.
    pub noise: Noise,
    /// Notes for the report.
    pub notes: Vec<String>,
}

/// What one import reads from: the document, its scene extras, the tolerances.
struct Ctx<'a> {
    json: &'a Map<String, Value>,
    /// Node extras the parse kept as text (see [`Doc`]).
    node_extras: &'a [Option<&'a RawValue>],
    graph: &'a Graph,
    ex: &'a SceneExtras,
    tol: &'a Tolerance,
    /// The format the scene extras name.
    format: &'static dyn RigFormat,
    /// Which node is which joint.
    jn: &'a [Option<JointNode>],
}

/// What building gathers over all skeletons.
#[derive(Default)]
struct Gathered {
    refusals: Vec<Refusal>,
    noise: Noise,
    notes: Vec<String>,
    /// Notes the format asked for, each once, after the others.
    format_notes: Vec<&'static str>,
}

/// One joint on its way into the rebuilt skeleton.
#[derive(Debug, Clone)]
struct Entry {
    key: JointKey,
    node: usize,
    parent: Option<JointKey>,
    joint: Joint,
    report: JointReport,
    /// The translation was edited (beyond tolerance).
    moved: bool,
    /// What the node's extras recorded of the stored placement.
    recorded: Recorded,
}

/// A rebuilt skeleton and what goes with it.
struct Rebuilt {
    skeleton: Skeleton,
    keys: Vec<JointKey>,
    report: SkeletonReport,
    written: Vec<WrittenJoint>,
}

/// Rebuilds the rig; every refusal of every skeleton is collected before failing.
pub(crate) fn build(
    doc: &Doc,
    graph: &Graph,
    ex: &SceneExtras,
    tol: &Tolerance,
) -> Result<Built, ImportError> {
    let json = doc.json();
    let mut g = Gathered::default();
    let jn = classify(json, graph, ex, &mut g.refusals)?;
    let c = Ctx {
        json,
        node_extras: &doc.node_extras,
        graph,
        ex,
        tol,
        format: ex.format,
        jn: &jn,
    };
    let mut skeletons = Vec::with_capacity(ex.skeletons.len());
    let mut keys = Vec::with_capacity(ex.skeletons.len());
    let mut reports = Vec::with_capacity(ex.skeletons.len());
    let mut written = Vec::with_capacity(ex.skeletons.len());
    for (s, sx) in ex.skeletons.iter().enumerate() {
        if let Some(r) = rebuild_skeleton(&c, &mut g, s, sx)? {
            skeletons.push(r.skeleton);
            keys.push(r.keys);
            reports.push(r.report);
            written.push(r.written);
        }
    }
    if !g.refusals.is_empty() {
        return Err(ImportError::Refused(Refusals(g.refusals)));
    }
    g.notes.extend(g.format_notes.iter().map(|n| n.to_string()));
    Ok(Built {
        rig: Rig {
            source: ex.source.clone(),
            skeletons,
        },
        ids: Identities { nodes: jn, keys },
        reports,
        written,
        noise: g.noise,
        notes: g.notes,
    })
}

/// Skeleton `s` from its joint nodes; `None` when one of its joints was refused (the checks
/// of the numbering would take a refused joint for removed).
fn rebuild_skeleton(
    c: &Ctx<'_>,
    g: &mut Gathered,
    s: usize,
    sx: &SkelExtras,
) -> Result<Option<Rebuilt>, ImportError> {
    let members: Vec<(usize, &JointNode)> = c
        .graph
        .preorder
        .iter()
        .filter_map(|&i| Some((i, c.jn[i].as_ref().filter(|j| j.skeleton == s)?)))
        .collect();
    let mut recorded_depths = vec![None; sx.joints];
    for (_, j) in &members {
        if let (JointKey::Old(k), Some(d)) = (j.key, j.recorded.depth) {
            if let Some(slot) = recorded_depths.get_mut(k) {
                *slot = Some(d);
            }
        }
    }
    let original_parents = c
        .format
        .original_parents(&sx.native, sx.joints, &recorded_depths);
    let refused_before = g.refusals.len();
    let mut entries: Vec<Entry> = Vec::with_capacity(members.len());
    for (i, j) in members {
        if let Some(e) = rebuild_joint(c, g, (s, sx), (i, j), original_parents.as_deref())? {
            entries.push(e);
        }
    }
    if g.refusals.len() > refused_before {
        return Ok(None);
    }
    Ok(Some(number(c, g, (s, sx), entries)))
}

/// The nearest ancestor of node `i` that is a joint of skeleton `s`.
fn parent_joint(c: &Ctx<'_>, s: usize, i: usize) -> Option<usize> {
    let mut at = c.graph.parent[i];
    while let Some(a) = at {
        if c.jn[a].as_ref().is_some_and(|x| x.skeleton == s) {
            return Some(a);
        }
        at = c.graph.parent[a];
    }
    None
}

/// Joint node `i` as a joint: its transform (noise restored, edits taken), its payload, what
/// to report; `None` when it was refused (the refusal is in `g`).
fn rebuild_joint(
    c: &Ctx<'_>,
    g: &mut Gathered,
    (s, sx): (usize, &SkelExtras),
    (i, j): (usize, &JointNode),
    original_parents: Option<&[Option<usize>]>,
) -> Result<Option<Entry>, ImportError> {
    let graph = c.graph;
    let node = &graph.nodes[i];
    let at = JointAt {
        sx,
        i,
        node,
        ident: j.key.original(),
    };
    let parent_node = parent_joint(c, s, i);
    let parent = parent_node.and_then(|p| c.jn[p].as_ref().map(|x| x.key));
    let local = folded_local(c, g, i, parent_node);
    if !at.check_shape(c, g, &local) {
        return Ok(None);
    }
    let payload = joint_payload(c, &at, j)?;
    let mut judge = Incoming {
        space: c.ex.space,
        tol: c.tol,
        world_r: graph.world[i].w_axis.truncate().length(),
        t_in: local.t,
        q_in: local.r.normalize(),
        noise: &mut g.noise,
    };
    let incoming = IncomingJoint {
        payload: &payload,
        original: at.ident,
        root: parent.is_none(),
        recorded: j.recorded,
    };
    let mut restored = match c.format.restore(incoming, &mut judge) {
        Ok(r) => r,
        Err(JointProblem::Refused { field, problem }) => {
            at.refuse(&mut g.refusals, field, problem);
            return Ok(None);
        }
        Err(JointProblem::Broken(problem)) => {
            return Err(ImportError::Node {
                node: i,
                name: node.name.clone(),
                problem: problem.into(),
            })
        }
    };
    if let Some(n) = restored.note.filter(|n| !g.format_notes.contains(n)) {
        g.format_notes.push(n);
    }
    let was = at
        .ident
        .zip(original_parents)
        .map(|(k, orig)| orig.get(k).copied().flatten().map(JointKey::Old));
    let report = at.report(&mut restored, was, parent, graph);
    Ok(Some(Entry {
        key: j.key,
        node: i,
        parent,
        joint: Joint {
            name: node.name.clone(),
            parent: None,
            translation: restored.translation,
            rotation: restored.rotation,
            native: payload,
        },
        report,
        moved: restored.moved,
        recorded: j.recorded,
    }))
}

/// Joint node `i` being rebuilt into skeleton `sx`, for its refusals and report.
struct JointAt<'a> {
    sx: &'a SkelExtras,
    i: usize,
    node: &'a super::graph::Node,
    /// The original joint it is, if any.
    ident: Option<usize>,
}

impl JointAt<'_> {
    /// Refuses the joint's `field` for `problem`.
    fn refuse(&self, refusals: &mut Vec<Refusal>, field: &str, problem: String) {
        refusals.push(Refusal {
            skeleton: self.sx.name.clone(),
            joint: self.ident,
            name: self.node.name.clone(),
            node: Some(self.i),
            field: field.to_string(),
            problem,
        })
    }

    /// Whether `local` is a translation and a rotation, as native joints hold: a shear is
    /// refused (the checks go on), a scale is refused and ends them (`false`); scale noise
    /// within tolerance is recorded.
    fn check_shape(&self, c: &Ctx<'_>, g: &mut Gathered, local: &Trs) -> bool {
        if let Some(residue) = local.from_matrix {
            if residue > c.tol.scale {
                self.refuse(
                    &mut g.refusals,
                    "matrix",
                    format!(
                        "shears by {}; native joints hold a translation and a rotation only",
                        crate::units::value(residue)
                    ),
                );
            }
        }
        let scale_dev = max_abs(local.s - DVec3::ONE);
        if scale_dev > c.tol.scale {
            self.refuse(
                &mut g.refusals,
                "scale",
                format!(
                    "({}) is not 1 (tolerance {}); native joints carry no scale",
                    local.s.to_array().map(crate::units::value).join(", "),
                    crate::units::value(c.tol.scale)
                ),
            );
            return false;
        }
        note_noise(&mut g.noise, scale_dev, c.tol.scale, |n| &mut n.scale);
        true
    }

    /// What to report of the joint: added, or what the format restored and changed (moved,
    /// rotated, reparented from `was`, the original's parent, to `parent`). The changes,
    /// defaults and rounding are taken out of `restored`.
    fn report(
        &self,
        restored: &mut Restored,
        was: Option<Option<JointKey>>,
        parent: Option<JointKey>,
        graph: &Graph,
    ) -> JointReport {
        let mut report = JointReport {
            joint: 0,
            original: self.ident,
            name: self.node.name.clone(),
            node: self.i,
            changes: Vec::new(),
            recomputed: Vec::new(),
            defaults: Vec::new(),
            rounding: None,
        };
        if self.ident.is_none() {
            report.changes.push("added".into());
        }
        report.changes.append(&mut restored.changes);
        report.defaults = std::mem::take(&mut restored.defaults);
        report.rounding = restored.rounding.take();
        if self.ident.is_some() {
            if restored.moved {
                report.changes.push("moved".into());
            }
            if restored.rotated {
                report.changes.push("rotated".into());
            }
        }
        if let Some(was) = was.filter(|&was| was != parent) {
            report.changes.push(format!(
                "reparented (parent was {}, now {})",
                describe(was, graph),
                describe(parent, graph)
            ));
        }
        report
    }
}

/// The local transform of joint node `i` relative to its parent joint's node, the nodes in
/// between folded in (and said in a note).
fn folded_local(c: &Ctx<'_>, g: &mut Gathered, i: usize, parent_node: Option<usize>) -> Trs {
    let graph = c.graph;
    let node = &graph.nodes[i];
    let chain = graph.between(i, parent_node);
    if chain.iter().all(|&n| graph.nodes[n].local.is_identity()) {
        return node.local;
    }
    let m = chain
        .iter()
        .fold(DMat4::IDENTITY, |m, &n| m * graph.nodes[n].local.matrix())
        * node.local.matrix();
    if !chain.is_empty() {
        g.notes.push(format!(
            "joint node {i} ({}): the transforms of nodes {chain:?} above it were folded into its local transform",
            node.name
        ));
    }
    Trs::from_mat(m)
}

/// The joint's native payload: read from its node's extras (typed with the tag, else from the
/// JSON value) for an original joint, the format's default for a new one.
fn joint_payload(
    c: &Ctx<'_>,
    at: &JointAt<'_>,
    j: &JointNode,
) -> Result<crate::rig::JointPayload, ImportError> {
    let (i, node) = (at.i, at.node);
    let pointer = || format!("/nodes/{i}/extras/rigtrip/native");
    let raw = c.node_extras.get(i).copied().flatten();
    // The payload read typed with the tag; the `Value` reader for anything else.
    let typed = node.payload.clone().filter(|_| j.native);
    let native = match typed {
        Some(_) => None,
        None => j.native.then(|| joint_native(c.json, raw, i)).flatten(),
    };
    Ok(match (j.key, typed, native) {
        (JointKey::Old(_), Some(p), _) => p,
        (JointKey::Old(_), None, Some(v)) => c.format.joint_from_json(&v, &pointer())?,
        (JointKey::Old(k), None, None) => {
            return Err(extras_err(
                pointer(),
                if j.by_name {
                    format!("missing: node {i} ({}) was matched to joint {k} of {} by its name, but it has no rigtrip custom properties, so its native fields are unknown; export with custom properties", node.name, at.sx.name)
                } else {
                    format!("missing: joint {k} of {} has no native payload", at.sx.name)
                },
            ))
        }
        (JointKey::New(_), _, _) => c.format.new_joint(),
    })
}

/// Numbers the joints (originals by index, added ones after in scene order, then in the order
/// the format stores them), sets their parents, and refuses what the numbering would break.
fn number(
    c: &Ctx<'_>,
    g: &mut Gathered,
    (s, sx): (usize, &SkelExtras),
    mut entries: Vec<Entry>,
) -> Rebuilt {
    entries.sort_by_key(|e| match e.key {
        JointKey::Old(k) => (0, k),
        JointKey::New(_) => (1, 0),
    });
    let removed = removed_joints(&entries, sx.joints);
    let mut rewritten = Vec::new();
    let (mut entries, index) = storage_order(c, entries, &mut rewritten);
    let map: Vec<Option<usize>> = (0..sx.joints)
        .map(|k| index.get(&JointKey::Old(k)).copied())
        .collect();
    let renumbered = map
        .iter()
        .enumerate()
        .any(|(k, m)| *m != Some(k) && m.is_some());
    for (x, e) in entries.iter_mut().enumerate() {
        e.report.joint = x;
        e.joint.parent = e.parent.and_then(|p| index.get(&p).copied());
        if let Some(k) = e.key.original().filter(|&k| k != x) {
            e.report.changes.push(format!("renumbered ({k} -> {x})"));
        }
    }
    if let Some(conflict) = c.format.renumbering_conflict(
        &c.ex.source,
        &sx.native,
        &map,
        entries.len(),
        !removed.is_empty(),
    ) {
        let (name, node) = entries
            .iter()
            .find(|e| e.key == JointKey::Old(conflict.joint))
            .map(|e| (e.joint.name.clone(), Some(e.node)))
            .unwrap_or_default();
        g.refusals.push(Refusal {
            skeleton: sx.name.clone(),
            joint: Some(conflict.joint),
            name,
            node,
            field: conflict.field.into(),
            problem: conflict.problem,
        });
    }
    if renumbered && !removed.is_empty() {
        rewritten.push("joints after a removed one renumbered".into());
    }
    rebuilt(s, sx, entries, removed, rewritten)
}

/// The original joints (of `joints`) no entry is.
fn removed_joints(entries: &[Entry], joints: usize) -> Vec<usize> {
    let mut present = vec![false; joints];
    for e in entries {
        if let Some(p) = e.key.original().and_then(|k| present.get_mut(k)) {
            *p = true;
        }
    }
    (0..joints).filter(|&k| !present[k]).collect()
}

/// The entries in the order the format stores them (with the note saying why, in
/// `rewritten`, when that is not their order) and each one's position by its key.
fn storage_order(
    c: &Ctx<'_>,
    mut entries: Vec<Entry>,
    rewritten: &mut Vec<String>,
) -> (Vec<Entry>, HashMap<JointKey, usize, NumHash>) {
    let mut index = key_index(&entries);
    let parents: Vec<Option<usize>> = entries
        .iter()
        .map(|e| e.parent.and_then(|p| index.get(&p).copied()))
        .collect();
    if let Some((order, why)) = c.format.storage_order(&parents) {
        let mut slots: Vec<Option<Entry>> = entries.into_iter().map(Some).collect();
        entries = order
            .iter()
            .filter_map(|&x| slots.get_mut(x).and_then(Option::take))
            .collect();
        rewritten.push(why.into());
        index = key_index(&entries);
    }
    (entries, index)
}

/// Skeleton `s` rebuilt from its numbered `entries`, with its report.
fn rebuilt(
    s: usize,
    sx: &SkelExtras,
    entries: Vec<Entry>,
    removed: Vec<usize>,
    rewritten: Vec<String>,
) -> Rebuilt {
    // The entries taken apart, not cloned: a joint's payload is most of what it holds.
    let n = entries.len();
    let (mut joints, mut keys) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut written, mut reports) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for e in entries {
        written.push(WrittenJoint {
            original: e.key.original(),
            moved: e.moved,
            recorded: e.recorded,
        });
        keys.push(e.key);
        reports.push(e.report);
        joints.push(e.joint);
    }
    let report = SkeletonReport {
        index: s,
        name: sx.name.clone(),
        joints_before: sx.joints,
        joints_after: joints.len(),
        unchanged: 0,
        joints: reports,
        removed,
        rewritten,
    };
    Rebuilt {
        skeleton: Skeleton {
            name: sx.name.clone(),
            gate: check_structure(&joints),
            joints,
            native: sx.native.clone(),
        },
        keys,
        report,
        written,
    }
}

/// Each entry's position by its key.
fn key_index(entries: &[Entry]) -> HashMap<JointKey, usize, NumHash> {
    let mut index = HashMap::with_capacity_and_hasher(entries.len(), NumHash::default());
    index.extend(entries.iter().enumerate().map(|(x, e)| (e.key, x)));
    index
}

fn describe(k: Option<JointKey>, graph: &Graph) -> String {
    match k {
        None => "none".into(),
        Some(JointKey::Old(k)) => format!("joint {k}"),
        Some(JointKey::New(n)) => format!(
            "new joint {}",
            graph.nodes.get(n).map(|x| x.name.as_str()).unwrap_or("")
        ),
    }
}

/// An incoming joint's transform, judged against what the export writes (glTF space, f32).
struct Incoming<'a> {
    space: Space,
    tol: &'a Tolerance,
    /// The joint's distance from the origin, metres (the translation tolerance grows with it).
    world_r: f64,
    /// Local translation, glTF space.
    t_in: DVec3,
    /// Local rotation, glTF space, normalised.
    q_in: DQuat,
    noise: &'a mut Noise,
}

impl Judge for Incoming<'_> {
    fn translation_m(&self) -> DVec3 {
        self.t_in
    }

    fn translation(&self) -> DVec3 {
        self.space.invert_point(self.t_in)
    }

    fn rotation(&self) -> DQuat {
        self.space.invert_rotation(self.q_in)
    }

    fn translation_off(&self, t: DVec3) -> Result<Deviation, TransformProblem> {
        let w = written_trs(self.space, t, DQuat::IDENTITY)?;
        Ok(Deviation {
            value: max_abs(self.t_in - f32x3(w.translation)),
            tolerance: self.tol.translation_at(self.world_r),
        })
    }

    fn rotation_off(&self, q: DQuat) -> Result<Deviation, TransformProblem> {
        let w = written_trs(self.space, DVec3::ZERO, q)?;
        Ok(Deviation {
            value: angle_between(quat32(w.rotation), self.q_in),
            tolerance: self.tol.rotation_rad,
        })
    }

    fn translation_noise(&mut self, d: Deviation) {
        note_noise(self.noise, d.value, d.tolerance, |n| &mut n.translation_m);
    }

    fn rotation_noise(&mut self, d: Deviation) {
        note_noise(self.noise, d.value, d.tolerance, |n| &mut n.rotation_rad);
    }
}

/// Records a deviation accepted as noise: its size in the slot `slot` picks, and its fraction
/// of the tolerance.
fn note_noise(noise: &mut Noise, deviation: f64, tolerance: f64, slot: fn(&mut Noise) -> &mut f64) {
    let s = slot(noise);
    *s = s.max(deviation);
    if tolerance > 0.0 {
        noise.closest = noise.closest.max(deviation / tolerance);
    }
}

/// The quaternion angle between two rotations, robust near zero.
fn angle_between(a: DQuat, b: DQuat) -> f64 {
    let r = a.normalize().inverse() * b.normalize();
    let v = DVec3::new(r.x, r.y, r.z).length();
    2.0 * v.atan2(r.w.abs())
}

fn max_abs(v: DVec3) -> f64 {
    v.abs().max_element()
}

fn f32x3(a: [f32; 3]) -> DVec3 {
    DVec3::new(a[0].into(), a[1].into(), a[2].into())
}

fn quat32(a: [f32; 4]) -> DQuat {
    DQuat::from_xyzw(a[0].into(), a[1].into(), a[2].into(), a[3].into())
}
