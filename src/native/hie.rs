//! PlayStation `DBnnHIE.BIN`: a database's hierarchies (the skeletons its characters and
//! jointed props are built on).
//!
//! Layout (little-endian; `docs/formats.md`): a table of 256 u32 file offsets at 0 (0 = empty slot),
//! then hierarchies anywhere after the table. A hierarchy is an s16 part count, a 0x32-byte area
//! of 0xFF-ended byte lists, and `parts` records of 0x28 bytes. Several slots may point at one
//! hierarchy; hierarchies need not follow slot order; bytes between and after them are kept as
//! [`Gap`]s so that `write(read(b)) == b` for every accepted `b`.

use serde::{Deserialize, Serialize};

use std::fmt;

use crate::bytes::{align, hex_bytes, put_at, region_mut, Bytes, Gap, Overlap, RegionMap};
use crate::native::dmc3::MAX_HOLE_BYTES;
use crate::native::record::{Ctx, Hex, HexArray, I32s, Int};

/// Number of slots in the offset table.
pub const SLOTS: usize = 256;
/// Size of the offset table in bytes.
pub const TABLE_LEN: u64 = 0x400;
/// Size of a hierarchy header (part count + byte-list area).
pub const HEADER_LEN: u64 = 0x34;
/// Size of one part record.
pub const PART_LEN: u64 = Part::LEN as u64;
/// Size of the byte-list area in a hierarchy header.
pub const BYTE_LIST_LEN: usize = 0x32;
/// The most parts an s16 count can hold.
pub const MAX_PARTS: usize = i16::MAX as usize;

/// A whole DBnnHIE.BIN file.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct HieFile {
    /// One entry per slot (256): index into `hierarchies`, `None` for offset 0.
    pub slots: Vec<Option<usize>>,
    /// Hierarchies in file-offset order; one that several slots point at is read once.
    pub hierarchies: Vec<Hierarchy>,
    /// Every byte covered by neither the table nor a hierarchy, in file order.
    pub gaps: Vec<Gap>,
}

/// One hierarchy: header and parts.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Hierarchy {
    /// File offset it was read from (where it stays while it fits in `span`).
    #[serde(with = "crate::bytes::hex_u32")]
    pub offset: u32,
    /// Bytes it occupied when read; 0 for a new one (placed at the end of the file on write).
    #[serde(with = "crate::bytes::hex_u32")]
    pub span: u32,
    /// The 0x32-byte area after the part count.
    pub byte_lists: ByteLists,
    /// The parts, in file order (depth-first).
    pub parts: Vec<Part>,
}

/// The header's 0x32-byte area, split on 0xFF (meaning partly unknown: "part groups").
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ByteLists {
    /// Each list was ended by 0xFF on disk; the terminator is not stored.
    #[serde(with = "hex_list")]
    pub lists: Vec<Vec<u8>>,
    /// The bytes after the last 0xFF (the whole area if there is none), exactly.
    #[serde(with = "hex_bytes")]
    pub tail: Vec<u8>,
}

crate::record! {
    /// One part record, 0x28 bytes.
    pub struct Part [0x28] "part" {
        0x00 unknown_00: u16 = Int<u16>, "unknown_00", Preserved PreservedUndecoded,
            "meaning unknown (0 in DB22)";
        0x02 depth: u16 = Int<u16>, "depth", Decoded StructuralConfirmed,
            "1 for a root; the parent is the nearest earlier part whose depth is one less";
        0x04 runtime: [u8; 16] = HexArray<16>, "runtime", Preserved PreservedUndecoded,
            "zero on disc; the run-time rotation quaternion (four s32) lives here";
        0x14 offset: [i32; 3] = I32s<3>, "offset[]", Decoded ExeConfirmed,
            "the joint's offset from the parent's joint, integer units (Y down)";
        0x20 unknown_20: u32 = Hex<u32>, "unknown_20", Preserved PreservedUndecoded,
            "meaning unknown (0 in DB22)";
        0x24 model: u32 = Hex<u32>, "model", Decoded StructuralConfirmed,
            "a model id (the loader replaces it with a pointer)";
    }
}

