//! DMC3 mesh write-back: the meshes of an edited document into the container's objects.
//!
//! - A mesh whose geometry is unchanged keeps its record and streams (its texture index may
//!   change: material `texture_N`). A mesh missing from the document is removed from its
//!   object; an object left without meshes stays, with mesh count 0 (its record holds
//!   undecoded fields, and removing it would renumber every later object and its meshes).
//! - An edited or new mesh gets new streams: its vertices (deduplicated after quantisation)
//!   laid out along triangle strips ([`encode_strips`]); a vertex unchanged from an original
//!   one keeps that vertex's stored bits (bone byte 0, unused slots, colour flag bits
//!   included), any other is quantised: positions and normals to f32, UVs to s16/4096 (out of
//!   range is refused: wrapping or clamping would move the texture), MOD influences to the
//!   three largest, 5:5:5 weights summing to exactly 31 (largest remainder), joint × 4 (joints
//!   past 63 refused), byte 0 as most of the mesh's original vertices had it (a MOD without a
//!   block skins nothing: bytes 1..3 and the weights are zero); SCM colours to 8 bits, the
//!   flag byte's other bits as most original vertices had them.
//! - A new mesh joins object I when its node name starts with `objectI_` (Blender names a copy
//!   `objectI_meshJ.001`), else the object of the mesh it was copied from (its node extras name
//!   it), else a new object appended after the last, whose record is a copy of the last
//!   original object's (the header's object count follows the list). Its mesh record starts
//!   as a copy of the mesh it was copied from (or the object's first mesh, or the file's),
//!   so the undecoded fields are ones the file already uses.
//! - Edited objects get their vertex count (the sum of their meshes') and bounding sphere
//!   (centroid of the vertices and the largest distance from it, rounded up) recomputed;
//!   untouched objects keep their bits.
//!
//! Offsets are not touched here: the lowering lays the file out again when sizes changed
//! ([`crate::native::dmc3::layout`]).

use std::collections::HashMap;

use glam::DVec3;

use super::dmc3::Dmc3Shell;
use super::dmc3_geometry::material_texture;
use super::mesh::{IncomingMesh, Mesh as IrMesh, MeshRefusal, MeshWrite, MeshWritten};
use super::space::Space;
use crate::native::dmc3::container::check_counts;
use crate::native::dmc3::container::{ContainerKind, Mesh, MeshVariant, Object};
use crate::native::dmc3::strip::{encode_strips, Strips};

/// Writes `incoming` into the shell's container (see the module doc). `space` turns native
/// points into what the user sees and `names` joint indices into the joints' names, for
/// messages.
pub(crate) fn write_meshes(
    shell: &mut Dmc3Shell,
    incoming: &[IncomingMesh],
    space: Space,
    names: &[String],
) -> Result<MeshWrite, MeshRefusal> {
    let Some(container) = shell.file.container.as_mut() else {
        return match incoming.first() {
            Some(m) => Err(refusal(
                &m.name,
                "a node-domain block file holds no meshes".into(),
            )),
            None => Ok(MeshWrite::default()),
        };
    };
    let rewrite = Rewrite {
        objects: &container.objects,
        // The original meshes in the order the lift lists them (object by object).
        flat: container
            .objects
            .iter()
            .enumerate()
            .flat_map(|(o, obj)| (0..obj.meshes.len()).map(move |m| (o, m)))
            .collect(),
        kind: container.header.magic,
        textures: container.header.texture_count,
        cx: Messages { space, names },
    };
    let mut report = MeshWrite::default();
    let (mut objects, mut touched) = rewrite.originals(incoming, &mut report)?;
    for inc in incoming.iter().filter(|i| i.original.is_none()) {
        rewrite.add(inc, &mut objects, &mut touched, &mut report)?;
    }
    recount(&mut objects, &touched, &mut report)?;
    // The writer derives the counts from the lists; refuse here lists too long for them.
    check_counts(&objects).map_err(|e| refusal("(file)", crate::chain(&e)))?;
    container.objects = objects;
    Ok(report)
}

/// The refusal of mesh `mesh` for `problem`.
fn refusal(mesh: &str, problem: String) -> MeshRefusal {
    MeshRefusal {
        mesh: mesh.to_string(),
        problem,
    }
}

