//! `rigtrip onto-map`: a joint map suggested for `import --onto`, for a person to correct.
//!
//! Each skin joint of the glTF is matched to a joint of the template's first skeleton:
//!
//! 1. **by name**: the names compared without case, separators and the prefixes rigs put on
//!    every joint (`mixamorig:`, `DEF-`, `Skeleton_`, `Armature_`, ...), each template joint
//!    taken once;
//! 2. **along the chains**, in the glTF's hierarchy order, both skeletons taken to unit height
//!    (their lowest joint at 0, their topmost joint's X and Z at 0): a joint goes to the
//!    template joint below the match of its nearest matched ancestor whose bone from there is
//!    most like its own (direction first, then the fewest joints skipped, then length; where the
//!    glTF's skeleton branches, one that branches as much), not yet taken, within 60°; a joint with no matched ancestor to the template joint nearest its
//!    place, within a tenth of the height.
//!
//! A joint neither finds is left out (it then moves with its nearest mapped ancestor), and the
//! suggestion says so.

use glam::DVec3;

use super::graph::Graph;
use super::read::Doc;
use super::ImportError;
use crate::gltf::Names;
use crate::native::NativeFile;
use crate::rig::space::Space;

/// How one glTF joint was matched.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum How {
    /// Its name, once normalised, is the template joint's.
    Name,
    /// By place (a joint with no matched ancestor), this far from the template joint (a
    /// fraction of the height).
    Place(f64),
    /// Along the chain from its matched ancestor, by the bone's direction, length and the
    /// joints skipped; this far from the template joint (a fraction of the height).
    Chain(f64),
    /// No template joint is near enough, or all near ones were taken.
    None,
}

/// One glTF joint and the template joint suggested for it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Suggested {
    /// The glTF joint's node name (`#N` when it has none).
    pub joint: String,
    /// Its node index.
    pub node: usize,
    /// The template joint's name, if any.
    pub target: Option<String>,
    /// How.
    pub how: How,
}

/// The suggested map, in the glTF's hierarchy order.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Suggestion {
    /// Per skin joint of the glTF.
    pub joints: Vec<Suggested>,
}

impl Suggestion {
    /// The map file's text: one JSON object, glTF joint names to template joint names, in
    /// hierarchy order (what `--joint-map` reads).
    pub fn map_json(&self) -> String {
        let lines: Vec<String> = self
            .joints
            .iter()
            .filter_map(|s| {
                let t = s.target.as_ref()?;
                Some(format!(
                    "  {}: {}",
                    serde_json::Value::from(s.joint.as_str()),
                    serde_json::Value::from(t.as_str())
                ))
            })
            .collect();
        format!("{{\n{}\n}}\n", lines.join(",\n"))
    }

    /// The report a person reads: one line per joint.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        for s in &self.joints {
            let line = match (&s.target, &s.how) {
                (Some(t), How::Name) => format!("{} -> {t} (by name)", s.joint),
                (Some(t), How::Place(d)) => {
                    format!(
                        "{} -> {t} (by place, {:.1}% of the height away)",
                        s.joint,
                        d * 100.0
                    )
                }
                (Some(t), How::Chain(d)) => format!(
                    "{} -> {t} (along the chain, {:.1}% of the height away)",
                    s.joint,
                    d * 100.0
                ),
                _ => format!(
                    "{}: no match (it moves with its nearest mapped ancestor; map it by hand \
                     if it should not)",
                    s.joint
                ),
            };
            out.push_str(&line);
            out.push('\n');
        }
        let found = self.joints.iter().filter(|s| s.target.is_some()).count();
        out.push_str(&format!(
            "{found} of {} glTF joint(s) matched; check those not matched by name before use\n",
            self.joints.len()
        ));
        out
    }
}

/// Places farther than this (a fraction of the height) are not matched.
const NEAR: f64 = 0.1;

