//! The node graph of an incoming document: parents, scene reachability, local and world
//! transforms, and what each node's `extras.rigtrip` says it is.

use std::borrow::Cow;

use glam::{DMat4, DQuat, DVec3};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::read::problem_in;
use super::{pyrepr, ContainerProblem, ImportError, NodeProblem};
use crate::gltf::read::doc::{First, Problem};
use crate::gltf::read::graph::Parents;
use crate::gltf::read::json::index;
use crate::gltf::read::parse::typed;
use crate::rig::format::{JointReader, Payloads, RigFormat};
use crate::rig::JointPayload;

/// A node's local transform as written: TRS (missing parts are identity) or a matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Trs {
    /// Translation.
    pub t: DVec3,
    /// Rotation as written (normalised on use).
    pub r: DQuat,
    /// Scale.
    pub s: DVec3,
    /// Whether the node gave a `matrix` that was decomposed (and its decomposition residue).
    pub from_matrix: Option<f64>,
}

impl Trs {
    /// Whether every part is exactly the identity.
    pub fn is_identity(&self) -> bool {
        self.t == DVec3::ZERO && self.r == DQuat::IDENTITY && self.s == DVec3::ONE
    }

    /// The matrix `T · R · S` (rotation normalised).
    pub fn matrix(&self) -> DMat4 {
        DMat4::from_scale_rotation_translation(self.s, self.r.normalize(), self.t)
    }

    /// Decomposes an affine matrix; the residue is the largest difference between the matrix
    /// and `T · R · S` rebuilt from the parts (non-zero for shear).
    pub fn from_mat(m: DMat4) -> Trs {
        let (s, r, t) = m.to_scale_rotation_translation();
        let back = DMat4::from_scale_rotation_translation(s, r, t);
        let residue = (m - back)
            .to_cols_array()
            .iter()
            .fold(0.0f64, |a, x| a.max(x.abs()));
        Trs {
            t,
            r,
            s,
            from_matrix: Some(if residue.is_finite() {
                residue
            } else {
                f64::INFINITY
            }),
        }
    }
}

/// What a node's `extras.rigtrip` says it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tag {
    /// No rigtrip extras.
    None,
    /// Joint `joint` of skeleton `skeleton`, with its native payload (if present).
    Joint {
        /// Skeleton index.
        skeleton: usize,
        /// Native joint index.
        joint: usize,
        /// Whether `native` is present (read from the node's extras when the joint is built:
        /// see [`joint_native`]).
        native: bool,
        /// HIE: the part's stored offset, when the export recorded it (`offset`).
        offset: Option<[i32; 3]>,
        /// HIE: the part's stored depth, when the export recorded it (`depth`).
        depth: Option<u16>,
    },
    /// A wrapper node above a skeleton's roots.
    Wrapper,
    /// A proxy mesh node (ignored).
    Proxy,
    /// A mesh node of the rig's own geometry.
    Mesh,
    /// The placeholder of an empty scene.
    Placeholder,
}

/// One node, as far as the import cares.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    /// Name, empty when absent.
    pub name: String,
    /// Children indices.
    pub children: Vec<usize>,
    /// Local transform.
    pub local: Trs,
    /// Mesh index.
    pub mesh: Option<usize>,
    /// Skin index.
    pub skin: Option<usize>,
    /// Whether it carries a camera or light (never a joint).
    pub other: bool,
    /// rigtrip tag.
    pub tag: Tag,
    /// A joint's native payload, when it was read typed with the tag (else read from the
    /// extras when the joint is built: see [`joint_native`]).
    pub payload: Option<JointPayload>,
}

/// The members of a node [`Graph::read`] reads.
#[derive(Default)]
struct Members<'v> {
    name: Option<&'v Value>,
    matrix: Option<&'v Value>,
    translation: Option<&'v Value>,
    rotation: Option<&'v Value>,
    scale: Option<&'v Value>,
    mesh: Option<&'v Value>,
    skin: Option<&'v Value>,
    camera: Option<&'v Value>,
    extensions: Option<&'v Value>,
}