/// What writing the incoming meshes over a container's objects works from.
struct Rewrite<'a> {
    /// The original objects.
    objects: &'a [Object],
    /// Every original mesh as (object, mesh), in the order the lift lists them.
    flat: Vec<(usize, usize)>,
    kind: ContainerKind,
    /// The header's texture count.
    textures: u8,
    cx: Messages<'a>,
}

impl Rewrite<'_> {
    /// Original mesh `k` in the lift's order.
    fn original(&self, k: usize) -> Option<&Mesh> {
        let &(o, m) = self.flat.get(k)?;
        self.objects.get(o)?.meshes.get(m)
    }

    /// The note for mesh `name` given texture index `t` past the header's count: that index
    /// names no texture of the archive's PTX (the count mirrors it), so it is written as
    /// asked, and said.
    fn past(&self, name: &str, t: u16) -> Option<String> {
        let textures = self.textures;
        (t >= u16::from(textures)).then(|| {
            format!(
                "mesh {name}: texture index {t}, but the header counts {textures} textures (0 to {}); the game's texture bundle likely has no texture {t}",
                i32::from(textures) - 1
            )
        })
    }

    /// The original objects with each original mesh kept, retextured, rebuilt or removed as
    /// the incoming meshes say, and per object whether its meshes changed.
    fn originals(
        &self,
        incoming: &[IncomingMesh],
        report: &mut MeshWrite,
    ) -> Result<(Vec<Object>, Vec<bool>), MeshRefusal> {
        let mut objects: Vec<Object> = Vec::with_capacity(self.objects.len());
        let mut touched = vec![false; self.objects.len()];
        let mut k = 0usize;
        for (o, obj) in self.objects.iter().enumerate() {
            let mut meshes = Vec::with_capacity(obj.meshes.len());
            for (m, mesh) in obj.meshes.iter().enumerate() {
                let here = k;
                k += 1;
                let native = format!("object {o} mesh {m}");
                let Some(inc) = incoming.iter().find(|i| i.original == Some(here)) else {
                    touched[o] = true;
                    report.meshes.push(MeshWritten {
                        name: format!("object{o}_mesh{m}"),
                        native,
                        change: "removed".into(),
                        vertices_before: mesh.vertex_count(),
                        ..MeshWritten::default()
                    });
                    continue;
                };
                if inc.geometry.is_some() {
                    touched[o] = true;
                }
                meshes.push(self.rewrite(mesh, inc, native, report)?);
            }
            objects.push(Object {
                record: obj.record.clone(),
                meshes,
            });
        }
        Ok((objects, touched))
    }

    /// Original `mesh` as `inc` has it: kept (its texture index perhaps changed) when `inc`
    /// has no geometry, else rebuilt from that geometry.
    fn rewrite(
        &self,
        mesh: &Mesh,
        inc: &IncomingMesh,
        native: String,
        report: &mut MeshWrite,
    ) -> Result<Mesh, MeshRefusal> {
        let texture = texture_of(inc, mesh.record.texture_index)?;
        if texture != mesh.record.texture_index {
            report.notes.extend(self.past(&inc.name, texture));
        }
        let Some(g) = &inc.geometry else {
            let mut kept = mesh.clone();
            if texture != mesh.record.texture_index {
                kept.record.texture_index = texture;
                report.meshes.push(MeshWritten {
                    name: inc.name.clone(),
                    native,
                    change: "texture".into(),
                    vertices_before: mesh.vertex_count(),
                    vertices_after: mesh.vertex_count(),
                    texture: Some((mesh.record.texture_index, texture)),
                    ..MeshWritten::default()
                });
            }
            return Ok(kept);
        };
        let like = inc.like.and_then(|k| self.original(k)).unwrap_or(mesh);
        let (mut built, mut written) =
            build_mesh(self.kind, mesh, like, g, &inc.origin, &inc.name, self.cx)?;
        built.record.texture_index = texture;
        written.native = native;
        written.change = "edited".into();
        written.vertices_before = mesh.vertex_count();
        written.add_dropped(inc.dropped);
        if texture != mesh.record.texture_index {
            written.texture = Some((mesh.record.texture_index, texture));
        }
        report.meshes.push(written);
        Ok(built)
    }

    /// Adds new mesh `inc` to the object it belongs in (see [`Rewrite::object_for`]), built
    /// on the mesh it was copied from or else a mesh of that object or of the file.
    fn add(
        &self,
        inc: &IncomingMesh,
        objects: &mut Vec<Object>,
        touched: &mut Vec<bool>,
        report: &mut MeshWrite,
    ) -> Result<(), MeshRefusal> {
        let g = inc
            .geometry
            .as_ref()
            .ok_or_else(|| refusal(&inc.name, "a new mesh without geometry".into()))?;
        let like = inc.like.and_then(|k| self.original(k));
        let (o, created) = self.object_for(inc, objects, touched)?;
        let template = like
            .or_else(|| objects.get(o).and_then(|x| x.meshes.first()))
            .or_else(|| self.objects.get(o).and_then(|x| x.meshes.first()))
            .or_else(|| (0..self.flat.len()).find_map(|k| self.original(k)))
            .cloned()
            .unwrap_or_else(|| empty_mesh(self.kind));
        let texture = texture_of(inc, template.record.texture_index)?;
        report.notes.extend(self.past(&inc.name, texture));
        let (mut built, mut written) = build_mesh(
            self.kind,
            &template,
            &template,
            g,
            &inc.origin,
            &inc.name,
            self.cx,
        )?;
        built.record.texture_index = texture;
        let j = objects.get(o).map_or(0, |x| x.meshes.len());
        written.native = format!("object {o} mesh {j}");
        written.change = "added".into();
        written.add_dropped(inc.dropped);
        let last_object = self.objects.len().checked_sub(1);
        if created {
            written.object_from = last_object;
            report.notes.push(format!(
                "object {o} is new (for mesh {}): its record's undecoded fields are object {}'s",
                inc.name,
                last_object.unwrap_or_default()
            ));
        }
        report.meshes.push(written);
        if let (Some(obj), Some(t)) = (objects.get_mut(o), touched.get_mut(o)) {
            obj.meshes.push(built);
            *t = true;
        }
        Ok(())
    }

    /// The object new mesh `inc` goes into, and whether it was created for it: the object
    /// its name names, else the one of the mesh it was copied from, else a new one after the
    /// last, its record a copy of the last original object's.
    fn object_for(
        &self,
        inc: &IncomingMesh,
        objects: &mut Vec<Object>,
        touched: &mut Vec<bool>,
    ) -> Result<(usize, bool), MeshRefusal> {
        let named = object_of(&inc.name).filter(|&o| o < objects.len());
        if let Some(o) = named.or_else(|| inc.like.and_then(|k| self.flat.get(k)).map(|p| p.0)) {
            return Ok((o, false));
        }
        // Undecoded fields are never made up: they come from an object of the file.
        let record = self
            .objects
            .last()
            .map(|x| x.record.clone())
            .ok_or_else(|| {
                refusal(
                    &inc.name,
                    "it needs a new object, but the file has none whose record (undecoded fields) it could copy".into(),
                )
            })?;
        objects.push(Object {
            record,
            meshes: Vec::new(),
        });
        touched.push(true);
        Ok((objects.len() - 1, true))
    }
}

