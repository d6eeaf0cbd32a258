//! Textures as glTF images: one PNG per native texture, carrying the native bytes in a private
//! PNG chunk, and the materials that show them.
//!
//! **The image.** A texture's top mip level decoded to 8-bit RGBA by its format, written as a
//! PNG (RGB when every alpha is 255, else RGBA) in a buffer view of the binary chunk,
//! `mimeType` `image/png`. The PNG also holds the texture's native bytes (for a bundle entry:
//! its headers, every mip level, padding) in the private chunk of [`crate::rgba`]. Nothing of
//! the texture rides in extras: an unmodified image (Blender writes a packed PNG back byte for
//! byte) gives the native bytes back from its chunk.
//!
//! **The material.** Each material a mesh names after a texture index (the format's name for
//! it, e.g. `texture_N`) gets that texture's image as `baseColorTexture` and an alpha mode from
//! the pixels: `OPAQUE` when every alpha is 255, `MASK` (cutoff 0.5) when every alpha is 0 or
//! 255 (1-bit alpha, or a cut-out), `BLEND` when some alpha lies between (translucency).

use ::gltf_json as json;
use json::validation::Checked;

use super::buffer::Builder;
use crate::rgba::{self, AlphaContent, Rgba};

/// One texture ready for a document: its PNG and what its alpha holds.
#[derive(Debug, Clone, PartialEq)]
pub struct TextureImage {
    /// Its index among the textures (the material `texture_N` shows image N).
    pub index: usize,
    /// The PNG bytes (with the native entry in its [`crate::rgba::CHUNK_TYPE`] chunk).
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

/// Texture `index` of a bundle (or a single entry, index 0) as a PNG of its decoded top level
/// `top` (`None`: its format gives no pixels) carrying `native`, its bytes.
pub fn texture_image(
    index: usize,
    top: Option<Rgba>,
    native: &[u8],
) -> Result<TextureImage, TextureImageError> {
    let rgba = top.ok_or(TextureImageError::NoPixels { index })?;
    let alpha = rgba.alpha();
    let png =
        rgba::png_carrying(&rgba, alpha == AlphaContent::Opaque, index, native).map_err(|e| {
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
