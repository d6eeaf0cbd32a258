//! Rebuilding the rig from the glTF: scene extras, joint matching, noise versus edits, added
//! and removed joints, then lowering and the report.

use std::borrow::Cow;
use std::collections::HashMap;

use glam::{DQuat, DVec3};
use serde_json::Value;

use super::graph::{int_of, joint_native, rigtrip_extras, short, Graph, Tag, Trs};
use super::mesh;
use super::read::Doc;
use super::{
    ImportError, ImportOptions, ImportReport, Imported, JointReport, MeshStatus, Noise, Refusal,
    Refusals, SkeletonReport, Tolerance,
};
use crate::gltf::export::written_trs;
use crate::gltf::space::{Space, SpaceRotation};
use crate::gltf::ExportOptions;
use crate::native::dmc3::joint_indices;
use crate::native::NativeFile;
use crate::rig::extras::{self, ExtrasError, Family};
use crate::rig::{
    check_structure, dmc3, hie, Joint, JointPayload, Rig, Skeleton, SkeletonPayload, Source,
};

/// The extras layout version this import reads.
const SCHEMA: usize = 1;
/// HIE offsets that lose more than this (native units) to integer rounding are reported.
const ROUNDING_REPORTED: f64 = 1e-3;
/// The largest HIE offset (native units) a glTF 32-bit float translation still carries to the
/// exact integer with room for noise: its rounding error is at most |v|·2⁻²⁴ = 0.25 units here.
/// The extras do not hold HIE offsets, so beyond it the original integer is not recoverable.
const HIE_EXACT_UNITS: f64 = 4_194_304.0;

/// A joint's identity within its skeleton: an original native index, or a node that is new.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum JointKey {
    /// Original joint `k`.
    Old(usize),
    /// A joint added in the glTF: its node index.
    New(usize),
}

/// The file-level data from `scene.extras.rigtrip`.
#[derive(Debug, Clone)]
pub(crate) struct SceneExtras {
    /// Native format name.
    pub format: String,
    /// Payload family.
    pub family: Family,
    /// The space conversion to invert.
    pub space: Space,
    /// The file-level remainder.
    pub source: Source,
    /// Skeletons in native order.
    pub skeletons: Vec<SkelExtras>,
}

/// One skeleton's entry in the scene extras.
#[derive(Debug, Clone)]
pub(crate) struct SkelExtras {
    /// Name.
    pub name: String,
    /// Joint count in the original file.
    pub joints: usize,
    /// Native payload.
    pub native: SkeletonPayload,
}

fn extras_err(pointer: String, problem: impl Into<String>) -> ImportError {
    ImportError::Extras(ExtrasError {
        pointer,
        problem: problem.into(),
    })
}

/// The scene carrying rigtrip data (the document's default scene first) and that data.
fn find_scene(json: &Value) -> Result<(usize, &Value, Cow<'_, Value>), ImportError> {
    let scenes: &[Value] = json
        .get("scenes")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let first = json
        .get("scene")
        .and_then(Value::as_u64)
        .and_then(|s| usize::try_from(s).ok())
        .filter(|&s| s < scenes.len());
    let order = first
        .into_iter()
        .chain((0..scenes.len()).filter(|&s| Some(s) != first));
    for s in order {
        if let Some(r) = rigtrip_extras(&scenes[s]) {
            return Ok((s, &scenes[s], r));
        }
    }
    let nodes_have = json
        .get("nodes")
        .and_then(Value::as_array)
        .is_some_and(|n| n.iter().any(|n| rigtrip_extras(n).is_some()));
    Err(if nodes_have {
        ImportError::NoSceneExtras
    } else {
        ImportError::NoExtras
    })
}

