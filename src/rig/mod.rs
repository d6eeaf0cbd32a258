//! The format-neutral rig (IR): skeletons of joints with parents and local transforms, plus each
//! format's native payload carried exactly. World matrices, inverse bind matrices and the
//! spatial capability gate are computed here, once, for every format.
//!
//! Data flows `native --lift--> Rig --lower--> native`; `lower(lift(x)) == x` for every file the
//! native reader accepts, including those whose skeletons fail the gate.

pub mod archive;
pub mod cloth;
pub mod dmc3;
mod dmc3_block;
pub(crate) mod dmc3_geometry;
mod dmc3_layout;
mod dmc3_mesh;
pub mod extras;
pub mod format;
pub mod formats;
pub mod hie;
pub mod hull;
pub mod mesh;
pub mod motion;
pub mod shadow;
pub mod space;

use glam::{DMat4, DQuat, DVec3};
use std::fmt;

use crate::native::{NativeFile, WriteError};

/// A whole rig: every skeleton of one native file, plus what the file holds besides joints.
#[derive(Debug, Clone, PartialEq)]
pub struct Rig {
    /// The native file with its skeleton data moved out into `skeletons` (the "shell").
    pub source: Source,
    /// One skeleton per native skeleton (HIE: per hierarchy, aliases read once; DMC3: one).
    pub skeletons: Vec<Skeleton>,
}

/// The file-level remainder of a native file once its skeletons were lifted out.
// One Source per Rig: the size difference between variants costs nothing worth a Box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A DBnnHIE.BIN file whose hierarchies live in `Rig::skeletons` (same order).
    Hie(hie::HieShell),
    /// A DMC3 container (MOD/SCM) or any file holding a node-domain block.
    Dmc3(dmc3::Dmc3Shell),
}

/// One skeleton: joints in native index order (`joints[k]` is native joint k).
#[derive(Debug, Clone, PartialEq)]
pub struct Skeleton {
    /// A readable default name, e.g. `slot1` or `mod`.
    pub name: String,
    /// Joints; the vector index is the joint's stable identity (its native index).
    pub joints: Vec<Joint>,
    /// Whether the skeleton may be treated as a model-space hierarchy, and if not, why.
    pub gate: Result<(), GateFailure>,
    /// What the format keeps per skeleton besides joints.
    pub native: SkeletonPayload,
}

/// One joint.
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    /// Display name (not native: changing it changes no byte).
    pub name: String,
    /// Index of the parent joint in the same skeleton, `None` for a root.
    pub parent: Option<usize>,
    /// Local translation from the parent's joint, native units.
    pub translation: DVec3,
    /// Local rotation.
    pub rotation: DQuat,
    /// The format's undecoded (and not-applied) fields for this joint, exactly.
    pub native: JointPayload,
}

/// Per-skeleton native payload.
#[derive(Debug, Clone, PartialEq)]
pub enum SkeletonPayload {
    /// A DBnnHIE.BIN hierarchy.
    Hie(hie::HieSkeleton),
    /// A DMC3 node-domain block.
    Dmc3(dmc3::Dmc3Skeleton),
}

/// Per-joint native payload.
#[derive(Debug, Clone, PartialEq)]
pub enum JointPayload {
    /// A DBnnHIE.BIN part.
    Hie(hie::HieJoint),
    /// A DMC3 node.
    Dmc3(dmc3::Dmc3Joint),
}

/// The conditions of the spatial capability gate, across formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateCondition {
    /// DMC3 (1): the order array is a full permutation.
    OrderIsPermutation,
    /// DMC3 (2): the root stands at order position 0.
    RootFirst,
    /// DMC3 (3): the root's parent is -1.
    RootParentNone,
    /// DMC3 (4) / HIE: every non-root parent was evaluated earlier.
    ParentEvaluatedEarlier,
    /// (5): the hierarchy is acyclic.
    Acyclic,
    /// (6): every local transform is complete and finite.
    FiniteTransforms,
    /// HIE: the first part has depth 1.
    FirstDepthIsOne,
    /// HIE: depth never jumps by more than one from one part to the next.
    DepthStepAtMostOne,
    /// HIE: every part's depth is at least 1 (depth 0 has no parent level).
    DepthAtLeastOne,
    /// Any format: a parent index names a joint of the skeleton.
    ParentInRange,
}

