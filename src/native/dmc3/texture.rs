//! DMC3 textures: PTX bundles and single gfxTexture entries (`.tm2`, or an archive member that
//! starts with a descriptor).
//!
//! A **gfxTexture entry** is a 0x70-byte descriptor ([`Descriptor`]), a 128-byte DDS header
//! ([`DdsHeader`]: magic and the 124-byte header), the mip chain (BC1 = DXT1, 8 bytes per 4×4
//! block; BC3 = DXT5, 16), then whatever follows (zero padding to the entry's sector span in a
//! bundle). A **PTX bundle** is a u32 texture count, one u32 span per texture in 0x800-byte
//! sectors, bytes up to the next sector boundary (zeros: a repacker pads the table to 512
//! words), then each texture in its span.
//!
//! Every byte is kept: both headers field by field (declared once with [`crate::record!`]), the
//! mip chain as the run of whole levels the header's size and mip count describe
//! ([`Texture::levels`]), and the bytes after it. Nothing in either header is derived on write:
//! no retail file is public, and the files community tools write (zeroed descriptors, dropped
//! mip levels, odd pitch values) disagree with any derivation; [`Texture::differences`] lists
//! where an entry departs from the canonical form instead. In a bundle the count and the spans
//! are derived from the entries (each entry's bytes are its span), so they cannot disagree.

use serde::{Deserialize, Serialize};

use crate::bytes::{align, Bytes, OutOfBounds};
use crate::native::record::{Ctx, FieldDef, Hex, Hex32s, HexArray, Int};

/// Size of a bundle sector: texture spans count these.
pub const SECTOR: u64 = 0x800;
/// Offset of the DDS header in an entry.
pub const DDS_AT: usize = Descriptor::LEN;
/// Offset of the mip chain in an entry.
pub const CHAIN_AT: usize = Descriptor::LEN + DdsHeader::LEN;
/// The DDS magic.
pub const DDS_MAGIC: [u8; 4] = *b"DDS ";

crate::record! {
    /// The gfxTexture descriptor in front of each DDS. Canonical values are what retail files
    /// hold when the descriptor follows its DDS (community notes on retail pl000/pl001/em028/
    /// st000/st001); the PC loader is reported to read width/height, +0x20, +0x64, +0x68.
    pub struct Descriptor [0x70] "gfxDescriptor" {
        0x00 unknown_00: [u32; 2] = Hex32s<2>, "+0x00", Preserved Community, "canonical 0";
        0x08 encoding: u32 = Hex<u32>, "encoding word", Decoded Community,
            "0x20000 | mips << 8 | 0x86 (DXT1) or 0x88 (DXT5)";
        0x0C unknown_0c: u32 = Hex<u32>, "+0x0C", Preserved Community, "canonical 0xAAE4";
        0x10 width: u16 = Int<u16>, "width", Decoded Community, "width in pixels (from the DDS)";
        0x12 height: u16 = Int<u16>, "height", Decoded Community, "height in pixels (from the DDS)";
        0x14 unknown_14: u32 = Hex<u32>, "+0x14", Preserved Community, "canonical 1";
        0x18 row_bytes: u32 = Hex<u32>, "row bytes", Decoded Community,
            "width * 2 (DXT1) or width * 4 (DXT5)";
        0x1C unknown_1c: u32 = Hex<u32>, "+0x1C", Preserved Community, "canonical 0";
        0x20 unknown_20: u32 = Hex<u32>, "+0x20", Preserved Community,
            "canonical 0x40; read by the PC loader";
        0x24 unknown_24: [u32; 5] = Hex32s<5>, "+0x24", Preserved Community, "canonical 0";
        0x38 payload_bytes: u32 = Hex<u32>, "payload bytes", Decoded Community,
            "sum of the mip levels";
        0x3C aux: [u32; 2] = Hex32s<2>, "aux pair", Preserved PreservedUndecoded,
            "0/0, or both non-zero (meaning unknown)";
        0x44 half_width: u16 = Int<u16>, "w2", Decoded Community,
            "half the width (retail st001: the full width)";
        0x46 half_height: u16 = Int<u16>, "h2", Decoded Community,
            "half the height (retail st001: the full height)";
        0x48 inv_half_width_bits: u32 = Hex<u32>, "1/w2", Decoded Community, "1 / w2, f32 bit pattern";
        0x4C inv_half_height_bits: u32 = Hex<u32>, "1/h2", Decoded Community, "1 / h2, f32 bit pattern";
        0x50 unknown_50: [u32; 4] = Hex32s<4>, "+0x50", Preserved Community, "canonical 0";
        0x60 format: u32 = Hex<u32>, "format", Decoded Community, "0 DXT1, 4 DXT5";
        0x64 dds_bytes: u32 = Hex<u32>, "DDS bytes", Decoded Community,
            "128 + payload bytes; read by the PC loader";
        0x68 unknown_68: u32 = Hex<u32>, "+0x68", Preserved Community,
            "canonical 8; read by the PC loader";
        0x6C unknown_6c: u32 = Hex<u32>, "+0x6C", Preserved Community, "canonical 0";
    }
}

