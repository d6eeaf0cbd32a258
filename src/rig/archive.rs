//! A character archive in a glTF document, and back: `scene.extras.rigtrip.archive`. The one
//! archive format today is DMC3's `.pac` with its PTX texture bundle; this module is where the
//! glTF side learns of it, so that `crate::gltf` names neither.
//!
//! The document already holds the body model (the scene's `source` and the rig) and every
//! texture (each image's PNG carries its entry in the `rgTX` chunk, see [`crate::rgba`]).
//! What it cannot derive rides in the archive tag: the slot table as on disk, the bytes between
//! the table and the first member, and per member its offset and slots, and either its role
//! (`model`: the document's model; `textures`: the PTX bundle of the images, with its table
//! padding when not all zeros and the bytes after its last texture; `cloth`: cloth text, whose
//! parameters and rows are also scene properties, see [`crate::rig::cloth`]) or, for every
//! other member (shadow, motions, a coat not exported), its bytes as base64.
//!
//! On import the members are laid out again in their order: while every member before is
//! unchanged each keeps its offset; after a member whose length changed, each starts at the
//! next 16-byte boundary (the gap zero-filled) and the slot table follows.

use serde::{Deserialize, Serialize};

use crate::native::dmc3::pac::{MemberKind, Pac, PAC_MAGIC};
use crate::native::dmc3::pixels;
use crate::native::dmc3::texture::{PixelFormat, Ptx, Texture, CHAIN_AT};
use crate::rgba::{decode_png, native_entry, png_size, EncodingError};
use crate::rig::dmc3_geometry::{material_texture, texture_material};

/// `scene.extras.rigtrip.archive`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArchiveTag {
    /// Per slot the member offset as on disk (0 = empty).
    #[serde(with = "crate::bytes::hex_u32s_vec")]
    pub offsets: Vec<u32>,
    /// Bytes between the table's end and the first member.
    #[serde(with = "crate::bytes::base64_bytes")]
    pub gap: Vec<u8>,
    /// The members in offset order.
    pub members: Vec<MemberTag>,
    /// The scene properties beside the tag in the document it was read from (see
    /// [`crate::rig::cloth`]); not part of the tag.
    #[serde(skip)]
    pub properties: serde_json::Map<String, serde_json::Value>,
}

/// One member of [`ArchiveTag`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "camelCase")]
pub enum MemberTag {
    /// The document's model.
    #[serde(rename_all = "camelCase")]
    Model {
        /// Offset on disk.
        offset: u32,
        /// Slots naming it.
        slots: Vec<usize>,
    },
    /// The PTX bundle of the document's images.
    #[serde(rename_all = "camelCase")]
    Textures {
        /// Offset on disk.
        offset: u32,
        /// Slots naming it.
        slots: Vec<usize>,
        /// Texture count.
        count: usize,
        /// The span table's padding; empty when all zeros (its length follows from the count).
        #[serde(
            default,
            skip_serializing_if = "Vec::is_empty",
            with = "crate::bytes::base64_bytes"
        )]
        table_padding: Vec<u8>,
        /// Bytes after the last texture.
        #[serde(with = "crate::bytes::base64_bytes")]
        tail: Vec<u8>,
        /// Per texture its image's name and its two headers, to re-encode a repainted image
        /// (one without the `rgTX` chunk) into the texture's format; empty in documents
        /// written before.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        heads: Vec<TextureHead>,
    },
    /// Another model of the archive shown in the document (a coat): the nodes tagged with its
    /// `name` (`extras.rigtrip.part`) are its meshes and, unless it shares the model's
    /// skeleton, its joints.
    #[serde(rename_all = "camelCase")]
    Part {
        /// Offset on disk.
        offset: u32,
        /// Slots naming it.
        slots: Vec<usize>,
        /// Its name in the document (`coat`), the prefix of its node names (`coat/...`).
        name: String,
        /// What `scene.extras.rigtrip` would hold for it alone: format, space, its file's
        /// remainder and skeleton payloads.
        scene: serde_json::Value,
        /// When its skeleton is the model's (same joints, parents and written rest): per joint
        /// its `extras.rigtrip` (its own native payload), read in place of the model joint's;
        /// empty when it has joints of its own in the document.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        joints: Vec<serde_json::Value>,
    },
    /// Cloth text, as its bytes, with the glTF name of each node its rows named when exported
    /// (see [`crate::rig::cloth`]: its parameters and rows are scene properties beside the
    /// tag).
    #[serde(rename_all = "camelCase")]
    Cloth {
        /// Offset on disk.
        offset: u32,
        /// Slots naming it.
        slots: Vec<usize>,
        /// Its bytes.
        #[serde(with = "crate::bytes::base64_bytes")]
        bytes: Vec<u8>,
        /// Per node a row named (its index in decimal: a JSON key), the name of its joint in
        /// the document.
        #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
        names: std::collections::BTreeMap<String, String>,
    },
    /// Any other member, as its bytes.
    #[serde(rename_all = "camelCase")]
    Bytes {
        /// Offset on disk (0 for a member an import adds: [`ArchiveTag::add_member`]).
        offset: u32,
        /// Slots naming it.
        slots: Vec<usize>,
        /// Its bytes.
        #[serde(with = "crate::bytes::base64_bytes")]
        bytes: Vec<u8>,
    },
}

