//! Guard rails of the import: edits that would write something the user did not mean.
//!
//! - `--ignore-mesh-edits` keeps the original meshes; when the skeleton was scaled together
//!   with them (an applied armature scale), writing the scaled skeleton with the unscaled
//!   meshes would break the model, so it is refused.
//! - A rest pose whose every joint turned while no joint moved in the world is what Blender's
//!   non-default bone-direction import options do (`bone_heuristic`): not an edit the user
//!   made, so it is refused with a hint to re-import with the default settings.

use glam::DVec3;

use super::edits::Built;
use super::graph::Graph;
use super::joints::Identities;
use super::mesh::{
    collect, expected_geometry, incoming_instances, influence_key, rig_skinned, Geometry,
};
use super::read::Doc;
use super::{ImportError, MeshReport};
use crate::gltf::Exported;

/// How far the size ratio of the incoming geometry to the original may stray from 1 and still
/// not count as a scale (an edit of a few vertices moves the spread far less).
const SCALE_SLACK: f64 = 0.01;

/// The spread of a geometry: the root mean square distance of its vertices from their centroid.
fn spread(g: &Geometry) -> Option<f64> {
    let p: Vec<DVec3> = g
        .verts
        .iter()
        .map(|v| DVec3::from_array(v.p))
        .filter(|p| p.is_finite())
        .collect();
    if p.is_empty() {
        return None;
    }
    let c = p.iter().copied().sum::<DVec3>() / p.len() as f64;
    let s = (p.iter().map(|q| q.distance_squared(c)).sum::<f64>() / p.len() as f64).sqrt();
    (s > 0.0 && s.is_finite()).then_some(s)
}

/// The factor the meshes were scaled by, when they were scaled together with moved joints
/// (`None`: they were not).
pub(crate) fn scaled_with_meshes(
    built: &Built,
    meshes: &MeshReport,
    doc: &Doc,
    graph: &Graph,
    ids: &Identities,
    exported: Option<&Exported>,
) -> Result<Option<f64>, ImportError> {
    let moved = built
        .reports
        .iter()
        .flat_map(|s| &s.joints)
        .any(|j| j.changes.iter().any(|c| c == "moved"));
    if !moved || meshes.difference_count == 0 {
        return Ok(None);
    }
    let key = |node: usize| influence_key(ids, node);
    let found = incoming_instances(doc, graph, &key, rig_skinned(ids))?;
    let incoming = collect(doc, &found.instances, found.proxies)?;
    let expected = expected_geometry(ids, exported, None)?;
    let (Some(a), Some(b)) = (spread(&incoming), spread(&expected)) else {
        return Ok(None);
    };
    let r = a / b;
    Ok(((r - 1.0).abs() > SCALE_SLACK).then_some(r))
}

/// The skeleton whose every joint was rotated while every joint kept its world position (the
/// rest pose Blender's non-default bone-direction import options give), with how many joints.
pub(crate) fn turned_in_place(
    built: &Built,
    space: crate::gltf::Space,
    tol: &super::Tolerance,
) -> Option<(String, usize)> {
    let format = built.rig.source.format();
    for (sk, report) in built.rig.skeletons.iter().zip(&built.reports) {
        let n = sk.joints.len();
        if n < 2
            || report.joints_before != n
            || report.joints.len() != n
            || !report
                .joints
                .iter()
                .all(|j| j.changes.iter().any(|c| c == "rotated") && j.original == Some(j.joint))
        {
            continue;
        }
        let mut original = sk.clone();
        for j in &mut original.joints {
            let (t, r) = format.payload_transform(&j.native)?;
            j.translation = t;
            j.rotation = r;
        }
        let (Ok(now), Ok(was)) = (sk.world_matrices(), original.world_matrices()) else {
            continue;
        };
        let still = now.iter().zip(&was).all(|(a, b)| {
            let (p, q) = (a.w_axis.truncate(), b.w_axis.truncate());
            let d = (p - q).length() * space.scale;
            d <= tol.translation_at(q.length() * space.scale)
        });
        if still {
            return Some((report.name.clone(), n));
        }
    }
    None
}