impl SceneExtras {
    fn read(index: usize, r: &Value) -> Result<SceneExtras, ImportError> {
        let ptr = format!("/scenes/{index}/extras/rigtrip");
        let Value::Object(m) = r else {
            return Err(extras_err(
                ptr,
                format!("expected an object, found {}", short(r)),
            ));
        };
        match m.get("schema").and_then(int_of) {
            Some(SCHEMA) => {}
            _ => {
                return Err(ImportError::Schema {
                    found: m
                        .get("schema")
                        .map(short)
                        .unwrap_or_else(|| "missing".into()),
                })
            }
        }
        let format = m
            .get("format")
            .and_then(Value::as_str)
            .ok_or_else(|| extras_err(format!("{ptr}/format"), "missing or not a string"))?;
        let family = Family::of(format).ok_or_else(|| {
            extras_err(
                format!("{ptr}/format"),
                format!("unknown format {format:?} (expected hie, mod, scm or block)"),
            )
        })?;
        let space_v = m
            .get("space")
            .ok_or_else(|| extras_err(format!("{ptr}/space"), "missing"))?;
        let scale = space_v
            .get("scale")
            .and_then(Value::as_f64)
            .filter(|s| s.is_finite() && *s > 0.0)
            .ok_or_else(|| {
                extras_err(
                    format!("{ptr}/space/scale"),
                    "missing or not a number greater than zero",
                )
            })?;
        let rotation = match space_v.get("rotation").and_then(Value::as_str) {
            Some("none") => SpaceRotation::None,
            Some("x180") => SpaceRotation::X180,
            other => {
                return Err(extras_err(
                    format!("{ptr}/space/rotation"),
                    format!("{other:?} is not \"none\" or \"x180\""),
                ))
            }
        };
        let expected = match family {
            Family::Hie => SpaceRotation::X180,
            Family::Dmc3 => SpaceRotation::None,
        };
        if rotation != expected {
            return Err(extras_err(
                format!("{ptr}/space/rotation"),
                format!(
                    "{} for a {format} file, which rigtrip always exports with {}",
                    rotation.name(),
                    expected.name()
                ),
            ));
        }
        let source = extras::source_from_json(
            family,
            m.get("source").unwrap_or(&Value::Null),
            &format!("{ptr}/source"),
        )?;
        let kind = Rig {
            source: source.clone(),
            skeletons: Vec::new(),
        }
        .kind();
        if kind != format {
            return Err(extras_err(
                format!("{ptr}/format"),
                format!("says {format}, but the source describes a {kind} file"),
            ));
        }
        let list = m
            .get("skeletons")
            .and_then(Value::as_array)
            .ok_or_else(|| extras_err(format!("{ptr}/skeletons"), "missing or not an array"))?;
        let mut skeletons = Vec::with_capacity(list.len());
        for (s, v) in list.iter().enumerate() {
            let p = format!("{ptr}/skeletons/{s}");
            let name = v
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| extras_err(format!("{p}/name"), "missing or not a string"))?
                .to_string();
            // Bounded by the format, so that no count in the extras sizes an allocation.
            let most = match family {
                Family::Hie => crate::native::hie::MAX_PARTS,
                Family::Dmc3 => 256,
            };
            let joints = v
                .get("joints")
                .and_then(int_of)
                .filter(|&j| j <= most)
                .ok_or_else(|| {
                    extras_err(
                        format!("{p}/joints"),
                        format!("missing or not a joint count of at most {most}"),
                    )
                })?;
            let native = extras::skeleton_from_json(
                family,
                v.get("native").unwrap_or(&Value::Null),
                &format!("{p}/native"),
            )?;
            skeletons.push(SkelExtras {
                name,
                joints,
                native,
            });
        }
        Ok(SceneExtras {
            format: format.to_string(),
            family,
            space: Space { scale, rotation },
            source,
            skeletons,
        })
    }
}

/// A node that is a joint: which skeleton, which identity, its payload as found.
#[derive(Debug, Clone)]
pub(crate) struct JointNode {
    /// Skeleton index.
    pub skeleton: usize,
    /// Identity.
    pub key: JointKey,
    /// Whether the node's extras carry `native` (read in [`build`]).
    native: bool,
    by_name: bool,
    /// HIE stored offset and depth, when the export recorded them.
    offset: Option<[i32; 3]>,
    depth: Option<u16>,
}

/// `<skeleton name>_<k>` for an existing joint `k`: the IR's default joint name.
fn name_identity(name: &str, skeletons: &[SkelExtras]) -> Option<(usize, usize)> {
    skeletons.iter().enumerate().find_map(|(s, sk)| {
        let rest = name.strip_prefix(sk.name.as_str())?.strip_prefix('_')?;
        if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let k = rest.parse::<usize>().ok().filter(|&k| k < sk.joints)?;
        Some((s, k))
    })
}

