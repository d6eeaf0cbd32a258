//! HIE lift/lower: DBnnHIE.BIN hierarchies to IR skeletons and back.
//!
//! A part's parent is the nearest earlier part one level up (depth first). The game does not
//! apply a root's own offset (the root joint is the object's position), so a root's IR
//! translation is zero and its offset rides along in [`HieJoint::root_offset`]. A hierarchy whose
//! depths leave parents undefined fails the gate; its parts keep depth and offset verbatim in
//! [`HieJoint::raw`] and get no parents.

use glam::{DQuat, DVec3};
use serde::{Deserialize, Serialize};

use super::format::{
    payload_methods, Conflict, IncomingJoint, JointProblem, Judge, Placement, Recomputed, Restored,
    RigFormat, Written, WrittenJoint,
};
use super::mesh::{IncomingMesh, Mesh, MeshRefusal, MeshWrite};
use super::space::{Space, SpaceRotation};
use super::{
    check_structure, GateCondition, GateFailure, Joint, JointPayload, LiftMemo, LowerError,
    RebuildError, Rig, Skeleton, SkeletonPayload, Source,
};
use crate::bytes::Gap;
use crate::native::hie::{ByteLists, HieFile, Hierarchy, HierarchyView, Part, MAX_PARTS};
use crate::native::{NativeFile, WriteError};

mod format;
pub use format::HieFormat;

/// File-level remainder of a HIE file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HieShell {
    /// Slot -> index into `Rig::skeletons` (256 entries), `None` for an empty slot. In JSON a
    /// list of `[slot, skeleton]` pairs for the non-empty slots: Blender cannot hold a list that
    /// mixes null and integers, and would turn the whole scene extras into one string.
    #[serde(with = "slot_pairs")]
    pub slots: Vec<Option<usize>>,
    /// Bytes covered by neither the table nor a hierarchy, exactly.
    pub gaps: Vec<Gap>,
}

/// Per-hierarchy payload.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HieSkeleton {
    /// File offset it was read from.
    #[serde(with = "crate::bytes::hex_u32")]
    pub offset: u32,
    /// Bytes it occupied when read (0 for a new one).
    #[serde(with = "crate::bytes::hex_u32")]
    pub span: u32,
    /// The header's 0x32-byte area, exactly.
    pub byte_lists: ByteLists,
}

/// Per-part payload: the fields the IR transform does not carry.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HieJoint {
    /// +0x00, meaning unknown.
    pub unknown_00: u16,
    /// +0x04, zero on disc (run-time rotation).
    #[serde(with = "crate::bytes::hex_array")]
    pub runtime: [u8; 16],
    /// +0x20, meaning unknown.
    #[serde(with = "crate::bytes::hex_u32")]
    pub unknown_20: u32,
    /// +0x24, model id.
    #[serde(with = "crate::bytes::hex_u32")]
    pub model: u32,
    /// A root's own offset: kept, never applied (the game leaves it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_offset: Option<[i32; 3]>,
    /// Depth and offset as read, only when the hierarchy fails the gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<RawPlacement>,
}

/// A part's placement fields (+0x02 depth, +0x14 offset) as read, for hierarchies whose
/// parents are undefined.
pub use super::format::Placement as RawPlacement;

/// The HIE part of the gate: depths must define parents. Returns each part's parent on success.
pub fn parents_from_depths(depths: &[u16]) -> Result<Vec<Option<usize>>, GateFailure> {
    parents_from_depth_iter(depths.iter().copied())
}

/// [`parents_from_depths`] over the depths as they come (no depth vector needed).
fn parents_from_depth_iter(
    depths: impl ExactSizeIterator<Item = u16>,
) -> Result<Vec<Option<usize>>, GateFailure> {
    let mut parents = Vec::with_capacity(depths.len());
    let mut walk = DepthWalk::new();
    for d in depths {
        parents.push(walk.next(d)?);
    }
    Ok(parents)
}

