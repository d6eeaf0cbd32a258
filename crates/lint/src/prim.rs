//! Skinned primitives and the nodes that show them: JOINTS/WEIGHTS pairs and types, weight
//! sums, repeated joints, influences beyond four, the node ↔ skin ↔ JOINTS contract in both
//! directions, joint slots in range, and slots written as node indices.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use glam::DMat4;
use serde_json::Value;

use super::doc::{escape, index, Doc, Graph, Ix};
use super::out::Out;
use super::skin::{placeholder, report_placeholder, SkinInfo, POSE_TOL};
use super::{PrimitiveSummary, SkinSummary, WeightSums};
use rigtrip_gltf::component::{FLOAT, UNSIGNED_BYTE, UNSIGNED_SHORT};

/// One JOINTS_n / WEIGHTS_n set, decoded (4 values per vertex).
struct Set {
    n: u32,
    joints: Option<Vec<u32>>,
    weights: Option<Vec<f64>>,
}

impl Set {
    /// Vertices whose influences were decoded: the shorter stream of the two read.
    fn decoded_len(&self) -> Option<usize> {
        let j = self.joints.as_ref().map(|v| v.len() / 4);
        let w = self.weights.as_ref().map(|v| v.len() / 4);
        match (j, w) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// A primitive with skinning attributes.
struct Prim {
    mesh: usize,
    prim: usize,
    sets: Vec<Set>,
    /// Vertices covered by every decoded set.
    vertices: usize,
    summary_at: usize,
}

impl Prim {
    fn ptr(&self) -> String {
        format!("/meshes/{}/primitives/{}", self.mesh, self.prim)
    }
    fn has_joints(&self) -> bool {
        !self.sets.is_empty()
    }
}

/// Parses `JOINTS_3` → 3.
fn set_number(key: &str, prefix: &str) -> Option<u32> {
    let d = key.strip_prefix(prefix)?;
    if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    d.parse().ok()
}

/// Checks every primitive and every node with a mesh or a skin. Returns the primitive
/// summaries and the number of skinned mesh nodes.
pub(crate) fn check(
    doc: &Doc,
    graph: &Graph,
    skins: &[SkinInfo],
    skin_summaries: &mut [SkinSummary],
    out: &mut Out,
) -> (Vec<PrimitiveSummary>, usize) {
    let mut summaries = Vec::new();
    let mut per_mesh = primitives_per_mesh(doc, out, &mut summaries);
    let n_meshes = per_mesh.len();
    let n_skins = skins.len();
    let scenes = scene_roots(doc);
    let mut skinned_nodes = 0;
    let mut done: HashSet<(usize, usize, usize)> = HashSet::new();
    for (i, node) in doc.array("nodes").iter().enumerate() {
        if node.get("mesh").is_none() && node.get("skin").is_none() {
            continue;
        }
        let ptr = format!("/nodes/{i}");
        let mesh = match index(out, node, "mesh", n_meshes, &ptr, "meshes") {
            Ix::At(m) => Some(m),
            _ => None,
        };
        let skin = match index(out, node, "skin", n_skins, &ptr, "skins") {
            Ix::At(s) => Some(s),
            _ => None,
        };
        let label = doc.node_label(i);
        match (mesh, skin) {
            // Whether or not the skin index resolves (that has its own finding).
            (None, _) if node.get("mesh").is_none() && node.get("skin").is_some() => out.error(
                "node-skin-without-mesh",
                format!("{ptr}/skin"),
                format!(
                    "{label} has {} but no mesh: nothing is deformed",
                    skin.map_or_else(|| "a skin".to_string(), |s| format!("skin {s}"))
                ),
            ),
            (None, _) => {}
            (Some(m), None) => report_joints_without_skin(out, &per_mesh, m, ptr, &label),
            (Some(m), Some(s)) => {
                skinned_nodes += 1;
                if let Some(sum) = skin_summaries.get_mut(s) {
                    sum.mesh_nodes += 1;
                }
                let world = graph.world.get(i).copied().unwrap_or(DMat4::IDENTITY);
                if !world.abs_diff_eq(DMat4::IDENTITY, POSE_TOL) {
                    out.info(
                        "skinned-mesh-transformed",
                        ptr.clone(),
                        format!(
                            "{label} is a skinned mesh whose own world transform is not the identity: the spec ignores it (loaders that keep it, like three.js, cancel it out while it does not move)"
                        ),
                    );
                }
                if let Some(info) = skins.get(s) {
                    check_scenes(doc, graph, out, i, s, info, &scenes);
                }
                let Some((skinned, plain)) = per_mesh.get_mut(m) else {
                    continue;
                };
                if skinned.is_empty() {
                    out.error(
                        "node-skin-without-joints",
                        format!("{ptr}/skin"),
                        format!(
                            "{label} has skin {s}, but no primitive of mesh {m} has JOINTS_0/WEIGHTS_0: the surface is not deformed"
                        ),
                    );
                    continue;
                }
                for &p in plain.iter() {
                    if done.insert((m, p, usize::MAX)) {
                        out.warning(
                            "primitive-not-skinned",
                            format!("/meshes/{m}/primitives/{p}"),
                            format!("mesh {m} is skinned ({label}, skin {s}), but its primitive {p} has no JOINTS_0: it stays in place while the rest deforms"),
                        );
                    }
                }
                let Some(info) = skins.get(s) else {
                    continue;
                };
                for prim in skinned.iter() {
                    if let Some(sum) = summaries.get_mut(prim.summary_at) {
                        sum.nodes.push(i);
                        if !sum.skins.contains(&s) {
                            sum.skins.push(s);
                        }
                    }
                    if done.insert((m, prim.prim, s)) {
                        check_slots(doc, out, prim, s, info);
                    }
                }
            }
        }
    }
    report_unused_skins(skin_summaries, out);
    (summaries, skinned_nodes)
}

/// Per mesh: its primitives with skinning attributes, and the primitives without them.
type PerMesh = Vec<(Vec<Prim>, Vec<usize>)>;

/// Checks every primitive of every mesh (summaries of the skinned ones go to `summaries`) and
/// sorts them per mesh into skinned and plain.
fn primitives_per_mesh(doc: &Doc, out: &mut Out, summaries: &mut Vec<PrimitiveSummary>) -> PerMesh {
    let mut per_mesh: PerMesh = Vec::new();
    for (m, mesh) in doc.array("meshes").iter().enumerate() {
        let prims = rigtrip_gltf::json::list(mesh, "primitives");
        let mut skinned = Vec::new();
        let mut plain = Vec::new();
        for (p, prim) in prims.iter().enumerate() {
            match check_primitive(doc, out, m, p, prim, summaries) {
                Some(x) if x.has_joints() => skinned.push(x),
                Some(_) => {}
                None => plain.push(p),
            }
        }
        per_mesh.push((skinned, plain));
    }

    per_mesh
}

/// A node showing mesh `m` without a skin, though a primitive of the mesh has JOINTS: legal,
/// drawn static (a warning naming the first such primitive).
fn report_joints_without_skin(
    out: &mut Out,
    per_mesh: &PerMesh,
    m: usize,
    ptr: String,
    label: &str,
) {
    if let Some((skinned, _)) = per_mesh.get(m) {
        if let Some(first) = skinned.first() {
            out.warning(
                "node-joints-without-skin",
                ptr,
                format!(
                    "{label} shows mesh {m}, whose primitive {} has JOINTS_{}, but the node has no skin: legal, and loaders draw it as a static mesh",
                    first.prim,
                    first.sets.first().map_or(0, |s| s.n)
                ),
            );
        }
    }
}

/// An info for every skin no mesh node uses.
fn report_unused_skins(skin_summaries: &[SkinSummary], out: &mut Out) {
    for sum in skin_summaries.iter() {
        if sum.mesh_nodes == 0 {
            out.info(
                "skin-unused",
                format!("/skins/{}", sum.index),
                format!(
                    "skin {} is used by no mesh node: its skeleton deforms nothing",
                    sum.index
                ),
            );
        }
    }
}

/// The root nodes of each scene (valid indices only; the validator reports the others).
fn scene_roots(doc: &Doc) -> Vec<BTreeSet<usize>> {
    doc.array("scenes")
        .iter()
        .map(|sc| {
            rigtrip_gltf::json::list(sc, "nodes")
                .iter()
                .filter_map(rigtrip_gltf::json::index)
                .collect()
        })
        .collect()
}

/// Skinned mesh node `i` (skin `s`) in a scene that lacks some of the skin's joints: the
/// joints' world matrices are then undefined there (validator `NODE_SKIN_NO_SCENE`).
fn check_scenes(
    doc: &Doc,
    graph: &Graph,
    out: &mut Out,
    i: usize,
    s: usize,
    info: &SkinInfo,
    scenes: &[BTreeSet<usize>],
) {
    let in_scene =
        |roots: &BTreeSet<usize>, x: usize| graph.top(x).is_some_and(|t| roots.contains(&t));
    for (k, roots) in scenes.iter().enumerate() {
        if !in_scene(roots, i) {
            continue;
        }
        let missing: Vec<usize> = info
            .joints
            .iter()
            .flatten()
            .copied()
            .filter(|&j| !in_scene(roots, j))
            .collect();
        if let Some(&first) = missing.first() {
            out.error(
                "skin-joints-not-in-scene",
                format!("/nodes/{i}"),
                format!(
                    "{} shows skin {s} in scene {k}, but {} of the skin's {} joints are not in that scene (first: {}): loaders have no pose for them",
                    doc.node_label(i),
                    missing.len(),
                    info.joints.len(),
                    doc.node_label(first)
                ),
            );
            return;
        }
    }
}

/// The JOINTS_n and WEIGHTS_n attributes of a primitive, by set number.
type BySet<'a> = BTreeMap<u32, &'a Value>;

/// A primitive's JOINTS_n and WEIGHTS_n attributes, each by set number.
fn influence_attributes(attrs: &serde_json::Map<String, Value>) -> (BySet<'_>, BySet<'_>) {
    let mut joints = BTreeMap::new();
    let mut weights = BTreeMap::new();
    for (k, v) in attrs {
        if let Some(n) = set_number(k, "JOINTS_") {
            joints.insert(n, v);
        } else if let Some(n) = set_number(k, "WEIGHTS_") {
            weights.insert(n, v);
        }
    }
    (joints, weights)
}

/// Pairing, types, counts and the per-vertex checks of one primitive. `None` when it has no
/// JOINTS or WEIGHTS attribute.
fn check_primitive(
    doc: &Doc,
    out: &mut Out,
    m: usize,
    p: usize,
    prim: &Value,
    summaries: &mut Vec<PrimitiveSummary>,
) -> Option<Prim> {
    let attrs_v = prim.get("attributes")?;
    let attrs = attrs_v.as_object()?;
    let (joints, weights) = influence_attributes(attrs);
    if joints.is_empty() && weights.is_empty() {
        return None;
    }
    let ptr = format!("/meshes/{m}/primitives/{p}");
    let aptr = format!("{ptr}/attributes");
    let n_acc = doc.array("accessors").len();
    let acc_of =
        |out: &mut Out, key: &str| match index(out, attrs_v, key, n_acc, &aptr, "accessors") {
            Ix::At(a) => Some(a),
            _ => None,
        };
    let compressed = prim
        .get("extensions")
        .and_then(Value::as_object)
        .is_some_and(|e| e.contains_key("KHR_draco_mesh_compression"));
    let vertices = attrs
        .get("POSITION")
        .and_then(Value::as_u64)
        .and_then(|a| declared_count(doc, a as usize));

    let at = Place {
        m,
        p,
        ptr: &ptr,
        aptr: &aptr,
        vertices,
        compressed,
    };
    let mut sets = Vec::new();
    let numbers: BTreeSet<u32> = joints.keys().chain(weights.keys()).copied().collect();
    for &n in &numbers {
        let (jk, wk) = (format!("JOINTS_{n}"), format!("WEIGHTS_{n}"));
        if !check_paired(
            out,
            &at,
            (&jk, joints.contains_key(&n)),
            (&wk, weights.contains_key(&n)),
        ) {
            continue;
        }
        let mut set = Set {
            n,
            joints: None,
            weights: None,
        };
        let ja = acc_of(out, &jk);
        let wa = if weights.contains_key(&n) {
            acc_of(out, &wk)
        } else {
            None
        };
        set.joints = ja
            .and_then(|a| read_set_accessor(doc, out, &at, a, &jk, true))
            .map(|data| data.into_iter().map(|x| x as u32).collect());
        set.weights = wa.and_then(|a| read_set_accessor(doc, out, &at, a, &wk, false));
        sets.push(set);
    }

    let n = sets.iter().filter_map(Set::decoded_len).min().unwrap_or(0);
    let mut summary = PrimitiveSummary {
        mesh: m,
        primitive: p,
        vertices: vertices.unwrap_or(n),
        influence_sets: sets.len(),
        ..PrimitiveSummary::default()
    };
    let complete = !sets.is_empty()
        && sets
            .iter()
            .all(|s| s.joints.is_some() && s.weights.is_some());
    if complete {
        per_vertex(out, m, p, &aptr, &sets, n, &mut summary);
    }
    let summary_at = summaries.len();
    summaries.push(summary);
    Some(Prim {
        mesh: m,
        prim: p,
        sets,
        vertices: n,
        summary_at,
    })
}

/// An error for a JOINTS_n without its WEIGHTS_n or the reverse (each given with whether the
/// primitive has it); `false` when there is no JOINTS_n, so nothing of the set is read.
fn check_paired(out: &mut Out, at: &Place, joints: (&str, bool), weights: (&str, bool)) -> bool {
    let (m, p, aptr) = (at.m, at.p, at.aptr);
    let ((jk, has_j), (wk, has_w)) = (joints, weights);
    if has_j && !has_w {
        out.error(
            "joints-weights-unpaired",
            format!("{aptr}/{jk}"),
            format!("mesh {m} primitive {p} has {jk} but no {wk}"),
        );
    } else if has_w && !has_j {
        out.error(
            "joints-weights-unpaired",
            format!("{aptr}/{wk}"),
            format!("mesh {m} primitive {p} has {wk} but no {jk}"),
        );
        return false;
    }
    true
}

/// Where a primitive's influence sets are read: mesh, primitive, their JSON pointers, the
/// vertex count POSITION declares and whether the primitive is Draco-compressed.
struct Place<'a> {
    m: usize,
    p: usize,
    ptr: &'a str,
    aptr: &'a str,
    vertices: Option<usize>,
    compressed: bool,
}

/// The `count` accessor `a` declares, when it is a valid size.
fn declared_count(doc: &Doc, a: usize) -> Option<usize> {
    doc.array("accessors")
        .get(a)?
        .get("count")?
        .as_u64()
        .and_then(|c| usize::try_from(c).ok())
}

/// The data of a JOINTS_n (`is_joints`) or WEIGHTS_n accessor `a` named `key`, after its
/// count, type and placeholder checks; `None` when it cannot or need not be read.
fn read_set_accessor(
    doc: &Doc,
    out: &mut Out,
    at: &Place,
    a: usize,
    key: &str,
    is_joints: bool,
) -> Option<Vec<f64>> {
    let (m, p) = (at.m, at.p);
    let kptr = format!("{}/{}", at.aptr, escape(key));
    if let (Some(v), Some(c)) = (at.vertices, declared_count(doc, a)) {
        if v != c {
            out.error(
                "attribute-count",
                kptr.clone(),
                format!(
                    "mesh {m} primitive {p}: {key} has {c} elements for {v} vertices (POSITION)"
                ),
            );
        }
    }
    if at.compressed {
        out.info(
            "data-compressed",
            at.ptr.to_string(),
            format!("mesh {m} primitive {p} is Draco-compressed; its {key} data was not checked"),
        );
        return None;
    }
    let Ok(Some(acc)) = doc.accessor(a, out) else {
        return None;
    };
    let type_ok = acc.type_name == "VEC4"
        && if is_joints {
            matches!(acc.ctype, UNSIGNED_BYTE | UNSIGNED_SHORT) && !acc.normalized
        } else {
            acc.ctype == FLOAT
                || (matches!(acc.ctype, UNSIGNED_BYTE | UNSIGNED_SHORT) && acc.normalized)
        };
    if !type_ok {
        out.error(
            if is_joints {
                "joints-type"
            } else {
                "weights-type"
            },
            kptr,
            format!(
                "mesh {m} primitive {p}: {key} is {}, expected {}",
                acc.describe(),
                if is_joints {
                    "VEC4 UNSIGNED_BYTE or UNSIGNED_SHORT"
                } else {
                    "VEC4 FLOAT, or normalized VEC4 UNSIGNED_BYTE or UNSIGNED_SHORT"
                }
            ),
        );
        return None;
    }
    if placeholder(doc, a) {
        report_placeholder(out, a, kptr, &format!("mesh {m} primitive {p}: {key}"));
        return None;
    }
    Some(acc.read_all())
}

/// One influence of a vertex: set number, component and joint slot.
#[derive(Clone, Copy)]
struct Influence {
    set: u32,
    component: usize,
    joint: u32,
}

/// The first vertex that names a joint slot twice with non-zero weights, and how many do.
#[derive(Default)]
struct Duplicates {
    count: usize,
    first: Option<(usize, Influence, Influence)>,
}

/// What the scan of one primitive's vertices found.
#[derive(Default)]
struct Scan {
    sums: WeightSums,
    first_invalid: Option<usize>,
    first_zero: Option<usize>,
    /// Vertices whose sum (of the valid weights, over every set) is outside 0.97..1.03.
    off: usize,
    first_off: Option<(usize, f64)>,
    duplicates: Duplicates,
    beyond4: usize,
    max_joint: Option<u32>,
    zero_used: usize,
    first_zero_used: Option<(usize, u32, u32)>,
}

impl Scan {
    /// Reads vertex `v` across every set: the sum is taken over all `WEIGHTS_n` together, a
    /// joint slot named again with a non-zero weight (negative ones too, as the validator
    /// counts them) is a duplicate wherever the two influences sit.
    fn vertex(&mut self, sets: &[Set], v: usize, used: &mut Vec<Influence>) {
        let (mut sum, mut invalid, mut extra) = (0.0f64, false, false);
        used.clear();
        for (si, s) in sets.iter().enumerate() {
            let (Some(js), Some(ws)) = (&s.joints, &s.weights) else {
                continue;
            };
            for c in 0..4 {
                let (Some(&joint), Some(&w)) = (js.get(v * 4 + c), ws.get(v * 4 + c)) else {
                    continue;
                };
                let here = Influence {
                    set: s.n,
                    component: c,
                    joint,
                };
                if w != 0.0 {
                    if let Some(&before) = used.iter().find(|u| u.joint == joint) {
                        self.duplicates.count += 1;
                        self.duplicates.first.get_or_insert((v, before, here));
                    }
                    used.push(here);
                }
                if !(w.is_finite() && w >= 0.0) {
                    invalid = true;
                    continue;
                }
                sum += w;
                if w == 0.0 && joint != 0 {
                    self.zero_used += 1;
                    self.first_zero_used.get_or_insert((v, s.n, joint));
                }
                if w > 0.0 {
                    self.max_joint = Some(self.max_joint.map_or(joint, |x| x.max(joint)));
                    extra |= si > 0;
                }
            }
        }
        self.beyond4 += usize::from(extra);
        self.bucket(v, sum, invalid);
    }

