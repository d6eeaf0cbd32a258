//! What an import can refuse or fail on: the refusals of the native format (by joint and
//! field), the container, node and animation problems, and [`ImportError`] over them all.

use super::*;
/// One thing the native format cannot hold, with the joint and field named.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refusal {
    /// Skeleton name.
    pub skeleton: String,
    /// Joint index (original when it has one, else the index it would get).
    pub joint: Option<usize>,
    /// Joint (node) name.
    pub name: String,
    /// glTF node index.
    pub node: Option<usize>,
    /// The field concerned.
    pub field: String,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "skeleton {}", self.skeleton)?;
        if let Some(j) = self.joint {
            write!(f, ", joint {j}")?;
        }
        match (self.name.is_empty(), self.node) {
            (false, Some(n)) => write!(f, " ({}, node {n})", self.name)?,
            (true, Some(n)) => write!(f, " (node {n})")?,
            (false, None) => write!(f, " ({})", self.name)?,
            (true, None) => {}
        }
        write!(f, ": {}: {}", self.field, self.problem)
    }
}

/// Every refusal of one import (at least one).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refusals(pub Vec<Refusal>);

impl fmt::Display for Refusals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_slice() {
            [] => f.write_str("refused"),
            [one] => write!(f, "{one}"),
            [first, rest @ ..] => write!(f, "{first} (and {} more refusals)", rest.len()),
        }
    }
}

/// An I/O error kept as a source, shared so that [`ImportError`] stays `Clone`, and compared by
/// kind and text so that it stays `PartialEq`.
#[derive(Debug, Clone, thiserror::Error)]
#[error(transparent)]
pub struct IoCause(std::sync::Arc<std::io::Error>);

impl From<std::io::Error> for IoCause {
    fn from(e: std::io::Error) -> Self {
        IoCause(std::sync::Arc::new(e))
    }
}

impl PartialEq for IoCause {
    fn eq(&self, other: &Self) -> bool {
        self.0.kind() == other.0.kind() && self.0.to_string() == other.0.to_string()
    }
}

/// What makes a file no usable glTF: its container, its JSON, or a scene or mesh it cannot
/// point at.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ContainerProblem {
    /// A GLB shorter than its header.
    #[error("GLB shorter than its 12-byte header")]
    GlbShort,
    /// A GLB of another version.
    #[error("GLB version {0}, expected 2")]
    GlbVersion(u32),
    /// A GLB whose header gives a length under 12 or past the end of the file.
    #[error("GLB header says {declared:#x} bytes, the file has {file:#x}")]
    GlbLength {
        /// The length the header gives.
        declared: usize,
        /// The file's length.
        file: usize,
    },
    /// A chunk whose data runs past the end of the GLB.
    #[error("GLB chunk at {offset:#x} ({length:#x} bytes) runs past the end ({end:#x})")]
    ChunkPastEnd {
        /// Offset of the chunk's header.
        offset: usize,
        /// The length its header gives.
        length: u32,
        /// The end of the GLB.
        end: usize,
    },
    /// A chunk header cut short at this offset.
    #[error("GLB chunk header at {0:#x} is cut off")]
    ChunkCut(usize),
    /// A JSON chunk that is not the first.
    #[error("the GLB's first chunk is not JSON")]
    FirstNotJson,
    /// No JSON chunk at all.
    #[error("GLB without a JSON chunk")]
    NoJson,
    /// JSON text that is not UTF-8.
    #[error("the glTF JSON is not UTF-8: {0}")]
    NotUtf8(std::str::Utf8Error),
    /// Text that does not parse as JSON (serde_json's words).
    #[error("not glTF JSON: {0}")]
    NotJson(String),
    /// JSON whose root is not an object.
    #[error("the glTF JSON is not an object")]
    NotObject,
    /// A scene whose `nodes` is not an array.
    #[error("the scene's `nodes` is not an array")]
    SceneNodesNotArray,
    /// A scene naming a node that is not there.
    #[error("the scene names a node that does not exist")]
    SceneNodeMissing,
    /// A primitive attribute that is not an accessor index.
    #[error("attribute {0} is not an accessor index")]
    AttributeNotIndex(String),
    /// The export's own document could not be read back (serde_json's words).
    #[error("re-reading the export: {0}")]
    ExportUnreadable(String),
    /// A document without a scene.
    #[error("the glTF has no scene")]
    NoScene,
}