/// The rule of [`parents_from_depths`], one part at a time: each part's parent, or the first
/// depth that leaves parents undefined.
struct DepthWalk {
    /// shallow[d] = the latest part seen at depth d (NONE: none yet), for d < SHALLOW: no
    /// allocation for the usual hierarchies.
    shallow: [usize; DepthWalk::SHALLOW],
    /// The same for depths SHALLOW and more: deep[d - SHALLOW].
    deep: Vec<usize>,
    prev: u16,
    k: usize,
}

impl DepthWalk {
    const SHALLOW: usize = 32;
    const NONE: usize = usize::MAX;

    fn new() -> Self {
        DepthWalk {
            shallow: [Self::NONE; Self::SHALLOW],
            deep: Vec::new(),
            prev: 0,
            k: 0,
        }
    }

    fn last_at(&self, d: usize) -> Option<usize> {
        let v = match d.checked_sub(Self::SHALLOW) {
            None => self.shallow[d],
            Some(i) => self.deep.get(i).copied().unwrap_or(Self::NONE),
        };
        (v != Self::NONE).then_some(v)
    }

    fn set_last_at(&mut self, d: usize, k: usize) {
        match d.checked_sub(Self::SHALLOW) {
            None => self.shallow[d] = k,
            Some(i) => {
                if self.deep.len() <= i {
                    self.deep.resize(i + 1, Self::NONE);
                }
                self.deep[i] = k;
            }
        }
    }

    /// The parent of the next part, whose depth is `d`.
    fn next(&mut self, d: u16) -> Result<Option<usize>, GateFailure> {
        let (k, prev) = (self.k, self.prev);
        if k == 0 && d != 1 {
            return Err(GateFailure::at(
                GateCondition::FirstDepthIsOne,
                Some(0),
                format!("joint 0 has depth {d}"),
            ));
        }
        if d == 0 {
            return Err(GateFailure::at(
                GateCondition::DepthAtLeastOne,
                Some(k),
                format!("joint {k} has depth 0"),
            ));
        }
        if k > 0 && u32::from(d) > u32::from(prev) + 1 {
            return Err(GateFailure::at(
                GateCondition::DepthStepAtMostOne,
                Some(k),
                format!(
                    "joint {k} has depth {d} after joint {} at depth {prev}",
                    k - 1
                ),
            ));
        }
        let d = usize::from(d);
        // The step check bounds d by k + 1, so `deep` grows by at most one per part.
        let parent = if d >= 2 { self.last_at(d - 1) } else { None };
        self.set_last_at(d, k);
        self.prev = d as u16;
        self.k += 1;
        Ok(parent)
    }
}

/// Native -> IR: one skeleton per hierarchy, in the same order.
pub fn lift(file: HieFile) -> Rig {
    // The lowest slot of each hierarchy, in one pass over the table.
    let mut first: Vec<Option<usize>> = vec![None; file.hierarchies.len()];
    for (slot, h) in file.slots.iter().enumerate() {
        if let Some(f) = h.and_then(|h| first.get_mut(h)) {
            f.get_or_insert(slot);
        }
    }
    let names: Vec<String> = first
        .iter()
        .enumerate()
        .map(|(h, s)| match s {
            Some(s) => format!("slot{s}"),
            None => format!("hierarchy{h}"),
        })
        .collect();
    let skeletons = file
        .hierarchies
        .into_iter()
        .zip(names)
        .map(|(h, name)| lift_hierarchy(h, name))
        .collect();
    Rig {
        source: Source::Hie(HieShell {
            slots: file.slots,
            gaps: file.gaps,
        }),
        skeletons,
    }
}

fn to_f64(o: [i32; 3]) -> DVec3 {
    DVec3::new(f64::from(o[0]), f64::from(o[1]), f64::from(o[2]))
}