impl<'v> Members<'v> {
    /// The members of node `obj` read here, in one pass over its map.
    fn of(obj: &'v Map<String, Value>) -> Members<'v> {
        let mut f = Members::default();
        for (k, x) in obj {
            let slot = match k.as_str() {
                "name" => &mut f.name,
                "matrix" => &mut f.matrix,
                "translation" => &mut f.translation,
                "rotation" => &mut f.rotation,
                "scale" => &mut f.scale,
                "mesh" => &mut f.mesh,
                "skin" => &mut f.skin,
                "camera" => &mut f.camera,
                "extensions" => &mut f.extensions,
                _ => continue,
            };
            *slot = Some(x);
        }
        f
    }

    /// The local transform of node `i` (named `name`, for messages): its matrix, else its
    /// translation, rotation (refused when not one) and scale.
    fn local(&self, i: usize, name: &str) -> Result<Trs, ImportError> {
        if let Some(m) = self.matrix {
            let a = numbers::<16>(m, i, name, "matrix")?;
            return Ok(Trs::from_mat(DMat4::from_cols_array(&a)));
        }
        let t = match self.translation {
            Some(x) => DVec3::from_array(numbers::<3>(x, i, name, "translation")?),
            None => DVec3::ZERO,
        };
        let r = match self.rotation {
            Some(x) => {
                let q = numbers::<4>(x, i, name, "rotation")?;
                let q = DQuat::from_xyzw(q[0], q[1], q[2], q[3]);
                let len = q.length();
                if !(len.is_finite() && len > 1e-6) {
                    return Err(ImportError::Node {
                        node: i,
                        name: name.to_string(),
                        problem: NodeProblem::NotARotation {
                            rotation: q.to_array(),
                            length: len,
                        },
                    });
                }
                q
            }
            None => DQuat::IDENTITY,
        };
        let s = match self.scale {
            Some(x) => DVec3::from_array(numbers::<3>(x, i, name, "scale")?),
            None => DVec3::ONE,
        };
        Ok(Trs {
            t,
            r,
            s,
            from_matrix: None,
        })
    }
}

/// The scene's root nodes (none without `nodes`); each must be one of the `n` nodes.
fn scene_roots(scene: &Value, n: usize) -> Result<Vec<usize>, ImportError> {
    Ok(match scene.get("nodes") {
        None => Vec::new(),
        Some(r) => r
            .as_array()
            .ok_or(ImportError::Container(ContainerProblem::SceneNodesNotArray))?
            .iter()
            .map(|x| index(x).filter(|&x| x < n))
            .collect::<Option<Vec<usize>>>()
            .ok_or(ImportError::Container(ContainerProblem::SceneNodeMissing))?,
    })
}

/// Every node's world matrix (identity outside the scene) and the scene's nodes in preorder,
/// walking down from `roots`; refuses a root that is a child and a node reached twice.
fn walk_scene(
    nodes: &[Node],
    parent: &[Option<usize>],
    roots: &[usize],
) -> Result<(Vec<DMat4>, Vec<usize>), ImportError> {
    let n = nodes.len();
    let mut in_scene = vec![false; n];
    let mut world = vec![DMat4::IDENTITY; n];
    let mut stack: Vec<(usize, DMat4)> = Vec::new();
    let mut preorder = Vec::new();
    for &r in roots.iter().rev() {
        if let Some(p) = parent[r] {
            return Err(ImportError::Node {
                node: r,
                name: nodes[r].name.clone(),
                problem: NodeProblem::RootAndChild(p),
            });
        }
        stack.push((r, DMat4::IDENTITY));
    }
    while let Some((i, above)) = stack.pop() {
        if in_scene[i] {
            return Err(ImportError::Node {
                node: i,
                name: nodes[i].name.clone(),
                problem: NodeProblem::ReachedTwice,
            });
        }
        in_scene[i] = true;
        preorder.push(i);
        world[i] = above * nodes[i].local.matrix();
        for &c in nodes[i].children.iter().rev() {
            stack.push((c, world[i]));
        }
    }
    Ok((world, preorder))
}

/// All nodes with their parents and world matrices; only nodes reachable from the scene count.
#[derive(Debug, Clone)]
pub(crate) struct Graph {
    /// Nodes, indexed like the document's.
    pub nodes: Vec<Node>,
    /// Parent of each node.
    pub parent: Vec<Option<usize>>,
    /// World matrix of each scene node (identity for the others).
    pub world: Vec<DMat4>,
    /// Scene nodes, parents before children (depth first, children in their listed order).
    pub preorder: Vec<usize>,
}

/// The value of `extras.rigtrip` of a JSON object, with Blender's `str()` fallback undone
/// (borrowed unless it had to be parsed from such a string).
pub(crate) fn rigtrip_extras(obj: &Value) -> Option<Cow<'_, Value>> {
    let v = obj.get("extras")?.get("rigtrip")?;
    match v {
        Value::String(s) => Some(Cow::Owned(pyrepr::parse(s).unwrap_or_else(|| v.clone()))),
        other => Some(Cow::Borrowed(other)),
    }
}

