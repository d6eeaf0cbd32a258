//! Skins: joints, common root and `skeleton`, inverse bind matrices, bind vs rest pose, and the
//! first keyframe of animated joints vs their rest pose.

use rigtrip_gltf::units;
use std::collections::BTreeMap;

use glam::{DMat4, DQuat, DVec3, DVec4};
use serde_json::Value;

use super::doc::{index, Doc, Graph, Ix, Trs};
use super::out::{Out, Severity};
use super::SkinSummary;
use rigtrip_gltf::component::FLOAT;

/// Relative tolerance of pose comparisons (unitless parts; translations relative to their size).
pub(crate) const POSE_TOL: f64 = 1e-3;
/// Angle (radians) above which two rotations differ.
const ANGLE_TOL: f64 = 1e-3;

/// A skin as the primitive checks need it.
pub(crate) struct SkinInfo {
    /// Node of each joint slot (`None` where the entry is invalid).
    pub joints: Vec<Option<usize>>,
}

/// How far `world · ibm` is from the identity: (rotation/scale part, translation part scaled by
/// the size of the transforms involved).
fn deviation(world: DMat4, ibm: DMat4) -> (f64, f64, f64) {
    let p = world * ibm;
    let mut lin: f64 = 0.0;
    for c in 0..3 {
        for r in 0..3 {
            let want = if c == r { 1.0 } else { 0.0 };
            lin = lin.max((p.col(c)[r] - want).abs());
        }
    }
    let t = p.w_axis.truncate().length();
    let wlin = world
        .x_axis
        .length()
        .max(world.y_axis.length())
        .max(world.z_axis.length());
    let mag = 1f64
        .max(world.w_axis.truncate().length())
        .max(ibm.w_axis.truncate().length() * wlin);
    (lin, t, mag)
}

/// Whether an (affine) matrix has a usable inverse: finite, and its 3×3 part far enough from
/// singular relative to its size (Hadamard ratio).
fn invertible(m: DMat4) -> bool {
    let affine = m.row(3) == DVec4::new(0.0, 0.0, 0.0, 1.0);
    let (det, norms) = if affine {
        let a = glam::DMat3::from_mat4(m);
        (
            a.determinant(),
            a.x_axis.length() * a.y_axis.length() * a.z_axis.length(),
        )
    } else {
        (
            m.determinant(),
            m.x_axis.length() * m.y_axis.length() * m.z_axis.length() * m.w_axis.length(),
        )
    };
    det.is_finite() && norms > 0.0 && det.abs() > 1e-6 * norms
}

/// The skin index of node `i` when it shows a mesh with a skin (both indices valid).
pub(crate) fn skinned_mesh_skin(doc: &Doc, node: &Value) -> Option<usize> {
    let m = rigtrip_gltf::json::index_at(node, "mesh")?;
    let s = rigtrip_gltf::json::index_at(node, "skin")?;
    (m < doc.array("meshes").len() && s < doc.array("skins").len()).then_some(s)
}

/// Whether accessor `a` has neither a buffer view nor sparse values: all zeros by the spec, a
/// placeholder whose values say nothing (the validator's own test files are full of them).
pub(crate) fn placeholder(doc: &Doc, a: usize) -> bool {
    doc.array("accessors")
        .get(a)
        .is_some_and(|o| o.get("bufferView").is_none() && o.get("sparse").is_none())
}

/// Reports accessor `a` as a placeholder (see [`placeholder`]) at `ptr`.
pub(crate) fn report_placeholder(out: &mut Out, a: usize, ptr: String, what: &str) {
    out.info(
        "accessor-no-data",
        ptr,
        format!("{what}: accessor {a} has no bufferView and no sparse values, so it is all zeros (a placeholder); its values were not checked"),
    );
}

/// The buffer view of accessor `a` when that view has a `byteStride`.
fn strided_view(doc: &Doc, a: usize) -> Option<u64> {
    let v = doc.array("accessors").get(a)?.get("bufferView")?.as_u64()?;
    let view = doc.array("bufferViews").get(usize::try_from(v).ok()?)?;
    view.get("byteStride").is_some().then_some(v)
}