fn lift_hierarchy(h: Hierarchy, name: String) -> Skeleton {
    // Joint k of part p: `placed` is its parent when the depths define parents, `None` when
    // they do not (every part is then kept raw).
    let joint = |k: usize, p: &Part, placed: Option<Option<usize>>| {
        let mut native = HieJoint {
            unknown_00: p.unknown_00,
            runtime: p.runtime,
            unknown_20: p.unknown_20,
            model: p.model,
            root_offset: None,
            raw: None,
        };
        let (parent, translation) = match placed {
            Some(None) => {
                native.root_offset = Some(p.offset);
                (None, DVec3::ZERO)
            }
            Some(parent) => (parent, to_f64(p.offset)),
            None => {
                native.raw = Some(RawPlacement {
                    depth: p.depth,
                    offset: p.offset,
                });
                (None, to_f64(p.offset))
            }
        };
        Joint {
            name: super::joint_name(&name, k),
            parent,
            translation,
            rotation: DQuat::IDENTITY,
            native: JointPayload::Hie(native),
        }
    };
    // One walk over the depths, placing each part as it goes; at the first depth that leaves
    // parents undefined, every part is made again, raw.
    let mut walk = DepthWalk::new();
    let mut joints: Vec<Joint> = Vec::with_capacity(h.parts.len());
    let mut parents = Ok(());
    for (k, p) in h.parts.iter().enumerate() {
        match walk.next(p.depth) {
            Ok(parent) => joints.push(joint(k, p, Some(parent))),
            Err(e) => {
                parents = Err(e);
                break;
            }
        }
    }
    if parents.is_err() {
        joints.clear();
        joints.extend(h.parts.iter().enumerate().map(|(k, p)| joint(k, p, None)));
    }
    let gate = parents.and_then(|_| check_structure(&joints));
    Skeleton {
        name,
        joints,
        gate,
        native: SkeletonPayload::Hie(HieSkeleton {
            offset: h.offset,
            span: h.span,
            byte_lists: h.byte_lists,
        }),
    }
}

/// IR -> native: the exact inverse of [`lift`] for lifted rigs.
pub fn lower(rig: &Rig) -> Result<HieFile, LowerError> {
    let (shell, hierarchies) = lower_hierarchies(rig)?;
    Ok(HieFile {
        slots: shell.slots.clone(),
        hierarchies: hierarchies
            .into_iter()
            .map(Lowered::into_hierarchy)
            .collect(),
        gaps: shell.gaps.clone(),
    })
}

/// A lowered hierarchy whose byte lists are still the skeleton payload's: [`lower`] copies
/// them into a [`Hierarchy`], [`super::lower_write_into`] writes them from where they are.
pub(crate) struct Lowered<'a> {
    offset: u32,
    span: u32,
    byte_lists: &'a ByteLists,
    parts: Vec<Part>,
}

impl Lowered<'_> {
    fn into_hierarchy(self) -> Hierarchy {
        Hierarchy {
            offset: self.offset,
            span: self.span,
            byte_lists: self.byte_lists.clone(),
            parts: self.parts,
        }
    }
}

impl HierarchyView for Lowered<'_> {
    fn offset(&self) -> u32 {
        self.offset
    }
    fn span(&self) -> u32 {
        self.span
    }
    fn byte_lists(&self) -> &ByteLists {
        self.byte_lists
    }
    fn parts(&self) -> &[Part] {
        &self.parts
    }
}

/// What [`lower`] builds: the hierarchies, beside the shell whose slots and gaps it copies.
pub(crate) fn lower_hierarchies(rig: &Rig) -> Result<(&HieShell, Vec<Lowered<'_>>), LowerError> {
    let shell = match &rig.source {
        Source::Hie(s) => s,
        Source::Dmc3(_) => {
            return Err(LowerError::WrongPayload {
                skeleton: 0,
                expected: "hie",
                found: "dmc3",
            })
        }
    };
    let hierarchies = rig
        .skeletons
        .iter()
        .enumerate()
        .map(|(s, sk)| lower_skeleton(s, sk))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((shell, hierarchies))
}

