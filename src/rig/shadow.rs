//! Shadow models written anew from a model's meshes (`import --rebuild-shadows`), and where a
//! character archive keeps them: the body's in slot 8, the coat's in slot 14, which the player
//! code uses without a null check (see [`crate::native::dmc3::shadow`]).
//!
//! A rebuilt shadow groups the model's vertices by their dominant joint (the one weighing
//! most), folds a joint with few vertices (fewer than 8, or under 2% of the model's) into its
//! parent, deepest first, and gives each group one closed hull ([`super::hull::box_hull`]: the
//! box around the group's vertices along their principal axes, 8 corners and 12 triangles)
//! whose every vertex has the group's joint as selector. While the shadow has more than
//! [`TRIANGLE_TARGET`] triangles, the group with the fewest vertices is folded into its parent:
//! the draw budget (keep well under 910 triangles) and the runtime pool follow.

use std::collections::BTreeMap;
use std::fmt;

use super::archive::{ArchiveTag, MemberRef, MemberTag};
use super::hull::{box_hull, BOX_TRIANGLES};
use super::Rig;
use crate::native::dmc3::pac::{BODY_SHADOW_SLOT, CLOTH_SLOT, COAT_SHADOW_SLOT, COAT_SLOT};
use crate::native::dmc3::shadow::{Shw, Solid, DRAW_TRIANGLES, POOL};

/// A rebuilt shadow's triangle count stays at or under this (half the draw budget's 910;
/// retail shadows hold 236 and 332).
pub const TRIANGLE_TARGET: usize = 455;
/// A joint with fewer vertices than this is folded into its parent.
const MIN_VERTICES: usize = 8;
/// ... or with less than this share of the model's vertices.
const MIN_SHARE: f64 = 0.02;

/// A shadow model built for a model.
#[derive(Debug, Clone, PartialEq)]
pub struct Built {
    /// The shadow model.
    pub shw: Shw,
    /// Per hull what it was built from, in hull order.
    pub hulls: Vec<BuiltHull>,
}

/// One hull of a [`Built`] shadow.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltHull {
    /// The joint that moves it.
    pub joint: usize,
    /// Its name, then the names of the joints folded into it.
    pub names: Vec<String>,
    /// The model's vertices it was built around.
    pub vertices: usize,
}

impl fmt::Display for Built {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.shw;
        let joints: Vec<String> = (self.hulls.iter())
            .map(|h| match h.names.split_first() {
                Some((name, [])) => format!("{} {name}", h.joint),
                Some((name, folded)) => format!("{} {name} (+{})", h.joint, folded.join(", ")),
                None => h.joint.to_string(),
            })
            .collect();
        write!(
            f,
            "{} closed hull(s), one per joint: {}; {} vertices, {} triangles ({} of the {} the draw budget allows), {} bytes of the {} MiB runtime pool; node count {}",
            s.hulls.len(),
            joints.join(", "),
            s.vertex_total(),
            s.triangle_total(),
            s.triangle_total(),
            DRAW_TRIANGLES,
            s.pool_bytes(),
            POOL >> 20,
            s.node_count(),
        )
    }
}

