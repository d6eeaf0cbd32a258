//! HIE lift/lower: DBnnHIE.BIN hierarchies to IR skeletons and back.
//!
//! A part's parent is the nearest earlier part one level up (depth first). The game does not
//! apply a root's own offset (the root joint is the object's position), so a root's IR
//! translation is zero and its offset rides along in [`HieJoint::root_offset`]. A hierarchy whose
//! depths leave parents undefined fails the gate; its parts keep depth and offset verbatim in
//! [`HieJoint::raw`] and get no parents.

use glam::{DQuat, DVec3};
use serde::{Deserialize, Serialize};

use super::{
    check_structure, GateCondition, GateFailure, Joint, JointPayload, LowerError, Rig, Skeleton,
    SkeletonPayload, Source,
};
use crate::bytes::Gap;
use crate::native::hie::{ByteLists, HieFile, Hierarchy, Part, MAX_PARTS};

/// File-level remainder of a HIE file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HieShell {
    /// Slot -> index into `Rig::skeletons` (256 entries), `None` for an empty slot.
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
    pub root_offset: Option<[i32; 3]>,
    /// Depth and offset as read, only when the hierarchy fails the gate.
    pub raw: Option<RawPlacement>,
}

/// A part's placement fields as read, for hierarchies whose parents are undefined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RawPlacement {
    /// +0x02 depth.
    pub depth: u16,
    /// +0x14 offset.
    pub offset: [i32; 3],
}

/// The HIE part of the gate: depths must define parents. Returns each part's parent on success.
pub fn parents_from_depths(depths: &[u16]) -> Result<Vec<Option<usize>>, GateFailure> {
    let mut parents = Vec::with_capacity(depths.len());
    // last_at[d] = the latest part seen at depth d.
    let mut last_at: Vec<Option<usize>> = Vec::new();
    let mut prev = 0u16;
    for (k, &d) in depths.iter().enumerate() {
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
        // The step check bounds d by k + 1, so last_at grows by at most one per part.
        let parent = if d >= 2 {
            last_at.get(d - 1).copied().flatten()
        } else {
            None
        };
        if last_at.len() <= d {
            last_at.resize(d + 1, None);
        }
        last_at[d] = Some(k);
        parents.push(parent);
        prev = d as u16;
    }
    Ok(parents)
}

/// Native -> IR: one skeleton per hierarchy, in the same order.
pub fn lift(file: HieFile) -> Rig {
    let names: Vec<String> = (0..file.hierarchies.len())
        .map(|h| match file.first_slot(h) {
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
    let depths: Vec<u16> = h.parts.iter().map(|p| p.depth).collect();
    let parents = parents_from_depths(&depths);
    let joints: Vec<Joint> = h
        .parts
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let mut native = HieJoint {
                unknown_00: p.unknown_00,
                runtime: p.runtime,
                unknown_20: p.unknown_20,
                model: p.model,
                root_offset: None,
                raw: None,
            };
            let (parent, translation) = match &parents {
                Ok(ps) => {
                    let parent = ps.get(k).copied().flatten();
                    if parent.is_none() {
                        native.root_offset = Some(p.offset);
                        (None, DVec3::ZERO)
                    } else {
                        (parent, to_f64(p.offset))
                    }
                }
                Err(_) => {
                    native.raw = Some(RawPlacement {
                        depth: p.depth,
                        offset: p.offset,
                    });
                    (None, to_f64(p.offset))
                }
            };
            Joint {
                name: format!("{name}_{k}"),
                parent,
                translation,
                rotation: DQuat::IDENTITY,
                native: JointPayload::Hie(native),
            }
        })
        .collect();
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
    Ok(HieFile {
        slots: shell.slots.clone(),
        hierarchies,
        gaps: shell.gaps.clone(),
    })
}

/// Largest rotation angle (radians) still taken as identity.
const ANGLE_EPS: f64 = 1e-9;

