//! Rig -> glTF document: skins, joint nodes, meshes (or proxies), extras.
//!
//! Joint k of a skeleton is `skin.joints[k]`, so `JOINTS_0` values are native joint indices.
//! Inverse bind matrices are computed from the f32 joint transforms actually written, so that
//! `world · IBM` is the identity to f32 precision for any reader.

use glam::{DMat4, DQuat, DVec3};
use serde::Serialize;
use std::borrow::Cow;

use crate::rig::extras::Native;
use crate::rig::{JointPayload, SkeletonPayload, Source};

use ::gltf_json as json;
use json::buffer::Target;
use json::mesh::{Mode, Primitive, Semantic};
use json::scene::UnitQuaternion;
use json::validation::Checked;
use json::{Index, Node};

use super::animation::{self, MotionFileTag};
use super::buffer::Builder;
use super::glb;
use super::names::{self, NameSet};
use super::proxy::skeleton_proxy;
use super::{
    ExportError, ExportOptions, ExportReport, Exported, JointRef, MeshInfo, MeshProblem,
    MotionInput, Part, SkinInfo, TransformProblem, VertexRef,
};
use crate::rig::format::Placement;
use crate::rig::mesh::Mesh;
use crate::rig::space::Space;
use crate::rig::{topological_order, Rig, Skeleton};

/// Smallest proxy width/radius, metres.
const PROXY_MIN_METRES: f64 = 0.005;
/// Version of the extras layout written to `scene.extras.rigtrip.schema`.
const SCHEMA: u32 = 1;
/// Largest total GLB size (its length field is a u32), with room for the headers.
const MAX_GLB: u64 = u32::MAX as u64 - 64;

/// Exports `rig` as a glTF document with one skin per non-empty skeleton.
pub fn export(rig: &Rig, opts: &ExportOptions) -> Result<Exported, ExportError> {
    export_with(rig, rig.meshes(), opts)
}

/// [`export`] with `meshes` (native units, bind space) in place of `rig.meshes()`: for geometry
/// that does not come from the rig's own file.
pub fn export_with(
    rig: &Rig,
    meshes: Vec<Mesh>,
    opts: &ExportOptions,
) -> Result<Exported, ExportError> {
    export_inner(rig, owned(meshes), &[], NO_TEXTURES, opts, Content::Full)
}

/// Meshes the export owns.
fn owned(meshes: Vec<Mesh>) -> Vec<Cow<'static, Mesh>> {
    meshes.into_iter().map(Cow::Owned).collect()
}

/// [`export`] with one animation per motion of `motions` on the rig's skeleton (which must be
/// its only one), and what the import needs to rebuild the motion files in the scene extras.
pub fn export_animated(
    rig: &Rig,
    motions: &[MotionInput],
    opts: &ExportOptions,
) -> Result<Exported, ExportError> {
    export_inner(
        rig,
        owned(rig.meshes()),
        motions,
        NO_TEXTURES,
        opts,
        Content::Full,
    )
}

/// [`export_animated`] with one image per texture of `images` (see [`super::texture`]): the
/// material the format names after a texture index shows that texture; with `archive`, the
/// archive the model and textures came from (see [`crate::rig::archive`]), and its other model
/// members `parts` shown beside the model (see [`Part`]).
pub fn export_textured(
    rig: &Rig,
    motions: &[MotionInput],
    images: &[super::texture::TextureImage],
    archive: Option<(&crate::rig::archive::ArchiveTag, &[Part])>,
    opts: &ExportOptions,
) -> Result<Exported, ExportError> {
    let meshes = owned(rig.meshes());
    let (archive, parts) = archive.map_or((None, &[][..]), |(t, p)| (Some(t), p));
    let textures = Textures {
        images,
        archive,
        parts,
    };
    export_inner(rig, meshes, motions, textures, opts, Content::Full)
}

/// [`export_with`] without what only a reader of the whole document needs: no extras (scene,
/// joints, meshes) and no proxies. The meshes, their accessors and the binary data are exactly
/// those of [`export_with`], and it refuses the same rigs (bar a proxy's own gate check): the
/// import's geometry comparison needs only those.
pub(crate) fn export_geometry(
    rig: &Rig,
    meshes: &[Mesh],
    opts: &ExportOptions,
) -> Result<Exported, ExportError> {
    let meshes = meshes.iter().map(Cow::Borrowed).collect();
    export_inner(rig, meshes, &[], NO_TEXTURES, opts, Content::Geometry)
}

/// The images of a document, the archive tag, if any, and the archive's other models.
#[derive(Clone, Copy)]
struct Textures<'a> {
    images: &'a [super::texture::TextureImage],
    archive: Option<&'a crate::rig::archive::ArchiveTag>,
    parts: &'a [Part],
}
/// No images, no archive.
const NO_TEXTURES: Textures<'static> = Textures {
    images: &[],
    archive: None,
    parts: &[],
};

/// What [`export_inner`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Content {
    /// The whole document.
    Full,
    /// Skins and meshes only (see [`export_geometry`]).
    Geometry,
}

impl Content {
    /// `v` as extras when the whole document is written.
    fn extras<T: Serialize>(self, v: &T) -> json::Extras {
        match self {
            Content::Full => extras(v),
            Content::Geometry => None,
        }
    }
}

/// The document under construction: its builder, the node names given out so far and the
/// report, with the space and content every step writes in.
struct Draft {
    b: Builder,
    nameset: NameSet,
    report: ExportReport,
    space: Space,
    content: Content,
    /// The archive part being written (see [`write_parts`]), `None` for the model itself.
    part: Option<String>,
}

/// Per skeleton: its skin and joint count, when it has joints.
type Skins = Vec<Option<(Index<json::Skin>, usize)>>;