/// What makes a node unusable, in the words that follow its number and name.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NodeProblem {
    /// A rotation of zero or non-finite length (x y z w as written).
    #[error(
        "rotation {} has length {}, it is no rotation",
        crate::units::values(.rotation),
        crate::units::value(*.length)
    )]
    NotARotation {
        /// The rotation, x y z w.
        rotation: [f64; 4],
        /// Its length.
        length: f64,
    },
    /// A scene root that another node also names as its child.
    #[error("is a scene root and also a child of node {0}")]
    RootAndChild(usize),
    /// A broken hierarchy, in the read model's words (`rigtrip_gltf::graph::NodeProblem`).
    #[error("{0}")]
    Hierarchy(String),
    /// A node met twice walking the scene.
    #[error("is reached twice from the scene (a cycle or a repeated root)")]
    ReachedTwice,
    /// `translation`, `rotation`, `scale` or `matrix` without its count of finite numbers.
    #[error("`{field}` is not an array of {count} finite numbers")]
    NotNumbers {
        /// The member.
        field: &'static str,
        /// How many numbers it takes.
        count: usize,
    },
    /// A node that is not a JSON object.
    #[error("is not an object")]
    NotObject,
    /// `mesh` or `skin` that is not an index.
    #[error("`{0}` is not an index")]
    NotIndex(&'static str),
    /// `extras.rigtrip` that is not an object (the value, shortened).
    #[error("extras.rigtrip is not an object but {0}")]
    ExtrasNotObject(String),
    /// A member of `extras.rigtrip` of the wrong kind (the value, shortened, or `missing`).
    #[error("extras.rigtrip.{member} is {found}, expected {expected}")]
    ExtrasMember {
        /// The member.
        member: &'static str,
        /// What it holds.
        found: String,
        /// What it should hold.
        expected: &'static str,
    },
    /// `extras.rigtrip.skeleton` past the document's skeletons.
    #[error("extras.rigtrip.skeleton is {skeleton}, but the file has {skeletons} skeletons")]
    SkeletonPastEnd {
        /// The skeleton it names.
        skeleton: usize,
        /// The document's skeleton count.
        skeletons: usize,
    },
    /// `extras.rigtrip.joint` past its skeleton's joints.
    #[error("extras.rigtrip.joint is {joint}, but skeleton {skeleton} has {joints} joints")]
    JointPastEnd {
        /// The joint it names.
        joint: usize,
        /// The skeleton's name.
        skeleton: String,
        /// The skeleton's joint count.
        joints: usize,
    },
    /// A joint identity another node already claims (a duplicated bone).
    #[error("claims skeleton {skeleton} joint {joint}, and so does node {other} ({other_name}); a duplicated bone keeps its custom properties: delete the `rigtrip` property of the copy to make it a new joint")]
    Duplicate {
        /// The skeleton's name.
        skeleton: String,
        /// The joint.
        joint: usize,
        /// The node that claimed it first.
        other: usize,
        /// That node's name.
        other_name: String,
    },
    /// A skin that is not there or names no joints.
    #[error("skin {0} does not exist or has no joints")]
    SkinMissing(usize),
    /// A skin naming a node that is not there.
    #[error("skin {0} names a node that does not exist")]
    SkinNodeMissing(usize),
    /// Its skin's inverse bind matrices lack joint slot N's.
    #[error("its skin's inverseBindMatrices has no MAT4 for joint slot {0}")]
    NoInverseBind(usize),
    /// A mesh that is not there.
    #[error("mesh {0} does not exist")]
    MeshMissing(usize),
    /// A mesh without primitives.
    #[error("mesh {0} has no primitives")]
    NoPrimitives(usize),
    /// A primitive without attributes.
    #[error("mesh {mesh} primitive {primitive} has no attributes")]
    NoAttributes {
        /// The mesh.
        mesh: usize,
        /// The primitive.
        primitive: usize,
    },
    /// A primitive without POSITION.
    #[error("mesh {mesh} primitive {primitive} has no POSITION")]
    NoPosition {
        /// The mesh.
        mesh: usize,
        /// The primitive.
        primitive: usize,
    },
    /// A primitive whose `indices` is not an accessor index.
    #[error("mesh {mesh} primitive {primitive}: indices is not an accessor index")]
    IndicesNotIndex {
        /// The mesh.
        mesh: usize,
        /// The primitive.
        primitive: usize,
    },
    /// A vertex index past the primitive's vertices.
    #[error("mesh {mesh} primitive {primitive}: index {index}, but there are {count} vertices")]
    IndexPastEnd {
        /// The mesh.
        mesh: usize,
        /// The primitive.
        primitive: usize,
        /// The index.
        index: usize,
        /// The vertex count.
        count: usize,
    },
    /// A joint the format cannot judge at all.
    #[error(transparent)]
    Joint(#[from] crate::rig::format::BrokenJoint),
}

/// What makes an animation unusable, in the words that follow its number and name.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AnimationProblem {
    /// A channel naming a sampler the animation does not have.
    #[error("a channel names a sampler that does not exist")]
    NoSampler,
    /// A sampler without its `input` or `output` accessor.
    #[error("a sampler has no {0} accessor")]
    NoAccessor(&'static str),
    /// A sampler whose key count and value count disagree.
    #[error("a sampler has {times} times and {values} values")]
    Count {
        /// Key times.
        times: usize,
        /// Values (three per key for CUBICSPLINE).
        values: usize,
    },
}

/// Why a glTF could not be imported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    /// A mesh of one model of an archive skinned to another model's joints.
    #[error("node {node} ({name}) belongs to {part} (by its name or tag) but is skinned to the joints of {skinned}, whose skeleton is not its own: bind it to the armature of {part}, or name it after the model it deforms with")]
    PartSkin {
        /// Node index.
        node: usize,
        /// Node name.
        name: String,
        /// The model it belongs to (`coat`, or `the model`).
        part: String,
        /// The model whose joints its skin names.
        skinned: String,
    },
    /// A part of the archive (a coat) does not import.
    #[error("model {part:?} of the archive")]
    Part {
        /// Its name.
        part: String,
        /// Why.
        #[source]
        source: Box<ImportError>,
    },
    /// The file could not be read.
    #[error("{path}")]
    Io {
        /// The path.
        path: String,
        /// What failed.
        #[source]
        source: IoCause,
    },
    /// Not a GLB or glTF JSON, or its structure is broken.
    #[error("not a usable glTF: {0}")]
    Container(ContainerProblem),
    /// A buffer is missing or short, or an accessor is broken.
    #[error(transparent)]
    Data(#[from] DataError),
    /// A node is broken (transform, children, extras).
    #[error("node {node} ({name}): {problem}")]
    Node {
        /// Node index.
        node: usize,
        /// Node name.
        name: String,
        /// What is wrong.
        problem: NodeProblem,
    },
    /// The glTF carries no rigtrip data at all.
    #[error("this glTF carries no rigtrip data (scene and node extras); it was exported without custom properties. Export it again with them: in Blender, File > Export > glTF 2.0 > Include > Custom Properties; or put its meshes onto a native file with import --onto TEMPLATE")]
    NoExtras,
    /// The nodes carry rigtrip data but the scene lost its own.
    #[error("the joints carry rigtrip data but no scene does (scene.extras.rigtrip holds the file itself); export the whole scene with custom properties (Blender: File > Export > glTF 2.0 > Include > Custom Properties)")]
    NoSceneExtras,
    /// The extras layout is of another version.
    #[error("scene.extras.rigtrip.schema is {found}; this rigtrip reads schema 1")]
    Schema {
        /// The schema found.
        found: String,
    },
    /// An extras value has the wrong type or content.
    #[error(transparent)]
    Extras(#[from] ExtrasError),
    /// The tolerance given is unusable.
    #[error("tolerance {0} is not a finite number >= 0")]
    Tolerance(f64),
    /// Edits the native format cannot hold.
    #[error("{0}")]
    Refused(Refusals),
    /// A mesh the native format cannot hold.
    #[error(transparent)]
    MeshRefused(#[from] crate::rig::mesh::MeshRefusal),
    /// Every joint's rest rotation changed while no joint moved: Blender's bone-direction
    /// import options, not an edit.
    #[error("skeleton {skeleton}: all {joints} joints turned in place (their rest rotations changed, no joint moved): Blender's glTF importer does that when \"Bone Dir\" is not the default; re-import the glTF with the default import settings, redo the edits, and export again")]
    TurnedInPlace {
        /// Skeleton name.
        skeleton: String,
        /// Its joint count.
        joints: usize,
    },
    /// `--ignore-mesh-edits` would write a skeleton scaled together with its meshes.
    #[error("the meshes and the skeleton were scaled together (by {0:.4}; an applied armature scale?): --ignore-mesh-edits would write the scaled skeleton with the unscaled original meshes. Undo the scale (in Blender: scale the armature by the inverse and apply it again, or re-import the file), or import without --ignore-mesh-edits to write both")]
    ScaledWithMeshes(f64),
    /// The rig could not be lowered to its format.
    #[error(transparent)]
    Lower(#[from] LowerError),
    /// The native file could not be written.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The archive the document came from cannot be rebuilt.
    #[error(transparent)]
    Archive(#[from] crate::rig::archive::ArchiveError),
    /// An animation is broken.
    #[error("animation {animation} ({name}): {problem}")]
    Animation {
        /// Animation index.
        animation: usize,
        /// Its name.
        name: String,
        /// What is wrong.
        problem: AnimationProblem,
    },
    /// A motion file could not be rebuilt from its animations.
    #[error("motion file {file}")]
    Motion {
        /// The file's name.
        file: String,
        /// Why.
        #[source]
        source: Box<crate::rig::motion::MotionError>,
    },
    /// `--new-motions-into`: the glTF carries no archive of that name.
    #[error("--new-motions-into {file}: the glTF carries no motion archive of that name ({})", if .archives.is_empty() { "it carries none".to_string() } else { format!("it carries {}", .archives.join(", ")) })]
    NewMotionsInto {
        /// The file name asked for.
        file: String,
        /// The archives it carries.
        archives: Vec<String>,
    },
    /// A new motion (an animation that came from no motion file) cannot be written.
    #[error("animation {animation}: {problem}; nothing was written")]
    NewMotion {
        /// The animation's name.
        animation: String,
        /// Why.
        problem: String,
    },
    /// `import --onto`: the template, the joint map or the glTF cannot be used together.
    #[error("{0}")]
    Onto(String),
    /// `import --onto`: joints with weights that match no template joint.
    #[error("{0}")]
    Unmatched(onto::UnmatchedJoints),
    /// The rebuilt rig could not be exported for the geometry comparison.
    #[error("the rebuilt rig cannot be exported for the mesh comparison")]
    Export(#[source] ExportError),
}
