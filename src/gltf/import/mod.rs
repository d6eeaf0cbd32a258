//! glTF import: a glTF that rigtrip exported (possibly edited in Blender or another tool) back
//! to a byte-exact native file, from the glTF alone.
//!
//! - The rig is rebuilt from `scene.extras.rigtrip` (file-level remainder, skeleton payloads,
//!   space), `node.extras.rigtrip` (joint identity and payload), node transforms and parents.
//! - Joints are matched by their identity in the node extras, then by their default name
//!   (`<skeleton>_<k>`); node order, joint order, wrapper nodes, skin names, `skin.skeleton` and
//!   the incoming inverse bind matrices are not relied on. A joint's parent is its nearest
//!   ancestor that is a joint of the same skeleton; transforms of nodes in between (Blender's
//!   "Armature" object) are folded into the joint's local transform.
//! - Float noise is not an edit: an incoming value within the [`Tolerance`] of what the export
//!   wrote for the original joint gives back the original value bit for bit; anything beyond it
//!   is an edit, lowered into exactly the native fields it touches.
//! - Geometry is compared with what the export writes for the rebuilt rig, as sets of distinct
//!   vertices and triangles (Blender splits, merges and reorders both); edited, deleted, added
//!   meshes and changed materials are written back by the format (`meshback`), unless
//!   [`ImportOptions::ignore_mesh_edits`] keeps the original streams. A new mesh hangs on the
//!   skeleton of its own skin's joints; mesh nodes that are not the rig's (not skinned to it,
//!   of another armature, outside the scene) are named in the report ([`Ignored`]).
//! - [`onto`]: a glTF without rigtrip data onto a native template, its skinned meshes written
//!   as new meshes by the same path.

mod animations;
mod archive;
mod edits;
mod error;
mod graph;
mod grid;
mod guard;
mod influence;
mod joints;
mod matching;
mod mesh;
mod meshback;
mod num_hash;
pub mod onto;
mod parts;
pub use error::*;
pub use mesh::Ignored;
pub mod motions;
mod new_motions;
mod pyrepr;
mod read;
mod rebuild;
mod recompute;
mod repose;
mod retarget;
mod scene;
pub mod suggest;

use crate::gltf::DataError;
use std::fmt;
use std::path::Path;

use serde::Serialize;

use super::{ExportError, Space};
use crate::native::{NativeFile, WriteError};
use crate::rig::extras::ExtrasError;
use crate::rig::LowerError;

/// The default of `--tolerance`, glTF units (metres): see [`Tolerance`].
pub const DEFAULT_TOLERANCE: f64 = 1e-4;

/// What the caller may choose about an import.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Overrides [`DEFAULT_TOLERANCE`] (see [`Tolerance::from_option`]).
    pub tolerance: Option<f64>,
    /// Keep the original meshes when the glTF's geometry was edited instead of refusing.
    pub ignore_mesh_edits: bool,
    /// The file name of the archive (among those the glTF carries) that new motions whose
    /// name gives no archive slot go into; `None`: each becomes a `.mot` file of its own.
    pub new_motions_into: Option<String>,
    /// A character archive: write the shadow model of each model whose meshes changed anew
    /// from the new meshes (one closed hull per joint, see [`crate::rig::shadow`]), instead of
    /// carrying the old one, and give a coat without a shadow its slot 14.
    pub rebuild_shadows: bool,
}

/// A rebuilt native file and what the import did.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The native structures.
    pub native: NativeFile,
    /// Their bytes.
    pub bytes: Vec<u8>,
    /// The glTF's joint names (native files hold none).
    pub names: JointNames,
    /// What changed, what was recomputed, what was defaulted.
    pub report: ImportReport,
    /// The motion files the glTF carries, rebuilt from its animations.
    pub motions: Vec<motions::ImportedMotionFile>,
}

/// The joint names of an imported glTF, as a names file.
#[derive(Debug, Clone, PartialEq)]
pub struct JointNames {
    /// `{"skeleton": ["name", ...]}`: what `export --names` reads.
    pub names: serde_json::Value,
    /// Whether every name is rigtrip's default (`<skeleton>_<k>`), so no names file is needed.
    pub default: bool,
}