/// Which scene nodes are joints, and of what.
fn classify(
    json: &Value,
    graph: &Graph,
    ex: &SceneExtras,
    refusals: &mut Vec<Refusal>,
) -> Result<Vec<Option<JointNode>>, ImportError> {
    let n = graph.nodes.len();
    let mut jn: Vec<Option<JointNode>> = vec![None; n];
    let mut claimed: HashMap<(usize, usize), usize> = HashMap::new();
    for &i in &graph.preorder {
        let node = &graph.nodes[i];
        let Tag::Joint {
            skeleton,
            joint,
            native,
            offset,
            depth,
        } = &node.tag
        else {
            continue;
        };
        let bad = |problem: String| ImportError::Node {
            node: i,
            name: node.name.clone(),
            problem,
        };
        let sk = ex.skeletons.get(*skeleton).ok_or_else(|| {
            bad(format!(
                "extras.rigtrip.skeleton is {skeleton}, but the file has {} skeletons",
                ex.skeletons.len()
            ))
        })?;
        if *joint >= sk.joints {
            return Err(bad(format!(
                "extras.rigtrip.joint is {joint}, but skeleton {} has {} joints",
                sk.name, sk.joints
            )));
        }
        if let Some(prev) = claimed.insert((*skeleton, *joint), i) {
            return Err(bad(format!(
                "claims skeleton {} joint {joint}, and so does node {prev} ({}); a duplicated bone keeps its custom properties: delete the `rigtrip` property of the copy to make it a new joint",
                sk.name, graph.nodes[prev].name
            )));
        }
        jn[i] = Some(JointNode {
            skeleton: *skeleton,
            key: JointKey::Old(*joint),
            native: *native,
            by_name: false,
            offset: *offset,
            depth: *depth,
        });
    }
    let plain = |i: usize| {
        let node = &graph.nodes[i];
        node.tag == Tag::None && node.mesh.is_none() && !node.other
    };
    for &i in &graph.preorder {
        if jn[i].is_some() || !plain(i) {
            continue;
        }
        if let Some((s, k)) = name_identity(&graph.nodes[i].name, &ex.skeletons) {
            if let std::collections::hash_map::Entry::Vacant(e) = claimed.entry((s, k)) {
                e.insert(i);
                jn[i] = Some(JointNode {
                    skeleton: s,
                    key: JointKey::Old(k),
                    native: false,
                    by_name: true,
                    offset: None,
                    depth: None,
                });
            }
        }
    }
    // Skin membership, and the skeleton most of each skin's identified joints belong to.
    let mut skin_of: Vec<Option<usize>> = vec![None; n];
    let skins: &[Value] = json
        .get("skins")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for (k, skin) in skins.iter().enumerate() {
        if let Some(list) = skin.get("joints").and_then(Value::as_array) {
            for j in list.iter().filter_map(|v| v.as_u64()) {
                if let Some(slot) = usize::try_from(j).ok().and_then(|j| skin_of.get_mut(j)) {
                    slot.get_or_insert(k);
                }
            }
        }
    }
    fn skin_skeleton(
        k: usize,
        skin_of: &[Option<usize>],
        jn: &[Option<JointNode>],
    ) -> Option<usize> {
        let mut count: HashMap<usize, usize> = HashMap::new();
        for (s, j) in skin_of.iter().zip(jn) {
            if *s == Some(k) {
                if let Some(j) = j {
                    *count.entry(j.skeleton).or_default() += 1;
                }
            }
        }
        count
            .into_iter()
            .max_by_key(|&(s, c)| (c, usize::MAX - s))
            .map(|(s, _)| s)
    }
    for &i in &graph.preorder {
        if jn[i].is_some() || !plain(i) {
            continue;
        }
        let mut at = graph.parent[i];
        let mut above = None;
        while let Some(a) = at {
            if let Some(j) = &jn[a] {
                above = Some(j.skeleton);
                break;
            }
            at = graph.parent[a];
        }
        match (above, skin_of[i]) {
            (Some(s), _) => {
                jn[i] = Some(JointNode {
                    skeleton: s,
                    key: JointKey::New(i),
                    native: false,
                    by_name: false,
                    offset: None,
                    depth: None,
                })
            }
            (None, Some(k)) => refusals.push(Refusal {
                skeleton: skin_skeleton(k, &skin_of, &jn)
                    .and_then(|s| ex.skeletons.get(s))
                    .map(|s| s.name.clone())
                    .unwrap_or_else(|| format!("of skin {k}")),
                joint: None,
                name: graph.nodes[i].name.clone(),
                node: Some(i),
                field: "parent".into(),
                problem: "a new joint (a skin joint without rigtrip identity) needs a joint above it; new root joints are not supported".into(),
            }),
            (None, None) => {}
        }
    }
    Ok(jn)
}

/// The quaternion angle between two rotations, robust near zero.
fn angle_between(a: DQuat, b: DQuat) -> f64 {
    let r = a.normalize().inverse() * b.normalize();
    let v = DVec3::new(r.x, r.y, r.z).length();
    2.0 * v.atan2(r.w.abs())
}

/// Records a deviation accepted as noise: its size and its fraction of the tolerance.
fn note_noise(slot: &mut f64, closest: &mut f64, deviation: f64, tolerance: f64) {
    *slot = slot.max(deviation);
    if tolerance > 0.0 {
        *closest = closest.max(deviation / tolerance);
    }
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
    /// HIE: the stored depth the export recorded.
    depth: Option<u16>,
}

/// Everything the import decided, before lowering.
pub(crate) struct Built {
    /// The rebuilt rig.
    pub rig: Rig,
    /// Per skeleton: the identity of each written joint.
    pub keys: Vec<Vec<JointKey>>,
    /// Which node is which joint.
    pub joint_nodes: Vec<Option<JointNode>>,
    reports: Vec<SkeletonReport>,
    /// Per skeleton, per written joint: moved, and (HIE) the recorded stored depth.
    edits: Vec<Vec<(bool, Option<u16>)>>,
    noise: Noise,
    notes: Vec<String>,
    /// Some HIE joint had no recorded stored offset.
    hie_without_baseline: bool,
}

fn dmc3_payload(p: &JointPayload) -> Option<&dmc3::Dmc3Joint> {
    match p {
        JointPayload::Dmc3(d) => Some(d),
        JointPayload::Hie(_) => None,
    }
}