/// Sets the vertex count and bounding sphere of every object whose meshes changed, noting
/// objects left empty and recomputed spheres.
fn recount(
    objects: &mut [Object],
    touched: &[bool],
    report: &mut MeshWrite,
) -> Result<(), MeshRefusal> {
    for (o, (obj, &t)) in objects.iter_mut().zip(touched).enumerate() {
        if !t {
            continue;
        }
        let total: usize = obj.meshes.iter().map(|m| m.positions.len()).sum();
        obj.record.vertex_count = u16::try_from(total).map_err(|_| {
            refusal(
                &format!("object{o}"),
                format!("its meshes hold {total} vertices, but the object's vertex count is a u16 (at most 65535)"),
            )
        })?;
        if obj.meshes.is_empty() {
            report.notes.push(format!(
                "object {o} has no mesh left: kept with mesh count 0 (its record holds undecoded fields, and removing it would renumber the objects after it); its bounding sphere keeps its bits"
            ));
            continue;
        }
        let before = obj.record.bounds_bits;
        obj.record.bounds_bits = bounds(obj.meshes.iter().flat_map(|m| m.positions.iter()));
        if obj.record.bounds_bits != before {
            report.notes.push(format!(
                "object {o}: vertex count {total}, bounding sphere recomputed (centroid, largest distance)"
            ));
        }
    }
    Ok(())
}

