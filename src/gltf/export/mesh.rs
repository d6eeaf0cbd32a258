//! One rig mesh as one glTF primitive: its checks, its attributes as written (positions and
//! normals in glTF space, UVs, colours, joints and weights normalised to four influences), its
//! skin and its material.

use glam::DVec3;

use ::gltf_json as json;
use json::buffer::Target;
use json::mesh::{Mode, Primitive, Semantic};
use json::validation::Checked;
use json::Index;

use super::{f32_of, Draft, WrittenMesh};
use crate::gltf::buffer::Builder;
use crate::gltf::{ExportError, ExportReport, MeshProblem, VertexRef};
use crate::rig::mesh::Mesh;
use crate::rig::space::Space;

/// At least the bytes [`write_mesh`] appends for `m`, padding included.
pub(super) fn mesh_bytes(m: &Mesh) -> usize {
    let n = m.positions.len();
    let per_vertex = 12
        + if m.normals.is_empty() { 0 } else { 12 }
        + if m.uvs.is_empty() { 0 } else { 8 }
        + if m.colors.is_empty() { 0 } else { 16 }
        + if m.joints.is_empty() { 0 } else { 8 + 16 };
    n.saturating_mul(per_vertex)
        .saturating_add(m.triangles.len().saturating_mul(12))
        .saturating_add(6 * 3)
}

/// Writes mesh `i` as one primitive; `None` when it has no vertices or no triangles. Returns the
/// mesh and, for a skinned one, its skin.
pub(super) fn write_mesh(
    doc: &mut Draft,
    i: usize,
    m: &Mesh,
    skins: &[Option<(Index<json::Skin>, usize)>],
) -> Result<Option<WrittenMesh>, ExportError> {
    let err = |problem: MeshProblem| ExportError::Mesh {
        mesh: i,
        name: m.name.clone(),
        problem,
    };
    let skin = mesh_skin(m, skins).map_err(err)?;
    check_mesh(m, skin.is_some()).map_err(err)?;
    if m.positions.is_empty() || m.triangles.is_empty() {
        return Ok(None);
    }
    check_triangles(m).map_err(err)?;
    let report = &mut doc.report;
    let positions = written_positions(m, doc.space).map_err(err)?;
    let normals = written_normals(i, m, doc.space, &positions, report);
    let uvs = written_uvs(m).map_err(err)?;
    let colors = written_colors(i, m, report);
    let influences = match skin {
        None => None,
        Some((_, joint_count)) => Some(written_influences(i, m, joint_count, report).map_err(err)?),
    };

    let b = &mut doc.b;
    let mut attributes = std::collections::BTreeMap::new();
    let array = Some(Target::ArrayBuffer);
    attributes.insert(
        Checked::Valid(Semantic::Positions),
        b.floats(&positions, array, true, ""),
    );
    if let Some(normals) = normals {
        attributes.insert(
            Checked::Valid(Semantic::Normals),
            b.floats(&normals, array, false, ""),
        );
    }
    if !uvs.is_empty() {
        attributes.insert(
            Checked::Valid(Semantic::TexCoords(0)),
            b.floats(&uvs, array, false, ""),
        );
    }
    if !colors.is_empty() {
        attributes.insert(
            Checked::Valid(Semantic::Colors(0)),
            b.floats(&colors, array, false, ""),
        );
    }
    if let Some((js, ws, wide)) = influences {
        attributes.insert(Checked::Valid(Semantic::Joints(0)), b.joints(&js, wide, ""));
        attributes.insert(
            Checked::Valid(Semantic::Weights(0)),
            b.floats(&ws, array, false, ""),
        );
    }
    let indices = b.indices(&m.triangles, "");
    let material = m.material.as_deref().map(|name| material(b, name));
    let mesh = b.root.push(json::Mesh {
        extensions: None,
        extras: None,
        name: Some(m.name.clone()).filter(|s| !s.is_empty()),
        primitives: vec![Primitive {
            attributes,
            extensions: None,
            extras: None,
            indices: Some(indices),
            material,
            mode: Checked::Valid(Mode::Triangles),
            targets: None,
        }],
        weights: None,
    });
    Ok(Some((mesh, skin.map(|(s, _)| s))))
}

