//! The texture loader as the game runs it (docs/formats.md, textures and the loader): a PTX
//! bundle's textures go into a runtime bundle of 64 pointers, written without a check; each
//! gfxTexture entry's descriptor is read at exactly five places (+0x00 becomes the object's
//! vtable, +0x10/+0x12 the logical size, +0x20 the self-relative offset to the image record at
//! +0x60, +0x64 the DDS byte count, +0x68 the image record's offset to the DDS at +0x70), and
//! the DDS goes to DirectXTK's DDS reader, which refuses more than 15 mip levels, sides past
//! 16,384 and a byte count shorter than the header and the levels it declares.

use super::Finding;
use crate::native::dmc3::texture::{
    DdsHeader, Descriptor, Geometry, PixelFormat, Ptx, Texture, DDS_MAGIC,
};
use crate::native::record::Evidence;

/// The runtime bundle's texture pointers.
pub const MAX_TEXTURES: usize = 64;
/// DirectXTK's mip level limit (D3D11's).
pub const MAX_MIPS: u32 = 15;
/// DirectXTK's limit on a 2D texture's side (D3D11's).
pub const MAX_SIDE: u32 = 16_384;
/// The DDS magic and header.
const DDS_HEADER_BYTES: u64 = DdsHeader::LEN as u64;
/// The DX10 header after the DDS header, when the FourCC is `DX10`.
const DX10_BYTES: u64 = 20;

/// Every finding of the texture loader on a PTX bundle: its count, then each texture's
/// (placed `texture I`).
pub fn ptx_findings(ptx: &Ptx) -> Vec<Finding> {
    let mut out = Vec::new();
    let count = ptx.textures.len();
    if count > MAX_TEXTURES {
        out.push(Finding::stops(
            "",
            "+0x00 texture count",
            format!(
                "{count} textures: the game's runtime bundle holds {MAX_TEXTURES} texture \
                 pointers and writes the others past them, over what follows"
            ),
            Evidence::ExeConfirmed,
        ));
    }
    for (i, t) in ptx.textures.iter().enumerate() {
        let place = format!("texture {i}");
        out.extend(entry_findings(t).into_iter().map(|f| f.within(&place)));
    }
    out
}

/// Every finding of the texture loader on one gfxTexture entry (a `.tm2`, a member, or one
/// texture of a bundle): the five descriptor fields it reads, then the DDS.
pub fn entry_findings(t: &Texture) -> Vec<Finding> {
    let mut out = descriptor_findings(&t.descriptor);
    out.extend(dds_findings(t));
    out
}

fn stops(out: &mut Vec<Finding>, field: &str, problem: String) {
    out.push(Finding::stops("", field, problem, Evidence::ExeConfirmed));
}

/// The five descriptor fields the loader reads.
fn descriptor_findings(d: &Descriptor) -> Vec<Finding> {
    let mut out = Vec::new();
    let vtable = u64::from(d.unknown_00[0]) | u64::from(d.unknown_00[1]) << 32;
    if vtable != 0 {
        stops(
            &mut out,
            "descriptor +0x00",
            format!("holds {vtable:#x}: the loader makes it the texture object's vtable, and 0 is what it expects there"),
        );
    }
    for (field, v) in [
        ("descriptor +0x10 width", d.width),
        ("descriptor +0x12 height", d.height),
    ] {
        if v == 0 {
            stops(
                &mut out,
                field,
                "0: the loader takes the texture's logical size from here".to_string(),
            );
        }
    }
    if d.unknown_20 != 0x40 {
        stops(
            &mut out,
            "descriptor +0x20",
            format!(
                "holds {:#x}: the loader takes it as the offset from +0x20 to the image record \
                 at +0x60 (0x40) and makes it a pointer",
                d.unknown_20
            ),
        );
    }
    if d.unknown_68 != 8 {
        stops(
            &mut out,
            "descriptor +0x68",
            format!(
                "holds {:#x}: the loader takes it as the image record's offset to the DDS at \
                 +0x70 (8) and makes it a pointer",
                d.unknown_68
            ),
        );
    }
    out
}

/// Bytes per 4×4 block of the DDS's pixel format, and the bytes of headers before its levels;
/// `None` when the format has no blocks we can size (an uncompressed DX10 format).
fn blocks(t: &Texture) -> Option<(u64, u64)> {
    match &t.dds.four_cc {
        b"DXT1" => Some((8, DDS_HEADER_BYTES)),
        b"DXT5" => Some((16, DDS_HEADER_BYTES)),
        b"DX10" => {
            let dxgi = dx10_format(t)?;
            let bytes = match dxgi {
                70..=72 | 79..=81 => 8,
                73..=78 | 82..=84 | 94..=99 => 16,
                _ => return None,
            };
            Some((bytes, DDS_HEADER_BYTES + DX10_BYTES))
        }
        _ => None,
    }
}