/// Suggests a joint map from the glTF `bytes` (separate buffers in `base_dir`) onto
/// `template` (its joint names from `names`, else rigtrip's defaults).
pub fn suggest(
    bytes: &[u8],
    base_dir: Option<&std::path::Path>,
    template: NativeFile,
    names: Option<&Names>,
) -> Result<Suggestion, ImportError> {
    let doc = super::read::parse(bytes, base_dir)?;
    let scene = super::onto::default_scene(&doc)?;
    let graph = Graph::read(doc.json(), scene, &doc.node_extras, None)?;
    let rig = crate::rig::lift(template);
    let space = Space::default_for(&rig);
    let names = super::onto::template_names(&rig, names)?;
    let rest = super::onto::template_rest(&rig, space);
    let t = Side::template(&rig, &names, &rest);
    let s = Side::gltf(&doc, &graph);
    Ok(Suggestion {
        joints: matches(&s, &t),
    })
}

/// One skeleton as the matching sees it: per joint its name, parent (among these) and place
/// at unit height.
struct Side {
    names: Vec<String>,
    nodes: Vec<usize>,
    parent: Vec<Option<usize>>,
    place: Vec<DVec3>,
}

impl Side {
    fn template(rig: &crate::rig::Rig, names: &[Vec<String>], rest: &[Vec<glam::DMat4>]) -> Side {
        let joints = rig
            .skeletons
            .first()
            .map_or(&[][..], |s| s.joints.as_slice());
        let rest = rest.first().map_or(&[][..], Vec::as_slice);
        let n = joints.len().min(rest.len());
        Side::new(
            (0..n)
                .map(|k| {
                    names
                        .first()
                        .and_then(|l| l.get(k))
                        .cloned()
                        .unwrap_or_default()
                })
                .collect(),
            (0..n).collect(),
            joints[..n]
                .iter()
                .map(|j| j.parent.filter(|&p| p < n))
                .collect(),
            rest[..n].iter().map(|m| m.w_axis.truncate()).collect(),
        )
    }

    fn gltf(doc: &Doc, graph: &Graph) -> Side {
        let skin = super::onto::skin_joint_nodes(doc, graph);
        let mut order: Vec<usize> = graph
            .preorder
            .iter()
            .copied()
            .filter(|n| skin.contains(n))
            .collect();
        order.dedup();
        let index = |n: usize| order.iter().position(|&m| m == n);
        let parent = order
            .iter()
            .map(|&n| {
                let mut at = graph.parent.get(n).copied().flatten();
                for _ in 0..graph.nodes.len() {
                    let p = at?;
                    if let Some(i) = index(p) {
                        return Some(i);
                    }
                    at = graph.parent.get(p).copied().flatten();
                }
                None
            })
            .collect();
        Side::new(
            order.iter().map(|&n| graph.display_name(n)).collect(),
            order.clone(),
            parent,
            order
                .iter()
                .map(|&n| graph.world[n].w_axis.truncate())
                .collect(),
        )
    }

    /// Places taken to unit height: the lowest joint at 0, the topmost joint's X and Z at 0.
    fn new(
        names: Vec<String>,
        nodes: Vec<usize>,
        parent: Vec<Option<usize>>,
        at: Vec<DVec3>,
    ) -> Side {
        let lo = at.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
        let hi = at.iter().map(|p| p.y).fold(f64::NEG_INFINITY, f64::max);
        let h = if hi - lo > 1e-9 { hi - lo } else { 1.0 };
        let root = parent
            .iter()
            .position(Option::is_none)
            .and_then(|r| at.get(r))
            .copied()
            .unwrap_or(DVec3::ZERO);
        let place = at
            .iter()
            .map(|p| DVec3::new(p.x - root.x, p.y - lo, p.z - root.z) / h)
            .collect();
        Side {
            names,
            nodes,
            parent,
            place,
        }
    }

    /// How many parents up from `a` joint `b` is (0 for `a` itself; the joint count when it is
    /// not above it).
    fn hops(&self, a: usize, b: usize) -> usize {
        let mut at = Some(a);
        for n in 0..=self.parent.len() {
            match at {
                Some(x) if x == b => return n,
                Some(x) => at = self.parent[x],
                None => break,
            }
        }
        self.parent.len()
    }

    /// How many joints have `a` as their parent.
    fn children(&self, a: usize) -> usize {
        self.parent.iter().filter(|&&p| p == Some(a)).count()
    }

    /// Whether joint `a` is `b` or below it.
    fn under(&self, a: usize, b: usize) -> bool {
        self.hops(a, b) < self.parent.len()
    }
}

