//! `inspect`: what a file holds: skeletons as joint trees with world positions, the spatial gate,
//! and, per format, the native detail a researcher looks for (HIE slots and aliases, depths,
//! model ids; DMC3 evaluation order and raw transform bits), with every non-zero unknown and
//! every non-canonical placement called out.

use serde::Serialize;
use serde_json::Value;

use crate::rig::dmc3::Dmc3Skeleton;
use crate::rig::hie::HieSkeleton;
use crate::rig::{extras, JointPayload, Rig, Skeleton, SkeletonPayload, Source};

/// The inspect report of one file; `--json` prints it as is.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// `hie`, `mod`, `scm` or `block` (`format` in JSON, as in every command's).
    #[serde(rename = "format")]
    pub kind: &'static str,
    /// Input size in bytes (`bytes` in JSON).
    #[serde(rename = "bytes")]
    pub size: usize,
    /// HIE: the non-empty slots and the skeleton each points at (aliases share one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slots: Vec<SlotReport>,
    /// Things a researcher should look at: non-zero unknowns, non-canonical placements.
    pub notes: Vec<String>,
    /// One entry per skeleton.
    pub skeletons: Vec<SkeletonReport>,
    /// DMC3 MOD/SCM: the container's objects and their meshes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<ObjectReport>,
}

/// One object of a DMC3 container.
#[derive(Debug, Clone, Serialize)]
pub struct ObjectReport {
    /// Its index.
    pub index: usize,
    /// The vertex count its record states (the sum over its meshes in the files seen).
    pub vertex_count: u16,
    /// Its record's bounding sphere: x, y, z, radius (native units).
    pub bounds: [f32; 4],
    /// Its meshes.
    pub meshes: Vec<MeshReport>,
}

/// One mesh of a DMC3 object.
#[derive(Debug, Clone, Serialize)]
pub struct MeshReport {
    /// Its index in the object.
    pub index: usize,
    /// Its name in an exported glTF (`object0_mesh1`).
    pub name: String,
    /// Stored vertices (strip order: shared corners repeated).
    pub vertices: usize,
    /// Triangles its strips make.
    pub triangles: usize,
    /// Its texture index (`texture_N` material in glTF).
    pub texture: u16,
    /// MOD: the joints (native indices) some vertex gives a non-zero weight, ascending; empty
    /// for SCM (unskinned).
    pub joints: Vec<usize>,
}

/// The objects and meshes of a DMC3 container (none for other files).
fn objects(rig: &Rig) -> Vec<ObjectReport> {
    match &rig.source {
        Source::Dmc3(shell) => container_objects(&shell.file),
        _ => Vec::new(),
    }
}

/// The objects and meshes of a DMC3 file (none without a container): a loose model's, or an
/// archive's model member's.
pub(crate) fn container_objects(file: &crate::native::dmc3::Dmc3File) -> Vec<ObjectReport> {
    let Some(c) = &file.container else {
        return Vec::new();
    };
    c.objects
        .iter()
        .enumerate()
        .map(|(o, obj)| ObjectReport {
            index: o,
            vertex_count: obj.record.vertex_count,
            bounds: obj.record.bounds(),
            meshes: obj
                .meshes
                .iter()
                .enumerate()
                .map(|(m, mesh)| MeshReport {
                    index: m,
                    name: format!("object{o}_mesh{m}"),
                    vertices: mesh.vertex_count(),
                    triangles: mesh.triangles().len(),
                    texture: mesh.record.texture_index,
                    joints: joints_used(mesh),
                })
                .collect(),
        })
        .collect()
}

/// The joints a mesh's vertices give a non-zero weight, ascending.
fn joints_used(mesh: &crate::native::dmc3::Mesh) -> Vec<usize> {
    let mut used = std::collections::BTreeSet::new();
    for (&b, &w) in mesh.bone_indices.iter().zip(&mesh.weights) {
        let joints = crate::native::dmc3::container::joint_indices(b);
        let weights = crate::native::dmc3::container::weight_values(w);
        for (j, w) in joints.iter().zip(weights) {
            if w > 0.0 {
                used.insert(usize::from(*j));
            }
        }
    }
    used.into_iter().collect()
}

