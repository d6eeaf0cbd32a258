//! Did the geometry change? The glTF's meshes against what the export writes for the rebuilt
//! rig, both read the same way.
//!
//! Blender splits vertices at seams, merges primitives, reorders everything and renumbers skin
//! joints, so nothing is compared by index: each side becomes a set of distinct vertices
//! (position, normal, UV, colour, and influences keyed by joint identity) and a set of
//! non-degenerate triangles over distinct positions, and every element of each set must have a
//! counterpart in the other within the tolerances. Proxy meshes are left out on both sides.
//! Messages show points as Blender does (metres, Z up) and joints by their node names.

use crate::gltf::DataError;
use std::collections::{HashMap, HashSet};
use std::hash::Hasher;

use glam::{DMat4, DVec3};
use serde::Serialize;
use serde_json::Value;

use super::graph::{Graph, Tag};
use super::grid::Grid;
use super::influence::{InfKey, Infs};
use super::joints::{Identities, JointKey};
use super::num_hash::NumHash;
use super::read::{Doc, Elements};
use super::{ContainerProblem, ImportError, MeshReport, MeshStatus, NodeProblem, Tolerance};
use crate::gltf::Exported;

/// How many differences are spelled out.
const SHOWN: usize = 8;

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Vert {
    pub(super) p: [f64; 3],
    pub(super) n: Option<[f64; 3]>,
    pub(super) uv: Option<[f64; 2]>,
    pub(super) c: Option<[f64; 4]>,
    pub(super) inf: Infs,
}

impl Vert {
    /// Feeds every component's bit pattern (and which attributes are present) to `f`: two
    /// vertices are the same exactly when they feed the same sequence.
    fn bits(&self, f: &mut impl FnMut(u64)) {
        for x in self.p {
            f(x.to_bits());
        }
        // Generic, not a `dyn` closure: this runs for every component of every vertex.
        fn opt<const N: usize>(o: &Option<[f64; N]>, f: &mut impl FnMut(u64)) {
            match o {
                Some(v) => {
                    f(N as u64);
                    for x in v {
                        f(x.to_bits());
                    }
                }
                None => f(u64::MAX),
            }
        }
        opt(&self.n, f);
        opt(&self.uv, f);
        opt(&self.c, f);
        f(self.inf.len() as u64);
        for (k, w) in self.inf.iter() {
            let (a, b) = match k {
                InfKey::Joint(s, JointKey::Old(j)) => (*s as u64, *j as u64),
                InfKey::Joint(s, JointKey::New(n)) => (*s as u64 | 1 << 62, *n as u64),
                InfKey::Stray(n) => (1 << 63, *n as u64),
            };
            f(a);
            f(b);
            f(w.to_bits());
        }
    }

    /// Bit-for-bit equality (NaN equals the same NaN, 0.0 differs from -0.0): the same as
    /// feeding the same [`Vert::bits`], without building them.
    fn same_bits(&self, other: &Vert) -> bool {
        fn eq(a: &[f64], b: &[f64]) -> bool {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
        }
        fn opt<const N: usize>(a: &Option<[f64; N]>, b: &Option<[f64; N]>) -> bool {
            match (a, b) {
                (Some(a), Some(b)) => eq(a, b),
                (None, None) => true,
                _ => false,
            }
        }
        eq(&self.p, &other.p)
            && opt(&self.n, &other.n)
            && opt(&self.uv, &other.uv)
            && opt(&self.c, &other.c)
            && self.inf.len() == other.inf.len()
            && self
                .inf
                .iter()
                .zip(other.inf.iter())
                .all(|(a, b)| a.0 == b.0 && a.1.to_bits() == b.1.to_bits())
    }