/// The skin (and its joint count) of the skeleton `m` is skinned to, if any; that skeleton
/// must exist and have joints.
fn mesh_skin(
    m: &Mesh,
    skins: &[Option<(Index<json::Skin>, usize)>],
) -> Result<Option<(Index<json::Skin>, usize)>, MeshProblem> {
    match m.skeleton {
        None => Ok(None),
        Some(s) => match skins.get(s) {
            Some(Some(skin)) => Ok(Some(*skin)),
            Some(None) => Err(MeshProblem::NoJoints(s)),
            None => Err(MeshProblem::NoSkeleton {
                skeleton: s,
                skeletons: skins.len(),
            }),
        },
    }
}

/// Refuses per-vertex attributes whose count is not the vertex count (influences only
/// matter when `skinned`).
fn check_mesh(m: &Mesh, skinned: bool) -> Result<(), MeshProblem> {
    let n = m.positions.len();
    for (what, len) in [
        ("normals", m.normals.len()),
        ("uvs", m.uvs.len()),
        ("colors", m.colors.len()),
    ] {
        if len != 0 && len != n {
            return Err(MeshProblem::AttributeCount {
                what,
                len,
                vertices: n,
            });
        }
    }
    if skinned && (m.joints.len() != n || m.weights.len() != n) {
        return Err(MeshProblem::InfluenceCount {
            joints: m.joints.len(),
            weights: m.weights.len(),
            vertices: n,
        });
    }
    Ok(())
}

/// Refuses more vertices than 32-bit indices reach and triangles using a vertex that is not
/// there.
fn check_triangles(m: &Mesh) -> Result<(), MeshProblem> {
    let n = m.positions.len();
    if n > u32::MAX as usize {
        return Err(MeshProblem::TooManyVertices(n));
    }
    for (t, tri) in m.triangles.iter().enumerate() {
        if let Some(&v) = tri.iter().find(|&&v| v as usize >= n) {
            return Err(MeshProblem::VertexPastEnd {
                triangle: t,
                vertex: v,
                vertices: n,
            });
        }
    }
    Ok(())
}

/// The positions as written: in glTF space, f32, refused where not finite.
fn written_positions(m: &Mesh, space: Space) -> Result<Vec<[f32; 3]>, MeshProblem> {
    let mut positions: Vec<[f32; 3]> = Vec::with_capacity(m.positions.len());
    for (v, p) in m.positions.iter().enumerate() {
        let q = space.point(DVec3::from_array(*p));
        let q = [f32_of(q.x), f32_of(q.y), f32_of(q.z)];
        if !q.iter().all(|c| c.is_finite()) {
            return Err(MeshProblem::Position {
                vertex: v,
                position: *p,
            });
        }
        positions.push(q);
    }
    Ok(positions)
}

/// The normals as written (none when the mesh has none): unit vectors in glTF space, where one
/// cannot be normalised the face normal (or +Y), reported as fixed.
fn written_normals(
    i: usize,
    m: &Mesh,
    space: Space,
    positions: &[[f32; 3]],
    report: &mut ExportReport,
) -> Option<Vec<[f32; 3]>> {
    if m.normals.is_empty() {
        return None;
    }
    let mut face: Option<Vec<DVec3>> = None;
    let mut out = Vec::with_capacity(m.positions.len());
    for (v, nv) in m.normals.iter().enumerate() {
        let d = space.direction(DVec3::from_array(*nv));
        let len = d.length();
        let unit = if len.is_finite() && len > 0.0 && (d / len).is_finite() {
            d / len
        } else {
            report.fixed_normals.push(VertexRef { mesh: i, vertex: v });
            let face = face.get_or_insert_with(|| face_normals(positions, &m.triangles));
            face.get(v)
                .copied()
                .filter(|f| *f != DVec3::ZERO)
                .unwrap_or(DVec3::Y)
        };
        out.push([f32_of(unit.x), f32_of(unit.y), f32_of(unit.z)]);
    }
    Some(out)
}

/// The UVs as written (f32), refused where not finite.
fn written_uvs(m: &Mesh) -> Result<Vec<[f32; 2]>, MeshProblem> {
    let mut uvs: Vec<[f32; 2]> = Vec::with_capacity(m.uvs.len());
    for (v, uv) in m.uvs.iter().enumerate() {
        let q = [f32_of(uv[0]), f32_of(uv[1])];
        if !q.iter().all(|c| c.is_finite()) {
            return Err(MeshProblem::Uv { vertex: v, uv: *uv });
        }
        uvs.push(q);
    }
    Ok(uvs)
}

