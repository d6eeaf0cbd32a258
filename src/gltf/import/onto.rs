//! `import --onto TEMPLATE`: a glTF that rigtrip did not export (a model made elsewhere, or one
//! Blender wrote without custom properties) put onto a native template file.
//!
//! The template is lifted to a rig; everything it holds (header, skeleton block, undecoded
//! fields) stays. The glTF's skin joints are matched to the template's joints by name: a
//! `--joint-map` entry first, then the names the template's joints go by (the names file beside
//! it, else rigtrip's defaults `<skeleton>_<k>`, which always match too). A joint that carries a
//! weight and matches none is refused by name, with the closest template joints by name and by
//! rest position. Every skinned mesh of the glTF is then a new mesh on the same path as a mesh
//! added in Blender (`import::meshback`, [`RigFormat::write_meshes`]): the template's meshes
//! are all replaced. Vertices are placed where the glTF's skin draws them on the template's
//! rest pose (`Σ w · template joint world · inverse bind`), so a body bound in another pose
//! still lands on the template's skeleton; with the glTF's own rest pose equal to the
//! template's, that is the identity.
//!
//! [`RigFormat::write_meshes`]: crate::rig::format::RigFormat::write_meshes

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use glam::{DMat4, DVec3};
use serde_json::Value;

use super::graph::Graph;
use super::influence::InfKey;
use super::joints::{Identities, JointKey, JointNode};
use super::mesh::{collect, incoming_instances, skin_slots, Geometry, Incoming, Instance};
use super::meshback::{material_of, native_geometry, skin_skeleton};
use super::read::Doc;
use super::repose::{self, Pose};
use super::{
    ContainerProblem, ImportError, ImportReport, Imported, JointNames, MeshReport, MeshStatus,
    NodeProblem, SkeletonReport, Tolerance,
};
use crate::gltf::Names;
use crate::native::NativeFile;
use crate::rig::mesh::IncomingMesh;
use crate::rig::space::Space;
use crate::rig::Rig;

/// What `import --onto` may be told besides the glTF and the template.
#[derive(Debug, Clone, Default)]
pub struct OntoOptions {
    /// `--tolerance` (see [`Tolerance::from_option`]).
    pub tolerance: Option<f64>,
    /// The template's joint names (its names file), if any.
    pub names: Option<Names>,
    /// `--joint-map`: glTF joint names to template joints.
    pub joint_map: Option<JointMap>,
    /// `--fit`: the body's own height, or the template's.
    pub fit: Fit,
    /// Whether the glTF's animations are written as motions, and how.
    pub motions: Option<OntoMotions>,
}

/// The glTF's animations written as new motions on the template's skeleton (see
/// [`super::retarget`]): on the header of a motion of the template's model.
#[derive(Debug, Clone, Default)]
pub struct OntoMotions {
    /// `--motion-template`: the file name of a motion file (`.mot`, or a `.pac` of motions) of
    /// the template's model.
    pub template_file: String,
    /// Its bytes.
    pub template: Vec<u8>,
    /// `--new-motions-into`: new motions whose name gives no slot go into this archive (the
    /// template file, by name) rather than files of their own.
    pub into: Option<String>,
}

pub use super::repose::Fit;

/// A template joint a `--joint-map` entry names: by name or by native index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MapTarget {
    /// A name the template's joint goes by (its names file's, or `<skeleton>_<k>`).
    Name(String),
    /// Native joint index (of the template's only skeleton).
    Index(usize),
}

/// `--joint-map FILE.json`: `{"glTF joint name": "template joint name" or index, ...}`; a key
/// `#N` names glTF node N (for unnamed joints).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JointMap(pub BTreeMap<String, MapTarget>);

impl JointMap {
    /// Parses the file's text: one JSON object, glTF joint names to a template joint's name
    /// (string) or native index (integer).
    pub fn from_json(text: &str) -> Result<JointMap, ImportError> {
        let bad = |m: String| ImportError::Onto(format!("joint map: {m}"));
        let v: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        let Value::Object(m) = v else {
            return Err(bad(
                "expected an object {\"glTF joint name\": \"template joint name\" or index}".into(),
            ));
        };
        let mut out = BTreeMap::new();
        for (k, v) in m {
            let t = match &v {
                Value::String(s) => MapTarget::Name(s.clone()),
                Value::Number(n) => match n.as_u64().and_then(|x| usize::try_from(x).ok()) {
                    Some(i) => MapTarget::Index(i),
                    None => return Err(bad(format!("{k:?}: {n} is no joint index"))),
                },
                other => {
                    return Err(bad(format!(
                        "{k:?}: expected a template joint's name or index, found {other}"
                    )))
                }
            };
            out.insert(k, t);
        }
        Ok(JointMap(out))
    }
}