    /// The vertex for messages: where the user sees it in Blender, and its influences by the
    /// joints' node names (`names`; a joint it lacks is shown by skeleton and index).
    fn describe(&self, names: &Names) -> String {
        let inf: Vec<String> = self
            .inf
            .iter()
            .map(|(k, w)| {
                let k = match (names.get(k), k) {
                    (Some(name), _) => name.clone(),
                    (None, InfKey::Joint(s, JointKey::Old(j))) => format!("s{s}j{j}"),
                    (None, InfKey::Joint(s, JointKey::New(n))) => format!("s{s} new node {n}"),
                    (None, InfKey::Stray(n)) => format!("non-joint {n}"),
                };
                format!("{k}:{w:.3}")
            })
            .collect();
        let mut d = blender_point(&self.p);
        if !inf.is_empty() {
            d.push_str(&format!(" weights [{}]", inf.join(" ")));
        }
        d
    }
}

/// Joint node names by influence key, for messages.
pub(super) type Names = HashMap<InfKey, String>;

/// A glTF point (metres, Y up) as Blender shows it: metres, Z up (glTF (x, y, z) is Blender's
/// (x, -z, y)).
fn blender_point(p: &[f64; 3]) -> String {
    format!("({:.5}, {:.5}, {:.5}) m", p[0], -p[2] + 0.0, p[1])
}

#[derive(Debug, Default)]
pub(super) struct Geometry {
    pub(super) verts: Vec<Vert>,
    pub(super) tris: Vec<[usize; 3]>,
    proxies: usize,
    /// Things that cannot be compared (counted as differences).
    odd: Vec<String>,
}

fn attr(
    doc: &Doc,
    attrs: &Value,
    name: &str,
    count: usize,
    comps: &[usize],
) -> Result<Option<Elements>, ImportError> {
    let Some(a) = attrs.get(name) else {
        return Ok(None);
    };
    let index = a
        .as_u64()
        .and_then(|x| usize::try_from(x).ok())
        .ok_or_else(|| {
            ImportError::Container(ContainerProblem::AttributeNotIndex(name.to_string()))
        })?;
    let e = super::read::elements(doc, index)?;
    if !comps.contains(&e.comps) || e.len() != count {
        return Err(ImportError::Data(DataError::Accessor {
            accessor: index,
            problem: format!(
                "{name}: {} elements of {} components, expected {count} of {comps:?}",
                e.len(),
                e.comps
            ),
        }));
    }
    Ok(Some(e))
}

fn arr<const N: usize>(e: Option<&Elements>, v: usize) -> Option<[f64; N]> {
    let s = e?.get(v);
    let mut out = [0.0; N];
    for (o, x) in out.iter_mut().zip(s) {
        *o = *x;
    }
    Some(out)
}

/// One mesh node to compare: where it is (for messages), its mesh, what each skin slot points
/// at (`None`: not skinned) and its world matrix (identity for skinned meshes: their vertices
/// are in bind space).
pub(super) struct Instance {
    pub(super) node: usize,
    pub(super) name: String,
    pub(super) mesh: usize,
    pub(super) slots: Option<Vec<InfKey>>,
    pub(super) world: DMat4,
    /// Not skinned but under a joint (`slots` holds it): every vertex on it alone, weight 1,
    /// placed by `world`.
    pub(super) rigid: bool,
}

/// The incoming document's mesh nodes: those the import uses, in scene order, the proxies
/// (counted, not listed) and the nodes with geometry it does not use ([`Ignored`]).
pub(super) struct Incoming {
    /// Mesh nodes the import reads.
    pub(super) instances: Vec<Instance>,
    /// Proxy mesh nodes (never read).
    pub(super) proxies: usize,
    /// Nodes with geometry that are not the rig's, each with the reason.
    pub(super) ignored: Vec<Ignored>,
}

/// A glTF node with geometry that the import does not use, and why: reported, never dropped
/// in silence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ignored {
    /// Node index.
    pub node: usize,
    /// Node name.
    pub name: String,
    /// Why it is not used, and what would make it count.
    pub reason: String,
}