/// Why a HIE file was rejected or cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HieError {
    /// The file cannot even hold the slot table.
    #[error("file is {len:#x} bytes, shorter than the {TABLE_LEN:#x}-byte slot table")]
    TooShort {
        /// File length.
        len: u64,
    },
    /// A slot points at or past the end of the file.
    #[error(
        "slot {slot}: offset {offset:#x} is at or past the end of the file ({file_len:#x} bytes)"
    )]
    SlotPastEnd {
        /// Slot index.
        slot: usize,
        /// The slot's offset.
        offset: u32,
        /// File length.
        file_len: u64,
    },
    /// A non-zero slot points into the slot table itself.
    #[error("slot {slot}: offset {offset:#x} points inside the slot table (below {TABLE_LEN:#x})")]
    SlotInTable {
        /// Slot index.
        slot: usize,
        /// The slot's offset.
        offset: u32,
    },
    /// A hierarchy's part count is negative.
    #[error("slot {slot}: hierarchy at {offset:#x} has a negative part count ({parts})")]
    NegativeParts {
        /// Slot index.
        slot: usize,
        /// Hierarchy offset.
        offset: u32,
        /// The s16 part count.
        parts: i16,
    },
    /// A hierarchy does not fit in the file.
    #[error("slot {slot}: hierarchy at {offset:#x} ({len:#x} bytes, {parts} parts) runs past the end of the file ({file_len:#x} bytes)")]
    HierarchyPastEnd {
        /// Slot index.
        slot: usize,
        /// Hierarchy offset.
        offset: u32,
        /// Bytes the hierarchy needs (the header alone when the count could not be read).
        len: u64,
        /// Its part count (0 when it could not be read).
        parts: i16,
        /// File length.
        file_len: u64,
    },
    /// Two different hierarchies share bytes.
    #[error("slot {first_slot}: hierarchy at {first_offset:#x}..{first_end:#x} overlaps slot {second_slot}'s hierarchy at {second_offset:#x}")]
    Overlap {
        /// Lowest slot of the hierarchy that starts first.
        first_slot: usize,
        /// Its offset.
        first_offset: u32,
        /// Its end (exclusive).
        first_end: u64,
        /// Lowest slot of the hierarchy that starts inside the first.
        second_slot: usize,
        /// Its offset.
        second_offset: u32,
    },
    /// The writer placed a region outside its buffer (a bug: the layout is checked first).
    #[error(transparent)]
    Region(#[from] crate::bytes::OutOfBounds),
    /// A part record holds bytes its type cannot (see [`crate::native::record::BadValue`]).
    #[error("hierarchy at {offset:#x}: part {part} field {key} cannot be decoded")]
    Field {
        /// Hierarchy offset.
        offset: u32,
        /// Part index.
        part: usize,
        /// The field.
        key: &'static str,
    },
    /// Region bookkeeping found an overlap the checks above did not (should not happen).
    #[error(transparent)]
    Regions(#[from] Overlap),
    /// The slot vector does not have 256 entries.
    #[error("the slot table has {len} entries, not {SLOTS}")]
    SlotCount {
        /// Entries found.
        len: usize,
    },
    /// A slot names a hierarchy that does not exist.
    #[error("slot {slot}: hierarchy index {index} out of range ({count} hierarchies)")]
    SlotIndex {
        /// Slot index.
        slot: usize,
        /// The index it holds.
        index: usize,
        /// Number of hierarchies.
        count: usize,
    },
    /// A hierarchy no slot points at would be written as unreachable bytes.
    #[error("hierarchy {hierarchy} (offset {offset:#x}): no slot points at it")]
    Unreferenced {
        /// Hierarchy index.
        hierarchy: usize,
        /// Its offset.
        offset: u32,
    },
    /// More parts than the s16 count can hold.
    #[error("hierarchy {hierarchy} (offset {offset:#x}): {parts} parts, more than {MAX_PARTS}")]
    TooManyParts {
        /// Hierarchy index.
        hierarchy: usize,
        /// Its offset.
        offset: u32,
        /// Part count.
        parts: usize,
    },
    /// The byte lists do not fill the 0x32-byte area exactly.
    #[error("hierarchy {hierarchy} (offset {offset:#x}): byte lists encode to {len:#x} bytes, not {BYTE_LIST_LEN:#x}")]
    ByteListLength {
        /// Hierarchy index.
        hierarchy: usize,
        /// Its offset.
        offset: u32,
        /// Encoded length.
        len: usize,
    },
    /// A list or the tail holds 0xFF, which would read back as a terminator.
    #[error("hierarchy {hierarchy} (offset {offset:#x}): {which} contains 0xff, which is the list terminator")]
    ByteListTerminator {
        /// Hierarchy index.
        hierarchy: usize,
        /// Its offset.
        offset: u32,
        /// Which list, or the tail.
        which: ByteListPart,
    },
    /// A hierarchy that keeps its place lies inside the slot table.
    #[error("hierarchy {hierarchy}: offset {offset:#x} lies inside the slot table (below {TABLE_LEN:#x})")]
    OffsetInTable {
        /// Hierarchy index.
        hierarchy: usize,
        /// Its offset.
        offset: u32,
    },
    /// Two regions to be written (hierarchies kept in place, gaps) overlap.
    #[error("{first} ({first_start:#x}..{first_end:#x}) overlaps {second} ({second_start:#x}..{second_end:#x})")]
    WriteOverlap {
        /// The region that starts first.
        first: WriteLabel,
        /// Its start.
        first_start: u64,
        /// Its end (exclusive).
        first_end: u64,
        /// The region that starts inside it.
        second: WriteLabel,
        /// Its start.
        second_start: u64,
        /// Its end (exclusive).
        second_end: u64,
    },
    /// A placed hierarchy would not be addressable by a u32 slot.
    #[error(
        "hierarchy {hierarchy} would be placed at {offset:#x}, beyond what a u32 slot can address"
    )]
    TooLarge {
        /// Hierarchy index.
        hierarchy: usize,
        /// The offset it would get.
        offset: u64,
    },
    /// The regions to write leave too much of the file uncovered (it would be zero-filled).
    #[error("the table, hierarchies and gaps cover {covered:#x} bytes but end at {end:#x}; more than {MAX_HOLE_BYTES:#x} bytes of holes would be zero-filled")]
    Holes {
        /// Bytes the regions cover.
        covered: u64,
        /// Where the file would end.
        end: u64,
    },
}

