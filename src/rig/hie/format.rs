//! DBnnHIE.BIN behind [`RigFormat`]: the space, limits, noise restoration, recomputed fields and
//! edit judging of HIE rigs (the lift and lower themselves are in the parent module).

use super::*;

/// DBnnHIE.BIN behind [`RigFormat`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HieFormat;

/// Offsets that lose more than this (native units) to integer rounding are reported.
const ROUNDING_REPORTED: f64 = 1e-3;
/// The largest offset (native units) a glTF 32-bit float translation still carries to the exact
/// integer with room for noise: its rounding error is at most |v|·2⁻²⁴ = 0.25 units here.
/// Without the offset recorded in the node extras, beyond it the original integer is lost.
const HIE_EXACT_UNITS: f64 = 4_194_304.0;

impl RigFormat for HieFormat {
    fn names(&self) -> &'static [&'static str] {
        &["hie"]
    }

    fn kind(&self, _: &Source) -> &'static str {
        "hie"
    }

    /// Integer millimetres, Y down.
    fn default_space(&self) -> Space {
        Space {
            scale: 0.001,
            rotation: SpaceRotation::X180,
        }
    }

    fn max_joints(&self) -> usize {
        MAX_PARTS
    }

    /// The parts of this file carry no geometry.
    fn meshes(&self, _: &Rig) -> Vec<Mesh> {
        Vec::new()
    }

    /// A hierarchy file holds no meshes: any mesh that comes in is refused.
    fn write_meshes(
        &self,
        _: &mut Rig,
        incoming: &[IncomingMesh],
        _: Space,
    ) -> Result<MeshWrite, MeshRefusal> {
        match incoming.first() {
            Some(m) => Err(MeshRefusal {
                mesh: m.name.clone(),
                problem: "a DBnnHIE.BIN file holds hierarchies only, no meshes".into(),
            }),
            None => Ok(MeshWrite::default()),
        }
    }

    fn lower(&self, rig: &Rig, _: &LiftMemo) -> Result<NativeFile, LowerError> {
        lower(rig).map(NativeFile::Hie)
    }

    fn lower_write_into(
        &self,
        rig: &Rig,
        _: &LiftMemo,
        out: &mut Vec<u8>,
    ) -> Result<(), RebuildError> {
        let (shell, hierarchies) = lower_hierarchies(rig).map_err(RebuildError::Lower)?;
        let parts = crate::native::hie::HieParts {
            slots: &shell.slots,
            hierarchies: &hierarchies,
            gaps: &shell.gaps,
        };
        crate::native::hie::write_parts_into(parts, out)
            .map_err(|e| RebuildError::Write(WriteError::Hie(e)))
    }

    payload_methods!(Hie);

    /// Offsets are i32: beyond 2^24 units the f32 translation cannot hold them, and without
    /// the stored values the import could not tell a whole-unit move from float noise.
    fn placements(&self, s: usize, skeleton: &Skeleton) -> Option<Vec<Placement>> {
        placements(s, skeleton).ok()
    }

    /// Only the parts' depths hold parents: known when every joint recorded its depth.
    fn original_parents(
        &self,
        _: &SkeletonPayload,
        _: usize,
        recorded_depths: &[Option<u16>],
    ) -> Option<Vec<Option<usize>>> {
        let depths: Vec<u16> = recorded_depths.iter().copied().collect::<Option<_>>()?;
        parents_from_depths(&depths).ok()
    }

    fn restore(
        &self,
        joint: IncomingJoint<'_>,
        judge: &mut dyn Judge,
    ) -> Result<Restored, JointProblem> {
        let mut out = Restored::default();
        let JointPayload::Hie(h) = joint.payload else {
            return Err(JointProblem::foreign_payload("a HIE part"));
        };
        if joint.original.is_some()
            && (joint.recorded.offset.is_none() || joint.recorded.depth.is_none())
        {
            out.note = Some("the joint extras do not record HIE part offsets and depths: an offset moved by whole units cannot be told from an unchanged one (it is written as given but not listed as moved), and reparenting is not reported; parents come from the node hierarchy");
        }
        if joint.original.is_none() {
            out.defaults.extend(
                [
                    "unknown_00 = 0",
                    "runtime = 0",
                    "unknown_20 = 0",
                    "model = 0",
                ]
                .map(String::from),
            );
        }
        let angle = judge.rotation_off(DQuat::IDENTITY)?;
        if angle.exceeds() {
            return Err(JointProblem::refused(
                "rotation",
                format!(
                    "rotated by {}; HIE rest rotations are identity (a part has no rotation field on disc)",
                    crate::units::degrees(angle.value)
                ),
            ));
        }
        judge.rotation_noise(angle);
        out.rotation = DQuat::IDENTITY;
        out.translation = if joint.root {
            let d = judge.translation_off(DVec3::ZERO)?;
            if d.exceeds() {
                return Err(JointProblem::refused(
                    "translation",
                    format!(
                        "the root moved to {}; the game does not apply a HIE root's own offset (the root joint is the object's position), so a moved root cannot be stored",
                        crate::units::lengths(&judge.translation_m().to_array())
                    ),
                ));
            }
            judge.translation_noise(d);
            if joint.original.is_some() && h.root_offset.is_none() {
                out.changes.push("now a root".into());
                out.defaults
                    .push("offset (+0x14) = [0, 0, 0] (a root's own offset is not applied)".into());
            }
            DVec3::ZERO
        } else {
            if let Some(ro) = h.root_offset.filter(|ro| *ro != [0; 3]) {
                return Err(JointProblem::refused(
                    "root_offset",
                    format!(
                        "the part was a root whose own (unapplied) offset is {ro:?}; as a child it would lose that value"
                    ),
                ));
            }
            restore_offset(joint, judge, &mut out)?
        };
        Ok(out)
    }

    /// Parts are stored depth first: the order is what gives them their parents.
    fn storage_order(&self, parents: &[Option<usize>]) -> Option<(Vec<usize>, &'static str)> {
        let order = depth_first_order(parents);
        (order.len() == parents.len() && order.iter().enumerate().any(|(a, &b)| a != b)).then_some(
            (
                order,
                "parts reordered depth first (the order is what gives HIE parts their parents)",
            ),
        )
    }

    /// The byte lists name parts by index.
    fn renumbering_conflict(
        &self,
        _: &Source,
        skeleton: &SkeletonPayload,
        map: &[Option<usize>],
        joints_after: usize,
        removal: bool,
    ) -> Option<Conflict> {
        let SkeletonPayload::Hie(p) = skeleton else {
            return None;
        };
        let c = byte_list_conflict(&p.byte_lists, map, joints_after)?;
        let v = usize::from(c.value);
        let what = match map.get(v) {
            Some(Some(x)) => format!("which would become part {x}"),
            Some(None) => "which was removed".to_string(),
            None => "an index that would name a new part".to_string(),
        };
        Some(Conflict {
            joint: v,
            field: "byte lists",
            problem: format!(
                "entry {} of byte list {} names part {v}, {what}; the byte lists (part groups) reference parts by index and are not rewritten, so this {} is refused",
                c.position,
                c.list,
                if removal { "removal or reordering" } else { "reordering" }
            ),
        })
    }

    fn recomputed(&self, rig: &Rig, native: &NativeFile, written: &Written) -> Vec<Recomputed> {
        let NativeFile::Hie(f) = native else {
            return Vec::new();
        };
        rig.skeletons
            .iter()
            .enumerate()
            .map(|(s, sk)| {
                let h = f.hierarchies.get(s);
                let parts = h.map(|h| h.parts.as_slice()).unwrap_or(&[]);
                let joints = written
                    .get(s)
                    .map(Vec::as_slice)
                    .unwrap_or(&[])
                    .iter()
                    .enumerate()
                    .map(|(x, w)| recomputed_part(x, w, sk.joints.get(x), parts.get(x)))
                    .collect();
                let mut rewritten = Vec::new();
                if let (Some(h), SkeletonPayload::Hie(p)) = (h, &sk.native) {
                    if h.span > 0 && h.encoded_len() > u64::from(h.span) {
                        rewritten.push(format!(
                            "the hierarchy grew to {} parts and moves to the end of the file; its old place ({:#x}, {:#x} bytes) is zero-filled",
                            h.parts.len(),
                            p.offset,
                            p.span
                        ));
                    }
                }
                Recomputed { joints, rewritten }
            })
            .collect()
    }
}