fn lower_skeleton(s: usize, sk: &Skeleton) -> Result<Hierarchy, LowerError> {
    let native = match &sk.native {
        SkeletonPayload::Hie(n) => n,
        SkeletonPayload::Dmc3(_) => {
            return Err(LowerError::WrongPayload {
                skeleton: s,
                expected: "hie",
                found: "dmc3",
            })
        }
    };
    if sk.joints.len() > MAX_PARTS {
        return Err(LowerError::Structure {
            skeleton: s,
            problem: format!(
                "{} joints, more than the {MAX_PARTS} parts a hierarchy can hold",
                sk.joints.len()
            ),
        });
    }
    let mut payloads = Vec::with_capacity(sk.joints.len());
    for j in &sk.joints {
        match &j.native {
            JointPayload::Hie(p) => payloads.push(p),
            JointPayload::Dmc3(_) => {
                return Err(LowerError::WrongPayload {
                    skeleton: s,
                    expected: "hie",
                    found: "dmc3",
                })
            }
        }
    }
    let raw_count = payloads.iter().filter(|p| p.raw.is_some()).count();
    if raw_count != 0 && raw_count != payloads.len() {
        return Err(LowerError::Structure {
            skeleton: s,
            problem: format!(
                "{raw_count} of {} joints carry raw placements; a hierarchy is either all raw (it failed the gate) or all placed by parents",
                payloads.len()
            ),
        });
    }
    let bad = |k: usize, field: &'static str, problem: String| LowerError::Unrepresentable {
        skeleton: s,
        joint: k,
        name: sk.joints.get(k).map(|j| j.name.clone()).unwrap_or_default(),
        field,
        problem,
    };

    let mut parts = Vec::with_capacity(sk.joints.len());
    let mut depths: Vec<u16> = Vec::with_capacity(sk.joints.len());
    for (k, (j, p)) in sk.joints.iter().zip(&payloads).enumerate() {
        let angle = rotation_angle(j.rotation);
        // NaN (a non-finite quaternion) is refused too.
        if angle.is_nan() || angle > ANGLE_EPS {
            return Err(bad(
                k,
                "rotation",
                format!(
                    "{:?} is not identity (angle {angle:e} rad); HIE rest rotations are identity",
                    j.rotation
                ),
            ));
        }
        let (depth, offset) = if let Some(raw) = p.raw {
            if j.parent.is_some() {
                return Err(bad(
                    k,
                    "parent",
                    "the hierarchy failed the gate, so parts have no parents; its placement is raw.depth/raw.offset".into(),
                ));
            }
            if j.translation != to_f64(raw.offset) {
                return Err(bad(
                    k,
                    "translation",
                    format!(
                        "{:?} differs from raw.offset {:?}; the hierarchy failed the gate, so edit raw.offset instead",
                        j.translation, raw.offset
                    ),
                ));
            }
            if p.root_offset.is_some() {
                return Err(bad(
                    k,
                    "root_offset",
                    "set on a raw part; it would be lost (raw.offset is written)".into(),
                ));
            }
            (raw.depth, raw.offset)
        } else {
            match j.parent {
                None => {
                    if j.translation != DVec3::ZERO {
                        return Err(bad(
                            k,
                            "translation",
                            format!(
                                "root translation {:?} is not zero; the game does not apply a root's own offset (it is kept in root_offset)",
                                j.translation
                            ),
                        ));
                    }
                    (1, p.root_offset.unwrap_or([0; 3]))
                }
                Some(parent) => {
                    let pd = match depths.get(parent) {
                        Some(&d) if parent < k => d,
                        _ => {
                            return Err(LowerError::Structure {
                                skeleton: s,
                                problem: format!(
                                    "joint {k} ({}) has parent {parent}, which does not come before it; parts must be in depth-first order",
                                    j.name
                                ),
                            })
                        }
                    };
                    let depth = pd.checked_add(1).ok_or_else(|| {
                        bad(
                            k,
                            "depth",
                            format!("parent depth {pd} leaves no room for a child"),
                        )
                    })?;
                    if let Some(ro) = p.root_offset {
                        if ro != [0; 3] {
                            return Err(bad(
                                k,
                                "root_offset",
                                format!("{ro:?} set on a joint that is not a root (parent {parent}); it would be lost"),
                            ));
                        }
                    }
                    (
                        depth,
                        translation_to_offset(j.translation)
                            .map_err(|e| bad(k, "translation", e))?,
                    )
                }
            }
        };
        depths.push(depth);
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
        // The depths are the only parent information on disk: they must give back the IR parents.
        let recomputed = parents_from_depths(&depths).map_err(|e| LowerError::Structure {
            skeleton: s,
            problem: format!("computed depths do not define parents: {e}"),
        })?;
        for (k, (j, r)) in sk.joints.iter().zip(&recomputed).enumerate() {
            if j.parent != *r {
                return Err(LowerError::Structure {
                    skeleton: s,
                    problem: format!(
                        "joint {k} ({}) has parent {:?}, but its depth {} makes it a child of {:?}; parts must be in depth-first order (reordering is not supported yet)",
                        j.name, j.parent, depths.get(k).copied().unwrap_or(0), r
                    ),
                });
            }
        }
    }

    Ok(Hierarchy {
        offset: native.offset,
        span: native.span,
        byte_lists: native.byte_lists.clone(),
        parts,
    })
}

/// The rotation angle of `q` in radians (NaN for a non-finite quaternion).
fn rotation_angle(q: DQuat) -> f64 {
    if !q.is_finite() {
        return f64::NAN;
    }
    let v = DVec3::new(q.x, q.y, q.z).length();
    2.0 * v.atan2(q.w.abs())
}

/// A translation as integer offset, rounded to nearest; refused when not finite or out of i32.
fn translation_to_offset(t: DVec3) -> Result<[i32; 3], String> {
    let mut out = [0i32; 3];
    for (o, (v, axis)) in out
        .iter_mut()
        .zip(t.to_array().into_iter().zip(["x", "y", "z"]))
    {
        if !v.is_finite() {
            return Err(format!("{axis} = {v} is not finite"));
        }
        let r = v.round();
        if r < f64::from(i32::MIN) || r > f64::from(i32::MAX) {
            return Err(format!("{axis} = {v} is outside the s32 range"));
        }
        *o = r as i32;
    }
    Ok(out)
}
