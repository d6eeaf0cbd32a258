//! Which meshes of the document were edited, deleted, added or given another material, and
//! their geometry in native units for the format to write back ([`RigFormat::write_meshes`]).
//!
//! Mesh nodes are matched to the rig's meshes by name (`object1_mesh0`), then by the mesh index
//! their extras carry (a renamed node); a node matching neither is a new mesh (the format
//! decides where it goes), and a duplicate (Blender's `object1_mesh0.001`, whose extras still
//! name the original) starts from the mesh it was copied from. Each matched mesh is compared
//! with what the export writes for it, as sets (see [`super::mesh`]); an edited one is read
//! back vertex by vertex, every vertex within the tolerances of an original vertex of its mesh
//! taken as that vertex (the format keeps its stored bits), the others converted back from
//! metres and glTF axes.
//!
//! [`RigFormat::write_meshes`]: crate::rig::format::RigFormat::write_meshes

use glam::DVec3;
use serde_json::Value;

use super::graph::{rigtrip_of, Graph};
use super::grid::Grid;
use super::influence::InfKey;
use super::joints::Identities;
use super::mesh::{
    close, close_shape, collect, compare_geometry, expected_geometry, incoming_instances,
    influence_key, len3, rig_skinned, Geometry, Instance, Names, Vert,
};
use super::read::Doc;
use super::{ImportError, Tolerance};
use crate::gltf::Exported;
use crate::rig::mesh::{Dropped, IncomingMesh, Mesh};
use crate::rig::space::Space;

/// What the mesh write-back reads: the document, which node is which joint, what the export
/// writes for the rebuilt rig and its meshes, the space and the tolerances.
#[derive(Clone, Copy)]
pub(crate) struct Context<'a> {
    /// The document.
    pub doc: &'a Doc<'a>,
    /// Materials of the document read as another's (a new texture of its archive: see
    /// [`crate::rig::archive::AddedTextures`]).
    pub aliases: &'a [(String, String)],
    /// Its nodes.
    pub graph: &'a Graph,
    /// Which node is which joint.
    pub ids: &'a Identities,
    /// What the export writes for the rebuilt rig (`None`: no geometry).
    pub exported: Option<&'a Exported>,
    /// The rig's meshes, native units.
    pub originals: &'a [Mesh],
    /// The space conversion.
    pub space: Space,
    /// The tolerances.
    pub tol: &'a Tolerance,
    /// The rig's format (what a material name means).
    pub format: &'static dyn crate::rig::format::RigFormat,
}

/// The meshes of the document for [`RigFormat::write_meshes`] when anything differs from the
/// rig's (geometry, material, a mesh deleted or added); `None` when nothing does.
/// `geometry_edited`: the comparison of the whole geometry found differences (else, unless a
/// node is no original mesh, each mesh keeps its streams, whichever nodes hold its triangles
/// now: a tool may merge nodes; a deleted mesh whose geometry another mesh repeats exactly is
/// then not seen as deleted).
///
/// [`RigFormat::write_meshes`]: crate::rig::format::RigFormat::write_meshes
pub(crate) fn incoming_meshes(
    cx: &Context<'_>,
    geometry_edited: bool,
) -> Result<Option<Vec<IncomingMesh>>, ImportError> {
    let key = |node: usize| influence_key(cx.ids, node);
    let instances = incoming_instances(cx.doc, cx.graph, &key, rig_skinned(cx.ids))?.instances;
    let matched = match_originals(cx, &instances);
    // A node that is no original mesh is a new mesh, also when its geometry repeats one
    // (a copy made in place).
    let geometry_edited = geometry_edited || matched.which.iter().any(Option::is_none);
    if !geometry_edited {
        return Ok(materials_only(cx, &instances, &matched.which));
    }
    let Matched {
        which,
        tags,
        claimed,
        unwritten,
    } = matched;
    let mut out: Vec<IncomingMesh> = unwritten
        .iter()
        .filter_map(|&k| {
            Some(IncomingMesh {
                name: cx.originals.get(k)?.name.clone(),
                original: Some(k),
                like: Some(k),
                ..IncomingMesh::default()
            })
        })
        .collect();
    let mut changed = claimed.iter().any(|c| !c);
    for ((inst, w), tag) in instances.iter().zip(&which).zip(&tags) {
        out.push(incoming_mesh(cx, inst, *w, *tag, &mut changed)?);
    }
    Ok(changed.then_some(out))
}

