//! A character archive as `export` sees it: the body model, its textures, and the textures of a
//! loose `.ptx` bundle or `.tm2` entry (`export MODEL --textures FILE`).
//!
//! The body is the `MOD ` member of slot 1 (the player-archive slot map's body) when that slot
//! holds one, else the first `MOD ` member by slot; the textures are the PTX member of slot 0
//! when it holds one, else the first PTX member by slot. Members are recognised by their own
//! bytes ([`Member::classify`]); the slot only chooses between members of the same kind.

use crate::gltf::texture::{texture_image, TextureImage, TextureImageError};
use crate::native::dmc3::pac::{Member, MemberKind, Pac};
use crate::native::dmc3::pixels;
use crate::native::dmc3::texture::{self, Ptx, Texture};
use crate::native::dmc3::Dmc3File;
use crate::ops::verdict::{Difference, GltfLeg, LegFailure};
use crate::rig::archive::ArchiveTag;

/// The slot the player-archive slot map gives the body.
pub const BODY_SLOT: usize = 1;
/// The slot it gives the texture bundle.
pub const TEXTURES_SLOT: usize = 0;

/// What `export` takes from an archive.
#[derive(Debug, Clone)]
pub struct Character<'a> {
    /// The body model's member.
    pub body: &'a Member,
    /// The model itself.
    pub model: &'a Dmc3File,
    /// The texture bundle's member, when the archive has one.
    pub textures: Option<(&'a Member, &'a Ptx)>,
    /// Every other model member (`MOD `, `SCM `), in offset order: a coat.
    pub others: Vec<(&'a Member, &'a Dmc3File)>,
}

impl Character<'_> {
    /// The archive tag of `pac` (this character's archive) and the other models to show beside
    /// the body: each whose skeletons pass the spatial gate (the rest stay carried as bytes).
    pub fn archive(
        &self,
        pac: &Pac,
    ) -> Result<(ArchiveTag, Vec<crate::gltf::Part>), crate::rig::archive::ArchiveError> {
        let tag = ArchiveTag::of(pac, self.body.offset, self.textures.map(|(m, _)| m.offset))?;
        let parts = self
            .others
            .iter()
            .map(|(m, f)| crate::gltf::Part {
                name: crate::rig::archive::part_name(&m.slots),
                offset: m.offset,
                rig: crate::rig::lift(crate::native::NativeFile::Dmc3((*f).clone())),
            })
            .filter(|p| p.rig.skeletons.iter().all(|s| s.gate.is_ok()))
            .collect();
        Ok((tag, parts))
    }
}

/// The member of `pac` whose kind `pick` accepts: the one in `preferred` first, else the first
/// by slot.
fn member_by<'a, T>(
    pac: &'a Pac,
    preferred: usize,
    pick: impl Fn(&'a MemberKind) -> Option<T>,
) -> Option<(&'a Member, T)> {
    let mut slots: Vec<(usize, &Member)> = pac
        .members
        .iter()
        .flat_map(|m| m.slots.iter().map(move |&s| (s, m)))
        .collect();
    slots.sort_by_key(|&(s, _)| (s != preferred, s));
    slots
        .into_iter()
        .find_map(|(_, m)| pick(&m.kind).map(|t| (m, t)))
}

/// The body model and textures of `pac`, `None` when it holds no `MOD ` member.
pub fn character(pac: &Pac) -> Option<Character<'_>> {
    let (body, model) = member_by(pac, BODY_SLOT, |k| match k {
        MemberKind::Model(f) if f.kind() == "mod" => Some(&**f),
        _ => None,
    })?;
    let textures = member_by(pac, TEXTURES_SLOT, |k| match k {
        MemberKind::Ptx(p) => Some(&**p),
        _ => None,
    });
    let others = pac
        .members
        .iter()
        .filter(|m| m.offset != body.offset)
        .filter_map(|m| match &m.kind {
            MemberKind::Model(f) => Some((m, &**f)),
            _ => None,
        })
        .collect();
    Some(Character {
        body,
        model,
        textures,
        others,
    })
}