impl ByteLists {
    /// Splits a 0x32-byte area on 0xFF.
    pub fn parse(area: &[u8]) -> Self {
        let mut lists = Vec::with_capacity(area.iter().filter(|&&b| b == 0xFF).count());
        let mut rest = area;
        while let Some(end) = rest.iter().position(|&b| b == 0xFF) {
            lists.push(rest[..end].to_vec());
            rest = &rest[end + 1..];
        }
        // The bytes after the last 0xFF (the whole area if there is none).
        ByteLists {
            lists,
            tail: rest.to_vec(),
        }
    }

    /// The area as it goes on disk: each list followed by 0xFF, then the tail.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(BYTE_LIST_LEN);
        for l in &self.lists {
            out.extend_from_slice(l);
            out.push(0xFF);
        }
        out.extend_from_slice(&self.tail);
        out
    }

    /// An area of lists followed by a zero tail filling it to 0x32 bytes (`None` if they do not fit).
    pub fn with_zero_tail(lists: Vec<Vec<u8>>) -> Option<Self> {
        let used: usize = lists.iter().map(|l| l.len() + 1).sum();
        let rest = BYTE_LIST_LEN.checked_sub(used)?;
        Some(ByteLists {
            lists,
            tail: vec![0; rest],
        })
    }
}

impl Part {
    /// Reads a record at `at`.
    #[cfg(test)]
    fn read(b: &Bytes<'_>, at: u64) -> Result<Part, crate::bytes::OutOfBounds> {
        Ok(Part {
            unknown_00: b.u16("part unknown_00", at)?,
            depth: b.u16("part depth", at + 0x02)?,
            runtime: b.array("part runtime bytes", at + 0x04)?,
            offset: [
                b.i32("part offset x", at + 0x14)?,
                b.i32("part offset y", at + 0x18)?,
                b.i32("part offset z", at + 0x1C)?,
            ],
            unknown_20: b.u32("part unknown_20", at + 0x20)?,
            model: b.u32("part model", at + 0x24)?,
        })
    }
}

impl Hierarchy {
    /// Bytes the hierarchy takes on disk with its current parts.
    pub fn encoded_len(&self) -> u64 {
        HEADER_LEN + PART_LEN * self.parts.len() as u64
    }
}

/// What the writer reads of a hierarchy: its fields, by reference.
pub trait HierarchyView {
    /// File offset it was read from.
    fn offset(&self) -> u32;
    /// Bytes it occupied when read (0 for a new one).
    fn span(&self) -> u32;
    /// The header's byte-list area.
    fn byte_lists(&self) -> &ByteLists;
    /// The parts, in file order.
    fn parts(&self) -> &[Part];
    /// Bytes the hierarchy takes on disk with its current parts.
    fn encoded_len(&self) -> u64 {
        HEADER_LEN + PART_LEN * self.parts().len() as u64
    }
}

impl HierarchyView for Hierarchy {
    fn offset(&self) -> u32 {
        self.offset
    }
    fn span(&self) -> u32 {
        self.span
    }
    fn byte_lists(&self) -> &ByteLists {
        &self.byte_lists
    }
    fn parts(&self) -> &[Part] {
        &self.parts
    }
}

