//! The archive a document came from, rebuilt around the imported model
//! (see [`crate::rig::archive`]): its tag from the scene extras, each texture from the PNG of
//! an image carrying the `rgTX` chunk.

use serde::Serialize;
use serde_json::Value;

use super::parts::PartImport;
use super::read::Doc;
use super::{ImportError, Imported};
use super::{MeshReport, MeshStatus, ModelReport};
use crate::rgba::native_entry;
use crate::rig::archive::MemberTag;
use crate::rig::archive::{AddedTextures, ArchiveTag, DocImage, MemberRef};

/// `scene.extras.rigtrip.archive` of the first scene that has one.
pub(super) fn tag(doc: &Doc) -> Result<Option<ArchiveTag>, ImportError> {
    let scenes = doc.json().get("scenes").and_then(Value::as_array);
    let of_value = |e: Option<&Value>| e?.get("rigtrip")?.get("archive").cloned();
    for (s, scene) in scenes.into_iter().flatten().enumerate() {
        let found = match doc.scene_extras(s) {
            Some(raw) => match archive_typed(raw.get()) {
                Some(tag) => tag.and_then(|t| serde_json::from_str::<Value>(t.get()).ok()),
                None => of_value(serde_json::from_str::<Value>(raw.get()).ok().as_ref()),
            },
            None => of_value(scene.get("extras")),
        };
        if let Some(a) = found {
            let mut t: ArchiveTag = serde_json::from_value(a).map_err(|e| {
                super::scene::extras_err(
                    format!("/scenes/{s}/extras/rigtrip/archive"),
                    e.to_string(),
                )
            })?;
            // Only cloth text has properties beside the tag: no second scan of the extras else.
            if t.members
                .iter()
                .any(|m| matches!(m, MemberTag::Cloth { .. }))
            {
                t.properties = properties(doc, s, scene);
            }
            return Ok(Some(t));
        }
    }
    Ok(None)
}

/// The extras of scene `s` (`scene` in the JSON) beside `rigtrip`: the properties a modder
/// edits one by one (see [`crate::rig::cloth`]).
fn properties(doc: &Doc, s: usize, scene: &Value) -> serde_json::Map<String, Value> {
    use serde_json::value::RawValue;
    let mut out = serde_json::Map::new();
    match doc.scene_extras(s) {
        // Borrowed raw values: the tag (with the model's streams) is not built as a tree.
        Some(raw) => {
            type Entries<'a> = std::collections::BTreeMap<String, &'a RawValue>;
            let entries = serde_json::from_str::<Entries>(raw.get()).ok();
            for (k, v) in entries.into_iter().flatten() {
                if k != "rigtrip" {
                    out.extend(serde_json::from_str::<Value>(v.get()).ok().map(|v| (k, v)));
                }
            }
        }
        None => {
            if let Some(Value::Object(m)) = scene.get("extras") {
                let props = m.iter().filter(|(k, _)| *k != "rigtrip");
                out.extend(props.map(|(k, v)| (k.clone(), v.clone())));
            }
        }
    }
    out
}

/// `extras.rigtrip.archive` of a scene's extras text, found without building the rest as a
/// `Value` (a model's scene extras carry its vertex streams: reading them whole here cost 5% of
/// `verify`): `Some(None)` when the text has none, `None` when the typed read declines (not an
/// object, `rigtrip` not an object, a key twice, ...), and the caller reads the text as a `Value`.
fn archive_typed(text: &str) -> Option<Option<&serde_json::value::RawValue>> {
    use crate::gltf::read::parse::typed;
    #[derive(serde::Deserialize)]
    struct ArchiveIn<'a> {
        #[serde(borrow, default, deserialize_with = "typed::present")]
        archive: Option<&'a serde_json::value::RawValue>,
    }
    typed::object::<typed::Extras<ArchiveIn>>(text).map(|e| e.rigtrip.and_then(|r| r.archive))
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
    let bytes = doc.buffers.get(buffer)?.as_deref()?;
    bytes.get(offset..offset.checked_add(len)?)
}

/// The document's images as the archive's rebuild sees them: name, bytes, and the materials
/// showing each as base colour.
pub(super) fn doc_images<'d>(doc: &'d Doc<'_>) -> Vec<DocImage<'d>> {
    let json = doc.json();
    let list = |key: &str| {
        json.get(key)
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
    };
    let mut out: Vec<DocImage> = list("images")
        .iter()
        .map(|img| DocImage {
            name: img.get("name").and_then(Value::as_str),
            materials: Vec::new(),
            png: image_bytes(doc, img),
        })
        .collect();
    let textures = list("textures");
    for m in list("materials") {
        let image = m
            .pointer("/pbrMetallicRoughness/baseColorTexture/index")
            .and_then(Value::as_u64)
            .and_then(|t| {
                textures
                    .get(usize::try_from(t).ok()?)?
                    .get("source")?
                    .as_u64()
            });
        let slot = image.and_then(|i| out.get_mut(usize::try_from(i).ok()?));
        if let (Some(slot), Some(name)) = (slot, m.get("name").and_then(Value::as_str)) {
            slot.materials.push(name);
        }
    }
    out
}

