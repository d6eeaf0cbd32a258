//! An archive's other models in the model's document (see
//! [`crate::rig::archive::MemberTag::Part`]): the document seen as one view per model, each
//! holding only that model's nodes, so that each is imported as if it were alone.
//!
//! A node belongs to a model by, in this order: for a mesh node, a name starting `{part}/` (a
//! mesh of the model renamed so moves into the part, as a new mesh of it); its
//! `extras.rigtrip.part` (the export tags every node of a part); any other rigtrip tag (the
//! model's own joints, meshes, wrappers); for an untagged skinned mesh (one made in an editor),
//! the model of its skin's first joint. A node without any of these (an editor's armature
//! object) belongs to the model of everything below it, or to every view when that is mixed or
//! empty. A part whose skeleton is the model's sees the model's joints too, each with the
//! part's own joint extras in place of the model's.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value};

use super::graph::{rigtrip_of, Graph, Tag};
use super::read::Doc;
use super::scene::find_scene;
use super::ImportError;
use crate::rig::archive::{AddedTextures, ArchiveTag, MemberTag};

/// Which view a node is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Home {
    /// One model's: 0 is the document's model, `k` its `k`-th part.
    Model(usize),
    /// Every view's.
    Shared,
}

/// One part's view of the document.
pub(super) struct PartView<'d> {
    /// Its member's offset in the archive.
    pub offset: u32,
    /// Its name.
    pub name: String,
    /// The document as the part alone.
    pub doc: Doc<'d>,
}

/// The document as the model alone and as each part alone.
pub(super) struct Split<'d> {
    /// The model's view.
    pub model: Doc<'d>,
    /// Each part's, in the tag's order.
    pub parts: Vec<PartView<'d>>,
}

/// One part as the tag records it.
struct PartTag<'t> {
    offset: u32,
    name: &'t str,
    scene: &'t Value,
    joints: &'t [Value],
}

/// The views of `doc`, `None` when its archive shows no part.
pub(super) fn split<'d>(
    doc: &'d Doc<'_>,
    tag: &ArchiveTag,
) -> Result<Option<Split<'d>>, ImportError> {
    let parts: Vec<PartTag> = tag
        .parts()
        .filter_map(|(_, m)| match m {
            MemberTag::Part {
                offset,
                name,
                scene,
                joints,
                ..
            } => Some(PartTag {
                offset: *offset,
                name,
                scene,
                joints,
            }),
            _ => None,
        })
        .collect();
    if parts.is_empty() {
        return Ok(None);
    }
    let (index, scene, _) = find_scene(doc)?;
    let graph = Graph::read(doc.json(), scene, &doc.node_extras, None)?;
    let (homes, moved) = homes(doc, &graph, &parts);
    check_skins(doc, &graph, &homes, &parts)?;
    let joints = holds_joints(&graph, &homes);
    let cut = Cut {
        graph: &graph,
        moved: &moved,
    };
    let model = view(
        doc,
        index,
        &cut,
        |i| !matches!(homes[i], Home::Model(0) | Home::Shared),
        None,
    );
    let mut views = Vec::with_capacity(parts.len());
    for (k, p) in parts.iter().enumerate() {
        let own = Home::Model(k + 1);
        let shared = !p.joints.is_empty();
        let away = |i: usize| match homes[i] {
            Home::Shared => false,
            h if h == own => false,
            Home::Model(0) => !(shared && joints[i]),
            Home::Model(_) => true,
        };
        views.push(PartView {
            offset: p.offset,
            name: p.name.to_string(),
            doc: view(doc, index, &cut, away, Some(p)),
        });
    }
    Ok(Some(Split {
        model,
        parts: views,
    }))
}