/// One non-empty HIE slot.
#[derive(Debug, Clone, Serialize)]
pub struct SlotReport {
    /// Slot number (0..255).
    pub slot: usize,
    /// Index into `skeletons`.
    pub skeleton: usize,
}

/// One skeleton in the report.
#[derive(Debug, Clone, Serialize)]
pub struct SkeletonReport {
    /// Skeleton name.
    pub name: String,
    /// Absolute file offset of the skeleton's native structure (HIE hierarchy, DMC3 block).
    pub offset: u64,
    /// `None` when the skeleton passes the spatial gate (`"ok"` in JSON, as the text says),
    /// else why not.
    #[serde(serialize_with = "gate_json")]
    pub gate: Option<GateReport>,
    /// The skeleton's native payload (raw fields as in the glTF extras).
    pub native: Value,
    /// Joints in native index order.
    pub joints: Vec<JointReport>,
}

/// A passed gate as `"ok"`, a failed one as its [`GateReport`].
fn gate_json<S: serde::Serializer>(gate: &Option<GateReport>, s: S) -> Result<S::Ok, S::Error> {
    match gate {
        None => s.serialize_str("ok"),
        Some(g) => g.serialize(s),
    }
}

/// A gate failure in the report.
#[derive(Debug, Clone, Serialize)]
pub struct GateReport {
    /// Stable code of the failing condition.
    pub code: &'static str,
    /// The joint where it fails, if any.
    pub joint: Option<usize>,
    /// The order position where it fails, if any.
    pub position: Option<usize>,
    /// The whole message.
    pub message: String,
}

/// One joint in the report.
#[derive(Debug, Clone, Serialize)]
pub struct JointReport {
    /// Native index (HIE part index, DMC3 node index).
    pub index: usize,
    /// Display name.
    pub name: String,
    /// Parent's native index.
    pub parent: Option<usize>,
    /// Local translation, native units.
    pub translation: [f64; 3],
    /// Local rotation quaternion x, y, z, w.
    pub rotation: [f64; 4],
    /// Rest-pose world position, native units (`null` when the gate fails).
    pub world: Option<[f64; 3]>,
    /// The joint's raw native fields (hex bit patterns as in the glTF extras).
    pub native: Value,
}

/// Builds the report of a lifted file.
pub fn report(kind: &'static str, size: usize, rig: &Rig) -> Report {
    let mut notes = Vec::new();
    let mut slots = Vec::new();
    if let Source::Hie(shell) = &rig.source {
        for (slot, s) in shell.slots.iter().enumerate() {
            if let Some(s) = *s {
                slots.push(SlotReport { slot, skeleton: s });
            }
        }
        if !shell.gaps.is_empty() {
            let total: usize = shell.gaps.iter().map(|g| g.bytes.len()).sum();
            notes.push(format!(
                "{total} byte(s) in {} range(s) covered by neither the table nor a hierarchy (kept exactly)",
                shell.gaps.len()
            ));
        }
    }
    let skeletons = rig
        .skeletons
        .iter()
        .map(|s| skeleton_report(s, &mut notes))
        .collect();
    Report {
        kind,
        size,
        slots,
        notes,
        skeletons,
        objects: objects(rig),
    }
}

fn skeleton_report(s: &Skeleton, notes: &mut Vec<String>) -> SkeletonReport {
    let world = s.world_positions().ok();
    let offset = match &s.native {
        SkeletonPayload::Hie(h) => {
            hie_notes(s, h, notes);
            h.offset as u64
        }
        SkeletonPayload::Dmc3(d) => {
            dmc3_notes(s, d, notes);
            d.offset
        }
    };
    SkeletonReport {
        name: s.name.clone(),
        offset,
        gate: s.gate.as_ref().err().map(|g| GateReport {
            code: g.condition.code(),
            joint: g.joint,
            position: g.position,
            message: g.to_string(),
        }),
        native: extras::skeleton_to_json(&s.native),
        joints: s
            .joints
            .iter()
            .enumerate()
            .map(|(i, j)| JointReport {
                index: i,
                name: j.name.clone(),
                parent: j.parent,
                translation: j.translation.to_array(),
                rotation: j.rotation.to_array(),
                world: world.as_ref().map(|w| w[i].to_array()),
                native: extras::joint_to_json(&j.native),
            })
            .collect(),
    }
}