impl GateCondition {
    /// The condition as a sentence fragment, for messages.
    pub fn text(self) -> &'static str {
        match self {
            GateCondition::OrderIsPermutation => "the order array is a full permutation",
            GateCondition::RootFirst => "the root stands at order position 0",
            GateCondition::RootParentNone => "the root's parent is -1",
            GateCondition::ParentEvaluatedEarlier => {
                "every non-root parent was evaluated at an earlier position"
            }
            GateCondition::Acyclic => "the hierarchy is acyclic",
            GateCondition::FiniteTransforms => "every local transform is complete and finite",
            GateCondition::FirstDepthIsOne => "the first part has depth 1",
            GateCondition::DepthStepAtMostOne => "a depth is at most one more than the previous",
            GateCondition::DepthAtLeastOne => "every depth is at least 1",
            GateCondition::ParentInRange => "every parent index names a joint",
        }
    }

    /// A stable machine-readable code, for `--json` output.
    pub fn code(self) -> &'static str {
        match self {
            GateCondition::OrderIsPermutation => "order-not-permutation",
            GateCondition::RootFirst => "root-not-first",
            GateCondition::RootParentNone => "root-parent-not-none",
            GateCondition::ParentEvaluatedEarlier => "parent-not-evaluated-earlier",
            GateCondition::Acyclic => "cycle",
            GateCondition::FiniteTransforms => "non-finite-transform",
            GateCondition::FirstDepthIsOne => "first-depth-not-one",
            GateCondition::DepthStepAtMostOne => "depth-jump",
            GateCondition::DepthAtLeastOne => "depth-zero",
            GateCondition::ParentInRange => "parent-out-of-range",
        }
    }
}

/// Why a skeleton is not a model-space hierarchy. It still round-trips byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateFailure {
    /// The condition that does not hold.
    pub condition: GateCondition,
    /// The joint (native index) where it fails, when one can be named.
    pub joint: Option<usize>,
    /// The evaluation-order position where it fails (DMC3), when there is one.
    pub position: Option<usize>,
    /// Specifics, e.g. the offending values.
    pub detail: String,
}

impl fmt::Display for GateFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "spatial gate: {} does not hold", self.condition.text())?;
        if let Some(p) = self.position {
            write!(f, " at order position {p}")?;
        }
        if let Some(j) = self.joint {
            write!(f, " (joint {j})")?;
        }
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        Ok(())
    }
}

impl std::error::Error for GateFailure {}

impl GateFailure {
    /// A failure at a joint.
    pub fn at(condition: GateCondition, joint: Option<usize>, detail: impl Into<String>) -> Self {
        GateFailure {
            condition,
            joint,
            position: None,
            detail: detail.into(),
        }
    }
}

/// Checks what every format's gate shares: parents in range, no cycles, finite transforms.
/// Format lifts run their own conditions first and this last.
pub fn check_structure(joints: &[Joint]) -> Result<(), GateFailure> {
    // Whether every parent comes before its child (always so for HIE's depth-first parts).
    let mut forward = true;
    for (i, j) in joints.iter().enumerate() {
        if let Some(p) = j.parent {
            if p >= joints.len() {
                return Err(GateFailure::at(
                    GateCondition::ParentInRange,
                    Some(i),
                    format!("parent {p}, but there are {} joints", joints.len()),
                ));
            }
            forward &= p < i;
        }
        if !(j.translation.is_finite() && j.rotation.is_finite()) {
            return Err(GateFailure::at(
                GateCondition::FiniteTransforms,
                Some(i),
                format!(
                    "translation {}, rotation {}",
                    crate::units::values(&j.translation.to_array()),
                    crate::units::values(&j.rotation.to_array())
                ),
            ));
        }
    }
    if forward {
        // Parent indices strictly decrease up every chain: no cycle, and parents come first.
        return Ok(());
    }
    topological_order(joints).map(|_| ())
}