/// The inverses of the world matrices of the nodes that show a mesh with each skin (at most a
/// few distinct ones per skin): `world(joint) · IBM` equal to one of them puts the surface
/// exactly where that mesh node would, which is as good as the identity.
fn mesh_frames(doc: &Doc, graph: &Graph) -> Vec<Vec<DMat4>> {
    const MAX_FRAMES: usize = 4;
    let mut frames: Vec<Vec<DMat4>> = vec![Vec::new(); doc.array("skins").len()];
    for (i, node) in doc.array("nodes").iter().enumerate() {
        let Some(s) = skinned_mesh_skin(doc, node) else {
            continue;
        };
        let (Some(w), Some(f)) = (graph.world.get(i), frames.get_mut(s)) else {
            continue;
        };
        if w.abs_diff_eq(DMat4::IDENTITY, 1e-9) || !w.is_finite() || !invertible(*w) {
            continue;
        }
        let inv = w.inverse();
        if f.len() < MAX_FRAMES && !f.iter().any(|x| x.abs_diff_eq(inv, 1e-9)) {
            f.push(inv);
        }
    }
    frames
}

/// One joint's bind-vs-rest comparison.
struct BindCheck {
    slot: usize,
    node: usize,
    /// Rotation/scale deviation, translation deviation, translation scale (see [`deviation`]).
    lin: f64,
    t: f64,
    mag: f64,
    /// world · IBM.
    p: DMat4,
}

impl BindCheck {
    fn relative(&self) -> f64 {
        self.lin.max(self.t / self.mag)
    }
    fn off(&self) -> bool {
        self.lin > POSE_TOL || self.t > POSE_TOL * self.mag
    }
}