/// `extras.rigtrip` of a node or scene whose extras the parse kept as text (`raw`), or of
/// `obj` itself when it did not (see [`rigtrip_extras`]).
pub(crate) fn rigtrip_of<'v>(obj: &'v Value, raw: Option<&RawValue>) -> Option<Cow<'v, Value>> {
    let Some(raw) = raw else {
        return rigtrip_extras(obj);
    };
    // The text is JSON the document parse already accepted, nesting included.
    let extras: Value = serde_json::from_str(raw.get()).ok()?;
    let Value::Object(mut m) = extras else {
        return None;
    };
    Some(Cow::Owned(match m.remove("rigtrip")? {
        Value::String(s) => pyrepr::parse(&s).unwrap_or(Value::String(s)),
        other => other,
    }))
}

/// `extras.rigtrip.native` of node `node` of the document `json` (its extras as text in `raw`
/// when the parse kept them so), when present.
pub(crate) fn joint_native<'v>(
    json: &'v Map<String, Value>,
    raw: Option<&RawValue>,
    node: usize,
) -> Option<Cow<'v, Value>> {
    let node = json.get("nodes")?.get(node)?;
    match rigtrip_of(node, raw)? {
        Cow::Borrowed(r) => r.get("native").map(Cow::Borrowed),
        Cow::Owned(r) => r.get("native").cloned().map(Cow::Owned),
    }
}

/// A node's tag (and a joint's native payload) read typed from its extras' text in the plain
/// form the export writes, the payload as the format's type (`kind`: its
/// [`RigFormat::payloads`]); `None` for anything else (a repeated
/// key, a number as a string, a `1` for `true`, a payload not in its plain form, ...): then
/// [`tag_of`] reads the tag and [`joint_native`] the payload, to the same result or to the
/// error. The payload is `None` only without `kind` or without `native`.
fn node_tag_typed(raw: &RawValue, kind: Option<Payloads>) -> Option<(Tag, Option<JointPayload>)> {
    /// [`tag_typed`] as a [`JointReader`]: the format picks the payload type.
    struct TagReader<'a>(&'a str);
    impl JointReader for TagReader<'_> {
        type Out = Option<(Tag, Option<JointPayload>)>;
        fn read<P: serde::de::DeserializeOwned>(self, wrap: fn(P) -> JointPayload) -> Self::Out {
            tag_typed(self.0, |p: P| Some(wrap(p)))
        }
    }
    match kind {
        Some(kind) => kind.read_joint(TagReader(raw.get())),
        None => tag_typed(raw.get(), |_: serde::de::IgnoredAny| None),
    }
}

