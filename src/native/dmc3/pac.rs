//! DMC3 archives (`.pac`): `"PAC\0"`, a u32 slot count, one u32 offset per
//! slot (0 = empty slot), then the members. A member runs from its offset to the next larger
//! offset, or to the end of the file.
//!
//! Every byte is represented: the slot table as read (raw offsets), the bytes between the table
//! and the first member (non-zero in most real archives, PRESERVED_UNDECODED), and each member
//! as what its own bytes say it is ([`Member::classify`]): a motion, a MOD/SCM model, a PTX
//! texture bundle, a single gfxTexture entry, a nested archive, a shadow model or cloth text when
//! it reads as one AND writes back byte-identically, else opaque bytes. The slot a member sits in is never evidence of its
//! kind; [`slot_name`] gives the names the player-archive slot map uses, for reports only.
//! Several slots may share one member (they name the same offset); an offset inside the slot
//! table or at/after the end of the file is rejected.

use serde::{Deserialize, Serialize};

use super::cloth::Clt;
use super::motion::{Mot, MotError};
use super::shadow::Shw;
use super::texture::{self, Ptx, Texture, TextureError};
use super::{Dmc3Error, Dmc3File};
use crate::bytes::{Bytes, OutOfBounds};

/// The archive magic at +0x00.
pub const PAC_MAGIC: [u8; 4] = *b"PAC\0";
/// Offset of the first slot offset.
pub const TABLE_START: u64 = 8;

/// Whether `data` starts with the archive magic.
pub fn has_pac_magic(data: &[u8]) -> bool {
    data.starts_with(&PAC_MAGIC)
}

/// Archives nested deeper than this inside an archive are kept as opaque members (a hostile
/// file of nested headers must not exhaust the stack).
pub const MAX_NESTING: usize = 4;

/// What a member holds. Every kind but `Opaque` writes back to exactly the member's bytes
/// (padding in its tail). Boxed: a member may be a single byte on disk, so its in-memory size
/// must stay small for the reader's allocations to stay bounded by the input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum MemberKind {
    /// A motion (`"MOT\0"` at +4).
    Mot(Box<Mot>),
    /// A MOD or SCM model (`"MOD "`/`"SCM "`), read as a loose one is.
    Model(Box<Dmc3File>),
    /// A PTX texture bundle.
    Ptx(Box<Ptx>),
    /// A single gfxTexture entry (a descriptor, then `"DDS "` at +0x70).
    Texture(Box<Texture>),
    /// A nested archive (`"PAC\0"`).
    Archive(Box<Pac>),
    /// A shadow model (`"SHW "`) that fits the public layout exactly (see [`super::shadow`]).
    Shadow(Box<Shw>),
    /// Cloth text (`ClothNum` first, see [`super::cloth`]).
    Cloth(Box<Clt>),
    /// Anything else, kept as bytes ([`opaque_label`] names a magic it starts with).
    Opaque(#[serde(with = "crate::bytes::base64_bytes")] Vec<u8>),
}

impl MemberKind {
    /// `mot`, `mod`, `scm`, `ptx`, `tm2`, `pac`, `shw`, `clt`, or for opaque bytes [`opaque_label`].
    pub fn name(&self) -> &'static str {
        match self {
            MemberKind::Mot(_) => "mot",
            MemberKind::Model(m) => m.kind(),
            MemberKind::Ptx(_) => "ptx",
            MemberKind::Texture(_) => "tm2",
            MemberKind::Archive(_) => "pac",
            MemberKind::Shadow(_) => "shw",
            MemberKind::Cloth(_) => "clt",
            MemberKind::Opaque(b) => opaque_label(b),
        }
    }
}