/// Largest rotation angle (radians) still taken as identity.
const ANGLE_EPS: f64 = 1e-9;

/// The native depth and offset every part of skeleton `s` would be written with, exactly as
/// [`lower`] writes them (the glTF export stores them beside the float TRS, which cannot hold
/// every i32 offset exactly).
pub fn placements(s: usize, sk: &Skeleton) -> Result<Vec<Placement>, LowerError> {
    Ok(lower_skeleton(s, sk)?
        .parts
        .iter()
        .map(|p| Placement {
            depth: p.depth,
            offset: p.offset,
        })
        .collect())
}

fn lower_skeleton(s: usize, sk: &Skeleton) -> Result<Lowered<'_>, LowerError> {
    let native = match &sk.native {
        SkeletonPayload::Hie(n) => n,
        SkeletonPayload::Dmc3(_) => return Err(wrong_payload(s)),
    };
    let lowering = Lowering { s, sk };
    if sk.joints.len() > MAX_PARTS {
        return Err(lowering.structure(format!(
            "{} joints, more than the {MAX_PARTS} parts a hierarchy can hold",
            sk.joints.len()
        )));
    }
    let raw_count = lowering.raw_count()?;
    let mut parts: Vec<Part> = Vec::with_capacity(sk.joints.len());
    for (k, j) in sk.joints.iter().enumerate() {
        // Every payload was checked above.
        let Some(p) = payload(j) else {
            return Err(wrong_payload(s));
        };
        lowering.check_rotation(k, j)?;
        let (depth, offset) = match p.raw {
            Some(raw) => lowering.raw_placement(k, j, p, raw)?,
            None => lowering.placement(k, j, p, &parts)?,
        };
        parts.push(Part {
            unknown_00: p.unknown_00,
            depth,
            runtime: p.runtime,
            offset,
            unknown_20: p.unknown_20,
            model: p.model,
        });
    }
    if raw_count == 0 {
        lowering.check_depths(&parts)?;
    }
    Ok(Lowered {
        offset: native.offset,
        span: native.span,
        byte_lists: &native.byte_lists,
        parts,
    })
}

/// The error for skeleton `s` (or one of its joints) carrying a DMC3 payload.
fn wrong_payload(s: usize) -> LowerError {
    LowerError::WrongPayload {
        skeleton: s,
        expected: "hie",
        found: "dmc3",
    }
}

/// The HIE payload of `j`, if it has one.
fn payload(j: &Joint) -> Option<&HieJoint> {
    match &j.native {
        JointPayload::Hie(p) => Some(p),
        JointPayload::Dmc3(_) => None,
    }
}

/// Skeleton `s` being lowered, for the checks and their errors.
struct Lowering<'a> {
    s: usize,
    sk: &'a Skeleton,
}