/// [`node_tag_typed`] with the payload type `P`, wrapped by `wrap`.
fn tag_typed<P: serde::de::DeserializeOwned>(
    text: &str,
    wrap: impl Fn(P) -> Option<JointPayload>,
) -> Option<(Tag, Option<JointPayload>)> {
    /// `extras.rigtrip` of any node the export writes. `tag_of` reads the keys it names
    /// only, in this order: `joint` (then `skeleton`, `offset`, `depth`, `native`), `proxy`,
    /// `wrapper`, `placeholder`, `mesh`.
    #[derive(Deserialize)]
    #[serde(bound = "P: serde::de::DeserializeOwned")]
    struct NodeIn<'a, P> {
        #[serde(default)]
        skeleton: Option<usize>,
        // Present means a joint, `null` included (an error then, worded by `tag_of`).
        #[serde(default, deserialize_with = "some")]
        joint: Option<usize>,
        #[serde(default)]
        offset: Option<[i32; 3]>,
        #[serde(default)]
        depth: Option<u16>,
        #[serde(default, deserialize_with = "some")]
        native: Option<P>,
        #[serde(default)]
        proxy: Option<bool>,
        #[serde(default)]
        wrapper: Option<bool>,
        #[serde(default)]
        placeholder: Option<bool>,
        #[serde(borrow, default, deserialize_with = "typed::present")]
        mesh: Option<&'a RawValue>,
    }
    /// A present value, `null` included (read as `P`, which refuses `null`).
    fn some<'de, D: serde::Deserializer<'de>, P: Deserialize<'de>>(
        d: D,
    ) -> Result<Option<P>, D::Error> {
        P::deserialize(d).map(Some)
    }
    let Some(n) = typed::object::<typed::Extras<NodeIn<P>>>(text)?.rigtrip else {
        return Some((Tag::None, None));
    };
    let tag = match (n.joint, n.skeleton) {
        (Some(joint), Some(skeleton)) => Tag::Joint {
            skeleton,
            joint,
            native: n.native.is_some(),
            offset: n.offset,
            depth: n.depth,
        },
        // A joint without its skeleton is an error, worded by `tag_of`.
        (Some(_), None) => return None,
        (None, _) if n.proxy == Some(true) => Tag::Proxy,
        (None, _) if n.wrapper == Some(true) => Tag::Wrapper,
        (None, _) if n.placeholder == Some(true) => Tag::Placeholder,
        (None, _) if n.mesh.is_some() => Tag::Mesh,
        (None, _) => Tag::None,
    };
    let payload = match tag {
        Tag::Joint { .. } => n.native.and_then(wrap),
        _ => None,
    };
    Some((tag, payload))
}

fn numbers<const N: usize>(
    v: &Value,
    node: usize,
    name: &str,
    field: &'static str,
) -> Result<[f64; N], ImportError> {
    let bad = || ImportError::Node {
        node,
        name: name.to_string(),
        problem: NodeProblem::NotNumbers { field, count: N },
    };
    let a = v.as_array().filter(|a| a.len() == N).ok_or_else(bad)?;
    let mut out = [0.0; N];
    for (o, x) in out.iter_mut().zip(a) {
        // glTF stores these as 32-bit floats; JSON writers print them in more or fewer digits.
        *o = x
            .as_f64()
            .map(|f| f64::from(f as f32))
            .filter(|f| f.is_finite())
            .ok_or_else(bad)?;
    }
    Ok(out)
}

/// A non-negative integer in extras: a JSON integer, an integral float, or a decimal string
/// (Blender turns integers it cannot hold into strings).
pub(crate) fn int_of(v: &Value) -> Option<usize> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9e15)
                    .map(|f| f as u64)
            })
            .and_then(|x| usize::try_from(x).ok()),
        Value::String(s) => s.trim().parse::<usize>().ok(),
        _ => None,
    }
}