/// A glTF joint that carries weights but matches no template joint.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Unmatched {
    /// Its node name.
    pub name: String,
    /// Its node index.
    pub node: usize,
    /// The template joints whose names are closest (edit distance), best first.
    pub closest_names: Vec<String>,
    /// The template joint nearest its rest position, and how far (metres).
    pub nearest: Option<(String, f64)>,
}

impl std::fmt::Display for Unmatched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.name.is_empty() {
            write!(
                f,
                "node {} (unnamed: map it as \"#{}\")",
                self.node, self.node
            )?;
        } else {
            write!(f, "{:?} (node {})", self.name, self.node)?;
        }
        let mut hints = Vec::new();
        if !self.closest_names.is_empty() {
            hints.push(format!("closest names: {}", self.closest_names.join(", ")));
        }
        if let Some((n, d)) = &self.nearest {
            hints.push(format!(
                "nearest at rest: {n}, {} away",
                crate::units::length(*d)
            ));
        }
        if !hints.is_empty() {
            write!(f, " [{}]", hints.join("; "))?;
        }
        Ok(())
    }
}

/// Every unmatched weighted joint of one import (at least one).
#[derive(Debug, Clone, PartialEq)]
pub struct UnmatchedJoints(pub Vec<Unmatched>);

impl std::fmt::Display for UnmatchedJoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} joint(s) of the glTF carry weights but match no joint of the template by name: ",
            self.0.len()
        )?;
        for (i, u) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{u}")?;
        }
        f.write_str("; rename them, or map them with --joint-map FILE.json ({\"glTF joint name\": \"template joint name\"})")
    }
}

/// Imports a glTF file onto the template (see the module doc).
pub fn import_onto_path(
    path: &Path,
    template: NativeFile,
    opts: &OntoOptions,
) -> Result<Imported, ImportError> {
    let (bytes, dir) = super::read_gltf(path)?;
    import_onto(&bytes, dir, template, opts)
}

/// Imports a GLB or glTF held in memory onto the template (separate buffers in `base_dir`).
pub fn import_onto(
    bytes: &[u8],
    base_dir: Option<&Path>,
    template: NativeFile,
    opts: &OntoOptions,
) -> Result<Imported, ImportError> {
    let tol = Tolerance::from_option(opts.tolerance)?;
    let doc = super::read::parse(bytes, base_dir)?;
    let scene = default_scene(&doc)?;
    let graph = Graph::read(doc.json(), scene, &doc.node_extras, None)?;
    let mut rig = crate::rig::lift(template);
    let space = Space::default_for(&rig);
    let names = template_names(&rig, opts.names.as_ref())?;
    let ids = match_joints(&doc, &graph, &rig, &names, opts.joint_map.as_ref())?;
    let key = |node: usize| super::mesh::influence_key(&ids, node);
    let found = incoming_instances(&doc, &graph, &key, true)?;
    let rest = template_rest(&rig, space);
    let pose = Pose::new(&graph, &ids, &rest);
    let mut placed = Placed::new();
    let mut geometry = Vec::with_capacity(found.instances.len());
    for inst in &found.instances {
        let own = by_node(&doc, &graph, &ids, inst)?;
        let mut g = collect(&doc, std::slice::from_ref(&own), 0)?;
        repose(&doc, &graph, &ids, &pose, &own, &mut g, &mut placed)?;
        geometry.push(g);
    }
    refuse_unmatched(&doc, &graph, &rig, &names, &ids, &found, &geometry, space)?;
    if found.instances.is_empty() {
        return Err(ImportError::Onto(nothing_to_import(&found)));
    }
    let before = rig.meshes();
    let template_height = repose::extent_y(
        before
            .iter()
            .flat_map(|m| &m.positions)
            .map(|p| space.point(DVec3::from_array(*p))),
    );
    let factor = opts.fit.factor(
        pose.sigma,
        placed.written_height(),
        placed.source_height(),
        template_height,
    );
    placed.scale(&mut geometry, factor);
    let mut incoming = Vec::with_capacity(found.instances.len());
    let (mut vertices, mut triangles) = (0, 0);
    for (inst, g) in found.instances.iter().zip(&mut geometry) {
        vertices += g.verts.len();
        triangles += g.tris.len();
        let (mesh, origin, dropped) = native_geometry(
            g,
            None,
            skin_skeleton(inst),
            &ids,
            &graph,
            inst,
            space,
            &tol,
        )?;
        incoming.push(IncomingMesh {
            name: inst.name.clone(),
            original: None,
            like: None,
            geometry: Some(mesh),
            origin,
            material: material(&doc, &rig, inst)?,
            dropped,
        });
    }
    let format = rig.source.format();
    let written = format.write_meshes(&mut rig, &incoming, space)?;
    let read = (&doc, &graph, &ids, &pose);
    let ((motions, not_written), motion_notes) = onto_motions(
        read,
        &rig,
        &names,
        &rest,
        space,
        &tol,
        opts.motions.as_ref(),
    )?;
    let native = crate::rig::lower(&rig)?;
    let bytes = native.write()?;
    let report = ImportReport {
        format: rig.kind().to_string(),
        space,
        tolerance: tol,
        skeletons: unchanged_skeletons(&rig),
        meshes: MeshReport {
            status: MeshStatus::Replaced,
            expected_vertices: before.iter().map(|m| m.positions.len()).sum(),
            incoming_vertices: vertices,
            expected_triangles: before.iter().map(|m| m.triangles.len()).sum(),
            incoming_triangles: triangles,
            proxies_ignored: found.proxies,
            unused_vertices: 0,
            differences: Vec::new(),
            difference_count: 0,
            ignored: found.ignored,
            written: Some(written),
        },
        noise: super::Noise::default(),
        notes: {
            let mut notes = matched_notes(&graph, &ids, &rig, opts.joint_map.as_ref());
            notes.extend(placed.notes(&graph, &pose, &names, template_height, opts.fit, factor));
            notes.extend(motion_notes);
            notes
        },
        motions: motions.iter().map(|m| m.report.clone()).collect(),
        animations_not_written: not_written,
        stale_shadows: Vec::new(),
        textures: Vec::new(),
        models: Vec::new(),
    };
    Ok(Imported {
        native,
        bytes,
        names: joint_names(&rig, &names),
        report,
        motions,
    })
}