fn export_inner(
    rig: &Rig,
    meshes: Vec<Cow<'_, Mesh>>,
    motions: &[MotionInput],
    textures: Textures<'_>,
    opts: &ExportOptions,
    content: Content,
) -> Result<Exported, ExportError> {
    let Textures { images, .. } = textures;
    let space = export_space(rig, opts)?;
    let mut report = ExportReport {
        space,
        ..ExportReport::default()
    };
    check_gates(rig)?;

    // Joint names first, so that the names asked for win over wrapper and mesh node names.
    let requested = names::requested(rig, opts.names.as_ref(), &mut report.names_missing)?;
    // Room for every name the export gives out: the joints, a wrapper and a proxy at most a
    // skeleton, a node a mesh, and the placeholder of an empty scene.
    let joints: usize = rig.skeletons.iter().map(|sk| sk.joints.len()).sum();
    let mut nameset = NameSet::with_capacity(joints + 2 * rig.skeletons.len() + meshes.len() + 1);
    let joint_names = claim_joint_names(rig, &requested, &mut nameset, &mut report);

    let mut b = Builder::default();
    // Inverse bind matrices: 64 bytes per joint (a failed reservation only costs regrowth).
    let ibm_bytes = rig
        .skeletons
        .iter()
        .map(|sk| sk.joints.len().saturating_mul(64))
        .fold(0, usize::saturating_add);
    let _ = b.bin.try_reserve_exact(ibm_bytes);
    let mut doc = Draft {
        b,
        nameset,
        report,
        space,
        content,
        part: None,
    };
    let WrittenSkeletons {
        mut scene_nodes,
        skins,
        joint_nodes,
    } = write_skeletons(&mut doc, rig, joint_names)?;
    let meshes = with_proxies(&mut doc, rig, meshes, &skins)?;
    write_mesh_nodes(&mut doc, &meshes, &skins, &mut scene_nodes)?;
    let archive = write_parts(&mut doc, rig, textures, &skins, &mut scene_nodes)?;
    let archive = archive.as_deref();

    let format = rig.source.format();
    let Draft { b, report, .. } = &mut doc;
    report.textures = super::texture::attach(b, images, |i| format.material_for_index(i));
    report.carried_models = archive.map(|t| t.carried_models()).unwrap_or_default();
    let written = animation::write_motions(b, rig, &joint_nodes, motions, space)?;
    report.animations = written.animations;
    report.carried_motions = written.carried;
    report.motion_misfits = written.misfits;

    if scene_nodes.is_empty() {
        scene_nodes.push(push_placeholder(&mut doc, rig));
    }
    write_scene(
        &mut doc.b,
        rig,
        scene_nodes,
        written.tags,
        archive,
        space,
        content,
    );
    finish(doc.b, doc.report)
}

/// The space the export writes in: the rig's default, with the scale asked for.
fn export_space(rig: &Rig, opts: &ExportOptions) -> Result<Space, ExportError> {
    let mut space = Space::default_for(rig);
    if let Some(s) = opts.scale {
        if !(s.is_finite() && s > 0.0) {
            return Err(ExportError::Scale(s));
        }
        space.scale = s;
    }
    Ok(space)
}

/// Refuses a rig with a skeleton that failed its gate.
fn check_gates(rig: &Rig) -> Result<(), ExportError> {
    for sk in &rig.skeletons {
        sk.gate.clone().map_err(|failure| ExportError::Gate {
            skeleton: sk.name.clone(),
            failure,
        })?;
    }
    Ok(())
}

/// Every skeleton's joint node names: the requested ones where free, else `{skeleton}_{k}`.
fn claim_joint_names(
    rig: &Rig,
    requested: &[Vec<Cow<str>>],
    nameset: &mut NameSet,
    report: &mut ExportReport,
) -> Vec<Vec<String>> {
    let mut joint_names: Vec<Vec<String>> = Vec::with_capacity(rig.skeletons.len());
    for (sk, req) in rig.skeletons.iter().zip(requested) {
        let names = req
            .iter()
            .enumerate()
            .map(|(k, want)| {
                nameset.claim(
                    || format!("{} joint {k}", sk.name),
                    want,
                    || format!("{}_{k}", sk.name),
                    &mut report.renamed,
                )
            })
            .collect();
        joint_names.push(names);
    }
    joint_names
}

/// What writing the skeletons gives the rest of the export.
struct WrittenSkeletons {
    /// The nodes to put at the scene root.
    scene_nodes: Vec<Index<Node>>,
    skins: Skins,
    /// Skeleton 0's joint nodes by joint index: what animations target.
    joint_nodes: Vec<Index<Node>>,
}

/// Writes every skeleton with joints (see [`write_skeleton`]).
fn write_skeletons(
    doc: &mut Draft,
    rig: &Rig,
    mut joint_names: Vec<Vec<String>>,
) -> Result<WrittenSkeletons, ExportError> {
    let mut scene_nodes: Vec<Index<Node>> = Vec::new();
    let mut skins: Skins = vec![None; rig.skeletons.len()];
    let mut joint_nodes: Vec<Index<Node>> = Vec::new();
    // Blender gives skins whose root joints share a parent (here: the scene root) one armature
    // between them, so with several skeletons each gets its own wrapper node (measured).
    let several = rig
        .skeletons
        .iter()
        .filter(|sk| !sk.joints.is_empty())
        .count()
        > 1
        // A part's skeleton never shares the scene root with the model's.
        || doc.part.is_some();
    for (s, sk) in rig.skeletons.iter().enumerate() {
        if sk.joints.is_empty() {
            continue;
        }
        let names = joint_names
            .get_mut(s)
            .map(std::mem::take)
            .unwrap_or_default();
        // Stored values the f32 TRS cannot always hold ride beside it: without them the import
        // could not tell a whole-unit move from float noise.
        let placements = match doc.content {
            Content::Full => rig.source.format().placements(s, sk),
            Content::Geometry => None,
        };
        let (skin, top, wrapper) = write_skeleton(doc, (s, sk), names, placements, several)?;
        scene_nodes.extend(top);
        if s == 0 {
            joint_nodes = doc
                .b
                .root
                .skins
                .get(skin.value())
                .map(|k| k.joints.clone())
                .unwrap_or_default();
        }
        skins[s] = Some((skin, sk.joints.len()));
        doc.report.skins.push(SkinInfo {
            skeleton: s,
            name: sk.name.clone(),
            joints: sk.joints.len(),
            wrapper,
            proxy: false,
            part: doc.part.clone(),
        });
    }
    Ok(WrittenSkeletons {
        scene_nodes,
        skins,
        joint_nodes,
    })
}

/// The geometry to write, each with whether it is a proxy: the rig's meshes, then (for the
/// whole document) a proxy for every skeleton with a skin no mesh is skinned to.
fn with_proxies<'m>(
    doc: &mut Draft,
    rig: &Rig,
    meshes: Vec<Cow<'m, Mesh>>,
    skins: &Skins,
) -> Result<Vec<(Cow<'m, Mesh>, bool)>, ExportError> {
    let mut meshes: Vec<(Cow<Mesh>, bool)> = meshes.into_iter().map(|m| (m, false)).collect();
    for (s, sk) in rig.skeletons.iter().enumerate() {
        if doc.content == Content::Geometry
            || skins.get(s).copied().flatten().is_none()
            || meshes.iter().any(|(m, _)| m.skeleton == Some(s))
        {
            continue;
        }
        let proxy =
            skeleton_proxy(s, sk, PROXY_MIN_METRES / doc.space.scale).map_err(|failure| {
                ExportError::Gate {
                    skeleton: sk.name.clone(),
                    failure,
                }
            })?;
        if let Some(m) = proxy {
            meshes.push((Cow::Owned(m), true));
            let part = doc.part.as_ref();
            let info = doc.report.skins.iter_mut();
            if let Some(info) = info
                .rev()
                .find(|i| i.skeleton == s && i.part.as_ref() == part)
            {
                info.proxy = true;
            }
        }
    }
    Ok(meshes)
}