/// Rebuilds the rig.
fn build(
    json: &Value,
    graph: &Graph,
    ex: &SceneExtras,
    tol: &Tolerance,
) -> Result<Built, ImportError> {
    let mut refusals = Vec::new();
    let jn = classify(json, graph, ex, &mut refusals)?;
    let space = ex.space;
    let mut noise = Noise::default();
    let mut notes = Vec::new();
    let mut hie_without_baseline = false;
    let mut skeletons = Vec::with_capacity(ex.skeletons.len());
    let mut keys_all = Vec::with_capacity(ex.skeletons.len());
    let mut reports = Vec::with_capacity(ex.skeletons.len());
    let mut edits_all = Vec::with_capacity(ex.skeletons.len());

    for (s, sx) in ex.skeletons.iter().enumerate() {
        let members: Vec<usize> = graph
            .preorder
            .iter()
            .copied()
            .filter(|&i| jn[i].as_ref().is_some_and(|j| j.skeleton == s))
            .collect();
        let refuse = |refusals: &mut Vec<Refusal>,
                      joint: Option<usize>,
                      node: usize,
                      field: &str,
                      problem: String| {
            refusals.push(Refusal {
                skeleton: sx.name.clone(),
                joint,
                name: graph.nodes[node].name.clone(),
                node: Some(node),
                field: field.to_string(),
                problem,
            })
        };
        // Original parents: DMC3 keeps them in the skeleton payload; HIE only in the parts'
        // depths, known when the export recorded every part's depth.
        let original_parents: Option<Vec<Option<usize>>> = match &sx.native {
            SkeletonPayload::Dmc3(p) => Some(dmc3::node_parents(&p.parents, &p.order, sx.joints)),
            SkeletonPayload::Hie(_) => {
                let mut depths = vec![None; sx.joints];
                for j in members.iter().filter_map(|&i| jn[i].as_ref()) {
                    if let (JointKey::Old(k), Some(d)) = (j.key, j.depth) {
                        if let Some(slot) = depths.get_mut(k) {
                            *slot = Some(d);
                        }
                    }
                }
                depths
                    .into_iter()
                    .collect::<Option<Vec<u16>>>()
                    .and_then(|d| hie::parents_from_depths(&d).ok())
            }
        };
        let refused_before = refusals.len();
        let mut entries: Vec<Entry> = Vec::with_capacity(members.len());
        for &i in &members {
            let Some(j) = &jn[i] else { continue };
            let node = &graph.nodes[i];
            let ident = match j.key {
                JointKey::Old(k) => Some(k),
                JointKey::New(_) => None,
            };
            // The nearest ancestor that is a joint of this skeleton.
            let mut at = graph.parent[i];
            let mut parent_node = None;
            while let Some(a) = at {
                if jn[a].as_ref().is_some_and(|x| x.skeleton == s) {
                    parent_node = Some(a);
                    break;
                }
                at = graph.parent[a];
            }
            let parent = parent_node.and_then(|p| jn[p].as_ref().map(|x| x.key));
            // The local transform relative to the parent joint, nodes in between folded in.
            let chain = graph.between(i, parent_node);
            let local = if chain.iter().all(|&c| graph.nodes[c].local.is_identity()) {
                node.local
            } else {
                let m = chain.iter().fold(glam::DMat4::IDENTITY, |m, &c| {
                    m * graph.nodes[c].local.matrix()
                }) * node.local.matrix();
                let t = Trs::from_mat(m);
                if !chain.is_empty() {
                    notes.push(format!(
                        "joint node {i} ({}): the transforms of nodes {chain:?} above it were folded into its local transform",
                        node.name
                    ));
                }
                t
            };
            if let Some(residue) = local.from_matrix {
                if residue > tol.scale {
                    refuse(&mut refusals, ident, i, "matrix", format!("shears by {residue:e}; native joints hold a translation and a rotation only"));
                }
            }
            let scale_dev = max_abs(local.s - DVec3::ONE);
            if scale_dev > tol.scale {
                refuse(
                    &mut refusals,
                    ident,
                    i,
                    "scale",
                    format!(
                        "{:?} is not 1 (tolerance {}); native joints carry no scale",
                        local.s.to_array(),
                        tol.scale
                    ),
                );
                continue;
            }
            note_noise(&mut noise.scale, &mut noise.closest, scale_dev, tol.scale);
            let world_r = graph.world[i].w_axis.truncate().length();
            let t_in = local.t;
            let q_in = local.r.normalize();
            let native = j.native.then(|| joint_native(json, i)).flatten();
            let payload = match (&j.key, native) {
                (JointKey::Old(_), Some(v)) => extras::joint_from_json(
                    ex.family,
                    &v,
                    &format!("/nodes/{i}/extras/rigtrip/native"),
                )?,
                (JointKey::Old(k), None) => {
                    return Err(extras_err(
                        format!("/nodes/{i}/extras/rigtrip/native"),
                        if j.by_name {
                            format!("missing: node {i} ({}) was matched to joint {k} of {} by its name, but it has no rigtrip custom properties, so its native fields are unknown; export with custom properties", node.name, sx.name)
                        } else {
                            format!("missing: joint {k} of {} has no native payload", sx.name)
                        },
                    ))
                }
                (JointKey::New(_), _) => match ex.family {
                    Family::Hie => JointPayload::Hie(hie::HieJoint::default()),
                    Family::Dmc3 => JointPayload::Dmc3(dmc3::Dmc3Joint::default()),
                },
            };
            let mut report = JointReport {
                joint: 0,
                original: ident,
                name: node.name.clone(),
                node: i,
                changes: Vec::new(),
                recomputed: Vec::new(),
                defaults: Vec::new(),
                rounding: None,
            };
            if ident.is_none() {
                report.changes.push("added".into());
            }
            let (mut moved, mut rotated) = (false, false);
            let (translation, rotation) = match &payload {
                JointPayload::Dmc3(d) => {
                    if ident.is_none() {
                        report.defaults.push("+0x1C = 0.0".into());
                        report.defaults.push(format!("group = {}", d.group));
                    }
                    let base_t = dmc3::local_translation(&d.record);
                    let base_r = dmc3::local_rotation(&d.record);
                    let w = match written_trs(space, base_t, base_r) {
                        Ok(w) => w,
                        Err(e) => {
                            refuse(
                                &mut refusals,
                                ident,
                                i,
                                "record",
                                format!("the original record cannot be expressed in glTF: {e}"),
                            );
                            continue;
                        }
                    };
                    let dt = max_abs(t_in - f32x3(w.translation));
                    let angle = angle_between(quat32(w.rotation), q_in);
                    let t = if dt <= tol.translation_at(world_r) {
                        note_noise(
                            &mut noise.translation_m,
                            &mut noise.closest,
                            dt,
                            tol.translation_at(world_r),
                        );
                        base_t
                    } else {
                        moved = true;
                        space.invert_point(t_in)
                    };
                    let r = if angle <= tol.rotation_rad {
                        note_noise(
                            &mut noise.rotation_rad,
                            &mut noise.closest,
                            angle,
                            tol.rotation_rad,
                        );
                        base_r
                    } else {
                        rotated = true;
                        space.invert_rotation(q_in)
                    };
                    (t, r)
                }
                JointPayload::Hie(h) => {
                    if ident.is_some() && (j.offset.is_none() || j.depth.is_none()) {
                        hie_without_baseline = true;
                    }
                    if ident.is_none() {
                        report.defaults.extend(
                            [
                                "unknown_00 = 0",
                                "runtime = 0",
                                "unknown_20 = 0",
                                "model = 0",
                            ]
                            .map(String::from),
                        );
                    }
                    let angle = angle_between(DQuat::IDENTITY, q_in);
                    if angle > tol.rotation_rad {
                        refuse(&mut refusals, ident, i, "rotation", format!(
                            "rotated by {angle:e} rad; HIE rest rotations are identity (a part has no rotation field on disc)"
                        ));
                        continue;
                    }
                    note_noise(
                        &mut noise.rotation_rad,
                        &mut noise.closest,
                        angle,
                        tol.rotation_rad,
                    );
                    let t = match parent {
                        None => {
                            let d = max_abs(t_in);
                            if d > tol.translation_at(world_r) {
                                refuse(&mut refusals, ident, i, "translation", format!(
                                    "the root moved to {:?} m; the game does not apply a HIE root's own offset (the root joint is the object's position), so a moved root cannot be stored",
                                    t_in.to_array()
                                ));
                                continue;
                            }
                            note_noise(
                                &mut noise.translation_m,
                                &mut noise.closest,
                                d,
                                tol.translation_at(world_r),
                            );
                            if ident.is_some() && h.root_offset.is_none() {
                                report.changes.push("now a root".into());
                                report.defaults.push("offset (+0x14) = [0, 0, 0] (a root's own offset is not applied)".into());
                            }
                            DVec3::ZERO
                        }
                        Some(_) => {
                            if let Some(ro) = h.root_offset.filter(|ro| *ro != [0; 3]) {
                                refuse(&mut refusals, ident, i, "root_offset", format!(
                                    "the part was a root whose own (unapplied) offset is {ro:?}; as a child it would lose that value"
                                ));
                                continue;
                            }
                            // With the stored offset recorded, noise and edits are told apart
                            // against it; without, against the nearest integers.
                            let baseline = j
                                .offset
                                .filter(|_| ident.is_some())
                                .map(|o| DVec3::new(o[0].into(), o[1].into(), o[2].into()));
                            let kept = baseline.and_then(|b| {
                                let w = written_trs(space, b, DQuat::IDENTITY).ok()?;
                                let dt = max_abs(t_in - f32x3(w.translation));
                                (dt <= tol.translation_at(world_r)).then_some((b, dt))
                            });
                            if let Some((b, dt)) = kept {
                                note_noise(
                                    &mut noise.translation_m,
                                    &mut noise.closest,
                                    dt,
                                    tol.translation_at(world_r),
                                );
                                b
                            } else {
                                let native = space.invert_point(t_in);
                                let rounded = native.round();
                                let fits = rounded.is_finite()
                                    && rounded.abs().max_element() <= f64::from(i32::MAX);
                                if !fits {
                                    refuse(
                                        &mut refusals,
                                        ident,
                                        i,
                                        "offset (+0x14)",
                                        format!(
                                            "{:?} units does not fit a 32-bit integer",
                                            native.to_array()
                                        ),
                                    );
                                    continue;
                                }
                                if rounded.abs().max_element() > HIE_EXACT_UNITS {
                                    refuse(&mut refusals, ident, i, "offset (+0x14)", format!(
                                        "{:?} units is beyond ±{HIE_EXACT_UNITS} units, where a glTF 32-bit float no longer carries an integer offset exactly, and the node extras do not record the stored offset: the value cannot be recovered from this glTF",
                                        rounded.to_array()
                                    ));
                                    continue;
                                }
                                let w =
                                    written_trs(space, rounded, DQuat::IDENTITY).map_err(|e| {
                                        ImportError::Node {
                                            node: i,
                                            name: node.name.clone(),
                                            problem: e,
                                        }
                                    })?;
                                let dt = max_abs(t_in - f32x3(w.translation));
                                if baseline.is_none() && dt <= tol.translation_at(world_r) {
                                    note_noise(
                                        &mut noise.translation_m,
                                        &mut noise.closest,
                                        dt,
                                        tol.translation_at(world_r),
                                    );
                                } else {
                                    moved = true;
                                    let lost = max_abs(native - rounded);
                                    if lost > ROUNDING_REPORTED {
                                        report.rounding = Some(format!(
                                            "offset {:?} units stored as {:?} (integers)",
                                            native.to_array(),
                                            rounded.to_array()
                                        ));
                                    }
                                }
                                rounded
                            }
                        }
                    };
                    (t, DQuat::IDENTITY)
                }
            };
            if ident.is_some() {
                if moved {
                    report.changes.push("moved".into());
                }
                if rotated {
                    report.changes.push("rotated".into());
                }
            }
            if let (Some(k), Some(orig)) = (ident, &original_parents) {
                let was = orig.get(k).copied().flatten().map(JointKey::Old);
                if was != parent {
                    report.changes.push(format!(
                        "reparented (parent was {}, now {})",
                        describe(was, graph),
                        describe(parent, graph)
                    ));
                }
            }
            entries.push(Entry {
                key: j.key,
                node: i,
                parent,
                joint: Joint {
                    name: node.name.clone(),
                    parent: None,
                    translation,
                    rotation,
                    native: payload,
                },
                report,
                moved,
                depth: j.depth,
            });
        }

        // A refused joint is missing from `entries`; the checks below would take it for removed.
        if refusals.len() > refused_before {
            continue;
        }
        // Original joints by index, then added ones in scene order.
        entries.sort_by_key(|e| match e.key {
            JointKey::Old(k) => (0, k, 0),
            JointKey::New(_) => (1, 0, 0),
        });
        let mut present = vec![false; sx.joints];
        for e in &entries {
            if let JointKey::Old(k) = e.key {
                if let Some(p) = present.get_mut(k) {
                    *p = true;
                }
            }
        }
        let removed: Vec<usize> = (0..sx.joints).filter(|&k| !present[k]).collect();
        let mut rewritten = Vec::new();

        // HIE parts must be stored depth first.
        if let SkeletonPayload::Hie(_) = &sx.native {
            let index: HashMap<JointKey, usize> = entries
                .iter()
                .enumerate()
                .map(|(x, e)| (e.key, x))
                .collect();
            let parents: Vec<Option<usize>> = entries
                .iter()
                .map(|e| e.parent.and_then(|p| index.get(&p).copied()))
                .collect();
            let order = hie::depth_first_order(&parents);
            if order.len() == entries.len() && order.iter().enumerate().any(|(a, &b)| a != b) {
                let mut slots: Vec<Option<Entry>> = entries.into_iter().map(Some).collect();
                entries = order
                    .iter()
                    .filter_map(|&x| slots.get_mut(x).and_then(Option::take))
                    .collect();
                rewritten.push(
                    "parts reordered depth first (the order is what gives HIE parts their parents)"
                        .into(),
                );
            }
        }
        let index: HashMap<JointKey, usize> = entries
            .iter()
            .enumerate()
            .map(|(x, e)| (e.key, x))
            .collect();
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
            if let JointKey::Old(k) = e.key {
                if k != x {
                    e.report.changes.push(format!("renumbered ({k} -> {x})"));
                }
            }
        }

        // What the new numbering would break.
        let node_name = |k: usize| -> (String, Option<usize>) {
            entries
                .iter()
                .find(|e| e.key == JointKey::Old(k))
                .map(|e| (e.joint.name.clone(), Some(e.node)))
                .unwrap_or_default()
        };
        match &sx.native {
            SkeletonPayload::Hie(p) => {
                if let Some(c) = hie::byte_list_conflict(&p.byte_lists, &map, entries.len()) {
                    let v = usize::from(c.value);
                    let (name, node) = node_name(v);
                    let what = match map.get(v) {
                        Some(Some(x)) => format!("which would become part {x}"),
                        Some(None) => "which was removed".to_string(),
                        None => "an index that would name a new part".to_string(),
                    };
                    refusals.push(Refusal {
                        skeleton: sx.name.clone(),
                        joint: Some(v),
                        name,
                        node,
                        field: "byte lists".into(),
                        problem: format!(
                            "entry {} of byte list {} names part {v}, {what}; the byte lists (part groups) reference parts by index and are not rewritten, so this {} is refused",
                            c.position,
                            c.list,
                            if removed.is_empty() { "reordering" } else { "removal or reordering" }
                        ),
                    });
                }
            }
            SkeletonPayload::Dmc3(_) => {
                if let Some((j, o, m, v)) = vertex_reference(&ex.source, &map) {
                    let (name, node) = node_name(j);
                    refusals.push(Refusal {
                        skeleton: sx.name.clone(),
                        joint: Some(j),
                        name,
                        node,
                        field: "vertex joint indices".into(),
                        problem: format!(
                            "vertex {v} of object {o} mesh {m} references joint {j}, which would be {}; the mesh streams are not rewritten, so the removal is refused",
                            match map.get(j).copied().flatten() {
                                Some(x) => format!("renumbered to {x}"),
                                None => "removed".into(),
                            }
                        ),
                    });
                }
            }
        }
        if renumbered && !removed.is_empty() {
            rewritten.push("joints after a removed one renumbered".into());
        }

        let joints: Vec<Joint> = entries.iter().map(|e| e.joint.clone()).collect();
        keys_all.push(entries.iter().map(|e| e.key).collect::<Vec<_>>());
        edits_all.push(
            entries
                .iter()
                .map(|e| (e.moved, e.depth))
                .collect::<Vec<_>>(),
        );
        reports.push(SkeletonReport {
            index: s,
            name: sx.name.clone(),
            joints_before: sx.joints,
            joints_after: joints.len(),
            unchanged: 0,
            joints: entries.into_iter().map(|e| e.report).collect(),
            removed,
            rewritten,
        });
        skeletons.push(Skeleton {
            name: sx.name.clone(),
            gate: check_structure(&joints),
            joints,
            native: sx.native.clone(),
        });
    }
    if !refusals.is_empty() {
        return Err(ImportError::Refused(Refusals(refusals)));
    }
    Ok(Built {
        rig: Rig {
            source: ex.source.clone(),
            skeletons,
        },
        keys: keys_all,
        joint_nodes: jn,
        reports,
        edits: edits_all,
        noise,
        notes,
        hie_without_baseline,
    })
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