/// Checks every skin; returns per-skin data for the primitive checks and the summaries.
pub(crate) fn check_skins(
    doc: &Doc,
    graph: &Graph,
    animated: &[bool],
    out: &mut Out,
) -> (Vec<SkinInfo>, Vec<SkinSummary>) {
    let n = graph.parent.len();
    let mut infos = Vec::new();
    let mut summaries = Vec::new();
    let frames = mesh_frames(doc, graph);
    for (s, skin) in doc.array("skins").iter().enumerate() {
        let ptr = format!("/skins/{s}");
        let mut sum = SkinSummary {
            index: s,
            name: skin.get("name").and_then(Value::as_str).map(str::to_string),
            ..SkinSummary::default()
        };
        let joints = skin_joints(doc, out, s, skin, n);
        sum.joints = joints.len();

        let valid: Vec<usize> = joints.iter().flatten().copied().collect();
        sum.root = graph.common_root(&valid);
        sum.root_name = sum.root.and_then(|r| node_name(doc, r));
        if sum.root.is_none() && !valid.is_empty() {
            let mut tops: Vec<usize> = valid.iter().filter_map(|&j| graph.top(j)).collect();
            tops.sort_unstable();
            tops.dedup();
            out.error(
                "skin-no-common-root",
                format!("{ptr}/joints"),
                format!(
                    "the joints of skin {s} have no common root: they hang under {} separate top nodes ({})",
                    tops.len(),
                    tops.iter()
                        .map(|&t| doc.node_label(t))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
        if let Ix::At(sk) = index(out, skin, "skeleton", n, &ptr, "nodes") {
            sum.skeleton = Some(sk);
            let ok = !valid.is_empty() && valid.iter().all(|&j| graph.is_ancestor_or_self(sk, j));
            sum.skeleton_is_common_ancestor = Some(ok);
            if !ok && !valid.is_empty() {
                out.error(
                    "skin-skeleton-not-ancestor",
                    format!("{ptr}/skeleton"),
                    format!(
                        "skin {s}: skeleton is {}, which is not an ancestor of every joint{}",
                        doc.node_label(sk),
                        match sum.root {
                            Some(r) =>
                                format!(" (their closest common root is {})", doc.node_label(r)),
                            None => String::new(),
                        }
                    ),
                );
            }
        }

        let pose = Pose {
            frames: frames.get(s).map_or(&[][..], Vec::as_slice),
            animated,
        };
        check_ibms(doc, graph, out, s, skin, &joints, &pose, &mut sum);
        infos.push(SkinInfo { joints });
        summaries.push(sum);
    }
    (infos, summaries)
}

/// The joint slots of skin `s` as node indices (`None` for an entry that is not one of the `n`
/// nodes), with an error for a missing or empty joint list, an invalid entry and a node in two
/// slots.
fn skin_joints(doc: &Doc, out: &mut Out, s: usize, skin: &Value, n: usize) -> Vec<Option<usize>> {
    let ptr = format!("/skins/{s}");
    let entries: &[Value] = match skin.get("joints") {
        Some(Value::Array(a)) => a,
        _ => {
            out.error(
                "json-schema",
                format!("{ptr}/joints"),
                format!("skin {s} has no joints array"),
            );
            &[]
        }
    };
    if entries.is_empty() {
        out.error(
            "skin-joints-empty",
            format!("{ptr}/joints"),
            format!("skin {s} has no joints"),
        );
    }
    let mut joints = Vec::with_capacity(entries.len());
    let mut slot_of: BTreeMap<usize, usize> = BTreeMap::new();
    for (k, j) in entries.iter().enumerate() {
        let node = j
            .as_u64()
            .and_then(|x| usize::try_from(x).ok())
            .filter(|&x| x < n);
        match node {
            None => out.error(
                "index-invalid",
                format!("{ptr}/joints/{k}"),
                format!("joint slot {k} of skin {s} is {j}, not one of the {n} nodes"),
            ),
            Some(x) => {
                if let Some(first) = slot_of.insert(x, k) {
                    out.error(
                        "skin-joint-duplicate",
                        format!("{ptr}/joints/{k}"),
                        format!(
                            "joint slots {first} and {k} of skin {s} are both {}",
                            doc.node_label(x)
                        ),
                    );
                }
            }
        }
        joints.push(node);
    }
    joints
}

fn node_name(doc: &Doc, i: usize) -> Option<String> {
    doc.array("nodes")
        .get(i)?
        .get("name")?
        .as_str()
        .map(str::to_string)
}

/// What bind vs rest is judged against, for one skin.
struct Pose<'a> {
    /// The inverse world matrices of the skin's mesh nodes (see [`mesh_frames`]).
    frames: &'a [DMat4],
    /// Per node: whether an animation moves it (see [`animated_nodes`]).
    animated: &'a [bool],
}

/// The nodes an animation channel moves (translation, rotation or scale), by `target.node` or by
/// a `KHR_animation_pointer` to `/nodes/N/translation|rotation|scale`; `n` nodes.
pub(crate) fn animated_nodes(doc: &Doc, n: usize) -> Vec<bool> {
    let mut animated = vec![false; n];
    for anim in doc.array("animations") {
        for ch in rigtrip_gltf::anim::channels(anim) {
            let node = match ch.path {
                Some("translation" | "rotation" | "scale") => ch.node,
                Some("pointer") => ch
                    .json
                    .pointer("/target/extensions/KHR_animation_pointer/pointer")
                    .and_then(Value::as_str)
                    .and_then(pointer_node)
                    .and_then(|i| usize::try_from(i).ok()),
                _ => None,
            };
            if let Some(x) = node.and_then(|i| animated.get_mut(i)) {
                *x = true;
            }
        }
    }
    animated
}

/// `/nodes/3/rotation` → 3 (translation, rotation or scale only).
fn pointer_node(pointer: &str) -> Option<u64> {
    let (i, prop) = pointer.strip_prefix("/nodes/")?.split_once('/')?;
    if !matches!(prop, "translation" | "rotation" | "scale")
        || !i.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    i.parse().ok()
}

/// IBM accessor, type, layout, count, values, and bind vs rest for one skin.
#[allow(clippy::too_many_arguments)]
fn check_ibms(
    doc: &Doc,
    graph: &Graph,
    out: &mut Out,
    s: usize,
    skin: &Value,
    joints: &[Option<usize>],
    pose: &Pose,
    sum: &mut SkinSummary,
) {
    let ptr = format!("/skins/{s}");
    let n_acc = doc.array("accessors").len();
    let acc = match index(out, skin, "inverseBindMatrices", n_acc, &ptr, "accessors") {
        Ix::Bad => return,
        Ix::Absent => return report_missing_ibms(graph, out, s, joints),
        Ix::At(a) => a,
    };
    sum.inverse_bind_matrices = Some(acc);
    let ibm_ptr = format!("{ptr}/inverseBindMatrices");
    if let Some(v) = strided_view(doc, acc) {
        out.error(
            "ibm-strided",
            ibm_ptr.clone(),
            format!("skin {s}: inverseBindMatrices accessor {acc} lies in buffer view {v}, which has a byteStride: only vertex attributes may be strided, and loaders that read IBMs as one tight array get them wrong"),
        );
    }
    let Ok(Some(a)) = doc.accessor(acc, out) else {
        return;
    };
    if a.type_name != "MAT4" || a.ctype != FLOAT {
        out.error(
            "ibm-type",
            ibm_ptr,
            format!(
                "skin {s}: inverseBindMatrices accessor {acc} is {}, not MAT4 FLOAT",
                a.describe()
            ),
        );
        return;
    }
    let mut ok = true;
    let zeros = placeholder(doc, acc);
    if a.count != joints.len() {
        ok = false;
        out.error(
            "ibm-count",
            ibm_ptr.clone(),
            format!(
                "skin {s}: inverseBindMatrices accessor {acc} has {} matrices for {} joints{}",
                a.count,
                joints.len(),
                if a.count < joints.len() {
                    ": the last joints have none"
                } else {
                    ": the extra ones hint at a wrong joint list or order"
                }
            ),
        );
    }
    if zeros {
        report_placeholder(out, acc, ibm_ptr, &format!("skin {s}: inverseBindMatrices"));
        sum.ibm_ok = ok;
        return;
    }
    let (checks, not_affine, invertible_all) = bind_checks(&a, graph, out, s, joints, pose.frames);
    ok &= invertible_all;
    if !not_affine.is_empty() {
        out.warning(
            "ibm-not-affine",
            ibm_ptr.clone(),
            format!(
                "skin {s}: {} inverse bind matrices (first: slot {}) have a last row other than (0, 0, 0, 1)",
                not_affine.len(),
                not_affine.first().copied().unwrap_or(0)
            ),
        );
    }
    sum.ibm_ok = ok;
    sum.max_bind_error = checks
        .iter()
        .map(BindCheck::relative)
        .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));

    report_bind_pose(doc, out, s, &checks, pose);
}

