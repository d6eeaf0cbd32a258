//! The archive a document came from, rebuilt around the imported model
//! (see [`crate::gltf::archive`]): its tag from the scene extras, each texture from the PNG of
//! an image carrying the `rgTX` chunk.

use serde_json::Value;

use serde::Serialize;

use super::read::Doc;
use super::{ImportError, Imported};
use super::{MeshReport, MeshStatus};
use crate::gltf::archive::{ArchiveTag, Carried, MemberTag};
use crate::gltf::texture::{native_entry, png_size};
use crate::native::dmc3::pac::{slot_name, BODY_SHADOW_SLOT};

/// `scene.extras.rigtrip.archive` of the first scene that has one.
fn tag(doc: &Doc) -> Result<Option<ArchiveTag>, ImportError> {
    let scenes = doc.json().get("scenes").and_then(Value::as_array);
    for (s, scene) in scenes.into_iter().flatten().enumerate() {
        let found = match doc.scene_extras.get(s).copied().flatten() {
            Some(raw) => serde_json::from_str::<Value>(raw.get()).ok(),
            None => scene.get("extras").cloned(),
        };
        if let Some(a) = found
            .as_ref()
            .and_then(|e| e.get("rigtrip")?.get("archive"))
        {
            let t = serde_json::from_value(a.clone()).map_err(|e| {
                super::scene::extras_err(
                    format!("/scenes/{s}/extras/rigtrip/archive"),
                    e.to_string(),
                )
            })?;
            return Ok(Some(t));
        }
    }
    Ok(None)
}

/// The bytes of image `i` when they sit in a buffer view.
fn image_bytes<'d>(doc: &'d Doc, image: &Value) -> Option<&'d [u8]> {
    let json = doc.json();
    let view = json
        .get("bufferViews")?
        .get(usize::try_from(image.get("bufferView")?.as_u64()?).ok()?)?;
    let buffer = usize::try_from(view.get("buffer")?.as_u64()?).ok()?;
    let offset =
        usize::try_from(view.get("byteOffset").and_then(Value::as_u64).unwrap_or(0)).ok()?;
    let len = usize::try_from(view.get("byteLength")?.as_u64()?).ok()?;
    let bytes = doc.doc.buffers.get(buffer)?.as_deref()?;
    bytes.get(offset..offset.checked_add(len)?)
}

/// When the document carries an archive: its bytes in place of the model's, and a note.
pub(super) fn rebuild(doc: &Doc, imported: &mut Imported) -> Result<(), ImportError> {
    let Some(tag) = tag(doc)? else {
        return Ok(());
    };
    let images = doc.json().get("images").and_then(Value::as_array);
    let entries: Vec<Option<Carried>> = images
        .into_iter()
        .flatten()
        .map(|img| {
            let png = image_bytes(doc, img)?;
            native_entry(png).map(|(i, entry)| (i, entry, png_size(png)))
        })
        .collect();
    let (bytes, moved) = tag.rebuild(&imported.bytes, &entries)?;
    let carried = entries.iter().flatten().count();
    imported.report.notes.push(format!(
        "archive: {} member(s) in {} slot(s) around the model, {carried} texture(s) from their images' native bytes (rgTX){}",
        tag.members.len(),
        tag.offsets.len(),
        match moved {
            true => "; members after a changed one moved to the next 16-byte boundary",
            false => ", every member at its offset",
        }
    ));
    imported.bytes = bytes;
    imported.report.stale_shadows = stale_shadows(&tag, &imported.report.meshes);
    Ok(())
}

/// A shadow model of the body (a carried member in the body-shadow slot) left as it was while
/// the body's meshes changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StaleShadow {
    /// The member's index in offset order (as `inspect` numbers them).
    pub member: usize,
    /// Its offset in the archive read.
    pub offset: u32,
    /// The slots naming it.
    pub slots: Vec<usize>,
}

impl std::fmt::Display for StaleShadow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let named: Vec<String> = self
            .slots
            .iter()
            .map(|&s| match slot_name(s) {
                Some(name) => format!("slot {s}, {name}"),
                None => format!("slot {s}"),
            })
            .collect();
        write!(
            f,
            "member {} ({}): the shadow still casts the old body (its layout is not public: carried as it was)",
            self.member,
            named.join("; ")
        )
    }
}

/// The members of `tag` in the body-shadow slot when a mesh of the body was edited, added or
/// removed (a changed texture index alone leaves the shape, and so the shadow, as it was).
fn stale_shadows(tag: &ArchiveTag, meshes: &MeshReport) -> Vec<StaleShadow> {
    let changed = meshes
        .written
        .as_ref()
        .is_some_and(|w| w.meshes.iter().any(|m| m.change != "texture"));
    if meshes.status != MeshStatus::Written || !changed {
        return Vec::new();
    }
    tag.members
        .iter()
        .enumerate()
        .filter_map(|(member, m)| match m {
            MemberTag::Bytes { offset, slots, .. } if slots.contains(&BODY_SHADOW_SLOT) => {
                Some(StaleShadow {
                    member,
                    offset: *offset,
                    slots: slots.clone(),
                })
            }
            _ => None,
        })
        .collect()
}