/// The incoming document's mesh nodes (see [`Incoming`]); `key` says what a skin's joint node
/// is, `skinned` whether the rig's meshes hang on its skeletons (then a new mesh that is not
/// skinned to them is not the rig's). A node tagged as one of the rig's meshes is always read:
/// what it lost (its skin) is refused by name where its influences are read.
pub(super) fn incoming_instances(
    doc: &Doc,
    graph: &Graph,
    key: &dyn Fn(usize) -> InfKey,
    skinned: bool,
) -> Result<Incoming, ImportError> {
    let skins: &[Value] = doc.array("skins");
    let mut out = Incoming {
        instances: Vec::new(),
        proxies: 0,
        ignored: Vec::new(),
    };
    let mut in_scene = vec![false; graph.nodes.len()];
    for &i in &graph.preorder {
        if let Some(x) = in_scene.get_mut(i) {
            *x = true;
        }
        let node = &graph.nodes[i];
        let Some(m) = node.mesh else { continue };
        if node.tag == Tag::Proxy {
            out.proxies += 1;
            continue;
        }
        let mut slots = skin_slots(skins, graph, i, key)?;
        // A new unskinned mesh under a joint (Blender: parented to a bone) moves with it alone.
        let rigid = match (&slots, node.tag == Tag::Mesh || !skinned) {
            (None, false) => joint_above(graph, i, key),
            _ => None,
        };
        if let Some(k) = rigid {
            slots = Some(vec![k]);
        }
        if node.tag != Tag::Mesh && rigid.is_none() {
            if let Some(reason) = unused_reason(node.skin, slots.as_deref(), skinned) {
                out.ignored.push(Ignored {
                    node: i,
                    name: node.name.clone(),
                    reason,
                });
                continue;
            }
        }
        let world = if slots.is_some() && rigid.is_none() {
            DMat4::IDENTITY
        } else {
            graph.world[i]
        };
        out.instances.push(Instance {
            node: i,
            name: node.name.clone(),
            mesh: m,
            slots,
            world,
            rigid: rigid.is_some(),
        });
    }
    for (i, node) in graph.nodes.iter().enumerate() {
        if node.mesh.is_some()
            && node.tag != Tag::Proxy
            && !in_scene.get(i).copied().unwrap_or(true)
        {
            out.ignored.push(Ignored {
                node: i,
                name: node.name.clone(),
                reason: "not in the scene the import reads".into(),
            });
        }
    }
    Ok(out)
}

/// The nearest ancestor of node `i` that is a joint of the rig, as an influence.
fn joint_above(graph: &Graph, i: usize, key: &dyn Fn(usize) -> InfKey) -> Option<InfKey> {
    let mut at = graph.parent.get(i).copied().flatten();
    // The parent chain is acyclic (cycles were cut) and at most as long as the node list.
    for _ in 0..graph.nodes.len() {
        let p = at?;
        if let k @ InfKey::Joint(..) = key(p) {
            return Some(k);
        }
        at = graph.parent.get(p).copied().flatten();
    }
    None
}

/// What each slot of node `i`'s skin points at (`None`: the node is not skinned).
pub(super) fn skin_slots(
    skins: &[Value],
    graph: &Graph,
    i: usize,
    key: &dyn Fn(usize) -> InfKey,
) -> Result<Option<Vec<InfKey>>, ImportError> {
    let Some(node) = graph.nodes.get(i) else {
        return Ok(None);
    };
    let bad = |problem: NodeProblem| ImportError::Node {
        node: i,
        name: node.name.clone(),
        problem,
    };
    let Some(k) = node.skin else {
        return Ok(None);
    };
    let list = skins
        .get(k)
        .and_then(|s| s.get("joints"))
        .and_then(Value::as_array)
        .ok_or_else(|| bad(NodeProblem::SkinMissing(k)))?;
    list.iter()
        .map(|v| {
            v.as_u64()
                .and_then(|x| usize::try_from(x).ok())
                .filter(|&x| x < graph.nodes.len())
                .map(key)
        })
        .collect::<Option<Vec<InfKey>>>()
        .ok_or_else(|| bad(NodeProblem::SkinNodeMissing(k)))
        .map(Some)
}

