//! 8-bit RGBA images, whatever they were decoded from, and their PNG form: a texture's image
//! is a PNG that also carries the texture's native bytes in a private chunk ([`CHUNK_TYPE`]).
//!
//! **The chunk.** `rgTX` (lowercase first letter: ancillary, a decoder may skip it; lowercase
//! second: private; uppercase fourth: not safe to copy, so an editor that changes the pixels
//! must drop it). Its data is [`CHUNK_VERSION`] (one byte), the texture's index in its bundle
//! (u32 little-endian), then the native bytes, uncompressed (block-compressed pixels barely
//! deflate). An unmodified image gives the native bytes back from its chunk; a repainted one,
//! re-encoded without the chunk, is recognised by its absence.

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

/// The private PNG chunk that carries a texture's native bytes.
pub const CHUNK_TYPE: [u8; 4] = *b"rgTX";
/// The layout version of [`CHUNK_TYPE`]'s data.
pub const CHUNK_VERSION: u8 = 1;
/// The PNG signature.
const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];

/// The PNG of `rgba` (as RGB when `opaque`) whose [`CHUNK_TYPE`] chunk carries `native`, the
/// bytes of texture `index` of its bundle.
pub fn png_carrying(
    rgba: &Rgba,
    opaque: bool,
    index: usize,
    native: &[u8],
) -> Result<Vec<u8>, png::EncodingError> {
    let mut chunk = Vec::with_capacity(5 + native.len());
    chunk.push(CHUNK_VERSION);
    chunk.extend_from_slice(&(index as u32).to_le_bytes());
    chunk.extend_from_slice(native);
    encode_png(rgba, opaque, &chunk)
}

/// The PNG of `rgba` (as RGB when `opaque`) with `chunk` as its [`CHUNK_TYPE`] chunk.
fn encode_png(rgba: &Rgba, opaque: bool, chunk: &[u8]) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, rgba.width, rgba.height);
    e.set_depth(png::BitDepth::Eight);
    e.set_compression(png::Compression::Fast);
    let rgb: Vec<u8>;
    let data = if opaque {
        e.set_color(png::ColorType::Rgb);
        rgb = rgba
            .pixels
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        &rgb[..]
    } else {
        e.set_color(png::ColorType::Rgba);
        &rgba.pixels[..]
    };
    let mut w = e.write_header()?;
    w.write_chunk(png::chunk::ChunkType(CHUNK_TYPE), chunk)?;
    w.write_image_data(data)?;
    w.finish()?;
    Ok(out)
}

/// The texture index and native entry bytes a PNG's [`CHUNK_TYPE`] chunk carries, or `None`
/// when `png` is not a PNG or has no such chunk of a known version (a repainted image).
pub fn native_entry(png: &[u8]) -> Option<(usize, &[u8])> {
    let mut at = png.strip_prefix(&PNG_SIGNATURE[..])?;
    while at.len() >= 12 {
        let len = u32::from_be_bytes([at[0], at[1], at[2], at[3]]) as usize;
        let kind = &at[4..8];
        let data = at.get(8..8usize.checked_add(len)?)?;
        if kind == CHUNK_TYPE {
            let (&version, rest) = data.split_first()?;
            if version != CHUNK_VERSION || rest.len() < 4 {
                return None;
            }
            let index = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            return Some((index, &rest[4..]));
        }
        if kind == b"IEND" {
            return None;
        }
        at = at.get(12 + len..)?;
    }
    None
}

/// Why a PNG gives no pixels.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PngProblem {
    /// A JPEG where a PNG was expected.
    #[error("a JPEG, not a PNG: export images as PNG (Blender's glTF exporter: Images, PNG)")]
    Jpeg,
    /// No PNG header the decoder reads (the png crate's words).
    #[error("not a PNG it can read: {0}")]
    Header(String),
    /// A header that claims more pixels than this many bytes of PNG can hold.
    #[error("its header claims more pixels than {0} bytes of PNG can hold")]
    TooLarge(usize),
    /// Image data that does not decode (the png crate's words).
    #[error("PNG data: {0}")]
    Data(String),
}

/// The pixels of a PNG as 8-bit RGBA (grey, palette and 16-bit images expanded), or why not.
/// At most 1,100 bytes are allocated per input byte (deflate expands at most 1,032 times), so
/// a header cannot ask for more than its data could hold.
pub fn decode_png(png: &[u8]) -> Result<Rgba, PngProblem> {
    let bound = png.len().saturating_mul(1100);
    let mut d =
        png::Decoder::new_with_limits(std::io::Cursor::new(png), png::Limits { bytes: bound });
    d.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = d
        .read_info()
        .map_err(|e| match png.starts_with(&[0xFF, 0xD8, 0xFF]) {
            true => PngProblem::Jpeg,
            false => PngProblem::Header(e.to_string()),
        })?;
    let size = reader
        .output_buffer_size()
        .filter(|&n| n <= bound)
        .ok_or(PngProblem::TooLarge(png.len()))?;
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| PngProblem::Data(e.to_string()))?;
    let data = &buf[..info.buffer_size()];
    let channels = info.color_type.samples();
    let pixels: Vec<u8> = match channels {
        4 => data.to_vec(),
        3 => data
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        2 => data
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        _ => data.iter().flat_map(|&g| [g, g, g, 255]).collect(),
    };
    Ok(Rgba {
        width: info.width,
        height: info.height,
        pixels,
    })
}

/// A PNG's width and height (its IHDR chunk, which comes first), `None` for anything else.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    let ihdr = png.strip_prefix(&PNG_SIGNATURE[..])?.get(..16)?;
    if &ihdr[4..8] != b"IHDR" {
        return None;
    }
    let word = |i: usize| u32::from_be_bytes([ihdr[i], ihdr[i + 1], ihdr[i + 2], ihdr[i + 3]]);
    Some((word(8), word(12)))
}