/// A skin without inverse bind matrices: identity is assumed, which fits only joints at the
/// origin in the rest pose (an info then, an error otherwise).
fn report_missing_ibms(graph: &Graph, out: &mut Out, s: usize, joints: &[Option<usize>]) {
    let ptr = format!("/skins/{s}");
    let off: Vec<usize> = joints
        .iter()
        .enumerate()
        .filter(|(_, j)| {
            j.and_then(|j| graph.world.get(j)).is_some_and(|&w| {
                let (lin, t, mag) = deviation(w, DMat4::IDENTITY);
                lin > POSE_TOL || t > POSE_TOL * mag
            })
        })
        .map(|(k, _)| k)
        .collect();
    if off.is_empty() {
        out.info(
            "ibm-missing",
            format!("{ptr}/inverseBindMatrices"),
            format!("skin {s} has no inverseBindMatrices; identity is assumed, which fits its joints (all at the origin in the rest pose)"),
        );
    } else {
        out.error(
            "ibm-missing",
            format!("{ptr}/inverseBindMatrices"),
            format!(
                "skin {s} has no inverseBindMatrices, so identity is assumed, but {} of its {} joints are away from the origin in the rest pose (first: slot {}): the surface is bound as if they were not",
                off.len(),
                joints.len(),
                off.first().copied().unwrap_or(0)
            ),
        );
    }
}