/// The glTF's animations as new motions on the template's skeleton (see
/// [`super::retarget`]), with the report's notes; without `opts.motions`, every animation is
/// named as not written.
fn onto_motions(
    found: (&Doc, &Graph, &Identities, &Pose),
    rig: &Rig,
    joint_names: &[Vec<String>],
    rest: &[Vec<DMat4>],
    space: Space,
    tol: &Tolerance,
    opts: Option<&OntoMotions>,
) -> Result<(super::motions::Rebuilt, Vec<String>), ImportError> {
    let (doc, graph, ids, pose) = found;
    let Some(opts) = opts else {
        let reason = "import --onto writes animations as motions with --motions-out DIR and \
                      --motion-template FILE (a motion file of the template's model)";
        return Ok((
            (Vec::new(), super::motions::none_written(doc, reason)),
            Vec::new(),
        ));
    };
    let count = rig.skeletons.first().map_or(0, |s| s.joints.len());
    let bad =
        |m: String| ImportError::Onto(format!("--motion-template {}: {m}", opts.template_file));
    let mf = crate::rig::motion::read_file(&opts.template)
        .map_err(|e| bad(format!("not a motion file: {}", crate::chain(&e))))?;
    if !mf
        .motions
        .iter()
        .flat_map(|s| &s.motion)
        .any(|m| m.joints == count)
    {
        return Err(bad(format!(
            "holds no motion of {count} joints (the template's); give a motion file of the \
             template's model, whose motion header the new motions take"
        )));
    }
    let skeleton = rig
        .skeletons
        .first()
        .map_or(&[][..], |s| s.joints.as_slice());
    let rest0 = rest.first().map_or(&[][..], Vec::as_slice);
    let retarget = super::retarget::Retarget::new(graph, ids, pose, rest0, skeleton, space);
    let names = super::retarget::names(doc);
    let joints = joint_names.first().map_or(&[][..], Vec::as_slice);
    let (animations, seen, notes) = retarget.animations(doc, &names, joints)?;
    let channels = crate::rig::motion::rest_channels(rig, 0);
    let cx = super::motions::MotionCx {
        animations: &animations,
        rest: &channels,
        space,
        tol,
    };
    let template = (opts.template_file.clone(), mf);
    let rebuilt = super::new_motions::onto(&cx, &seen, template, opts.into.as_deref())?;
    Ok((rebuilt, notes))
}