/// The texture index the mesh's material names (`texture_N`), or `current` when it names
/// none (no material, or another tool's default material, which changes nothing).
fn texture_of(inc: &IncomingMesh, current: u16) -> Result<u16, MeshRefusal> {
    Ok(inc
        .material
        .as_deref()
        .and_then(material_texture)
        .unwrap_or(current))
}

/// The object a new mesh's node name puts it in: `objectI_...`.
fn object_of(name: &str) -> Option<usize> {
    let rest = name.strip_prefix("object")?;
    let (digits, _) = rest.split_once('_')?;
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// A mesh with a default record of `kind`, for a new mesh in a file without any mesh.
fn empty_mesh(kind: ContainerKind) -> Mesh {
    let mut m = Mesh::default();
    if kind == ContainerKind::Scm {
        m.record.variant = MeshVariant::Scm(Default::default());
    }
    m
}

/// A bounding sphere as f32 bits: the centroid and the largest distance from it, the radius
/// rounded up so that every vertex lies inside it.
fn bounds<'a>(points: impl Iterator<Item = &'a [u32; 3]>) -> [u32; 4] {
    let p: Vec<DVec3> = points
        .map(|q| DVec3::from_array(q.map(|b| f64::from(f32::from_bits(b)))))
        .filter(|q| q.is_finite())
        .collect();
    if p.is_empty() {
        return [0; 4];
    }
    let c = p.iter().copied().sum::<DVec3>() / p.len() as f64;
    let c32 = DVec3::new(
        f64::from(c.x as f32),
        f64::from(c.y as f32),
        f64::from(c.z as f32),
    );
    let r = p.iter().map(|q| q.distance(c32)).fold(0.0, f64::max);
    let mut r32 = r as f32;
    if f64::from(r32) < r {
        r32 = f32::from_bits(r32.to_bits() + 1);
    }
    [
        (c.x as f32).to_bits(),
        (c.y as f32).to_bits(),
        (c.z as f32).to_bits(),
        r32.to_bits(),
    ]
}

/// What messages need: the space points are shown in, the joints' names.
#[derive(Clone, Copy)]
struct Messages<'a> {
    space: Space,
    names: &'a [String],
}

/// One stored vertex: every stream's entry, the strip flag left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Stored {
    pos: [u32; 3],
    nrm: [u32; 3],
    uv: [i16; 2],
    /// MOD: bone bytes; SCM: colour bytes.
    quad: [u8; 4],
    /// MOD: the weight entry without bit 15.
    weight: u16,
}

/// The value most entries hold (the first such in order of appearance), or `default`.
fn most_common<T: Copy + Eq + std::hash::Hash>(items: impl Iterator<Item = T>, default: T) -> T {
    let mut counts: HashMap<T, (usize, usize)> = HashMap::new();
    for (i, x) in items.enumerate() {
        counts.entry(x).or_insert((0, i)).0 += 1;
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1)))
        .map_or(default, |e| e.0)
}

/// Three weights in 5 bits each summing to exactly 31 (largest remainder; ties to the earlier).
pub(crate) fn weights_31(w: &[f64]) -> [u16; 3] {
    let total: f64 = w.iter().take(3).sum();
    let mut out = [0u16; 3];
    if !(total > 0.0 && total.is_finite()) {
        return out;
    }
    let scaled: Vec<f64> = w.iter().take(3).map(|x| x / total * 31.0).collect();
    let mut rem: Vec<(usize, f64)> = Vec::with_capacity(3);
    let mut sum = 0u16;
    for (i, s) in scaled.iter().enumerate() {
        let f = s.floor().clamp(0.0, 31.0);
        if let Some(o) = out.get_mut(i) {
            *o = f as u16;
        }
        sum += f as u16;
        rem.push((i, s - f));
    }
    rem.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    for (i, _) in rem
        .iter()
        .cycle()
        .take(31usize.saturating_sub(sum as usize))
    {
        if let Some(o) = out.get_mut(*i) {
            *o += 1;
        }
    }
    out
}

