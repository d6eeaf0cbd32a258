//! Textures as glTF images: one PNG per native texture, carrying the native bytes in a private
//! PNG chunk, and the materials that show them.
//!
//! **The image.** A texture's top mip level decoded to 8-bit RGBA
//! ([`crate::native::dmc3::pixels`]), written as a PNG (RGB when every alpha is 255, else RGBA)
//! in a buffer view of the binary chunk, `mimeType` `image/png`.
//!
//! **The chunk.** The PNG also holds the texture's native bytes (the whole gfxTexture entry:
//! descriptor, DDS header, every mip level, padding) in a private ancillary chunk
//! [`CHUNK_TYPE`] `rgTX` (lowercase first letter: ancillary, a decoder may skip it; lowercase
//! second: private; uppercase fourth: not safe to copy, so an editor that changes the pixels
//! must drop it). Its data is [`CHUNK_VERSION`] (one byte), the texture's index in its bundle
//! (u32 little-endian), then the entry bytes, uncompressed (BC blocks barely deflate). Nothing
//! of the texture rides in extras: an unmodified image (Blender writes a packed PNG back byte
//! for byte) gives the entry back from its chunk; a repainted one, re-encoded without the
//! chunk, is recognised by its absence.
//!
//! **The material.** Each material a mesh names after a texture index (DMC3 `texture_N`) gets
//! that texture's image as `baseColorTexture` and an alpha mode from the pixels: `OPAQUE` when
//! every alpha is 255, `MASK` (cutoff 0.5) when every alpha is 0 or 255 (DXT1's 1-bit alpha, or
//! a DXT5 cut-out), `BLEND` when some alpha lies between (DXT5 translucency).

use ::gltf_json as json;
use json::validation::Checked;

use super::buffer::Builder;
use crate::native::dmc3::pixels::{self, AlphaContent, Rgba};
use crate::native::dmc3::texture::Texture;

/// The private PNG chunk that carries a texture's native bytes.
pub const CHUNK_TYPE: [u8; 4] = *b"rgTX";
/// The layout version of [`CHUNK_TYPE`]'s data.
pub const CHUNK_VERSION: u8 = 1;
/// The PNG signature.
const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];

/// One texture ready for a document: its PNG and what its alpha holds.
#[derive(Debug, Clone, PartialEq)]
pub struct TextureImage {
    /// Its index among the textures (the material `texture_N` shows image N).
    pub index: usize,
    /// The PNG bytes (with the native entry in its [`CHUNK_TYPE`] chunk).
    pub png: Vec<u8>,
    /// What the alpha channel holds.
    pub alpha: AlphaContent,
    /// Width of the image.
    pub width: u32,
    /// Height of the image.
    pub height: u32,
}

/// Why a texture has no image.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TextureImageError {
    /// Neither header gives a DXT1/DXT5 size, or the entry lacks its top level.
    #[error(
        "texture {index}: no DXT1/DXT5 top level to decode (`rigtrip inspect` shows its headers)"
    )]
    NoPixels {
        /// Texture index.
        index: usize,
    },
    /// The PNG encoder refused (a size no PNG holds).
    #[error("texture {index}: PNG encoding failed: {message}")]
    Png {
        /// Texture index.
        index: usize,
        /// The encoder's words.
        message: String,
    },
}