fn tag_of(i: usize, name: &str, node: &Value, raw: Option<&RawValue>) -> Result<Tag, ImportError> {
    let Some(r) = rigtrip_of(node, raw) else {
        return Ok(Tag::None);
    };
    let bad = |problem: NodeProblem| ImportError::Node {
        node: i,
        name: name.to_string(),
        problem,
    };
    let member = |member, found: String, expected| {
        bad(NodeProblem::ExtrasMember {
            member,
            found,
            expected,
        })
    };
    let Value::Object(m) = r.as_ref() else {
        return Err(bad(NodeProblem::ExtrasNotObject(short(&r))));
    };
    let truthy = |k: &str| {
        m.get(k)
            .is_some_and(|v| v.as_bool() == Some(true) || v.as_i64() == Some(1))
    };
    if m.contains_key("joint") {
        let skeleton = m.get("skeleton").and_then(int_of).ok_or_else(|| {
            let found = m.get("skeleton").map(short);
            member(
                "skeleton",
                found.unwrap_or_else(|| "missing".into()),
                "a skeleton index",
            )
        })?;
        let joint = m.get("joint").and_then(int_of).ok_or_else(|| {
            let found = m.get("joint").map(short).unwrap_or_default();
            member("joint", found, "a joint index")
        })?;
        let offset = match m.get("offset") {
            None | Some(Value::Null) => None,
            Some(v) => {
                let a = v
                    .as_array()
                    .filter(|a| a.len() == 3)
                    .and_then(|a| {
                        a.iter()
                            .map(|x| x.as_i64().and_then(|x| i32::try_from(x).ok()))
                            .collect::<Option<Vec<i32>>>()
                    })
                    .ok_or_else(|| member("offset", short(v), "three 32-bit integers"))?;
                Some([a[0], a[1], a[2]])
            }
        };
        let depth = match m.get("depth") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_u64()
                    .and_then(|d| u16::try_from(d).ok())
                    .ok_or_else(|| member("depth", short(v), "a 16-bit depth"))?,
            ),
        };
        return Ok(Tag::Joint {
            skeleton,
            joint,
            native: m.contains_key("native"),
            offset,
            depth,
        });
    }
    Ok(if truthy("proxy") {
        Tag::Proxy
    } else if truthy("wrapper") {
        Tag::Wrapper
    } else if truthy("placeholder") {
        Tag::Placeholder
    } else if m.contains_key("mesh") {
        Tag::Mesh
    } else {
        Tag::None
    })
}

/// A JSON value shortened for a message.
pub(crate) fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 60 {
        format!("{}...", crate::gltf::names::cut(&s, 57))
    } else {
        s
    }
}

impl Graph {
    /// Reads the nodes and the scene `scene` (its root nodes); `extras[i]` is node `i`'s extras
    /// when the parse kept them as text, `format` the one the scene extras name (for reading
    /// joint payloads typed).
    pub fn read(
        json: &Map<String, Value>,
        scene: &Value,
        extras: &[Option<&RawValue>],
        format: Option<&dyn RigFormat>,
    ) -> Result<Graph, ImportError> {
        let list: &[Value] = json
            .get("nodes")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let n = list.len();
        let mut nodes = Vec::with_capacity(n);
        // Parents node by node: the first problem in document order stops the import.
        let mut parents = Parents::new(n);
        let mut sink = First(|p: Problem<'_>| problem_in(p, list));
        let kind = format.map(|f| f.payloads());
        for (i, v) in list.iter().enumerate() {
            let Some(obj) = v.as_object() else {
                return Err(ImportError::Node {
                    node: i,
                    name: String::new(),
                    problem: NodeProblem::NotObject,
                });
            };
            let f = Members::of(obj);
            let name = f.name.and_then(Value::as_str).unwrap_or("").to_string();
            let bad = |problem: NodeProblem| ImportError::Node {
                node: i,
                name: name.clone(),
                problem,
            };
            let children = parents.take(i, v, &mut sink)?;
            let local = f.local(i, &name)?;
            let mesh = match f.mesh {
                None => None,
                Some(x) => Some(index(x).ok_or_else(|| bad(NodeProblem::NotIndex("mesh")))?),
            };
            let skin = match f.skin {
                None => None,
                Some(x) => Some(index(x).ok_or_else(|| bad(NodeProblem::NotIndex("skin")))?),
            };
            let other = f.camera.is_some()
                || f.extensions
                    .and_then(|e| e.get("KHR_lights_punctual"))
                    .is_some();
            let raw = extras.get(i).copied().flatten();
            let (tag, payload) = match raw.and_then(|r| node_tag_typed(r, kind)) {
                Some(x) => x,
                None => (tag_of(i, &name, v, raw)?, None),
            };
            nodes.push(Node {
                name,
                children,
                local,
                mesh,
                skin,
                other,
                tag,
                payload,
            });
        }
        let parent = parents.0;
        let roots = scene_roots(scene, n)?;
        let (world, preorder) = walk_scene(&nodes, &parent, &roots)?;
        Ok(Graph {
            nodes,
            parent,
            world,
            preorder,
        })
    }

    /// Node `n` as a report names it: its name, `#N` when it has none.
    pub fn display_name(&self, n: usize) -> String {
        self.nodes
            .get(n)
            .map(|x| x.name.clone())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| format!("#{n}"))
    }