/// Why a mesh node that is not one of the rig's own is not used (`None`: it is): skinned to
/// joints none of which is the rig's, or (`skinned`: the rig's meshes hang on its skeletons)
/// not skinned at all.
fn unused_reason(skin: Option<usize>, slots: Option<&[InfKey]>, skinned: bool) -> Option<String> {
    match (skin, slots) {
        (Some(k), Some(slots)) if !slots.iter().any(|s| matches!(s, InfKey::Joint(..))) => {
            Some(format!(
                "skinned to another armature (skin {k}: none of its {} joints is a joint of the rig); bind it to the rig's armature",
                slots.len()
            ))
        }
        (None, _) if skinned => Some(
            "not skinned to the rig; give it an Armature modifier on the rig's armature (Blender: parent with Armature Deform) and weights".into(),
        ),
        _ => None,
    }
}

/// The vertices and triangles of `instances`, in order.
pub(super) fn collect(
    doc: &Doc,
    instances: &[Instance],
    proxies: usize,
) -> Result<Geometry, ImportError> {
    read_primitives(doc, instances, proxies).map(Primitives::geometry)
}

/// One triangle primitive of an instance, its attributes read and checked: what its vertices
/// are built from ([`Primitive::vert`]).
struct Primitive<'i> {
    /// The instance it belongs to (its skin slots and world matrix).
    inst: &'i Instance,
    /// Whether the instance's world matrix moves it (not the identity).
    moved: bool,
    /// Number of vertices.
    count: usize,
    pos: Elements,
    normal: Option<Elements>,
    uv: Option<Elements>,
    color: Option<Elements>,
    /// Joints with weights, per influence set present.
    sets: Vec<(Elements, Elements)>,
}

/// The primitives of some instances, read and checked, and their triangles: [`collect`]'s
/// geometry without its vertices built yet (indices in `tris` count the primitives' vertices
/// in order).
struct Primitives<'i> {
    prims: Vec<Primitive<'i>>,
    tris: Vec<[usize; 3]>,
    proxies: usize,
    odd: Vec<String>,
}

/// Reads and checks the triangle primitives of `instances` (every accessor, every index), in
/// the order [`collect`] reads them, with its errors.
fn read_primitives<'i>(
    doc: &Doc,
    instances: &'i [Instance],
    proxies: usize,
) -> Result<Primitives<'i>, ImportError> {
    let mut out = Primitives {
        prims: Vec::new(),
        tris: Vec::new(),
        proxies,
        odd: Vec::new(),
    };
    let meshes: &[Value] = doc.array("meshes");
    let mut base = 0usize;
    for inst in instances {
        let m = inst.mesh;
        let mesh = meshes
            .get(m)
            .ok_or_else(|| node_error(inst, NodeProblem::MeshMissing(m)))?;
        let prims = mesh
            .get("primitives")
            .and_then(Value::as_array)
            .ok_or_else(|| node_error(inst, NodeProblem::NoPrimitives(m)))?;
        for (pi, prim) in prims.iter().enumerate() {
            let mode = prim.get("mode").and_then(Value::as_u64).unwrap_or(4);
            if mode != 4 {
                out.odd.push(format!(
                    "mesh {m} primitive {pi} has mode {mode}, not triangles"
                ));
                continue;
            }
            let p = read_attributes(doc, inst, prim, pi)?;
            let count = p.count;
            let indices = read_indices(doc, inst, prim, pi, count)?;
            out.tris.reserve(indices.len() / 3);
            for t in indices.chunks_exact(3) {
                if let Some(&bad_index) = t.iter().find(|&&x| x >= count) {
                    let problem = NodeProblem::IndexPastEnd {
                        mesh: m,
                        primitive: pi,
                        index: bad_index,
                        count,
                    };
                    return Err(node_error(inst, problem));
                }
                out.tris.push([base + t[0], base + t[1], base + t[2]]);
            }
            base += count;
            out.prims.push(p);
        }
    }
    Ok(out)
}