/// Texture `index` of a bundle (or a single entry, index 0) as a PNG with its native bytes.
pub fn texture_image(index: usize, t: &Texture) -> Result<TextureImage, TextureImageError> {
    let rgba = pixels::decode_top(t).ok_or(TextureImageError::NoPixels { index })?;
    let mut chunk = Vec::with_capacity(5 + t.len() as usize);
    chunk.push(CHUNK_VERSION);
    chunk.extend_from_slice(&(index as u32).to_le_bytes());
    t.write_into(&mut chunk);
    let alpha = rgba.alpha();
    let png = encode_png(&rgba, alpha == AlphaContent::Opaque, &chunk).map_err(|e| {
        TextureImageError::Png {
            index,
            message: e.to_string(),
        }
    })?;
    Ok(TextureImage {
        index,
        png,
        alpha,
        width: rgba.width,
        height: rgba.height,
    })
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

/// The pixels of a PNG as 8-bit RGBA (grey, palette and 16-bit images expanded), or why not.
/// At most 1,100 bytes are allocated per input byte (deflate expands at most 1,032 times), so
/// a header cannot ask for more than its data could hold.
pub fn decode_png(png: &[u8]) -> Result<Rgba, String> {
    let bound = png.len().saturating_mul(1100);
    let mut d =
        png::Decoder::new_with_limits(std::io::Cursor::new(png), png::Limits { bytes: bound });
    d.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = d
        .read_info()
        .map_err(|e| match png.starts_with(&[0xFF, 0xD8, 0xFF]) {
            true => {
                "a JPEG, not a PNG: export images as PNG (Blender's glTF exporter: Images, PNG)"
                    .to_string()
            }
            false => format!("not a PNG it can read: {e}"),
        })?;
    let size = reader
        .output_buffer_size()
        .filter(|&n| n <= bound)
        .ok_or_else(|| {
            format!(
                "its header claims more pixels than {} bytes of PNG can hold",
                png.len()
            )
        })?;
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("PNG data: {e}"))?;
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

/// A texture as the export wrote it (`export --json`: `textures`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TextureInfo {
    /// Its index among the textures.
    pub index: usize,
    /// The glTF image.
    pub image: usize,
    /// Width of the image.
    pub width: u32,
    /// Height of the image.
    pub height: u32,
    /// Bytes of the PNG (native chunk included).
    pub png_bytes: usize,
    /// `opaque`, `binary` or `graded`: what the alpha channel holds.
    pub alpha: AlphaContent,
    /// The material showing it (`null` when no mesh names its index).
    pub material: Option<String>,
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

/// Adds one image (and glTF texture) per entry of `images`, then gives each material named
/// `material_for(image.index)` that image as base colour and its alpha mode.
pub(crate) fn attach(
    b: &mut Builder,
    images: &[TextureImage],
    material_for: impl Fn(usize) -> Option<String>,
) -> Vec<TextureInfo> {
    let mut out = Vec::with_capacity(images.len());
    if images.is_empty() {
        return out;
    }
    let sampler = b.root.push(json::texture::Sampler::default());
    for img in images {
        let view = b.view(&img.png);
        let name = material_for(img.index);
        let image = b.root.push(json::Image {
            buffer_view: Some(view),
            mime_type: Some(json::image::MimeType("image/png".into())),
            name: name.clone(),
            uri: None,
            extensions: None,
            extras: None,
        });
        let texture = b.root.push(json::Texture {
            name: name.clone(),
            sampler: Some(sampler),
            source: image,
            extensions: None,
            extras: None,
        });
        let used = name
            .clone()
            .filter(|n| b.root.materials.iter().any(|m| m.name.as_ref() == Some(n)));
        out.push(TextureInfo {
            index: img.index,
            image: image.value(),
            width: img.width,
            height: img.height,
            png_bytes: img.png.len(),
            alpha: img.alpha,
            material: used,
        });
        let Some(name) = name else { continue };
        for m in b.root.materials.iter_mut() {
            if m.name.as_deref() != Some(name.as_str()) {
                continue;
            }
            m.pbr_metallic_roughness.base_color_texture = Some(json::texture::Info {
                index: texture,
                tex_coord: 0,
                extensions: None,
                extras: None,
            });
            let (mode, cutoff) = match img.alpha {
                AlphaContent::Opaque => (json::material::AlphaMode::Opaque, None),
                AlphaContent::Binary => (
                    json::material::AlphaMode::Mask,
                    Some(json::material::AlphaCutoff(0.5)),
                ),
                AlphaContent::Graded => (json::material::AlphaMode::Blend, None),
            };
            m.alpha_mode = Checked::Valid(mode);
            m.alpha_cutoff = cutoff;
        }
    }
    out
}
