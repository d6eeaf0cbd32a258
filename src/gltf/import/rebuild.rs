//! Rebuilding the native file from the glTF, step by step: the scene extras ([`super::scene`]),
//! the joints matched, restored and numbered ([`super::edits`]), lowering and the fields it
//! recomputed ([`super::recompute`]), then the geometry comparison and the report.

use super::edits::build;
use super::graph::Graph;
use super::mesh;
use super::read::Doc;
use super::recompute::recomputed_fields;
use super::scene::{find_scene, SceneExtras};
use super::{ImportError, ImportOptions, ImportReport, Imported, MeshStatus, Tolerance};
use crate::gltf::ExportOptions;

/// The whole import of a parsed document.
pub(crate) fn import(
    doc: &Doc,
    tol: &Tolerance,
    opts: &ImportOptions,
) -> Result<Imported, ImportError> {
    let (index, scene, r) = find_scene(&doc.json)?;
    let ex = SceneExtras::read(index, &r)?;
    let graph = Graph::read(&doc.json, scene)?;
    let mut built = build(&doc.json, &graph, &ex, tol)?;
    let native = crate::rig::lower(&built.rig)?;
    let bytes = native.write()?;
    recomputed_fields(&mut built, &native, ex.format);

    // The export writes geometry only for the rig's own meshes (proxies are not compared): a rig
    // without any needs no export to know that none is expected.
    let rig_meshes = built.rig.meshes();
    let exported = if rig_meshes.is_empty() {
        None
    } else {
        let opts = ExportOptions {
            scale: Some(ex.space.scale),
            names: None,
        };
        Some(
            crate::gltf::export::export_geometry(&built.rig, rig_meshes, &opts)
                .map_err(ImportError::Export)?,
        )
    };
    let mut meshes = mesh::compare(doc, &graph, &built.ids, exported.as_ref(), tol)?;
    if meshes.difference_count > 0 {
        if !opts.ignore_mesh_edits {
            let first = meshes.differences.first().cloned().unwrap_or_default();
            return Err(ImportError::MeshEdited(if meshes.difference_count > 1 {
                format!("{first}; {} differences in all", meshes.difference_count)
            } else {
                first
            }));
        }
        meshes.status = MeshStatus::EditedIgnored;
    }
    let rest = crate::rig::motion::rest_channels(&built.rig, 0);
    let ptr = format!("/scenes/{index}/extras/rigtrip");
    let motions = super::motions::import(doc, &graph, &r, &ptr, ex.space, &rest, tol)?;
    let mut notes = std::mem::take(&mut built.notes);
    notes.push("joint names are not stored in the native file: renames change no byte".into());
    Ok(Imported {
        native,
        bytes,
        report: ImportReport {
            format: ex.kind.clone(),
            space: ex.space,
            tolerance: *tol,
            skeletons: built.reports,
            meshes,
            noise: built.noise,
            notes,
            motions: motions.iter().map(|m| m.report.clone()).collect(),
        },
        motions,
    })
}