/// The shadow of `rig`'s model by the full layout (see the module doc), the header and
/// undecoded record bytes from `template`; `None` when no vertex is skinned to a joint of its
/// first skeleton, or it has more than 255 joints.
pub fn build(rig: &Rig, template: Option<&Shw>) -> Option<Built> {
    let skeleton = rig.skeletons.first()?;
    let nodes = u8::try_from(skeleton.joints.len()).ok()?;
    let n = skeleton.joints.len();
    let parents: Vec<Option<usize>> = (skeleton.joints.iter().enumerate())
        .map(|(k, j)| j.parent.filter(|&p| p < n && p != k))
        .collect();
    let mut groups = Groups::of(rig, &parents)?;
    let threshold = MIN_VERTICES.max((groups.total as f64 * MIN_SHARE) as usize);
    groups.fold_small(threshold);
    let thickness = groups.thickness();
    let most = (TRIANGLE_TARGET / BOX_TRIANGLES).min(255);
    // Each fold removes a group, or moves one up a cycle of parents: bounded either way.
    for _ in 0..=2 * n + 1 {
        if groups.members.len() <= most || groups.fold_smallest().is_none() {
            break; // within the budget, or every group a root (the report shows the budgets)
        }
    }
    let solids = (groups.members.iter())
        .map(|(&j, g)| solid(j, &g.points, thickness))
        .collect::<Option<Vec<Solid>>>()?;
    let hulls = (groups.members.iter())
        .map(|(&j, g)| BuiltHull {
            joint: j,
            names: g
                .joints
                .iter()
                .map(|&k| skeleton.joints[k].name.clone())
                .collect(),
            vertices: g.points.len(),
        })
        .collect();
    Some(Built {
        shw: Shw::of_solids(template, nodes, &solids),
        hulls,
    })
}

/// The hull around `points`, moved by joint `j`.
fn solid(j: usize, points: &[[f64; 3]], thickness: f64) -> Option<Solid> {
    let (corners, triangles) = box_hull(points, thickness)?;
    Some(Solid {
        joint: u8::try_from(j).ok()?,
        corners: corners.iter().map(|c| c.map(|x| x as f32)).collect(),
        triangles,
    })
}

/// The vertices of one joint's group.
#[derive(Debug, Clone, Default)]
struct Group {
    /// The joint, then those folded into it.
    joints: Vec<usize>,
    /// The positions (rest space, native units).
    points: Vec<[f64; 3]>,
}

/// The model's vertices grouped by joint.
struct Groups<'a> {
    members: BTreeMap<usize, Group>,
    parents: &'a [Option<usize>],
    total: usize,
}

impl<'a> Groups<'a> {
    /// Every vertex of `rig`'s meshes on its dominant joint (the first of its largest weight).
    fn of(rig: &Rig, parents: &'a [Option<usize>]) -> Option<Groups<'a>> {
        let mut members: BTreeMap<usize, Group> = BTreeMap::new();
        let mut total = 0;
        for m in rig.meshes() {
            for ((p, j), w) in m.positions.iter().zip(&m.joints).zip(&m.weights) {
                let k = (1..4).fold(0, |b, k| if w[k] > w[b] { k } else { b });
                let joint = usize::from(j[k]);
                if joint < parents.len() && p.iter().all(|c| c.is_finite()) {
                    let g = members.entry(joint).or_default();
                    g.joints = vec![joint];
                    g.points.push(*p);
                    total += 1;
                }
            }
        }
        (total > 0).then_some(Groups {
            members,
            parents,
            total,
        })
    }

    /// The depth of joint `j` (0 for a root; a cycle stops at the joint count).
    fn depth(&self, mut j: usize) -> usize {
        let mut d = 0;
        while let Some(p) = self.parents[j].filter(|_| d < self.parents.len()) {
            (j, d) = (p, d + 1);
        }
        d
    }

    /// Joint `j`'s group folded into that of its nearest ancestor that has one (made for its
    /// parent when none has): where the ancestor was folded itself, its children follow it.
    fn fold(&mut self, j: usize) -> Option<usize> {
        let parent = self.parents[j]?;
        let mut p = parent;
        let mut steps = 0;
        while !self.members.contains_key(&p) && steps < self.parents.len() {
            match self.parents[p] {
                Some(up) => (p, steps) = (up, steps + 1),
                None => break,
            }
        }
        if !self.members.contains_key(&p) || p == j {
            p = parent;
        }
        let g = self.members.remove(&j)?;
        let into = self.members.entry(p).or_insert_with(|| Group {
            joints: vec![p],
            points: Vec::new(),
        });
        into.joints.extend(g.joints);
        into.points.extend(g.points);
        Some(p)
    }

    /// Folds every group under `threshold` vertices into its parent, deepest first (a parent
    /// gathering its children's vertices may then stay).
    fn fold_small(&mut self, threshold: usize) {
        let mut order: Vec<usize> = (0..self.parents.len()).collect();
        order.sort_by_key(|&j| std::cmp::Reverse(self.depth(j)));
        for j in order {
            if self
                .members
                .get(&j)
                .is_some_and(|g| g.points.len() < threshold)
            {
                self.fold(j);
            }
        }
    }

    /// Folds the group with the fewest vertices (the deepest of those) that has a parent:
    /// (the joint folded, its parent).
    fn fold_smallest(&mut self) -> Option<(usize, usize)> {
        let j = (self.members.iter())
            .filter(|(&j, _)| self.parents[j].is_some())
            .min_by_key(|(&j, g)| (g.points.len(), std::cmp::Reverse(self.depth(j))))
            .map(|(&j, _)| j)?;
        Some((j, self.fold(j)?))
    }

    /// The least extent a hull gets on each axis: 1% of the model's size, at least 0.001.
    fn thickness(&self) -> f64 {
        let all = self.members.values().flat_map(|g| &g.points);
        let (lo, hi) = all.fold(
            ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]),
            |(lo, hi), p| {
                (
                    [0, 1, 2].map(|c| lo[c].min(p[c])),
                    [0, 1, 2].map(|c| hi[c].max(p[c])),
                )
            },
        );
        let size = (0..3).map(|c| (hi[c] - lo[c]).powi(2)).sum::<f64>().sqrt();
        (size * 0.01).max(0.001)
    }
}