/// Writes a hierarchy as it goes on disk into `dst`, exactly `encoded_len` bytes of zeros
/// (checks done by [`write`]: parts.len() <= MAX_PARTS, byte lists filling their area
/// exactly; a region outside `dst` is refused as a bug).
fn encode_hierarchy<H: HierarchyView>(h: &H, dst: &mut [u8]) -> Result<(), HieError> {
    put_at(
        dst,
        "part count",
        0,
        &(h.parts().len() as i16).to_le_bytes(),
    )?;
    let lists = h.byte_lists();
    let mut at = 2u64;
    for l in &lists.lists {
        put_at(dst, "byte list", at, l)?;
        put_at(dst, "byte-list terminator", at + l.len() as u64, &[0xFF])?;
        at += l.len() as u64 + 1;
    }
    put_at(dst, "byte-list tail", at, &lists.tail)?;
    let parts = region_mut(dst, "parts", HEADER_LEN, PART_LEN * h.parts().len() as u64)?;
    for (d, p) in parts
        .as_chunks_mut::<{ Part::LEN }>()
        .0
        .iter_mut()
        .zip(h.parts())
    {
        *d = p.encode();
    }
    Ok(())
}

impl HieFile {
    /// For each hierarchy, the slots that point at it (ascending).
    pub fn slots_of(&self) -> Vec<Vec<usize>> {
        let mut v = vec![Vec::new(); self.hierarchies.len()];
        for (slot, h) in self.slots.iter().enumerate() {
            if let Some(h) = h {
                if let Some(list) = v.get_mut(*h) {
                    list.push(slot);
                }
            }
        }
        v
    }

    /// Lowest slot pointing at hierarchy `h`, if any.
    pub fn first_slot(&self, h: usize) -> Option<usize> {
        self.slots.iter().position(|s| *s == Some(h))
    }
}