impl Lowering<'_> {
    /// A structure error of the skeleton.
    fn structure(&self, problem: String) -> LowerError {
        LowerError::Structure {
            skeleton: self.s,
            problem,
        }
    }

    /// Joint `k`'s `field` cannot be written, for `problem`.
    fn bad(&self, k: usize, field: &'static str, problem: String) -> LowerError {
        LowerError::Unrepresentable {
            skeleton: self.s,
            joint: k,
            name: self
                .sk
                .joints
                .get(k)
                .map(|j| j.name.clone())
                .unwrap_or_default(),
            field,
            problem,
        }
    }

    /// How many joints carry raw placements: none or all, every joint with a HIE payload.
    fn raw_count(&self) -> Result<usize, LowerError> {
        let joints = &self.sk.joints;
        let mut raw_count = 0;
        for j in joints {
            match payload(j) {
                Some(p) => raw_count += usize::from(p.raw.is_some()),
                None => return Err(wrong_payload(self.s)),
            }
        }
        if raw_count != 0 && raw_count != joints.len() {
            return Err(self.structure(format!(
                "{raw_count} of {} joints carry raw placements; a hierarchy is either all raw (it failed the gate) or all placed by parents",
                joints.len()
            )));
        }
        Ok(raw_count)
    }

    /// Refuses a rotation that is not identity (a non-finite one too): HIE has none.
    fn check_rotation(&self, k: usize, j: &Joint) -> Result<(), LowerError> {
        let angle = rotation_angle(j.rotation);
        // NaN (a non-finite quaternion) is refused too.
        if angle.is_nan() || angle > ANGLE_EPS {
            return Err(self.bad(
                k,
                "rotation",
                format!(
                    "not identity (rotated by {}); HIE rest rotations are identity",
                    crate::units::degrees(angle)
                ),
            ));
        }
        Ok(())
    }

    /// The depth and offset of a part of a hierarchy that failed the gate: `raw` as read,
    /// refused where the joint says otherwise (a parent, another translation, a root offset).
    fn raw_placement(
        &self,
        k: usize,
        j: &Joint,
        p: &HieJoint,
        raw: RawPlacement,
    ) -> Result<(u16, [i32; 3]), LowerError> {
        if j.parent.is_some() {
            return Err(self.bad(
                k,
                "parent",
                "the hierarchy failed the gate, so parts have no parents; its placement is raw.depth/raw.offset".into(),
            ));
        }
        if j.translation != to_f64(raw.offset) {
            return Err(self.bad(
                k,
                "translation",
                format!(
                    "{} differs from raw.offset {:?}; the hierarchy failed the gate, so edit raw.offset instead",
                    crate::units::values(&j.translation.to_array()),
                    raw.offset
                ),
            ));
        }
        if p.root_offset.is_some() {
            return Err(self.bad(
                k,
                "root_offset",
                "set on a raw part; it would be lost (raw.offset is written)".into(),
            ));
        }
        Ok((raw.depth, raw.offset))
    }

    /// The depth and offset of joint `k` placed by its parent (`parts` are the joints before
    /// it): a root at depth 1 with its kept root offset, a child one deeper than its parent
    /// at its translation.
    fn placement(
        &self,
        k: usize,
        j: &Joint,
        p: &HieJoint,
        parts: &[Part],
    ) -> Result<(u16, [i32; 3]), LowerError> {
        let Some(parent) = j.parent else {
            if j.translation != DVec3::ZERO {
                return Err(self.bad(
                    k,
                    "translation",
                    format!(
                        "root translation {} is not zero; the game does not apply a root's own offset (it is kept in root_offset)",
                        crate::units::values(&j.translation.to_array())
                    ),
                ));
            }
            return Ok((1, p.root_offset.unwrap_or([0; 3])));
        };
        let pd = match parts.get(parent) {
            Some(pp) if parent < k => pp.depth,
            _ => {
                return Err(self.structure(format!(
                    "joint {k} ({}) has parent {parent}, which does not come before it; parts must be in depth-first order",
                    j.name
                )))
            }
        };
        let depth = pd.checked_add(1).ok_or_else(|| {
            self.bad(
                k,
                "depth",
                format!("parent depth {pd} leaves no room for a child"),
            )
        })?;
        if let Some(ro) = p.root_offset {
            if ro != [0; 3] {
                return Err(self.bad(
                    k,
                    "root_offset",
                    format!("{ro:?} set on a joint that is not a root (parent {parent}); it would be lost"),
                ));
            }
        }
        let offset = translation_to_offset(j.translation)
            .map_err(|e| self.bad(k, "translation", e.to_string()))?;
        Ok((depth, offset))
    }

    /// Refuses depths that do not give back the IR parents: they are the only parent
    /// information on disk. A depth that defines no parent is reported before any parent
    /// that differs.
    fn check_depths(&self, parts: &[Part]) -> Result<(), LowerError> {
        let mut walk = DepthWalk::new();
        let mut first_mismatch = None;
        for (k, (j, p)) in self.sk.joints.iter().zip(parts).enumerate() {
            let r = walk.next(p.depth).map_err(|e| {
                self.structure(format!("computed depths do not define parents: {e}"))
            })?;
            if j.parent != r && first_mismatch.is_none() {
                first_mismatch = Some((k, j, p.depth, r));
            }
        }
        if let Some((k, j, depth, r)) = first_mismatch {
            return Err(self.structure(format!(
                "joint {k} ({}) has parent {:?}, but its depth {depth} makes it a child of {:?}; parts must be in depth-first order (reordering is not supported yet)",
                j.name, j.parent, r
            )));
        }
        Ok(())
    }
}

