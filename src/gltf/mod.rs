//! The glTF layer: a [`Rig`](crate::rig::Rig) as a skinned glTF 2.0 document (one skin per
//! skeleton, the space conversion baked into joints and vertices, the native payloads in
//! `extras`), and the GLB / embedded-glTF writers.
//!
//! What the output must survive was measured with Blender 4.5 (it keeps scene, node and mesh
//! extras but drops asset, skin and top-level extras, cuts names at 63 bytes, and adds spurious
//! joint scales when the conversion sits on a node above the joints).

pub mod animation;
pub(crate) mod buffer;
mod export;
pub(crate) mod glb;
pub mod import;
mod names;
pub mod proxy;
/// The glTF read model (its own crate, shared with the linter and gait).
pub(crate) use rigtrip_gltf as read;
pub mod texture;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::rig::GateFailure;

pub use crate::rig::space::{Space, SpaceRotation};
pub use export::{export, export_animated, export_textured, export_with};
pub use glb::{to_glb, to_gltf, GlbError};
pub use import::{import_path, import_slice, ImportError, ImportOptions, ImportReport, Imported};
pub use names::NamesError;
pub use read::DataError;

/// What the caller may change about an export.
#[derive(Debug, Clone, Default)]
pub struct ExportOptions {
    /// Metres per native unit; overrides the format's default
    /// ([`RigFormat::default_space`](crate::rig::format::RigFormat::default_space)).
    pub scale: Option<f64>,
    /// Joint names to use instead of the IR's.
    pub names: Option<Names>,
}

/// A motion file to export as animations: its name (the animation names come from it), its
/// bytes (carried in the scene extras for the import) and its motions.
#[derive(Debug, Clone)]
pub struct MotionInput {
    /// The file's name, e.g. `pl000_00_3.pac`.
    pub file_name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Its motions.
    pub file: crate::rig::motion::MotionFile,
}

impl MotionInput {
    /// Reads a motion file or archive from bytes; `file_name` names it (and its animations).
    pub fn read(
        file_name: &str,
        bytes: Vec<u8>,
    ) -> Result<MotionInput, crate::rig::motion::MotionError> {
        let file = crate::rig::motion::read_file(&bytes)?;
        Ok(MotionInput {
            file_name: file_name.to_string(),
            bytes,
            file,
        })
    }
}

/// Joint names supplied by the user.
#[derive(Debug, Clone, PartialEq)]
pub enum Names {
    /// Skeleton name (e.g. `slot1`) -> joint names in native joint order.
    PerSkeleton(BTreeMap<String, Vec<String>>),
    /// Joint names of the rig's only skeleton.
    List(Vec<String>),
}

/// An exported document: the JSON root (buffer 0 without a URI) and the binary buffer.
#[derive(Debug, Clone)]
pub struct Exported {
    /// The glTF JSON; buffer 0, when present, is the GLB binary chunk.
    pub root: ::gltf_json::Root,
    /// Buffer 0's bytes, padded to a multiple of 4 (`byteLength` counts the padding).
    pub bin: Vec<u8>,
    /// What the export had to fix or decide.
    pub report: ExportReport,
}

/// What the export had to fix or decide, for the user to see.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ExportReport {
    /// The space conversion that was baked in.
    pub space: Space,
    /// One entry per skin written.
    pub skins: Vec<SkinInfo>,
    /// Every mesh considered: the rig's meshes first (same indices as `Rig::meshes`), then proxies.
    pub meshes: Vec<MeshInfo>,
    /// Vertices whose weights summed to zero, now bound fully to their first joint.
    pub zero_weight_vertices: Vec<VertexRef>,
    /// Vertices that named one joint in several influences; the weights were added up.
    pub merged_joints: Vec<VertexRef>,
    /// Vertices with a negative or non-finite weight, which was taken as zero.
    pub dropped_weights: Vec<VertexRef>,
    /// Vertices whose normal was zero or non-finite and was replaced by a face-based one.
    pub fixed_normals: Vec<VertexRef>,
    /// Vertices whose colour had a component outside 0..1 (or non-finite) and was clamped.
    pub clamped_colors: Vec<VertexRef>,
    /// Node names that differ from what was asked for (cut to 63 bytes, made unique, or empty).
    pub renamed: Vec<Renamed>,
    /// Skeletons for which the names given were fewer than the joints (the rest kept the IR's).
    pub names_missing: Vec<NamesMissing>,
    /// Joints whose rotation was not a unit quaternion to 1e-9 and was normalised.
    pub normalised_rotations: Vec<JointRef>,
    /// One entry per motion written as an animation (none without motions).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub animations: Vec<animation::AnimationInfo>,
    /// Motions that cannot go on the model: no animation, their files carried as they are.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub carried_motions: Vec<animation::CarriedMotion>,
    /// Animations whose translations show a motion made for another skeleton (a warning).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub motion_misfits: Vec<animation::MotionMisfit>,
    /// One entry per texture written as an image (none without textures).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub textures: Vec<texture::TextureInfo>,
    /// An archive's model members other than the exported one (a coat): carried as bytes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub carried_models: Vec<crate::rig::archive::CarriedModel>,
    /// The archive's other models shown beside the model (see [`Part`]), by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<String>,
}