/// Writes every part of `textures` beside `rig` (see [`write_part`]); the archive tag with
/// each part shown (as `MemberTag::Part`), when there is a tag.
fn write_parts<'t>(
    doc: &mut Draft,
    rig: &Rig,
    textures: Textures<'t>,
    skins: &Skins,
    scene_nodes: &mut Vec<Index<Node>>,
) -> Result<Option<Cow<'t, crate::rig::archive::ArchiveTag>>, ExportError> {
    let Some(tag) = textures.archive else {
        return Ok(None);
    };
    if textures.parts.is_empty() {
        return Ok(Some(Cow::Borrowed(tag)));
    }
    let mut tag = tag.clone();
    for part in textures.parts {
        let (scene, joints) = write_part(doc, rig, part, skins, scene_nodes)?;
        tag.show_part(part.offset, &part.name, scene, joints);
        doc.report.parts.push(part.name.clone());
    }
    Ok(Some(Cow::Owned(tag)))
}

/// Writes `part` into the document: its joints under a wrapper of their own and its meshes
/// skinned to them, or, when its skeleton is the model's (see [`shares_skeleton`]), its
/// meshes skinned to the model's joints. Every node is named `{part}/...` and tagged with the
/// part. Returns the part's scene tag and, when it shares the skeleton, its joint tags.
fn write_part(
    doc: &mut Draft,
    rig: &Rig,
    part: &Part,
    skins: &Skins,
    scene_nodes: &mut Vec<Index<Node>>,
) -> Result<(serde_json::Value, Vec<serde_json::Value>), ExportError> {
    check_gates(&part.rig)?;
    let shared = shares_skeleton(rig, &part.rig, doc.space);
    // On the model's joints it keeps its skeleton's names: they are the model's.
    let p = match shared {
        true => Cow::Borrowed(&part.rig),
        false => Cow::Owned(named_part(&part.rig, &part.name)),
    };
    let outer = doc.part.replace(part.name.clone());
    let named: Vec<Cow<Mesh>> = p
        .meshes()
        .into_iter()
        .map(|mut m| {
            m.name = format!("{}/{}", part.name, m.name);
            Cow::Owned(m)
        })
        .collect();
    let (part_skins, joints, meshes) = if shared {
        let meshes = named.into_iter().map(|m| (m, false)).collect();
        (skins.clone(), joint_tags(&p)?, meshes)
    } else {
        let requested = names::requested(&p, None, &mut doc.report.names_missing)?;
        let joint_names = claim_joint_names(&p, &requested, &mut doc.nameset, &mut doc.report);
        let written = write_skeletons(doc, &p, joint_names)?;
        scene_nodes.extend(written.scene_nodes);
        let meshes = with_proxies(doc, &p, named, &written.skins)?;
        (written.skins, Vec::new(), meshes)
    };
    write_mesh_nodes(doc, &meshes, &part_skins, scene_nodes)?;
    doc.part = outer;
    let scene = scene_tag(&p, doc.space, Vec::new(), None);
    let scene = serde_json::to_value(&scene).map_err(|e| ExportError::Extras(e.to_string()))?;
    Ok((scene, joints))
}

/// `rig` with its skeletons and the joints named the default way renamed `{part}/...`.
fn named_part(rig: &Rig, part: &str) -> Rig {
    let mut p = rig.clone();
    for sk in &mut p.skeletons {
        let name = format!("{part}/{}", sk.name);
        for (k, j) in sk.joints.iter_mut().enumerate() {
            j.name = match j.name == crate::rig::joint_name(&sk.name, k) {
                true => crate::rig::joint_name(&name, k),
                false => format!("{part}/{}", j.name),
            };
        }
        sk.name = name;
    }
    p
}

/// Whether `part`'s only skeleton is `rig`'s first as written: the same joint count and
/// parents, and every joint's written translation and rotation bit for bit.
fn shares_skeleton(rig: &Rig, part: &Rig, space: Space) -> bool {
    let (Some(a), [b]) = (rig.skeletons.first(), part.skeletons.as_slice()) else {
        return false;
    };
    let written = |j: &crate::rig::Joint| {
        written_trs(space, j.translation, j.rotation)
            .ok()
            .map(|w| (w.translation, w.rotation))
    };
    a.joints.len() == b.joints.len()
        && a.joints
            .iter()
            .zip(&b.joints)
            .all(|(x, y)| x.parent == y.parent && written(x).is_some_and(|w| Some(w) == written(y)))
}

/// The `extras.rigtrip` of each joint node of `rig`'s first skeleton, as a value.
fn joint_tags(rig: &Rig) -> Result<Vec<serde_json::Value>, ExportError> {
    let Some(sk) = rig.skeletons.first() else {
        return Ok(Vec::new());
    };
    let placements = rig.source.format().placements(0, sk);
    sk.joints
        .iter()
        .enumerate()
        .map(|(k, j)| {
            let placement = placements.as_ref().and_then(|p| p.get(k));
            serde_json::to_value(JointTag::of(0, k, j, placement, None))
                .map_err(|e| ExportError::Extras(e.to_string()))
        })
        .collect()
}

/// Writes every mesh (see [`write_mesh`]) and a scene root node for each one written.
fn write_mesh_nodes(
    doc: &mut Draft,
    meshes: &[(Cow<Mesh>, bool)],
    skins: &Skins,
    scene_nodes: &mut Vec<Index<Node>>,
) -> Result<(), ExportError> {
    let mesh_total = meshes
        .iter()
        .map(|(m, _)| mesh_bytes(m))
        .fold(0, usize::saturating_add);
    let _ = doc.b.bin.try_reserve_exact(mesh_total);
    for (i, (m, proxy)) in meshes.iter().enumerate() {
        let written = write_mesh(doc, i, m, skins)?;
        doc.report.meshes.push(MeshInfo {
            name: m.name.clone(),
            skeleton: m.skeleton,
            proxy: *proxy,
            vertices: m.positions.len(),
            triangles: m.triangles.len(),
            gltf_mesh: written.map(|(mesh, _)| mesh.value()),
            part: doc.part.clone(),
        });
        let Some((mesh, skin)) = written else {
            continue;
        };
        scene_nodes.push(push_mesh_node(doc, i, m, *proxy, mesh, skin));
    }
    Ok(())
}

/// Adds the node of mesh `i` (tagged as the rig's mesh or as a proxy).
fn push_mesh_node(
    doc: &mut Draft,
    i: usize,
    m: &Mesh,
    proxy: bool,
    mesh: Index<json::Mesh>,
    skin: Option<Index<json::Skin>>,
) -> Index<Node> {
    let tag = if proxy {
        doc.content.extras(&Tagged {
            rigtrip: ProxyTag {
                proxy: true,
                skeleton: m.skeleton,
                part: doc.part.as_deref(),
            },
        })
    } else {
        doc.content.extras(&Tagged {
            rigtrip: MeshTag {
                mesh: i,
                part: doc.part.as_deref(),
            },
        })
    };
    let name = doc.nameset.claim(
        || format!("mesh {i}"),
        &m.name,
        || format!("mesh{i}"),
        &mut doc.report.renamed,
    );
    // At the scene root without a transform: parent transforms do not apply to skinned meshes.
    doc.b.root.push(Node {
        name: Some(name),
        mesh: Some(mesh),
        skin,
        extras: tag,
        ..empty_node()
    })
}