/// The name of an opaque member's magic (COMMUNITY list of magics seen in archives): `shw`
/// (shadow model), `efm`, `pnst` (a PAC variant), `ipum` (video), a `mod`/`scm`/`mot`/`pac`
/// magic whose content did not read back exactly (`mod?`...), or `opaque`.
pub fn opaque_label(b: &[u8]) -> &'static str {
    const MAGICS: [(&[u8], usize, &str); 8] = [
        (b"SHW", 0, "shw"),
        (b"EFM ", 0, "efm"),
        (b"PNST", 0, "pnst"),
        (b"ipum", 0, "ipum"),
        (b"MOD ", 0, "mod?"),
        (b"SCM ", 0, "scm?"),
        (b"PAC\0", 0, "pac?"),
        (b"MOT\0", 4, "mot?"),
    ];
    MAGICS
        .iter()
        .find(|(m, at, _)| b.get(*at..*at + m.len()) == Some(m))
        .map_or("opaque", |(_, _, name)| name)
}

/// The slot the player-archive slot map gives the body.
pub const BODY_SLOT: usize = 1;
/// The slot the player-archive slot map gives the body's shadow model.
pub const BODY_SHADOW_SLOT: usize = 8;
/// The slot of the coat, a second model on the body's skeleton (player archives).
pub const COAT_SLOT: usize = 12;
/// The slot of the coat's cloth (physics) data.
pub const CLOTH_SLOT: usize = 13;
/// The slot of the coat's shadow model.
pub const COAT_SHADOW_SLOT: usize = 14;

/// The slot of the model whose shadow the slot map puts in `shadow_slot`: the body's (1) for
/// 8, the coat's (12) for 14.
pub fn shadow_owner(shadow_slot: usize) -> Option<usize> {
    match shadow_slot {
        BODY_SHADOW_SLOT => Some(BODY_SLOT),
        COAT_SHADOW_SLOT => Some(COAT_SLOT),
        _ => None,
    }
}

/// The name the player-archive slot map gives a slot (community notes on the game's actor
/// code: 0 textures, 1 body, 8 shadow, 12 coat, 13 cloth, 14 coat shadow). A name, never
/// evidence of what the slot holds; some costumes use other slots.
pub fn slot_name(slot: usize) -> Option<&'static str> {
    match slot {
        0 => Some("textures"),
        1 => Some("body"),
        8 => Some("shadow"),
        12 => Some("coat"),
        13 => Some("cloth"),
        14 => Some("coat shadow"),
        _ => None,
    }
}

