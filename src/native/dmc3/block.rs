//! The DMC3 node-domain block (docs/formats.md, node-domain block): a 0x20-byte header of relative
//! offsets, three byte arrays (parent by order position, node at order position, group) and one
//! 0x20-byte transform record per node. Shared by MOD, SCM and EFM files.
//!
//! The rel fields are the truth: a block whose arrays are not where the canonical layout puts
//! them is read as it is, and [`NodeBlock::is_canonical`] tells the difference. Bytes inside the
//! block's extent that no array or record covers are the block's padding, kept as
//! [`Gap`](crate::bytes::Gap)s whose offsets are RELATIVE to the block start, so that a block
//! keeps its padding when it is moved.

use serde::{Deserialize, Serialize};

use super::{Dmc3Error, Place, Problem};
use crate::bytes::{align, put_at, region_mut, Bytes, Overlap, RegionMap};
use crate::native::record::{Ctx, Hex, HexArray, Nested};

/// Size of the block header.
pub const BLOCK_HEADER_LEN: u64 = BlockHeader::LEN as u64;
/// Size of one transform record.
pub const TRANSFORM_LEN: u64 = NodeTransform::LEN as u64;

crate::record! {
    /// The four relative offsets of the block header (+0x00..+0x0F).
    #[derive(Copy)]
    pub struct BlockRels [0x10] "blockRels" {
        0x00 parent: u32 = Hex<u32>, "parent_rel", Decoded ExeConfirmed,
            "parent array (i8 per order position), relative to the block start";
        0x04 order: u32 = Hex<u32>, "order_rel", Decoded ExeConfirmed,
            "order array (node at order position), relative to the block start";
        0x08 group: u32 = Hex<u32>, "group_rel", Decoded StructuralConfirmed,
            "group (motion group / third domain) array, relative to the block start";
        0x0C transform: u32 = Hex<u32>, "transform_rel", Decoded ExeConfirmed,
            "transform records, indexed by node, relative to the block start";
    }
}

crate::record! {
    /// The 0x20-byte block header: where the arrays are, and 16 bytes nobody reads.
    #[derive(Copy)]
    pub struct BlockHeader [0x20] "blockHeader" {
        0x00 rels: BlockRels = Nested<BlockRels>, "rels", Decoded ExeConfirmed,
            "array offsets relative to the block start (the truth, canonical or not)";
        0x10 unknown_10: [u8; 16] = HexArray<16>, "unknown_10", Preserved PreservedUndecoded,
            "nobody reads or names these";
    }
}

impl BlockRels {
    /// The canonical placement for `n` nodes, or `None` when it does not fit in u32 offsets.
    pub fn canonical(n: usize) -> Option<BlockRels> {
        let a = align(n as u64, 4);
        let parent = BLOCK_HEADER_LEN;
        let order = parent.checked_add(a)?;
        let group = order.checked_add(a)?;
        let transform = align(group.checked_add(a)?, 16);
        Some(BlockRels {
            parent: u32::try_from(parent).ok()?,
            order: u32::try_from(order).ok()?,
            group: u32::try_from(group).ok()?,
            transform: u32::try_from(transform).ok()?,
        })
    }

    /// The five regions of a block of `n` nodes: (which, relative start, length).
    /// Lengths saturate instead of overflowing; the bounds check then rejects them.
    pub fn regions(&self, n: usize) -> [(BlockPart, u64, u64); 5] {
        let n = n as u64;
        [
            (BlockPart::Header, 0, BLOCK_HEADER_LEN),
            (BlockPart::Parents, self.parent as u64, n),
            (BlockPart::Order, self.order as u64, n),
            (BlockPart::Groups, self.group as u64, n),
            (
                BlockPart::Transforms,
                self.transform as u64,
                n.saturating_mul(TRANSFORM_LEN),
            ),
        ]
    }

    /// One past the last byte of the block, relative to its start: the header and every
    /// non-empty region (an empty region's offset points at nothing, so it does not count).
    pub fn extent(&self, n: usize) -> u64 {
        self.regions(n)
            .iter()
            .filter(|r| r.2 > 0)
            .map(|r| r.1.saturating_add(r.2))
            .max()
            .unwrap_or(BLOCK_HEADER_LEN)
    }
}