/// How far an incoming value may stray from what the export wrote and still count as unchanged.
///
/// One number `T` (default [`DEFAULT_TOLERANCE`] = 1e-4) sets the joint tolerances: a translation
/// component may differ by `T` metres plus `T` per metre of the joint's distance from the
/// origin (float noise grows with the coordinates), a rotation by `10·T` radians, a scale factor
/// from 1 by `10·T`. Measured on Blender 4.5 round trips of the samples and 30 generated rigs:
/// up to 1.7e-5 m (5e-6 relative: long chains of rotated joints accumulate it), 2.1e-5 rad and
/// 1.05e-5 of scale; the default keeps at least 20 times that (the report shows how close noise
/// came). No deliberate edit is that small: 0.1 mm is a tenth of a HIE unit and a hundredth of
/// a DMC3 unit, 1e-3 rad is 0.06°.
///
/// Vertex positions use the translation tolerance; the other vertex attributes have fixed
/// tolerances set by what Blender does to them: normals pass through its compressed
/// custom-normal encoding (measured up to 0.016 rad off on random meshes, so 0.1 rad, while
/// "shade flat" or recomputed normals move them by far more), colours through 8-bit sRGB
/// (measured 2.8e-3, so 6e-3), weights and UVs come back exact to f32 noise (1e-3 and 1e-4; a
/// DMC3 UV step is 2.4e-4).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Tolerance {
    /// Absolute part of the translation tolerance, metres.
    pub translation_m: f64,
    /// Relative part: metres per metre of distance from the origin.
    pub translation_per_m: f64,
    /// Rotation angle, radians.
    pub rotation_rad: f64,
    /// Deviation of a scale factor from 1.
    pub scale: f64,
    /// Vertex weight (after normalisation).
    pub weight: f64,
    /// Angle between normals, radians.
    pub normal_rad: f64,
    /// Texture coordinate.
    pub uv: f64,
    /// Colour component (0..1).
    pub color: f64,
}

impl Tolerance {
    /// The tolerances for `--tolerance T` (`None`: the default); `T` must be finite and >= 0.
    pub fn from_option(t: Option<f64>) -> Result<Tolerance, ImportError> {
        let t = t.unwrap_or(DEFAULT_TOLERANCE);
        if !(t.is_finite() && t >= 0.0) {
            return Err(ImportError::Tolerance(t));
        }
        Ok(Tolerance {
            translation_m: t,
            translation_per_m: t,
            rotation_rad: 10.0 * t,
            scale: 10.0 * t,
            weight: 1e-3,
            normal_rad: 0.1,
            uv: 1e-4,
            color: 6e-3,
        })
    }

    /// The translation tolerance at distance `r` metres from the origin.
    pub fn translation_at(&self, r: f64) -> f64 {
        self.translation_m + self.translation_per_m * r.abs()
    }
}

/// What the import did, for the user to see (`--json` serialises it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportReport {
    /// Native format (`hie`, `mod`, `scm`, `block`).
    pub format: String,
    /// The space conversion that was inverted.
    pub space: Space,
    /// The tolerances used.
    pub tolerance: Tolerance,
    /// One entry per skeleton.
    pub skeletons: Vec<SkeletonReport>,
    /// The geometry comparison.
    pub meshes: MeshReport,
    /// The largest deviations taken as float noise (and restored bit for bit).
    pub noise: Noise,
    /// Other things worth knowing.
    pub notes: Vec<String>,
    /// The motion files rebuilt from the animations (none when the glTF carries none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub motions: Vec<motions::MotionFileReport>,
    /// The glTF's animations the import does not write, with the reason (none when every
    /// animation was written).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub animations_not_written: Vec<motions::NotWritten>,
    /// The archive's shadow models of a body whose meshes changed: carried as they were, so
    /// they still cast the old body (none when the body's meshes are unchanged).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale_shadows: Vec<archive::StaleShadow>,
    /// The archive's textures re-encoded from repainted or replaced images (none when every
    /// texture came back from its image's native bytes).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub textures: Vec<crate::rig::archive::Reencoded>,
    /// The archive's other models (a coat), each imported as its own model.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ModelReport>,
}

/// What the import did with one other model of the archive.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelReport {
    /// Its name in the document (`coat`).
    pub name: String,
    /// Its member's offset in the archive read.
    pub offset: u32,
    /// Its import, as for the model.
    pub report: ImportReport,
}