/// The error of instance `inst`'s node for `problem`.
fn node_error(inst: &Instance, problem: NodeProblem) -> ImportError {
    ImportError::Node {
        node: inst.node,
        name: inst.name.clone(),
        problem,
    }
}

/// Primitive `pi` of `inst`'s mesh with its attributes read: POSITION (a VEC3, required),
/// normals, UVs, colours and the influence sets present.
fn read_attributes<'i>(
    doc: &Doc,
    inst: &'i Instance,
    prim: &Value,
    pi: usize,
) -> Result<Primitive<'i>, ImportError> {
    let m = inst.mesh;
    let attrs = prim.get("attributes").ok_or_else(|| {
        node_error(
            inst,
            NodeProblem::NoAttributes {
                mesh: m,
                primitive: pi,
            },
        )
    })?;
    let [position, normal, texcoord, color] = SINGLE;
    let pos_index = attrs
        .get(position)
        .and_then(Value::as_u64)
        .and_then(|x| usize::try_from(x).ok())
        .ok_or_else(|| {
            node_error(
                inst,
                NodeProblem::NoPosition {
                    mesh: m,
                    primitive: pi,
                },
            )
        })?;
    let pos = super::read::elements(doc, pos_index)?;
    if pos.comps != 3 {
        return Err(ImportError::Data(DataError::Accessor {
            accessor: pos_index,
            problem: "POSITION is not VEC3".into(),
        }));
    }
    let count = pos.len();
    let normal = attr(doc, attrs, normal, count, &[3])?;
    let uv = attr(doc, attrs, texcoord, count, &[2])?;
    let color = attr(doc, attrs, color, count, &[3, 4])?;
    let mut sets = Vec::new();
    for [joints, weights] in INFLUENCE_SETS {
        let j = attr(doc, attrs, joints, count, &[4])?;
        let w = attr(doc, attrs, weights, count, &[4])?;
        if let (Some(j), Some(w)) = (j, w) {
            sets.push((j, w));
        }
    }
    Ok(Primitive {
        inst,
        moved: inst.world != DMat4::IDENTITY,
        count,
        pos,
        normal,
        uv,
        color,
        sets,
    })
}

/// The vertex indices of primitive `pi` of `inst`'s mesh: its indices accessor (unsigned
/// integer scalars), else every one of its `count` vertices in order.
fn read_indices(
    doc: &Doc,
    inst: &Instance,
    prim: &Value,
    pi: usize,
    count: usize,
) -> Result<Vec<usize>, ImportError> {
    let Some(x) = prim.get("indices") else {
        return Ok((0..count).collect());
    };
    let a = x
        .as_u64()
        .and_then(|x| usize::try_from(x).ok())
        .ok_or_else(|| {
            let (mesh, primitive) = (inst.mesh, pi);
            node_error(inst, NodeProblem::IndicesNotIndex { mesh, primitive })
        })?;
    let e = super::read::elements(doc, a)?;
    if e.comps != 1 || !e.integer {
        return Err(ImportError::Data(DataError::Accessor {
            accessor: a,
            problem: "indices are not unsigned integer scalars".into(),
        }));
    }
    Ok(e.data.iter().map(|&x| x as usize).collect())
}