crate::record! {
    /// One node's local transform record (0x20 bytes), every field as its f32 bit pattern so
    /// that NaN payloads and -0.0 survive comparisons and serialisation.
    #[derive(Copy)]
    pub struct NodeTransform [0x20] "transform" {
        0x00 tx_bits: u32 = Hex<u32>, "tx", Decoded ExeConfirmed, "tx";
        0x04 ty_bits: u32 = Hex<u32>, "ty", Decoded ExeConfirmed, "ty";
        0x08 tz_bits: u32 = Hex<u32>, "tz", Decoded ExeConfirmed, "tz";
        0x0C magnitude_bits: u32 = Hex<u32>, "translation magnitude", Decoded StructuralConfirmed,
            "translation magnitude (not used by the local transform)";
        0x10 rx_bits: u32 = Hex<u32>, "rx", Decoded ExeConfirmed, "rx, radians";
        0x14 ry_bits: u32 = Hex<u32>, "ry", Decoded ExeConfirmed, "ry, radians";
        0x18 rz_bits: u32 = Hex<u32>, "rz", Decoded ExeConfirmed, "rz, radians";
        0x1C w_bits: u32 = Hex<u32>, "+0x1C", Preserved PreservedUndecoded,
            "not read by the local rotation path; 0.0 in every file seen, never assumed";
    }
}

impl NodeTransform {
    /// (tx, ty, tz) as floats.
    pub fn translation(&self) -> [f32; 3] {
        [
            f32::from_bits(self.tx_bits),
            f32::from_bits(self.ty_bits),
            f32::from_bits(self.tz_bits),
        ]
    }

    /// (rx, ry, rz) in radians.
    pub fn rotation(&self) -> [f32; 3] {
        [
            f32::from_bits(self.rx_bits),
            f32::from_bits(self.ry_bits),
            f32::from_bits(self.rz_bits),
        ]
    }

    /// The stored translation magnitude.
    pub fn magnitude(&self) -> f32 {
        f32::from_bits(self.magnitude_bits)
    }

    /// The undecoded +0x1C value as a float (for display only; keep `w_bits` for writing).
    pub fn w(&self) -> f32 {
        f32::from_bits(self.w_bits)
    }
}

/// A region of a node-domain block, for messages and for naming it by type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockPart {
    /// `block header`.
    Header,
    /// `parent array`.
    Parents,
    /// `order array`.
    Order,
    /// `group array`.
    Groups,
    /// `transform records`.
    Transforms,
    /// `block padding`: entry `0` of the block's padding list.
    Padding(usize),
}

impl BlockPart {
    /// The region's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            BlockPart::Header => "block header",
            BlockPart::Parents => "parent array",
            BlockPart::Order => "order array",
            BlockPart::Groups => "group array",
            BlockPart::Transforms => "transform records",
            BlockPart::Padding(_) => "block padding",
        }
    }
}