/// World · IBM per joint slot (at the origin, or at a mesh node's frame when that fits
/// better), with the slots whose IBM is not affine; an error for each IBM that is singular or
/// not finite. The flag says whether every IBM read was invertible.
fn bind_checks(
    a: &rigtrip_gltf::accessor::Acc<'_>,
    graph: &Graph,
    out: &mut Out,
    s: usize,
    joints: &[Option<usize>],
    frames: &[DMat4],
) -> (Vec<BindCheck>, Vec<usize>, bool) {
    let ptr = format!("/skins/{s}");
    let mut ok = true;
    let mut not_affine = Vec::new();
    let mut checks: Vec<BindCheck> = Vec::new();
    let mut e = [0.0; 16];
    for (k, j) in joints.iter().enumerate().take(a.count) {
        if !a.get(k, &mut e) {
            break;
        }
        let m = DMat4::from_cols_array(&e);
        if !m.is_finite() || !invertible(m) {
            ok = false;
            out.error(
                "ibm-not-invertible",
                format!("{ptr}/joints/{k}"),
                format!(
                    "skin {s}, joint slot {k}: inverse bind matrix {} is {}",
                    k,
                    if m.is_finite() {
                        "singular (no inverse)"
                    } else {
                        "not finite"
                    }
                ),
            );
            continue;
        }
        if m.row(3) != DVec4::new(0.0, 0.0, 0.0, 1.0) {
            not_affine.push(k);
        }
        if let Some((node, &w)) = j.and_then(|j| Some((j, graph.world.get(j)?))) {
            let (mut lin, mut t, mut mag) = deviation(w, m);
            if lin > POSE_TOL || t > POSE_TOL * mag {
                // At a mesh node's frame instead of the origin: as good (see `mesh_frames`).
                if let Some(d) = frames
                    .iter()
                    .map(|f| deviation(*f * w, m))
                    .find(|&(l, t, g)| l <= POSE_TOL && t <= POSE_TOL * g)
                {
                    (lin, t, mag) = d;
                }
            }
            checks.push(BindCheck {
                slot: k,
                node,
                lin,
                t,
                mag,
                p: w * m,
            });
        }
    }
    (checks, not_affine, ok)
}

/// The joints whose world · IBM is off the identity: one info when all are off by the same
/// matrix (the whole bind pose moved), else one finding per joint (an info for a joint an
/// animation drives: the file was saved posed).
fn report_bind_pose(doc: &Doc, out: &mut Out, s: usize, checks: &[BindCheck], pose: &Pose) {
    let ptr = format!("/skins/{s}");
    let ibm_ptr = format!("{ptr}/inverseBindMatrices");
    let bad: Vec<&BindCheck> = checks.iter().filter(|c| c.off()).collect();
    if bad.is_empty() {
        return;
    }
    // Every joint off by the same matrix: one rigid offset of the whole bind pose.
    if let Some(first) = bad.first() {
        let p0 = first.p;
        let same = bad.len() == checks.len()
            && checks.len() >= 2
            && bad.iter().all(|c| {
                let d = c.p - p0;
                [d.x_axis, d.y_axis, d.z_axis]
                    .iter()
                    .all(|x| x.abs().max_element() <= POSE_TOL)
                    && d.w_axis.abs().max_element() <= POSE_TOL * c.mag
            });
        if same {
            let (sc, r, t) = p0.to_scale_rotation_translation();
            out.info(
                "bind-pose-offset",
                ibm_ptr,
                format!(
                    "skin {s}: world · IBM is the same non-identity matrix for all {} joints (translation {}, rotation {}, scale ({})): the whole surface sits moved by it from where the mesh was modelled, in every loader alike",
                    checks.len(),
                    units::lengths(&t.to_array()),
                    units::degrees(r.angle_between(DQuat::IDENTITY)),
                    sc.to_array().map(units::value).join(", ")
                ),
            );
            return;
        }
    }
    for c in bad {
        // A joint an animation drives: the file was saved posed (exporters write the current
        // frame as the rest pose); every loader shows that pose alike until a clip plays.
        let (severity, why) = if pose.animated.get(c.node).copied().unwrap_or(false) {
            (
                Severity::Info,
                "an animation drives this joint, so the file was saved posed: every loader shows that pose until a clip plays",
            )
        } else {
            (
                Severity::Warning,
                "the rest pose is not the bind pose, so the surface deforms before any animation",
            )
        };
        out.push(
            severity,
            "bind-rest-mismatch",
            format!("{ptr}/joints/{}", c.slot),
            format!(
                "skin {s}, joint slot {} ({}): world · IBM is off the identity by {} in rotation/scale and {} in translation (relative {}): {why}",
                c.slot,
                doc.node_label(c.node),
                units::value(c.lin),
                units::length(c.t),
                units::value(c.t / c.mag)
            ),
        );
    }
}