crate::record! {
    /// The DDS magic and its 124-byte header (Microsoft's published DDS layout). The game is
    /// reported to ignore the pitch/linear size; retail values of it are inconsistent.
    pub struct DdsHeader [0x80] "ddsHeader" {
        0x00 magic: [u8; 4] = HexArray<4>, "magic", Decoded StructuralConfirmed, "\"DDS \"";
        0x04 size: u32 = Hex<u32>, "header size", Decoded StructuralConfirmed, "124";
        0x08 flags: u32 = Hex<u32>, "flags", Decoded Community, "canonical 0x000A1007";
        0x0C height: u32 = Hex<u32>, "height", Decoded StructuralConfirmed, "height in pixels";
        0x10 width: u32 = Hex<u32>, "width", Decoded StructuralConfirmed, "width in pixels";
        0x14 pitch: u32 = Hex<u32>, "pitch or linear size", Preserved Community,
            "bytes of the top level (canonical); retail values inconsistent, ignored by the game";
        0x18 depth: u32 = Hex<u32>, "depth", Decoded StructuralConfirmed, "0 for a 2D texture";
        0x1C mip_count: u32 = Hex<u32>, "mip count", Decoded Community,
            "levels in the chain (the game wants a full chain down to 1x1)";
        0x20 reserved1: [u32; 11] = Hex32s<11>, "reserved1", Preserved StructuralConfirmed, "0";
        0x4C pf_size: u32 = Hex<u32>, "pixel format size", Decoded StructuralConfirmed, "32";
        0x50 pf_flags: u32 = Hex<u32>, "pixel format flags", Decoded StructuralConfirmed,
            "4 (a FourCC)";
        0x54 four_cc: [u8; 4] = HexArray<4>, "FourCC", Decoded Community, "\"DXT1\" or \"DXT5\"";
        0x58 pf_bits: [u32; 5] = Hex32s<5>, "pixel format masks", Preserved StructuralConfirmed,
            "bit count and RGBA masks, 0 for a FourCC format";
        0x6C caps: u32 = Hex<u32>, "caps", Decoded Community, "canonical 0x00401008";
        0x70 caps_rest: [u32; 4] = Hex32s<4>, "caps2..4, reserved2", Preserved StructuralConfirmed,
            "0";
    }
}

/// A block-compressed pixel format of a DMC3 texture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PixelFormat {
    /// BC1: 8 bytes per 4×4 block, opaque or 1-bit alpha.
    Dxt1,
    /// BC3: 16 bytes per 4×4 block, interpolated alpha.
    Dxt5,
}

impl PixelFormat {
    /// Bytes per 4×4 block.
    pub fn block_bytes(self) -> u64 {
        match self {
            PixelFormat::Dxt1 => 8,
            PixelFormat::Dxt5 => 16,
        }
    }

    /// The DDS FourCC.
    pub fn four_cc(self) -> [u8; 4] {
        match self {
            PixelFormat::Dxt1 => *b"DXT1",
            PixelFormat::Dxt5 => *b"DXT5",
        }
    }