fn hie_notes(s: &Skeleton, h: &HieSkeleton, notes: &mut Vec<String>) {
    if h.byte_lists.tail.iter().any(|&b| b != 0) {
        notes.push(format!(
            "{}: byte-list area has a non-zero tail after its last 0xFF list",
            s.name
        ));
    }
    for (k, j) in s.joints.iter().enumerate() {
        if let JointPayload::Hie(p) = &j.native {
            let mut odd = Vec::new();
            if p.unknown_00 != 0 {
                odd.push(format!("unknown_00 = {:#06x}", p.unknown_00));
            }
            if p.unknown_20 != 0 {
                odd.push(format!("unknown_20 = {:#010x}", p.unknown_20));
            }
            if p.runtime.iter().any(|&b| b != 0) {
                odd.push("run-time bytes +0x04..+0x14 not zero".to_string());
            }
            if !odd.is_empty() {
                notes.push(format!("{} part {k}: {}", s.name, odd.join(", ")));
            }
        }
    }
}

fn dmc3_notes(s: &Skeleton, d: &Dmc3Skeleton, notes: &mut Vec<String>) {
    if let Some(c) = crate::native::dmc3::BlockRels::canonical(s.joints.len()) {
        if c != d.rels {
            notes.push(format!(
                "{}: non-canonical block placement: parent {:#x} order {:#x} group {:#x} transforms {:#x} (canonical {:#x} {:#x} {:#x} {:#x}); the rel fields are used as the truth",
                s.name, d.rels.parent, d.rels.order, d.rels.group, d.rels.transform,
                c.parent, c.order, c.group, c.transform
            ));
        }
    }
    if d.unknown_10.iter().any(|&b| b != 0) {
        notes.push(format!("{}: block header +0x10..+0x1F not zero", s.name));
    }
    if d.padding.iter().any(|g| g.bytes.iter().any(|&b| b != 0)) {
        notes.push(format!(
            "{}: non-zero bytes in the block's padding (kept)",
            s.name
        ));
    }
    let odd: Vec<String> = s
        .joints
        .iter()
        .enumerate()
        .filter_map(|(k, j)| match &j.native {
            JointPayload::Dmc3(p) if p.record.w_bits != 0 => {
                Some(format!("node {k} = {:#010x}", p.record.w_bits))
            }
            _ => None,
        })
        .collect();
    if !odd.is_empty() {
        notes.push(format!(
            "{}: transform +0x1C not 0.0 (0 in every file seen): {}",
            s.name,
            odd.join(", ")
        ));
    }
}

/// Renders the report as readable text: slots, notes, and per skeleton an indented joint tree.
pub fn render_text(r: &Report) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "format {}, {} bytes, {} skeleton(s)",
        r.kind,
        r.size,
        r.skeletons.len()
    );
    for n in &r.notes {
        let _ = writeln!(out, "note: {n}");
    }
    for (si, s) in r.skeletons.iter().enumerate() {
        let aliases: Vec<String> = r
            .slots
            .iter()
            .filter(|x| x.skeleton == si)
            .map(|x| x.slot.to_string())
            .collect();
        let _ = write!(
            out,
            "\nskeleton {} at {:#x}: {} joint(s)",
            s.name,
            s.offset,
            s.joints.len()
        );
        if !aliases.is_empty() {
            let _ = write!(out, ", slot(s) {}", aliases.join(", "));
        }
        out.push('\n');
        match &s.gate {
            None => out.push_str("  gate: ok\n"),
            Some(g) => {
                let _ = writeln!(out, "  gate: FAILS: {} (round trip only)", g.message);
            }
        }
        if r.kind == "hie" {
            if let Some(lists) = s.native.get("byte_lists") {
                let _ = writeln!(out, "  byte lists: {}", lists);
            }
        }
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); s.joints.len()];
        let mut roots = Vec::new();
        for j in &s.joints {
            match j.parent {
                Some(p) if p < s.joints.len() && s.gate.is_none() => children[p].push(j.index),
                _ => roots.push(j.index),
            }
        }
        let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&r| (r, 0)).collect();
        while let Some((j, level)) = stack.pop() {
            let jr = &s.joints[j];
            let _ = write!(
                out,
                "  {:indent$}{} [{}]",
                "",
                jr.name,
                j,
                indent = level * 2
            );
            out.push_str(&joint_detail(r.kind, jr, level));
            if let Some(w) = jr.world {
                let _ = write!(out, " world ({}, {}, {})", num(w[0]), num(w[1]), num(w[2]));
            }
            out.push('\n');
            for &c in children[j].iter().rev() {
                stack.push((c, level + 1));
            }
        }
    }
    render_objects(&r.objects, &mut out);
    out
}