/// First keyframe of every channel on a joint node vs that node's rest pose: one info per
/// animation that starts away from it; channels that move a skinned mesh node (no effect by the
/// spec).
pub(crate) fn check_first_keys(doc: &Doc, graph: &Graph, skins: &[SkinInfo], out: &mut Out) {
    let n = graph.parent.len();
    let mut is_joint = vec![false; n];
    for j in skins.iter().flat_map(|s| s.joints.iter().flatten()) {
        if let Some(x) = is_joint.get_mut(*j) {
            *x = true;
        }
    }
    let skinned_mesh: Vec<bool> = doc
        .array("nodes")
        .iter()
        .map(|node| skinned_mesh_skin(doc, node).is_some())
        .collect();
    for (a, anim) in doc.array("animations").iter().enumerate() {
        let aptr = format!("/animations/{a}");
        let samplers = rigtrip_gltf::json::list(anim, "samplers");
        let channels = rigtrip_gltf::json::list(anim, "channels");
        let mut on_joints = 0usize;
        // (channel, node, path, deviation text, relative size for ranking)
        let mut snaps: Vec<(usize, usize, &str, String, f64)> = Vec::new();
        for (c, ch) in channels.iter().enumerate() {
            let cptr = format!("{aptr}/channels/{c}");
            let Some(target) = ch.get("target") else {
                continue;
            };
            let Ix::At(node) = index(out, target, "node", n, &format!("{cptr}/target"), "nodes")
            else {
                continue;
            };
            let path = target.get("path").and_then(Value::as_str).unwrap_or("");
            let trs = matches!(path, "translation" | "rotation" | "scale");
            if trs && skinned_mesh.get(node).copied().unwrap_or(false) {
                out.warning(
                    "skinned-mesh-animated",
                    format!("{cptr}/target/path"),
                    format!(
                        "animation {a} channel {c} moves {}, a skinned mesh node: the spec says its {path} has no effect, but loaders that keep the mesh node's transform (three.js) move the surface with it",
                        doc.node_label(node)
                    ),
                );
            }
            if !trs || !is_joint.get(node).copied().unwrap_or(false) {
                continue;
            }
            on_joints += 1;
            let Some((e, comps)) = first_key(doc, out, ch, samplers, &aptr, &cptr) else {
                continue;
            };
            let Some(rest) = graph.rest.get(node) else {
                continue;
            };
            let found = first_key_deviation(path, comps, &e, rest);
            if let Some((text, size)) = found {
                snaps.push((c, node, path, text, size));
            }
        }
        if snaps.is_empty() {
            continue;
        }
        snaps.sort_by(|x, y| y.4.total_cmp(&x.4).then(x.0.cmp(&y.0)));
        let worst: Vec<String> = snaps
            .iter()
            .take(3)
            .map(|(c, node, path, text, _)| {
                format!("channel {c} {} {path}: {text}", doc.node_label(*node))
            })
            .collect();
        let name = anim
            .get("name")
            .and_then(Value::as_str)
            .map(|n| format!(" {n:?}"))
            .unwrap_or_default();
        out.info(
            "first-key-snap",
            aptr,
            format!(
                "animation {a}{name}: {} of its {on_joints} joint channels start away from the rest pose (usual for a clip), so starting it jumps from the rest pose on its first frame; worst: {}",
                snaps.len(),
                worst.join("; ")
            ),
        );
    }
}

