//! DMC3 models as a rig format ([`Dmc3Format`]): what the glTF layer asks of a DMC3 source
//! (its kind, meshes, materials, incoming joints and meshes, the layout notes), answered from
//! the lifted shell ([`super::dmc3`]), its geometry ([`super::dmc3_geometry`]), its mesh writer
//! ([`super::dmc3_mesh`]) and its layout ([`super::dmc3_layout`]).

use super::dmc3::*;
use glam::{DQuat, DVec3};

use super::format::{
    payload_methods, Conflict, IncomingJoint, JointProblem, Judge, Placement, Recomputed, Restored,
    RigFormat, Written,
};
use super::mesh::{IncomingMesh, Mesh, MeshRefusal, MeshWrite};
use super::space::{Space, SpaceRotation};
use super::{
    Joint, JointPayload, LiftMemo, LowerError, RebuildError, Rig, Skeleton, SkeletonPayload, Source,
};
use crate::native::dmc3::joint_indices;
use crate::native::{NativeFile, WriteError};
/// DMC3 MOD/SCM and bare node-domain blocks behind [`RigFormat`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dmc3Format;

impl RigFormat for Dmc3Format {
    fn names(&self) -> &'static [&'static str] {
        &["mod", "scm", "block"]
    }

    fn set_texture_count(&self, rig: &mut Rig, count: u8) -> Option<(u8, &'static str)> {
        set_texture_count(rig, count).map(|was| (was, "+0x12"))
    }

    fn kind(&self, source: &Source) -> &'static str {
        match source {
            Source::Dmc3(shell) => super::dmc3_geometry::dmc3_kind(shell),
            // Not a DMC3 source: never asked (a source answers through its own format).
            Source::Hie(_) => "mod",
        }
    }

    /// Centimetres, Y up.
    fn default_space(&self) -> Space {
        Space {
            scale: 0.01,
            rotation: SpaceRotation::None,
        }
    }

    /// The order array holds u8 node indices.
    fn max_joints(&self) -> usize {
        256
    }

    fn meshes(&self, rig: &Rig) -> Vec<Mesh> {
        match &rig.source {
            Source::Dmc3(shell) => super::dmc3_geometry::dmc3_meshes(shell),
            Source::Hie(_) => Vec::new(),
        }
    }

    /// `texture_N` names texture index N.
    fn material_key(&self, name: &str) -> Option<String> {
        super::dmc3_geometry::material_texture(name).map(super::dmc3_geometry::texture_material)
    }

    /// Texture index `i`, when it fits the mesh record's u16.
    fn material_for_index(&self, i: usize) -> Option<String> {
        u16::try_from(i)
            .ok()
            .map(super::dmc3_geometry::texture_material)
    }

    fn write_meshes(
        &self,
        rig: &mut Rig,
        incoming: &[IncomingMesh],
        space: Space,
    ) -> Result<MeshWrite, MeshRefusal> {
        let names: Vec<String> = rig
            .skeletons
            .first()
            .map(|s| s.joints.iter().map(|j| j.name.clone()).collect())
            .unwrap_or_default();
        match &mut rig.source {
            Source::Dmc3(shell) => super::dmc3_mesh::write_meshes(shell, incoming, space, &names),
            // Not a DMC3 source: never asked (a source answers through its own format).
            Source::Hie(_) => Ok(MeshWrite::default()),
        }
    }

    fn lower(&self, rig: &Rig, memo: &LiftMemo) -> Result<NativeFile, LowerError> {
        lower_parts(rig, memo)
            .map(Lowered::into_file)
            .map(NativeFile::Dmc3)
    }

    fn lower_write_into(
        &self,
        rig: &Rig,
        memo: &LiftMemo,
        out: &mut Vec<u8>,
    ) -> Result<(), RebuildError> {
        let lowered = lower_parts(rig, memo).map_err(RebuildError::Lower)?;
        crate::native::dmc3::write_parts_into(lowered.parts(), out)
            .map_err(|e| RebuildError::Write(WriteError::Dmc3(e)))
    }

    payload_methods!(Dmc3, super::extras::upgrade_dmc3_source);

    /// The raw record.
    fn payload_transform(&self, payload: &JointPayload) -> Option<(DVec3, DQuat)> {
        match payload {
            JointPayload::Dmc3(d) => {
                Some((local_translation(&d.record), local_rotation(&d.record)))
            }
            JointPayload::Hie(_) => None,
        }
    }

    /// The records are f32 like the glTF: the payload's raw record is the baseline.
    fn rest_euler(&self, joint: &Joint) -> [f64; 3] {
        match &joint.native {
            JointPayload::Dmc3(d) if same_bits_quat(local_rotation(&d.record), joint.rotation) => {
                d.record.rotation().map(f64::from)
            }
            _ => euler_xyz(joint.rotation),
        }
    }

    fn placements(&self, _: usize, _: &Skeleton) -> Option<Vec<Placement>> {
        None
    }

    /// The skeleton payload keeps the raw parent and order arrays.
    fn original_parents(
        &self,
        skeleton: &SkeletonPayload,
        joints: usize,
        _: &[Option<u16>],
    ) -> Option<Vec<Option<usize>>> {
        match skeleton {
            SkeletonPayload::Dmc3(p) => Some(node_parents(&p.parents, &p.order, joints)),
            SkeletonPayload::Hie(_) => None,
        }
    }

    /// Translation and rotation are told apart from noise separately, each against what the
    /// raw record lifts to.
    fn restore(
        &self,
        joint: IncomingJoint<'_>,
        judge: &mut dyn Judge,
    ) -> Result<Restored, JointProblem> {
        let JointPayload::Dmc3(d) = joint.payload else {
            return Err(JointProblem::foreign_payload("a DMC3 node"));
        };
        let mut out = Restored::default();
        if joint.original.is_none() {
            out.defaults.push("+0x1C = 0.0".into());
            out.defaults.push(format!("group = {}", d.group));
        }
        let base_t = local_translation(&d.record);
        let base_r = local_rotation(&d.record);
        let (dt, angle) = judge
            .translation_off(base_t)
            .and_then(|dt| Ok((dt, judge.rotation_off(base_r)?)))
            .map_err(|e| {
                JointProblem::refused(
                    "record",
                    format!("the original record cannot be expressed in glTF: {e}"),
                )
            })?;
        out.translation = if dt.within() {
            judge.translation_noise(dt);
            base_t
        } else {
            out.moved = true;
            judge.translation()
        };
        out.rotation = if angle.within() {
            judge.rotation_noise(angle);
            base_r
        } else {
            out.rotated = true;
            judge.rotation()
        };
        Ok(out)
    }

    /// Any order: lowering rewrites the order array.
    fn storage_order(&self, _: &[Option<usize>]) -> Option<(Vec<usize>, &'static str)> {
        None
    }

    /// The vertex streams name joints by index.
    fn renumbering_conflict(
        &self,
        source: &Source,
        _: &SkeletonPayload,
        map: &[Option<usize>],
        _: usize,
        _: bool,
    ) -> Option<Conflict> {
        let (j, o, m, v) = vertex_reference(source, map)?;
        Some(Conflict {
            joint: j,
            field: "vertex joint indices",
            problem: format!(
                "vertex {v} of object {o} mesh {m} references joint {j}, which would be {}; the mesh streams are not rewritten, so the removal is refused",
                match map.get(j).copied().flatten() {
                    Some(x) => format!("renumbered to {x}"),
                    None => "removed".into(),
                }
            ),
        })
    }

    fn layout_notes(&self, rig: &Rig, native: &NativeFile) -> Vec<String> {
        super::dmc3_layout::layout_notes(rig, native)
    }

    fn recomputed(&self, rig: &Rig, native: &NativeFile, written: &Written) -> Vec<Recomputed> {
        let NativeFile::Dmc3(f) = native else {
            return Vec::new();
        };
        let (Some(block), Some(sk)) = (&f.block, rig.skeletons.first()) else {
            return Vec::new();
        };
        let written = written.first().map(Vec::as_slice).unwrap_or(&[]);
        let joints = written
            .iter()
            .enumerate()
            .map(|(x, w)| {
                let (Some(new), Some(JointPayload::Dmc3(old))) =
                    (block.transforms.get(x), sk.joints.get(x).map(|j| &j.native))
                else {
                    return Vec::new();
                };
                if w.original.is_none() {
                    return vec!["record (new)".to_string()];
                }
                let old = &old.record;
                [
                    ("tx (+0x00)", new.tx_bits, old.tx_bits),
                    ("ty (+0x04)", new.ty_bits, old.ty_bits),
                    ("tz (+0x08)", new.tz_bits, old.tz_bits),
                    ("magnitude (+0x0C)", new.magnitude_bits, old.magnitude_bits),
                    ("rx (+0x10)", new.rx_bits, old.rx_bits),
                    ("ry (+0x14)", new.ry_bits, old.ry_bits),
                    ("rz (+0x18)", new.rz_bits, old.rz_bits),
                ]
                .into_iter()
                .filter(|(_, a, b)| a != b)
                .map(|(name, _, _)| name.to_string())
                .collect()
            })
            .collect();
        let mut rewritten = Vec::new();
        if let SkeletonPayload::Dmc3(p) = &sk.native {
            if block.parents != p.parents {
                rewritten.push("parent array (by order position)".into());
            }
            if block.order != p.order {
                rewritten.push("order array".into());
            }
            if block.rels != p.rels {
                rewritten.push(format!(
                    "block layout: rel fields and padding for {} nodes",
                    block.node_count()
                ));
            }
            if block.groups.len() != p.order.len() {
                rewritten.push("group array".into());
            }
            if block.offset != p.offset {
                rewritten.push(format!(
                    "block moved from {:#x} to {:#x}: the file was laid out again (header +0x20 follows)",
                    p.offset, block.offset
                ));
            }
        }
        vec![Recomputed { joints, rewritten }]
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