/// Joint indices ordered so that every parent comes before its children.
pub fn topological_order(joints: &[Joint]) -> Result<Vec<usize>, GateFailure> {
    // 0 = unvisited, 1 = on the current parent chain, 2 = placed.
    let mut state = vec![0u8; joints.len()];
    let mut order = Vec::with_capacity(joints.len());
    let mut chain = Vec::new();
    for start in 0..joints.len() {
        let mut j = start;
        loop {
            match state[j] {
                2 => break,
                1 => {
                    return Err(GateFailure::at(
                        GateCondition::Acyclic,
                        Some(j),
                        format!("joint {j} is its own ancestor"),
                    ))
                }
                _ => {}
            }
            state[j] = 1;
            chain.push(j);
            match joints[j].parent {
                Some(p) if p < joints.len() => j = p,
                Some(p) => {
                    return Err(GateFailure::at(
                        GateCondition::ParentInRange,
                        Some(j),
                        format!("parent {p}, but there are {} joints", joints.len()),
                    ))
                }
                None => break,
            }
        }
        while let Some(c) = chain.pop() {
            state[c] = 2;
            order.push(c);
        }
    }
    Ok(order)
}

impl Joint {
    /// The local matrix, column-vector convention: translation · rotation.
    pub fn local_matrix(&self) -> DMat4 {
        DMat4::from_rotation_translation(self.rotation, self.translation)
    }
}

impl Skeleton {
    /// Rest-pose world matrices in column-vector terms, `world[j] = world[parent] · local[j]`,
    /// indexed like `joints`. Fails when the skeleton does not pass the gate.
    pub fn world_matrices(&self) -> Result<Vec<DMat4>, GateFailure> {
        self.gate.clone()?;
        let order = topological_order(&self.joints)?;
        let mut world = vec![DMat4::IDENTITY; self.joints.len()];
        for j in order {
            let local = self.joints[j].local_matrix();
            world[j] = match self.joints[j].parent {
                Some(p) => world[p] * local,
                None => local,
            };
        }
        Ok(world)
    }

    /// Rest-pose world positions (native units), indexed like `joints`.
    pub fn world_positions(&self) -> Result<Vec<DVec3>, GateFailure> {
        Ok(self
            .world_matrices()?
            .iter()
            .map(|m| m.w_axis.truncate())
            .collect())
    }

    /// Inverse bind matrices: the inverse of each joint's rest world matrix.
    pub fn inverse_bind_matrices(&self) -> Result<Vec<DMat4>, GateFailure> {
        Ok(self.world_matrices()?.iter().map(|m| m.inverse()).collect())
    }

    /// Indices of the root joints.
    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        self.joints
            .iter()
            .enumerate()
            .filter(|(_, j)| j.parent.is_none())
            .map(|(i, _)| i)
    }
}

/// Why a rig cannot be lowered to its native format.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LowerError {
    /// A joint holds something the native format cannot represent.
    #[error("skeleton {skeleton}, joint {joint} ({name}): {field}: {problem}")]
    Unrepresentable {
        /// Skeleton index.
        skeleton: usize,
        /// Joint index.
        joint: usize,
        /// Joint name.
        name: String,
        /// The native field concerned.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// The rig's structure does not fit the format.
    #[error("skeleton {skeleton}: {problem}")]
    Structure {
        /// Skeleton index.
        skeleton: usize,
        /// What is wrong.
        problem: String,
    },
    /// A payload belongs to another format.
    #[error("skeleton {skeleton}: payload of another format ({found}) in a {expected} rig")]
    WrongPayload {
        /// Skeleton index.
        skeleton: usize,
        /// The source's format.
        expected: &'static str,
        /// What was found.
        found: &'static str,
    },
}