impl Primitive<'_> {
    /// Vertex `v`'s position (in world space for a moved instance).
    fn position(&self, v: usize) -> [f64; 3] {
        let p = arr::<3>(Some(&self.pos), v).unwrap_or_default();
        if self.moved {
            self.inst
                .world
                .transform_point3(DVec3::from_array(p))
                .to_array()
        } else {
            p
        }
    }

    /// Vertex `v`, built from the attributes.
    fn vert(&self, v: usize) -> Vert {
        let (world, moved) = (self.inst.world, self.moved);
        let n = arr::<3>(self.normal.as_ref(), v).map(|n| {
            if moved {
                world
                    .transform_vector3(DVec3::from_array(n))
                    .normalize_or_zero()
                    .to_array()
            } else {
                n
            }
        });
        let c = self.color.as_ref().map(|e| {
            let s = e.get(v);
            [
                s.first().copied().unwrap_or(0.0),
                s.get(1).copied().unwrap_or(0.0),
                s.get(2).copied().unwrap_or(0.0),
                s.get(3).copied().unwrap_or(1.0),
            ]
        });
        let mut inf = Infs::default();
        if self.inst.rigid {
            if let Some(&k) = self.inst.slots.as_ref().and_then(|s| s.first()) {
                inf.push((k, 1.0));
            }
        }
        for (j, w) in self.sets.iter().filter(|_| !self.inst.rigid) {
            for (&slot, &weight) in j.get(v).iter().zip(w.get(v)) {
                if !(weight.is_finite() && weight > 0.0) {
                    continue;
                }
                let k = match self.inst.slots.as_ref().and_then(|s| s.get(slot as usize)) {
                    Some(&k) => k,
                    None => InfKey::Stray(usize::MAX - slot as usize),
                };
                match inf.iter_mut().find(|e| e.0 == k) {
                    Some(e) => e.1 += weight,
                    None => inf.push((k, weight)),
                }
            }
        }
        let total: f64 = inf.iter().map(|e| e.1).sum();
        if total > 0.0 {
            for e in inf.iter_mut() {
                e.1 /= total;
            }
        }
        inf.sort_by_key(|a| a.0);
        Vert {
            p: self.position(v),
            n,
            uv: arr::<2>(self.uv.as_ref(), v),
            c,
            inf,
        }
    }
}

impl<'i> Primitives<'i> {
    /// `f` of every vertex (its primitive, its index there), in order.
    fn per_vertex<T>(&self, f: impl Fn(&Primitive<'i>, usize) -> T) -> Vec<T> {
        // Every count is that of an accessor read in full, so the reservation is bounded by
        // the input.
        let mut out = Vec::with_capacity(self.prims.iter().map(|p| p.count).sum());
        for p in &self.prims {
            out.extend((0..p.count).map(|v| f(p, v)));
        }
        out
    }

    /// Every vertex built: the geometry.
    fn geometry(self) -> Geometry {
        Geometry {
            verts: self.per_vertex(Primitive::vert),
            tris: self.tris,
            proxies: self.proxies,
            odd: self.odd,
        }
    }

    /// Every vertex's position, in order.
    fn positions(&self) -> Vec<[f64; 3]> {
        self.per_vertex(Primitive::position)
    }

    /// What [`geometry_report`] says of the geometry compared with itself (unedited), counted
    /// without building every vertex: two vertices can be the same only at the same position
    /// (bit for bit), so only those sharing a position with another used vertex are built and
    /// compared.
    fn unedited_report(&self) -> MeshReport {
        let positions = self.positions();
        let (used, unused) = used_vertices(&self.tris, positions.len());
        let key = |p: &[f64; 3]| p.map(f64::to_bits);
        let mut at: HashMap<[u64; 3], u32, NumHash> =
            HashMap::with_capacity_and_hasher(positions.len(), NumHash::default());
        for (p, _) in positions.iter().zip(&used).filter(|(_, u)| **u) {
            let n = at.entry(key(p)).or_insert(0);
            *n = n.saturating_add(1);
        }
        let mut vertices = 0usize;
        let mut shared: Vec<Vert> = Vec::new();
        let mut v0 = 0usize;
        for p in &self.prims {
            for v in 0..p.count {
                let g = v0 + v;
                if !used.get(g).copied().unwrap_or(false) {
                    continue;
                }
                match positions.get(g).and_then(|q| at.get(&key(q))) {
                    Some(1) => vertices += 1,
                    _ => shared.push(p.vert(v)),
                }
            }
            v0 += p.count;
        }
        let mut seen: HashSet<ByBits, NumHash> =
            HashSet::with_capacity_and_hasher(shared.len(), NumHash::default());
        vertices += shared.iter().filter(|v| seen.insert(ByBits(v))).count();
        let triangles = triangles_at(&self.tris, |c| positions.get(c).map(key));
        let notes = Notes::of(&self.odd);
        let sides = Sides {
            vertices: (vertices, vertices),
            triangles: (triangles, triangles),
            unused,
            proxies: self.proxies,
        };
        sides.report(notes, self.odd.is_empty())
    }
}

/// What the export wrote for the rebuilt rig, read the way the incoming side is read: the
/// written accessors decoded by the same reader, mesh nodes in the order the export puts them at
/// the scene root, skin slot `k` of skeleton `s` being joint `k` (the export lists a skin's
/// joints in native order). `None` for a rig without geometry.
pub(super) fn expected_geometry(
    ids: &Identities,
    exported: Option<&Exported>,
    only: Option<usize>,
) -> Result<Geometry, ImportError> {
    let Some(exported) = exported else {
        return Ok(Geometry::default());
    };
    let doc = expected_doc(exported)?;
    collect(&doc, &expected_instances(ids, exported, only), 0)
}

/// The export's meshes as a document the shared reader reads (accessors, views, meshes).
fn expected_doc(exported: &Exported) -> Result<Doc<'_>, ImportError> {
    let root = &exported.root;
    let value = |r: Result<Value, serde_json::Error>| {
        r.map_err(|e| ImportError::Container(ContainerProblem::ExportUnreadable(e.to_string())))
    };
    Ok(super::read::document(
        serde_json::Map::from_iter([
            (
                "accessors".into(),
                value(serde_json::to_value(&root.accessors))?,
            ),
            (
                "bufferViews".into(),
                value(serde_json::to_value(&root.buffer_views))?,
            ),
            ("meshes".into(), value(serde_json::to_value(&root.meshes))?),
        ]),
        vec![std::borrow::Cow::Borrowed(&exported.bin)],
    ))
}

