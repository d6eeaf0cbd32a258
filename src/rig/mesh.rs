//! Format-neutral geometry that hangs on a skeleton, as the glTF layer needs it.

/// One mesh primitive in native (model/bind) space and native units.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mesh {
    /// Display name, e.g. `object0_mesh1`.
    pub name: String,
    /// Index of the skeleton it is skinned to, `None` for an unskinned mesh.
    pub skeleton: Option<usize>,
    /// Vertex positions, native units, bind space.
    pub positions: Vec<[f64; 3]>,
    /// Vertex normals (as stored; may be unnormalised).
    pub normals: Vec<[f64; 3]>,
    /// Texture coordinates already in glTF orientation (origin top-left).
    pub uvs: Vec<[f64; 2]>,
    /// Up to four joint indices (native joint indices of `skeleton`) per vertex.
    pub joints: Vec<[u16; 4]>,
    /// The matching raw weights per vertex, as the format stores them (not normalised).
    pub weights: Vec<[f64; 4]>,
    /// Vertex colours RGBA in 0..1 (unskinned stage geometry).
    pub colors: Vec<[f64; 4]>,
    /// Triangles as vertex index triples, counter-clockwise front faces.
    pub triangles: Vec<[u32; 3]>,
    /// The name of its material (DMC3: `texture_N` for texture index N), if the format has one.
    pub material: Option<String>,
}

/// One mesh node of an edited document, as the import hands it to the format.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IncomingMesh {
    /// Its node name in the document (reports name meshes by it).
    pub name: String,
    /// The original mesh it is (an index into [`super::Rig::meshes`]), `None` for a new one.
    pub original: Option<usize>,
    /// The original mesh `origin` refers to: itself, or the one a copy was made from (its
    /// extras name it), whose record a new mesh starts from.
    pub like: Option<usize>,
    /// Its geometry in native units when it was edited or is new; `None`: unchanged, the
    /// original streams stay. Joint indices are those of the written skeleton.
    pub geometry: Option<Mesh>,
    /// Per vertex of `geometry`: the vertex of mesh `like` it is unchanged from (within the
    /// tolerances), whose stored values it keeps bit for bit.
    pub origin: Vec<Option<u32>>,
    /// The material its primitives name, if any.
    pub material: Option<String>,
    /// Influences past the fourth of a vertex, dropped before the format saw `geometry`.
    pub dropped: Dropped,
}

/// Influences dropped past the fourth of a vertex (`geometry` holds four).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Dropped {
    /// How many, over all vertices.
    pub influences: usize,
    /// The largest weight dropped (of a vertex's weights summing to 1).
    pub largest: f64,
}

/// What writing meshes back did to one mesh.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct MeshWritten {
    /// Its node name in the document.
    pub name: String,
    /// Where it is in the native file, e.g. `object 1 mesh 0`.
    pub native: String,
    /// `edited`, `added`, `removed` or `texture` (only its texture index changed).
    pub change: String,
    /// Vertices stored before (0 for an added mesh).
    pub vertices_before: usize,
    /// Vertices stored now (strip order, shared corners repeated; 0 for a removed mesh).
    pub vertices_after: usize,
    /// Triangles written.
    pub triangles: usize,
    /// Strips written.
    pub strips: usize,
    /// Vertices kept bit for bit from an original vertex (unchanged within the tolerances).
    pub kept_vertices: usize,
    /// Vertices whose influences were cut to the three largest and renormalised.
    pub lost_weight: usize,
    /// Influences dropped in all (past the third of a vertex).
    pub influences_dropped: usize,
    /// The largest difference between a stored weight and the glTF's (normalised to sum 1),
    /// over every influence of every vertex weighted anew, dropped ones included (`None`: no
    /// vertex was).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight_error: Option<f64>,
    /// A new object made for this mesh: the object whose record gave its undecoded fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_from: Option<usize>,
    /// Triangles dropped because two corners are the same stored vertex.
    pub degenerate_triangles: usize,
    /// The texture index before and after, when it changed.
    pub texture: Option<(u16, u16)>,
}

impl MeshWritten {
    /// Counts influences the import dropped before the format saw the mesh.
    pub fn add_dropped(&mut self, d: Dropped) {
        if d.influences > 0 {
            self.influences_dropped += d.influences;
            self.weight_error = Some(self.weight_error.unwrap_or(0.0).max(d.largest));
        }
    }
}

/// What writing meshes back did, for the import report.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct MeshWrite {
    /// One entry per mesh that changed.
    pub meshes: Vec<MeshWritten>,
    /// Facts about the file as a whole (objects left empty, recomputed bounds, layout).
    pub notes: Vec<String>,
}

/// A mesh the native format cannot hold, named by its node.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("mesh {mesh}: {problem}")]
pub struct MeshRefusal {
    /// The node name.
    pub mesh: String,
    /// What is wrong.
    pub problem: String,
}