/// The streams of an edited or new mesh (see the module doc): `record` gives the record,
/// `like` the original vertices `origin` points at.
fn build_mesh(
    kind: ContainerKind,
    record: &Mesh,
    like: &Mesh,
    g: &IrMesh,
    origin: &[Option<u32>],
    name: &str,
    cx: Messages<'_>,
) -> Result<(Mesh, MeshWritten), MeshRefusal> {
    let build = Build {
        kind,
        like,
        g,
        name,
        cx,
        byte0: most_common(like.bone_indices.iter().map(|b| b[0]), 0),
        flag_bits: most_common(like.colours.iter().map(|c| c[3] & !2), 0),
    };
    let mut written = MeshWritten {
        name: name.to_string(),
        ..MeshWritten::default()
    };
    let (table, ids) = build.stored_vertices(origin, &mut written)?;
    let tris = build.triangles(&ids, &mut written)?;
    let strips = encode_strips(&tris);
    if strips.sequence.len() > usize::from(u16::MAX) {
        return Err(build.refuse(format!(
            "{} strip vertices, but a DMC3 mesh holds at most 65535 (its vertex count is a u16); split the mesh",
            strips.sequence.len()
        )));
    }
    let mesh = strip_mesh(kind, record, &table, &strips);
    written.vertices_after = mesh.positions.len();
    written.triangles = tris.len();
    written.strips = strips.strips;
    Ok((mesh, written))
}

/// What building the streams of one mesh ([`build_mesh`]) works from.
struct Build<'a> {
    kind: ContainerKind,
    /// The original mesh whose vertices kept ones are copied from.
    like: &'a Mesh,
    /// The incoming geometry.
    g: &'a IrMesh,
    /// The mesh's name, for messages.
    name: &'a str,
    cx: Messages<'a>,
    /// The bone byte 0 most of `like`'s vertices hold (MOD).
    byte0: u8,
    /// The colour flag bits most of `like`'s vertices hold, the strip flag left out (SCM).
    flag_bits: u8,
}

