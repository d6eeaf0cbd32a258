//! The pixels of a DMC3 texture: its top mip level decoded from BC1 (DXT1) or BC3 (DXT5) to
//! 8-bit RGBA ([`Rgba`]) and encoded back, with the `texpresso` crate (a pure-Rust port of
//! libsquish, MIT).
//!
//! BC1 keeps its 1-bit alpha (a block whose first endpoint is not greater than the second has a
//! transparent fourth colour, alpha 0); BC3 keeps its interpolated 8-bit alpha. What the pixels
//! mean for a material is [`crate::rgba::AlphaContent`]; the image type is [`Rgba`].

use super::texture::{PixelFormat, Texture};
use crate::rgba::Rgba;

/// The top level of `t` decoded, or `None` when the entry has no DXT1/DXT5 geometry or does not
/// hold its whole top level. The pixels take at most 8 bytes per byte of the level (BC1: 64
/// bytes of RGBA per 8-byte block), so the allocation is bounded by the input.
pub fn decode_top(t: &Texture) -> Option<Rgba> {
    let g = t.geometry()?;
    let top = t.levels().into_iter().next()?;
    let start = top.offset as usize - super::texture::CHAIN_AT;
    let data = t.chain.get(start..start + top.len as usize)?;
    Some(decode_level(data, g.format, top.width, top.height))
}

/// `format`'s texpresso codec.
fn codec(format: PixelFormat) -> texpresso::Format {
    match format {
        PixelFormat::Dxt1 => texpresso::Format::Bc1,
        PixelFormat::Dxt5 => texpresso::Format::Bc3,
    }
}

/// The full mip chain of `top` in `format`: the top level, then each box-filtered half down
/// to 1×1, each block-compressed (libsquish's cluster fit; DXT1 makes alpha below 128
/// transparent).
pub fn encode_chain(top: &Rgba, format: PixelFormat) -> Vec<u8> {
    let codec = codec(format);
    let mut out = Vec::new();
    let mut level = std::borrow::Cow::Borrowed(top);
    loop {
        let (w, h) = (level.width as usize, level.height as usize);
        let at = out.len();
        out.resize(at + codec.compressed_size(w, h), 0);
        let params = texpresso::Params::default();
        codec.compress(&level.pixels, w, h, params, &mut out[at..]);
        if w == 1 && h == 1 {
            return out;
        }
        level = std::borrow::Cow::Owned(level.half());
    }
}

/// Decodes one `width × height` level of `format` (what [`decode_top`] does for a texture).
pub fn decode_level(data: &[u8], format: PixelFormat, width: u32, height: u32) -> Rgba {
    let mut pixels = vec![0u8; width as usize * height as usize * 4];
    codec(format).decompress(data, width as usize, height as usize, &mut pixels);
    Rgba {
        width,
        height,
        pixels,
    }
}