/// A name without case, separators and the usual rig prefixes.
fn plain(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let mut s = lower.as_str();
    if let Some((_, rest)) = s.rsplit_once(':') {
        s = rest;
    }
    for prefix in ["def-", "def_", "skeleton_", "armature_", "bip01_", "bip01 "] {
        s = s.strip_prefix(prefix).unwrap_or(s);
    }
    s.chars().filter(char::is_ascii_alphanumeric).collect()
}

/// The template joint below `a` (the match of glTF joint `i`'s nearest matched ancestor `p`)
/// whose bone from `a` is most like the glTF's bone from `p`: in direction first, then with
/// the fewest template joints skipped between, then in length; none within 60°.
fn along(s: &Side, t: &Side, i: usize, p: usize, a: usize, taken: &[bool]) -> Option<(usize, How)> {
    let bone = s.place[i] - s.place[p];
    (0..t.names.len())
        .filter(|&k| !taken[k] && k != a && t.under(k, a))
        .filter_map(|k| {
            let other = t.place[k] - t.place[a];
            let angle = bone.angle_between(other);
            let length = (other.length() / bone.length()).ln().abs();
            // A joint where the glTF's skeleton branches goes where the template's does.
            let fewer = s.children(i).saturating_sub(t.children(k)) as f64;
            let cost = angle
                + SKIP_COST * t.hops(k, a).saturating_sub(1) as f64
                + LENGTH_COST * length
                + BRANCH_COST * fewer;
            (angle.is_finite() && length.is_finite() && angle < MAX_ANGLE).then_some((k, cost))
        })
        .min_by(|x, y| x.1.total_cmp(&y.1))
        .map(|(k, _)| (k, How::Chain(s.place[i].distance(t.place[k]))))
}

/// What one skipped template joint costs against a bone's turn (radians).
const SKIP_COST: f64 = 0.35;

/// What a bone twice or half as long costs, per unit of its log ratio (radians).
const LENGTH_COST: f64 = 0.25;

/// What each branch a template joint lacks against the glTF joint's costs (radians).
const BRANCH_COST: f64 = 0.5;

/// Bones turned more than this (60°) do not match.
const MAX_ANGLE: f64 = std::f64::consts::FRAC_PI_3;

/// The suggestion per glTF joint (see the module doc).
fn matches(s: &Side, t: &Side) -> Vec<Suggested> {
    let mut target: Vec<Option<(usize, How)>> = vec![None; s.names.len()];
    let mut taken = vec![false; t.names.len()];
    for (i, n) in s.names.iter().enumerate() {
        let want = plain(n);
        if want.is_empty() {
            continue;
        }
        if let Some(k) = (0..t.names.len()).find(|&k| !taken[k] && plain(&t.names[k]) == want) {
            taken[k] = true;
            target[i] = Some((k, How::Name));
        }
    }
    for i in 0..s.names.len() {
        if target[i].is_some() {
            continue;
        }
        let mut up = s.parent[i];
        let mut above = None;
        while let Some(p) = up {
            if let Some((k, _)) = &target[p] {
                above = Some(*k);
                break;
            }
            up = s.parent[p];
        }
        let best = match (s.parent[i], above) {
            (Some(p), Some(a)) => along(s, t, i, p, a, &taken),
            _ => (0..t.names.len())
                .filter(|&k| !taken[k])
                .map(|k| (k, s.place[i].distance(t.place[k])))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .filter(|&(_, d)| d <= NEAR)
                .map(|(k, d)| (k, How::Place(d))),
        };
        if let Some((k, how)) = best {
            taken[k] = true;
            target[i] = Some((k, how));
        }
    }
    target
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let (target, how) = match m {
                Some((k, how)) => (Some(t.names[k].clone()), how),
                None => (None, How::None),
            };
            Suggested {
                joint: s.names[i].clone(),
                node: s.nodes[i],
                target,
                how,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_drop_prefixes_and_separators() {
        assert_eq!(plain("mixamorig:LeftUpLeg"), "leftupleg");
        assert_eq!(plain("DEF-upper_arm.L"), "upperarml");
        assert_eq!(plain("Skeleton_torso_joint_1"), "torsojoint1");
        assert_eq!(plain("Left Up-Leg"), "leftupleg");
    }
}