/// The export's mesh nodes (all of them, or only the one of rig mesh `only`), proxies left out.
fn expected_instances(ids: &Identities, exported: &Exported, only: Option<usize>) -> Vec<Instance> {
    let mut instances = Vec::new();
    for (i, info) in exported.report.meshes.iter().enumerate() {
        if only.is_some_and(|k| k != i) {
            continue;
        }
        let Some(mesh) = info.gltf_mesh.filter(|_| !info.proxy) else {
            continue;
        };
        let slots = info.skeleton.map(|s| {
            ids.keys
                .get(s)
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(|key| InfKey::Joint(s, *key))
                .collect()
        });
        instances.push(Instance {
            node: i,
            name: info.name.clone(),
            mesh,
            slots,
            world: DMat4::IDENTITY,
            rigid: false,
        });
    }
    instances
}

/// The attributes [`collect`] reads, one vertex value each (the position first)...
const SINGLE: [&str; 4] = ["POSITION", "NORMAL", "TEXCOORD_0", "COLOR_0"];
/// ... and its influence sets, joints with weights: what [`collect`] reads is what
/// [`same_primitive`] compares.
const INFLUENCE_SETS: [[&str; 2]; 2] = [["JOINTS_0", "WEIGHTS_0"], ["JOINTS_1", "WEIGHTS_1"]];

/// Whether [`collect`] reads the same geometry from `incoming` (in `doc`) as from `expected`
/// (in `edoc`), judged without reading it: the same meshes node for node, each primitive of
/// the same mode with the same attributes and indices, every accessor of the same layout and
/// the same bytes, skin slots naming the same joints, no transform on either side. `false`
/// when unsure (anything else): the caller then reads and compares both sides.
fn same_source(doc: &Doc, incoming: &[Instance], edoc: &Doc, expected: &[Instance]) -> bool {
    incoming.len() == expected.len()
        && incoming.iter().zip(expected).all(|(i, e)| {
            i.slots == e.slots
                && i.world == DMat4::IDENTITY
                && e.world == DMat4::IDENTITY
                && match (prims(doc, i.mesh), prims(edoc, e.mesh)) {
                    (Some(a), Some(b)) => {
                        a.len() == b.len()
                            && a.iter()
                                .zip(b)
                                .all(|(p, q)| same_primitive(doc, p, edoc, q))
                    }
                    _ => false,
                }
        })
}