/// Adds the node of a scene that would have none.
///
/// A scene without nodes omits `nodes`, which readers such as the `gltf` crate reject; the
/// scene must exist because it carries the file-level extras.
fn push_placeholder(doc: &mut Draft, rig: &Rig) -> Index<Node> {
    let name = doc.nameset.claim(
        || "placeholder".into(),
        rig.kind(),
        || "rigtrip".into(),
        &mut doc.report.renamed,
    );
    doc.b.root.push(Node {
        name: Some(name),
        extras: doc.content.extras(&Tagged {
            rigtrip: PlaceholderTag { placeholder: true },
        }),
        ..empty_node()
    })
}

/// Adds the scene (with the file-level extras) and the asset.
fn write_scene(
    b: &mut Builder,
    rig: &Rig,
    scene_nodes: Vec<Index<Node>>,
    motion_tags: Vec<MotionFileTag>,
    archive: Option<&crate::rig::archive::ArchiveTag>,
    space: Space,
    content: Content,
) {
    let scene_extras = Tagged {
        rigtrip: scene_tag(rig, space, motion_tags, archive),
    };
    let scene = b.root.push(json::Scene {
        extensions: None,
        extras: content.extras(&scene_extras),
        name: Some(rig.kind().to_string()),
        nodes: scene_nodes,
    });
    b.root.scene = Some(scene);
    b.root.asset = json::Asset {
        generator: Some(format!("rigtrip {}", env!("CARGO_PKG_VERSION"))),
        version: "2.0".into(),
        ..json::Asset::default()
    };
}

/// `scene.extras.rigtrip` of `rig`.
fn scene_tag<'a>(
    rig: &'a Rig,
    space: Space,
    motions: Vec<MotionFileTag>,
    archive: Option<&'a crate::rig::archive::ArchiveTag>,
) -> SceneTag<'a> {
    SceneTag {
        format: rig.kind(),
        schema: SCHEMA,
        space: SpaceTag {
            scale: space.scale,
            rotation: space.rotation.name(),
        },
        source: Native(&rig.source),
        skeletons: SkeletonTags(&rig.skeletons),
        motions,
        archive,
    }
}

/// The finished document, refused when its GLB would exceed [`MAX_GLB`].
fn finish(b: Builder, report: ExportReport) -> Result<Exported, ExportError> {
    let (root, bin) = b.finish();
    // The exact JSON length takes a serialisation; a cheap upper bound settles almost every case.
    let json_len = match glb::json_len_bound(&root) {
        Some(bound) if (bin.len() as u64).saturating_add(bound) <= MAX_GLB => bound,
        _ => glb::json_len(&root),
    };
    let total = bin.len() as u64 + json_len;
    if total > MAX_GLB {
        return Err(ExportError::TooLarge(total));
    }
    Ok(Exported { root, bin, report })
}

/// A skeleton's skin, the nodes it puts at the scene root, and whether it got a wrapper.
type WrittenSkeleton = (Index<json::Skin>, Vec<Index<Node>>, bool);
/// A joint's local translation and rotation (x, y, z, w) as written.
type LocalTrs = ([f32; 3], [f32; 4]);
/// A written mesh and its skin (for skinned meshes).
type WrittenMesh = (Index<json::Mesh>, Option<Index<json::Skin>>);

fn empty_node() -> Node {
    Node {
        camera: None,
        children: None,
        extensions: None,
        extras: None,
        matrix: None,
        mesh: None,
        name: None,
        rotation: None,
        scale: None,
        translation: None,
        skin: None,
        weights: None,
    }
}

/// `v` serialised straight into glTF extras (no `serde_json::Value` tree on the way).
fn extras<T: Serialize>(v: &T) -> json::Extras {
    serde_json::value::to_raw_value(v).ok()
}

/// Everything rigtrip writes into extras sits under this one key.
#[derive(Serialize)]
struct Tagged<T> {
    rigtrip: T,
}

/// `scene.extras.rigtrip`: the file.
#[derive(Serialize)]
struct SceneTag<'a> {
    format: &'a str,
    schema: u32,
    space: SpaceTag,
    source: Native<'a, Source>,
    skeletons: SkeletonTags<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    motions: Vec<MotionFileTag>,
    #[serde(skip_serializing_if = "Option::is_none")]
    archive: Option<&'a crate::rig::archive::ArchiveTag>,
}

/// `scene.extras.rigtrip.space` (the same value as [`Space::to_json`]).
#[derive(Serialize)]
struct SpaceTag {
    scale: f64,
    rotation: &'static str,
}

/// `scene.extras.rigtrip.skeletons`: every skeleton's name, joint count and payload.
struct SkeletonTags<'a>(&'a [Skeleton]);

impl Serialize for SkeletonTags<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct One<'a> {
            name: &'a str,
            joints: usize,
            native: Native<'a, SkeletonPayload>,
        }
        s.collect_seq(self.0.iter().map(|sk| One {
            name: &sk.name,
            joints: sk.joints.len(),
            native: Native(&sk.native),
        }))
    }
}

/// A joint node's `extras.rigtrip`.
#[derive(Serialize)]
struct JointTag<'a> {
    skeleton: usize,
    joint: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<[i32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    depth: Option<u16>,
    native: Native<'a, JointPayload>,
    #[serde(skip_serializing_if = "Option::is_none")]
    part: Option<&'a str>,
}

impl<'a> JointTag<'a> {
    /// The tag of joint `k` of skeleton `s`, with its stored placement when the format keeps
    /// one, in `part` (`None`: the model's own).
    fn of(
        s: usize,
        k: usize,
        j: &'a crate::rig::Joint,
        placement: Option<&Placement>,
        part: Option<&'a str>,
    ) -> Self {
        JointTag {
            skeleton: s,
            joint: k,
            offset: placement.map(|p| p.offset),
            depth: placement.map(|p| p.depth),
            native: Native(&j.native),
            part,
        }
    }
}

/// A wrapper node's `extras.rigtrip`.
#[derive(Serialize)]
struct WrapperTag<'a> {
    skeleton: usize,
    wrapper: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    part: Option<&'a str>,
}

/// A rig mesh node's `extras.rigtrip`.
#[derive(Serialize)]
struct MeshTag<'a> {
    mesh: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    part: Option<&'a str>,
}

/// A proxy mesh node's `extras.rigtrip` (a proxy always has its skeleton).
#[derive(Serialize)]
struct ProxyTag<'a> {
    proxy: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    skeleton: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    part: Option<&'a str>,
}

/// The placeholder node's `extras.rigtrip`.
#[derive(Serialize)]
struct PlaceholderTag {
    placeholder: bool,
}

/// `x` as f32 with negative zero made positive (a flipped axis turns 0 into -0).
fn f32_of(x: f64) -> f32 {
    x as f32 + 0.0
}