/// The colours as written: clamped to 0..=1 (non-finite to 0), the clamped ones reported.
fn written_colors(i: usize, m: &Mesh, report: &mut ExportReport) -> Vec<[f32; 4]> {
    let mut colors: Vec<[f32; 4]> = Vec::with_capacity(m.colors.len());
    for (v, c) in m.colors.iter().enumerate() {
        let mut clamped = false;
        let q = c.map(|x| {
            let y = if x.is_finite() {
                x.clamp(0.0, 1.0)
            } else {
                0.0
            };
            clamped |= y != x;
            f32_of(y)
        });
        if clamped {
            report.clamped_colors.push(VertexRef { mesh: i, vertex: v });
        }
        colors.push(q);
    }
    colors
}

/// Every vertex's joints and weights as written, and whether the joints need 16 bits.
type Influences = (Vec<[u16; 4]>, Vec<[f32; 4]>, bool);

/// Every vertex's joints and weights as written (see [`influence`]), and whether the joints
/// need 16 bits (more than 256 joints).
fn written_influences(
    i: usize,
    m: &Mesh,
    joint_count: usize,
    report: &mut ExportReport,
) -> Result<Influences, MeshProblem> {
    let n = m.positions.len();
    let mut js = Vec::with_capacity(n);
    let mut ws = Vec::with_capacity(n);
    for (v, (j, w)) in m.joints.iter().zip(&m.weights).enumerate() {
        let (j, w) = influence(i, v, *j, *w, joint_count, report)?;
        js.push(j);
        ws.push(w);
    }
    Ok((js, ws, joint_count > 256))
}

/// The material named `name`, added the first time a mesh names it (a plain material: the
/// name is what carries meaning, e.g. DMC3's `texture_N`).
fn material(b: &mut Builder, name: &str) -> Index<json::Material> {
    if let Some(i) = b
        .root
        .materials
        .iter()
        .position(|m| m.name.as_deref() == Some(name))
    {
        return Index::new(i as u32);
    }
    b.root.push(json::Material {
        name: Some(name.to_string()),
        ..json::Material::default()
    })
}

/// Area-weighted face normals summed per vertex, normalised (zero where no face has an area).
fn face_normals(positions: &[[f32; 3]], triangles: &[[u32; 3]]) -> Vec<DVec3> {
    let mut acc = vec![DVec3::ZERO; positions.len()];
    let p = |v: u32| {
        positions
            .get(v as usize)
            .map(|q| DVec3::new(q[0].into(), q[1].into(), q[2].into()))
            .unwrap_or(DVec3::ZERO)
    };
    for t in triangles {
        let n = (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0]));
        for &v in t {
            if let Some(a) = acc.get_mut(v as usize) {
                *a += n;
            }
        }
    }
    acc.into_iter().map(|a| a.normalize_or_zero()).collect()
}