    /// The chain of nodes strictly between `node` and its ancestor `top` (exclusive both),
    /// top-down; with `top = None`, every ancestor.
    pub fn between(&self, node: usize, top: Option<usize>) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = self.parent.get(node).copied().flatten();
        while let Some(p) = at {
            if Some(p) == top || out.len() > self.nodes.len() {
                break;
            }
            out.push(p);
            at = self.parent.get(p).copied().flatten();
        }
        out.reverse();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn graph_worlds_and_errors() {
        let doc = json!({"nodes": [
            {"name": "a", "children": [1], "translation": [1.0, 0.0, 0.0]},
            {"name": "b", "rotation": [0.0, 0.0, 0.0, 2.0], "translation": [0.0, 2.0, 0.0]},
            {"name": "orphan"}
        ]});
        let g = Graph::read(doc.as_object().unwrap(), &json!({"nodes": [0]}), &[], None).unwrap();
        assert_eq!(g.parent, vec![None, Some(0), None]);
        assert_eq!(g.preorder, vec![0, 1]);
        assert_eq!(g.world[1].w_axis.truncate(), DVec3::new(1.0, 2.0, 0.0));
        assert_eq!(g.between(1, None), vec![0]);
        assert!(g.between(1, Some(0)).is_empty());

        let cyc = json!({"nodes": [{"children": [1]}, {"children": [0]}]});
        assert!(Graph::read(cyc.as_object().unwrap(), &json!({"nodes": [0]}), &[], None).is_err());
        let two = json!({"nodes": [{"children": [2]}, {"children": [2]}, {}]});
        let e = Graph::read(
            two.as_object().unwrap(),
            &json!({"nodes": [0, 1]}),
            &[],
            None,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "node 2 (): is a child of both node 0 and node 1"
        );
        let bad = json!({"nodes": [{"name": "x", "translation": [1, "a", 3]}]});
        let e =
            Graph::read(bad.as_object().unwrap(), &json!({"nodes": [0]}), &[], None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "node 0 (x): `translation` is not an array of 3 finite numbers"
        );
        let zero = json!({"nodes": [{"rotation": [0, 0, 0, 0]}]});
        assert!(Graph::read(zero.as_object().unwrap(), &json!({"nodes": [0]}), &[], None).is_err());
        // The first problem in document order stops the reading, outside the scene too.
        let own = json!({"nodes": [{}, {"name": "o", "children": [1]}, {"children": [3]}]});
        let e =
            Graph::read(own.as_object().unwrap(), &json!({"nodes": [0]}), &[], None).unwrap_err();
        assert_eq!(e.to_string(), "node 1 (o): lists itself as a child");
        let order = json!({"nodes": [{"children": [1]}, {"scale": [1, 1]}, {"children": [1]}]});
        let e = Graph::read(
            order.as_object().unwrap(),
            &json!({"nodes": [0]}),
            &[],
            None,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "node 1 (): `scale` is not an array of 3 finite numbers"
        );
    }