/// Reads the offset of every slot.
fn table(b: &Bytes<'_>) -> Result<[u32; SLOTS], HieError> {
    let t = b
        .slice("slot", 0, TABLE_LEN)
        .map_err(|_| HieError::TooShort { len: b.len() })?;
    let mut out = [0u32; SLOTS];
    for (o, c) in out.iter_mut().zip(t.chunks_exact(4)) {
        *o = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    Ok(out)
}

/// Part count and byte length of the hierarchy a slot points at, with every check on the way.
fn probe(b: &Bytes<'_>, slot: usize, offset: u32) -> Result<(i16, u64), HieError> {
    let off = u64::from(offset);
    if off < TABLE_LEN {
        return Err(HieError::SlotInTable { slot, offset });
    }
    if off >= b.len() {
        return Err(HieError::SlotPastEnd {
            slot,
            offset,
            file_len: b.len(),
        });
    }
    let parts = b
        .i16("part count", off)
        .map_err(|_| HieError::HierarchyPastEnd {
            slot,
            offset,
            len: HEADER_LEN,
            parts: 0,
            file_len: b.len(),
        })?;
    if parts < 0 {
        return Err(HieError::NegativeParts {
            slot,
            offset,
            parts,
        });
    }
    let len = HEADER_LEN + PART_LEN * parts as u64;
    if b.check("hierarchy", off, len).is_err() {
        return Err(HieError::HierarchyPastEnd {
            slot,
            offset,
            len,
            parts,
            file_len: b.len(),
        });
    }
    Ok((parts, len))
}

/// Whether `data` plausibly is a HIE file: a table whose non-zero slots all point past it, inside
/// the file, at hierarchies with a non-negative part count that fit. Cheap; no overlap check.
pub fn looks_like(data: &[u8]) -> bool {
    let b = Bytes::new(data);
    let Ok(offsets) = table(&b) else {
        return false;
    };
    let mut any = false;
    for (slot, &o) in offsets.iter().enumerate() {
        if o != 0 {
            if probe(&b, slot, o).is_err() {
                return false;
            }
            any = true;
        }
    }
    any
}

/// Largest slot offset a plausible (even truncated) table holds: 16 MiB, beyond any DBnnHIE.BIN.
const PLAUSIBLE_OFFSET: u32 = 1 << 24;

/// When `data` starts like a DBnnHIE.BIN slot table (the complete words it has are zero or
/// offsets past the table, below 16 MiB, at least one not zero) but does not hold what that
/// table says: where the file ends too early, with figures. `None` for anything else.
pub fn truncation(data: &[u8]) -> Option<String> {
    let len = data.len() as u64;
    let words: Vec<u32> = data
        .chunks_exact(4)
        .take(SLOTS)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let plausible = |o: &u32| *o == 0 || (u64::from(*o) >= TABLE_LEN && *o < PLAUSIBLE_OFFSET);
    if !words.iter().all(plausible) || words.iter().all(|&o| o == 0) {
        return None;
    }
    if len < TABLE_LEN {
        return Some(format!(
            "truncated DBnnHIE.BIN: the slot table needs {TABLE_LEN:#x} bytes but the file ends at {len:#x}"
        ));
    }
    let b = Bytes::new(data);
    for (slot, &o) in words.iter().enumerate() {
        if o == 0 {
            continue;
        }
        match probe(&b, slot, o) {
            Ok(_) => {}
            Err(HieError::SlotPastEnd { .. }) => {
                return Some(format!(
                    "truncated DBnnHIE.BIN: the table says slot {slot} starts at {o:#x} but the file ends at {len:#x}"
                ))
            }
            Err(HieError::HierarchyPastEnd { len: need, .. }) => {
                return Some(format!(
                    "truncated DBnnHIE.BIN: slot {slot}'s hierarchy at {o:#x} needs {need:#x} bytes but the file ends at {len:#x}"
                ))
            }
            Err(_) => return None,
        }
    }
    None
}

/// Reads a whole file.
pub fn read(data: &[u8]) -> Result<HieFile, HieError> {
    let b = Bytes::new(data);
    if b.len() < TABLE_LEN {
        return Err(HieError::TooShort { len: b.len() });
    }
    let offsets = table(&b)?;

    // (offset, lowest slot, parts, len) for each distinct offset.
    let mut found: Vec<(u32, usize, i16, u64)> = Vec::with_capacity(16);
    for (slot, &o) in offsets.iter().enumerate() {
        if o == 0 {
            continue;
        }
        let (parts, len) = probe(&b, slot, o)?;
        found.push((o, slot, parts, len));
    }
    // By offset; the sort is stable and slots were pushed in order, so the first entry of each
    // offset is its lowest slot, the one kept.
    found.sort_by_key(|f| f.0);
    found.dedup_by_key(|f| f.0);
    for w in found.windows(2) {
        let (a, b2) = (&w[0], &w[1]);
        let a_end = u64::from(a.0) + a.3;
        if u64::from(b2.0) < a_end {
            return Err(HieError::Overlap {
                first_slot: a.1,
                first_offset: a.0,
                first_end: a_end,
                second_slot: b2.1,
                second_offset: b2.0,
            });
        }
    }

    let mut map = RegionMap::with_capacity(found.len() + 1);
    map.claim(0, TABLE_LEN, ReadLabel::Table);
    let mut hierarchies = Vec::with_capacity(found.len());
    for &(offset, slot, parts, len) in &found {
        map.claim(
            u64::from(offset),
            len,
            ReadLabel::Hierarchy { slot, offset },
        );
        let base = u64::from(offset);
        let past_end = |_: crate::bytes::OutOfBounds| HieError::HierarchyPastEnd {
            slot,
            offset,
            len,
            parts,
            file_len: b.len(),
        };
        let area = b
            .slice("byte lists", base + 2, BYTE_LIST_LEN as u64)
            .map_err(past_end)?;
        // parts >= 0 and the whole hierarchy was checked to fit, so this is bounded by the file.
        let records = b
            .slice("parts", base + HEADER_LEN, PART_LEN * parts as u64)
            .map_err(past_end)?;
        let list = records
            .as_chunks::<{ Part::LEN }>()
            .0
            .iter()
            .enumerate()
            .map(|(part, r)| {
                Part::decode(r, Ctx::default()).map_err(|e| HieError::Field {
                    offset,
                    part,
                    key: e.key,
                })
            })
            .collect::<Result<Vec<Part>, HieError>>()?;
        hierarchies.push(Hierarchy {
            offset,
            // len <= file length - offset, and offset is a u32, but the file may be larger.
            span: u32::try_from(len).map_err(|_| HieError::HierarchyPastEnd {
                slot,
                offset,
                len,
                parts,
                file_len: b.len(),
            })?,
            byte_lists: ByteLists::parse(area),
            parts: list,
        });
    }
    let (_, gaps) = map.finish(data)?;
    let slots = offsets
        .iter()
        .map(|&o| {
            if o == 0 {
                None
            } else {
                // `found` is sorted by offset, one entry per offset.
                found.binary_search_by_key(&o, |f| f.0).ok()
            }
        })
        .collect();
    Ok(HieFile {
        slots,
        hierarchies,
        gaps,
    })
}

/// Checks what the writer cannot encode: slot count and indices, part counts, byte lists, and
/// hierarchies no slot reaches.
fn validate<H: HierarchyView>(file: &HieParts<'_, H>) -> Result<(), HieError> {
    if file.slots.len() != SLOTS {
        return Err(HieError::SlotCount {
            len: file.slots.len(),
        });
    }
    let count = file.hierarchies.len();
    let mut referenced = vec![false; count];
    for (slot, s) in file.slots.iter().enumerate() {
        if let Some(index) = *s {
            match referenced.get_mut(index) {
                Some(r) => *r = true,
                None => {
                    return Err(HieError::SlotIndex { slot, index, count });
                }
            }
        }
    }
    for (i, h) in file.hierarchies.iter().enumerate() {
        let offset = h.offset();
        if !referenced.get(i).copied().unwrap_or(false) {
            return Err(HieError::Unreferenced {
                hierarchy: i,
                offset,
            });
        }
        if h.parts().len() > MAX_PARTS {
            return Err(HieError::TooManyParts {
                hierarchy: i,
                offset,
                parts: h.parts().len(),
            });
        }
        for (k, l) in h.byte_lists().lists.iter().enumerate() {
            if l.contains(&0xFF) {
                return Err(HieError::ByteListTerminator {
                    hierarchy: i,
                    offset,
                    which: ByteListPart::List(k),
                });
            }
        }
        if h.byte_lists().tail.contains(&0xFF) {
            return Err(HieError::ByteListTerminator {
                hierarchy: i,
                offset,
                which: ByteListPart::Tail,
            });
        }
        let len: usize = h
            .byte_lists()
            .lists
            .iter()
            .map(|l| l.len() + 1)
            .sum::<usize>()
            + h.byte_lists().tail.len();
        if len != BYTE_LIST_LEN {
            return Err(HieError::ByteListLength {
                hierarchy: i,
                offset,
                len,
            });
        }
    }
    Ok(())
}

/// Where each hierarchy goes on write. A hierarchy that still fits in the span it was read with
/// keeps its offset; one that grew, or is new (span 0), goes after everything else (the table,
/// every gap, every hierarchy's old span), 4-byte aligned, in `hierarchies` order. Old spans of
/// moved hierarchies stay reserved (written as zeros) so no other byte has to move.
pub fn layout(file: &HieFile) -> Result<Vec<u32>, HieError> {
    layout_parts(&file.parts())
}

impl<H> Clone for HieParts<'_, H> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<H> Copy for HieParts<'_, H> {}

fn layout_parts<H: HierarchyView>(file: &HieParts<'_, H>) -> Result<Vec<u32>, HieError> {
    validate(file)?;
    // (start, end, label) of every region whose place is fixed.
    let mut fixed: Vec<(u64, u64, WriteLabel)> =
        Vec::with_capacity(1 + file.hierarchies.len() + file.gaps.len());
    fixed.push((0, TABLE_LEN, WriteLabel::Table));
    let mut end = TABLE_LEN;
    for (i, h) in file.hierarchies.iter().enumerate() {
        let start = u64::from(h.offset());
        let span_end = start + u64::from(h.span());
        if h.span() > 0 {
            end = end.max(span_end);
        }
        if h.span() > 0 && h.encoded_len() <= u64::from(h.span()) {
            if start < TABLE_LEN {
                return Err(HieError::OffsetInTable {
                    hierarchy: i,
                    offset: h.offset(),
                });
            }
            fixed.push((start, span_end, WriteLabel::Hierarchy(i)));
        }
    }
    for (index, g) in file.gaps.iter().enumerate() {
        // A gap is a Vec in memory, so its length fits in u64 without overflow.
        let g_end = g.offset.saturating_add(g.bytes.len() as u64);
        if !g.bytes.is_empty() {
            fixed.push((
                g.offset,
                g_end,
                WriteLabel::Gap {
                    index,
                    offset: g.offset,
                },
            ));
        }
        end = end.max(g_end);
    }
    if !fixed
        .windows(2)
        .all(|w| (w[0].0, w[0].1) <= (w[1].0, w[1].1))
    {
        fixed.sort_by_key(|r| (r.0, r.1));
    }
    // Sorted by start: an overlap anywhere implies one between neighbours.
    for w in fixed.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(HieError::WriteOverlap {
                first: w[0].2,
                first_start: w[0].0,
                first_end: w[0].1,
                second: w[1].2,
                second_start: w[1].0,
                second_end: w[1].1,
            });
        }
    }
    let mut placed = Vec::with_capacity(file.hierarchies.len());
    for (i, h) in file.hierarchies.iter().enumerate() {
        if h.span() > 0 && h.encoded_len() <= u64::from(h.span()) {
            placed.push(h.offset());
        } else {
            let at = align(end, 4);
            let offset = u32::try_from(at).map_err(|_| HieError::TooLarge {
                hierarchy: i,
                offset: at,
            })?;
            end = at + h.encoded_len();
            placed.push(offset);
        }
    }
    Ok(placed)
}