impl Rig {
    /// The rig's geometry in native units (MOD/SCM meshes; HIE has none in this file).
    pub fn meshes(&self) -> Vec<mesh::Mesh> {
        self.source.format().meshes(self)
    }

    /// A short name of the native format: `hie`, `mod`, `scm` or `block`.
    pub fn kind(&self) -> &'static str {
        self.source.format().kind(&self.source)
    }
}

/// `{prefix}_{k}`: the default name the lifts give joint `k` of a skeleton named `prefix`.
/// Built without the formatting machinery (lifting a large HIE table names thousands of
/// joints): one allocation of the exact size.
pub(crate) fn joint_name(prefix: &str, k: usize) -> String {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut v = k;
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let mut s = String::with_capacity(prefix.len() + 1 + digits.len() - i);
    s.push_str(prefix);
    s.push('_');
    s.extend(digits[i..].iter().map(|&d| d as char));
    s
}

/// Lifts a native file into the IR.
pub fn lift(file: NativeFile) -> Rig {
    match file {
        NativeFile::Hie(f) => hie::lift(f),
        NativeFile::Dmc3(f) => dmc3::lift(f),
    }
}

/// What a lift computed that lowering the same rig would compute again to see which joints
/// are unchanged: the rotations it lifted from raw angle bits (DMC3), per skeleton and joint,
/// with the bits each came from. Handed to [`lower_with`] or [`lower_write_into_with`], it
/// saves that work for every joint whose bits are still the ones it lists; any other joint
/// (an edited record, another rig) is computed again, so it never decides anything by itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LiftMemo {
    rotations: Vec<Vec<([u32; 3], DQuat)>>,
}

impl LiftMemo {
    /// Skeleton `s`'s entries (empty when none were kept).
    fn skeleton(&self, s: usize) -> &[([u32; 3], DQuat)] {
        self.rotations.get(s).map_or(&[], Vec::as_slice)
    }
}

/// [`lift`], and what lowering the rig again can reuse (verify lowers what it lifted).
pub fn lift_with_memo(file: NativeFile) -> (Rig, LiftMemo) {
    let mut memo = LiftMemo::default();
    let rig = match file {
        NativeFile::Hie(f) => hie::lift(f),
        NativeFile::Dmc3(f) => dmc3::lift_remembering(f, Some(&mut memo)),
    };
    (rig, memo)
}

/// Lowers a rig back to its native file.
pub fn lower(rig: &Rig) -> Result<NativeFile, LowerError> {
    lower_with(rig, &LiftMemo::default())
}

/// [`lower`] with what the lift of the same rig kept ([`lift_with_memo`]).
pub fn lower_with(rig: &Rig, memo: &LiftMemo) -> Result<NativeFile, LowerError> {
    rig.source.format().lower(rig, memo)
}