/// A child part's offset: the recorded stored offset where the incoming translation is noise
/// around it, else the incoming translation rounded to integers (an edit, unless no offset was
/// recorded and the rounding is within the noise).
fn restore_offset(
    joint: IncomingJoint<'_>,
    judge: &mut dyn Judge,
    out: &mut Restored,
) -> Result<DVec3, JointProblem> {
    // With the stored offset recorded, noise and edits are told apart against it; without,
    // against the nearest integers.
    let baseline = joint
        .recorded
        .offset
        .filter(|_| joint.original.is_some())
        .map(to_f64);
    let kept = baseline.and_then(|b| {
        let d = judge.translation_off(b).ok()?;
        d.within().then_some((b, d))
    });
    if let Some((b, d)) = kept {
        judge.translation_noise(d);
        return Ok(b);
    }
    let native = judge.translation();
    let rounded = native.round();
    let fits = rounded.is_finite() && rounded.abs().max_element() <= f64::from(i32::MAX);
    if !fits {
        return Err(JointProblem::refused(
            "offset (+0x14)",
            format!(
                "{} units does not fit a 32-bit integer",
                crate::units::values(&native.to_array())
            ),
        ));
    }
    if rounded.abs().max_element() > HIE_EXACT_UNITS {
        return Err(JointProblem::refused(
            "offset (+0x14)",
            format!(
                "{} units is beyond ±{HIE_EXACT_UNITS} units, where a glTF 32-bit float no longer carries an integer offset exactly, and the node extras do not record the stored offset: the value cannot be recovered from this glTF",
                crate::units::values(&rounded.to_array())
            ),
        ));
    }
    let d = judge.translation_off(rounded)?;
    if baseline.is_none() && d.within() {
        judge.translation_noise(d);
    } else {
        out.moved = true;
        let lost = (native - rounded).abs().max_element();
        if lost > ROUNDING_REPORTED {
            out.rounding = Some(format!(
                "offset {} units stored as {:?} (integers)",
                crate::units::values(&native.to_array()),
                rounded.to_array()
            ));
        }
    }
    Ok(rounded)
}

/// The fields recomputed for written part `x`: the offset of a moved part, the depth of one
/// whose depth changed (or, without a recorded depth, that was renumbered or became a root).
fn recomputed_part(
    x: usize,
    w: &WrittenJoint,
    joint: Option<&Joint>,
    part: Option<&Part>,
) -> Vec<String> {
    let mut out = Vec::new();
    if w.original.is_none() {
        out.push("part (new): depth (+0x02), offset (+0x14)".into());
        return out;
    }
    if w.moved {
        out.push("offset (+0x14)".into());
    }
    let depth_changed = match w.recorded.depth {
        Some(d) => part.map(|p| p.depth) != Some(d),
        None => {
            // What the import reported as "now a root": an original part that is a root and
            // never had a root offset.
            let now_root = joint.is_some_and(|j| {
                j.parent.is_none()
                    && matches!(&j.native, JointPayload::Hie(h) if h.root_offset.is_none())
            });
            w.original != Some(x) || now_root
        }
    };
    if depth_changed {
        out.push("depth (+0x02)".into());
    }
    out
}