/// Why a member cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MemberError {
    /// A motion member.
    #[error("motion")]
    Mot(#[source] MotError),
    /// A model member.
    #[error("model")]
    Model(#[source] Dmc3Error),
    /// A texture or bundle member.
    #[error("texture")]
    Texture(#[source] TextureError),
    /// A nested archive.
    #[error("nested archive")]
    Archive(#[source] Box<PacError>),
}

/// One member: where it is, which slots name it, what it holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    /// Absolute offset.
    #[serde(with = "crate::bytes::hex_u32")]
    pub offset: u32,
    /// The slots whose offset is this member's, ascending.
    pub slots: Vec<usize>,
    /// The content.
    pub kind: MemberKind,
}

impl Member {
    /// The member's bytes.
    pub fn bytes(&self) -> Result<Vec<u8>, MemberError> {
        match &self.kind {
            MemberKind::Mot(m) => m.write().map_err(MemberError::Mot),
            MemberKind::Model(m) => super::write(m).map_err(MemberError::Model),
            MemberKind::Ptx(p) => p.write().map_err(MemberError::Texture),
            MemberKind::Texture(t) => Ok(t.write()),
            MemberKind::Archive(p) => p.write().map_err(|e| MemberError::Archive(Box::new(e))),
            MemberKind::Shadow(s) => Ok(s.write()),
            MemberKind::Cloth(c) => Ok(c.write()),
            MemberKind::Opaque(b) => Ok(b.clone()),
        }
    }

    /// Reads member bytes by their own magic: a motion, model, texture bundle, texture entry
    /// or nested archive if they read as one and write back identically, else opaque.
    pub fn classify(bytes: &[u8]) -> MemberKind {
        Member::classify_at(bytes, 0)
    }

    /// [`Member::classify`] for a member of an archive nested `depth` deep.
    fn classify_at(bytes: &[u8], depth: usize) -> MemberKind {
        let read = if has_pac_magic(bytes) {
            (depth < MAX_NESTING)
                .then(|| Pac::read_at(bytes, depth + 1).ok())
                .flatten()
                .map(|p| MemberKind::Archive(Box::new(p)))
        } else if super::has_container_magic(bytes) {
            super::read_container(bytes)
                .ok()
                .map(|m| MemberKind::Model(Box::new(m)))
        } else if super::motion::has_mot_magic(bytes) {
            Mot::read(bytes).ok().map(|m| MemberKind::Mot(Box::new(m)))
        } else if texture::looks_like_texture(bytes) {
            Texture::read(bytes)
                .ok()
                .map(|t| MemberKind::Texture(Box::new(t)))
        } else if texture::looks_like_ptx(bytes) {
            Ptx::read(bytes).ok().map(|p| MemberKind::Ptx(Box::new(p)))
        } else if super::shadow::has_shw_magic(bytes) {
            Shw::read(bytes).map(|s| MemberKind::Shadow(Box::new(s)))
        } else {
            Clt::read(bytes).map(|c| MemberKind::Cloth(Box::new(c)))
        };
        match read {
            Some(kind) => {
                let probe = Member {
                    offset: 0,
                    slots: Vec::new(),
                    kind,
                };
                match probe.bytes() {
                    Ok(b) if b == bytes => probe.kind,
                    _ => MemberKind::Opaque(bytes.to_vec()),
                }
            }
            None => MemberKind::Opaque(bytes.to_vec()),
        }
    }
}

/// A whole archive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pac {
    /// Per slot the member offset as on disk (0 = empty); the slot count is its length.
    #[serde(with = "crate::bytes::hex_u32s_vec")]
    pub offsets: Vec<u32>,
    /// Bytes between the table's end and the first member (or the end of the file).
    #[serde(with = "crate::bytes::base64_bytes")]
    pub gap: Vec<u8>,
    /// Members in offset order.
    pub members: Vec<Member>,
}

/// Why an archive was rejected or cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PacError {
    /// The table runs past the end of the input.
    #[error(transparent)]
    OutOfBounds(#[from] OutOfBounds),
    /// +0x00 is not `"PAC\0"`.
    #[error("magic at offset 0x0 is {} (hex), expected \"PAC\\0\"", crate::bytes::hex_bytes::encode(.found))]
    BadMagic {
        /// The four bytes found.
        found: [u8; 4],
    },
    /// A slot's offset points into the slot table.
    #[error("slot {slot} (offset word at {at:#x}) names offset {offset:#x}, inside the slot table (ends at {table_end:#x})")]
    InsideTable {
        /// Slot index.
        slot: usize,
        /// Offset of the slot's word.
        at: u64,
        /// The offset.
        offset: u32,
        /// End of the table.
        table_end: u64,
    },
    /// A slot's offset is at or past the end of the file.
    #[error("slot {slot} (offset word at {at:#x}) names offset {offset:#x}, at or past the end of the file ({file_len:#x} bytes)")]
    PastEnd {
        /// Slot index.
        slot: usize,
        /// Offset of the slot's word.
        at: u64,
        /// The offset.
        offset: u32,
        /// Input length.
        file_len: u64,
    },
    /// (write) The slot table, gap and members disagree.
    #[error("cannot write archive: {0}")]
    Inconsistent(String),
    /// (write) A member cannot be written.
    #[error("cannot write the member of slot(s) {slots:?} at {offset:#x}")]
    Member {
        /// The member's slots.
        slots: Vec<usize>,
        /// Its offset.
        offset: u32,
        /// Why.
        #[source]
        source: MemberError,
    },
    /// (edit) No such slot: removing one past the table, or growing it past
    /// [`MAX_GROWN_SLOTS`].
    #[error("slot {slot} does not exist (the archive has {slots}; a new member may grow it to {MAX_GROWN_SLOTS})")]
    NoSlot {
        /// Slot asked for.
        slot: usize,
        /// Slot count.
        slots: usize,
    },
}

/// The most slots an edit grows an archive to (a member given to a slot past the table).
/// The format's count is a u32; this bound keeps a mistyped slot number from writing megabytes
/// of empty table.
pub const MAX_GROWN_SLOTS: usize = 4096;

/// An edit of one slot for [`Pac::edit`].
#[derive(Debug, Clone, PartialEq)]
pub enum SlotEdit {
    /// Empty the slot (offset 0).
    Remove,
    /// Give the slot these member bytes (a motion's, usually).
    Replace(Vec<u8>),
}

impl Pac {
    /// End of the slot table.
    pub fn table_end(slots: usize) -> u64 {
        TABLE_START + 4 * slots as u64
    }

    /// Reads an archive.
    pub fn read(data: &[u8]) -> Result<Pac, PacError> {
        Pac::read_at(data, 0)
    }

    /// Whether the archive carries a character: a `MOD ` member.
    pub fn has_model(&self) -> bool {
        self.members
            .iter()
            .any(|m| matches!(&m.kind, MemberKind::Model(f) if f.kind() == "mod"))
    }

    /// [`Pac::read`] of an archive nested `depth` deep.
    fn read_at(data: &[u8], depth: usize) -> Result<Pac, PacError> {
        let b = Bytes::new(data);
        let magic = b.array::<4>("archive magic", 0)?;
        if magic != PAC_MAGIC {
            return Err(PacError::BadMagic { found: magic });
        }
        let count = b.u32("slot count", 4)?;
        let table_end = Pac::table_end(count as usize);
        let table = b.slice("slot table", TABLE_START, 4 * u64::from(count))?;
        let offsets: Vec<u32> = table
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let file_len = b.len();
        for (slot, &offset) in offsets.iter().enumerate() {
            let at = TABLE_START + 4 * slot as u64;
            if offset == 0 {
                continue;
            }
            if u64::from(offset) < table_end {
                return Err(PacError::InsideTable {
                    slot,
                    at,
                    offset,
                    table_end,
                });
            }
            if u64::from(offset) >= file_len {
                return Err(PacError::PastEnd {
                    slot,
                    at,
                    offset,
                    file_len,
                });
            }
        }
        // (offset, slot) sorted: each member's slots are a run (no quadratic search).
        let mut named: Vec<(u32, usize)> = offsets
            .iter()
            .enumerate()
            .filter(|(_, &o)| o != 0)
            .map(|(s, &o)| (o, s))
            .collect();
        named.sort_unstable();
        let mut runs: Vec<(u32, Vec<usize>)> = Vec::new();
        for (o, s) in named {
            match runs.last_mut() {
                Some((last, slots)) if *last == o => slots.push(s),
                _ => runs.push((o, vec![s])),
            }
        }
        let first = runs.first().map_or(file_len, |r| u64::from(r.0));
        let gap = b
            .slice("archive gap", table_end, first - table_end)?
            .to_vec();
        let ends: Vec<u64> = runs
            .iter()
            .skip(1)
            .map(|r| u64::from(r.0))
            .chain([file_len])
            .collect();
        let mut members = Vec::with_capacity(runs.len());
        for ((start, slots), end) in runs.into_iter().zip(ends) {
            let bytes = b.slice("archive member", u64::from(start), end - u64::from(start))?;
            members.push(Member {
                offset: start,
                slots,
                kind: Member::classify_at(bytes, depth),
            });
        }
        Ok(Pac {
            offsets,
            gap,
            members,
        })
    }

    /// Writes the archive; for an unmodified read the exact input bytes.
    pub fn write(&self) -> Result<Vec<u8>, PacError> {
        let mut out = Vec::new();
        self.write_into(&mut out)?;
        Ok(out)
    }

    /// [`Pac::write`] into a caller's buffer (cleared first). Checks that the members follow
    /// each other from the gap's end without holes or overlaps, and that the slot table names
    /// exactly each member's slots.
    pub fn write_into(&self, out: &mut Vec<u8>) -> Result<(), PacError> {
        out.clear();
        let count = u32::try_from(self.offsets.len())
            .map_err(|_| PacError::Inconsistent(format!("{} slots", self.offsets.len())))?;
        let mut expect = vec![0u32; self.offsets.len()];
        for m in &self.members {
            if m.offset == 0 {
                return Err(PacError::Inconsistent("a member at offset 0".into()));
            }
            for &s in &m.slots {
                match expect.get_mut(s) {
                    Some(e) if *e == 0 => *e = m.offset,
                    Some(_) => {
                        return Err(PacError::Inconsistent(format!(
                            "slot {s} is listed by two members"
                        )))
                    }
                    None => {
                        return Err(PacError::NoSlot {
                            slot: s,
                            slots: self.offsets.len(),
                        })
                    }
                }
            }
        }
        if let Some(slot) = (0..expect.len()).find(|&s| expect.get(s) != self.offsets.get(s)) {
            return Err(PacError::Inconsistent(format!(
                "slot {slot} holds offset {:#x}, but the members place it at {:#x}",
                self.offsets.get(slot).copied().unwrap_or(0),
                expect.get(slot).copied().unwrap_or(0)
            )));
        }
        out.extend_from_slice(&PAC_MAGIC);
        out.extend_from_slice(&count.to_le_bytes());
        for o in &self.offsets {
            out.extend_from_slice(&o.to_le_bytes());
        }
        out.extend_from_slice(&self.gap);
        for m in &self.members {
            if out.len() as u64 != u64::from(m.offset) {
                return Err(PacError::Inconsistent(format!(
                    "member of slot(s) {:?} is at {:#x}, but the previous structures end at {:#x}",
                    m.slots,
                    m.offset,
                    out.len()
                )));
            }
            let bytes = m.bytes().map_err(|source| PacError::Member {
                slots: m.slots.clone(),
                offset: m.offset,
                source,
            })?;
            if bytes.is_empty() {
                return Err(PacError::Inconsistent(format!(
                    "member of slot(s) {:?} at {:#x} is empty",
                    m.slots, m.offset
                )));
            }
            out.extend_from_slice(&bytes);
        }
        Ok(())
    }

    /// A copy with slots edited: removed slots become empty (a member no slot names any more is
    /// dropped), replaced slots get their own new member (split from any slot it shared with),
    /// placed where the slot's old member was (or at the end for a slot that was empty).
    /// Members are laid out again from the gap's end; a member that is not the last is padded
    /// with zeros to a multiple of 16 bytes (census), a motion member's padding going to its tail.
    pub fn edit(&self, edits: &[(usize, SlotEdit)]) -> Result<Pac, PacError> {
        let before = self.offsets.len();
        let slots = self.grown_to(edits)?;
        // (slots, bytes) in the new order.
        let mut pieces: Vec<(Vec<usize>, Vec<u8>)> = Vec::new();
        let mut replaced: Vec<Option<&SlotEdit>> = vec![None; slots];
        for (s, e) in edits {
            *replaced.get_mut(*s).ok_or(PacError::NoSlot {
                slot: *s,
                slots: before,
            })? = Some(e);
        }
        let mut placed_new = vec![false; slots];
        for m in &self.members {
            let bytes = m.bytes().map_err(|source| PacError::Member {
                slots: m.slots.clone(),
                offset: m.offset,
                source,
            })?;
            let kept: Vec<usize> = m
                .slots
                .iter()
                .copied()
                .filter(|&s| replaced.get(s).copied().flatten().is_none())
                .collect();
            if !kept.is_empty() {
                pieces.push((kept, bytes));
            }
            for &s in &m.slots {
                if let Some(Some(SlotEdit::Replace(b))) = replaced.get(s) {
                    pieces.push((vec![s], b.clone()));
                    placed_new[s] = true;
                }
            }
        }
        for (s, e) in replaced.iter().enumerate() {
            if let (Some(SlotEdit::Replace(b)), false) = (e, placed_new[s]) {
                pieces.push((vec![s], b.clone()));
            }
        }
        pieces.retain(|(_, b)| !b.is_empty());
        let mut offsets = vec![0u32; slots];
        let mut members = Vec::with_capacity(pieces.len());
        let gap = self.gap_for(slots);
        let mut at = Pac::table_end(slots) + gap.len() as u64;
        let last = pieces.len().saturating_sub(1);
        for (i, (ss, mut bytes)) in pieces.into_iter().enumerate() {
            if i != last {
                let pad = crate::bytes::align(bytes.len() as u64, 16) - bytes.len() as u64;
                bytes.resize(bytes.len() + pad as usize, 0);
            }
            let offset = u32::try_from(at)
                .map_err(|_| PacError::Inconsistent(format!("member offset {at:#x} over u32")))?;
            for &s in &ss {
                offsets[s] = offset;
            }
            at += bytes.len() as u64;
            members.push(Member {
                offset,
                slots: ss,
                kind: Member::classify(&bytes),
            });
        }
        Ok(Pac {
            offsets,
            gap,
            members,
        })
    }

    /// The slot count after `edits`: a member given to a slot past the table grows it (up to
    /// [`MAX_GROWN_SLOTS`]); removing such a slot is [`PacError::NoSlot`].
    fn grown_to(&self, edits: &[(usize, SlotEdit)]) -> Result<usize, PacError> {
        let slots = self.offsets.len();
        let mut grown = slots;
        for (s, e) in edits {
            match e {
                SlotEdit::Replace(_) if *s >= slots && *s < MAX_GROWN_SLOTS.max(slots) => {
                    grown = grown.max(s + 1)
                }
                _ if *s >= slots => return Err(PacError::NoSlot { slot: *s, slots }),
                _ => {}
            }
        }
        Ok(grown)
    }

    /// The bytes between a table of `slots` and the first member: the archive's own when the
    /// table keeps its size; when it grew, its bytes unless all zero (then padding only), padded
    /// with zeros to keep a 16-byte aligned first member aligned.
    fn gap_for(&self, slots: usize) -> Vec<u8> {
        let was = self.offsets.len();
        if slots == was {
            return self.gap.clone();
        }
        let mut gap = if self.gap.iter().all(|&b| b == 0) {
            Vec::new()
        } else {
            self.gap.clone()
        };
        if (Pac::table_end(was) + self.gap.len() as u64).is_multiple_of(16) {
            let end = Pac::table_end(slots) + gap.len() as u64;
            gap.resize(gap.len() + (crate::bytes::align(end, 16) - end) as usize, 0);
        }
        gap
    }

    /// Indices of the empty slots.
    pub fn empty_slots(&self) -> impl Iterator<Item = usize> + '_ {
        self.offsets
            .iter()
            .enumerate()
            .filter(|(_, &o)| o == 0)
            .map(|(s, _)| s)
    }

    /// The member slot `slot` names, if any.
    pub fn member_of(&self, slot: usize) -> Option<&Member> {
        self.members.iter().find(|m| m.slots.contains(&slot))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(offsets: &[u32], gap: &[u8], members: &[&[u8]]) -> Vec<u8> {
        let mut b = PAC_MAGIC.to_vec();
        b.extend_from_slice(&(offsets.len() as u32).to_le_bytes());
        for o in offsets {
            b.extend_from_slice(&o.to_le_bytes());
        }
        b.extend_from_slice(gap);
        for m in members {
            b.extend_from_slice(m);
        }
        b
    }

    #[test]
    fn round_trip_with_empty_and_shared_slots() {
        // table ends at 8 + 16 = 0x18, gap 8 bytes, members at 0x20 and 0x25.
        let b = bytes(
            &[0x20, 0, 0x25, 0x20],
            &[1, 2, 3, 4, 5, 6, 7, 8],
            &[b"hello", b"xyz"],
        );
        let p = Pac::read(&b).unwrap();
        assert_eq!(p.members.len(), 2);
        assert_eq!(p.members[0].slots, vec![0, 3]);
        assert_eq!(p.members[1].slots, vec![2]);
        assert_eq!(p.members[0].kind, MemberKind::Opaque(b"hello".to_vec()));
        assert_eq!(p.empty_slots().collect::<Vec<_>>(), vec![1]);
        assert_eq!(p.write().unwrap(), b);
    }

    #[test]
    fn nested_archives_are_read_to_a_bounded_depth() {
        // Ten archives, each the one member of the one before, around "abcd".
        let mut b = b"abcd".to_vec();
        for _ in 0..10 {
            b = bytes(&[12], &[], &[&b]);
        }
        let p = Pac::read(&b).unwrap();
        assert_eq!(p.write().unwrap(), b);
        let mut depth = 0;
        let mut at = &p;
        while let MemberKind::Archive(inner) = &at.members[0].kind {
            depth += 1;
            at = inner;
        }
        assert_eq!(depth, MAX_NESTING);
        assert_eq!(at.members[0].kind.name(), "pac?");
    }

    #[test]
    fn members_are_told_apart_by_their_magic() {
        let texture = {
            let mut t = vec![0u8; 0xF0];
            t[0x70..0x74].copy_from_slice(b"DDS ");
            t
        };
        let b = bytes(
            &[0x14, 0x1C, 0x24],
            &[],
            &[b"SHW\0abcd", b"EFM 1234", &texture],
        );
        let p = Pac::read(&b).unwrap();
        let names: Vec<_> = p.members.iter().map(|m| m.kind.name()).collect();
        assert_eq!(names, vec!["shw", "efm", "tm2"]);
        // Slot names only name; the archive has no model.
        assert!(!p.has_model());
        assert_eq!(slot_name(8), Some("shadow"));
        assert_eq!(p.write().unwrap(), b);
    }

    #[test]
    fn offsets_inside_table_or_past_end_are_rejected() {
        let b = bytes(&[0x08], &[], &[b"abcd"]);
        assert!(matches!(
            Pac::read(&b),
            Err(PacError::InsideTable { slot: 0, .. })
        ));
        let b = bytes(&[0x10], &[], &[b"abcd"]);
        assert!(matches!(
            Pac::read(&b),
            Err(PacError::PastEnd { slot: 0, .. })
        ));
    }

    #[test]
    fn edit_removes_and_replaces() {
        let b = bytes(&[0x10, 0x14], &[], &[b"abcd", b"ef"]);
        let p = Pac::read(&b).unwrap();
        let e = p
            .edit(&[
                (0, SlotEdit::Remove),
                (1, SlotEdit::Replace(b"0123456789abcdefXY".to_vec())),
            ])
            .unwrap();
        assert_eq!(
            e.write().unwrap(),
            bytes(&[0, 0x10], &[], &[b"0123456789abcdefXY"])
        );
        let e = p.edit(&[(0, SlotEdit::Replace(b"zz".to_vec()))]).unwrap();
        let mut padded = b"zz".to_vec();
        padded.resize(16, 0);
        assert_eq!(
            e.write().unwrap(),
            bytes(&[0x10, 0x20], &[], &[&padded, b"ef"])
        );
    }

    #[test]
    fn a_member_past_the_table_grows_it_keeping_members_aligned_and_the_gap_bytes() {
        // Two slots: table ends at 0x10, members aligned.
        let b = bytes(&[0x10, 0x20], &[], &[b"0123456789abcdef", b"ef"]);
        let p = Pac::read(&b).unwrap();
        let e = p.edit(&[(4, SlotEdit::Replace(b"new".to_vec()))]).unwrap();
        // Five slots: the table ends at 0x1C, padded to 0x20.
        let mut first = b"0123456789abcdef".to_vec();
        first.resize(16, 0);
        let mut ef = b"ef".to_vec();
        ef.resize(16, 0);
        assert_eq!(
            e.write().unwrap(),
            bytes(&[0x20, 0x30, 0, 0, 0x40], &[0; 4], &[&first, &ef, b"new"])
        );
        // A gap that is not zero keeps its bytes, padded after them.
        let b = bytes(&[0x10], &[7, 0, 0, 0], &[b"x"]);
        let p = Pac::read(&b).unwrap();
        let e = p.edit(&[(1, SlotEdit::Replace(b"y".to_vec()))]).unwrap();
        let mut gap = vec![7, 0, 0, 0];
        gap.resize(16, 0);
        assert_eq!(e.gap, gap);
        assert_eq!(e.offsets, vec![0x20, 0x30]);
        // Removing past the table, or growing past the bound, names the slot.
        assert_eq!(
            p.edit(&[(3, SlotEdit::Remove)]),
            Err(PacError::NoSlot { slot: 3, slots: 1 })
        );
        assert_eq!(
            p.edit(&[(MAX_GROWN_SLOTS, SlotEdit::Replace(vec![1]))]),
            Err(PacError::NoSlot {
                slot: MAX_GROWN_SLOTS,
                slots: 1
            })
        );
    }
}