    /// The descriptor's format word (+0x60).
    pub fn code(self) -> u32 {
        match self {
            PixelFormat::Dxt1 => 0,
            PixelFormat::Dxt5 => 4,
        }
    }

    /// `DXT1` or `DXT5`.
    pub fn name(self) -> &'static str {
        match self {
            PixelFormat::Dxt1 => "DXT1",
            PixelFormat::Dxt5 => "DXT5",
        }
    }

    fn from_four_cc(c: [u8; 4]) -> Option<Self> {
        [PixelFormat::Dxt1, PixelFormat::Dxt5]
            .into_iter()
            .find(|f| f.four_cc() == c)
    }

    fn from_code(c: u32) -> Option<Self> {
        [PixelFormat::Dxt1, PixelFormat::Dxt5]
            .into_iter()
            .find(|f| f.code() == c)
    }
}

/// What the mip chain's layout is computed from: size, format and declared level count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Geometry {
    /// Pixel format.
    pub format: PixelFormat,
    /// Width of the top level.
    pub width: u32,
    /// Height of the top level.
    pub height: u32,
    /// Levels the header declares (at least 1).
    pub mips: u32,
    /// Where it was read: `dds` (the DDS header) or `descriptor` (a DDS header without a
    /// DXT1/DXT5 size, e.g. zeroed).
    pub source: &'static str,
}

impl Geometry {
    /// The geometry of a new `width × height` texture of `format` (its headers to be written).
    pub fn of_top(format: PixelFormat, width: u32, height: u32) -> Geometry {
        Geometry {
            format,
            width,
            height,
            mips: 0,
            source: "dds",
        }
    }

    /// The levels of a full chain down to 1×1.
    pub fn full_chain(&self) -> u32 {
        32 - self.width.max(self.height).max(1).leading_zeros()
    }

    /// Width, height and byte size of level `i` (saturating: sizes of a hostile header).
    pub fn level(&self, i: u32) -> (u32, u32, u64) {
        let w = (self.width >> i.min(31)).max(1);
        let h = (self.height >> i.min(31)).max(1);
        let blocks = u64::from(w.div_ceil(4)).saturating_mul(u64::from(h.div_ceil(4)));
        (w, h, blocks.saturating_mul(self.format.block_bytes()))
    }

    /// Bytes of the first `levels` levels.
    pub fn chain_bytes(&self, levels: u32) -> u64 {
        (0..levels).fold(0u64, |a, i| a.saturating_add(self.level(i).2))
    }
}

/// One mip level inside the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Level {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Offset in the entry (the chain starts at 0xF0).
    pub offset: u64,
    /// Bytes (blocks × block size).
    pub len: u64,
}

/// One gfxTexture entry: descriptor, DDS header, mip chain, and the bytes after the chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Texture {
    /// The 0x70-byte descriptor.
    pub descriptor: Descriptor,
    /// The DDS magic and header.
    pub dds: DdsHeader,
    /// The whole levels the header describes that the entry holds, top level first.
    #[serde(with = "crate::bytes::base64_bytes")]
    pub chain: Vec<u8>,
    /// Bytes after the chain (sector padding in a bundle; the rest of a loose file).
    #[serde(with = "crate::bytes::base64_bytes")]
    pub padding: Vec<u8>,
}

/// A PTX bundle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ptx {
    /// Bytes between the span table and the first sector boundary (zeros in retail files).
    #[serde(with = "crate::bytes::base64_bytes")]
    pub table_padding: Vec<u8>,
    /// The textures; each writes to exactly its span (a whole number of sectors).
    pub textures: Vec<Texture>,
    /// Bytes after the last texture's span.
    #[serde(with = "crate::bytes::base64_bytes")]
    pub tail: Vec<u8>,
}