/// Which original mesh each mesh node is (see [`match_originals`]).
struct Matched {
    /// Per node: the original mesh it is, if any.
    which: Vec<Option<usize>>,
    /// Per node: the mesh index its extras carry.
    tags: Vec<Option<usize>>,
    /// Per original mesh: whether a node is it (or it has none, being unwritten).
    claimed: Vec<bool>,
    /// The original meshes the export wrote no mesh for (no triangles).
    unwritten: Vec<usize>,
}

/// Which original mesh each node is: the one of its name, else the one its extras tag (a
/// renamed node still names its mesh, unless a node of that name came too: then this one is a
/// copy). A mesh without triangles has no node in the document: it stays as it is.
fn match_originals(cx: &Context<'_>, instances: &[Instance]) -> Matched {
    let originals = cx.originals;
    let mut claimed: Vec<bool> = (0..originals.len())
        .map(|k| {
            cx.exported
                .and_then(|e| e.report.meshes.get(k))
                .is_some_and(|info| info.gltf_mesh.is_none())
        })
        .collect();
    let unwritten: Vec<usize> = (0..originals.len()).filter(|&k| claimed[k]).collect();
    let mut which: Vec<Option<usize>> = vec![None; instances.len()];
    for (w, inst) in which.iter_mut().zip(instances) {
        if let Some(k) = originals
            .iter()
            .position(|m| m.name == inst.name)
            .filter(|&k| !claimed[k])
        {
            claimed[k] = true;
            *w = Some(k);
        }
    }
    let tags: Vec<Option<usize>> = instances.iter().map(|i| mesh_tag(cx.doc, i.node)).collect();
    for (w, tag) in which.iter_mut().zip(&tags) {
        if w.is_none() {
            if let Some(k) = tag.filter(|&k| k < originals.len() && !claimed[k]) {
                claimed[k] = true;
                *w = Some(k);
            }
        }
    }
    Matched {
        which,
        tags,
        claimed,
        unwritten,
    }
}

/// The meshes when the geometry is the original's as a whole (also when a tool merged mesh
/// nodes): every original with its node's name and material; `None` when no material changed.
fn materials_only(
    cx: &Context<'_>,
    instances: &[Instance],
    which: &[Option<usize>],
) -> Option<Vec<IncomingMesh>> {
    let mut changed = false;
    let mut out = Vec::with_capacity(cx.originals.len());
    for (k, o) in cx.originals.iter().enumerate() {
        let node = which.iter().position(|w| *w == Some(k));
        // A node holding several materials holds several meshes' triangles (merged by a
        // tool): which one is whose cannot be told, so none counts as changed.
        let material = node
            .and_then(|i| instances.get(i))
            .and_then(|inst| material_of(cx.doc, cx.aliases, inst).ok().flatten());
        changed |= material_changed(cx, o.material.as_deref(), material.as_deref());
        out.push(IncomingMesh {
            name: node
                .and_then(|i| instances.get(i))
                .map_or_else(|| o.name.clone(), |i| i.name.clone()),
            original: Some(k),
            like: Some(k),
            material,
            ..IncomingMesh::default()
        });
    }
    changed.then_some(out)
}

