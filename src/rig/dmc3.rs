//! DMC3 lift/lower: a node-domain block to one IR skeleton and back.
//!
//! Parents follow the rule the executable was seen to apply: for order position i, node =
//! `order[i]` and its parent is `parents[i]`, ALREADY A NODE INDEX. The local transform is
//! T(tx,ty,tz) · R with R = Rz·Ry·Rx (X applied first), column-vector terms; the engine's
//! row-vector `world[node] = local[node] · world[parent]` is `world[parent] · T · R` in column
//! terms, which is what [`Skeleton::world_matrices`] computes.
//!
//! Lowering keeps every unchanged bit: a joint whose IR translation/rotation is bit-equal to
//! what the lift computes from its raw record keeps the raw record; the raw parent/order arrays
//! are kept whenever the IR parents are the ones they give.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use glam::{DQuat, DVec3};
use serde::{Deserialize, Serialize};

use super::format::{
    payload_methods, Conflict, IncomingJoint, JointProblem, Judge, Placement, Recomputed, Restored,
    RigFormat, Written,
};
use super::mesh::{IncomingMesh, Mesh, MeshRefusal, MeshWrite};
use super::space::{Space, SpaceRotation};
use super::{
    check_structure, GateCondition, GateFailure, Joint, JointPayload, LiftMemo, LowerError,
    RebuildError, Rig, Skeleton, SkeletonPayload, Source,
};
use crate::bytes::Gap;
use crate::native::dmc3::layout::{relayout as relayout_container, tiles, Relaid};
use crate::native::dmc3::{
    joint_indices, Container, Dmc3File, Dmc3Parts, Header, NodeBlock, NodeTransform, Object,
};
use crate::native::{NativeFile, WriteError};

/// File-level remainder of a DMC3 file: the file with its block moved out (`block` is `None`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Dmc3Shell {
    /// The file without its block.
    pub file: Dmc3File,
}

/// Sets a DMC3 model's header texture count (+0x12) to `count` (a character archive whose
/// texture bundle grew); returns the count before, `None` for another rig or a file without a
/// container header.
pub fn set_texture_count(rig: &mut Rig, count: u8) -> Option<u8> {
    let Source::Dmc3(shell) = &mut rig.source else {
        return None;
    };
    let header = &mut shell.file.container.as_mut()?.header;
    Some(std::mem::replace(&mut header.texture_count, count))
}

crate::native::dmc3::block::block_frame! {
    /// What a node-domain block keeps besides its nodes: header fields, raw arrays, padding.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct Dmc3Skeleton {}
}

/// What a node keeps besides its parent and transform: its raw record and group byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Dmc3Joint {
    /// The raw transform record, every field as bits (+0x1C included, never touched).
    pub record: NodeTransform,
    /// This node's entry of the group array.
    pub group: u8,
}

/// The local translation a record holds (tx, ty, tz widened to f64).
pub fn local_translation(r: &NodeTransform) -> DVec3 {
    let [x, y, z] = r.translation();
    DVec3::new(x as f64, y as f64, z as f64)
}

/// The local rotation a record holds: R = Rz(rz)·Ry(ry)·Rx(rx), X applied first.
/// Built from elementary rotations rather than an `EulerRot` so the convention is explicit.
pub fn local_rotation(r: &NodeTransform) -> DQuat {
    rotation_xyz(r.rotation().map(f64::from))
}

/// The rotation of Euler angles `[x, y, z]` (radians): R = Rz(z)·Ry(y)·Rx(x), X applied first.
/// The one Euler-to-rotation conversion: rest poses and motions alike.
pub fn rotation_xyz([x, y, z]: [f64; 3]) -> DQuat {
    DQuat::from_rotation_z(z) * DQuat::from_rotation_y(y) * DQuat::from_rotation_x(x)
}

pub use super::space::euler_xyz;

