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
use json::scene::UnitQuaternion;
use json::{Index, Node};

mod mesh;
mod props;
mod tags;
use mesh::{mesh_bytes, write_mesh};
use tags::*;

use super::animation::{self, MotionFileTag};
use super::buffer::Builder;
use super::glb;
use super::names::{self, NameSet};
use super::proxy::skeleton_proxy;
use super::{
    ExportError, ExportOptions, ExportReport, Exported, JointRef, MeshInfo, MotionInput, Part,
    SkinInfo, TransformProblem,
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
    let mut archive = write_parts(&mut doc, rig, textures, &skins, &mut scene_nodes)?;
    let props = props::archive_props(&doc.b, &mut archive);
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
        (archive, &props),
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
    (archive, props): (
        Option<&crate::rig::archive::ArchiveTag>,
        &serde_json::Map<String, serde_json::Value>,
    ),
    space: Space,
    content: Content,
) {
    let scene_extras = props::SceneExtras {
        rigtrip: scene_tag(rig, space, motion_tags, archive),
        props,
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
}