/// The first vertex whose joint index bytes name a joint the new numbering moves or removes:
/// (joint, object, mesh, vertex).
fn vertex_reference(
    source: &Source,
    map: &[Option<usize>],
) -> Option<(usize, usize, usize, usize)> {
    let Source::Dmc3(shell) = source else {
        return None;
    };
    let container = shell.file.container.as_ref()?;
    for (o, object) in container.objects.iter().enumerate() {
        for (m, mesh) in object.meshes.iter().enumerate() {
            for (v, b) in mesh.bone_indices.iter().enumerate() {
                for j in joint_indices(*b) {
                    let j = usize::from(j);
                    if j < map.len() && map[j] != Some(j) {
                        return Some((j, o, m, v));
                    }
                }
            }
        }
    }
    None
}

/// Fills in which native fields were recomputed, from the lowered file.
fn recomputed_fields(built: &mut Built, native: &NativeFile, ex: &SceneExtras) {
    match native {
        NativeFile::Dmc3(f) => {
            let Some(block) = &f.block else { return };
            let (Some(report), Some(sk), Some(sx)) = (
                built.reports.get_mut(0),
                built.rig.skeletons.first(),
                ex.skeletons.first(),
            ) else {
                return;
            };
            for (x, j) in report.joints.iter_mut().enumerate() {
                let (Some(new), Some(old)) = (
                    block.transforms.get(x),
                    sk.joints.get(x).and_then(|j| dmc3_payload(&j.native)),
                ) else {
                    continue;
                };
                if j.original.is_none() {
                    j.recomputed.push("record (new)".into());
                    continue;
                }
                let fields = [
                    ("tx (+0x00)", new.tx_bits, old.record.tx_bits),
                    ("ty (+0x04)", new.ty_bits, old.record.ty_bits),
                    ("tz (+0x08)", new.tz_bits, old.record.tz_bits),
                    (
                        "magnitude (+0x0C)",
                        new.magnitude_bits,
                        old.record.magnitude_bits,
                    ),
                    ("rx (+0x10)", new.rx_bits, old.record.rx_bits),
                    ("ry (+0x14)", new.ry_bits, old.record.ry_bits),
                    ("rz (+0x18)", new.rz_bits, old.record.rz_bits),
                ];
                for (name, a, b) in fields {
                    if a != b {
                        j.recomputed.push(name.into());
                    }
                }
            }
            if let SkeletonPayload::Dmc3(p) = &sx.native {
                if block.parents != p.parents {
                    report
                        .rewritten
                        .push("parent array (by order position)".into());
                }
                if block.order != p.order {
                    report.rewritten.push("order array".into());
                }
                if block.rels != p.rels {
                    report.rewritten.push(format!(
                        "block layout: rel fields and padding for {} nodes",
                        block.node_count()
                    ));
                }
                if block.groups.len() != p.order.len() {
                    report.rewritten.push("group array".into());
                }
            }
        }
        NativeFile::Hie(f) => {
            for (s, (report, sx)) in built.reports.iter_mut().zip(&ex.skeletons).enumerate() {
                let edits = built.edits.get(s);
                let parts = f
                    .hierarchies
                    .get(s)
                    .map(|h| h.parts.as_slice())
                    .unwrap_or(&[]);
                for (x, j) in report.joints.iter_mut().enumerate() {
                    let (moved, depth) = edits
                        .and_then(|e| e.get(x))
                        .copied()
                        .unwrap_or((false, None));
                    if j.original.is_none() {
                        j.recomputed
                            .push("part (new): depth (+0x02), offset (+0x14)".into());
                        continue;
                    }
                    if moved {
                        j.recomputed.push("offset (+0x14)".into());
                    }
                    let new_depth = parts.get(x).map(|p| p.depth);
                    let depth_changed = match depth {
                        Some(d) => new_depth != Some(d),
                        None => {
                            j.original != Some(x) || j.changes.iter().any(|c| c == "now a root")
                        }
                    };
                    if depth_changed {
                        j.recomputed.push("depth (+0x02)".into());
                    }
                }
                if let (Some(h), SkeletonPayload::Hie(p)) = (f.hierarchies.get(s), &sx.native) {
                    if h.span > 0 && h.encoded_len() > u64::from(h.span) {
                        report.rewritten.push(format!(
                            "the hierarchy grew to {} parts and moves to the end of the file; its old place ({:#x}, {:#x} bytes) is zero-filled",
                            h.parts.len(),
                            p.offset,
                            p.span
                        ));
                    }
                }
            }
        }
    }
    for r in &mut built.reports {
        let with = r
            .joints
            .iter()
            .filter(|j| {
                !(j.changes.is_empty()
                    && j.recomputed.is_empty()
                    && j.defaults.is_empty()
                    && j.rounding.is_none())
            })
            .count();
        r.unchanged = r.joints.len() - with;
        r.joints.retain(|j| {
            !(j.changes.is_empty()
                && j.recomputed.is_empty()
                && j.defaults.is_empty()
                && j.rounding.is_none())
        });
    }
}