/// Mesh `m`'s primitives.
fn prims<'d>(doc: &'d Doc, m: usize) -> Option<&'d Vec<Value>> {
    doc.array("meshes").get(m)?.get("primitives")?.as_array()
}

/// Whether two primitives give [`collect`] the same vertices and triangles (see
/// [`same_source`]).
fn same_primitive(doc: &Doc, p: &Value, edoc: &Doc, q: &Value) -> bool {
    let mode = |v: &Value| v.get("mode").map_or(Some(4), Value::as_u64);
    let index = |v: Option<&Value>| {
        v.and_then(Value::as_u64)
            .and_then(|x| usize::try_from(x).ok())
    };
    let same_acc = |a: Option<&Value>, b: Option<&Value>| match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => match (index(Some(a)), index(Some(b))) {
            (Some(a), Some(b)) => match (doc.resolve(a), edoc.resolve(b)) {
                (Ok(a), Ok(b)) => a.same_elements(&b),
                _ => false,
            },
            _ => false,
        },
        _ => false,
    };
    let (Some(pa), Some(qa)) = (p.get("attributes"), q.get("attributes")) else {
        return false;
    };
    mode(p) == Some(4)
        && mode(q) == Some(4)
        && SINGLE
            .iter()
            .chain(INFLUENCE_SETS.iter().flatten())
            .all(|name| same_acc(pa.get(*name), qa.get(*name)))
        && same_acc(p.get("indices"), q.get("indices"))
}

/// Compares the glTF's geometry with what the export writes for the rebuilt rig (`None`: the
/// rig has no geometry of its own, so the export writes none).
pub(crate) fn compare(
    doc: &Doc,
    graph: &Graph,
    ids: &Identities,
    exported: Option<&Exported>,
    tol: &Tolerance,
) -> Result<MeshReport, ImportError> {
    let incoming_key = |node: usize| influence_key(ids, node);
    let Incoming {
        instances,
        proxies,
        ignored,
    } = incoming_instances(doc, graph, &incoming_key, rig_skinned(ids))?;
    let names = || -> Names {
        graph
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (influence_key(ids, i), n.name.clone()))
            .collect()
    };
    // The export's meshes as a document, and its mesh nodes: made once, for both paths.
    let export = exported
        .map(|x| expected_doc(x).map(|edoc| (edoc, expected_instances(ids, x, None))))
        .transpose()?;
    // Unedited (the common case): the incoming meshes hold the very bytes the export writes, so
    // one side read serves as both. The report is the one the sets of equal arrays give,
    // counted without building the vertices no other one shares a position with.
    if let Some((edoc, einstances)) = &export {
        if same_source(doc, &instances, edoc, einstances) {
            if let Ok(both) = read_primitives(edoc, einstances, proxies) {
                return Ok(MeshReport {
                    ignored,
                    ..both.unedited_report()
                });
            }
        }
    }
    let incoming = collect(doc, &instances, proxies)?;
    let expected = match &export {
        Some((edoc, einstances)) => collect(edoc, einstances, 0)?,
        None => Geometry::default(),
    };
    Ok(MeshReport {
        ignored,
        ..compare_geometry(&incoming, &expected, tol, &names)
    })
}

/// Whether the rig's meshes hang on its skeletons (it has joints): then a new mesh must be
/// skinned to them to be the rig's.
pub(super) fn rig_skinned(ids: &Identities) -> bool {
    ids.keys.iter().any(|k| !k.is_empty())
}

/// What a node is as an influence: a joint of a skeleton, or a stray node.
pub(super) fn influence_key(ids: &Identities, node: usize) -> InfKey {
    match ids.nodes.get(node).and_then(Option::as_ref) {
        Some(j) => InfKey::Joint(j.skeleton, j.key),
        None => InfKey::Stray(node),
    }
}

mod sets;
use sets::*;
pub(super) use sets::{close, close_shape, compare_geometry, len3};

#[cfg(test)]
mod tests;