impl Build<'_> {
    /// The refusal of this mesh for `problem`.
    fn refuse(&self, problem: String) -> MeshRefusal {
        MeshRefusal {
            mesh: self.name.to_string(),
            problem,
        }
    }

    /// Where incoming vertex `v` is, as the user sees it (for messages).
    fn at(&self, v: usize) -> String {
        let p = self.g.positions.get(v).copied().unwrap_or_default();
        self.cx.space.shown(DVec3::from_array(p))
    }

    /// The distinct stored vertices in order of first use, and each incoming vertex's index
    /// among them. A vertex `origin` points at an original one is that one's entries.
    fn stored_vertices(
        &self,
        origin: &[Option<u32>],
        written: &mut MeshWritten,
    ) -> Result<(Vec<Stored>, Vec<u32>), MeshRefusal> {
        let n = self.g.positions.len();
        let mut table: Vec<Stored> = Vec::with_capacity(n);
        let mut index: HashMap<Stored, u32> = HashMap::with_capacity(n);
        let mut ids: Vec<u32> = Vec::with_capacity(n);
        for v in 0..n {
            let kept = origin
                .get(v)
                .copied()
                .flatten()
                .map(|o| o as usize)
                .filter(|&o| o < self.like.positions.len());
            let stored = match kept {
                Some(o) => {
                    written.kept_vertices += 1;
                    self.kept_vertex(o)
                }
                None => self.new_vertex(v, written)?,
            };
            let id = *index.entry(stored).or_insert_with(|| {
                table.push(stored);
                (table.len() - 1) as u32
            });
            ids.push(id);
        }
        Ok((table, ids))
    }

    /// Original vertex `o` of `like`, as stored.
    fn kept_vertex(&self, o: usize) -> Stored {
        let like = self.like;
        Stored {
            pos: like.positions.get(o).copied().unwrap_or_default(),
            nrm: like.normals.get(o).copied().unwrap_or_default(),
            uv: like.uvs.get(o).copied().unwrap_or_default(),
            quad: match self.kind {
                ContainerKind::Mod => like.bone_indices.get(o).copied().unwrap_or_default(),
                ContainerKind::Scm => {
                    let c = like.colours.get(o).copied().unwrap_or_default();
                    [c[0], c[1], c[2], c[3] & !2]
                }
            },
            weight: like.weights.get(o).map_or(0, |w| w & 0x7FFF),
        }
    }

    /// Incoming vertex `v`, encoded: f32 position and normal, s16/4096 UV, and the bone
    /// bytes and weights (MOD) or colour (SCM).
    fn new_vertex(&self, v: usize, written: &mut MeshWritten) -> Result<Stored, MeshRefusal> {
        let g = self.g;
        let f = |x: f64, what: &str| -> Result<u32, MeshRefusal> {
            let y = x as f32;
            if y.is_finite() {
                Ok((y + 0.0).to_bits())
            } else {
                Err(self.refuse(format!(
                    "vertex at {}: {what} {x} does not fit an f32",
                    self.at(v)
                )))
            }
        };
        let p = g.positions.get(v).copied().unwrap_or_default();
        let pos = [
            f(p[0], "position")?,
            f(p[1], "position")?,
            f(p[2], "position")?,
        ];
        let nv = g.normals.get(v).copied().unwrap_or_default();
        let nrm = [
            f(nv[0], "normal")?,
            f(nv[1], "normal")?,
            f(nv[2], "normal")?,
        ];
        let uv = self.uv(v)?;
        let (quad, weight) = match self.kind {
            // A MOD without a block: nothing is skinned, the bone streams name no
            // joint. Byte 0 as the mesh had it, the rest zero.
            ContainerKind::Mod if g.skeleton.is_none() => ([self.byte0, 0, 0, 0], 0),
            ContainerKind::Mod => self.bones(v, written)?,
            ContainerKind::Scm => {
                let c = g.colors.get(v).copied().unwrap_or([1.0; 4]);
                let b = |x: f64| (x.clamp(0.0, 1.0) * 255.0).round() as u8;
                ([b(c[0]), b(c[1]), b(c[2]), self.flag_bits], 0)
            }
        };
        Ok(Stored {
            pos,
            nrm,
            uv,
            quad,
            weight,
        })
    }

    /// Vertex `v`'s UV as s16/4096, refused outside what that holds.
    fn uv(&self, v: usize) -> Result<[i16; 2], MeshRefusal> {
        let uvf = self.g.uvs.get(v).copied().unwrap_or_default();
        let mut uv = [0i16; 2];
        for (q, x) in uv.iter_mut().zip(uvf) {
            let s = (x * 4096.0).round();
            if !(s >= f64::from(i16::MIN) && s <= f64::from(i16::MAX)) {
                return Err(self.refuse(format!(
                    "vertex at {}: UV {x} is outside what s16/4096 holds (-8 to 7.99976); move the UV island into range",
                    self.at(v)
                )));
            }
            *q = s as i16;
        }
        Ok(uv)
    }

    /// Vertex `v`'s MOD bone bytes and weight entry: its three heaviest influences (merged per
    /// joint), their weights in 5 bits summing to 31. The lost weight and the largest weight
    /// error go to `written`.
    fn bones(&self, v: usize, written: &mut MeshWritten) -> Result<([u8; 4], u16), MeshRefusal> {
        let js = self.g.joints.get(v).copied().unwrap_or_default();
        let ws = self.g.weights.get(v).copied().unwrap_or_default();
        let mut inf: Vec<(u16, f64)> = Vec::with_capacity(4);
        for (&j, &w) in js.iter().zip(&ws) {
            if !(w.is_finite() && w > 0.0) {
                continue;
            }
            match inf.iter_mut().find(|e| e.0 == j) {
                Some(e) => e.1 += w,
                None => inf.push((j, w)),
            }
        }
        if inf.is_empty() {
            return Err(self.refuse(format!(
                "vertex at {} has no weight; paint it onto a bone",
                self.at(v)
            )));
        }
        inf.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut error = written.weight_error.unwrap_or(0.0);
        if inf.len() > 3 {
            written.lost_weight += 1;
            written.influences_dropped += inf.len() - 3;
            error = inf.iter().skip(3).map(|e| e.1).fold(error, f64::max);
            inf.truncate(3);
        }
        let w31 = weights_31(&inf.iter().map(|e| e.1).collect::<Vec<_>>());
        for ((_, given), stored) in inf.iter().zip(w31) {
            error = error.max((f64::from(stored) / 31.0 - given).abs());
        }
        written.weight_error = Some(error);
        let mut quad = [self.byte0, 0, 0, 0];
        let mut weight = 0u16;
        for (s, ((j, _), w)) in inf.iter().zip(w31).enumerate() {
            if *j > 63 {
                return Err(self.refuse(format!(
                    "vertex at {} is weighted to joint {j} ({}): a DMC3 vertex stores joint × 4 in a byte, so joints past 63 cannot hold weights",
                    self.at(v),
                    self.cx.names.get(usize::from(*j)).map_or("", String::as_str)
                )));
            }
            if let Some(b) = quad.get_mut(s + 1) {
                *b = (*j * 4) as u8;
            }
            weight |= w << (5 * s);
        }
        Ok((quad, weight))
    }

    /// The triangles over stored vertex `ids`, the degenerate ones (two corners one stored
    /// vertex) left out and counted.
    fn triangles(
        &self,
        ids: &[u32],
        written: &mut MeshWritten,
    ) -> Result<Vec<[u32; 3]>, MeshRefusal> {
        let n = self.g.positions.len();
        let mut tris = Vec::with_capacity(self.g.triangles.len());
        for t in &self.g.triangles {
            let m = t.map(|c| ids.get(c as usize).copied());
            let [Some(a), Some(b), Some(c)] = m else {
                return Err(self.refuse(format!(
                    "a triangle uses vertex {t:?}, but the mesh has {n} vertices"
                )));
            };
            if a == b || b == c || a == c {
                written.degenerate_triangles += 1;
                continue;
            }
            tris.push([a, b, c]);
        }
        Ok(tris)
    }
}

