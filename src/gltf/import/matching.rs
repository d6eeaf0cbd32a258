//! Joint matching: which scene nodes are joints of which skeleton. A node is an original joint
//! by the identity in its extras, else by its default name (`<skeleton>_<k>`); a plain node
//! below a joint is a joint added to that joint's skeleton.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::graph::{Graph, Tag};
use super::joints::{JointKey, JointNode};
use super::num_hash::NumHash;
use super::scene::{SceneExtras, SkelExtras};
use super::{ImportError, NodeProblem, Refusal};
use crate::rig::format::Recorded;

/// `<skeleton name>_<k>` for an existing joint `k`: the IR's default joint name.
fn name_identity(name: &str, skeletons: &[SkelExtras]) -> Option<(usize, usize)> {
    skeletons.iter().enumerate().find_map(|(s, sk)| {
        let rest = name.strip_prefix(sk.name.as_str())?.strip_prefix('_')?;
        if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let k = rest.parse::<usize>().ok().filter(|&k| k < sk.joints)?;
        Some((s, k))
    })
}

/// Which scene nodes are joints, and of what.
pub(crate) fn classify(
    json: &Map<String, Value>,
    graph: &Graph,
    ex: &SceneExtras,
    refusals: &mut Vec<Refusal>,
) -> Result<Vec<Option<JointNode>>, ImportError> {
    let n = graph.nodes.len();
    let mut jn: Vec<Option<JointNode>> = vec![None; n];
    let mut claimed: Claimed =
        HashMap::with_capacity_and_hasher(graph.preorder.len(), NumHash::default());
    tagged_joints(graph, ex, &mut jn, &mut claimed)?;
    named_joints(graph, ex, &mut jn, &mut claimed);
    let skin_of = skin_membership(json, n);
    added_joints(graph, ex, &mut jn, &skin_of, refusals);
    Ok(jn)
}

/// The node claiming each (skeleton, joint).
type Claimed = HashMap<(usize, usize), usize, NumHash>;

/// Marks the nodes whose extras name an original joint, refusing a skeleton or joint that is
/// not there and a joint two nodes claim.
fn tagged_joints(
    graph: &Graph,
    ex: &SceneExtras,
    jn: &mut [Option<JointNode>],
    claimed: &mut Claimed,
) -> Result<(), ImportError> {
    for &i in &graph.preorder {
        let node = &graph.nodes[i];
        let Tag::Joint {
            skeleton,
            joint,
            native,
            offset,
            depth,
        } = &node.tag
        else {
            continue;
        };
        let bad = |problem: NodeProblem| ImportError::Node {
            node: i,
            name: node.name.clone(),
            problem,
        };
        let (skeleton, joint) = (*skeleton, *joint);
        let sk = ex.skeletons.get(skeleton).ok_or_else(|| {
            bad(NodeProblem::SkeletonPastEnd {
                skeleton,
                skeletons: ex.skeletons.len(),
            })
        })?;
        if joint >= sk.joints {
            return Err(bad(NodeProblem::JointPastEnd {
                joint,
                skeleton: sk.name.clone(),
                joints: sk.joints,
            }));
        }
        if let Some(other) = claimed.insert((skeleton, joint), i) {
            return Err(bad(NodeProblem::Duplicate {
                skeleton: sk.name.clone(),
                joint,
                other,
                other_name: graph.nodes[other].name.clone(),
            }));
        }
        jn[i] = Some(JointNode {
            skeleton,
            key: JointKey::Old(joint),
            native: *native,
            by_name: false,
            recorded: Recorded {
                depth: *depth,
                offset: *offset,
            },
        });
    }
    Ok(())
}

/// Whether node `i` is a plain node: no tag, no mesh, nothing else (camera, light).
fn plain(graph: &Graph, i: usize) -> bool {
    let node = &graph.nodes[i];
    node.tag == Tag::None && node.mesh.is_none() && !node.other
}

/// Marks the plain nodes whose name is an original joint's default name (see
/// [`name_identity`]) not claimed yet.
fn named_joints(
    graph: &Graph,
    ex: &SceneExtras,
    jn: &mut [Option<JointNode>],
    claimed: &mut Claimed,
) {
    for &i in &graph.preorder {
        if jn[i].is_some() || !plain(graph, i) {
            continue;
        }
        if let Some((s, k)) = name_identity(&graph.nodes[i].name, &ex.skeletons) {
            if let std::collections::hash_map::Entry::Vacant(e) = claimed.entry((s, k)) {
                e.insert(i);
                jn[i] = Some(JointNode {
                    skeleton: s,
                    key: JointKey::Old(k),
                    native: false,
                    by_name: true,
                    recorded: Recorded::default(),
                });
            }
        }
    }
}

/// Per node: the first skin listing it as a joint.
fn skin_membership(json: &Map<String, Value>, n: usize) -> Vec<Option<usize>> {
    let mut skin_of: Vec<Option<usize>> = vec![None; n];
    let skins: &[Value] = json
        .get("skins")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for (k, skin) in skins.iter().enumerate() {
        if let Some(list) = skin.get("joints").and_then(Value::as_array) {
            for j in list.iter().filter_map(|v| v.as_u64()) {
                if let Some(slot) = usize::try_from(j).ok().and_then(|j| skin_of.get_mut(j)) {
                    slot.get_or_insert(k);
                }
            }
        }
    }
    skin_of
}

/// The skeleton most of skin `k`'s identified joints belong to (the lowest on a tie).
fn skin_skeleton(k: usize, skin_of: &[Option<usize>], jn: &[Option<JointNode>]) -> Option<usize> {
    let mut count: HashMap<usize, usize, NumHash> = HashMap::default();
    for (s, j) in skin_of.iter().zip(jn) {
        if *s == Some(k) {
            if let Some(j) = j {
                *count.entry(j.skeleton).or_default() += 1;
            }
        }
    }
    count
        .into_iter()
        .max_by_key(|&(s, c)| (c, usize::MAX - s))
        .map(|(s, _)| s)
}

/// Marks every plain node below a joint as a joint added to that joint's skeleton; a skin
/// joint with no joint above it is refused (new root joints are not supported).
fn added_joints(
    graph: &Graph,
    ex: &SceneExtras,
    jn: &mut [Option<JointNode>],
    skin_of: &[Option<usize>],
    refusals: &mut Vec<Refusal>,
) {
    for &i in &graph.preorder {
        if jn[i].is_some() || !plain(graph, i) {
            continue;
        }
        let mut at = graph.parent[i];
        let mut above = None;
        while let Some(a) = at {
            if let Some(j) = &jn[a] {
                above = Some(j.skeleton);
                break;
            }
            at = graph.parent[a];
        }
        match (above, skin_of[i]) {
            (Some(s), _) => {
                jn[i] = Some(JointNode {
                    skeleton: s,
                    key: JointKey::New(i),
                    native: false,
                    by_name: false,
                    recorded: Recorded::default(),
                })
            }
            (None, Some(k)) => refusals.push(Refusal {
                skeleton: skin_skeleton(k, skin_of, jn)
                    .and_then(|s| ex.skeletons.get(s))
                    .map(|s| s.name.clone())
                    .unwrap_or_else(|| format!("of skin {k}")),
                joint: None,
                name: graph.nodes[i].name.clone(),
                node: Some(i),
                field: "parent".into(),
                problem: "a new joint (a skin joint without rigtrip identity) needs a joint above it; new root joints are not supported".into(),
            }),
            (None, None) => {}
        }
    }
}
