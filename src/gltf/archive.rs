//! A character archive in a glTF document, and back: `scene.extras.rigtrip.archive`.
//!
//! The document already holds the body model (the scene's `source` and the rig) and every
//! texture (each image's PNG carries its entry in the `rgTX` chunk, see [`super::texture`]).
//! What it cannot derive rides in the archive tag: the slot table as on disk, the bytes between
//! the table and the first member, and per member its offset and slots, and either its role
//! (`model`: the document's model; `textures`: the PTX bundle of the images, with its table
//! padding when not all zeros and the bytes after its last texture) or, for every other member
//! (shadow, cloth, motions, a coat not exported), its bytes as base64.
//!
//! On import the members are laid out again in their order: while every member before is
//! unchanged each keeps its offset; after a member whose length changed, each starts at the
//! next 16-byte boundary (the gap zero-filled) and the slot table follows.

use serde::{Deserialize, Serialize};

use crate::native::dmc3::pac::{MemberKind, Pac, PAC_MAGIC};
use crate::native::dmc3::texture::{Ptx, Texture};

/// What one image carries: its chunk's texture index and entry bytes, and the PNG's width and
/// height when known.
pub type Carried<'a> = (usize, &'a [u8], Option<(u32, u32)>);

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
    },
    /// Any other member, as its bytes.
    #[serde(rename_all = "camelCase")]
    Bytes {
        /// Offset on disk.
        offset: u32,
        /// Slots naming it.
        slots: Vec<usize>,
        /// Its bytes.
        #[serde(with = "crate::bytes::base64_bytes")]
        bytes: Vec<u8>,
    },
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
    /// No image carries texture `index`'s native bytes.
    #[error("texture {index}: no image carries its native bytes (the rgTX chunk of its PNG); an image repainted or replaced in an editor cannot be re-encoded yet")]
    TextureLost {
        /// Texture index.
        index: usize,
    },
    /// An image carries the chunk but is not the size of the texture it holds (resized by an
    /// editor that copied the chunk although it must not).
    #[error("texture {index}: its image is {image:?} pixels but the native bytes in its rgTX chunk hold a top level of {native:?}: the image was changed by a tool that kept the chunk; re-encoding is not done yet")]
    Resized {
        /// Texture index.
        index: usize,
        /// The PNG's width and height.
        image: (u32, u32),
        /// The entry's top level.
        native: (u32, u32),
    },
    /// An image's chunk holds bytes that are no gfxTexture entry.
    #[error("texture {index}: the rgTX chunk of its image does not read as a gfxTexture entry: {message}")]
    BadEntry {
        /// Texture index.
        index: usize,
        /// Why.
        message: String,
    },
    /// The tag does not describe an archive.
    #[error("scene.extras.rigtrip.archive: {0}")]
    Tag(String),
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
            .collect::<Result<_, _>>()?;
        Ok(ArchiveTag {
            offsets: pac.offsets.clone(),
            gap: pac.gap.clone(),
            members,
        })
    }

    /// The archive's bytes with `model` as the model member and the textures the images carry
    /// (`entries`: per image its chunk's texture index and entry bytes and the PNG's size when
    /// known, `None` for an image without the chunk). Also says whether any member moved.
    pub fn rebuild(
        &self,
        model: &[u8],
        entries: &[Option<Carried<'_>>],
    ) -> Result<(Vec<u8>, bool), ArchiveError> {
        let mut pieces: Vec<(u32, &[usize], Vec<u8>)> = Vec::with_capacity(self.members.len());
        for m in &self.members {
            pieces.push(match m {
                MemberTag::Model { offset, slots } => (*offset, slots, model.to_vec()),
                MemberTag::Bytes {
                    offset,
                    slots,
                    bytes,
                } => (*offset, slots, bytes.clone()),
                MemberTag::Textures {
                    offset,
                    slots,
                    count,
                    table_padding,
                    tail,
                } => {
                    let ptx = bundle(*count, table_padding, tail, entries)?;
                    let bytes = ptx.write().map_err(|e| ArchiveError::Member {
                        offset: *offset,
                        message: crate::chain(&e),
                    })?;
                    (*offset, slots, bytes)
                }
            });
        }
        self.lay_out(pieces)
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
            let place = if !moved && at == u64::from(orig) {
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

/// The PTX bundle of `count` textures, each from the image whose chunk names its index.
fn bundle(
    count: usize,
    table_padding: &[u8],
    tail: &[u8],
    entries: &[Option<Carried<'_>>],
) -> Result<Ptx, ArchiveError> {
    if count == 0 || count > entries.len() {
        return Err(ArchiveError::TextureLost {
            index: entries.len().min(count),
        });
    }
    let mut textures = Vec::with_capacity(count);
    for index in 0..count {
        let entry = entries
            .iter()
            .flatten()
            .find(|(i, _, _)| *i == index)
            .ok_or(ArchiveError::TextureLost { index })?;
        let t = Texture::read(entry.1).map_err(|e| ArchiveError::BadEntry {
            index,
            message: crate::chain(&e),
        })?;
        let native = t.levels().first().map(|l| (l.width, l.height));
        if let (Some(native), Some(image)) = (native, entry.2) {
            if native != image {
                return Err(ArchiveError::Resized {
                    index,
                    image,
                    native,
                });
            }
        }
        textures.push(t);
    }
    let padding_len = (Ptx::first_texture(count) - 4 - 4 * count as u64) as usize;
    let table_padding = match table_padding.is_empty() {
        true => vec![0; padding_len],
        false => table_padding.to_vec(),
    };
    Ok(Ptx {
        table_padding,
        textures,
        tail: tail.to_vec(),
    })
}