/// The whole import of a parsed document.
pub(crate) fn import(
    doc: &Doc,
    tol: &Tolerance,
    opts: &ImportOptions,
) -> Result<Imported, ImportError> {
    let (index, scene, r) = find_scene(&doc.json)?;
    let ex = SceneExtras::read(index, &r)?;
    let graph = Graph::read(&doc.json, scene)?;
    let mut built = build(&doc.json, &graph, &ex, tol)?;
    let native = crate::rig::lower(&built.rig)?;
    let bytes = native.write()?;
    recomputed_fields(&mut built, &native, &ex);

    // The export writes geometry only for the rig's own meshes (proxies are not compared): a rig
    // without any needs no export to know that none is expected.
    let rig_meshes = built.rig.meshes();
    let exported = if rig_meshes.is_empty() {
        None
    } else {
        let opts = ExportOptions {
            scale: Some(ex.space.scale),
            names: None,
        };
        Some(
            crate::gltf::export::export_geometry(&built.rig, rig_meshes, &opts)
                .map_err(ImportError::Export)?,
        )
    };
    let mut meshes = mesh::compare(doc, &graph, &built, exported.as_ref(), tol)?;
    if meshes.difference_count > 0 {
        if !opts.ignore_mesh_edits {
            let first = meshes.differences.first().cloned().unwrap_or_default();
            return Err(ImportError::MeshEdited(if meshes.difference_count > 1 {
                format!("{first}; {} differences in all", meshes.difference_count)
            } else {
                first
            }));
        }
        meshes.status = MeshStatus::EditedIgnored;
    }
    let mut notes = std::mem::take(&mut built.notes);
    if ex.family == Family::Hie && built.hie_without_baseline {
        notes.push("the joint extras do not record HIE part offsets and depths: an offset moved by whole units cannot be told from an unchanged one (it is written as given but not listed as moved), and reparenting is not reported; parents come from the node hierarchy".into());
    }
    notes.push("joint names are not stored in the native file: renames change no byte".into());
    Ok(Imported {
        native,
        bytes,
        report: ImportReport {
            format: ex.format.clone(),
            space: ex.space,
            tolerance: *tol,
            skeletons: built.reports,
            meshes,
            noise: built.noise,
            notes,
        },
    })
}