/// Every node's home (see the module doc), and per node whether it is a mesh moved into
/// another model than its tag's (by its name).
fn homes(doc: &Doc, graph: &Graph, parts: &[PartTag]) -> (Vec<Home>, Vec<bool>) {
    let by_name: HashMap<&str, usize> = parts
        .iter()
        .enumerate()
        .map(|(k, p)| (p.name, k + 1))
        .collect();
    let nodes = doc.array("nodes");
    let named = |name: &str| {
        let (prefix, _) = name.split_once('/')?;
        by_name.get(prefix).copied()
    };
    // A mesh node named `part/...` is that part's; one tagged as another model's moved.
    let mut moved = vec![false; graph.nodes.len()];
    let mut home: Vec<Option<Home>> = Vec::with_capacity(graph.nodes.len());
    for (i, n) in graph.nodes.iter().enumerate() {
        let part = nodes.get(i).and_then(|v| {
            let r = rigtrip_of(v, doc.node_extras(i))?;
            let name = r.get("part")?.as_str()?.to_string();
            by_name.get(name.as_str()).copied()
        });
        let tagged = match (part, &n.tag) {
            (Some(k), _) => Some(Home::Model(k)),
            (None, Tag::None) => None,
            (None, _) => Some(Home::Model(0)),
        };
        let named = named(&n.name).filter(|_| n.mesh.is_some()).map(Home::Model);
        moved[i] = named.is_some() && tagged.is_some() && named != tagged;
        home.push(named.or(tagged));
    }
    let skins = doc.array("skins");
    for (i, n) in graph.nodes.iter().enumerate() {
        if home[i].is_some() || n.mesh.is_none() {
            continue;
        }
        let first = n
            .skin
            .and_then(|s| skins.get(s)?.get("joints")?.get(0)?.as_u64())
            .and_then(|j| home.get(usize::try_from(j).ok()?).copied().flatten());
        home[i] = Some(first.unwrap_or(Home::Model(0)));
    }
    for &i in graph.preorder.iter().rev() {
        if home[i].is_some() {
            continue;
        }
        let mut below = graph.nodes[i].children.iter().filter_map(|&c| home[c]);
        let first = below.next();
        home[i] = Some(match first {
            Some(h) if below.all(|b| b == h) => h,
            _ => Home::Shared,
        });
    }
    let home = home
        .into_iter()
        .map(|h| h.unwrap_or(Home::Shared))
        .collect();
    (home, moved)
}

/// Refuses a mesh node in one model skinned to another's joints: a part's mesh on the model's
/// joints (unless the part's skeleton is the model's), or the model's on a part's.
fn check_skins(
    doc: &Doc,
    graph: &Graph,
    homes: &[Home],
    parts: &[PartTag],
) -> Result<(), ImportError> {
    let name = |h: Home| match h {
        Home::Model(k) if k > 0 => parts.get(k - 1).map_or("a part", |p| p.name).to_string(),
        _ => "the model".to_string(),
    };
    let skins = doc.array("skins");
    for (i, n) in graph.nodes.iter().enumerate() {
        let (Some(_), Some(s), Home::Model(k)) = (n.mesh, n.skin, homes[i]) else {
            continue;
        };
        let joint = skins
            .get(s)
            .and_then(|s| s.get("joints")?.get(0)?.as_u64())
            .and_then(|j| usize::try_from(j).ok());
        let Some(Home::Model(m)) = joint.and_then(|j| homes.get(j).copied()) else {
            continue;
        };
        let on_shared = m == 0 && k > 0 && parts.get(k - 1).is_some_and(|p| !p.joints.is_empty());
        if m != k && !on_shared {
            return Err(ImportError::PartSkin {
                node: i,
                name: n.name.clone(),
                part: name(Home::Model(k)),
                skinned: name(Home::Model(m)),
            });
        }
    }
    Ok(())
}

/// Per node whether it is a joint or wrapper of the document's model, or above one.
fn holds_joints(graph: &Graph, homes: &[Home]) -> Vec<bool> {
    let mut holds = vec![false; graph.nodes.len()];
    for &i in graph.preorder.iter().rev() {
        let own = matches!(graph.nodes[i].tag, Tag::Joint { .. } | Tag::Wrapper)
            && homes[i] == Home::Model(0);
        holds[i] = own || graph.nodes[i].children.iter().any(|&c| holds[c]);
    }
    holds
}

/// The document without the nodes `away` names (cut from their parents' children and the
/// scene's roots); for a part, its scene extras in the scene, its joint extras on the model's
/// joints when it shares them, and no animations (the motions are the model's).
/// What a view is cut from: the whole document's graph, and which meshes moved models.
struct Cut<'g> {
    graph: &'g Graph,
    moved: &'g [bool],
}

