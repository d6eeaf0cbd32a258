//! Lifting native geometry into format-neutral meshes.
//!
//! Two conventions are decided here, once:
//! - UVs: public DMC3 importers flip V (v' = 1 - v) when handing UVs to Blender, whose UV origin
//!   is bottom-left. So DMC3 stores V with the origin at the TOP-left, which is glTF's
//!   convention: UVs go to glTF unchanged (value / 4096).
//! - Winding: the game's own rule is not documented, and strip parity alone cannot say which
//!   side is the front. Like the public importer, each triangle is turned so that its face
//!   normal agrees with the sum of its three vertex normals; glTF wants counter-clockwise front
//!   faces in a right-handed frame, which DMC3's Y-up data is (`docs/formats.md`).

use glam::DVec3;

use super::dmc3::Dmc3Shell;
use super::mesh::Mesh;
use crate::native::dmc3::container::{joint_indices, uv_value, weight_values, ContainerKind};

/// The meshes of a MOD/SCM container, in native units; MOD meshes are skinned to skeleton 0.
pub(crate) fn dmc3_meshes(shell: &Dmc3Shell) -> Vec<Mesh> {
    let Some(container) = &shell.file.container else {
        return Vec::new();
    };
    let skinned = container.header.magic == ContainerKind::Mod && container.header.has_block();
    let mut out = Vec::new();
    for (o, object) in container.objects.iter().enumerate() {
        for (m, mesh) in object.meshes.iter().enumerate() {
            // Straight from the stored bits (no f32 vectors on the way: this runs for every
            // export and every import of a model).
            let wide = |v: &[[u32; 3]]| -> Vec<[f64; 3]> {
                v.iter()
                    .map(|p| p.map(|b| f64::from(f32::from_bits(b))))
                    .collect()
            };
            let positions = wide(&mesh.positions);
            let normals = wide(&mesh.normals);
            let uvs = mesh
                .uvs
                .iter()
                .map(|&u| uv_value(u).map(f64::from))
                .collect();
            let (joints, weights) = if skinned {
                mesh.bone_indices
                    .iter()
                    .zip(&mesh.weights)
                    .map(|(&b, &w)| {
                        let j = joint_indices(b);
                        let v = weight_values(w);
                        (
                            [j[0] as u16, j[1] as u16, j[2] as u16, 0],
                            [v[0] as f64, v[1] as f64, v[2] as f64, 0.0],
                        )
                    })
                    .unzip()
            } else {
                (Vec::new(), Vec::new())
            };
            let colors = mesh
                .colours
                .iter()
                .map(|c| {
                    [
                        c[0] as f64 / 255.0,
                        c[1] as f64 / 255.0,
                        c[2] as f64 / 255.0,
                        1.0,
                    ]
                })
                .collect();
            let triangles = mesh
                .triangles()
                .into_iter()
                .map(|t| facing_normals(t, &positions, &normals))
                .collect();
            out.push(Mesh {
                name: format!("object{o}_mesh{m}"),
                skeleton: skinned.then_some(0),
                positions,
                normals,
                uvs,
                joints,
                weights,
                colors,
                triangles,
                material: Some(texture_material(mesh.record.texture_index)),
            });
        }
    }
    out
}

/// The material name of texture index `n`: a mesh's material in the glTF says its texture, and
/// assigning another `texture_N` material (in Blender) changes the index.
pub(crate) fn texture_material(n: u16) -> String {
    format!("texture_{n}")
}

/// The texture index a material name gives: `texture_N`, also with the `.001` suffix Blender
/// adds to a copy; `None` for any other name.
pub(crate) fn material_texture(name: &str) -> Option<u16> {
    let base = match name.rsplit_once('.') {
        Some((b, suffix)) if !suffix.is_empty() && suffix.bytes().all(|c| c.is_ascii_digit()) => b,
        _ => name,
    };
    let digits = base.strip_prefix("texture_")?;
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Turns a triangle so that its face normal agrees with its vertex normals (see module doc).
fn facing_normals(t: [u32; 3], p: &[[f64; 3]], n: &[[f64; 3]]) -> [u32; 3] {
    let get = |v: &[[f64; 3]], i: u32| v.get(i as usize).map(|a| DVec3::from_array(*a));
    let (Some(a), Some(b), Some(c)) = (get(p, t[0]), get(p, t[1]), get(p, t[2])) else {
        return t;
    };
    let face = (b - a).cross(c - a);
    let vn = t.iter().filter_map(|&i| get(n, i)).sum::<DVec3>();
    if face.dot(vn) < 0.0 {
        [t[0], t[2], t[1]]
    } else {
        t
    }
}

/// `mod`, `scm` or `block`.
pub(crate) fn dmc3_kind(shell: &Dmc3Shell) -> &'static str {
    shell.file.kind()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangles_turn_to_face_their_normals() {
        let p = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let up = [[0.0, 0.0, 1.0]; 3];
        let down = [[0.0, 0.0, -1.0]; 3];
        assert_eq!(facing_normals([0, 1, 2], &p, &up), [0, 1, 2]);
        assert_eq!(facing_normals([0, 1, 2], &p, &down), [0, 2, 1]);
        assert_eq!(facing_normals([0, 1, 9], &p, &up), [0, 1, 9]);
    }

    #[test]
    fn material_names_give_texture_indices() {
        assert_eq!(texture_material(3), "texture_3");
        assert_eq!(material_texture("texture_3"), Some(3));
        assert_eq!(material_texture("texture_12.001"), Some(12));
        assert_eq!(material_texture("texture_"), None);
        assert_eq!(material_texture("texture_x"), None);
        assert_eq!(material_texture("Material"), None);
        assert_eq!(material_texture("texture_70000"), None);
    }
}