/// Writes a whole file: for a file as read, exactly the bytes it was read from; for a modified
/// one, see [`layout`] for where each hierarchy goes.
pub fn write(file: &HieFile) -> Result<Vec<u8>, HieError> {
    let mut out = Vec::new();
    write_into(file, &mut out)?;
    Ok(out)
}

/// [`write()`] into a caller's buffer (cleared first), so that a caller writing many files can
/// reuse one allocation. On error `out` holds nothing useful.
pub fn write_into(file: &HieFile, out: &mut Vec<u8>) -> Result<(), HieError> {
    write_parts_into(file.parts(), out)
}

/// A HIE file to write, by reference: what [`write()`] reads of a [`HieFile`], so that a caller
/// holding the parts in different places (a lowered rig: the shell's slots and gaps, new
/// hierarchies) need not copy them into one `HieFile` first.
#[derive(Debug)]
pub struct HieParts<'a, H = Hierarchy> {
    /// One entry per slot: index into `hierarchies`.
    pub slots: &'a [Option<usize>],
    /// The hierarchies (anything that shows a hierarchy's fields, so that their byte lists
    /// need not be copied either).
    pub hierarchies: &'a [H],
    /// Every byte covered by neither the table nor a hierarchy.
    pub gaps: &'a [Gap],
}