/// Why a texture or bundle was rejected, or cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TextureError {
    /// A structure runs past the end of the input.
    #[error(transparent)]
    OutOfBounds(#[from] OutOfBounds),
    /// The bundle's count word is 0.
    #[error("texture count at offset 0x0 is 0: a PTX bundle holds at least one texture")]
    NoTextures,
    /// A texture's span is 0 sectors.
    #[error("texture {index}: span word at {at:#x} is 0 sectors")]
    ZeroSpan {
        /// Texture index.
        index: usize,
        /// Offset of its span word.
        at: u64,
    },
    /// (write) A texture's bytes are not a whole, non-zero number of sectors.
    #[error("texture {index} writes {len:#x} bytes, not a whole number of 0x800-byte sectors: its span cannot say it")]
    NotSectors {
        /// Texture index.
        index: usize,
        /// Its byte length.
        len: u64,
    },
    /// (write) The table padding does not reach the sector boundary exactly.
    #[error("table padding is {found:#x} bytes, but {count} span words end {expected:#x} bytes before the first sector boundary")]
    TablePadding {
        /// Texture count.
        count: usize,
        /// What the table needs.
        expected: u64,
        /// What the structure holds.
        found: u64,
    },
}

/// Whether `data` looks like one gfxTexture entry: a DDS magic right after a descriptor.
pub fn looks_like_texture(data: &[u8]) -> bool {
    data.len() >= CHAIN_AT && data[DDS_AT..DDS_AT + 4] == DDS_MAGIC
}

/// Whether `data` looks like a PTX bundle: a non-zero count whose table fits, non-zero spans
/// that fit the input, and either a DDS magic where some texture's DDS header starts or spans
/// that reach to within a sector of the input's end (every DDS header zeroed).
pub fn looks_like_ptx(data: &[u8]) -> bool {
    let b = Bytes::new(data);
    let Ok(count) = b.u32("texture count", 0) else {
        return false;
    };
    let table_end = 4 + 4 * u64::from(count);
    if count == 0 || table_end > b.len() {
        return false;
    }
    let mut at = align(table_end, SECTOR);
    let mut dds = false;
    for i in 0..u64::from(count) {
        match b.u32("span", 4 + 4 * i) {
            Ok(s) if s != 0 => {
                dds |= b.slice("dds", at + DDS_AT as u64, 4).ok() == Some(&DDS_MAGIC[..]);
                at = at.saturating_add(u64::from(s) * SECTOR);
                if at > b.len() {
                    return false;
                }
            }
            _ => return false,
        }
    }
    dds || b.len() - at < SECTOR
}

impl Texture {
    /// Reads one entry: `data` is exactly the entry (a loose `.tm2` file, an archive member,
    /// or a texture's span in a bundle).
    pub fn read(data: &[u8]) -> Result<Texture, TextureError> {
        let b = Bytes::new(data);
        let d = b.array::<{ Descriptor::LEN }>("gfxTexture descriptor", 0)?;
        let h = b.array::<{ DdsHeader::LEN }>("DDS header", DDS_AT as u64)?;
        // Neither record has a field its type cannot hold: decode cannot fail.
        let descriptor = Descriptor::decode(&d, Ctx::default()).unwrap_or_default();
        let dds = DdsHeader::decode(&h, Ctx::default()).unwrap_or_default();
        let rest = &data[CHAIN_AT..];
        let chain_len = geometry_of(&descriptor, &dds)
            .map_or(0, |g| whole_levels(&g, rest.len() as u64).1) as usize;
        Ok(Texture {
            descriptor,
            dds,
            chain: rest[..chain_len].to_vec(),
            padding: rest[chain_len..].to_vec(),
        })
    }

    /// Bytes written.
    pub fn len(&self) -> u64 {
        (CHAIN_AT + self.chain.len() + self.padding.len()) as u64
    }