fn view<'d>(
    doc: &'d Doc<'_>,
    scene: usize,
    cut: &Cut,
    away: impl Fn(usize) -> bool,
    part: Option<&PartTag>,
) -> Doc<'d> {
    let graph = cut.graph;
    let keep = |list: &Value| -> Value {
        let kept = list.as_array().into_iter().flatten().filter(|c| {
            c.as_u64()
                .and_then(|c| usize::try_from(c).ok())
                .is_none_or(|c| !away(c))
        });
        Value::Array(kept.cloned().collect())
    };
    let mut node_extras = doc.node_extras.clone();
    let nodes: Vec<Value> = doc
        .array("nodes")
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let mut n = n.clone();
            let Some(obj) = n.as_object_mut() else {
                return n;
            };
            if let Some(c) = obj.get_mut("children") {
                *c = keep(c);
            }
            if away(i) {
                // Another model's geometry: not this view's to use, nor to name as unused.
                obj.remove("mesh");
                obj.remove("skin");
            }
            if cut.moved.get(i) == Some(&true) {
                // Its tag names a mesh of the model it came from: here it is a new mesh.
                obj.remove("extras");
                if let Some(e) = node_extras.get_mut(i) {
                    *e = None;
                }
            }
            let joint = match (part, &graph.nodes.get(i).map(|g| &g.tag)) {
                (Some(p), Some(Tag::Joint { joint, .. })) if !away(i) => p.joints.get(*joint),
                _ => None,
            };
            if let Some(j) = joint {
                obj.insert("extras".into(), rigtrip(j.clone()));
                if let Some(e) = node_extras.get_mut(i) {
                    *e = None;
                }
            }
            n
        })
        .collect();
    let mut nodes = Some(Value::Array(nodes));
    let mut root = Map::with_capacity(doc.json().len());
    for (key, v) in doc.json() {
        let v = match key.as_str() {
            "nodes" => nodes.take().unwrap_or_default(),
            "animations" if part.is_some() => continue,
            "scenes" => scenes(doc, scene, &keep, part),
            "scene" if part.is_some() => Value::from(0),
            _ => v.clone(),
        };
        root.insert(key.clone(), v);
    }
    Doc {
        root: Cow::Owned(root),
        node_extras,
        scene_extras: match part {
            Some(_) => Vec::new(),
            None => doc.scene_extras.clone(),
        },
        buffers: doc
            .buffers
            .iter()
            .map(|b| b.as_deref().map(Cow::Borrowed))
            .collect(),
        limit: doc.limit,
    }
}

/// The scenes of a view: the model's keep theirs, roots cut by `keep`; a part's is the
/// document's scene `scene` alone, its roots cut, with the part's scene extras.
fn scenes(
    doc: &Doc,
    scene: usize,
    keep: &impl Fn(&Value) -> Value,
    part: Option<&PartTag>,
) -> Value {
    let all = doc.array("scenes");
    let cut = |s: &Value| {
        let mut s = s.clone();
        if let Some(nodes) = s.get_mut("nodes") {
            *nodes = keep(nodes);
        }
        s
    };
    match part {
        None => Value::Array(all.iter().map(cut).collect()),
        Some(p) => {
            let mut s = all
                .get(scene)
                .map(cut)
                .unwrap_or_else(|| Value::Object(Map::new()));
            if let Some(obj) = s.as_object_mut() {
                obj.insert("extras".into(), rigtrip(p.scene.clone()));
            }
            Value::Array(vec![s])
        }
    }
}

/// `{"rigtrip": v}`.
fn rigtrip(v: Value) -> Value {
    let mut m = Map::new();
    m.insert("rigtrip".into(), v);
    Value::Object(m)
}

/// One part imported from its view.
pub(super) struct PartImport {
    /// Its member's offset.
    pub offset: u32,
    /// Its name.
    pub name: String,
    /// The part rebuilt.
    pub imported: super::Imported,
}

/// Imports each part's view: as the model's import, but without new textures of its own (the
/// model's count follows those) and without motions (the model's).
pub(super) fn import(
    parts: Vec<PartView<'_>>,
    added: &AddedTextures,
    tol: &super::Tolerance,
    opts: &super::ImportOptions,
) -> Result<Vec<PartImport>, ImportError> {
    let added = AddedTextures {
        aliases: added.aliases.clone(),
        count: None,
    };
    let opts = super::ImportOptions {
        new_motions_into: None,
        ..opts.clone()
    };
    parts
        .into_iter()
        .map(|p| {
            let imported = super::rebuild::import(&p.doc, &added, tol, &opts).map_err(|e| {
                ImportError::Part {
                    part: p.name.clone(),
                    source: Box::new(e),
                }
            })?;
            Ok(PartImport {
                offset: p.offset,
                name: p.name,
                imported,
            })
        })
        .collect()
}
