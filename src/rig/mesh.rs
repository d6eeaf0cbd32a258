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
}