    /// Never: an entry holds at least its two headers.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Writes the entry into `out` (appended): the exact bytes it was read from.
    pub fn write_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.descriptor.encode());
        out.extend_from_slice(&self.dds.encode());
        out.extend_from_slice(&self.chain);
        out.extend_from_slice(&self.padding);
    }

    /// The entry's bytes.
    pub fn write(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len() as usize);
        self.write_into(&mut out);
        out
    }

    /// Size, format and declared levels: from the DDS header when it names a DXT1/DXT5 size,
    /// else from the descriptor (a zeroed DDS header); `None` when neither does.
    pub fn geometry(&self) -> Option<Geometry> {
        geometry_of(&self.descriptor, &self.dds)
    }

    /// The whole levels [`Texture::chain`] holds, with offsets in the entry.
    pub fn levels(&self) -> Vec<Level> {
        let Some(g) = self.geometry() else {
            return Vec::new();
        };
        let (n, _) = whole_levels(&g, self.chain.len() as u64);
        let mut at = CHAIN_AT as u64;
        (0..n)
            .map(|i| {
                let (width, height, len) = g.level(i);
                let l = Level {
                    width,
                    height,
                    offset: at,
                    len,
                };
                at += len;
                l
            })
            .collect()
    }

    /// Where this entry departs from the canonical form (canonical values computed from its
    /// geometry with a full mip chain): each header field that differs, and a chain shorter
    /// than the full one. Empty for a canonical entry.
    pub fn differences(&self) -> Vec<Difference> {
        let Some(g) = self.geometry() else {
            return vec![Difference {
                field: "geometry".into(),
                found: "none".into(),
                canonical: "a DXT1/DXT5 size in the DDS header or the descriptor".into(),
            }];
        };
        let mut out = Vec::new();
        let levels = whole_levels(&g, self.chain.len() as u64).0;
        if levels < g.full_chain() {
            out.push(Difference {
                field: "mip chain".into(),
                found: format!("{levels} levels"),
                canonical: format!("{} levels (down to 1x1)", g.full_chain()),
            });
        }
        let cd = canonical_descriptor(&g, self.descriptor.aux);
        let cdds = canonical_dds(&g);
        field_differences(
            "descriptor",
            Descriptor::FIELDS,
            &self.descriptor.encode(),
            &cd.encode(),
            &mut out,
        );
        field_differences(
            "DDS",
            DdsHeader::FIELDS,
            &self.dds.encode(),
            &cdds.encode(),
            &mut out,
        );
        out
    }
}

impl Texture {
    /// The two headers (0xF0 bytes) of a new `width × height` texture of `format` with a full
    /// chain, every field canonical.
    pub fn canonical_headers(format: PixelFormat, width: u32, height: u32) -> Vec<u8> {
        let g = Geometry::of_top(format, width, height);
        let mut out = canonical_descriptor(&g, [0, 0]).encode().to_vec();
        out.extend_from_slice(&canonical_dds(&g).encode());
        out
    }

    /// This entry with a new full mip `chain` of `format` for a `width × height` top level (a
    /// re-encoded image), as a bundle member: the DDS header canonical, the descriptor's
    /// decoded fields (encoding word, sizes, row and payload bytes, w2/h2 and their inverses,
    /// format, DDS bytes) canonical and every other field kept, zeros up to the next sector.
    pub fn with_chain(
        &self,
        format: PixelFormat,
        width: u32,
        height: u32,
        chain: Vec<u8>,
    ) -> Texture {
        let g = Geometry::of_top(format, width, height);
        let c = canonical_descriptor(&g, self.descriptor.aux);
        let descriptor = Descriptor {
            encoding: c.encoding,
            width: c.width,
            height: c.height,
            row_bytes: c.row_bytes,
            payload_bytes: c.payload_bytes,
            aux: c.aux,
            half_width: c.half_width,
            half_height: c.half_height,
            inv_half_width_bits: c.inv_half_width_bits,
            inv_half_height_bits: c.inv_half_height_bits,
            format: c.format,
            dds_bytes: c.dds_bytes,
            ..self.descriptor.clone()
        };
        let used = (CHAIN_AT + chain.len()) as u64;
        Texture {
            descriptor,
            dds: canonical_dds(&g),
            chain,
            padding: vec![0; (align(used, SECTOR) - used) as usize],
        }
    }
}

/// One way an entry departs from the canonical form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// `descriptor +0x18 row bytes`, `DDS +0x14 pitch or linear size`, `mip chain`.
    pub field: String,
    /// What the entry holds.
    pub found: String,
    /// What the canonical form holds.
    pub canonical: String,
}