/// A joint's local transform exactly as the export writes it (glTF space, f32).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct WrittenTrs {
    /// `translation` of the node.
    pub translation: [f32; 3],
    /// `rotation` of the node (x, y, z, w), normalised.
    pub rotation: [f32; 4],
    /// Whether the rotation was not a unit quaternion to 1e-9 and had to be normalised.
    pub normalised: bool,
}

/// The node TRS the export writes for a joint with IR `translation` and `rotation` (the import
/// compares incoming values against it to tell float noise from edits).
pub(crate) fn written_trs(
    space: Space,
    translation: DVec3,
    rotation: DQuat,
) -> Result<WrittenTrs, TransformProblem> {
    let t = space.point(translation);
    let t32 = [f32_of(t.x), f32_of(t.y), f32_of(t.z)];
    if !t32.iter().all(|c| c.is_finite()) {
        return Err(TransformProblem::Translation(t.to_array()));
    }
    let q = space.rotation(rotation);
    let len = q.length();
    if !(len.is_finite() && len > 1e-6) {
        return Err(TransformProblem::Rotation {
            rotation: rotation.to_array(),
            length: len,
        });
    }
    let q = q / len;
    Ok(WrittenTrs {
        translation: t32,
        rotation: [f32_of(q.x), f32_of(q.y), f32_of(q.z), f32_of(q.w)],
        normalised: (len - 1.0).abs() > 1e-9,
    })
}

/// Writes one skeleton's joint nodes (and wrapper), its IBMs and its skin. Returns the skin, the
/// nodes to put at the scene root, and whether a wrapper was added (always when `wrap`, else
/// only for several roots).
fn write_skeleton(
    doc: &mut Draft,
    (s, sk): (usize, &Skeleton),
    names: Vec<String>,
    placements: Option<Vec<Placement>>,
    wrap: bool,
) -> Result<WrittenSkeleton, ExportError> {
    let n = sk.joints.len();
    let trs = written_locals(s, sk, doc.space, &mut doc.report)?;
    let ibms = inverse_binds(sk, &trs)?;

    let roots: Vec<usize> = sk.roots().collect();
    // Joints without a common root are a validator error (SKIN_NO_COMMON_ROOT).
    let wrapper = wrap || roots.len() > 1;
    let wrapper_node = wrapper.then(|| push_wrapper(doc, s, sk));
    let b = &mut doc.b;
    let base = b.root.nodes.len();
    let node_of = |k: usize| Index::<Node>::new((base + k) as u32);
    let tagging = (doc.content, doc.part.as_deref());
    push_joint_nodes(b, (s, sk), names, placements, &trs, tagging);
    let top: Vec<Index<Node>> = match wrapper_node {
        Some(w) => {
            if let Some(node) = b.root.nodes.get_mut(w.value()) {
                node.children = Some(roots.iter().map(|&r| node_of(r)).collect());
            }
            vec![w]
        }
        None => roots.iter().map(|&r| node_of(r)).collect(),
    };
    let ibm = b.floats(&ibms, None, false, "");
    let skin = b.root.push(json::Skin {
        extensions: None,
        extras: None,
        inverse_bind_matrices: Some(ibm),
        joints: (0..n).map(node_of).collect(),
        name: Some(sk.name.clone()),
        skeleton: top.first().copied(),
    });
    Ok((skin, top, wrapper))
}

/// The error for joint `k` of `sk`.
fn joint_error(sk: &Skeleton, k: usize, problem: TransformProblem) -> ExportError {
    ExportError::Joint {
        skeleton: sk.name.clone(),
        joint: k,
        name: sk.joints.get(k).map(|j| j.name.clone()).unwrap_or_default(),
        problem,
    }
}

/// Every joint's local TRS in glTF space, as the f32 values that will be written (see
/// [`written_trs`]); the joints whose rotation had to be normalised go to the report.
fn written_locals(
    s: usize,
    sk: &Skeleton,
    space: Space,
    report: &mut ExportReport,
) -> Result<Vec<LocalTrs>, ExportError> {
    let mut trs: Vec<LocalTrs> = Vec::with_capacity(sk.joints.len());
    for (k, j) in sk.joints.iter().enumerate() {
        let written =
            written_trs(space, j.translation, j.rotation).map_err(|e| joint_error(sk, k, e))?;
        if written.normalised {
            report.normalised_rotations.push(JointRef {
                skeleton: s,
                joint: k,
            });
        }
        trs.push((written.translation, written.rotation));
    }
    Ok(trs)
}

/// The inverse bind matrices of `sk`: the inverses of the world matrices composed from the
/// written local values `trs`, parents first.
fn inverse_binds(sk: &Skeleton, trs: &[LocalTrs]) -> Result<Vec<[f32; 16]>, ExportError> {
    let n = sk.joints.len();
    let order = topological_order(&sk.joints).map_err(|failure| ExportError::Gate {
        skeleton: sk.name.clone(),
        failure,
    })?;
    let mut world = vec![DMat4::IDENTITY; n];
    for k in order {
        let (t, q) = trs[k];
        let q = DQuat::from_xyzw(q[0].into(), q[1].into(), q[2].into(), q[3].into()).normalize();
        let t = DVec3::new(t[0].into(), t[1].into(), t[2].into());
        let local = DMat4::from_rotation_translation(q, t);
        world[k] = match sk.joints[k].parent {
            Some(p) if p < n => world[p] * local,
            _ => local,
        };
    }
    let mut ibms: Vec<[f32; 16]> = Vec::with_capacity(n);
    for (k, w) in world.iter().enumerate() {
        let inv = w.inverse();
        let mut m = inv.to_cols_array().map(f32_of);
        // Affine: the validator wants the last row exactly (0, 0, 0, 1).
        m[3] = 0.0;
        m[7] = 0.0;
        m[11] = 0.0;
        m[15] = 1.0;
        if !(w.is_finite() && m.iter().all(|x| x.is_finite())) {
            return Err(joint_error(sk, k, TransformProblem::RestWorld));
        }
        ibms.push(m);
    }
    Ok(ibms)
}

/// Adds the wrapper node of skeleton `s` (its children are set once the joints exist).
fn push_wrapper(doc: &mut Draft, s: usize, sk: &Skeleton) -> Index<Node> {
    let name = doc.nameset.claim(
        || format!("wrapper {}", sk.name),
        &sk.name,
        || format!("skeleton{s}"),
        &mut doc.report.renamed,
    );
    doc.b.root.push(Node {
        name: Some(name),
        extras: doc.content.extras(&Tagged {
            rigtrip: WrapperTag {
                skeleton: s,
                wrapper: true,
                part: doc.part.as_deref(),
            },
        }),
        ..empty_node()
    })
}