/// What the archive whose tag (if any) is `tag` gains from the document's `images`.
pub(super) fn added_textures(
    images: &[DocImage<'_>],
    tag: Option<&ArchiveTag>,
) -> Result<AddedTextures, ImportError> {
    match tag {
        Some(tag) => Ok(tag.added_textures(images)?),
        None => Ok(AddedTextures::default()),
    }
}

/// Without an archive, a model holds texture indices, not textures: the images edited or made
/// in an editor (no `rgTX` chunk) are named, so that no texture work is lost in silence.
fn images_not_written(images: &[DocImage<'_>]) -> Option<String> {
    let edited: Vec<String> = images
        .iter()
        .enumerate()
        .filter(|(_, i)| i.png.is_some_and(|p| native_entry(p).is_none()))
        .map(|(k, i)| {
            i.name
                .map_or_else(|| format!("image {k}"), |n| format!("{n:?}"))
        })
        .collect();
    (!edited.is_empty()).then(|| {
        format!(
            "image(s) {} not written: a model holds texture indices, not textures; edited and new textures are written back for a character archive (export ARCHIVE.pac, then import)",
            edited.join(", ")
        )
    })
}

/// When the document carries an archive: its bytes in place of the model's, with the textures
/// from the document's `images`, and a note. `parts` are the archive's other models, each
/// imported from its view of the document; with `rebuild_shadows`, the shadow model of each
/// model whose meshes changed is written anew from them ([`renew_shadows`]), and a coat without
/// a shadow gets one ([`coat_shadow`]).
pub(super) fn rebuild(
    images: &[DocImage<'_>],
    tag: Option<ArchiveTag>,
    imported: &mut Imported,
    parts: Vec<PartImport>,
    rebuild_shadows: bool,
) -> Result<(), ImportError> {
    let Some(mut tag) = tag else {
        imported.report.notes.extend(images_not_written(images));
        return Ok(());
    };
    let mut rebuilt: Vec<(u32, Vec<u8>)> = parts
        .iter()
        .map(|p| (p.offset, p.imported.bytes.clone()))
        .collect();
    let cloth = cloth(&tag, imported, &parts)?;
    rebuilt.extend(cloth.members);
    let report = &mut imported.report;
    report.notes.extend(cloth.notes);
    report.stale_shadows = stale_shadows(&tag, &[], &report.meshes);
    if rebuild_shadows {
        renew_shadows(&tag, &imported.native, report, &mut rebuilt);
    }
    let coat = tag
        .coat_part()
        .and_then(|o| parts.iter().find(|p| p.offset == o));
    let coat = coat.map(|p| p.imported.native.clone());
    let mut models: Vec<ModelReport> = parts
        .into_iter()
        .map(|p| part_report(&tag, p, rebuild_shadows, &mut rebuilt))
        .collect();
    let report = &mut imported.report;
    coat_shadow(
        &mut tag,
        &mut models,
        report,
        rebuild_shadows,
        coat.as_ref(),
    );
    let r = tag.rebuild(&imported.bytes, &rebuilt, images)?;
    imported.report.notes.push(format!(
        "archive: {} member(s) in {} slot(s) around the model, {} texture(s) from their images' native bytes (rgTX){}{}{}",
        tag.members.len(),
        tag.offsets.len(),
        r.carried,
        match r.reencoded.iter().filter(|t| !t.added).count() {
            0 => String::new(),
            n => format!(", {n} re-encoded from repainted images"),
        },
        match r.reencoded.iter().filter(|t| t.added).count() {
            0 => String::new(),
            n => format!(", {n} new from images on new materials (the model's texture count follows)"),
        },
        match r.moved {
            true => "; members after a changed one moved to the next 16-byte boundary",
            false => ", every member at its offset",
        }
    ));
    for name in &r.unused {
        imported.report.notes.push(format!(
            "image {name:?} is not in the archive: no texture was taken from it (another image carries the same texture, or it stands for no texture and its material names no new one; give it a material of another name than texture_N to add it)"
        ));
    }
    let bytes = r.bytes;
    imported.report.textures = r.reencoded;
    imported.bytes = bytes;
    imported.report.models = models;
    Ok(())
}

/// Refuses, before any model is imported, a cloth row naming a joint the document lost (see
/// [`crate::rig::cloth::lost_rows`]); joints are known by their tags (`part`, `joint`).
pub(super) fn cloth_rows_present(doc: &Doc, tag: Option<&ArchiveTag>) -> Result<(), ImportError> {
    let Some(tag) = tag.filter(|t| {
        t.members
            .iter()
            .any(|m| matches!(m, MemberTag::Cloth { .. }))
    }) else {
        return Ok(());
    };
    let mut present = std::collections::HashSet::new();
    for (i, n) in doc.array("nodes").iter().enumerate() {
        let Some(r) = super::graph::rigtrip_of(n, doc.node_extras(i)) else {
            continue;
        };
        let joint = r.get("joint").and_then(Value::as_u64);
        let first = r.get("skeleton").and_then(Value::as_u64) == Some(0);
        let part = r.get("part").and_then(Value::as_str).map(str::to_string);
        if let (Some(k), true) = (joint, first) {
            present.insert((part, k as usize));
        }
    }
    crate::rig::cloth::lost_rows(tag, &tag.properties, |part, k| {
        present.contains(&(part.map(str::to_string), k))
    })
    .map_err(|e| ImportError::Archive(e.into()))
}

/// The cloth members rebuilt from the document's cloth properties and the models as imported
/// (see [`crate::rig::cloth::rebuild`]), and what changed in them.
fn cloth(
    tag: &ArchiveTag,
    model: &Imported,
    parts: &[PartImport],
) -> Result<crate::rig::cloth::Rebuilt, ImportError> {
    if !tag
        .members
        .iter()
        .any(|m| matches!(m, MemberTag::Cloth { .. }))
    {
        return Ok(Default::default());
    }
    let models = crate::rig::cloth::Models {
        model: joints_of(model),
        parts: parts
            .iter()
            .map(|p| (p.name.clone(), joints_of(&p.imported)))
            .collect(),
    };
    let r = crate::rig::cloth::rebuild(tag, &tag.properties, &models);
    r.map_err(|e| ImportError::Archive(e.into()))
}

/// The joints of an imported model's first skeleton: where each original went, the names they
/// have in the document, the rest pose as written.
fn joints_of(i: &Imported) -> crate::rig::cloth::Joints {
    let sk = i.report.skeletons.first();
    let mut map: Vec<Option<usize>> = (0..sk.map_or(0, |s| s.joints_before)).map(Some).collect();
    if let Some(s) = sk {
        for &r in &s.removed {
            if let Some(m) = map.get_mut(r) {
                *m = None;
            }
        }
        for j in &s.joints {
            if let Some(m) = j.original.and_then(|k| map.get_mut(k)) {
                *m = Some(j.joint);
            }
        }
    }
    let rest = crate::rig::lift(i.native.clone())
        .skeletons
        .into_iter()
        .next();
    // The names of the first skeleton (a part's is named after it: `coat/mod`).
    let first = sk.map(|s| s.name.as_str()).unwrap_or_default();
    let names = i.names.names.get(first);
    let names = names.and_then(Value::as_array).map_or_else(Vec::new, |a| {
        a.iter()
            .map(|n| n.as_str().unwrap_or_default().to_string())
            .collect()
    });
    crate::rig::cloth::Joints { map, names, rest }
}

/// A coat (slot 12) without its shadow (slot 14): with `rebuild_shadows`, the shadow made from
/// the coat (the part's import, else the coat's carried bytes) and added to `tag`, said in the
/// coat's report (the archive's when the coat is not shown); without, a note that the game
/// needs it.
fn coat_shadow(
    tag: &mut ArchiveTag,
    models: &mut [ModelReport],
    report: &mut super::ImportReport,
    rebuild_shadows: bool,
    coat: Option<&crate::native::NativeFile>,
) {
    if !tag.lacks_coat_shadow() {
        return;
    }
    if !rebuild_shadows {
        report
            .notes
            .push(crate::rig::shadow::MISSING_COAT_SHADOW.to_string());
        return;
    }
    let rig = match coat {
        Some(native) => Some(crate::rig::lift(native.clone())),
        None => tag.carried_coat(),
    };
    let note = match rig.and_then(|r| tag.add_coat_shadow(&r)) {
        Some(note) => note,
        None => format!(
            "{} (the coat has no skinned vertex to build it from)",
            crate::rig::shadow::MISSING_COAT_SHADOW
        ),
    };
    let coat_report = models.iter_mut().find(|m| m.name == "coat");
    coat_report
        .map_or(&mut report.notes, |m| &mut m.report.notes)
        .push(note);
}

/// The report of part `p`: its import's, with the stale shadow of its own slot (the coat's in
/// 14) and the cloth data named when its meshes changed, the shadow renewed on request.
fn part_report(
    tag: &ArchiveTag,
    p: PartImport,
    rebuild_shadows: bool,
    rebuilt: &mut Vec<(u32, Vec<u8>)>,
) -> ModelReport {
    let mut report = p.imported.report;
    let slots = tag
        .parts()
        .find_map(|(_, m)| match m {
            MemberTag::Part { offset, slots, .. } if *offset == p.offset => Some(slots.clone()),
            _ => None,
        })
        .unwrap_or_default();
    report
        .stale_shadows
        .extend(stale_shadows(tag, &slots, &report.meshes));
    if !report.stale_shadows.is_empty() && crate::rig::shadow::is_coat(&slots) {
        for cloth in tag.cloth() {
            report.notes.push(format!(
                "member {} ({}): the cloth data was made for the old coat (it does not read as cloth text: carried as it was)",
                cloth.member,
                cloth.named_slots()
            ));
        }
    }
    if rebuild_shadows {
        renew_shadows(tag, &p.imported.native, &mut report, rebuilt);
    }
    ModelReport {
        name: p.name,
        offset: p.offset,
        report,
    }
}

/// Writes each stale shadow of `report` anew from the meshes of `native` (see
/// [`crate::rig::shadow`]): its replacement goes to `rebuilt`, a note saying what was built
/// replaces the stale entry (which stays when the model has no skinned vertex).
fn renew_shadows(
    tag: &ArchiveTag,
    native: &crate::native::NativeFile,
    report: &mut super::ImportReport,
    rebuilt: &mut Vec<(u32, Vec<u8>)>,
) {
    if report.stale_shadows.is_empty() {
        return;
    }
    let rig = crate::rig::lift(native.clone());
    for stale in std::mem::take(&mut report.stale_shadows) {
        match tag.renew_shadow(&stale.0, &rig) {
            Some((bytes, note)) => {
                report.notes.push(note);
                rebuilt.push((stale.0.offset, bytes));
            }
            None => report.stale_shadows.push(stale),
        }
    }
}

/// A shadow model of the body (a carried member in the body-shadow slot) left as it was while
/// the body's meshes changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct StaleShadow(pub MemberRef);

impl std::fmt::Display for StaleShadow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "member {} ({}): the shadow still casts the old shape (carried as it was)",
            self.0.member,
            self.0.named_slots()
        )
    }
}