/// What happened to one skeleton.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkeletonReport {
    /// Skeleton index.
    pub index: usize,
    /// Skeleton name.
    pub name: String,
    /// Joints in the original file.
    pub joints_before: usize,
    /// Joints written.
    pub joints_after: usize,
    /// Joints restored exactly, with nothing to report.
    pub unchanged: usize,
    /// Joints with something to report.
    pub joints: Vec<JointReport>,
    /// Original indices of joints no longer in the glTF (removed).
    pub removed: Vec<usize>,
    /// Skeleton-level fields that were rewritten (arrays, layout, order).
    pub rewritten: Vec<String>,
}

/// What happened to one joint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JointReport {
    /// Index in the written file.
    pub joint: usize,
    /// Index in the original file (`None` for an added joint).
    pub original: Option<usize>,
    /// Node name in the glTF.
    pub name: String,
    /// Node index in the glTF.
    pub node: usize,
    /// What changed: `moved`, `rotated`, `reparented ...`, `added`, `renumbered ...`.
    pub changes: Vec<String>,
    /// Native fields recomputed.
    pub recomputed: Vec<String>,
    /// Native fields set to documented defaults (added joints).
    pub defaults: Vec<String>,
    /// Precision lost when the value was stored (integer offsets), when over 0.001 units.
    pub rounding: Option<String>,
}

/// How the glTF's geometry compares with the original.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MeshStatus {
    /// Neither side has geometry (proxies aside).
    None,
    /// The geometry is what the export wrote; the original streams are kept.
    Unchanged,
    /// The geometry was edited; `--ignore-mesh-edits` kept the original streams.
    EditedIgnored,
    /// The geometry was edited and written back (see [`MeshReport::written`]).
    Written,
    /// `import --onto`: the template's meshes replaced by the glTF's.
    Replaced,
}

/// The geometry comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeshReport {
    /// Outcome.
    pub status: MeshStatus,
    /// Distinct vertices the export writes for the rebuilt rig.
    pub expected_vertices: usize,
    /// Distinct vertices in the glTF.
    pub incoming_vertices: usize,
    /// Triangles the export writes (corners at three different positions; a triangle two
    /// meshes share counts twice).
    pub expected_triangles: usize,
    /// Triangles in the glTF, counted the same way.
    pub incoming_triangles: usize,
    /// Proxy mesh nodes ignored.
    pub proxies_ignored: usize,
    /// Original vertices no triangle uses: not compared (tools drop them), kept in the streams.
    pub unused_vertices: usize,
    /// The first differences found (empty when unchanged).
    pub differences: Vec<String>,
    /// How many differences there are in all.
    pub difference_count: usize,
    /// glTF nodes with geometry that the import does not use (not skinned to the rig, of
    /// another armature, outside the scene), each with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<Ignored>,
    /// What writing the meshes back did (status `written`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written: Option<crate::rig::mesh::MeshWrite>,
}

/// The largest deviations accepted as noise.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Noise {
    /// Translation component, metres.
    pub translation_m: f64,
    /// Rotation angle, radians.
    pub rotation_rad: f64,
    /// Scale factor deviation from 1.
    pub scale: f64,
    /// The largest deviation as a fraction of its tolerance (how close noise came to being
    /// taken for an edit).
    pub closest: f64,
}

/// Imports a `.glb`, a `.gltf` with embedded `data:` buffers, or a `.gltf` whose buffers are
/// files next to it (Blender's "glTF Separate").
pub fn import_path(path: &Path, opts: &ImportOptions) -> Result<Imported, ImportError> {
    let (bytes, dir) = read_gltf(path)?;
    import_slice(&bytes, dir, opts)
}

/// A glTF file's bytes and the folder its separate buffers are looked up in (`.` for a bare
/// file name).
fn read_gltf(path: &Path) -> Result<(Vec<u8>, Option<&Path>), ImportError> {
    let bytes = std::fs::read(path).map_err(|e| ImportError::Io {
        path: path.display().to_string(),
        source: e.into(),
    })?;
    let dir = path.parent().map(|p| {
        if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        }
    });
    Ok((bytes, dir))
}