fn geometry_of(d: &Descriptor, h: &DdsHeader) -> Option<Geometry> {
    let from_dds = (h.magic == DDS_MAGIC && h.width > 0 && h.height > 0)
        .then(|| PixelFormat::from_four_cc(h.four_cc))
        .flatten()
        .map(|format| Geometry {
            format,
            width: h.width,
            height: h.height,
            mips: h.mip_count.max(1),
            source: "dds",
        });
    from_dds.or_else(|| {
        let format = PixelFormat::from_code(d.format)?;
        (d.width > 0 && d.height > 0).then_some(Geometry {
            format,
            width: u32::from(d.width),
            height: u32::from(d.height),
            mips: ((d.encoding >> 8) & 0xFF).max(1),
            source: "descriptor",
        })
    })
}

/// How many whole levels of `g` (at most its declared count) fit in `available` bytes, and
/// their byte total.
fn whole_levels(g: &Geometry, available: u64) -> (u32, u64) {
    let mut total = 0u64;
    for i in 0..g.mips.min(32) {
        let len = g.level(i).2;
        match total.checked_add(len) {
            Some(t) if t <= available => total = t,
            _ => return (i, total),
        }
    }
    (g.mips.min(32), total)
}

/// The descriptor retail files hold for a texture of geometry `g` with a full chain; `aux`
/// is kept when it is 0/0 or both non-zero (its meaning is unknown), else 0/0.
pub fn canonical_descriptor(g: &Geometry, aux: [u32; 2]) -> Descriptor {
    let mips = g.full_chain();
    let payload = g.chain_bytes(mips);
    let (w2, h2) = ((g.width / 2).max(1), (g.height / 2).max(1));
    let low = match g.format {
        PixelFormat::Dxt1 => 0x86,
        PixelFormat::Dxt5 => 0x88,
    };
    Descriptor {
        encoding: 0x20000 | mips << 8 | low,
        unknown_0c: 0xAAE4,
        width: g.width as u16,
        height: g.height as u16,
        unknown_14: 1,
        row_bytes: g.width.wrapping_mul(g.format.block_bytes() as u32 / 4),
        unknown_20: 0x40,
        payload_bytes: payload as u32,
        aux: if (aux[0] == 0) == (aux[1] == 0) {
            aux
        } else {
            [0, 0]
        },
        half_width: w2 as u16,
        half_height: h2 as u16,
        inv_half_width_bits: (1.0 / w2 as f32).to_bits(),
        inv_half_height_bits: (1.0 / h2 as f32).to_bits(),
        format: g.format.code(),
        dds_bytes: (128 + payload) as u32,
        unknown_68: 8,
        ..Descriptor::default()
    }
}

/// The DDS header of a texture of geometry `g` with a full chain: flags 0x000A1007, caps
/// 0x00401008, the linear size of the top level as pitch.
pub fn canonical_dds(g: &Geometry) -> DdsHeader {
    DdsHeader {
        magic: DDS_MAGIC,
        size: 124,
        flags: 0x000A_1007,
        height: g.height,
        width: g.width,
        pitch: g.level(0).2 as u32,
        mip_count: g.full_chain(),
        pf_size: 32,
        pf_flags: 4,
        four_cc: g.format.four_cc(),
        caps: 0x0040_1008,
        ..DdsHeader::default()
    }
}

fn field_differences(
    what: &str,
    fields: &[FieldDef],
    found: &[u8],
    canonical: &[u8],
    out: &mut Vec<Difference>,
) {
    for f in fields {
        let r = f.offset as usize..(f.offset + f.len) as usize;
        let (a, b) = (&found[r.clone()], &canonical[r]);
        if a != b {
            out.push(Difference {
                field: format!("{what} +0x{:02X} {}", f.offset, f.name),
                found: shown(a),
                canonical: shown(b),
            });
        }
    }
}