    #[test]
    fn tags_read_from_text_are_the_tags_read_from_values() {
        use crate::rig::formats::by_name;
        let bare = json!({});
        let table_joint = r#"{"unknown_00":5,"runtime":"00000000000000000000000000000000","unknown_20":"0x00000001","model":"0x0000000b"}"#;
        let block_joint = r#"{"record":{"tx_bits":"0xc25cff1a","ty_bits":"0x41c4c555","tz_bits":"0x423c5bbd","magnitude_bits":"0x42994ba4","rx_bits":"0x4037d913","ry_bits":"0xc02ec583","rz_bits":"0x3f306b0c","w_bits":"0x80000000"},"group":139}"#;
        let with = |native: &str| {
            format!(r#"{{"rigtrip": {{"skeleton": 1, "joint": 2, "native": {native}}}}}"#)
        };
        let mut texts: Vec<String> = [
            r#"{"rigtrip": {"skeleton": 1, "joint": 2, "native": {"group": 3}}}"#,
            r#"{"rigtrip": {"skeleton": 1, "joint": 2, "native": null}}"#,
            r#"{"rigtrip": {"skeleton": 1, "joint": 2, "offset": [1, -2, 3], "depth": 4}}"#,
            r#"{"rigtrip": {"skeleton": 1, "joint": 2, "offset": null, "depth": null}}"#,
            r#"{"rigtrip": {"skeleton": 1, "joint": 2, "offset": [1, 2]}}"#,
            r#"{"rigtrip": {"skeleton": 1, "joint": 2, "offset": [1, 2, 3, 4]}}"#,
            r#"{"rigtrip": {"skeleton": 1, "joint": 2, "offset": [1, 2, 3000000000]}}"#,
            r#"{"rigtrip": {"skeleton": 1, "joint": 2, "depth": 70000}}"#,
            r#"{"rigtrip": {"skeleton": "1", "joint": 2.0}}"#,
            r#"{"rigtrip": {"skeleton": 1, "joint": 2, "joint": 3}}"#,
            r#"{"rigtrip": {"skeleton": 1, "joint": 2}, "rigtrip": {"mesh": 1}}"#,
            r#"{"rigtrip": {"joint": 2}}"#,
            r#"{"rigtrip": {"joint": null, "wrapper": true}}"#,
            r#"{"rigtrip": {"skeleton": null, "joint": 1}}"#,
            r#"{"rigtrip": {"skeleton": null, "wrapper": true}}"#,
            r#"{"rigtrip": {"skeleton": 0, "joint": 1, "native": {}, "native": {}}}"#,
            r#"{"rigtrip": {"joint": 2, "proxy": true}}"#,
            r#"{"rigtrip": [1, 2, null, null, null]}"#,
            r#"{"rigtrip": "{'skeleton': 0, 'joint': 3, 'native': None}"}"#,
            r#"{"rigtrip": {"proxy": 1}}"#,
            r#"{"rigtrip": {"proxy": true, "skeleton": 8}}"#,
            r#"{"rigtrip": {"proxy": false, "wrapper": true, "mesh": 0}}"#,
            r#"{"rigtrip": {"wrapper": true, "skeleton": 0}}"#,
            r#"{"rigtrip": {"wrapper": 1.0, "placeholder": true}}"#,
            r#"{"rigtrip": {"wrapper": null, "placeholder": null, "mesh": 3}}"#,
            r#"{"rigtrip": {"mesh": null}}"#,
            r#"{"rigtrip": {"skeleton": "x", "mesh": 2}}"#,
            r#"{"rigtrip": {}}"#,
            r#"{"rigtrip": null}"#,
            r#"{"other": 1}"#,
            r#"[{"rigtrip": {"skeleton": 1, "joint": 2}}]"#,
            r#"5"#,
        ]
        .map(String::from)
        .to_vec();
        // Each payload plain, with a number as a string, and with a hex value Blender would
        // not write.
        for (native, number) in [
            (table_joint, r#""unknown_00":5"#),
            (block_joint, r#""group":139"#),
        ] {
            texts.push(with(native));
            let (key, value) = number.split_once(':').unwrap();
            texts.push(with(&native.replacen(
                number,
                &format!("{key}:\"{value}\""),
                1,
            )));
            texts.push(with(&native.replacen("0x", "0X", 1)));
        }
        let formats = [None, by_name("hie"), by_name("mod")];
        let mut payloads = 0;
        for extras in &texts {
            let node = json!({"extras": serde_json::from_str::<Value>(extras).unwrap()});
            let inline = tag_of(0, "x", &node, None);
            let raw: &RawValue = serde_json::from_str(extras).unwrap();
            for format in formats {
                let typed = node_tag_typed(raw, format.map(|f| f.payloads()));
                let text = match &typed {
                    Some((tag, _)) => Ok(tag.clone()),
                    None => tag_of(0, "x", &bare, Some(raw)),
                };
                assert_eq!(text, inline, "{extras}");
                // A payload read typed is the one the value reader reads.
                let Some((_, Some(p))) = typed else { continue };
                let doc = json!({"nodes": [node]});
                let v = joint_native(doc.as_object().unwrap(), None, 0);
                let back = format.unwrap().joint_from_json(&v.unwrap(), "/n").unwrap();
                assert_eq!(p, back, "{extras}");
                payloads += 1;
            }
        }
        assert_eq!(payloads, 2);
    }

    #[test]
    fn tags_and_blender_strings() {
        let n = json!({"extras": {"rigtrip": "{'skeleton': 0, 'joint': 3, 'native': None}"}});
        assert_eq!(
            tag_of(0, "x", &n, None).unwrap(),
            Tag::Joint {
                skeleton: 0,
                joint: 3,
                native: true,
                offset: None,
                depth: None
            }
        );
        let n = json!({"extras": {"rigtrip": {"skeleton": "0", "joint": 2.0}}});
        assert!(matches!(
            tag_of(0, "x", &n, None).unwrap(),
            Tag::Joint {
                skeleton: 0,
                joint: 2,
                native: false,
                ..
            }
        ));
        let n = json!({"extras": {"rigtrip": {"skeleton": 1, "joint": 2, "offset": [1, -2, 3], "depth": 4}}});
        assert!(matches!(
            tag_of(0, "x", &n, None).unwrap(),
            Tag::Joint {
                offset: Some([1, -2, 3]),
                depth: Some(4),
                ..
            }
        ));
        let n = json!({"extras": {"rigtrip": {"skeleton": 1, "joint": 2, "offset": [1, 2]}}});
        assert_eq!(
            tag_of(0, "x", &n, None).unwrap_err().to_string(),
            "node 0 (x): extras.rigtrip.offset is [1,2], expected three 32-bit integers"
        );
        let n = json!({"extras": {"rigtrip": {"skeleton": 0, "joint": "abc"}}});
        assert_eq!(
            tag_of(4, "x", &n, None).unwrap_err().to_string(),
            "node 4 (x): extras.rigtrip.joint is \"abc\", expected a joint index"
        );
        assert_eq!(
            tag_of(
                0,
                "",
                &json!({"extras": {"rigtrip": {"proxy": true}}}),
                None
            )
            .unwrap(),
            Tag::Proxy
        );
        assert_eq!(
            tag_of(0, "", &json!({"extras": {"rigtrip": {"mesh": 1}}}), None).unwrap(),
            Tag::Mesh
        );
        assert_eq!(
            tag_of(0, "", &json!({"extras": {"other": 1}}), None).unwrap(),
            Tag::None
        );
        assert!(tag_of(0, "", &json!({"extras": {"rigtrip": 5}}), None).is_err());
    }
}