/// Mesh node `inst` as an incoming mesh: original mesh `w` (if any), like `w` or else the mesh
/// `tag` names, with its geometry in native units when it differs from that mesh's. Sets
/// `changed` when its material or geometry changed.
fn incoming_mesh(
    cx: &Context<'_>,
    inst: &Instance,
    w: Option<usize>,
    tag: Option<usize>,
    changed: &mut bool,
) -> Result<IncomingMesh, ImportError> {
    let (doc, originals) = (cx.doc, cx.originals);
    let material = material_of(doc, cx.aliases, inst)?;
    let like = w.or(tag.filter(|&k| k < originals.len()));
    let incoming = collect(doc, std::slice::from_ref(inst), 0)?;
    let mut m = IncomingMesh {
        name: inst.name.clone(),
        original: w,
        like,
        material: material.clone(),
        ..IncomingMesh::default()
    };
    let expected_like = match like {
        Some(k) => Some(expected_geometry(cx.ids, cx.exported, Some(k))?),
        None => None,
    };
    let edited = match (w, &expected_like) {
        (Some(_), Some(e)) => {
            compare_geometry(&incoming, e, cx.tol, &Names::default).difference_count > 0
        }
        _ => true,
    };
    if let Some(k) = w {
        let original_material = originals.get(k).and_then(|o| o.material.as_deref());
        *changed |= material_changed(cx, original_material, material.as_deref());
    }
    if edited {
        *changed = true;
        // A new mesh hangs on the skeleton its own skin's joints belong to.
        let skeleton = match like.and_then(|k| originals.get(k)) {
            Some(o) => o.skeleton,
            None => skin_skeleton(inst),
        };
        let (g, origin, dropped) = native_geometry(
            &incoming,
            expected_like
                .as_ref()
                .zip(like.and_then(|k| originals.get(k))),
            skeleton,
            cx.ids,
            cx.graph,
            inst,
            cx.space,
            cx.tol,
        )?;
        m.geometry = Some(g);
        m.origin = origin;
        m.dropped = dropped;
    }
    Ok(m)
}

/// The skeleton most of an instance's skin joints belong to (the first such), `None` when it
/// is not skinned or names no joint.
pub(super) fn skin_skeleton(inst: &Instance) -> Option<usize> {
    let slots = inst.slots.as_ref()?;
    let mut counts: Vec<(usize, usize)> = Vec::new();
    for s in slots {
        if let InfKey::Joint(k, _) = s {
            match counts.iter_mut().find(|c| c.0 == *k) {
                Some(c) => c.1 += 1,
                None => counts.push((*k, 1)),
            }
        }
    }
    counts.iter().rev().max_by_key(|c| c.1).map(|c| c.0)
}

/// Whether an incoming material changes what the original one meant (to the rig's format): a
/// name that means nothing to it (another tool's default material) changes nothing.
fn material_changed(cx: &Context<'_>, original: Option<&str>, incoming: Option<&str>) -> bool {
    let format = cx.format;
    let key = |m: Option<&str>| m.and_then(|m| format.material_key(m));
    key(incoming).is_some() && key(incoming) != key(original)
}

/// The mesh index a node's extras carry (`extras.rigtrip.mesh`).
fn mesh_tag(doc: &Doc, node: usize) -> Option<usize> {
    let n = doc.json().get("nodes")?.get(node)?;
    let v = rigtrip_of(n, doc.node_extras(node))?;
    v.get("mesh")?
        .as_u64()
        .and_then(|x| usize::try_from(x).ok())
}

/// The one material a node's primitives name (`None`: none names one); two different ones
/// are refused, a native mesh has one.
pub(super) fn material_of(
    doc: &Doc,
    aliases: &[(String, String)],
    inst: &Instance,
) -> Result<Option<String>, ImportError> {
    let prims = doc
        .array("meshes")
        .get(inst.mesh)
        .map_or(&[][..], |m| crate::gltf::read::json::list(m, "primitives"));
    let mut found: Option<String> = None;
    for p in prims {
        let Some(i) = p.get("material").and_then(Value::as_u64) else {
            continue;
        };
        let name = doc
            .json()
            .get("materials")
            .and_then(|m| m.get(i as usize))
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        // A material showing a new texture of the document's archive is read as that texture's.
        let name = match aliases.iter().find(|(a, _)| a == name) {
            Some((_, alias)) => alias.clone(),
            None => name.to_string(),
        };
        match &found {
            Some(f) if *f != name => {
                return Err(ImportError::MeshRefused(crate::rig::mesh::MeshRefusal {
                    mesh: inst.name.clone(),
                    problem: format!(
                        "its faces use the materials {f:?} and {name:?}, but a native mesh has one material; give all its faces one, or separate them into another mesh (Blender: P, By Material)"
                    ),
                }));
            }
            _ => found = Some(name),
        }
    }
    Ok(found)
}