/// What the archive tag keeps of one texture for re-encoding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextureHead {
    /// The name export gave its image (`texture_N`).
    pub image: String,
    /// Its descriptor and DDS header as in the archive (0xF0 bytes).
    #[serde(with = "crate::bytes::base64_bytes")]
    pub headers: Vec<u8>,
}

/// One image of the document, as the archive's rebuild sees it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocImage<'a> {
    /// `images[i].name`.
    pub name: Option<&'a str>,
    /// The names of the materials showing it as base colour.
    pub materials: Vec<&'a str>,
    /// Its bytes (`None` when the image is not in a buffer view).
    pub png: Option<&'a [u8]>,
}

impl<'a> DocImage<'a> {
    /// The texture index and entry bytes its `rgTX` chunk carries.
    fn carried(&self) -> Option<(usize, &'a [u8])> {
        native_entry(self.png?)
    }

    /// Whether it stands for the texture whose image export named `name`: so named (Blender
    /// keeps image names), or shown by the material of that name (an image replaced in the
    /// material's node tree).
    fn stands_for(&self, name: &str) -> bool {
        self.name == Some(name) || self.materials.contains(&name)
    }
}

/// What a document's archive gains from new images ([`ArchiveTag::added_textures`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AddedTextures {
    /// (material name in the document, the name it is read as).
    pub aliases: Vec<(String, String)>,
    /// The model's texture count after, when textures were added.
    pub count: Option<u8>,
}

/// An archive rebuilt from a document.
#[derive(Debug, Clone, PartialEq)]
pub struct Rebuilt {
    /// The archive's bytes.
    pub bytes: Vec<u8>,
    /// Whether a member moved (one before it changed length).
    pub moved: bool,
    /// Textures given back from their images' native bytes.
    pub carried: usize,
    /// Textures re-encoded from repainted images.
    pub reencoded: Vec<Reencoded>,
    /// Images no texture was taken from (the name, else `image N`): a second image carrying
    /// a texture's bytes, or one that stands for no texture and whose material names no new
    /// one (a `texture_N` past the bundle).
    pub unused: Vec<String>,
}

/// What the textures of a rebuild were taken from.
struct Took {
    /// Textures from their images' native bytes.
    carried: usize,
    /// Textures encoded from images.
    reencoded: Vec<Reencoded>,
    /// Per image whether a texture was taken from it.
    used: Vec<bool>,
}

/// A texture re-encoded from a repainted image.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reencoded {
    /// Texture index.
    pub index: usize,
    /// The image it was encoded from.
    pub image: String,
    /// Its format (the original's).
    pub format: PixelFormat,
    /// The original's top level (width, height).
    pub was: (u32, u32),
    /// Width of the top level.
    pub width: u32,
    /// Height of the top level.
    pub height: u32,
    /// Levels written (the full chain).
    pub levels: u32,
    /// The top level as written, decoded, against the image.
    pub error: EncodingError,
    /// DXT1 with alpha other than 0/255 in the image: written with 1-bit alpha (below 128
    /// transparent).
    pub alpha_cut: bool,
    /// A new texture (a new image on a new material), appended to the bundle.
    pub added: bool,
}