/// Imports a GLB or glTF JSON held in memory; separate buffer files are looked up in `base_dir`.
pub fn import_slice(
    bytes: &[u8],
    base_dir: Option<&Path>,
    opts: &ImportOptions,
) -> Result<Imported, ImportError> {
    let tol = Tolerance::from_option(opts.tolerance)?;
    let doc = read::parse(bytes, base_dir)?;
    let tag = archive::tag(&doc)?;
    archive::cloth_rows_present(&doc, tag.as_ref())?;
    let images = archive::doc_images(&doc);
    let added = archive::added_textures(&images, tag.as_ref())?;
    let split = match &tag {
        Some(t) => parts::split(&doc, t)?,
        None => None,
    };
    let Some(split) = split else {
        let mut imported = rebuild::import(&doc, &added, &tol, opts)?;
        archive::rebuild(
            &images,
            tag,
            &mut imported,
            Vec::new(),
            opts.rebuild_shadows,
        )?;
        return Ok(imported);
    };
    let mut imported = rebuild::import(&split.model, &added, &tol, opts)?;
    let models = parts::import(split.parts, &added, &tol, opts)?;
    archive::rebuild(&images, tag, &mut imported, models, opts.rebuild_shadows)?;
    Ok(imported)
}

/// What writing one mesh back did, in a line.
fn written_line(x: &crate::rig::mesh::MeshWritten) -> String {
    let mut parts = Vec::new();
    match x.change.as_str() {
        "removed" => parts.push(format!("removed ({} vertices)", x.vertices_before)),
        "texture" => {}
        change => parts.push(format!(
            "{change}: {} -> {} stored vertices, {} triangles in {} strips, {} vertices kept bit for bit",
            x.vertices_before, x.vertices_after, x.triangles, x.strips, x.kept_vertices
        )),
    }
    if let Some((a, b)) = x.texture {
        parts.push(format!("texture {a} -> {b}"));
    }
    if x.lost_weight > 0 {
        parts.push(format!(
            "{} vertices had more than three influences: {} of the smallest dropped, the rest renormalised",
            x.lost_weight, x.influences_dropped
        ));
    }
    if let Some(e) = x.weight_error {
        parts.push(format!(
            "weights as 5-bit n/31: largest weight error {}",
            crate::units::value(e)
        ));
    }
    if let Some(t) = x.object_from {
        parts.push(format!(
            "in a new object, its record copied from object {t}"
        ));
    }
    if x.degenerate_triangles > 0 {
        parts.push(format!(
            "{} triangles dropped (two corners are the same stored vertex)",
            x.degenerate_triangles
        ));
    }
    parts.join("; ")
}

impl ImportReport {
    /// The report as text, one line per fact.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        let mut line = |s: String| {
            out.push_str(&s);
            out.push('\n');
        };
        self.render_settings(&mut line);
        for s in &self.skeletons {
            render_skeleton(s, &mut line);
        }
        render_meshes(&self.meshes, &mut line);
        for f in &self.motions {
            f.render_text(self.space.scale, &mut line);
        }
        for a in &self.animations_not_written {
            line(format!("{a}"));
        }
        for s in &self.stale_shadows {
            line(format!("{s}"));
        }
        for t in &self.textures {
            line(format!("{t}"));
        }
        for n in &self.notes {
            line(format!("note: {n}"));
        }
        for m in &self.models {
            line(format!("model {:?} (member at {:#x}):", m.name, m.offset));
            for l in m.report.render_text().lines() {
                line(format!("  {l}"));
            }
        }
        out
    }

    /// The format, space and tolerance lines, and the noise restored (unless onto a template,
    /// where nothing is compared with an original).
    fn render_settings(&self, line: &mut impl FnMut(String)) {
        use crate::units::{degrees, length, value};
        line(format!(
            "format {}, space: scale {} m per unit, rotation {}",
            self.format,
            value(self.space.scale),
            self.space.rotation.name()
        ));
        line(format!(
            "tolerance: translation {} + {} per m, rotation {}, scale {}",
            length(self.tolerance.translation_m),
            value(self.tolerance.translation_per_m),
            degrees(self.tolerance.rotation_rad),
            value(self.tolerance.scale)
        ));
        // Onto a template nothing is compared with an original: no noise to restore.
        let replaced = self.meshes.status == MeshStatus::Replaced;
        (!replaced).then(|| line(format!(
            "noise restored to the original bits: up to {}, {}, scale {} ({:.0}% of the tolerance at most)",
            length(self.noise.translation_m),
            degrees(self.noise.rotation_rad),
            value(self.noise.scale),
            100.0 * self.noise.closest
        )));
    }
}