/// The DXGI format of a DX10 header (its first word, right after the DDS header).
fn dx10_format(t: &Texture) -> Option<u32> {
    let mut head = t.chain.iter().chain(&t.padding).copied();
    let mut w = [0u8; 4];
    for b in &mut w {
        *b = head.next()?;
    }
    Some(u32::from_le_bytes(w))
}

/// The DDS header against DirectXTK's reader, and +0x64 against what it declares.
fn dds_findings(t: &Texture) -> Vec<Finding> {
    let mut out = Vec::new();
    let h = &t.dds;
    if h.magic != DDS_MAGIC || h.size != 124 || h.pf_size != 32 {
        stops(
            &mut out,
            "DDS header",
            format!(
                "magic {:?}, header size {}, pixel format size {}: DirectXTK's DDS reader wants \
                 \"DDS \", 124 and 32, and refuses the texture",
                String::from_utf8_lossy(&h.magic),
                h.size,
                h.pf_size
            ),
        );
        return out;
    }
    let mips = h.mip_count.max(1);
    if mips > MAX_MIPS {
        stops(
            &mut out,
            "DDS +0x1C mip count",
            format!("{mips} levels: DirectXTK's DDS reader refuses more than {MAX_MIPS}"),
        );
    }
    if h.width > MAX_SIDE || h.height > MAX_SIDE {
        stops(
            &mut out,
            "DDS +0x0C/+0x10 height, width",
            format!(
                "{} × {}: DirectXTK's DDS reader refuses sides past {MAX_SIDE}",
                h.width, h.height
            ),
        );
    }
    four_cc_findings(t, &mut out);
    if out.is_empty() {
        dds_bytes_findings(t, mips, &mut out);
    }
    out
}

/// The pixel format: DXT1 and DXT5 are what the game's textures are; a DX10 header is read by
/// the loader's code but has never been tried in the game.
fn four_cc_findings(t: &Texture, out: &mut Vec<Finding>) {
    let h = &t.dds;
    let four_cc = String::from_utf8_lossy(&h.four_cc).into_owned();
    if h.pf_flags & 4 == 0 || !matches!(&h.four_cc, b"DXT1" | b"DXT5" | b"DX10") {
        out.push(Finding::stops(
            "",
            "DDS +0x54 FourCC",
            format!(
                "{four_cc:?} (pixel format flags {:#x}): the game's textures are DXT1 or DXT5 \
                 (a DX10 header is read too)",
                h.pf_flags
            ),
            Evidence::Community,
        ));
    } else if &h.four_cc == b"DX10" {
        out.push(Finding::note(
            "",
            "DDS +0x54 FourCC",
            "DX10: the loader's DDS reader takes it, but no DX10 texture has been tried in the \
             game"
                .to_string(),
            Evidence::ExeConfirmed,
        ));
    }
}

/// +0x64 against the bytes the DDS needs (its headers and declared levels) and the bytes the
/// entry holds from +0x70.
fn dds_bytes_findings(t: &Texture, mips: u32, out: &mut Vec<Finding>) {
    let Some((block, headers)) = blocks(t) else {
        return;
    };
    let g = Geometry {
        format: if block == 8 {
            PixelFormat::Dxt1
        } else {
            PixelFormat::Dxt5
        },
        width: t.dds.width,
        height: t.dds.height,
        mips,
        source: "dds",
    };
    let need = headers.saturating_add(g.chain_bytes(mips));
    let held = DDS_HEADER_BYTES + (t.chain.len() + t.padding.len()) as u64;
    let said = u64::from(t.descriptor.dds_bytes);
    let field = "descriptor +0x64 DDS bytes";
    let levels = format!("{headers} header bytes and {mips} level(s) need {need}");
    if said < need {
        stops(
            out,
            field,
            format!("{said}, but the DDS's {levels}: DirectXTK's DDS reader refuses the texture"),
        );
    } else if said > held {
        stops(
            out,
            field,
            format!(
                "{said}, but the entry holds {held} bytes from +0x70: the loader reads past its \
                 end"
            ),
        );
    } else if said != need {
        out.push(Finding::note(
            "",
            field,
            format!("{said}, more than the DDS's {levels}; every retail texture says exactly"),
            Evidence::CorpusConfirmed,
        ));
    }
}