/// The parent of every node by the EXE rule: node `order[i]` has parent `parents[i]` (a node
/// index). Values outside 0..n (the root's -1 included) give `None`; a node the order array
/// lists twice takes its first position; a node it never lists has `None`.
pub fn node_parents(parents: &[i8], order: &[u8], n: usize) -> Vec<Option<usize>> {
    let mut out = vec![None; n];
    let mut seen = vec![false; n];
    for (i, &node) in order.iter().enumerate() {
        let node = node as usize;
        match seen.get_mut(node) {
            Some(s) if !*s => *s = true,
            _ => continue,
        }
        let p = parents.get(i).copied().unwrap_or(-1);
        out[node] = usize::try_from(p).ok().filter(|&p| p < n);
    }
    out
}

fn fail(
    condition: GateCondition,
    position: Option<usize>,
    joint: Option<usize>,
    detail: String,
) -> GateFailure {
    GateFailure {
        condition,
        joint,
        position,
        detail,
    }
}

/// The spatial capability gate (docs/formats.md, node-domain block) on the raw arrays. Conditions
/// are tested in the order 1, 2, 3, range, 5, 4, 6: acyclicity before "evaluated earlier" because
/// (4) implies (5), so a cycle would otherwise always be reported as a mere forward reference.
pub fn check_gate(
    parents: &[i8],
    order: &[u8],
    records: &[NodeTransform],
) -> Result<(), GateFailure> {
    use GateCondition::*;
    let n = records.len();
    if n == 0 {
        return Err(fail(RootFirst, None, None, "the block has no nodes".into()));
    }
    if order.len() != n || parents.len() != n {
        return Err(fail(
            OrderIsPermutation,
            None,
            None,
            format!(
                "{} order entries and {} parents for {n} nodes",
                order.len(),
                parents.len()
            ),
        ));
    }
    let pos_of = order_positions(order, n)?;
    check_roots(parents, order)?;
    let parent_of = parent_nodes(parents, order)?;
    check_acyclic(&parent_of, &pos_of)?;
    check_parents_earlier(order, &parent_of, &pos_of)?;
    check_finite(order, records)
}

/// (1) `order` is a full permutation of the `n` nodes: each node's position in it.
fn order_positions(order: &[u8], n: usize) -> Result<Vec<usize>, GateFailure> {
    let mut pos_of = vec![usize::MAX; n];
    for (i, &node) in order.iter().enumerate() {
        let node = node as usize;
        if node >= n {
            return Err(fail(
                GateCondition::OrderIsPermutation,
                Some(i),
                None,
                format!("node {node} at position {i}, but there are {n} nodes"),
            ));
        }
        if pos_of[node] != usize::MAX {
            return Err(fail(
                GateCondition::OrderIsPermutation,
                Some(i),
                Some(node),
                format!("node {node} stands at positions {} and {i}", pos_of[node]),
            ));
        }
        pos_of[node] = i;
    }
    Ok(pos_of)
}

/// (2) no root anywhere but position 0, and (3) the node at position 0 is a root (`parents`
/// and `order` are as long, and not empty).
fn check_roots(parents: &[i8], order: &[u8]) -> Result<(), GateFailure> {
    for i in 1..parents.len() {
        if parents[i] == -1 {
            return Err(fail(
                GateCondition::RootFirst,
                Some(i),
                Some(order[i] as usize),
                format!("node {} has parent -1 at order position {i}", order[i]),
            ));
        }
    }
    if parents[0] != -1 {
        return Err(fail(
            GateCondition::RootParentNone,
            Some(0),
            Some(order[0] as usize),
            format!("node {} at position 0 has parent {}", order[0], parents[0]),
        ));
    }
    Ok(())
}

/// Each node's parent, every non-root parent naming a node.
fn parent_nodes(parents: &[i8], order: &[u8]) -> Result<Vec<Option<usize>>, GateFailure> {
    let n = parents.len();
    let mut parent_of = vec![None; n];
    for i in 1..n {
        let node = order[i] as usize;
        match usize::try_from(parents[i]).ok().filter(|&p| p < n) {
            Some(p) => parent_of[node] = Some(p),
            None => {
                return Err(fail(
                    GateCondition::ParentInRange,
                    Some(i),
                    Some(node),
                    format!("parent {} is not a node (there are {n})", parents[i]),
                ))
            }
        }
    }
    Ok(parent_of)
}