/// A node's geometry in native units: positions and normals back from metres and glTF axes,
/// influences as written joint indices (the four largest), and per vertex the original vertex
/// of `expected` it is unchanged from. Returns the mesh, the origins and what was dropped past
/// the fourth influence.
#[allow(clippy::too_many_arguments)]
pub(super) fn native_geometry(
    incoming: &Geometry,
    like: Option<(&Geometry, &Mesh)>,
    skeleton: Option<usize>,
    ids: &Identities,
    graph: &Graph,
    inst: &Instance,
    space: Space,
    tol: &Tolerance,
) -> Result<(Mesh, Vec<Option<u32>>, Dropped), ImportError> {
    let skin = Skinning {
        skeleton,
        ids,
        graph,
        inst,
        space,
    };
    let n = incoming.verts.len();
    let mut g = Mesh {
        name: inst.name.clone(),
        skeleton,
        ..Mesh::default()
    };
    let mut origin = Vec::with_capacity(n);
    let mut dropped = Dropped::default();
    let expected = like.map(|l| l.0);
    let grid = expected.map(|e| near_grid(e, tol));
    for v in &incoming.verts {
        let found = match (expected, &grid) {
            (Some(e), Some(grid)) => nearest(grid, e, v, |x| close(x, v, tol)),
            _ => None,
        };
        origin.push(found.and_then(|k| u32::try_from(k).ok()));
        // A vertex whose influences changed but whose shape did not keeps the original's
        // position, normal and UV values (exact: the lift widened them from what is stored).
        let shape = match (like, &grid) {
            (Some((e, _)), Some(grid)) if found.is_none() => {
                nearest(grid, e, v, |x| close_shape(x, v, tol))
            }
            _ => None,
        }
        .and_then(|k| like.map(|(_, m)| (m, k)));
        let p = push_shape(&mut g, v, (shape, found), like, space);
        if skeleton.is_none() || found.is_some() {
            continue;
        }
        let (js, ws) = skin.influences(v, p, &mut dropped)?;
        g.joints.push(js);
        g.weights.push(ws);
    }
    if skeleton.is_some() {
        spread_influences(&mut g, &origin);
    }
    if g.normals.len() != n {
        g.normals.clear();
    }
    if g.uvs.len() != n {
        g.uvs.clear();
    }
    if g.colors.len() != n {
        g.colors.clear();
    }
    for t in &incoming.tris {
        let t = t.map(|c| u32::try_from(c).unwrap_or(u32::MAX));
        g.triangles.push(t);
    }
    Ok((g, origin, dropped))
}

/// The originals of `expected` near each point: a grid as fine as the position tolerance.
fn near_grid(expected: &Geometry, tol: &Tolerance) -> Grid {
    let max_r = expected
        .verts
        .iter()
        .map(|v| len3(&v.p))
        .filter(|r| r.is_finite())
        .fold(0.0f64, f64::max);
    let h = 2.0 * tol.translation_at(max_r);
    let h = if h.is_finite() && h > 0.0 { h } else { 1.0 };
    Grid::new(h, expected.verts.iter().enumerate().map(|(k, v)| (k, v.p)))
}

/// The first vertex of `expected` near `v` that `matches`.
fn nearest(
    grid: &Grid,
    expected: &Geometry,
    v: &Vert,
    matches: impl Fn(&Vert) -> bool,
) -> Option<usize> {
    grid.near(&v.p)
        .filter(|&k| expected.verts.get(k).is_some_and(&matches))
        .min()
}

/// Appends vertex `v`'s position, normal, UV and colour to `g` in native units; where `shape`
/// names an original vertex of the same shape, that one's values. The colour a tool dropped
/// (see `close_shape`) is the original vertex's (`shape`, else `found`), else white when the
/// original mesh has colours. Returns the native position.
fn push_shape(
    g: &mut Mesh,
    v: &Vert,
    (shape, found): (Option<(&Mesh, usize)>, Option<usize>),
    like: Option<(&Geometry, &Mesh)>,
    space: Space,
) -> DVec3 {
    let kept = |f: fn(&Mesh) -> &[[f64; 3]]| shape.and_then(|(m, k)| f(m).get(k).copied());
    let p = match kept(|m| &m.positions) {
        Some(p) => DVec3::from_array(p),
        None => space.invert_point(DVec3::from_array(v.p)),
    };
    g.positions.push(p.to_array());
    if let Some(nv) = v.n {
        g.normals.push(
            kept(|m| &m.normals)
                .unwrap_or_else(|| space.direction(DVec3::from_array(nv)).to_array()),
        );
    }
    if let Some(uv) = v.uv {
        g.uvs
            .push(shape.and_then(|(m, k)| m.uvs.get(k).copied()).unwrap_or(uv));
    }
    // Colours a tool dropped (see `close_shape`) are the original vertex's, else white.
    let colour =
        v.c.or_else(|| shape.and_then(|(m, k)| m.colors.get(k).copied()))
            .or_else(|| found.and_then(|k| like.and_then(|(_, m)| m.colors.get(k).copied())));
    match colour {
        Some(c) => g.colors.push(c),
        None if like.is_some_and(|(_, m)| !m.colors.is_empty()) => g.colors.push([1.0; 4]),
        None => {}
    }
    p
}