impl std::fmt::Display for Reencoded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let e = &self.error;
        let psnr = e.psnr.map(|p| match p.is_finite() {
            true => format!("{p:.1}"),
            false => "inf".into(),
        });
        write!(
            f,
            "texture {}: {} from image {:?} as {} {}x{}{}, {} mip levels; error R G B A: max {} {} {} {}, PSNR {} dB",
            self.index,
            match self.added {
                true => "new, encoded",
                false => "re-encoded",
            },
            self.image,
            self.format.name(),
            self.width,
            self.height,
            match self.added || self.was == (self.width, self.height) {
                true => String::new(),
                false => format!(" (was {}x{})", self.was.0, self.was.1),
            },
            self.levels,
            e.max_abs[0],
            e.max_abs[1],
            e.max_abs[2],
            e.max_abs[3],
            psnr.join(" "),
        )?;
        if self.alpha_cut {
            write!(
                f,
                "; DXT1 keeps 1-bit alpha: alpha below 128 became transparent"
            )?;
        }
        Ok(())
    }
}

/// A member the archive tag carries as its bytes, as a report names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemberRef {
    /// The member's index in offset order (as `inspect` numbers them).
    pub member: usize,
    /// Its offset in the archive read.
    pub offset: u32,
    /// The slots naming it.
    pub slots: Vec<usize>,
}

impl MemberRef {
    /// Its slots with the names the slot map gives them (`slot 8, shadow; slot 14, ...`).
    pub fn named_slots(&self) -> String {
        let named: Vec<String> = self
            .slots
            .iter()
            .map(|&s| match crate::native::dmc3::pac::slot_name(s) {
                Some(name) => format!("slot {s}, {name}"),
                None => format!("slot {s}"),
            })
            .collect();
        named.join("; ")
    }
}

/// The name a model member shows under in a document: its slot's name in the slot map (`coat`)
/// when it has one besides `body`, else `slotN` after its first slot.
pub fn part_name(slots: &[usize]) -> String {
    slots
        .iter()
        .find_map(|&s| crate::native::dmc3::pac::slot_name(s).filter(|n| *n != "body"))
        .map(|n| n.replace(' ', "_"))
        .unwrap_or_else(|| format!("slot{}", slots.first().copied().unwrap_or_default()))
}

/// A model member the document does not show (a coat, a second body): carried as its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct CarriedModel(pub MemberRef);

impl std::fmt::Display for CarriedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "member {} ({}): a model besides the body, not in the glTF (its skeleton has no model-space pose: it fails the spatial gate); carried as its bytes, it comes back unchanged",
            self.0.member,
            self.0.named_slots()
        )
    }
}

/// Why an archive cannot be rebuilt.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArchiveError {
    /// A member does not write.
    #[error("archive member at {offset:#x} does not write: {message}")]
    Member {
        /// Its offset.
        offset: u32,
        /// Why.
        message: String,
    },
    /// No image carries texture `index`'s native bytes, and none stands for it repainted.
    #[error("texture {index}: no image carries its native bytes (the rgTX chunk of its PNG), and no image named {image:?} or shown by the material {image:?} is there to re-encode")]
    TextureLost {
        /// Texture index.
        index: usize,
        /// The name export gave its image and material.
        image: String,
    },
    /// A repainted image does not decode as a PNG, or its texture's headers have no format.
    #[error("texture {index}: its repainted image {image:?} cannot be re-encoded: {message}")]
    Repaint {
        /// Texture index.
        index: usize,
        /// The image's name.
        image: String,
        /// Why.
        message: String,
    },
    /// An image's chunk holds bytes that are no gfxTexture entry.
    #[error("texture {index}: the rgTX chunk of its image does not read as a gfxTexture entry: {message}")]
    BadEntry {
        /// Texture index.
        index: usize,
        /// Why.
        message: String,
    },
    /// New textures would take the model's texture count (a byte) past 255.
    #[error("{count} textures: a model's texture count (+0x12) holds at most 255")]
    TooManyTextures {
        /// The count the new textures would make.
        count: usize,
    },
    /// The tag does not describe an archive.
    #[error("scene.extras.rigtrip.archive: {0}")]
    Tag(String),
    /// Edited cloth properties that cannot be written.
    #[error(transparent)]
    Cloth(#[from] crate::rig::cloth::ClothEditError),
}