/// Adds one node per joint of `sk`, in joint order from the next free node, with its name,
/// children, written TRS and tag.
fn push_joint_nodes(
    b: &mut Builder,
    (s, sk): (usize, &Skeleton),
    names: Vec<String>,
    placements: Option<Vec<Placement>>,
    trs: &[LocalTrs],
    (content, part): (Content, Option<&str>),
) {
    let n = sk.joints.len();
    let base = b.root.nodes.len();
    let node_of = |k: usize| Index::<Node>::new((base + k) as u32);
    let mut children: Vec<Vec<Index<Node>>> = vec![Vec::new(); n];
    for (k, j) in sk.joints.iter().enumerate() {
        if let Some(c) = j.parent.and_then(|p| children.get_mut(p)) {
            c.push(node_of(k));
        }
    }
    let mut names = names.into_iter();
    b.root.nodes.reserve(n);
    for (k, (j, ((t, q), kids))) in sk.joints.iter().zip(trs.iter().zip(children)).enumerate() {
        let placement = placements.as_ref().and_then(|p| p.get(k));
        let tag = Tagged {
            rigtrip: JointTag::of(s, k, j, placement, part),
        };
        b.root.push(Node {
            name: names.next(),
            children: if kids.is_empty() { None } else { Some(kids) },
            translation: if *t == [0.0; 3] { None } else { Some(*t) },
            rotation: if *q == [0.0, 0.0, 0.0, 1.0] {
                None
            } else {
                Some(UnitQuaternion(*q))
            },
            extras: content.extras(&tag),
            ..empty_node()
        });
    }
}

/// At least the bytes [`write_mesh`] appends for `m`, padding included.
fn mesh_bytes(m: &Mesh) -> usize {
    let n = m.positions.len();
    let per_vertex = 12
        + if m.normals.is_empty() { 0 } else { 12 }
        + if m.uvs.is_empty() { 0 } else { 8 }
        + if m.colors.is_empty() { 0 } else { 16 }
        + if m.joints.is_empty() { 0 } else { 8 + 16 };
    n.saturating_mul(per_vertex)
        .saturating_add(m.triangles.len().saturating_mul(12))
        .saturating_add(6 * 3)
}

/// Writes mesh `i` as one primitive; `None` when it has no vertices or no triangles. Returns the
/// mesh and, for a skinned one, its skin.
fn write_mesh(
    doc: &mut Draft,
    i: usize,
    m: &Mesh,
    skins: &[Option<(Index<json::Skin>, usize)>],
) -> Result<Option<WrittenMesh>, ExportError> {
    let err = |problem: MeshProblem| ExportError::Mesh {
        mesh: i,
        name: m.name.clone(),
        problem,
    };
    let skin = mesh_skin(m, skins).map_err(err)?;
    check_mesh(m, skin.is_some()).map_err(err)?;
    if m.positions.is_empty() || m.triangles.is_empty() {
        return Ok(None);
    }
    check_triangles(m).map_err(err)?;
    let report = &mut doc.report;
    let positions = written_positions(m, doc.space).map_err(err)?;
    let normals = written_normals(i, m, doc.space, &positions, report);
    let uvs = written_uvs(m).map_err(err)?;
    let colors = written_colors(i, m, report);
    let influences = match skin {
        None => None,
        Some((_, joint_count)) => Some(written_influences(i, m, joint_count, report).map_err(err)?),
    };

    let b = &mut doc.b;
    let mut attributes = std::collections::BTreeMap::new();
    let array = Some(Target::ArrayBuffer);
    attributes.insert(
        Checked::Valid(Semantic::Positions),
        b.floats(&positions, array, true, ""),
    );
    if let Some(normals) = normals {
        attributes.insert(
            Checked::Valid(Semantic::Normals),
            b.floats(&normals, array, false, ""),
        );
    }
    if !uvs.is_empty() {
        attributes.insert(
            Checked::Valid(Semantic::TexCoords(0)),
            b.floats(&uvs, array, false, ""),
        );
    }
    if !colors.is_empty() {
        attributes.insert(
            Checked::Valid(Semantic::Colors(0)),
            b.floats(&colors, array, false, ""),
        );
    }
    if let Some((js, ws, wide)) = influences {
        attributes.insert(Checked::Valid(Semantic::Joints(0)), b.joints(&js, wide, ""));
        attributes.insert(
            Checked::Valid(Semantic::Weights(0)),
            b.floats(&ws, array, false, ""),
        );
    }
    let indices = b.indices(&m.triangles, "");
    let material = m.material.as_deref().map(|name| material(b, name));
    let mesh = b.root.push(json::Mesh {
        extensions: None,
        extras: None,
        name: Some(m.name.clone()).filter(|s| !s.is_empty()),
        primitives: vec![Primitive {
            attributes,
            extensions: None,
            extras: None,
            indices: Some(indices),
            material,
            mode: Checked::Valid(Mode::Triangles),
            targets: None,
        }],
        weights: None,
    });
    Ok(Some((mesh, skin.map(|(s, _)| s))))
}

/// The skin (and its joint count) of the skeleton `m` is skinned to, if any; that skeleton
/// must exist and have joints.
fn mesh_skin(
    m: &Mesh,
    skins: &[Option<(Index<json::Skin>, usize)>],
) -> Result<Option<(Index<json::Skin>, usize)>, MeshProblem> {
    match m.skeleton {
        None => Ok(None),
        Some(s) => match skins.get(s) {
            Some(Some(skin)) => Ok(Some(*skin)),
            Some(None) => Err(MeshProblem::NoJoints(s)),
            None => Err(MeshProblem::NoSkeleton {
                skeleton: s,
                skeletons: skins.len(),
            }),
        },
    }
}

/// Refuses per-vertex attributes whose count is not the vertex count (influences only
/// matter when `skinned`).
fn check_mesh(m: &Mesh, skinned: bool) -> Result<(), MeshProblem> {
    let n = m.positions.len();
    for (what, len) in [
        ("normals", m.normals.len()),
        ("uvs", m.uvs.len()),
        ("colors", m.colors.len()),
    ] {
        if len != 0 && len != n {
            return Err(MeshProblem::AttributeCount {
                what,
                len,
                vertices: n,
            });
        }
    }
    if skinned && (m.joints.len() != n || m.weights.len() != n) {
        return Err(MeshProblem::InfluenceCount {
            joints: m.joints.len(),
            weights: m.weights.len(),
            vertices: n,
        });
    }
    Ok(())
}

/// Refuses more vertices than 32-bit indices reach and triangles using a vertex that is not
/// there.
fn check_triangles(m: &Mesh) -> Result<(), MeshProblem> {
    let n = m.positions.len();
    if n > u32::MAX as usize {
        return Err(MeshProblem::TooManyVertices(n));
    }
    for (t, tri) in m.triangles.iter().enumerate() {
        if let Some(&v) = tri.iter().find(|&&v| v as usize >= n) {
            return Err(MeshProblem::VertexPastEnd {
                triangle: t,
                vertex: v,
                vertices: n,
            });
        }
    }
    Ok(())
}

/// The positions as written: in glTF space, f32, refused where not finite.
fn written_positions(m: &Mesh, space: Space) -> Result<Vec<[f32; 3]>, MeshProblem> {
    let mut positions: Vec<[f32; 3]> = Vec::with_capacity(m.positions.len());
    for (v, p) in m.positions.iter().enumerate() {
        let q = space.point(DVec3::from_array(*p));
        let q = [f32_of(q.x), f32_of(q.y), f32_of(q.z)];
        if !q.iter().all(|c| c.is_finite()) {
            return Err(MeshProblem::Position {
                vertex: v,
                position: *p,
            });
        }
        positions.push(q);
    }
    Ok(positions)
}