/// A mesh with `record`'s record whose streams hold the stored vertices of `table` in strip
/// order, the strip flag in the weight (MOD) or colour (SCM) entry.
fn strip_mesh(kind: ContainerKind, record: &Mesh, table: &[Stored], strips: &Strips) -> Mesh {
    let mut mesh = Mesh {
        record: record.record.clone(),
        ..Mesh::default()
    };
    for (&id, &flag) in strips.sequence.iter().zip(&strips.flags) {
        let Some(s) = table.get(id as usize) else {
            continue;
        };
        mesh.positions.push(s.pos);
        mesh.normals.push(s.nrm);
        mesh.uvs.push(s.uv);
        match kind {
            ContainerKind::Mod => {
                mesh.bone_indices.push(s.quad);
                mesh.weights.push(s.weight | if flag { 0x8000 } else { 0 });
            }
            ContainerKind::Scm => {
                let mut c = s.quad;
                c[3] |= if flag { 2 } else { 0 };
                mesh.colours.push(c);
            }
        }
    }
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_31() {
        assert_eq!(weights_31(&[1.0]), [31, 0, 0]);
        assert_eq!(weights_31(&[0.5, 0.5]), [16, 15, 0]);
        assert_eq!(weights_31(&[1.0, 1.0, 1.0]), [11, 10, 10]);
        assert_eq!(weights_31(&[0.7, 0.2, 0.1]), [22, 6, 3]);
        for a in 1..40 {
            for b in 0..40 {
                let w = weights_31(&[a as f64, b as f64, 3.0]);
                assert_eq!(w.iter().sum::<u16>(), 31);
            }
        }
        assert_eq!(weights_31(&[0.0, 0.0]), [0, 0, 0]);
    }

    #[test]
    fn new_meshes_join_objects_by_name() {
        assert_eq!(object_of("object1_mesh0.001"), Some(1));
        assert_eq!(object_of("object12_x"), Some(12));
        assert_eq!(object_of("object_mesh"), None);
        assert_eq!(object_of("objectA_"), None);
        assert_eq!(object_of("Cube"), None);
    }

    #[test]
    fn bounds_enclose_every_vertex() {
        let pts = [[1.0f32, 2.0, 3.0], [-4.0, 0.5, 9.0], [0.1, 0.2, 0.3]];
        let bits: Vec<[u32; 3]> = pts.iter().map(|p| p.map(f32::to_bits)).collect();
        let b = bounds(bits.iter()).map(f32::from_bits);
        let c = DVec3::new(b[0].into(), b[1].into(), b[2].into());
        for p in pts {
            let p = DVec3::new(p[0].into(), p[1].into(), p[2].into());
            assert!(p.distance(c) <= f64::from(b[3]));
        }
    }
}