/// Whether the model in `slots` is the coat (slot 12).
pub fn is_coat(slots: &[usize]) -> bool {
    slots.contains(&COAT_SLOT)
}

/// The shadow slot of the model in `slots` (the slot map's): 14 for the coat (12), else 8.
pub fn shadow_slot(slots: &[usize]) -> usize {
    match is_coat(slots) {
        true => COAT_SHADOW_SLOT,
        false => BODY_SHADOW_SLOT,
    }
}

impl ArchiveTag {
    /// The members carried as bytes in the shadow slot of the model in `slots` (see
    /// [`shadow_slot`]).
    pub fn shadows_of(&self, slots: &[usize]) -> Vec<MemberRef> {
        let slot = shadow_slot(slots);
        self.carried(|s, _| s.contains(&slot))
    }

    /// The members carried as bytes in the cloth slot (13).
    pub fn cloth(&self) -> Vec<MemberRef> {
        self.carried(|s, _| s.contains(&CLOTH_SLOT))
    }

    /// Whether a coat (a model in slot 12) has no shadow in slot 14, which the player code
    /// uses without a null check.
    pub fn lacks_coat_shadow(&self) -> bool {
        let has_coat = self.members.iter().any(|m| match m {
            MemberTag::Part { slots, .. } => is_coat(slots),
            MemberTag::Bytes { slots, bytes, .. } => {
                is_coat(slots) && crate::native::dmc3::has_container_magic(bytes)
            }
            _ => false,
        });
        has_coat && self.offsets.get(COAT_SHADOW_SLOT).is_none_or(|&o| o == 0)
    }

    /// The offset of the coat when the document shows it as a part.
    pub fn coat_part(&self) -> Option<u32> {
        self.parts().find_map(|(_, m)| match m {
            MemberTag::Part { offset, slots, .. } if is_coat(slots) => Some(*offset),
            _ => None,
        })
    }

    /// The coat's model when the tag carries it as bytes (a coat the document does not show).
    pub fn carried_coat(&self) -> Option<Rig> {
        self.members.iter().find_map(|m| match m {
            MemberTag::Bytes { slots, bytes, .. } if is_coat(slots) => {
                let file = crate::native::dmc3::read_container(bytes).ok()?;
                Some(super::lift(crate::native::NativeFile::Dmc3(file)))
            }
            _ => None,
        })
    }