impl HieFile {
    /// The file's parts by reference, as [`write_parts_into`] takes them.
    pub fn parts(&self) -> HieParts<'_> {
        HieParts {
            slots: &self.slots,
            hierarchies: &self.hierarchies,
            gaps: &self.gaps,
        }
    }
}

/// [`write_into`] for a file given by its parts: the same checks, the same bytes.
pub fn write_parts_into<H: HierarchyView>(
    file: HieParts<'_, H>,
    out: &mut Vec<u8>,
) -> Result<(), HieError> {
    out.clear();
    let placed = layout_parts(&file)?;
    // A read file's regions cover every byte. Only a structure built or edited elsewhere (a
    // glTF's extras) can leave holes; refuse big ones instead of allocating for a stray offset.
    // `end` is where the last region ends: the table, each hierarchy where it goes, each old
    // span (reserved as zeros whether its hierarchy stays or moves), each gap.
    let mut end = TABLE_LEN;
    let mut covered = TABLE_LEN;
    for (h, &at) in file.hierarchies.iter().zip(&placed) {
        end = end.max(u64::from(at) + h.encoded_len());
        if h.span() > 0 {
            end = end.max(u64::from(h.offset()) + u64::from(h.span()));
        }
        covered = covered.saturating_add(h.encoded_len());
    }
    for g in file.gaps.iter() {
        end = end.max(g.offset.saturating_add(g.bytes.len() as u64));
        covered = covered.saturating_add(g.bytes.len() as u64);
    }
    if end.saturating_sub(covered) > MAX_HOLE_BYTES {
        return Err(HieError::Holes { covered, end });
    }
    // `end` is bounded by the structures' in-memory sizes plus MAX_HOLE_BYTES, and bounds
    // every region below; `layout` proved that none overlaps another.
    out.resize(end as usize, 0);
    for (i, (h, &at)) in file.hierarchies.iter().zip(&placed).enumerate() {
        let d = region_mut(
            out,
            WriteLabel::Hierarchy(i),
            u64::from(at),
            h.encoded_len(),
        )?;
        encode_hierarchy(h, d)?;
    }
    for (index, g) in file.gaps.iter().enumerate() {
        let label = WriteLabel::Gap {
            index,
            offset: g.offset,
        };
        put_at(out, label, g.offset, &g.bytes)?;
    }
    let table = region_mut(out, WriteLabel::Table, 0, TABLE_LEN)?;
    let count = placed.len();
    for (slot, (d, s)) in table.chunks_exact_mut(4).zip(file.slots.iter()).enumerate() {
        // validate() proved every index in range.
        let o = match *s {
            None => 0,
            Some(index) => *placed
                .get(index)
                .ok_or(HieError::SlotIndex { slot, index, count })?,
        };
        d.copy_from_slice(&o.to_le_bytes());
    }
    Ok(())
}

/// What a region is, for the reader's overlap messages (text only when one is shown).
#[derive(Debug, Clone, Copy)]
enum ReadLabel {
    Table,
    Hierarchy { slot: usize, offset: u32 },
}

impl fmt::Display for ReadLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ReadLabel::Table => f.write_str("slot table"),
            ReadLabel::Hierarchy { slot, offset } => {
                write!(f, "slot {slot}'s hierarchy at {offset:#x}")
            }
        }
    }
}