/// The scene a loader shows: `scene`, else the first.
pub(super) fn default_scene<'d>(doc: &'d Doc) -> Result<&'d Value, ImportError> {
    let scenes = doc.json().get("scenes").and_then(Value::as_array);
    let first = doc
        .json()
        .get("scene")
        .and_then(Value::as_u64)
        .and_then(|s| usize::try_from(s).ok())
        .unwrap_or(0);
    scenes
        .and_then(|s| s.get(first).or_else(|| s.first()))
        .ok_or(ImportError::Container(ContainerProblem::NoScene))
}

/// The names the template's joints go by, per skeleton and joint (its names file's, else
/// rigtrip's defaults).
pub(super) fn template_names(
    rig: &Rig,
    names: Option<&Names>,
) -> Result<Vec<Vec<String>>, ImportError> {
    let mut missing = Vec::new();
    let requested = crate::gltf::names::requested(rig, names, &mut missing)
        .map_err(|e| ImportError::Onto(format!("the template's names file: {e}")))?;
    Ok(requested
        .into_iter()
        .map(|s| s.into_iter().map(|n| n.into_owned()).collect())
        .collect())
}

/// The template joint a name means: a name its joint goes by, or rigtrip's default name.
fn lookup(rig: &Rig, names: &[Vec<String>]) -> HashMap<String, (usize, usize)> {
    let mut out = HashMap::new();
    for (s, sk) in rig.skeletons.iter().enumerate() {
        for k in 0..sk.joints.len() {
            out.entry(crate::rig::joint_name(&sk.name, k))
                .or_insert((s, k));
        }
    }
    // Names from the names file win over defaults another joint happens to have.
    for (s, list) in names.iter().enumerate() {
        for (k, n) in list.iter().enumerate() {
            out.insert(n.clone(), (s, k));
        }
    }
    out
}

/// Which node is which template joint: every skin joint whose name (or `--joint-map` entry)
/// names one. A map entry naming no template joint is refused.
fn match_joints(
    doc: &Doc,
    graph: &Graph,
    rig: &Rig,
    names: &[Vec<String>],
    map: Option<&JointMap>,
) -> Result<Identities, ImportError> {
    let by_name = lookup(rig, names);
    let resolve = |t: &MapTarget| -> Option<(usize, usize)> {
        match t {
            MapTarget::Name(n) => by_name.get(n).copied(),
            MapTarget::Index(i) => (rig.skeletons.len() == 1)
                .then_some((0, *i))
                .filter(|&(s, k)| rig.skeletons.get(s).is_some_and(|x| k < x.joints.len())),
        }
    };
    if let Some(map) = map {
        for (from, t) in &map.0 {
            if resolve(t).is_none() {
                let what = match t {
                    MapTarget::Name(n) => format!("{n:?}"),
                    MapTarget::Index(i) => format!("index {i}"),
                };
                return Err(ImportError::Onto(format!(
                    "joint map: {from:?} -> {what}: the template has no such joint"
                )));
            }
        }
    }
    let mut ids = Identities {
        nodes: vec![None; graph.nodes.len()],
        keys: rig
            .skeletons
            .iter()
            .map(|s| (0..s.joints.len()).map(JointKey::Old).collect())
            .collect(),
    };
    for node in skin_joint_nodes(doc, graph) {
        let Some(n) = graph.nodes.get(node) else {
            continue;
        };
        let entry = map.and_then(|m| m.0.get(&n.name).or_else(|| m.0.get(&format!("#{node}"))));
        let target = match entry {
            Some(t) => resolve(t),
            None => by_name.get(&n.name).copied(),
        };
        if let (Some((skeleton, k)), Some(slot)) = (target, ids.nodes.get_mut(node)) {
            *slot = Some(JointNode {
                skeleton,
                key: JointKey::Old(k),
                native: false,
                by_name: true,
                recorded: Default::default(),
            });
        }
    }
    Ok(ids)
}

