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
    Some(decode_level(data, g.format, top.width, top.height))
}

impl Rgba {
    /// The next mip level: half the size (at least 1×1), each pixel the mean of the 2×2 box it
    /// covers (an odd edge repeats its last row or column).
    pub fn half(&self) -> Rgba {
        let (w, h) = (self.width as usize, self.height as usize);
        let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
        let mut pixels = vec![0u8; nw * nh * 4];
        for y in 0..nh {
            let (y0, y1) = ((2 * y).min(h - 1), (2 * y + 1).min(h - 1));
            for x in 0..nw {
                let (x0, x1) = ((2 * x).min(w - 1), (2 * x + 1).min(w - 1));
                for c in 0..4 {
                    let at = |xx: usize, yy: usize| u32::from(self.pixels[(yy * w + xx) * 4 + c]);
                    let sum = at(x0, y0) + at(x1, y0) + at(x0, y1) + at(x1, y1);
                    pixels[(y * nw + x) * 4 + c] = ((sum + 2) / 4) as u8;
                }
            }
        }
        Rgba {
            width: nw as u32,
            height: nh as u32,
            pixels,
        }
    }

    /// Whether some alpha lies strictly between 0 and 255 (DXT1 keeps 1 bit: below 128 is
    /// transparent).
    pub fn has_graded_alpha(&self) -> bool {
        self.alpha() == AlphaContent::Graded
    }
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

/// How far an encoded image is from its source, per channel R, G, B, A.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct EncodingError {
    /// Peak signal-to-noise ratio in dB (`f64::INFINITY` when identical).
    pub psnr: [f64; 4],
    /// Largest absolute difference of one pixel's channel.
    pub max_abs: [u8; 4],
}

/// The error of `got` against `want` (same size).
pub fn encoding_error(want: &Rgba, got: &Rgba) -> EncodingError {
    let mut sq = [0f64; 4];
    let mut max_abs = [0u8; 4];
    for (a, b) in want.pixels.chunks_exact(4).zip(got.pixels.chunks_exact(4)) {
        for c in 0..4 {
            let d = a[c].abs_diff(b[c]);
            max_abs[c] = max_abs[c].max(d);
            sq[c] += f64::from(d) * f64::from(d);
        }
    }
    let n = (want.pixels.len() / 4).max(1) as f64;
    let psnr = sq.map(|s| match s {
        0.0 => f64::INFINITY,
        _ => 10.0 * (255.0f64 * 255.0 / (s / n)).log10(),
    });
    EncodingError { psnr, max_abs }
}