    /// The shadow member `m` written anew for `rig` ([`build`], the old shadow's header and
    /// record bytes carried when it reads as one): its bytes and what was built, as a note.
    pub fn renew_shadow(&self, m: &MemberRef, rig: &Rig) -> Option<(Vec<u8>, String)> {
        let old = match self.members.get(m.member) {
            Some(MemberTag::Bytes { bytes, .. }) => Shw::read(bytes),
            _ => None,
        };
        let built = build(rig, old.as_ref())?;
        let was = old.map_or_else(
            || "bytes of an unknown layout".to_string(),
            |o| format!("{} hull(s)", o.hulls.len()),
        );
        let note = format!(
            "member {} ({}): shadow rebuilt from the new meshes: {built} (was {was})",
            m.member,
            m.named_slots()
        );
        Some((built.shw.write(), note))
    }

    /// Slot 14 made from `coat` ([`build`], the retail header) when [`Self::lacks_coat_shadow`]:
    /// the member is added to the tag, and a note says what was built.
    pub fn add_coat_shadow(&mut self, coat: &Rig) -> Option<String> {
        if !self.lacks_coat_shadow() {
            return None;
        }
        let built = build(coat, None)?;
        self.add_member(COAT_SHADOW_SLOT, built.shw.write());
        Some(format!(
            "slot 14 (coat shadow) created from the coat, which had none (the player code uses it without a null check: a Dante costume archive without it crashes the game): {built}"
        ))
    }
}

/// What an import says when a coat has no shadow and `--rebuild-shadows` was not given.
pub const MISSING_COAT_SHADOW: &str = "slot 12 holds a coat but slot 14 (its shadow) is empty: the player code uses slot 14 without a null check, so a Dante costume archive (all but pl018's costumes) crashes the game; import --rebuild-shadows creates it from the coat";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_groups_fold_into_their_nearest_grouped_ancestor_each_joint_once() {
        let parents = [None, Some(0), Some(1), Some(2), Some(3)];
        let group = |j: usize, n: usize| {
            let points = (0..n).map(|k| [k as f64, j as f64, 0.0]).collect();
            (
                j,
                Group {
                    joints: vec![j],
                    points,
                },
            )
        };
        let mut g = Groups {
            members: [group(1, 20), group(2, 3), group(3, 21), group(4, 2)].into(),
            parents: &parents,
            total: 46,
        };
        g.fold_small(8);
        let joints = |g: &Groups| -> Vec<(usize, Vec<usize>)> {
            g.members
                .iter()
                .map(|(&j, x)| (j, x.joints.clone()))
                .collect()
        };
        assert_eq!(joints(&g), [(1, vec![1, 2]), (3, vec![3, 4])]);
        // 23 vertices each: the deeper goes first, into 1 (its parent 2 was folded into 1).
        assert_eq!(g.fold_smallest(), Some((3, 1)));
        assert_eq!(g.fold_smallest(), Some((1, 0)));
        assert_eq!(joints(&g), [(0, vec![0, 1, 2, 3, 4])]);
        assert_eq!(g.members[&0].points.len(), 46);
        assert_eq!(g.fold_smallest(), None);
    }

    #[test]
    fn the_sample_body_gets_one_box_per_joint_that_weighs_its_vertices_most() {
        let file = crate::native::dmc3::read_container(&crate::synth::dmc3::sample_mod()).unwrap();
        let rig = super::super::lift(crate::native::NativeFile::Dmc3(file));
        let b = build(&rig, None).unwrap();
        // Every bone but the root's has a tube whose vertices its parent weighs most: the 32
        // joints with a child (not the root) each get a box.
        assert_eq!(b.hulls.len(), 32);
        assert_eq!(b.shw.triangle_total(), 32 * 12);
        assert_eq!(b.shw.node_count(), 49);
        assert!(b
            .hulls
            .iter()
            .all(|h| h.names.len() == 1 && h.vertices >= 10));
        assert_eq!(b.shw.findings(Some(49)), []);
    }
}