/// Gives every vertex an influence entry: the ones read, in order, for the vertices not kept
/// from an original, zeros for the kept ones (they carry the original's stored influences;
/// the format reads them).
fn spread_influences(g: &mut Mesh, origin: &[Option<u32>]) {
    let n = origin.len();
    g.joints.resize(n, [0; 4]);
    g.weights.resize(n, [0.0; 4]);
    let mut k = 0;
    let (mut js, mut ws) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for o in origin {
        if o.is_some() {
            js.push([0; 4]);
            ws.push([0.0; 4]);
        } else {
            js.push(g.joints.get(k).copied().unwrap_or_default());
            ws.push(g.weights.get(k).copied().unwrap_or_default());
            k += 1;
        }
    }
    g.joints = js;
    g.weights = ws;
}

/// What turning a node's influences into its skeleton's joint indices needs.
struct Skinning<'a> {
    /// The skeleton the mesh is skinned to.
    skeleton: Option<usize>,
    ids: &'a Identities,
    graph: &'a Graph,
    inst: &'a Instance,
    space: Space,
}

impl Skinning<'_> {
    /// Vertex `v`'s four largest influences as written joint indices, the ones past the
    /// fourth added to `dropped`; refused when it is weighted to a node that is not a joint
    /// of the mesh's skeleton. `p` is its native position, for messages.
    fn influences(
        &self,
        v: &Vert,
        p: DVec3,
        dropped: &mut Dropped,
    ) -> Result<([u16; 4], [f64; 4]), ImportError> {
        let mut inf: Vec<(u16, f64)> = Vec::with_capacity(v.inf.len());
        for &(k, w) in v.inf.iter() {
            let joint = match k {
                InfKey::Joint(s, key) if Some(s) == self.skeleton => self
                    .ids
                    .keys
                    .get(s)
                    .and_then(|keys| keys.iter().position(|&x| x == key))
                    .and_then(|j| u16::try_from(j).ok()),
                _ => None,
            };
            let Some(joint) = joint else {
                return Err(self.stray(k, p));
            };
            inf.push((joint, w));
        }
        inf.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        if inf.len() > 4 {
            dropped.influences += inf.len() - 4;
            dropped.largest = inf[4..].iter().map(|e| e.1).fold(dropped.largest, f64::max);
            inf.truncate(4);
        }
        let mut js = [0u16; 4];
        let mut ws = [0f64; 4];
        for (s, (j, w)) in inf.into_iter().enumerate() {
            if let (Some(a), Some(b)) = (js.get_mut(s), ws.get_mut(s)) {
                *a = j;
                *b = w;
            }
        }
        Ok((js, ws))
    }

    /// The refusal of a vertex at native `p` weighted to `k`, which is no joint of the mesh's
    /// skeleton.
    fn stray(&self, k: InfKey, p: DVec3) -> ImportError {
        let space = self.space;
        let node = match k {
            InfKey::Stray(node) => Some(node),
            InfKey::Joint(..) => None,
        };
        let name = node
            .and_then(|x| self.graph.nodes.get(x))
            .map(|x| x.name.clone())
            .unwrap_or_default();
        ImportError::MeshRefused(crate::rig::mesh::MeshRefusal {
            mesh: self.inst.name.clone(),
            problem: match k {
                InfKey::Joint(s, _) => format!(
                    "vertex at {} is weighted to a joint of skeleton {s}, but the mesh belongs to skeleton {}; a native mesh is skinned to its own skeleton",
                    space.shown(p),
                    self.skeleton.unwrap_or(0)
                ),
                InfKey::Stray(_) => format!(
                    "vertex at {} is weighted to {name:?}, which is not a joint of its skeleton",
                    space.shown(p)
                ),
            },
        })
    }
}