/// The objects and meshes as text: one line per object, one per mesh.
fn render_objects(objects: &[ObjectReport], out: &mut String) {
    use std::fmt::Write;
    if objects.is_empty() {
        return;
    }
    let meshes: usize = objects.iter().map(|o| o.meshes.len()).sum();
    let _ = writeln!(out, "\n{} object(s), {meshes} mesh(es)", objects.len());
    render_object_lines(objects, out, "");
}

/// One line per object and one per mesh, each after `indent`.
pub(crate) fn render_object_lines(objects: &[ObjectReport], out: &mut String, indent: &str) {
    use std::fmt::Write;
    for o in objects {
        let [x, y, z, radius] = o.bounds.map(f64::from);
        let _ = writeln!(
            out,
            "{indent}  object {}: {} mesh(es), vertex count {}, bounding sphere ({}, {}, {}) radius {}",
            o.index,
            o.meshes.len(),
            o.vertex_count,
            num(x),
            num(y),
            num(z),
            num(radius)
        );
        for m in &o.meshes {
            let joints = if m.joints.is_empty() {
                "no joints".to_string()
            } else {
                format!("joints {}", ranges(&m.joints))
            };
            let _ = writeln!(
                out,
                "{indent}    mesh {} {}: {} vertices, {} triangles, texture {}, {joints}",
                m.index, m.name, m.vertices, m.triangles, m.texture
            );
        }
    }
}

/// Ascending numbers as text, runs of three or more as `first-last`: `0-2 5 7 8`.
fn ranges(xs: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while let Some(&first) = xs.get(i) {
        let mut j = i;
        while xs
            .get(j + 1)
            .is_some_and(|&n| Some(n) == xs[j].checked_add(1))
        {
            j += 1;
        }
        if j >= i + 2 {
            parts.push(format!("{first}-{}", xs[j]));
        } else {
            parts.extend(xs[i..=j].iter().map(usize::to_string));
        }
        i = j + 1;
    }
    parts.join(" ")
}

/// A native-unit value in text: four decimals at most, no noise digits.
fn num(x: f64) -> String {
    crate::units::number(x, 4)
}

fn joint_detail(kind: &str, j: &JointReport, level: usize) -> String {
    let n = &j.native;
    let t = j.translation;
    if kind == "hie" {
        let model = n.get("model").and_then(Value::as_str).unwrap_or("?");
        let (depth, offset) = match (n.get("raw"), n.get("root_offset")) {
            (Some(raw), _) if !raw.is_null() => {
                (raw["depth"].to_string(), raw["offset"].to_string())
            }
            (_, Some(ro)) if !ro.is_null() => {
                ((level + 1).to_string(), format!("{ro} (not applied)"))
            }
            _ => (
                (level + 1).to_string(),
                format!("[{},{},{}]", num(t[0]), num(t[1]), num(t[2])),
            ),
        };
        format!(" depth {depth} offset {offset} model {model}")
    } else {
        let r = crate::rig::dmc3::euler_xyz(glam::DQuat::from_array(j.rotation));
        let w = n
            .get("record")
            .and_then(|x| x.get("w_bits"))
            .and_then(Value::as_str)
            .unwrap_or("?");
        let g = n.get("group").map(Value::to_string).unwrap_or_default();
        let deg = crate::units::degrees;
        format!(
            " t ({}, {}, {}) r ({}, {}, {}) +0x1C {w} group {g}",
            num(t[0]),
            num(t[1]),
            num(t[2]),
            deg(r[0]),
            deg(r[1]),
            deg(r[2])
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn runs_of_three_or_more_are_ranges() {
        assert_eq!(
            super::ranges(&[0, 1, 2, 5, 7, 8, 10, 11, 12, 13]),
            "0-2 5 7 8 10-13"
        );
        assert_eq!(super::ranges(&[4]), "4");
        assert_eq!(super::ranges(&[]), "");
    }
}