/// A field's bytes as text: a little-endian number for 2 or 4 bytes, else hex bytes.
fn shown(b: &[u8]) -> String {
    match *b {
        [x, y] => format!("{:#x}", u16::from_le_bytes([x, y])),
        [x, y, z, w] => format!("{:#x}", u32::from_le_bytes([x, y, z, w])),
        _ => crate::bytes::hex_bytes::encode(b),
    }
}

impl Ptx {
    /// Where the first texture starts for `count` textures.
    pub fn first_texture(count: usize) -> u64 {
        align(4 + 4 * count as u64, SECTOR)
    }

    /// Reads a bundle.
    pub fn read(data: &[u8]) -> Result<Ptx, TextureError> {
        let b = Bytes::new(data);
        let count = b.u32("texture count", 0)?;
        if count == 0 {
            return Err(TextureError::NoTextures);
        }
        let table = b.slice("span table", 4, 4 * u64::from(count))?;
        let table_end = 4 + 4 * u64::from(count);
        let first = align(table_end, SECTOR);
        let table_padding = b
            .slice("span table padding", table_end, first - table_end)?
            .to_vec();
        // Each texture spans at least a sector of the input: the reservation stays bounded by it.
        let mut textures = Vec::with_capacity((count as usize).min(data.len() / SECTOR as usize));
        let mut at = first;
        for (index, w) in table.chunks_exact(4).enumerate() {
            let span = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            if span == 0 {
                return Err(TextureError::ZeroSpan {
                    index,
                    at: 4 + 4 * index as u64,
                });
            }
            let len = u64::from(span) * SECTOR;
            let bytes = b.slice(format!("texture {index}"), at, len)?;
            textures.push(Texture::read(bytes)?);
            at += len;
        }
        Ok(Ptx {
            table_padding,
            textures,
            tail: data[at as usize..].to_vec(),
        })
    }

    /// Writes the bundle; for an unmodified read the exact input bytes. The count and spans
    /// come from the textures, each of which must write a whole number of sectors.
    pub fn write(&self) -> Result<Vec<u8>, TextureError> {
        let count = self.textures.len();
        if count == 0 {
            return Err(TextureError::NoTextures);
        }
        let table_end = 4 + 4 * count as u64;
        let expected = Ptx::first_texture(count) - table_end;
        if self.table_padding.len() as u64 != expected {
            return Err(TextureError::TablePadding {
                count,
                expected,
                found: self.table_padding.len() as u64,
            });
        }
        let mut out = Vec::new();
        out.extend_from_slice(&(count as u32).to_le_bytes());
        for (index, t) in self.textures.iter().enumerate() {
            let len = t.len();
            if len % SECTOR != 0 || len / SECTOR > u64::from(u32::MAX) {
                return Err(TextureError::NotSectors { index, len });
            }
            out.extend_from_slice(&((len / SECTOR) as u32).to_le_bytes());
        }
        out.extend_from_slice(&self.table_padding);
        for t in &self.textures {
            t.write_into(&mut out);
        }
        out.extend_from_slice(&self.tail);
        Ok(out)
    }