/// Another model member of an archive shown in the model's document (a coat): its nodes are
/// named `{name}/...` and tagged `extras.rigtrip.part`, and the archive tag keeps what its
/// import needs (see [`crate::rig::archive::MemberTag::Part`]).
#[derive(Debug, Clone)]
pub struct Part {
    /// Its name (see [`crate::rig::archive::part_name`]).
    pub name: String,
    /// Its member's offset in the archive.
    pub offset: u32,
    /// The model.
    pub rig: crate::rig::Rig,
}

/// A skin as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkinInfo {
    /// Skeleton index in the rig.
    pub skeleton: usize,
    /// Skeleton name.
    pub name: String,
    /// Joint count (= `skin.joints.length`).
    pub joints: usize,
    /// Whether an identity wrapper node sits above the skeleton's roots (several roots, or
    /// several skeletons in the rig).
    pub wrapper: bool,
    /// Whether the skeleton got proxy solids because no mesh is skinned to it.
    pub proxy: bool,
    /// The archive part it belongs to (see [`Part`]); absent for the model's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
}

/// One mesh considered by the export.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeshInfo {
    /// Mesh name.
    pub name: String,
    /// Skeleton it is skinned to.
    pub skeleton: Option<usize>,
    /// Whether it is a generated proxy rather than rig geometry.
    pub proxy: bool,
    /// Vertex count.
    pub vertices: usize,
    /// Triangle count.
    pub triangles: usize,
    /// Index of the glTF mesh written for it; `None` when it was skipped (no vertices or no triangles).
    pub gltf_mesh: Option<usize>,
    /// The archive part it belongs to (see [`Part`]); absent for the model's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
}

/// A vertex of a mesh (mesh index as in [`ExportReport::meshes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct VertexRef {
    /// Mesh index.
    pub mesh: usize,
    /// Vertex index within the mesh.
    pub vertex: usize,
}

/// A joint of a skeleton.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct JointRef {
    /// Skeleton index.
    pub skeleton: usize,
    /// Joint index (native).
    pub joint: usize,
}

/// A node whose written name differs from the requested one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Renamed {
    /// What the node is, e.g. `slot1 joint 3`, `wrapper slot1` or `mesh 2`.
    pub node: String,
    /// The name asked for.
    pub from: String,
    /// The name written.
    pub to: String,
}

/// A skeleton that got fewer names than it has joints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NamesMissing {
    /// Skeleton name.
    pub skeleton: String,
    /// Names given.
    pub given: usize,
    /// Joints in the skeleton.
    pub joints: usize,
}

/// Why a rig could not be exported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExportError {
    /// A skeleton failed the spatial gate: it has no model-space pose to export.
    #[error("skeleton {skeleton}: {failure}")]
    Gate {
        /// Skeleton name.
        skeleton: String,
        /// The failing condition.
        failure: GateFailure,
    },
    /// The scale is unusable.
    #[error("scale {0} is not a finite number greater than zero (metres per native unit; a negative scale would mirror the rig, which glTF joint transforms cannot hold)")]
    Scale(f64),
    /// The names given do not fit the rig.
    #[error("names: {0}")]
    Names(String),
    /// A joint cannot be expressed in glTF.
    #[error("skeleton {skeleton}, joint {joint} ({name}): {problem}")]
    Joint {
        /// Skeleton name.
        skeleton: String,
        /// Joint index (native).
        joint: usize,
        /// Joint name.
        name: String,
        /// What is wrong.
        problem: TransformProblem,
    },
    /// A mesh is inconsistent (lengths, indices, non-finite values, skeleton reference).
    #[error("mesh {mesh} ({name}): {problem}")]
    Mesh {
        /// Mesh index as in [`ExportReport::meshes`].
        mesh: usize,
        /// Mesh name.
        name: String,
        /// What is wrong.
        problem: MeshProblem,
    },
    /// A motion cannot be written as an animation of this model.
    #[error("motion {name}: {problem}")]
    Motion {
        /// The animation name it would get.
        name: String,
        /// What is wrong.
        problem: MotionProblem,
    },
    /// The binary data does not fit a GLB.
    #[error("the binary buffer would hold {0} bytes, more than a GLB can (4 GiB)")]
    TooLarge(u64),
    /// A part's tag does not serialise as JSON.
    #[error("the extras of a part do not serialise: {0}")]
    Extras(String),
}

pub use crate::rig::space::TransformProblem;