/// The rotation angle of `q` in radians (NaN for a non-finite quaternion).
fn rotation_angle(q: DQuat) -> f64 {
    // What the lift gives every joint: the general formula yields exactly 0 for it too.
    if q == DQuat::IDENTITY {
        return 0.0;
    }
    if !q.is_finite() {
        return f64::NAN;
    }
    let v = DVec3::new(q.x, q.y, q.z).length();
    2.0 * v.atan2(q.w.abs())
}

/// Why a translation is no HIE offset (its words are [`LowerError::Unrepresentable`]'s
/// `problem`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum OffsetProblem {
    /// An axis is not finite.
    #[error("{axis} = {value} is not finite")]
    NotFinite {
        /// `x`, `y` or `z`.
        axis: &'static str,
        /// Its value.
        value: f64,
    },
    /// An axis rounds outside i32.
    #[error("{axis} = {value} is outside the s32 range")]
    OutOfRange {
        /// `x`, `y` or `z`.
        axis: &'static str,
        /// Its value.
        value: f64,
    },
}

/// A translation as integer offset, rounded to nearest; refused when not finite or out of i32.
fn translation_to_offset(t: DVec3) -> Result<[i32; 3], OffsetProblem> {
    let mut out = [0i32; 3];
    for (o, (v, axis)) in out
        .iter_mut()
        .zip(t.to_array().into_iter().zip(["x", "y", "z"]))
    {
        if !v.is_finite() {
            return Err(OffsetProblem::NotFinite { axis, value: v });
        }
        // Lifted offsets are whole numbers in range: they are their own rounding.
        let whole = v as i32;
        if f64::from(whole) == v {
            *o = whole;
            continue;
        }
        let r = v.round();
        if r < f64::from(i32::MIN) || r > f64::from(i32::MAX) {
            return Err(OffsetProblem::OutOfRange { axis, value: v });
        }
        *o = r as i32;
    }
    Ok(out)
}