/// The first key of a channel's sampler output (the value of a cubic spline's first key) and
/// its component count; `None` (with findings for what is broken) when it cannot be read.
fn first_key(
    doc: &Doc,
    out: &mut Out,
    ch: &Value,
    samplers: &[Value],
    aptr: &str,
    cptr: &str,
) -> Option<([f64; 16], usize)> {
    let Ix::At(sp) = index(out, ch, "sampler", samplers.len(), cptr, "samplers") else {
        return None;
    };
    let sampler = samplers.get(sp)?;
    let sptr = format!("{aptr}/samplers/{sp}");
    let Ix::At(oa) = index(
        out,
        sampler,
        "output",
        doc.array("accessors").len(),
        &sptr,
        "accessors",
    ) else {
        return None;
    };
    let Ok(Some(acc)) = doc.accessor(oa, out) else {
        return None;
    };
    // A cubic spline stores (in-tangent, value, out-tangent) per key.
    let first = match sampler.get("interpolation").and_then(Value::as_str) {
        Some("CUBICSPLINE") => 1,
        _ => 0,
    };
    let mut e = [0.0; 16];
    acc.get(first, &mut e).then_some((e, acc.comps))
}

/// How far a first key (`e`, `comps` components, for `path`) is from the joint's rest pose,
/// in words and as a relative size for ranking; `None` within tolerance or for another path.
fn first_key_deviation(
    path: &str,
    comps: usize,
    e: &[f64; 16],
    rest: &Trs,
) -> Option<(String, f64)> {
    match (path, comps) {
        ("translation", 3) => {
            let k = DVec3::new(e[0], e[1], e[2]);
            let d = (k - rest.t).length();
            let mag = 1f64.max(rest.t.length());
            (d > POSE_TOL * mag).then(|| {
                (
                    format!(
                        "translation {} vs rest {}",
                        rigtrip_gltf::units::lengths(&k.to_array()),
                        rigtrip_gltf::units::lengths(&rest.t.to_array())
                    ),
                    d / mag,
                )
            })
        }
        ("rotation", 4) => {
            let q = DQuat::from_xyzw(e[0], e[1], e[2], e[3]);
            let q = if q.length() > 0.0 { q.normalize() } else { q };
            let r = if q.dot(rest.r) < 0.0 { -rest.r } else { rest.r };
            // Stable for small angles, unlike acos of the dot product.
            let angle = 4.0 * (q - r).length().atan2((q + r).length());
            (angle > ANGLE_TOL).then(|| {
                (
                    format!(
                        "rotation differs from rest by {}",
                        rigtrip_gltf::units::degrees(angle)
                    ),
                    angle,
                )
            })
        }
        ("scale", 3) => {
            let k = DVec3::new(e[0], e[1], e[2]);
            let d = (k - rest.s).abs().max_element();
            let mag = 1f64.max(rest.s.abs().max_element());
            (d > POSE_TOL * mag).then(|| {
                (
                    format!(
                        "scale {} vs rest {}",
                        rigtrip_gltf::units::values(&k.to_array()),
                        rigtrip_gltf::units::values(&rest.s.to_array())
                    ),
                    d / mag,
                )
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invertibility_is_scale_free() {
        assert!(invertible(DMat4::from_scale(DVec3::splat(1e-4))));
        assert!(invertible(DMat4::from_translation(DVec3::new(
            1e4, 0.0, 0.0
        ))));
        assert!(!invertible(DMat4::from_scale(DVec3::new(1.0, 0.0, 1.0))));
        assert!(!invertible(DMat4::ZERO));
        let mut flat = DMat4::IDENTITY;
        flat.z_axis = DVec4::new(1.0, 1e-9, 0.0, 0.0);
        assert!(!invertible(flat));
    }

    #[test]
    fn deviation_of_exact_inverse_is_zero() {
        let w = DMat4::from_scale_rotation_translation(
            DVec3::splat(0.01),
            DQuat::from_rotation_y(0.7),
            DVec3::new(3.0, -2.0, 1.0),
        );
        let (lin, t, mag) = deviation(w, w.inverse());
        assert!(lin < 1e-12 && t < 1e-12, "{lin} {t}");
        assert!(
            (mag - DVec3::new(3.0, -2.0, 1.0).length()).abs() < 1e-9,
            "{mag}"
        );
    }
}