/// Why a loose texture file was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TexturesError {
    /// Neither a PTX bundle nor a gfxTexture entry.
    #[error("neither a PTX texture bundle nor a gfxTexture entry (a descriptor, then \"DDS \" at +0x70)")]
    NotTextures,
    /// A bundle or entry that does not read.
    #[error(transparent)]
    Texture(#[from] texture::TextureError),
}

/// The textures of a loose file: a PTX bundle's, or a single gfxTexture entry (index 0).
pub fn loose_textures(data: &[u8]) -> Result<Vec<Texture>, TexturesError> {
    if texture::looks_like_texture(data) {
        Ok(vec![Texture::read(data)?])
    } else if texture::looks_like_ptx(data) {
        Ok(Ptx::read(data)?.textures)
    } else {
        Err(TexturesError::NotTextures)
    }
}

/// Each texture as an image; a texture without pixels to decode is an error of its own, the
/// others still come.
pub fn images(textures: &[Texture]) -> (Vec<TextureImage>, Vec<TextureImageError>) {
    let mut ok = Vec::with_capacity(textures.len());
    let mut failed = Vec::new();
    for (i, t) in textures.iter().enumerate() {
        match texture_image(i, pixels::decode_top(t), &t.write()) {
            Ok(img) => ok.push(img),
            Err(e) => failed.push(e),
        }
    }
    (ok, failed)
}

/// `verify`'s glTF leg of loose textures: each texture through its PNG (decoded, encoded with
/// its `rgTX` chunk) and back from the chunk must be its exact bytes. `Ok(Skipped)` when a
/// texture has no pixels to decode; `Err` says which texture differs.
pub fn textures_gltf_leg(textures: &[Texture]) -> Result<GltfLeg, LegFailure> {
    for (i, t) in textures.iter().enumerate() {
        let native = t.write();
        let img = match texture_image(i, pixels::decode_top(t), &native) {
            Ok(img) => img,
            Err(e) => return Ok(GltfLeg::Skipped(e.to_string())),
        };
        match crate::rgba::native_entry(&img.png) {
            Some((index, bytes)) if index == i && bytes == native => {}
            _ => return Err(LegFailure::TexturePng(i)),
        }
    }
    Ok(GltfLeg::Identical)
}

/// `verify`'s glTF leg of a character archive: the body model and its textures exported as
/// `export` writes them (the real GLB serializer, in memory), imported back, and the archive's
/// bytes compared. `None` for an archive without a `MOD ` member (its members' legs count).
pub fn archive_gltf_leg(pac: &Pac, data: &[u8]) -> Option<Result<GltfLeg, LegFailure>> {
    let c = character(pac)?;
    let run = || -> Result<GltfLeg, LegFailure> {
        let textures = c.textures.map(|(_, p)| &p.textures[..]).unwrap_or_default();
        let (images, failed) = images(textures);
        if let Some(e) = failed.first() {
            return Ok(GltfLeg::Skipped(e.to_string()));
        }
        let (tag, parts) = c.archive(pac).map_err(|e| LegFailure::Tag(Box::new(e)))?;
        let rig = crate::rig::lift(crate::native::NativeFile::Dmc3(c.model.clone()));
        let opts = crate::gltf::ExportOptions::default();
        // A model with no glTF form (the gate, a joint index past the skeleton) skips the leg,
        // as a loose model's does.
        let archive = Some((&tag, &parts[..]));
        let e = match crate::gltf::export_textured(&rig, &[], &images, archive, &opts) {
            Ok(e) => e,
            Err(e) => return Ok(GltfLeg::Skipped(crate::chain(&e))),
        };
        let glb = crate::gltf::to_glb(&e).map_err(LegFailure::glb)?;
        let back = crate::gltf::import_slice(&glb, None, &crate::gltf::ImportOptions::default())
            .map_err(|error| LegFailure::Import {
                error: Box::new(error),
                prefixed: false,
            })?;
        match back.bytes == data {
            true => Ok(GltfLeg::Identical),
            false => Err(LegFailure::Differ(Difference::of(data, &back.bytes))),
        }
    };
    Some(run())
}