/// The normals as written (none when the mesh has none): unit vectors in glTF space, where one
/// cannot be normalised the face normal (or +Y), reported as fixed.
fn written_normals(
    i: usize,
    m: &Mesh,
    space: Space,
    positions: &[[f32; 3]],
    report: &mut ExportReport,
) -> Option<Vec<[f32; 3]>> {
    if m.normals.is_empty() {
        return None;
    }
    let mut face: Option<Vec<DVec3>> = None;
    let mut out = Vec::with_capacity(m.positions.len());
    for (v, nv) in m.normals.iter().enumerate() {
        let d = space.direction(DVec3::from_array(*nv));
        let len = d.length();
        let unit = if len.is_finite() && len > 0.0 && (d / len).is_finite() {
            d / len
        } else {
            report.fixed_normals.push(VertexRef { mesh: i, vertex: v });
            let face = face.get_or_insert_with(|| face_normals(positions, &m.triangles));
            face.get(v)
                .copied()
                .filter(|f| *f != DVec3::ZERO)
                .unwrap_or(DVec3::Y)
        };
        out.push([f32_of(unit.x), f32_of(unit.y), f32_of(unit.z)]);
    }
    Some(out)
}

/// The UVs as written (f32), refused where not finite.
fn written_uvs(m: &Mesh) -> Result<Vec<[f32; 2]>, MeshProblem> {
    let mut uvs: Vec<[f32; 2]> = Vec::with_capacity(m.uvs.len());
    for (v, uv) in m.uvs.iter().enumerate() {
        let q = [f32_of(uv[0]), f32_of(uv[1])];
        if !q.iter().all(|c| c.is_finite()) {
            return Err(MeshProblem::Uv { vertex: v, uv: *uv });
        }
        uvs.push(q);
    }
    Ok(uvs)
}

/// The colours as written: clamped to 0..=1 (non-finite to 0), the clamped ones reported.
fn written_colors(i: usize, m: &Mesh, report: &mut ExportReport) -> Vec<[f32; 4]> {
    let mut colors: Vec<[f32; 4]> = Vec::with_capacity(m.colors.len());
    for (v, c) in m.colors.iter().enumerate() {
        let mut clamped = false;
        let q = c.map(|x| {
            let y = if x.is_finite() {
                x.clamp(0.0, 1.0)
            } else {
                0.0
            };
            clamped |= y != x;
            f32_of(y)
        });
        if clamped {
            report.clamped_colors.push(VertexRef { mesh: i, vertex: v });
        }
        colors.push(q);
    }
    colors
}

/// Every vertex's joints and weights as written, and whether the joints need 16 bits.
type Influences = (Vec<[u16; 4]>, Vec<[f32; 4]>, bool);

/// Every vertex's joints and weights as written (see [`influence`]), and whether the joints
/// need 16 bits (more than 256 joints).
fn written_influences(
    i: usize,
    m: &Mesh,
    joint_count: usize,
    report: &mut ExportReport,
) -> Result<Influences, MeshProblem> {
    let n = m.positions.len();
    let mut js = Vec::with_capacity(n);
    let mut ws = Vec::with_capacity(n);
    for (v, (j, w)) in m.joints.iter().zip(&m.weights).enumerate() {
        let (j, w) = influence(i, v, *j, *w, joint_count, report)?;
        js.push(j);
        ws.push(w);
    }
    Ok((js, ws, joint_count > 256))
}

/// The material named `name`, added the first time a mesh names it (a plain material: the
/// name is what carries meaning, e.g. DMC3's `texture_N`).
fn material(b: &mut Builder, name: &str) -> Index<json::Material> {
    if let Some(i) = b
        .root
        .materials
        .iter()
        .position(|m| m.name.as_deref() == Some(name))
    {
        return Index::new(i as u32);
    }
    b.root.push(json::Material {
        name: Some(name.to_string()),
        ..json::Material::default()
    })
}

/// Area-weighted face normals summed per vertex, normalised (zero where no face has an area).
fn face_normals(positions: &[[f32; 3]], triangles: &[[u32; 3]]) -> Vec<DVec3> {
    let mut acc = vec![DVec3::ZERO; positions.len()];
    let p = |v: u32| {
        positions
            .get(v as usize)
            .map(|q| DVec3::new(q[0].into(), q[1].into(), q[2].into()))
            .unwrap_or(DVec3::ZERO)
    };
    for t in triangles {
        let n = (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0]));
        for &v in t {
            if let Some(a) = acc.get_mut(v as usize) {
                *a += n;
            }
        }
    }
    acc.into_iter().map(|a| a.normalize_or_zero()).collect()
}