    /// Where each texture starts in the bundle.
    pub fn offsets(&self) -> Vec<u64> {
        let mut at = Ptx::first_texture(self.textures.len());
        self.textures
            .iter()
            .map(|t| {
                let o = at;
                at += t.len();
                o
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(fill: u8, chain: usize, pad: usize) -> Vec<u8> {
        let g = Geometry {
            format: PixelFormat::Dxt1,
            width: 8,
            height: 4,
            mips: 4,
            source: "dds",
        };
        let mut b = canonical_descriptor(&g, [0, 0]).encode().to_vec();
        b.extend_from_slice(&canonical_dds(&g).encode());
        b.extend(std::iter::repeat_n(fill, chain));
        b.extend(std::iter::repeat_n(0, pad));
        b
    }

    #[test]
    fn canonical_entry_has_no_differences_and_levels_are_whole_blocks() {
        // 8x4 DXT1: 2x1 blocks (16 bytes), 4x2 (8), 2x1 (8), 1x1 (8): 40 bytes, 4 levels.
        let b = entry(0x5A, 40, 0x800 - 0xF0 - 40);
        let t = Texture::read(&b).unwrap();
        assert_eq!(t.chain.len(), 40);
        assert_eq!(t.padding.len(), 0x800 - 0xF0 - 40);
        assert_eq!(
            t.levels()
                .iter()
                .map(|l| (l.width, l.height, l.offset, l.len))
                .collect::<Vec<_>>(),
            vec![
                (8, 4, 0xF0, 16),
                (4, 2, 0x100, 8),
                (2, 1, 0x108, 8),
                (1, 1, 0x110, 8)
            ]
        );
        assert_eq!(t.differences(), vec![]);
        assert_eq!(t.write(), b);
        let d = &b[..0x70];
        assert_eq!(&d[0x08..0x0C], &0x20486u32.to_le_bytes());
        assert_eq!(&d[0x38..0x3C], &40u32.to_le_bytes());
        assert_eq!(&d[0x64..0x68], &168u32.to_le_bytes());
    }

    #[test]
    fn zeroed_descriptor_and_dropped_levels_are_read_and_reported() {
        let mut b = entry(1, 16, 0);
        b[..0x70].fill(0);
        let t = Texture::read(&b).unwrap();
        assert_eq!(t.chain.len(), 16);
        let d = t.differences();
        assert_eq!(d[0].field, "mip chain");
        assert_eq!(d[0].found, "1 levels");
        assert!(d.iter().any(|x| x.field == "descriptor +0x68 +0x68"
            && x.found == "0x0"
            && x.canonical == "0x8"));
        assert_eq!(t.write(), b);
    }

    #[test]
    fn hostile_counts_and_sizes_are_refused_or_bounded() {
        // A count whose table cannot fit, and one whose table fits but whose texture cannot.
        let b = u32::MAX.to_le_bytes();
        assert!(matches!(Ptx::read(&b), Err(TextureError::OutOfBounds(_))));
        let mut b = 1000u32.to_le_bytes().to_vec();
        b.extend(std::iter::repeat_n(1u8, 4000));
        assert!(!looks_like_ptx(&b));
        assert!(matches!(Ptx::read(&b), Err(TextureError::OutOfBounds(_))));
        // A DDS header claiming 2^32-1 square with 32 levels: no level fits, nothing overflows.
        let mut e = entry(0, 0, 64);
        e[0x70 + 0x0C..0x70 + 0x14].copy_from_slice(&[0xFF; 8]);
        e[0x70 + 0x1C..0x70 + 0x20].copy_from_slice(&u32::MAX.to_le_bytes());
        let t = Texture::read(&e).unwrap();
        assert_eq!((t.chain.len(), t.padding.len()), (0, 64));
        assert_eq!(t.geometry().unwrap().full_chain(), 32);
        assert_eq!(t.write(), e);
    }

    #[test]
    fn bundle_round_trip_and_spans() {
        let mut b = vec![0u8; 0x800];
        b[0..4].copy_from_slice(&2u32.to_le_bytes());
        b[4..8].copy_from_slice(&1u32.to_le_bytes());
        b[8..12].copy_from_slice(&2u32.to_le_bytes());
        b.extend(entry(3, 40, 0x800 - 0xF0 - 40));
        b.extend(entry(4, 40, 0x1000 - 0xF0 - 40));
        b.extend_from_slice(b"tail");
        assert!(looks_like_ptx(&b));
        let p = Ptx::read(&b).unwrap();
        assert_eq!(p.textures.len(), 2);
        assert_eq!(p.offsets(), vec![0x800, 0x1000]);
        assert_eq!(p.tail, b"tail");
        assert_eq!(p.write().unwrap(), b);
        let mut bad = p.clone();
        bad.textures[0].padding.pop();
        assert_eq!(
            bad.write(),
            Err(TextureError::NotSectors {
                index: 0,
                len: 0x7FF
            })
        );
        b[8..12].copy_from_slice(&9u32.to_le_bytes());
        assert!(!looks_like_ptx(&b));
        assert!(matches!(Ptx::read(&b), Err(TextureError::OutOfBounds(_))));
    }
}