    /// Files vertex `v` under its weight sum.
    fn bucket(&mut self, v: usize, sum: f64, invalid: bool) {
        let h = &mut self.sums;
        if sum != 0.0 && !(0.97..=1.03).contains(&sum) {
            self.off += 1;
            self.first_off.get_or_insert((v, sum));
        }
        if invalid {
            h.invalid += 1;
            self.first_invalid.get_or_insert(v);
        } else if sum == 0.0 {
            h.zero += 1;
            self.first_zero.get_or_insert(v);
        } else if sum < 0.97 {
            h.below += 1;
        } else if sum < 0.999 {
            h.low += 1;
        } else if sum <= 1.001 {
            h.unit += 1;
        } else if sum <= 1.03 {
            h.high += 1;
        } else {
            h.above += 1;
        }
    }
}

/// Weight sums, invalid weights, repeated joints and influences beyond the first set.
fn per_vertex(
    out: &mut Out,
    m: usize,
    p: usize,
    aptr: &str,
    sets: &[Set],
    n: usize,
    summary: &mut PrimitiveSummary,
) {
    let mut scan = Scan::default();
    let mut used: Vec<Influence> = Vec::with_capacity(4 * sets.len());
    for v in 0..n {
        scan.vertex(sets, v, &mut used);
    }
    let wptr = format!("{aptr}/WEIGHTS_{}", sets.first().map_or(0, |s| s.n));
    let h = &scan.sums;
    if let Some(v) = scan.first_invalid {
        out.error(
            "weights-invalid",
            wptr.clone(),
            format!(
                "mesh {m} primitive {p}: {} vertices have a negative or non-finite weight (first: vertex {v})",
                h.invalid
            ),
        );
    }
    if let Some(v) = scan.first_zero {
        out.error(
            "weights-zero-sum",
            wptr.clone(),
            format!(
                "mesh {m} primitive {p}: {} vertices have weights summing to zero (first: vertex {v}): they are bound to no joint and freeze or collapse to the origin",
                h.zero
            ),
        );
    }
    if let Some((v, s)) = scan.first_off {
        let over = match (sets.first(), sets.last()) {
            (Some(a), Some(b)) if sets.len() > 1 => {
                format!(" (summed over WEIGHTS_{} to WEIGHTS_{})", a.n, b.n)
            }
            _ => String::new(),
        };
        out.error(
            "weights-not-normalized",
            wptr.clone(),
            format!(
                "mesh {m} primitive {p}: {} vertices have weight sums{over} outside 0.97..1.03 (first: vertex {v}, sum {s:.6})",
                scan.off
            ),
        );
    }
    report_duplicates(out, m, p, aptr, &scan.duplicates);
    if let Some((v, n, j)) = scan.first_zero_used {
        out.info(
            "joint-zero-weight",
            format!("{aptr}/JOINTS_{n}"),
            format!(
                "mesh {m} primitive {p}: {} influences name a joint slot other than 0 with weight 0 (first: vertex {v}, slot {j}); harmless, but unused influences are usually written as slot 0",
                scan.zero_used
            ),
        );
    }
    report_sets(out, m, p, aptr, sets, scan.beyond4);
    summary.zero_sum_vertices = h.zero;
    summary.sums_outside_tolerance = h.below + h.above;
    summary.weight_sums = Some(scan.sums);
    summary.max_joint = scan.max_joint;
}

/// `joint-repeated`: at the set holding the second influence of the first such vertex.
fn report_duplicates(out: &mut Out, m: usize, p: usize, aptr: &str, d: &Duplicates) {
    let Some((v, a, b)) = d.first else {
        return;
    };
    out.error(
        "joint-repeated",
        format!("{aptr}/JOINTS_{}", b.set),
        format!(
            "mesh {m} primitive {p}: {} influences name a joint slot the same vertex already uses with non-zero weight (first: vertex {v}, slot {}, in JOINTS_{}[{}] and JOINTS_{}[{}]): GPU skinning adds the two weights, Blender's importer keeps only the last",
            d.count, b.joint, a.set, a.component, b.set, b.component
        ),
    );
}

/// `influences-over-4`: an info either way. glTF allows more than one JOINTS/WEIGHTS set, so
/// an asset using them is valid; what it says is where it will look different: runtimes that
/// read only `JOINTS_0` (three.js, bevy) drop the other sets' weight.
fn report_sets(out: &mut Out, m: usize, p: usize, aptr: &str, sets: &[Set], beyond4: usize) {
    let Some(s) = sets.get(1) else {
        return;
    };
    let ptr = format!("{aptr}/JOINTS_{}", s.n);
    let message = match beyond4 {
        0 => format!(
            "mesh {m} primitive {p} has {} JOINTS/WEIGHTS sets, but no vertex uses more than the first",
            sets.len()
        ),
        n => format!(
            "mesh {m} primitive {p}: {n} vertices have more than 4 influences ({} JOINTS/WEIGHTS sets), valid glTF; runtimes that read only JOINTS_0 (three.js, bevy) drop the rest and draw them otherwise than Blender",
            sets.len()
        ),
    };
    out.info("influences-over-4", ptr, message);
}

/// Joint slots against skin `s`: in range, and not node indices in disguise.
fn check_slots(doc: &Doc, out: &mut Out, prim: &Prim, s: usize, info: &SkinInfo) {
    let len = info.joints.len();
    let mut over_weighted = 0usize;
    let mut over_zero = 0usize;
    let mut first: Option<(u32, usize)> = None;
    let mut max = None::<u32>;
    // Joint values in use, as flags (JOINTS are at most 16-bit: the type was checked).
    let mut used: Vec<bool> = Vec::new();
    for set in &prim.sets {
        let Some(js) = &set.joints else { continue };
        let ws = set.weights.as_deref();
        let n = prim.vertices.min(js.len() / 4);
        for v in 0..n {
            let (mut bad_w, mut bad_z) = (false, false);
            for c in 0..4 {
                let Some(&j) = js.get(v * 4 + c) else {
                    continue;
                };
                // Unpaired JOINTS count as weighted: the weight is unknown.
                let weighted = ws.and_then(|w| w.get(v * 4 + c)).is_none_or(|&w| w != 0.0);
                if weighted && j <= u32::from(u16::MAX) {
                    if used.len() <= j as usize {
                        used.resize(j as usize + 1, false);
                    }
                    if let Some(u) = used.get_mut(j as usize) {
                        *u = true;
                    }
                }
                if (j as usize) >= len {
                    max = Some(max.map_or(j, |x| x.max(j)));
                    first.get_or_insert((set.n, v));
                    if weighted {
                        bad_w = true;
                    } else {
                        bad_z = true;
                    }
                }
            }
            if bad_w {
                over_weighted += 1;
            } else if bad_z {
                over_zero += 1;
            }
        }
    }
    let Some((set_n, v)) = first else {
        return;
    };
    let ptr = format!("{}/attributes/JOINTS_{set_n}", prim.ptr());
    out.error(
        "joints-out-of-range",
        ptr.clone(),
        format!(
            "mesh {} primitive {}: JOINTS values reach {}, but skin {s} has {len} joints (slots 0..{}): {over_weighted} vertices use an out-of-range slot with non-zero weight, {over_zero} more with weight zero (first: vertex {v})",
            prim.mesh,
            prim.prim,
            max.unwrap_or(0),
            len.saturating_sub(1)
        ),
    );

    // Node indices in disguise: every value in use falls on a joint's node index, and some of
    // them only make sense that way (beyond the slot range).
    let slot_of: BTreeMap<usize, usize> = info
        .joints
        .iter()
        .enumerate()
        .filter_map(|(k, j)| j.map(|j| (j, k)))
        .collect();
    let used: Vec<usize> = (0..used.len())
        .filter(|&j| used.get(j) == Some(&true))
        .collect();
    let beyond: Vec<usize> = used.iter().copied().filter(|&j| j >= len).collect();
    if !beyond.is_empty() && used.iter().all(|j| slot_of.contains_key(j)) {
        let example = beyond.first().copied().unwrap_or(0);
        let slot = slot_of.get(&example).copied().unwrap_or(0);
        out.error(
            "joint-slot-as-node-index",
            ptr,
            format!(
                "mesh {} primitive {}: every JOINTS value in use is the node index of a joint of skin {s}, and {} of them lie beyond its {len} slots (e.g. value {example} = {} = slot {slot}): the values were written as node indices instead of joint slots",
                prim.mesh,
                prim.prim,
                beyond.len(),
                doc.node_label(example)
            ),
        );
    }
}