/// A skeleton's lines: its counts, a line per joint, the joints removed, what was rewritten.
fn render_skeleton(s: &SkeletonReport, line: &mut impl FnMut(String)) {
    line(format!(
        "skeleton {} ({}): {} joints -> {}, {} unchanged",
        s.index, s.name, s.joints_before, s.joints_after, s.unchanged
    ));
    for j in &s.joints {
        line(joint_line(j));
    }
    if !s.removed.is_empty() {
        line(format!(
            "  removed joints (original indices): {:?}",
            s.removed
        ));
    }
    for r in &s.rewritten {
        line(format!("  rewritten: {r}"));
    }
}

/// A joint's line: its index (and the original one), name, node, and what happened to it.
fn joint_line(j: &JointReport) -> String {
    let mut parts = Vec::new();
    if !j.changes.is_empty() {
        parts.push(j.changes.join(", "));
    }
    if !j.recomputed.is_empty() {
        parts.push(format!("recomputed {}", j.recomputed.join(", ")));
    }
    if !j.defaults.is_empty() {
        parts.push(format!("defaults {}", j.defaults.join(", ")));
    }
    if let Some(r) = &j.rounding {
        parts.push(format!("rounding: {r}"));
    }
    let origin = match j.original {
        Some(o) if o != j.joint => format!(" (was {o})"),
        Some(_) => String::new(),
        None => " (new)".into(),
    };
    format!(
        "  joint {}{origin} {} [node {}]: {}",
        j.joint,
        j.name,
        j.node,
        parts.join("; ")
    )
}

/// The meshes' lines: their status and counts, the differences found, the nodes not used and
/// what was written mesh by mesh.
fn render_meshes(m: &MeshReport, line: &mut impl FnMut(String)) {
    line(mesh_status_line(m));
    if m.unused_vertices > 0 {
        line(format!(
            "  {} original vertices belong to no triangle: not compared (glTF tools drop them), kept as they are",
            m.unused_vertices
        ));
    }
    if m.status == MeshStatus::Written {
        // The meshes written say what changed, mesh by mesh, below.
        line(format!(
            "  {} differences from the original geometry (--json lists the first {}); written mesh by mesh:",
            m.difference_count,
            m.differences.len()
        ));
    } else {
        for d in &m.differences {
            line(format!("  {d}"));
        }
        if m.difference_count > m.differences.len() {
            line(format!(
                "  ... {} more differences",
                m.difference_count - m.differences.len()
            ));
        }
    }
    for x in &m.ignored {
        line(format!(
            "  NOT USED: node {} ({}): {}",
            x.node, x.name, x.reason
        ));
    }
    if let Some(w) = &m.written {
        for x in &w.meshes {
            line(format!(
                "  mesh {} ({}): {}",
                x.name,
                x.native,
                written_line(x)
            ));
        }
        for n in &w.notes {
            line(format!("  {n}"));
        }
    }
}

/// The meshes' first line: what became of them, the vertex and triangle counts.
fn mesh_status_line(m: &MeshReport) -> String {
    let status = match m.status {
        MeshStatus::None => "no geometry",
        MeshStatus::Unchanged => "unchanged, original streams kept",
        MeshStatus::EditedIgnored => "EDITED, ignored (--ignore-mesh-edits): original streams kept",
        MeshStatus::Written => "EDITED, written back",
        MeshStatus::Replaced => "REPLACED by the glTF's",
    };
    let (a, b, c, d) = (
        m.expected_vertices,
        m.expected_triangles,
        m.incoming_vertices,
        m.incoming_triangles,
    );
    let counts = if m.status == MeshStatus::Replaced {
        format!("the template had {a} vertices and {b} triangles, the glTF has {c} and {d}")
    } else {
        format!("{a} vertices and {b} triangles expected, {c} and {d} found")
    };
    format!(
        "meshes: {status} ({counts}, {} proxies ignored)",
        m.proxies_ignored
    )
}