/// One vertex's influences as written: duplicates merged, negative and non-finite weights
/// dropped, normalised so that the f32 sum (accumulated in slot order, as the Khronos validator
/// does) is 1, unused slots joint 0 weight 0.
fn influence(
    mesh: usize,
    v: usize,
    joints: [u16; 4],
    weights: [f64; 4],
    joint_count: usize,
    report: &mut ExportReport,
) -> Result<([u16; 4], [f32; 4]), MeshProblem> {
    // Rigid binding (every proxy vertex): what the general path below gives, without its work.
    if weights == [1.0, 0.0, 0.0, 0.0] && usize::from(joints[0]) < joint_count {
        return Ok(([joints[0], 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
    }
    let at = VertexRef { mesh, vertex: v };
    // At most four distinct joints: a fixed array, no allocation per vertex.
    let mut acc = [(0u16, 0f64); 4];
    let mut used = 0usize;
    let (mut merged, mut dropped) = (false, false);
    for (slot, (&j, &w)) in joints.iter().zip(&weights).enumerate() {
        if !(w.is_finite() && w >= 0.0) {
            dropped = true;
            continue;
        }
        if w == 0.0 {
            continue;
        }
        if usize::from(j) >= joint_count {
            return Err(MeshProblem::JointPastEnd {
                vertex: v,
                slot,
                joint: j,
                weight: w,
                joints: joint_count,
            });
        }
        match acc.iter_mut().take(used).find(|(a, _)| *a == j) {
            Some(e) => {
                e.1 += w;
                merged = true;
            }
            None => {
                if let Some(e) = acc.get_mut(used) {
                    *e = (j, w);
                    used += 1;
                }
            }
        }
    }
    if merged {
        report.merged_joints.push(at);
    }
    if dropped {
        report.dropped_weights.push(at);
    }
    if used == 1 {
        // One joint: weight 1 whatever its value, as the general path below gives.
        return Ok(([acc[0].0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
    }
    if used == 0 {
        let first = joints[0];
        if usize::from(first) >= joint_count {
            return Err(MeshProblem::ZeroWeightJointPastEnd {
                vertex: v,
                joint: first,
                joints: joint_count,
            });
        }
        report.zero_weight_vertices.push(at);
        acc[0] = (first, 1.0);
        used = 1;
    }
    Ok(normalised(acc.get(..used).unwrap_or(&[])))
}

/// Distinct joints with positive weights as written: weights normalised so that their f32 sum,
/// accumulated in slot order, is 1; a weight too small for f32 dropped.
fn normalised(acc: &[(u16, f64)]) -> ([u16; 4], [f32; 4]) {
    // Divide by the largest first so that huge weights cannot overflow the sum.
    let largest = acc.iter().map(|e| e.1).fold(0.0, f64::max);
    // Each quotient once (a division is most of this function's time): the same values the
    // sum and the weights below would compute again.
    let mut q = [0f64; 4];
    for (q, e) in q.iter_mut().zip(acc) {
        *q = e.1 / largest;
    }
    let sum: f64 = q.iter().take(acc.len()).sum();
    let mut out_j = [0u16; 4];
    let mut out_w = [0f32; 4];
    let mut slot = 0;
    for (&(j, _), &q) in acc.iter().zip(&q) {
        let w = (q / sum) as f32;
        // A weight too small for f32 would leave a joint used with zero weight (a warning).
        if w > 0.0 {
            if let (Some(oj), Some(ow)) = (out_j.get_mut(slot), out_w.get_mut(slot)) {
                *oj = j;
                *ow = w;
                slot += 1;
            }
        }
    }
    // Put the f32 rounding error on the largest weight (at least 1/4, so it stays positive).
    let big = (0..4)
        .max_by(|&a, &b| out_w[a].total_cmp(&out_w[b]))
        .unwrap_or(0);
    for _ in 0..4 {
        let s = out_w.iter().fold(0f32, |s, &w| s + w);
        if s == 1.0 {
            break;
        }
        out_w[big] = (f64::from(out_w[big]) + (1.0 - f64::from(s))) as f32;
    }
    (out_j, out_w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inf(
        joints: [u16; 4],
        weights: [f64; 4],
        count: usize,
    ) -> ([u16; 4], [f32; 4], ExportReport) {
        let mut r = ExportReport::default();
        let (j, w) = influence(7, 3, joints, weights, count, &mut r).unwrap();
        (j, w, r)
    }

    #[test]
    fn influences_merge_normalise_and_bind_zero_sums() {
        let (j, w, r) = inf([2, 5, 2, 0], [1.0, 2.0, 1.0, 0.0], 6);
        assert_eq!(j, [2, 5, 0, 0]);
        assert_eq!(w, [0.5, 0.5, 0.0, 0.0]);
        assert_eq!(r.merged_joints, [VertexRef { mesh: 7, vertex: 3 }]);

        let (j, w, r) = inf([4, 1, 0, 0], [0.0; 4], 6);
        assert_eq!((j, w), ([4, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
        assert_eq!(r.zero_weight_vertices, [VertexRef { mesh: 7, vertex: 3 }]);

        let (j, w, r) = inf([1, 3, 0, 0], [-1.0, f64::NAN, 3.0, 0.0], 6);
        assert_eq!((j, w), ([0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
        assert_eq!(r.dropped_weights.len(), 1);

        // A zero weight with an out-of-range joint is harmless and written as joint 0.
        let (j, w, _) = inf([1, 99, 0, 0], [1.0, 0.0, 0.0, 0.0], 6);
        assert_eq!((j, w), ([1, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
        let mut r = ExportReport::default();
        assert_eq!(
            influence(0, 9, [1, 99, 0, 0], [1.0, 0.5, 0.0, 0.0], 6, &mut r)
                .unwrap_err()
                .to_string(),
            "vertex 9, influence 1: joint 99 with weight 0.5, but the skeleton has 6 joints"
        );
    }

    #[test]
    fn f32_sum_in_slot_order_is_one() {
        for weights in [
            [0.1, 0.2, 0.3, 0.4],
            [1.0, 1.0, 1.0, 0.0],
            [0.7, 0.2, 0.1, 0.0],
            [1e-3, 1.0, 3.0, 7.0],
            [1e300, 1e300, 1e300, 1e300],
        ] {
            let (_, w, _) = inf([0, 1, 2, 3], weights, 4);
            let s = w.iter().fold(0f32, |s, &x| s + x);
            assert_eq!(s, 1.0, "{weights:?} -> {w:?}");
        }
    }
}
