//! The pixels of a DMC3 texture: its top mip level decoded from BC1 (DXT1) or BC3 (DXT5) to
//! 8-bit RGBA with the `texpresso` crate (a pure-Rust port of libsquish, MIT).
//!
//! BC1 keeps its 1-bit alpha (a block whose first endpoint is not greater than the second has a
//! transparent fourth colour, alpha 0); BC3 keeps its interpolated 8-bit alpha. What the pixels
//! mean for a material is [`AlphaContent`].

use super::texture::{PixelFormat, Texture};

/// A decoded image: `width × height` pixels, 4 bytes (R, G, B, A) each, rows top first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rgba {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The pixels.
    pub pixels: Vec<u8>,
}

/// What the alpha channel of an image holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AlphaContent {
    /// Every alpha is 255.
    Opaque,
    /// Every alpha is 0 or 255 (cut-outs).
    Binary,
    /// Some alpha lies strictly between (translucency).
    Graded,
}

impl Rgba {
    /// What the alpha channel holds.
    pub fn alpha(&self) -> AlphaContent {
        let mut out = AlphaContent::Opaque;
        for a in self.pixels.iter().skip(3).step_by(4) {
            match a {
                255 => {}
                0 => out = AlphaContent::Binary,
                _ => return AlphaContent::Graded,
            }
        }
        out
    }
}

/// The top level of `t` decoded, or `None` when the entry has no DXT1/DXT5 geometry or does not
/// hold its whole top level. The pixels take at most 8 bytes per byte of the level (BC1: 64
/// bytes of RGBA per 8-byte block), so the allocation is bounded by the input.
pub fn decode_top(t: &Texture) -> Option<Rgba> {
    let g = t.geometry()?;
    let top = t.levels().into_iter().next()?;
    let start = top.offset as usize - super::texture::CHAIN_AT;
    let data = t.chain.get(start..start + top.len as usize)?;
    let format = match g.format {
        PixelFormat::Dxt1 => texpresso::Format::Bc1,
        PixelFormat::Dxt5 => texpresso::Format::Bc3,
    };
    let (w, h) = (top.width as usize, top.height as usize);
    let mut pixels = vec![0u8; w.checked_mul(h)?.checked_mul(4)?];
    format.decompress(data, w, h, &mut pixels);
    Some(Rgba {
        width: top.width,
        height: top.height,
        pixels,
    })
}
