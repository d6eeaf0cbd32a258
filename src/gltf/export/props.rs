//! Scene properties beside `scene.extras.rigtrip`: values a modder edits one by one as custom
//! properties (Blender shows each scene extra, and the add-on each custom property of the rig's
//! collection, as one; a value nested in `rigtrip` is not editable there). The rig layer says
//! what they are ([`crate::rig::cloth::show`]: an archive's cloth parameters and rows); import
//! hands them back to it.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Builder;
use crate::rig::archive::{ArchiveTag, MemberTag};

/// The scene's extras: the tag under `rigtrip`, the properties beside it.
#[derive(Serialize)]
pub(super) struct SceneExtras<'a, T> {
    /// `scene.extras.rigtrip`.
    pub rigtrip: T,
    /// The properties.
    #[serde(flatten)]
    pub props: &'a Map<String, Value>,
}

/// The properties of the archive `tag` (when it has cloth text), whose cloth members then
/// record the glTF names of the joints their rows name.
pub(super) fn archive_props(
    b: &Builder,
    tag: &mut Option<Cow<'_, ArchiveTag>>,
) -> Map<String, Value> {
    let Some(t) = tag else {
        return Map::new();
    };
    if !t
        .members
        .iter()
        .any(|m| matches!(m, MemberTag::Cloth { .. }))
    {
        return Map::new();
    }
    let names = joint_names(b);
    let shown = crate::rig::cloth::show(t.to_mut(), |part, k| {
        names.get(&(part.map(str::to_string), k)).cloned()
    });
    shown.into_iter().collect()
}

/// The tag of a joint node, as far as naming it goes.
#[derive(Deserialize)]
struct NodeTag {
    rigtrip: Option<JointTag>,
}

/// A joint's identity: its skeleton, index and part.
#[derive(Deserialize)]
struct JointTag {
    skeleton: Option<usize>,
    joint: Option<usize>,
    part: Option<String>,
}

/// The name of every joint node of the first skeleton of the model and of each part, by
/// (part, joint).
fn joint_names(b: &Builder) -> HashMap<(Option<String>, usize), String> {
    let mut out = HashMap::new();
    for n in &b.root.nodes {
        let (Some(name), Some(extras)) = (&n.name, &n.extras) else {
            continue;
        };
        let Ok(NodeTag { rigtrip: Some(t) }) = serde_json::from_str::<NodeTag>(extras.get()) else {
            continue;
        };
        if let (Some(0), Some(k)) = (t.skeleton, t.joint) {
            out.insert((t.part, k), name.clone());
        }
    }
    out
}