impl std::fmt::Display for BlockPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Declares a struct holding a node-domain block's frame: everything a block keeps besides its
/// nodes (offset, header fields, the raw parent and order arrays, padding), with the caller's
/// fields between the arrays and the padding. [`NodeBlock`] and the rig's `Dmc3Skeleton` (what
/// a lifted skeleton keeps of its block) are declared with it, so that they hold one frame.
macro_rules! block_frame {
    (
        $(#[$m:meta])*
        pub struct $name:ident {
            $( $(#[$fm:meta])* pub $field:ident: $ty:ty, )*
        }
    ) => {
        $(#[$m])*
        pub struct $name {
            /// Absolute offset of the block header in the file.
            #[serde(with = "crate::bytes::hex_u64")]
            pub offset: u64,
            /// Block header +0x00..+0x0F: where the arrays are, relative to the block start
            /// (the truth, canonical or not).
            pub rels: $crate::native::dmc3::BlockRels,
            /// Block header +0x10..+0x1F: PRESERVED_UNDECODED.
            #[serde(with = "crate::bytes::hex_array")]
            pub unknown_10: [u8; 16],
            /// The raw parent_by_order_position array: parent NODE index of the node at each
            /// order position, -1 root.
            pub parents: Vec<i8>,
            /// The raw node_at_order_position array.
            pub order: Vec<u8>,
            $( $(#[$fm])* pub $field: $ty, )*
            /// Bytes of the extent no region covers; offsets relative to the block start.
            pub padding: Vec<$crate::bytes::Gap>,
        }
    };
}
pub(crate) use block_frame;

block_frame! {
    /// A node-domain block, every byte of its extent represented.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct NodeBlock {
        /// The group array (STRUCTURAL_CONFIRMED, meaning unknown). The lift hands entry k to
        /// node k; whether the engine indexes it by node or by order position is not known.
        pub groups: Vec<u8>,
        /// Transform records, indexed by node.
        pub transforms: Vec<NodeTransform>,
    }
}

impl NodeBlock {
    /// Number of nodes (the length of the transform table).
    pub fn node_count(&self) -> usize {
        self.transforms.len()
    }

    /// Size of the block's extent (header, arrays, records and the padding between them).
    pub fn extent(&self) -> u64 {
        self.rels.extent(self.node_count())
    }

    /// The canonical rel offsets for this block's node count.
    pub fn canonical_rels(&self) -> Option<BlockRels> {
        BlockRels::canonical(self.node_count())
    }

    /// Whether the rel fields are the canonical placement (docs/formats.md, node-domain block);
    /// inspect reports if not.
    pub fn is_canonical(&self) -> bool {
        self.canonical_rels() == Some(self.rels)
    }

    /// Checks that arrays agree in length and regions and padding neither overlap nor leave
    /// the extent; messages carry absolute offsets.
    pub fn check_layout(&self) -> Result<(), Dmc3Error> {
        let n = self.node_count();
        for (array, len) in [
            (BlockPart::Parents, self.parents.len()),
            (BlockPart::Order, self.order.len()),
            (BlockPart::Groups, self.groups.len()),
        ] {
            if len != n {
                return Err(Dmc3Error::Inconsistent {
                    what: Place::Is(super::Label::Block(self.offset)),
                    problem: Problem::BlockArray {
                        array,
                        len,
                        nodes: n,
                    },
                });
            }
        }
        let extent = self.extent();
        let mut map = RegionMap::new();
        for (label, start, len) in self.rels.regions(n) {
            map.claim(start, len, label);
        }
        for (index, g) in self.padding.iter().enumerate() {
            if g.end() > extent {
                return Err(Dmc3Error::Inconsistent {
                    what: Place::Is(super::Label::Block(self.offset)),
                    problem: Problem::PaddingOutside {
                        index,
                        start: g.offset,
                        end: g.end(),
                        extent,
                    },
                });
            }
            map.claim(g.offset, g.bytes.len() as u64, BlockPart::Padding(index));
        }
        map.finish_labelled(&[])
            .map(|_| ())
            .map_err(|(o, first, second)| Dmc3Error::BlockOverlap {
                overlap: Box::new(shifted(o, self.offset)),
                block: self.offset,
                first,
                second,
            })
    }

    /// The block's extent as bytes. Extent bytes no padding gap covers (only possible for a
    /// block built in code) are written as zero.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Dmc3Error> {
        let extent = self.encoded_len()?;
        // encoded_len proved the extent fits in memory.
        let mut out = vec![0u8; extent as usize];
        self.encode_into(&mut out)?;
        Ok(out)
    }

    /// The length [`NodeBlock::to_bytes`] would give, after every check it makes (layout,
    /// holes, size); [`NodeBlock::encode_into`] then cannot fail.
    pub fn encoded_len(&self) -> Result<u64, Dmc3Error> {
        self.check_layout()?;
        // check_layout proved that nothing overlaps, so the covered bytes add up. A read block
        // is fully covered; refuse big holes (rels from a glTF's extras) before allocating.
        let covered = self
            .rels
            .regions(self.node_count())
            .iter()
            .map(|r| r.2)
            .chain(self.padding.iter().map(|g| g.bytes.len() as u64))
            .fold(0u64, u64::saturating_add);
        if self.extent().saturating_sub(covered) > super::MAX_HOLE_BYTES {
            return Err(Dmc3Error::Inconsistent {
                what: Place::Is(super::Label::Block(self.offset)),
                problem: Problem::BlockHoles {
                    covered,
                    extent: self.extent(),
                },
            });
        }
        let extent = self.extent();
        usize::try_from(extent).map_err(|_| Dmc3Error::Inconsistent {
            what: Place::Is(super::Label::Block(self.offset)),
            problem: Problem::ExtentTooLarge,
        })?;
        Ok(extent)
    }

    /// Writes the block's extent into `dst`, which is [`NodeBlock::encoded_len`] bytes of
    /// zeros. Call `encoded_len` first: it checks the layout this relies on, so a region
    /// outside `dst` is refused as a bug, not skipped.
    pub fn encode_into(&self, dst: &mut [u8]) -> Result<(), Dmc3Error> {
        let header = BlockHeader {
            rels: self.rels,
            unknown_10: self.unknown_10,
        };
        put_at(dst, "node-domain block header", 0, &header.encode())?;
        // An empty region points at nothing (check_layout and extent() skip it too).
        if self.node_count() > 0 {
            let n = self.node_count() as u64;
            let d = region_mut(dst, "parent array", self.rels.parent as u64, n)?;
            // The parent bytes are the i8 values' bit patterns.
            for (d, &p) in d.iter_mut().zip(&self.parents) {
                *d = p as u8;
            }
            put_at(dst, "order array", self.rels.order as u64, &self.order)?;
            put_at(dst, "group array", self.rels.group as u64, &self.groups)?;
            let len = n.saturating_mul(TRANSFORM_LEN);
            let d = region_mut(dst, "transform records", self.rels.transform as u64, len)?;
            for (d, r) in d
                .as_chunks_mut::<{ NodeTransform::LEN }>()
                .0
                .iter_mut()
                .zip(&self.transforms)
            {
                *d = r.encode();
            }
        }
        for g in &self.padding {
            put_at(dst, "block padding", g.offset, &g.bytes)?;
        }
        Ok(())
    }
}

/// Shifts an overlap found in block-relative coordinates to absolute file offsets.
fn shifted(mut o: Overlap, base: u64) -> Overlap {
    o.first_start = o.first_start.saturating_add(base);
    o.first_end = o.first_end.saturating_add(base);
    o.second_start = o.second_start.saturating_add(base);
    o.second_end = o.second_end.saturating_add(base);
    o
}

/// `{label} of the block at {block:#x} (rel {rel:#x})`, formatted only for a message.
struct RegionLabel {
    label: BlockPart,
    block: u64,
    rel: u64,
}

impl std::fmt::Display for RegionLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} of the block at {:#x} (rel {:#x})",
            self.label, self.block, self.rel
        )
    }
}

/// Reads a block of `n` nodes whose header is at absolute `offset` of `data`.
pub fn read_block(data: &[u8], offset: u64, n: usize) -> Result<NodeBlock, Dmc3Error> {
    let b = Bytes::new(data);
    let header = b.array::<{ BlockHeader::LEN }>("node-domain block header", offset)?;
    let BlockHeader { rels, unknown_10 } =
        BlockHeader::decode(&header, Ctx::default()).map_err(|e| Dmc3Error::Field {
            what: super::Label::Block(offset),
            offset,
            key: e.key,
        })?;

    // Every region is bounds-checked before anything is allocated, so a huge `n` is refused
    // by the transform table's check instead of by the allocator.
    let regions = rels.regions(n);
    for (label, rel, len) in regions.iter().skip(1) {
        if *len == 0 {
            continue;
        }
        let abs = offset
            .checked_add(*rel)
            .ok_or_else(|| crate::bytes::OutOfBounds {
                what: format!("{label} of the block at {offset:#x} (rel {rel:#x})"),
                offset: u64::MAX,
                len: *len,
                file_len: b.len(),
            })?;
        b.check(
            RegionLabel {
                label: *label,
                block: offset,
                rel: *rel,
            },
            abs,
            *len,
        )?;
    }
    let mut map = RegionMap::new();
    for (label, rel, len) in regions {
        map.claim(rel, len, label);
    }
    let extent = rels.extent(n);
    let body = b.slice("node-domain block", offset, extent)?;
    let (_, padding) = map
        .finish(body)
        .map_err(|o| Dmc3Error::Overlap(shifted(o, offset)))?;

    // The bounds checks above proved every non-empty region lies in `body`; an empty one
    // points at nothing.
    let body = Bytes::new(body);
    let region = |label: &str, rel: u32, len: u64| match len {
        0 => Ok(&[][..]),
        _ => body.slice(label, rel.into(), len),
    };
    let n64 = n as u64;
    let parents = region("parent array", rels.parent, n64)?
        .iter()
        .map(|&v| v as i8)
        .collect();
    let order = region("order array", rels.order, n64)?.to_vec();
    let groups = region("group array", rels.group, n64)?.to_vec();
    let records = region("transform records", rels.transform, n64 * TRANSFORM_LEN)?;
    let mut transforms = Vec::with_capacity(n);
    for (k, r) in records
        .as_chunks::<{ NodeTransform::LEN }>()
        .0
        .iter()
        .enumerate()
    {
        transforms.push(NodeTransform::decode(r, Ctx::default()).map_err(|e| {
            Dmc3Error::Field {
                what: super::Label::Block(offset),
                offset: offset + u64::from(rels.transform) + k as u64 * TRANSFORM_LEN,
                key: e.key,
            }
        })?);
    }
    Ok(NodeBlock {
        offset,
        rels,
        unknown_10,
        parents,
        order,
        groups,
        transforms,
        padding,
    })
}