/// What a fixed region is, for the writer's overlap messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteLabel {
    /// `slot table`.
    Table,
    /// `hierarchy {i}`: index in the file's hierarchies.
    Hierarchy(usize),
    /// `gap at {offset:#x}`.
    Gap {
        /// Index in the file's gaps.
        index: usize,
        /// Its absolute offset.
        offset: u64,
    },
}

/// Which part of a hierarchy's byte-list area an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteListPart {
    /// `list {k}`.
    List(usize),
    /// `tail`: the bytes after the last list.
    Tail,
}

impl fmt::Display for ByteListPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ByteListPart::List(k) => write!(f, "list {k}"),
            ByteListPart::Tail => f.write_str("tail"),
        }
    }
}

impl fmt::Display for WriteLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            WriteLabel::Table => f.write_str("slot table"),
            WriteLabel::Hierarchy(i) => write!(f, "hierarchy {i}"),
            WriteLabel::Gap { offset, .. } => write!(f, "gap at {offset:#x}"),
        }
    }
}

/// Serde helper: a list of byte vectors as a list of hex strings.
mod hex_list {
    use crate::bytes::hex_bytes;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serializes each list as hex.
    pub fn serialize<S: Serializer>(lists: &[Vec<u8>], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(lists.iter().map(|l| hex_bytes::encode(l)))
    }

    /// Deserializes a list of hex strings.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<u8>>, D::Error> {
        let v = Vec::<String>::deserialize(d)?;
        v.iter()
            .map(|s| hex_bytes::decode(s).map_err(serde::de::Error::custom))
            .collect()
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_lists_split_on_ff() {
        let mut area = vec![0u8; BYTE_LIST_LEN];
        area[..6].copy_from_slice(&[0, 1, 0xFF, 0xFF, 7, 0xFF]);
        area[10] = 9;
        let l = ByteLists::parse(&area);
        assert_eq!(l.lists, vec![vec![0, 1], vec![], vec![7]]);
        assert_eq!(l.tail.len(), BYTE_LIST_LEN - 6);
        assert_eq!(l.tail[4], 9);
        assert_eq!(l.encode(), area);
        let none = ByteLists::parse(&[3u8; BYTE_LIST_LEN]);
        assert!(none.lists.is_empty());
        assert_eq!(none.tail, vec![3u8; BYTE_LIST_LEN]);
        let full = ByteLists::parse(&[0xFFu8; BYTE_LIST_LEN]);
        assert_eq!(full.lists.len(), BYTE_LIST_LEN);
        assert!(full.tail.is_empty());
        assert_eq!(full.encode(), vec![0xFF; BYTE_LIST_LEN]);
    }

    #[test]
    fn part_encodes_every_field_in_place() {
        let p = Part {
            unknown_00: 0x0102,
            depth: 0x0304,
            runtime: [0x10; 16],
            offset: [-1, 2, 0x7FFF_FFFF],
            unknown_20: 0xAABB_CCDD,
            model: 0x1122_3344,
        };
        let b = p.encode();
        assert_eq!(&b[0..4], &[0x02, 0x01, 0x04, 0x03]);
        assert_eq!(&b[4..0x14], &[0x10; 16]);
        assert_eq!(&b[0x14..0x18], &[0xFF; 4]);
        assert_eq!(&b[0x18..0x1C], &[2, 0, 0, 0]);
        assert_eq!(&b[0x1C..0x20], &[0xFF, 0xFF, 0xFF, 0x7F]);
        assert_eq!(
            &b[0x20..0x28],
            &[0xDD, 0xCC, 0xBB, 0xAA, 0x44, 0x33, 0x22, 0x11]
        );
        assert_eq!(Part::read(&Bytes::new(&b), 0).unwrap(), p);
    }

    #[test]
    fn serde_round_trip() {
        let mut data = vec![0u8; 0x400 + 0x34 + 0x28];
        data[4..8].copy_from_slice(&0x400u32.to_le_bytes());
        data[0x400] = 1;
        data[0x402] = 5;
        data[0x403] = 0xFF;
        data[0x434 + 2] = 1;
        data[0x434 + 4] = 0xAB;
        let f = read(&data).unwrap();
        let json = serde_json::to_string(&f).unwrap();
        assert!(json.contains("\"lists\":[\"05\"]"), "{json}");
        assert!(
            json.contains("\"runtime\":\"ab000000000000000000000000000000\""),
            "{json}"
        );
        let back: HieFile = serde_json::from_str(&json).unwrap();
        assert_eq!(back, f);
    }
}