impl ArchiveTag {
    /// The tag of `pac`, whose member at `model` is the document's model and whose member at
    /// `textures` (if any) is the bundle of its images.
    pub fn of(pac: &Pac, model: u32, textures: Option<u32>) -> Result<ArchiveTag, ArchiveError> {
        let members = pac
            .members
            .iter()
            .map(|m| {
                let (offset, slots) = (m.offset, m.slots.clone());
                match &m.kind {
                    _ if m.offset == model => Ok(MemberTag::Model { offset, slots }),
                    MemberKind::Ptx(p) if Some(m.offset) == textures => Ok(MemberTag::Textures {
                        offset,
                        slots,
                        count: p.textures.len(),
                        table_padding: match p.table_padding.iter().all(|&b| b == 0) {
                            true => Vec::new(),
                            false => p.table_padding.clone(),
                        },
                        tail: p.tail.clone(),
                        heads: p
                            .textures
                            .iter()
                            .enumerate()
                            .map(|(i, t)| TextureHead {
                                image: texture_material(i as u16),
                                headers: t.write()[..CHAIN_AT].to_vec(),
                            })
                            .collect(),
                    }),
                    MemberKind::Cloth(c) => Ok(MemberTag::Cloth {
                        offset,
                        slots,
                        bytes: c.write(),
                        names: Default::default(),
                    }),
                    _ => Ok(MemberTag::Bytes {
                        offset,
                        slots,
                        bytes: m.bytes().map_err(|e| ArchiveError::Member {
                            offset,
                            message: crate::chain(&e),
                        })?,
                    }),
                }
            })
            .collect::<Result<_, ArchiveError>>()?;
        Ok(ArchiveTag {
            offsets: pac.offsets.clone(),
            gap: pac.gap.clone(),
            members,
            properties: Default::default(),
        })
    }