/// The shadow members of the model in `slots` (the body's for the document's model, `[]`)
/// when a mesh of it was edited, added or removed (a changed texture index alone leaves the
/// shape, and so the shadow, as it was).
fn stale_shadows(tag: &ArchiveTag, slots: &[usize], meshes: &MeshReport) -> Vec<StaleShadow> {
    let changed = meshes
        .written
        .as_ref()
        .is_some_and(|w| w.meshes.iter().any(|m| m.change != "texture"));
    if meshes.status != MeshStatus::Written || !changed {
        return Vec::new();
    }
    tag.shadows_of(slots).into_iter().map(StaleShadow).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the `Value` reader finds for `text`: the archive member, as a value.
    fn by_value(text: &str) -> Option<Value> {
        let v = serde_json::from_str::<Value>(text).ok()?;
        v.get("rigtrip")?.get("archive").cloned()
    }

    #[test]
    fn the_typed_archive_read_finds_what_the_value_reader_finds_or_declines() {
        let texts = [
            r#"{"rigtrip":{"format":"dmc3","source":{"x":"AAAA"},"archive":{"kind":"pac","n":[1,2.5]}}}"#,
            r#"{"rigtrip":{"format":"dmc3","source":{"x":"AAAA"}}}"#,
            r#"{"rigtrip":{"archive":null}}"#,
            r#"{"other":1}"#,
            r#"{"rigtrip":{"archive":1,"archive":2}}"#,
            r#"{"rigtrip":"{'archive': 1}"}"#,
            r#"{"rigtrip":[{"archive":1}]}"#,
            r#"[{"archive":1}]"#,
            r#"{"rigtrip":null}"#,
            r#"{"rig\u0074rip":{"\u0061rchive":[3]}}"#,
        ];
        let mut declined = 0;
        for text in texts {
            match archive_typed(text) {
                Some(found) => {
                    let found = found.map(|r| serde_json::from_str::<Value>(r.get()).unwrap());
                    assert_eq!(found, by_value(text), "{text}");
                }
                None => declined += 1,
            }
        }
        // A key twice, rigtrip as a string, an array or null, extras as an array: the
        // `Value` reader decides those.
        assert_eq!(declined, 5);
    }
}