/// Depth-first order of a forest given by parents: each root (ascending), followed by its
/// subtree, children in ascending index order. This is the order HIE parts must be stored in,
/// and for parts already stored depth first it is `0..n` unchanged. Joints caught in a cycle or
/// whose parent is out of range are left out (so a short result means "no valid order").
pub fn depth_first_order(parents: &[Option<usize>]) -> Vec<usize> {
    let n = parents.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (k, p) in parents.iter().enumerate() {
        match *p {
            None => roots.push(k),
            Some(p) if p < n => children[p].push(k),
            Some(_) => {}
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(k) = stack.pop() {
        order.push(k);
        if order.len() > n {
            break;
        }
        stack.extend(children[k].iter().rev());
    }
    order
}

/// A byte-list entry that names a part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteListRef {
    /// Which list (0-based).
    pub list: usize,
    /// Position in the list.
    pub position: usize,
    /// The byte (a part index).
    pub value: u8,
}

/// The first byte-list entry whose meaning would change when the parts are renumbered: part
/// `old` becomes part `map[old]` (`None`: removed) and the hierarchy ends up with `new_len`
/// parts. An entry naming a part whose index changes, a removed part, or a part index that only
/// exists after the change (a new part) is a conflict; entries beyond both part counts are not
/// part indices and are left alone.
pub fn byte_list_conflict(
    lists: &ByteLists,
    map: &[Option<usize>],
    new_len: usize,
) -> Option<ByteListRef> {
    for (l, list) in lists.lists.iter().enumerate() {
        for (position, &value) in list.iter().enumerate() {
            let v = usize::from(value);
            let changes = match map.get(v) {
                Some(&m) => m != Some(v),
                None => v < new_len,
            };
            if changes {
                return Some(ByteListRef {
                    list: l,
                    position,
                    value,
                });
            }
        }
    }
    None
}

/// Serde form of the slot table: `[[slot, skeleton], ...]` for the non-empty slots.
mod slot_pairs {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Serializes the non-empty slots as pairs.
    pub fn serialize<S: Serializer>(slots: &[Option<usize>], s: S) -> Result<S::Ok, S::Error> {
        let pairs: Vec<[usize; 2]> = slots
            .iter()
            .enumerate()
            .filter_map(|(slot, k)| k.map(|k| [slot, k]))
            .collect();
        pairs.serialize(s)
    }

    /// Rebuilds the 256-entry table; a slot out of range or given twice is an error.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Option<usize>>, D::Error> {
        let pairs = Vec::<[usize; 2]>::deserialize(d)?;
        let mut slots = vec![None; crate::native::hie::SLOTS];
        for [slot, k] in pairs {
            match slots.get_mut(slot) {
                Some(e @ None) => *e = Some(k),
                Some(Some(_)) => return Err(D::Error::custom(format!("slot {slot} given twice"))),
                None => {
                    return Err(D::Error::custom(format!(
                        "slot {slot} out of range 0..=255"
                    )))
                }
            }
        }
        Ok(slots)
    }
}

#[cfg(test)]
mod edit_tests {
    use super::*;

    #[test]
    fn depth_first_order_keeps_stored_order_and_places_new_children() {
        // 0 -> 1 -> 2, 0 -> 3: stored depth first.
        let p = [None, Some(0), Some(1), Some(0)];
        assert_eq!(depth_first_order(&p), vec![0, 1, 2, 3]);
        // A new joint 4 under 1 goes after 1's subtree.
        let p = [None, Some(0), Some(1), Some(0), Some(1)];
        assert_eq!(depth_first_order(&p), vec![0, 1, 2, 4, 3]);
        // Two roots, a reparented joint.
        let p = [None, Some(2), None, Some(0)];
        assert_eq!(depth_first_order(&p), vec![0, 3, 2, 1]);
        // A cycle leaves joints out.
        assert_eq!(depth_first_order(&[Some(1), Some(0)]), Vec::<usize>::new());
        assert_eq!(depth_first_order(&[None, Some(9)]), vec![0]);
    }

    #[test]
    fn byte_list_conflicts_name_the_entry() {
        let lists = ByteLists {
            lists: vec![vec![0, 1, 2], vec![3, 200]],
            tail: vec![],
        };
        let same: Vec<Option<usize>> = (0..4).map(Some).collect();
        assert_eq!(byte_list_conflict(&lists, &same, 4), None);
        // Part 5 appended: nothing listed changes.
        assert_eq!(byte_list_conflict(&lists, &same, 5), None);
        // Parts 2 and 3 swap.
        let swap = [Some(0), Some(1), Some(3), Some(2)];
        assert_eq!(
            byte_list_conflict(&lists, &swap, 4),
            Some(ByteListRef {
                list: 0,
                position: 2,
                value: 2
            })
        );
        // Part 3 removed.
        let rm = [Some(0), Some(1), Some(2), None];
        assert_eq!(
            byte_list_conflict(&lists, &rm, 3),
            Some(ByteListRef {
                list: 1,
                position: 0,
                value: 3
            })
        );
        // 200 only becomes a part index in a hierarchy of more than 200 parts.
        assert_eq!(
            byte_list_conflict(&lists, &same, 201),
            Some(ByteListRef {
                list: 1,
                position: 1,
                value: 200
            })
        );
    }
}