/// Why a rig could not be turned back into native bytes.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RebuildError {
    /// [`lower`] refused the rig.
    #[error("lower failed")]
    Lower(#[source] LowerError),
    /// The native writer refused the lowered file.
    #[error("write failed")]
    Write(#[source] WriteError),
}

/// `lower(rig)?.write_into(out)` in one step: the same checks and the same bytes, without
/// first copying what lowering leaves unchanged (a DMC3 shell's objects and vertex streams, a
/// HIE shell's slots and gaps) into a new native file.
pub fn lower_write_into(rig: &Rig, out: &mut Vec<u8>) -> Result<(), RebuildError> {
    lower_write_into_with(rig, &LiftMemo::default(), out)
}

/// [`lower_write_into`] with what the lift of the same rig kept ([`lift_with_memo`]).
pub fn lower_write_into_with(
    rig: &Rig,
    memo: &LiftMemo,
    out: &mut Vec<u8>,
) -> Result<(), RebuildError> {
    rig.source.format().lower_write_into(rig, memo, out)
}

/// A skeleton of identity-rotation joints given as `(parent, translation)` and named `s_{k}`,
/// for tests of format-neutral code (the payloads are one format's defaults).
#[cfg(test)]
pub(crate) fn plain_skeleton(joints: &[(Option<usize>, [f64; 3])]) -> Skeleton {
    let joints: Vec<Joint> = joints
        .iter()
        .enumerate()
        .map(|(k, &(parent, t))| Joint {
            name: format!("s_{k}"),
            parent,
            translation: DVec3::from_array(t),
            rotation: DQuat::IDENTITY,
            native: JointPayload::Hie(hie::HieJoint::default()),
        })
        .collect();
    Skeleton {
        name: "s".into(),
        gate: check_structure(&joints),
        joints,
        native: SkeletonPayload::Hie(hie::HieSkeleton::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joint(parent: Option<usize>, t: [f64; 3]) -> Joint {
        Joint {
            name: String::new(),
            parent,
            translation: DVec3::from_array(t),
            rotation: DQuat::IDENTITY,
            native: JointPayload::Hie(hie::HieJoint::default()),
        }
    }

    fn skeleton(joints: Vec<Joint>) -> Skeleton {
        let gate = check_structure(&joints);
        Skeleton {
            name: "s".into(),
            joints,
            gate,
            native: SkeletonPayload::Hie(hie::HieSkeleton::default()),
        }
    }

    #[test]
    fn joint_names_are_prefix_underscore_index() {
        for k in [0, 1, 9, 10, 99, 100, 12345, usize::MAX] {
            assert_eq!(joint_name("slot3", k), format!("slot3_{k}"));
        }
        assert_eq!(joint_name("", 7), "_7");
    }

    #[test]
    fn world_positions_follow_parents_in_any_storage_order() {
        // Joint 0's parent is stored after it.
        let s = skeleton(vec![
            joint(Some(2), [1.0, 0.0, 0.0]),
            joint(None, [0.0, 10.0, 0.0]),
            joint(Some(1), [0.0, 0.0, 100.0]),
        ]);
        let p = s.world_positions().unwrap();
        assert_eq!(p[1], DVec3::new(0.0, 10.0, 0.0));
        assert_eq!(p[2], DVec3::new(0.0, 10.0, 100.0));
        assert_eq!(p[0], DVec3::new(1.0, 10.0, 100.0));
        for (w, ibm) in s
            .world_matrices()
            .unwrap()
            .iter()
            .zip(s.inverse_bind_matrices().unwrap())
        {
            assert!((*w * ibm).abs_diff_eq(DMat4::IDENTITY, 1e-12));
        }
    }

    #[test]
    fn rotation_of_parent_moves_child() {
        let mut s = skeleton(vec![joint(None, [0.0; 3]), joint(Some(0), [1.0, 0.0, 0.0])]);
        s.joints[0].rotation = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2);
        let p = s.world_positions().unwrap();
        assert!(p[1].abs_diff_eq(DVec3::new(0.0, 1.0, 0.0), 1e-12));
    }

    #[test]
    fn gate_names_cycles_range_and_non_finite() {
        let e = check_structure(&[joint(Some(1), [0.0; 3]), joint(Some(0), [0.0; 3])]).unwrap_err();
        assert_eq!(e.condition, GateCondition::Acyclic);
        let e = check_structure(&[joint(Some(5), [0.0; 3])]).unwrap_err();
        assert_eq!(e.condition, GateCondition::ParentInRange);
        assert_eq!(e.joint, Some(0));
        let e = check_structure(&[joint(None, [0.0; 3]), joint(Some(0), [f64::NAN, 0.0, 0.0])])
            .unwrap_err();
        assert_eq!(e.condition, GateCondition::FiniteTransforms);
        assert_eq!(e.joint, Some(1));
        let s = skeleton(vec![joint(Some(0), [0.0; 3])]);
        assert!(s.world_matrices().is_err());
    }
}