/// Why a mesh cannot be written: lengths, indices, non-finite values, skeleton reference.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeshProblem {
    /// The mesh's skeleton exists but has no joints.
    #[error("skinned to skeleton {0}, which has no joints")]
    NoJoints(usize),
    /// The mesh's skeleton is past the rig's skeletons.
    #[error("skinned to skeleton {skeleton}, but the rig has {skeletons} skeletons")]
    NoSkeleton {
        /// The skeleton the mesh names.
        skeleton: usize,
        /// The rig's skeleton count.
        skeletons: usize,
    },
    /// A per-vertex attribute's count is not the vertex count.
    #[error("{len} {what} for {vertices} vertices")]
    AttributeCount {
        /// `normals`, `uvs` or `colors`.
        what: &'static str,
        /// Its count.
        len: usize,
        /// The vertex count.
        vertices: usize,
    },
    /// A skinned mesh's joints or weights are not one per vertex.
    #[error(
        "skinned, but has {joints} joint and {weights} weight entries for {vertices} vertices"
    )]
    InfluenceCount {
        /// Joint entries.
        joints: usize,
        /// Weight entries.
        weights: usize,
        /// The vertex count.
        vertices: usize,
    },
    /// More vertices than 32-bit indices reach.
    #[error("{0} vertices, more than 32-bit indices reach")]
    TooManyVertices(usize),
    /// A triangle uses a vertex that is not there.
    #[error("triangle {triangle} uses vertex {vertex}, but there are {vertices} vertices")]
    VertexPastEnd {
        /// Triangle index.
        triangle: usize,
        /// The vertex it uses.
        vertex: u32,
        /// The vertex count.
        vertices: usize,
    },
    /// A position is not finite in glTF space as f32.
    #[error("vertex {vertex}: position {position:?} is not finite in 32-bit floats")]
    Position {
        /// Vertex index.
        vertex: usize,
        /// Its IR position.
        position: [f64; 3],
    },
    /// A UV is not finite as f32.
    #[error("vertex {vertex}: uv {uv:?} is not finite")]
    Uv {
        /// Vertex index.
        vertex: usize,
        /// Its UV.
        uv: [f64; 2],
    },
    /// An influence with weight names a joint past the skeleton's.
    #[error("vertex {vertex}, influence {slot}: joint {joint} with weight {weight}, but the skeleton has {joints} joints")]
    JointPastEnd {
        /// Vertex index.
        vertex: usize,
        /// Influence slot 0..4.
        slot: usize,
        /// The joint it names.
        joint: u16,
        /// Its weight.
        weight: f64,
        /// The skeleton's joint count.
        joints: usize,
    },
    /// A vertex without weight whose first joint (the one it would be bound to) is past the
    /// skeleton's.
    #[error("vertex {vertex}: its weights sum to zero and its first joint {joint} is not one of the skeleton's {joints} joints")]
    ZeroWeightJointPastEnd {
        /// Vertex index.
        vertex: usize,
        /// Its first joint.
        joint: u16,
        /// The skeleton's joint count.
        joints: usize,
    },
}

/// Why a motion cannot be an animation: of the whole export ([`ExportError::Motion`]) or of
/// one motion, which is then carried as it is ([`animation::CarriedMotion::reason`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MotionProblem {
    /// Two motions would get one animation name.
    #[error("two motions would get this animation name (two files with the same name?)")]
    SharedName,
    /// The model has not exactly one skeleton (with joints).
    #[error("motions need a model with one skeleton; this one has {0}")]
    Skeletons(usize),
    /// The motion's node count is not the skeleton's joint count.
    #[error("the motion animates {motion} nodes, the model has {model}")]
    NodeCount {
        /// Nodes the motion animates.
        motion: usize,
        /// Joints of the model's skeleton.
        model: usize,
    },
    /// Sampling would give more keys than the export allows.
    #[error(
        "it needs more than {} animation keys (one per frame where a channel moves)",
        animation::MAX_KEYS
    )]
    TooManyKeys,
    /// A track's key frames go back in time.
    #[error("joint {joint}, {}: its key frames go back in time, which a glTF animation cannot hold", .channel.name())]
    Unordered {
        /// The track's joint.
        joint: usize,
        /// The track's channel.
        channel: crate::rig::motion::Channel,
    },
    /// A track's key value or tangent is not finite.
    #[error("joint {joint}, {}: a key's value or tangent is not a finite number", .channel.name())]
    NotFinite {
        /// The track's joint.
        joint: usize,
        /// The track's channel.
        channel: crate::rig::motion::Channel,
    },
    /// A sampled property overflows f32.
    #[error("joint {joint}: its {property} values or tangents do not fit 32-bit floats")]
    Samples {
        /// The joint.
        joint: usize,
        /// `translation`, `rotation` or `scale`.
        property: &'static str,
    },
    /// A sampled joint has no node.
    #[error("joint {0} has no node")]
    NoNode(usize),
}