    /// The archive with `model` as the model member and the textures of `images`: each from
    /// the native bytes of the image whose chunk names it, else re-encoded from the image that
    /// stands for it (named after it, or shown by the material of that name).
    /// `rebuilt` holds by offset the bytes of each [`MemberTag::Part`] and of any member
    /// carried as bytes that was written anew (a shadow rebuilt on request).
    pub fn rebuild(
        &self,
        model: &[u8],
        rebuilt: &[(u32, Vec<u8>)],
        images: &[DocImage<'_>],
    ) -> Result<Rebuilt, ArchiveError> {
        let mut pieces: Vec<(u32, &[usize], Vec<u8>)> = Vec::with_capacity(self.members.len());
        let mut took = Took {
            carried: 0,
            reencoded: Vec::new(),
            used: vec![false; images.len()],
        };
        for m in &self.members {
            pieces.push(match m {
                MemberTag::Model { offset, slots } => (*offset, slots, model.to_vec()),
                MemberTag::Part {
                    offset,
                    slots,
                    name,
                    ..
                } => {
                    let bytes = rebuilt.iter().find(|(o, _)| o == offset).ok_or_else(|| {
                        ArchiveError::Tag(format!("model {name:?} at {offset:#x} was not rebuilt"))
                    })?;
                    (*offset, slots, bytes.1.clone())
                }
                MemberTag::Bytes {
                    offset,
                    slots,
                    bytes,
                }
                | MemberTag::Cloth {
                    offset,
                    slots,
                    bytes,
                    ..
                } => {
                    let new = rebuilt.iter().find(|(o, _)| o == offset);
                    (*offset, slots, new.map_or(bytes, |(_, b)| b).clone())
                }
                MemberTag::Textures {
                    offset,
                    slots,
                    count,
                    table_padding,
                    tail,
                    heads,
                } => {
                    let textures = self.textures(*count, heads, images, &mut took)?;
                    let bytes = bundle(textures, table_padding, tail).write().map_err(|e| {
                        ArchiveError::Member {
                            offset: *offset,
                            message: crate::chain(&e),
                        }
                    })?;
                    (*offset, slots, bytes)
                }
            });
        }
        let (bytes, moved) = self.lay_out(pieces)?;
        let unused = (0..images.len())
            .filter(|&i| !took.used[i] && images[i].png.is_some())
            .map(|i| {
                images[i]
                    .name
                    .map_or_else(|| format!("image {i}"), str::to_string)
            })
            .collect();
        Ok(Rebuilt {
            bytes,
            moved,
            carried: took.carried,
            reencoded: took.reencoded,
            unused,
        })
    }

    /// The bundle's `count` textures from `images` (see [`texture`]), then the new ones
    /// ([`ArchiveTag::new_images`]), with what was taken from where in `took`.
    fn textures(
        &self,
        count: usize,
        heads: &[TextureHead],
        images: &[DocImage<'_>],
        took: &mut Took,
    ) -> Result<Vec<Texture>, ArchiveError> {
        let mut textures = Vec::with_capacity(count);
        for index in 0..count {
            let (t, re, image) = texture(index, heads.get(index), images)?;
            took.used[image] = true;
            textures.push(t);
            match re {
                Some(r) => took.reencoded.push(r),
                None => took.carried += 1,
            }
        }
        for (k, &i) in self.new_images(images).iter().enumerate() {
            took.used[i] = true;
            let (t, r) = added(count + k, &images[i])?;
            textures.push(t);
            took.reencoded.push(r);
        }
        Ok(textures)
    }

    /// The texture count and per texture headers of the textures member, when there is one.
    fn textures_member(&self) -> Option<(usize, &[TextureHead])> {
        self.members.iter().find_map(|m| match m {
            MemberTag::Textures { count, heads, .. } => Some((*count, heads.as_slice())),
            _ => None,
        })
    }

    /// The images of `images` that become new textures, in image order: a PNG without the
    /// `rgTX` chunk that stands for no texture of the bundle (named after none, and shown by no
    /// material named after one), shown by a material whose name names no texture index (not
    /// `texture_N`). Their indices follow the bundle's last. None for a document written
    /// before re-encoding (no headers: it cannot tell a repainted image from a new one).
    pub fn new_images(&self, images: &[DocImage<'_>]) -> Vec<usize> {
        let Some((_, heads)) = self.textures_member().filter(|(_, h)| !h.is_empty()) else {
            return Vec::new();
        };
        let named = |m: &&str| material_texture(m).is_none();
        (0..images.len())
            .filter(|&i| {
                let img = &images[i];
                img.png.is_some()
                    && img.carried().is_none()
                    && !heads.iter().any(|h| img.stands_for(&h.image))
                    && img.materials.iter().any(named)
            })
            .collect()
    }

    /// The texture count of the bundle, when the archive has one.
    pub fn texture_count(&self) -> Option<usize> {
        self.textures_member().map(|(count, _)| count)
    }

    /// The members carried as bytes whose slots and bytes `keep` accepts.
    pub fn carried(&self, keep: impl Fn(&[usize], &[u8]) -> bool) -> Vec<MemberRef> {
        self.members
            .iter()
            .enumerate()
            .filter_map(|(member, m)| match m {
                MemberTag::Bytes {
                    offset,
                    slots,
                    bytes,
                } if keep(slots, bytes) => Some(MemberRef {
                    member,
                    offset: *offset,
                    slots: slots.clone(),
                }),
                _ => None,
            })
            .collect()
    }

    /// What the archive gains from `images`: each material showing a new image (see
    /// [`ArchiveTag::new_images`]) renamed to the texture it becomes (`texture_N` after the
    /// bundle's last), and the texture count after.
    pub fn added_textures(&self, images: &[DocImage<'_>]) -> Result<AddedTextures, ArchiveError> {
        let new = self.new_images(images);
        let Some(count) = self.texture_count().filter(|_| !new.is_empty()) else {
            return Ok(AddedTextures::default());
        };
        let total = count + new.len();
        let grown =
            u8::try_from(total).map_err(|_| ArchiveError::TooManyTextures { count: total })?;
        let mut aliases: Vec<(String, String)> = Vec::new();
        for (k, &i) in new.iter().enumerate() {
            let name = texture_material((count + k) as u16);
            for m in &images[i].materials {
                if material_texture(m).is_none() && !aliases.iter().any(|(a, _)| a == m) {
                    aliases.push((m.to_string(), name.clone()));
                }
            }
        }
        Ok(AddedTextures {
            aliases,
            count: Some(grown),
        })
    }

    /// The member at `offset` shown in the document as the part `name` (see [`MemberTag::Part`]);
    /// `false` when no member carried as bytes is there.
    pub fn show_part(
        &mut self,
        offset: u32,
        name: &str,
        scene: serde_json::Value,
        joints: Vec<serde_json::Value>,
    ) -> bool {
        let Some(m) = self
            .members
            .iter_mut()
            .find(|m| matches!(m, MemberTag::Bytes { offset: o, .. } if *o == offset))
        else {
            return false;
        };
        let slots = match m {
            MemberTag::Bytes { slots, .. } => std::mem::take(slots),
            _ => Vec::new(),
        };
        *m = MemberTag::Part {
            offset,
            slots,
            name: name.to_string(),
            scene,
            joints,
        };
        true
    }

    /// A new member in `slot` (the table grown to hold it), written after every other.
    pub fn add_member(&mut self, slot: usize, bytes: Vec<u8>) {
        if self.offsets.len() <= slot {
            self.offsets.resize(slot + 1, 0);
        }
        let slots = vec![slot];
        let offset = 0;
        self.members.push(MemberTag::Bytes {
            offset,
            slots,
            bytes,
        });
    }

    /// The members shown as parts, in offset order, with their index.
    pub fn parts(&self) -> impl Iterator<Item = (usize, &MemberTag)> {
        self.members
            .iter()
            .enumerate()
            .filter(|(_, m)| matches!(m, MemberTag::Part { .. }))
    }

    /// The model members carried as bytes (every model but the document's).
    pub fn carried_models(&self) -> Vec<CarriedModel> {
        let models = self.carried(|_, b| crate::native::dmc3::has_container_magic(b));
        models.into_iter().map(CarriedModel).collect()
    }

    /// The file: magic, count, the slot table (recorded offsets while nothing moved), the gap,
    /// the members.
    fn lay_out(
        &self,
        pieces: Vec<(u32, &[usize], Vec<u8>)>,
    ) -> Result<(Vec<u8>, bool), ArchiveError> {
        let slots = self.offsets.len();
        let mut offsets = self.offsets.clone();
        let mut body: Vec<u8> = Vec::new();
        let start = Pac::table_end(slots) + self.gap.len() as u64;
        let mut moved = false;
        for (orig, member_slots, bytes) in pieces {
            let at = start + body.len() as u64;
            let place = if orig == 0 {
                crate::bytes::align(at, 16) // a new member, after every other
            } else if !moved && at == u64::from(orig) {
                at
            } else {
                moved = true;
                crate::bytes::align(at, 16)
            };
            body.resize((place - start) as usize, 0);
            let offset = u32::try_from(place)
                .map_err(|_| ArchiveError::Tag(format!("member offset {place:#x} over u32")))?;
            for &s in member_slots {
                *offsets
                    .get_mut(s)
                    .ok_or_else(|| ArchiveError::Tag(format!("slot {s} of {slots}")))? = offset;
            }
            body.extend_from_slice(&bytes);
        }
        let mut out = Vec::with_capacity(start as usize + body.len());
        out.extend_from_slice(&PAC_MAGIC);
        out.extend_from_slice(&(slots as u32).to_le_bytes());
        for o in &offsets {
            out.extend_from_slice(&o.to_le_bytes());
        }
        out.extend_from_slice(&self.gap);
        out.extend_from_slice(&body);
        Ok((out, moved))
    }
}

/// The PTX bundle of `textures` with the tag's table padding (all zeros when it recorded none)
/// and tail.
fn bundle(textures: Vec<Texture>, table_padding: &[u8], tail: &[u8]) -> Ptx {
    let padding_len = (Ptx::first_texture(textures.len()) - 4 - 4 * textures.len() as u64) as usize;
    let table_padding = match table_padding.is_empty() {
        true => vec![0; padding_len],
        false => table_padding.to_vec(),
    };
    Ptx {
        table_padding,
        textures,
        tail: tail.to_vec(),
    }
}

/// Texture `index`: the entry in the chunk of the image that carries it (re-encoded from that
/// image's pixels when an editor resized it and kept the chunk), else re-encoded from the image
/// that stands for it, with the headers of `head`.
fn texture(
    index: usize,
    head: Option<&TextureHead>,
    images: &[DocImage<'_>],
) -> Result<(Texture, Option<Reencoded>, usize), ArchiveError> {
    let name = || head.map_or_else(|| texture_material(index as u16), |h| h.image.clone());
    let found = images.iter().enumerate().find_map(|(i, img)| {
        let c = img.carried().filter(|c| c.0 == index)?;
        Some((i, img, c.1))
    });
    if let Some((i, img, entry)) = found {
        let t = Texture::read(entry).map_err(|e| ArchiveError::BadEntry {
            index,
            message: crate::chain(&e),
        })?;
        let top = t.levels().first().map(|l| (l.width, l.height));
        let png = img.png.unwrap_or_default();
        return match png_size(png) {
            Some(size) if top.is_some_and(|top| top != size) => {
                let image = img.name.map_or_else(name, str::to_string);
                let (t, r) = reencode(index, &image, &entry[..CHAIN_AT.min(entry.len())], png)?;
                Ok((t, Some(r), i))
            }
            _ => Ok((t, None, i)),
        };
    }
    let lost = || ArchiveError::TextureLost {
        index,
        image: name(),
    };
    let head = head.ok_or_else(lost)?;
    let (i, img) = images
        .iter()
        .enumerate()
        .find(|(_, img)| {
            img.png.is_some() && img.carried().is_none() && img.stands_for(&head.image)
        })
        .ok_or_else(lost)?;
    let image = img.name.unwrap_or(&head.image);
    let (t, r) = reencode(index, image, &head.headers, img.png.unwrap_or_default())?;
    Ok((t, Some(r), i))
}

/// A new texture `index` from `img`: DXT1 when every alpha is 0 or 255, else DXT5; the
/// descriptor and DDS header canonical (undecoded fields at their canonical values).
fn added(index: usize, img: &DocImage<'_>) -> Result<(Texture, Reencoded), ArchiveError> {
    let image = img
        .name
        .map_or_else(|| format!("image {index}"), str::to_string);
    let png = img.png.unwrap_or_default();
    let rgba = decode_png(png).map_err(|e| ArchiveError::Repaint {
        index,
        image: image.clone(),
        message: e.to_string(),
    })?;
    let format = match rgba.has_graded_alpha() {
        true => PixelFormat::Dxt5,
        false => PixelFormat::Dxt1,
    };
    let headers = Texture::canonical_headers(format, rgba.width, rgba.height);
    let (t, mut r) = reencode(index, &image, &headers, png)?;
    r.added = true;
    Ok((t, r))
}

/// Texture `index` re-encoded from `png` in the format `headers` (its descriptor and DDS
/// header) name, at the image's size, with a full mip chain.
fn reencode(
    index: usize,
    image: &str,
    headers: &[u8],
    png: &[u8],
) -> Result<(Texture, Reencoded), ArchiveError> {
    let fail = |message: String| ArchiveError::Repaint {
        index,
        image: image.to_string(),
        message,
    };
    let old = Texture::read(headers).map_err(|e| fail(crate::chain(&e)))?;
    let g = old
        .geometry()
        .ok_or_else(|| fail("its headers name no DXT1/DXT5 format".into()))?;
    let rgba = decode_png(png).map_err(|e| fail(e.to_string()))?;
    if rgba.width > u32::from(u16::MAX) || rgba.height > u32::from(u16::MAX) {
        return Err(fail(format!(
            "{}x{} pixels: a descriptor holds at most 65535 per side",
            rgba.width, rgba.height
        )));
    }
    let chain = pixels::encode_chain(&rgba, g.format);
    let t = old.with_chain(g.format, rgba.width, rgba.height, chain);
    let written = pixels::decode_top(&t).ok_or_else(|| fail("no top level written".into()))?;
    let r = Reencoded {
        index,
        image: image.to_string(),
        format: g.format,
        was: (g.width, g.height),
        width: rgba.width,
        height: rgba.height,
        levels: t.levels().len() as u32,
        error: crate::rgba::encoding_error(&rgba, &written),
        alpha_cut: g.format == PixelFormat::Dxt1 && rgba.has_graded_alpha(),
        added: false,
    };
    Ok((t, r))
}