/// (5) acyclic: walks up from every node; 1 = on the current chain, 2 = known to reach root.
fn check_acyclic(parent_of: &[Option<usize>], pos_of: &[usize]) -> Result<(), GateFailure> {
    let n = parent_of.len();
    let mut state = vec![0u8; n];
    let mut chain = Vec::new();
    for start in 0..n {
        let mut j = start;
        while state[j] == 0 {
            state[j] = 1;
            chain.push(j);
            match parent_of[j] {
                Some(p) => j = p,
                None => break,
            }
        }
        if state[j] == 1 && parent_of[j].is_some() {
            return Err(fail(
                GateCondition::Acyclic,
                Some(pos_of[j]),
                Some(j),
                format!("node {j} is its own ancestor"),
            ));
        }
        for c in chain.drain(..) {
            state[c] = 2;
        }
    }
    Ok(())
}

/// (4) parents evaluated earlier.
fn check_parents_earlier(
    order: &[u8],
    parent_of: &[Option<usize>],
    pos_of: &[usize],
) -> Result<(), GateFailure> {
    for (i, &node) in order.iter().enumerate().skip(1) {
        let node = node as usize;
        if let Some(p) = parent_of[node] {
            if pos_of[p] >= i {
                return Err(fail(
                    GateCondition::ParentEvaluatedEarlier,
                    Some(i),
                    Some(node),
                    format!(
                        "parent {p} of node {node} is evaluated at position {}",
                        pos_of[p]
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// (6) finite local transforms (+0x0C magnitude and +0x1C are not part of the local
/// transform the engine builds, so they may hold anything).
fn check_finite(order: &[u8], records: &[NodeTransform]) -> Result<(), GateFailure> {
    for (i, &node) in order.iter().enumerate() {
        let r = &records[node as usize];
        let fields = [
            ("tx", r.tx_bits),
            ("ty", r.ty_bits),
            ("tz", r.tz_bits),
            ("rx", r.rx_bits),
            ("ry", r.ry_bits),
            ("rz", r.rz_bits),
        ];
        for (name, bits) in fields {
            if !f32::from_bits(bits).is_finite() {
                return Err(fail(
                    GateCondition::FiniteTransforms,
                    Some(i),
                    Some(node as usize),
                    format!(
                        "{name} of node {node} is {} (bits {bits:#010x})",
                        f32::from_bits(bits)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Native → IR: one skeleton per block (none when the file has no block).
pub fn lift(file: Dmc3File) -> Rig {
    lift_remembering(file, None)
}

/// [`lift`], keeping in `memo` (when given) the rotation each joint was lifted to.
pub(crate) fn lift_remembering(file: Dmc3File, memo: Option<&mut LiftMemo>) -> Rig {
    let name = file.kind();
    let mut shell = file;
    let skeletons = shell
        .block
        .take()
        .map(|b| lift_block(b, name, memo))
        .into_iter()
        .collect();
    Rig {
        source: Source::Dmc3(Dmc3Shell { file: shell }),
        skeletons,
    }
}

/// The angle bits of a record, as the memo keys its rotations.
fn rotation_bits(r: &NodeTransform) -> [u32; 3] {
    [r.rx_bits, r.ry_bits, r.rz_bits]
}

fn lift_block(b: NodeBlock, name: &str, memo: Option<&mut LiftMemo>) -> Skeleton {
    let n = b.transforms.len();
    let parent_of = node_parents(&b.parents, &b.order, n);
    let joints: Vec<Joint> = b
        .transforms
        .iter()
        .enumerate()
        .map(|(k, r)| Joint {
            name: super::joint_name(name, k),
            parent: parent_of[k],
            translation: local_translation(r),
            rotation: local_rotation(r),
            native: JointPayload::Dmc3(Dmc3Joint {
                record: *r,
                group: b.groups.get(k).copied().unwrap_or(0),
            }),
        })
        .collect();
    if let Some(m) = memo {
        m.rotations = vec![joints
            .iter()
            .zip(&b.transforms)
            .map(|(j, r)| (rotation_bits(r), j.rotation))
            .collect()];
    }
    let gate =
        check_gate(&b.parents, &b.order, &b.transforms).and_then(|_| check_structure(&joints));
    Skeleton {
        name: name.to_string(),
        joints,
        gate,
        native: SkeletonPayload::Dmc3(Dmc3Skeleton {
            offset: b.offset,
            rels: b.rels,
            unknown_10: b.unknown_10,
            parents: b.parents,
            order: b.order,
            padding: b.padding,
        }),
    }
}

/// Bitwise equality, except that any NaN equals any NaN: arithmetic on NaN angles can give a
/// NaN of another sign or payload at another call site (the compiler may swap the operands of
/// a commutative operation, and x86 keeps the first operand's NaN), and no edit yields a NaN.
fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

fn same_bits_vec(a: DVec3, b: DVec3) -> bool {
    same_bits(&a.to_array(), &b.to_array())
}

fn same_bits_quat(a: DQuat, b: DQuat) -> bool {
    same_bits(&a.to_array(), &b.to_array())
}

/// IR → native. Exact inverse of [`lift`] for unedited rigs; edits land only in the fields
/// they touch (see the module doc), and what cannot be represented is refused.
pub fn lower(rig: &Rig) -> Result<Dmc3File, LowerError> {
    lower_parts(rig, &LiftMemo::default()).map(Lowered::into_file)
}

/// A lowered DMC3 rig before it is assembled into a [`Dmc3File`]: the shell's unchanged parts
/// by reference, what lowering made by value. [`lower`] assembles it (copying the shell's
/// objects and gaps); [`super::lower_write_into`] writes it as it is.
pub(crate) struct Lowered<'a> {
    shell: &'a Dmc3File,
    /// The container header with the block's node count and offset, when there is a container.
    header: Option<Header>,
    block: Option<NodeBlock>,
    /// The gaps when lowering changed them (a block that shrank, a relayout), else the shell's.
    gaps: Option<Vec<Gap>>,
    /// The objects when a relayout moved them, else the shell's.
    objects: Option<Vec<Object>>,
    /// What the relayout did, when the edited file no longer tiled and was laid out again.
    pub(crate) relaid: Option<Relaid>,
}

impl Lowered<'_> {
    /// The file as parts, for [`crate::native::dmc3::write_parts_into`].
    pub(crate) fn parts(&self) -> Dmc3Parts<'_> {
        let shell = self.shell.parts();
        Dmc3Parts {
            header: self.header.as_ref().or(shell.header),
            objects: self.objects.as_deref().unwrap_or(shell.objects),
            block: self.block.as_ref(),
            gaps: self.gaps.as_deref().unwrap_or(shell.gaps),
        }
    }

    fn into_file(self) -> Dmc3File {
        Dmc3File {
            container: self.shell.container.as_ref().map(|c| Container {
                header: self.header.unwrap_or_else(|| c.header.clone()),
                objects: self.objects.unwrap_or_else(|| c.objects.clone()),
            }),
            block: self.block,
            gaps: self.gaps.unwrap_or_else(|| self.shell.gaps.clone()),
        }
    }
}

/// What [`lower`] builds, with the rotations `memo` kept from the lift of the same rig.
pub(crate) fn lower_parts<'a>(rig: &'a Rig, memo: &LiftMemo) -> Result<Lowered<'a>, LowerError> {
    let shell = match &rig.source {
        Source::Dmc3(s) => &s.file,
        Source::Hie(_) => {
            return Err(LowerError::WrongPayload {
                skeleton: 0,
                expected: "dmc3",
                found: "hie",
            })
        }
    };
    let had_block = match &shell.container {
        Some(c) => c.header.has_block(),
        None => true,
    };
    match rig.skeletons.as_slice() {
        [] if had_block => Err(LowerError::Structure {
            skeleton: 0,
            problem: "the file holds a node-domain block but the rig has no skeleton".into(),
        }),
        [] => settle(Lowered {
            shell,
            header: None,
            block: None,
            gaps: None,
            objects: None,
            relaid: None,
        }),
        [s] if had_block => {
            let (block, gaps) = lower_block(s, shell, memo.skeleton(0))?;
            let header = match &shell.container {
                Some(c) => {
                    let mut h = c.header.clone();
                    h.bone_count =
                        u8::try_from(block.node_count()).map_err(|_| LowerError::Structure {
                            skeleton: 0,
                            problem: format!(
                                "{} joints, but the container header's bone count (+0x11) is a u8",
                                block.node_count()
                            ),
                        })?;
                    h.block_offset = block.offset;
                    Some(h)
                }
                None => None,
            };
            settle(Lowered {
                shell,
                header,
                block: Some(block),
                gaps,
                objects: None,
                relaid: None,
            })
        }
        [_] => Err(LowerError::Structure {
            skeleton: 0,
            problem: "the file has no node-domain block (header +0x11 and +0x20 are 0); adding one is not supported".into(),
        }),
        more => Err(LowerError::Structure {
            skeleton: 1,
            problem: format!(
                "a DMC3 file holds one node-domain block, the rig has {} skeletons",
                more.len()
            ),
        }),
    }
}

/// Lays a container out again when its edited structures no longer tile the file (a mesh
/// changed its vertex count, meshes were added or removed, the block grew into what follows
/// it); a file that still tiles is written where it is, so an edit that changes no size
/// changes only the bytes it touches. See [`crate::native::dmc3::layout`].
fn settle(mut l: Lowered<'_>) -> Result<Lowered<'_>, LowerError> {
    let Some(c) = &l.shell.container else {
        return Ok(l);
    };
    if tiles(l.parts()) {
        return Ok(l);
    }
    let mut header = l.header.take().unwrap_or_else(|| c.header.clone());
    let mut objects = c.objects.clone();
    let mut gaps = l.gaps.take().unwrap_or_else(|| l.shell.gaps.clone());
    let relaid = relayout_container(&mut header, &mut objects, l.block.as_mut(), &mut gaps)
        .map_err(|e| LowerError::Structure {
            skeleton: 0,
            problem: format!(
                "the edited file cannot be laid out again: {}",
                crate::chain(&e)
            ),
        })?;
    gaps.sort_by_key(|g| g.offset);
    l.header = Some(header);
    l.objects = Some(objects);
    l.gaps = Some(gaps);
    l.relaid = Some(relaid);
    Ok(l)
}

/// Narrows one coordinate to f32, refusing what f32 cannot hold.
fn to_f32(v: f64, k: usize, name: &str, field: &'static str) -> Result<f32, LowerError> {
    let f = v as f32;
    if f.is_finite() {
        Ok(f)
    } else {
        Err(LowerError::Unrepresentable {
            skeleton: 0,
            joint: k,
            name: name.to_string(),
            field,
            problem: if v.is_finite() {
                format!("{v} is out of f32 range")
            } else {
                format!("{v} is not finite")
            },
        })
    }
}

/// The record a joint lowers to: the raw record, with translation and/or rotation re-encoded
/// only when the IR value differs (bitwise) from what the raw record lifts to.
/// `lifted` holds the rotations the lift computed, when the memo was kept.
fn encode_record(
    k: usize,
    j: &Joint,
    raw: &NodeTransform,
    lifted: &[([u32; 3], DQuat)],
) -> Result<NodeTransform, LowerError> {
    let mut rec = *raw;
    if !same_bits_vec(j.translation, local_translation(raw)) {
        let tx = to_f32(j.translation.x, k, &j.name, "translation.x (+0x00 tx)")?;
        let ty = to_f32(j.translation.y, k, &j.name, "translation.y (+0x04 ty)")?;
        let tz = to_f32(j.translation.z, k, &j.name, "translation.z (+0x08 tz)")?;
        // The magnitude is sqrt(tx²+ty²+tz²) of the stored f32 values; computed in f64 and
        // rounded once so it is the correctly rounded length in nearly every case, whatever
        // the game's tool did (its rounding is not known).
        let (x, y, z) = (tx as f64, ty as f64, tz as f64);
        let m = to_f32(
            (x * x + y * y + z * z).sqrt(),
            k,
            &j.name,
            "translation magnitude (+0x0C)",
        )?;
        rec.tx_bits = tx.to_bits();
        rec.ty_bits = ty.to_bits();
        rec.tz_bits = tz.to_bits();
        rec.magnitude_bits = m.to_bits();
    }
    // What the raw record lifts to: the memo's entry when it was lifted from these very bits
    // (`local_rotation` is a pure function of them), else computed again.
    let bits = rotation_bits(raw);
    let base = match lifted.get(k) {
        Some((b, q)) if *b == bits => *q,
        _ => local_rotation(raw),
    };
    if !same_bits_quat(j.rotation, base) {
        let q = j.rotation;
        let len = q.length();
        if !q.is_finite() || len <= 1e-12 {
            return Err(LowerError::Unrepresentable {
                skeleton: 0,
                joint: k,
                name: j.name.clone(),
                field: "rotation (+0x10..+0x18)",
                problem: format!(
                    "{} is not a finite non-zero quaternion",
                    crate::units::values(&q.to_array())
                ),
            });
        }
        let [rx, ry, rz] = euler_xyz(q / len);
        rec.rx_bits = to_f32(rx, k, &j.name, "rotation x (+0x10 rx)")?.to_bits();
        rec.ry_bits = to_f32(ry, k, &j.name, "rotation y (+0x14 ry)")?.to_bits();
        rec.rz_bits = to_f32(rz, k, &j.name, "rotation z (+0x18 rz)")?.to_bits();
    }
    Ok(rec)
}

/// The block skeleton `s` lowers to, and the file's gaps when relaying the block out changed
/// them (`None`: the shell's gaps stand).
fn lower_block(
    s: &Skeleton,
    file: &Dmc3File,
    lifted: &[([u32; 3], DQuat)],
) -> Result<(NodeBlock, Option<Vec<Gap>>), LowerError> {
    let p = match &s.native {
        SkeletonPayload::Dmc3(p) => p,
        SkeletonPayload::Hie(_) => {
            return Err(LowerError::WrongPayload {
                skeleton: 0,
                expected: "dmc3",
                found: "hie",
            })
        }
    };
    let n_new = s.joints.len();
    let n_old = p.order.len();
    let mut transforms = Vec::with_capacity(n_new);
    let mut groups = Vec::with_capacity(n_new);
    for (k, j) in s.joints.iter().enumerate() {
        let jp = match &j.native {
            JointPayload::Dmc3(x) => x,
            JointPayload::Hie(_) => {
                return Err(LowerError::WrongPayload {
                    skeleton: 0,
                    expected: "dmc3",
                    found: "hie",
                })
            }
        };
        transforms.push(encode_record(k, j, &jp.record, lifted)?);
        groups.push(jp.group);
    }
    let keep = n_new == n_old
        && p.parents.len() == n_old
        && s.joints
            .iter()
            .map(|j| j.parent)
            .eq(node_parents(&p.parents, &p.order, n_old));
    let (parents, order) = if keep {
        (p.parents.clone(), p.order.clone())
    } else {
        let ir_parents: Vec<Option<usize>> = s.joints.iter().map(|j| j.parent).collect();
        let (parents, order) = rewrite_order(s, &ir_parents, &p.order)?;
        check_gate(&parents, &order, &transforms).map_err(|e| LowerError::Structure {
            skeleton: 0,
            problem: format!("the re-parented block fails the gate: {e}"),
        })?;
        (parents, order)
    };
    let mut block = NodeBlock {
        offset: p.offset,
        rels: p.rels,
        unknown_10: p.unknown_10,
        parents,
        order,
        groups,
        transforms,
        padding: p.padding.clone(),
    };
    let gaps = if n_new != n_old {
        super::dmc3_block::relayout(&mut block, p, n_old, file)?
    } else {
        None
    };
    Ok((block, gaps))
}

/// New parent/order arrays for changed parents: parents before children, and among the joints
/// ready at each step the one the old order evaluated first (new joints last, by index), so an
/// edit disturbs the old evaluation order as little as a valid order allows.
fn rewrite_order(
    s: &Skeleton,
    ir_parents: &[Option<usize>],
    old_order: &[u8],
) -> Result<(Vec<i8>, Vec<u8>), LowerError> {
    let n = ir_parents.len();
    if n > 256 {
        return Err(LowerError::Structure {
            skeleton: 0,
            problem: format!(
                "{n} joints, but the order array holds u8 node indices (at most 256 nodes)"
            ),
        });
    }
    let mut children = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (k, parent) in ir_parents.iter().enumerate() {
        match *parent {
            None => roots.push(k),
            Some(q) if q >= n => {
                return Err(LowerError::Unrepresentable {
                    skeleton: 0,
                    joint: k,
                    name: s.joints[k].name.clone(),
                    field: "parent",
                    problem: format!("parent {q}, but there are {n} joints"),
                })
            }
            Some(q) if q > i8::MAX as usize => {
                return Err(LowerError::Unrepresentable {
                    skeleton: 0,
                    joint: k,
                    name: s.joints[k].name.clone(),
                    field: "parent",
                    problem: format!("parent {q} does not fit the i8 parent array (at most 127)"),
                })
            }
            Some(q) => children[q].push(k),
        }
    }
    if roots.len() != 1 {
        return Err(LowerError::Structure {
            skeleton: 0,
            problem: format!(
                "a node-domain block has exactly one root (parent -1 at order position 0), the rig has {}: joints {roots:?}",
                roots.len()
            ),
        });
    }
    let mut rank = vec![usize::MAX; n];
    for (i, &node) in old_order.iter().enumerate() {
        if let Some(r) = rank.get_mut(node as usize) {
            if *r == usize::MAX {
                *r = i;
            }
        }
    }
    let key = |k: usize| (rank[k], k);
    let mut heap = BinaryHeap::new();
    heap.push(Reverse(key(roots[0])));
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse((_, k))) = heap.pop() {
        order.push(k);
        for &c in &children[k] {
            heap.push(Reverse(key(c)));
        }
    }
    if order.len() < n {
        let mut placed = vec![false; n];
        for &k in &order {
            placed[k] = true;
        }
        let stray = placed.iter().position(|p| !p).unwrap_or(0);
        return Err(LowerError::Structure {
            skeleton: 0,
            problem: format!(
                "joint {stray} ({}) does not descend from the root: the parents form a cycle",
                s.joints.get(stray).map(|j| j.name.as_str()).unwrap_or("")
            ),
        });
    }
    let parents = order
        .iter()
        .map(|&k| ir_parents[k].map(|q| q as i8).unwrap_or(-1))
        .collect();
    // n <= 256 was checked, so every index fits a u8.
    let order = order.into_iter().map(|k| k as u8).collect();
    Ok((parents, order))
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{lift_with_memo, lower, lower_with};

    /// A memo changes no result: not for the rig it was kept for, edited or not, and not for
    /// another rig (whose bits it does not list).
    #[test]
    fn the_lift_memo_decides_nothing() {
        let other =
            lift_with_memo(NativeFile::read(None, &crate::synth::dmc3::sample_mod()).unwrap()).1;
        let mut lowered = 0;
        for seed in 0..30 {
            let data = crate::synth::dmc3::random_exportable(seed, seed % 3 == 0);
            let (mut rig, memo) = lift_with_memo(NativeFile::read(None, &data).unwrap());
            assert_eq!(lower_with(&rig, &memo), lower(&rig));
            let Some(sk) = rig.skeletons.first_mut() else {
                continue;
            };
            // A rotation edited, and a record whose angle bits changed under an unchanged
            // rotation: both must be seen as such with the memo too.
            sk.joints[0].rotation = DQuat::from_rotation_y(0.25) * sk.joints[0].rotation;
            if let Some(JointPayload::Dmc3(d)) = sk.joints.last_mut().map(|j| &mut j.native) {
                d.record.rx_bits ^= 1;
            }
            let want = lower(&rig);
            assert_eq!(lower_with(&rig, &memo), want);
            assert_eq!(lower_with(&rig, &other), want);
            lowered += usize::from(want.is_ok());
        }
        assert!(lowered >= 10, "only {lowered} edited rigs lowered");
    }
}
