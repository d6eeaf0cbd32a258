//! Rebuilding the native file from the glTF, step by step: the scene extras ([`super::scene`]),
//! the joints matched, restored and numbered ([`super::edits`]), lowering and the fields it
//! recomputed ([`super::recompute`]), then the geometry comparison and the report.

use std::borrow::Cow;

use serde_json::Value;

use super::edits::{build, Built};
use super::graph::Graph;
use super::guard;
use super::mesh;
use super::meshback;
use super::read::Doc;
use super::recompute::recomputed_fields;
use super::scene::{find_scene, rigtrip_value, Found, SceneExtras};
use super::{
    ImportError, ImportOptions, ImportReport, Imported, JointNames, MeshReport, MeshStatus,
    Tolerance,
};
use crate::gltf::{ExportOptions, Exported, Space};
use crate::rig::archive::AddedTextures;
use crate::rig::mesh::{IncomingMesh, Mesh};

/// The whole import of a parsed document.
pub(crate) fn import(
    doc: &Doc,
    added: &AddedTextures,
    tol: &Tolerance,
    opts: &ImportOptions,
) -> Result<Imported, ImportError> {
    let (index, scene, ex, r) = scene_extras(doc)?;
    let graph = Graph::read(doc.json(), scene, &doc.node_extras, Some(ex.format))?;
    let mut built = build(doc, &graph, &ex, tol)?;
    if let Some((skeleton, joints)) = guard::turned_in_place(&built, ex.space, tol) {
        return Err(ImportError::TurnedInPlace { skeleton, joints });
    }
    let rig_meshes = built.rig.meshes();
    let exported = export_rig_geometry(&built, &rig_meshes, ex.space)?;
    let mut meshes = mesh::compare(doc, &graph, &built.ids, exported.as_ref(), tol)?;
    if let Some(n) = added.count {
        // The archive's texture bundle grows: the model's count follows (before the meshes
        // are written, which say when an index is past it).
        let format = built.rig.source.format();
        if let Some((was, at)) = format.set_texture_count(&mut built.rig, n) {
            built.notes.push(format!(
                "texture count ({at}): {was} -> {n} (new textures in the archive)"
            ));
        }
    }
    let cx = meshback::Context {
        doc,
        aliases: &added.aliases,
        graph: &graph,
        ids: &built.ids,
        exported: exported.as_ref(),
        originals: &rig_meshes,
        space: ex.space,
        tol,
        format: built.rig.source.format(),
    };
    let incoming = meshback::incoming_meshes(&cx, meshes.difference_count > 0)?;
    if let Some(incoming) = incoming {
        let read = (doc, &graph, exported.as_ref());
        take_mesh_edits(&mut built, &mut meshes, &incoming, read, ex.space, opts)?;
    }
    let native = crate::rig::lower(&built.rig)?;
    let bytes = native.write()?;
    recomputed_fields(&mut built, &native, ex.format);
    let rest = crate::rig::motion::rest_channels(&built.rig, 0);
    let ptr = format!("/scenes/{index}/extras/rigtrip");
    let into = opts.new_motions_into.as_deref();
    let (motions, not_written) =
        super::animations::import(doc, &graph, &r, &ptr, ex.space, &rest, tol, into)?;
    let mut notes = std::mem::take(&mut built.notes);
    let names = joint_names(&built.rig);
    // Said only when there are names to lose: some joint is not named rigtrip's default way.
    if !names.default {
        notes.push("joint names are not stored in the native file: renames change no byte".into());
    }
    Ok(Imported {
        native,
        bytes,
        names,
        report: ImportReport {
            format: ex.kind.clone(),
            space: ex.space,
            tolerance: *tol,
            skeletons: built.reports,
            meshes,
            noise: built.noise,
            notes,
            motions: motions.iter().map(|m| m.report.clone()).collect(),
            animations_not_written: not_written,
            stale_shadows: Vec::new(),
            textures: Vec::new(),
            models: Vec::new(),
        },
        motions,
    })
}

/// The document's rigtrip scene: its index, the scene, its extras, and the `extras.rigtrip`
/// value the motions are read from (`null` when the scene records none).
fn scene_extras<'v>(
    doc: &'v Doc,
) -> Result<(usize, &'v Value, SceneExtras, Cow<'v, Value>), ImportError> {
    let (index, scene, found) = find_scene(doc)?;
    // Read typed when in the export's own form; by the `Value` reader otherwise.
    let (ex, r) = match found {
        // The motions are read from the value (only a file with motions needs it).
        Found::Typed(ex, true, raw) => (*ex, rigtrip_value(scene, raw)),
        Found::Typed(ex, false, _) => (*ex, Cow::Owned(Value::Null)),
        Found::Value(r) => (SceneExtras::read(index, &r)?, r),
    };
    Ok((index, scene, ex, r))
}

/// What the export writes for the rebuilt rig's own meshes (`rig_meshes`), to compare the
/// document's geometry with. The export writes geometry only for those (proxies are not
/// compared): a rig without any needs no export to know that none is expected.
fn export_rig_geometry(
    built: &Built,
    rig_meshes: &[Mesh],
    space: Space,
) -> Result<Option<Exported>, ImportError> {
    if rig_meshes.is_empty() {
        return Ok(None);
    }
    let opts = ExportOptions {
        scale: Some(space.scale),
        names: None,
    };
    crate::gltf::export::export_geometry(&built.rig, rig_meshes, &opts)
        .map(Some)
        .map_err(ImportError::Export)
}

/// Takes the `incoming` meshes, which differ from the rig's: written into the rig, or with
/// `--ignore-mesh-edits` left out (refused when the joints were scaled with the meshes, which
/// `read` shows).
fn take_mesh_edits(
    built: &mut Built,
    meshes: &mut MeshReport,
    incoming: &[IncomingMesh],
    (doc, graph, exported): (&Doc, &Graph, Option<&Exported>),
    space: Space,
    opts: &ImportOptions,
) -> Result<(), ImportError> {
    if opts.ignore_mesh_edits {
        if let Some(factor) =
            guard::scaled_with_meshes(built, meshes, doc, graph, &built.ids, exported)?
        {
            return Err(ImportError::ScaledWithMeshes(factor));
        }
        meshes.status = MeshStatus::EditedIgnored;
    } else {
        let format = built.rig.source.format();
        let written = format.write_meshes(&mut built.rig, incoming, space)?;
        meshes.status = MeshStatus::Written;
        meshes.written = Some(written);
    }
    Ok(())
}

/// The glTF's joint names as a names file (`{"skeleton": ["name", ...]}`, what `export --names`
/// reads), and whether every one is the name rigtrip gives by default.
fn joint_names(rig: &crate::rig::Rig) -> JointNames {
    let default = rig.skeletons.iter().all(|s| {
        s.joints
            .iter()
            .enumerate()
            .all(|(k, j)| j.name == crate::rig::joint_name(&s.name, k))
    });
    let map: serde_json::Map<String, serde_json::Value> = rig
        .skeletons
        .iter()
        .filter(|s| !s.joints.is_empty())
        .map(|s| {
            let names = s.joints.iter().map(|j| j.name.clone().into()).collect();
            (s.name.clone(), serde_json::Value::Array(names))
        })
        .collect();
    JointNames {
        names: serde_json::Value::Object(map),
        default,
    }
}