/// Every node some skin lists as a joint, in index order.
pub(super) fn skin_joint_nodes(doc: &Doc, graph: &Graph) -> Vec<usize> {
    let mut out: Vec<usize> = doc
        .array("skins")
        .iter()
        .filter_map(|s| s.get("joints").and_then(Value::as_array))
        .flatten()
        .filter_map(|v| v.as_u64().and_then(|x| usize::try_from(x).ok()))
        .filter(|&x| x < graph.nodes.len())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Refuses the joints that carry a weight in a skinned mesh node but match no template joint,
/// each with the closest template joints (`geometry`: that of `found`'s instances).
#[allow(clippy::too_many_arguments)]
fn refuse_unmatched(
    doc: &Doc,
    graph: &Graph,
    rig: &Rig,
    names: &[Vec<String>],
    ids: &Identities,
    found: &Incoming,
    geometry: &[Geometry],
    space: Space,
) -> Result<(), ImportError> {
    let key = |node: usize| super::mesh::influence_key(ids, node);
    let skins = doc.array("skins");
    // Nodes left out for their skin (another armature: no joint matched) count too.
    let mut all: Vec<Instance> = Vec::new();
    for x in &found.ignored {
        let Some(n) = graph.nodes.get(x.node) else {
            continue;
        };
        if let (Some(mesh), Some(slots)) = (n.mesh, skin_slots(skins, graph, x.node, &key)?) {
            all.push(Instance {
                node: x.node,
                name: x.name.clone(),
                mesh,
                slots: Some(slots),
                world: DMat4::IDENTITY,
                rigid: false,
            });
        }
    }
    let mut stray: Vec<usize> = Vec::new();
    let mut seen = HashSet::new();
    let others = all
        .iter()
        .map(|inst| collect(doc, std::slice::from_ref(inst), 0))
        .collect::<Result<Vec<Geometry>, ImportError>>()?;
    for g in geometry.iter().chain(&others) {
        for v in &g.verts {
            for (k, _) in v.inf.iter() {
                if let InfKey::Stray(n) = k {
                    if seen.insert(*n) {
                        stray.push(*n);
                    }
                }
            }
        }
    }
    if stray.is_empty() {
        return Ok(());
    }
    stray.sort_unstable();
    let rest = template_rest(rig, space);
    let unmatched = stray
        .into_iter()
        .map(|n| {
            let (name, at) = match graph.nodes.get(n) {
                Some(x) => (x.name.clone(), graph.world.get(n).copied()),
                // A JOINTS value past its skin's list (see `Primitive::vert`).
                None => (format!("joint slot {} past the skin", usize::MAX - n), None),
            };
            Unmatched {
                closest_names: closest_names(&name, names),
                nearest: at.and_then(|m| nearest(m.w_axis.truncate(), &rest, names)),
                node: n,
                name,
            }
        })
        .collect();
    Err(ImportError::Unmatched(UnmatchedJoints(unmatched)))
}

/// The three template joint names closest to `name` (edit distance, case ignored).
fn closest_names(name: &str, names: &[Vec<String>]) -> Vec<String> {
    let lower = name.to_lowercase();
    let mut all: Vec<(usize, &String)> = names
        .iter()
        .flatten()
        .map(|n| (edit_distance(&lower, &n.to_lowercase()), n))
        .collect();
    all.sort();
    all.into_iter().take(3).map(|(_, n)| n.clone()).collect()
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let up = row.get(j + 1).copied().unwrap_or(usize::MAX);
            let left = row.get(j).copied().unwrap_or(usize::MAX);
            let v = (diag + usize::from(ca != *cb))
                .min(up.saturating_add(1))
                .min(left.saturating_add(1));
            diag = up;
            if let Some(x) = row.get_mut(j + 1) {
                *x = v;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

/// The template joint nearest `p` (glTF metres) at rest, and the distance.
fn nearest(p: DVec3, rest: &[Vec<DMat4>], names: &[Vec<String>]) -> Option<(String, f64)> {
    let mut best: Option<(String, f64)> = None;
    for (s, mats) in rest.iter().enumerate() {
        for (k, m) in mats.iter().enumerate() {
            let d = m.w_axis.truncate().distance(p);
            if d.is_finite() && best.as_ref().is_none_or(|b| d < b.1) {
                let name = names.get(s).and_then(|l| l.get(k)).cloned();
                best = name.map(|n| (n, d));
            }
        }
    }
    best
}

/// The template's joint world matrices at rest, in glTF space (metres, glTF axes), per
/// skeleton (empty for one that fails the spatial gate).
pub(super) fn template_rest(rig: &Rig, space: Space) -> Vec<Vec<DMat4>> {
    let c = DMat4::from_scale(space.direction(DVec3::ONE) * space.scale);
    let ci = c.inverse();
    rig.skeletons
        .iter()
        .map(|s| {
            s.world_matrices()
                .map(|w| w.into_iter().map(|m| c * m * ci).collect())
                .unwrap_or_default()
        })
        .collect()
}

/// `inst` with each skin slot naming its own node (`InfKey::Stray(node)`), so that every
/// weight keeps its source joint until the body is re-posed; a rigid mesh on the nearest
/// mapped joint above it.
fn by_node(
    doc: &Doc,
    graph: &Graph,
    ids: &Identities,
    inst: &Instance,
) -> Result<Instance, ImportError> {
    let slots = if inst.rigid {
        let mut at = graph.parent.get(inst.node).copied().flatten();
        let mut found = None;
        for _ in 0..graph.nodes.len() {
            let Some(p) = at else { break };
            if ids.nodes.get(p).is_some_and(Option::is_some) {
                found = Some(p);
                break;
            }
            at = graph.parent.get(p).copied().flatten();
        }
        found.map(|p| vec![InfKey::Stray(p)])
    } else {
        skin_slots(doc.array("skins"), graph, inst.node, &InfKey::Stray)?
    };
    Ok(Instance {
        node: inst.node,
        name: inst.name.clone(),
        mesh: inst.mesh,
        slots,
        world: inst.world,
        rigid: inst.rigid,
    })
}

/// What re-posing found over every mesh: the body's height before and after, and the joints
/// mapped to nothing that gave their weight to a mapped ancestor.
struct Placed {
    source: (f64, f64),
    written: (f64, f64),
    inherited: BTreeMap<usize, usize>,
}

impl Placed {
    fn new() -> Placed {
        Placed {
            source: (f64::INFINITY, f64::NEG_INFINITY),
            written: (f64::INFINITY, f64::NEG_INFINITY),
            inherited: BTreeMap::new(),
        }
    }

    /// The body's height as re-posed.
    fn written_height(&self) -> f64 {
        (self.written.1 - self.written.0).max(0.0)
    }

    /// The body's height where the glTF draws it.
    fn source_height(&self) -> f64 {
        (self.source.1 - self.source.0).max(0.0)
    }

    /// Scales the re-posed body by `factor` about the template's origin (a fit).
    fn scale(&mut self, geometry: &mut [Geometry], factor: f64) {
        if factor == 1.0 {
            return;
        }
        for v in geometry.iter_mut().flat_map(|g| &mut g.verts) {
            v.p = v.p.map(|x| x * factor);
        }
        self.written = (self.written.0 * factor, self.written.1 * factor);
    }

    /// What the report says of the re-posing (`factor`: the fit's scale).
    fn notes(
        &self,
        graph: &Graph,
        pose: &Pose,
        names: &[Vec<String>],
        template_height: f64,
        fit: Fit,
        factor: f64,
    ) -> Vec<String> {
        let node = |n: usize| graph.display_name(n);
        let len = crate::units::length;
        let h = |(lo, hi): (f64, f64)| if hi >= lo { hi - lo } else { 0.0 };
        let bones = pose.sigma * factor;
        let how = match fit {
            Fit::Source => "at its own height (--fit source)",
            Fit::Height => "at the template's meshes' height (--fit height)",
            Fit::Bones => "on the template's own bones (--fit bones)",
        };
        let mut notes = vec![format!(
            "the body is re-posed from its own rest pose onto the template's skeleton, {how}: {} \
             tall ({} in the glTF, the template's meshes {})",
            len(h(self.written)),
            len(h(self.source)),
            len(template_height),
        )];
        if (bones - 1.0).abs() > 0.02 {
            notes.push(format!(
                "its joints lie on the template's skeleton taken {bones:.3}x about its origin, \
                 not on the template's own (the game bends it about those): --fit bones puts \
                 them there"
            ));
        }
        if !self.inherited.is_empty() {
            let list: Vec<String> = self
                .inherited
                .iter()
                .map(|(&j, &a)| format!("{} -> {}", node(j), node(a)))
                .collect();
            notes.push(format!(
                "{} joint(s) mapped to nothing give their weight to their nearest mapped ancestor: {}",
                list.len(),
                list.join(", ")
            ));
        }
        let mut far: Vec<_> = pose.limbs.iter().filter(|l| l.angle > LIMB_NOTED).collect();
        far.sort_by(|a, b| b.angle.total_cmp(&a.angle));
        if !far.is_empty() {
            let list: Vec<String> = far
                .iter()
                .map(|l| {
                    let t = names
                        .get(l.target.0)
                        .and_then(|s| s.get(l.target.1))
                        .cloned()
                        .unwrap_or_default();
                    format!("{t} ({}) {:.0}°", node(l.node), l.angle.to_degrees())
                })
                .collect();
            notes.push(format!(
                "the two rest poses differ by more than {:.0}° at {} bone(s), turned to the \
                 template's: {}",
                LIMB_NOTED.to_degrees(),
                list.len(),
                list.join(", ")
            ));
        }
        notes
    }
}

/// Rest-pose differences per bone above this are named in the report (radians: 10°).
const LIMB_NOTED: f64 = 0.174_532_925_199_432_95;

/// Moves each vertex of `inst` (collected with [`by_node`]'s slots) from where the glTF draws
/// it at rest (`Σ w · joint world · inverse bind`, the glTF's inverse bind matrices, identity
/// when it has none) onto the template's bones through `pose`, then keys its weights by the
/// template joints their nodes (or nearest mapped ancestors) map to.
fn repose(
    doc: &Doc,
    graph: &Graph,
    ids: &Identities,
    pose: &Pose,
    inst: &Instance,
    g: &mut Geometry,
    placed: &mut Placed,
) -> Result<(), ImportError> {
    let skinning = bind_world(doc, graph, inst)?;
    let widen = |r: &mut (f64, f64), y: f64| *r = (r.0.min(y), r.1.max(y));
    for v in &mut g.verts {
        let mut m = DMat4::ZERO;
        let mut drawn = DMat4::ZERO;
        let mut total = 0.0;
        for (k, w) in v.inf.iter() {
            let InfKey::Stray(node) = *k else { continue };
            let Some(s) = skinning.get(&node) else {
                continue;
            };
            m += *pose.of(node).unwrap_or(&DMat4::IDENTITY) * *s * *w;
            drawn += *s * *w;
            total += w;
        }
        if total > 0.0 {
            let p = DVec3::from_array(v.p);
            widen(
                &mut placed.source,
                (drawn * (1.0 / total)).transform_point3(p).y,
            );
            let m = m * (1.0 / total);
            v.p = m.transform_point3(p).to_array();
            if let Some(n) = v.n {
                let l = glam::DMat3::from_mat4(m);
                let l = if l.determinant().abs() > 1e-12 {
                    l.inverse().transpose()
                } else {
                    l
                };
                v.n = Some((l * DVec3::from_array(n)).normalize_or_zero().to_array());
            }
        } else {
            widen(&mut placed.source, v.p[1]);
        }
        widen(&mut placed.written, v.p[1]);
        v.inf.remap(|k| match k {
            InfKey::Stray(node) => match pose.owner.get(node).copied().flatten() {
                Some(o) => {
                    if o != node {
                        placed.inherited.insert(node, o);
                    }
                    super::mesh::influence_key(ids, o)
                }
                None => k,
            },
            other => other,
        });
    }
    Ok(())
}

/// Per joint node of `inst`'s skin, the matrix that draws its bind-space vertices at the
/// glTF's rest (`joint world · inverse bind`); for a rigid mesh (already placed by its world
/// matrix), the identity for the joint it hangs on.
fn bind_world(
    doc: &Doc,
    graph: &Graph,
    inst: &Instance,
) -> Result<HashMap<usize, DMat4>, ImportError> {
    let mut out = HashMap::new();
    let Some(slots) = inst.slots.as_ref() else {
        return Ok(out);
    };
    if inst.rigid {
        for k in slots {
            if let InfKey::Stray(n) = *k {
                out.insert(n, DMat4::IDENTITY);
            }
        }
        return Ok(out);
    }
    let ibm = graph
        .nodes
        .get(inst.node)
        .and_then(|n| n.skin)
        .and_then(|k| doc.array("skins").get(k))
        .and_then(|s| s.get("inverseBindMatrices"))
        .and_then(Value::as_u64)
        .map(|a| super::read::elements(doc, usize::try_from(a).unwrap_or(usize::MAX)))
        .transpose()?;
    for (slot, k) in slots.iter().enumerate() {
        let InfKey::Stray(node) = *k else { continue };
        let bind = match &ibm {
            Some(e) => {
                let cols = e.get(slot);
                if cols.len() != 16 {
                    return Err(ImportError::Node {
                        node: inst.node,
                        name: inst.name.clone(),
                        problem: NodeProblem::NoInverseBind(slot),
                    });
                }
                let mut a = [0.0; 16];
                a.copy_from_slice(cols);
                DMat4::from_cols_array(&a)
            }
            None => DMat4::IDENTITY,
        };
        let world = graph.world.get(node).copied().unwrap_or(DMat4::IDENTITY);
        out.entry(node).or_insert(world * bind);
    }
    Ok(out)
}

/// The material a new mesh names: its own when it means something to the format (DMC3:
/// `texture_N`), else the one the format gives the glTF material's index.
fn material(doc: &Doc, rig: &Rig, inst: &Instance) -> Result<Option<String>, ImportError> {
    let format = rig.source.format();
    let own = material_of(doc, &[], inst)?;
    if own
        .as_deref()
        .and_then(|m| format.material_key(m))
        .is_some()
    {
        return Ok(own);
    }
    let index = doc
        .array("meshes")
        .get(inst.mesh)
        .and_then(|m| m.get("primitives"))
        .and_then(Value::as_array)
        .and_then(|p| p.iter().find_map(|p| p.get("material")?.as_u64()))
        .and_then(|i| usize::try_from(i).ok());
    Ok(index.and_then(|i| format.material_for_index(i)).or(own))
}

/// Why nothing could be imported: no node is skinned to the template's joints.
fn nothing_to_import(found: &Incoming) -> String {
    let mut s = "no mesh of the glTF is skinned to the template's joints".to_string();
    for x in &found.ignored {
        s.push_str(&format!("; node {} ({}): {}", x.node, x.name, x.reason));
    }
    s
}

/// The template's skeletons, every joint unchanged (the skeleton block is the template's).
fn unchanged_skeletons(rig: &Rig) -> Vec<SkeletonReport> {
    rig.skeletons
        .iter()
        .enumerate()
        .map(|(index, s)| SkeletonReport {
            index,
            name: s.name.clone(),
            joints_before: s.joints.len(),
            joints_after: s.joints.len(),
            unchanged: s.joints.len(),
            joints: Vec::new(),
            removed: Vec::new(),
            rewritten: Vec::new(),
        })
        .collect()
}

/// What the joint matching found, for the report.
fn matched_notes(
    graph: &Graph,
    ids: &Identities,
    rig: &Rig,
    map: Option<&JointMap>,
) -> Vec<String> {
    let mut matched = 0;
    let mut mapped = 0;
    let mut targets = HashSet::new();
    for (i, j) in ids.nodes.iter().enumerate() {
        let Some(j) = j else { continue };
        matched += 1;
        targets.insert((j.skeleton, j.key));
        let name = graph.nodes.get(i).map(|n| n.name.as_str()).unwrap_or("");
        if map.is_some_and(|m| m.0.contains_key(name) || m.0.contains_key(&format!("#{i}"))) {
            mapped += 1;
        }
    }
    let total: usize = rig.skeletons.iter().map(|s| s.joints.len()).sum();
    let notes = vec![format!(
        "onto the template: {matched} glTF joint(s) matched {} of its {total} joints by name ({mapped} through --joint-map); its skeleton, header and undecoded fields are kept, its meshes replaced by the glTF's",
        targets.len()
    )];
    notes
}

/// The template's joint names as a names file (what `export --names` reads).
fn joint_names(rig: &Rig, names: &[Vec<String>]) -> JointNames {
    let default = rig.skeletons.iter().zip(names).all(|(s, list)| {
        list.iter()
            .enumerate()
            .all(|(k, n)| *n == crate::rig::joint_name(&s.name, k))
    });
    let map: serde_json::Map<String, Value> = rig
        .skeletons
        .iter()
        .zip(names)
        .filter(|(s, _)| !s.joints.is_empty())
        .map(|(s, list)| {
            (
                s.name.clone(),
                Value::Array(list.iter().cloned().map(Value::String).collect()),
            )
        })
        .collect();
    JointNames {
        names: Value::Object(map),
        default,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("mod_5", "mod_15"), 1);
    }

    #[test]
    fn joint_maps_take_names_and_indices() {
        let m = JointMap::from_json(r#"{"Hips": "mod_0", "Spine": 3}"#).unwrap();
        assert_eq!(m.0.get("Hips"), Some(&MapTarget::Name("mod_0".into())));
        assert_eq!(m.0.get("Spine"), Some(&MapTarget::Index(3)));
        for bad in ["[]", r#"{"a": -1}"#, r#"{"a": null}"#, "{"] {
            assert!(JointMap::from_json(bad).is_err(), "{bad}");
        }
    }
}