/// One vertex's influences as written: duplicates merged, negative and non-finite weights
/// dropped, normalised so that the f32 sum (accumulated in slot order, as the Khronos validator
/// does) is 1, unused slots joint 0 weight 0.
fn influence(
    mesh: usize,
    v: usize,
    joints: [u16; 4],
    weights: [f64; 4],
    joint_count: usize,
    report: &mut ExportReport,
) -> Result<([u16; 4], [f32; 4]), MeshProblem> {
    // Rigid binding (every proxy vertex): what the general path below gives, without its work.
    if weights == [1.0, 0.0, 0.0, 0.0] && usize::from(joints[0]) < joint_count {
        return Ok(([joints[0], 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
    }
    let at = VertexRef { mesh, vertex: v };
    // At most four distinct joints: a fixed array, no allocation per vertex.
    let mut acc = [(0u16, 0f64); 4];
    let mut used = 0usize;
    let (mut merged, mut dropped) = (false, false);
    for (slot, (&j, &w)) in joints.iter().zip(&weights).enumerate() {
        if !(w.is_finite() && w >= 0.0) {
            dropped = true;
            continue;
        }
        if w == 0.0 {
            continue;
        }
        if usize::from(j) >= joint_count {
            return Err(MeshProblem::JointPastEnd {
                vertex: v,
                slot,
                joint: j,
                weight: w,
                joints: joint_count,
            });
        }
        match acc.iter_mut().take(used).find(|(a, _)| *a == j) {
            Some(e) => {
                e.1 += w;
                merged = true;
            }
            None => {
                if let Some(e) = acc.get_mut(used) {
                    *e = (j, w);
                    used += 1;
                }
            }
        }
    }
    if merged {
        report.merged_joints.push(at);
    }
    if dropped {
        report.dropped_weights.push(at);
    }
    if used == 1 {
        // One joint: weight 1 whatever its value, as the general path below gives.
        return Ok(([acc[0].0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
    }
    if used == 0 {
        let first = joints[0];
        if usize::from(first) >= joint_count {
            return Err(MeshProblem::ZeroWeightJointPastEnd {
                vertex: v,
                joint: first,
                joints: joint_count,
            });
        }
        report.zero_weight_vertices.push(at);
        acc[0] = (first, 1.0);
        used = 1;
    }
    Ok(normalised(acc.get(..used).unwrap_or(&[])))
}

/// Distinct joints with positive weights as written: weights normalised so that their f32 sum,
/// accumulated in slot order, is 1; a weight too small for f32 dropped.
fn normalised(acc: &[(u16, f64)]) -> ([u16; 4], [f32; 4]) {
    // Divide by the largest first so that huge weights cannot overflow the sum.
    let largest = acc.iter().map(|e| e.1).fold(0.0, f64::max);
    let sum: f64 = acc.iter().map(|e| e.1 / largest).sum();
    let mut out_j = [0u16; 4];
    let mut out_w = [0f32; 4];
    let mut slot = 0;
    for &(j, w) in acc {
        let w = (w / largest / sum) as f32;
        // A weight too small for f32 would leave a joint used with zero weight (a warning).
        if w > 0.0 {
            if let (Some(oj), Some(ow)) = (out_j.get_mut(slot), out_w.get_mut(slot)) {
                *oj = j;
                *ow = w;
                slot += 1;
            }
        }
    }
    // Put the f32 rounding error on the largest weight (at least 1/4, so it stays positive).
    let big = (0..4)
        .max_by(|&a, &b| out_w[a].total_cmp(&out_w[b]))
        .unwrap_or(0);
    for _ in 0..4 {
        let s = out_w.iter().fold(0f32, |s, &w| s + w);
        if s == 1.0 {
            break;
        }
        out_w[big] = (f64::from(out_w[big]) + (1.0 - f64::from(s))) as f32;
    }
    (out_j, out_w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each rig mesh's primitive as (semantic, accessor JSON without its view, element bytes).
    fn mesh_data(e: &Exported) -> Vec<Vec<(String, String, Vec<u8>)>> {
        let root = &e.root;
        let bytes_of = |a: &json::Accessor| -> Vec<u8> {
            let v = &root.buffer_views[a.buffer_view.unwrap().value()];
            let start = v.byte_offset.map_or(0, |o| o.0 as usize)
                + a.byte_offset.map_or(0, |o| o.0 as usize);
            e.bin[start..v.byte_offset.map_or(0, |o| o.0 as usize) + v.byte_length.0 as usize]
                .to_vec()
        };
        let describe = |a: &json::Accessor| {
            let mut a = a.clone();
            a.buffer_view = None;
            a.byte_offset = None;
            serde_json::to_string(&a).unwrap()
        };
        e.report
            .meshes
            .iter()
            .filter(|m| !m.proxy)
            .filter_map(|m| m.gltf_mesh)
            .map(|i| {
                let p = &root.meshes[i].primitives[0];
                let mut out: Vec<(String, String, Vec<u8>)> = p
                    .attributes
                    .iter()
                    .map(|(k, a)| {
                        let a = &root.accessors[a.value()];
                        (format!("{k:?}"), describe(a), bytes_of(a))
                    })
                    .collect();
                let a = &root.accessors[p.indices.unwrap().value()];
                out.push(("indices".into(), describe(a), bytes_of(a)));
                out
            })
            .collect()
    }

    #[test]
    fn geometry_only_export_writes_the_same_meshes() {
        let samples = crate::synth::samples().into_iter().map(|(_, b)| (b, None));
        let random = (0..12).flat_map(crate::synth::rig_files);
        let mut compared = 0;
        for (data, format) in samples.chain(random) {
            // Not every file is a rig file, not every rig exports: the others are not compared.
            let Ok(native) = crate::native::NativeFile::read(format, &data) else {
                continue;
            };
            let rig = crate::rig::lift(native);
            let opts = ExportOptions::default();
            let Ok(full) = export_with(&rig, rig.meshes(), &opts) else {
                continue;
            };
            let geo = export_geometry(&rig, &rig.meshes(), &opts).unwrap();
            let rig_meshes = |e: &Exported| -> Vec<MeshInfo> {
                e.report
                    .meshes
                    .iter()
                    .filter(|m| !m.proxy)
                    .cloned()
                    .collect()
            };
            assert_eq!(rig_meshes(&full), rig_meshes(&geo));
            let d = mesh_data(&full);
            compared += d.len();
            assert_eq!(d, mesh_data(&geo));
            assert!(geo.root.nodes.iter().all(|n| n.extras.is_none()));
            assert!(geo.root.scenes.iter().all(|n| n.extras.is_none()));
        }
        assert!(compared >= 10, "only {compared} meshes compared");
    }

    fn inf(
        joints: [u16; 4],
        weights: [f64; 4],
        count: usize,
    ) -> ([u16; 4], [f32; 4], ExportReport) {
        let mut r = ExportReport::default();
        let (j, w) = influence(7, 3, joints, weights, count, &mut r).unwrap();
        (j, w, r)
    }

    #[test]
    fn influences_merge_normalise_and_bind_zero_sums() {
        let (j, w, r) = inf([2, 5, 2, 0], [1.0, 2.0, 1.0, 0.0], 6);
        assert_eq!(j, [2, 5, 0, 0]);
        assert_eq!(w, [0.5, 0.5, 0.0, 0.0]);
        assert_eq!(r.merged_joints, [VertexRef { mesh: 7, vertex: 3 }]);

        let (j, w, r) = inf([4, 1, 0, 0], [0.0; 4], 6);
        assert_eq!((j, w), ([4, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
        assert_eq!(r.zero_weight_vertices, [VertexRef { mesh: 7, vertex: 3 }]);

        let (j, w, r) = inf([1, 3, 0, 0], [-1.0, f64::NAN, 3.0, 0.0], 6);
        assert_eq!((j, w), ([0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
        assert_eq!(r.dropped_weights.len(), 1);

        // A zero weight with an out-of-range joint is harmless and written as joint 0.
        let (j, w, _) = inf([1, 99, 0, 0], [1.0, 0.0, 0.0, 0.0], 6);
        assert_eq!((j, w), ([1, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
        let mut r = ExportReport::default();
        assert_eq!(
            influence(0, 9, [1, 99, 0, 0], [1.0, 0.5, 0.0, 0.0], 6, &mut r)
                .unwrap_err()
                .to_string(),
            "vertex 9, influence 1: joint 99 with weight 0.5, but the skeleton has 6 joints"
        );
    }

    #[test]
    fn f32_sum_in_slot_order_is_one() {
        for weights in [
            [0.1, 0.2, 0.3, 0.4],
            [1.0, 1.0, 1.0, 0.0],
            [0.7, 0.2, 0.1, 0.0],
            [1e-3, 1.0, 3.0, 7.0],
            [1e300, 1e300, 1e300, 1e300],
        ] {
            let (_, w, _) = inf([0, 1, 2, 3], weights, 4);
            let s = w.iter().fold(0f32, |s, &x| s + x);
            assert_eq!(s, 1.0, "{weights:?} -> {w:?}");
        }
    }
}
