//! `inspect` of DMC3 textures (PTX bundles, gfxTexture entries) and of the members of a
//! character archive: what each holds, where, and how it departs from the canonical form.

use serde::Serialize;

use crate::native::dmc3::texture::{Difference, Ptx, Texture};
use crate::native::dmc3::Dmc3File;

/// One texture entry.
#[derive(Debug, Clone, Serialize)]
pub struct TextureReport {
    /// Index in its bundle (0 for a single entry).
    pub index: usize,
    /// Offset of the descriptor in the file (or archive member).
    pub offset: u64,
    /// Bytes of the entry (its span in a bundle).
    pub len: u64,
    /// `DXT1`, `DXT5`, or `null` when neither header names one.
    pub pixel_format: Option<&'static str>,
    /// Width of the top level (0 without a geometry).
    pub width: u32,
    /// Height of the top level.
    pub height: u32,
    /// Where the geometry was read: `dds`, `descriptor`, or `null`.
    pub geometry_from: Option<&'static str>,
    /// Levels the header declares.
    pub mips_declared: u32,
    /// Levels a full chain down to 1×1 has.
    pub mips_full: u32,
    /// The whole levels present: width, height, offset in the entry, bytes.
    pub levels: Vec<[u64; 4]>,
    /// Bytes after the chain (sector padding in a bundle).
    pub padding_len: usize,
    /// How many of them are non-zero.
    pub padding_nonzero: usize,
    /// Where the entry departs from the canonical form.
    pub differences: Vec<Difference>,
}

/// A PTX bundle.
#[derive(Debug, Clone, Serialize)]
pub struct PtxReport {
    /// Texture count.
    pub texture_count: usize,
    /// Bytes from the span table to the first sector boundary.
    pub table_padding_len: usize,
    /// How many of them are non-zero.
    pub table_padding_nonzero: usize,
    /// Bytes after the last texture.
    pub tail_len: usize,
    /// The textures.
    pub textures: Vec<TextureReport>,
}

/// The counts of a model member.
#[derive(Debug, Clone, Serialize)]
pub struct ModelReport {
    /// Objects.
    pub objects: usize,
    /// Meshes over all objects.
    pub meshes: usize,
    /// Nodes of its block (0 without one).
    pub nodes: usize,
    /// The header's texture count (+0x12).
    pub texture_count: u8,
    /// The texture indices its meshes use, ascending.
    pub texture_indices: Vec<u16>,
}

fn nonzero(b: &[u8]) -> usize {
    b.iter().filter(|&&x| x != 0).count()
}

/// The report of one entry at `offset`.
pub fn texture_report(t: &Texture, index: usize, offset: u64) -> TextureReport {
    let g = t.geometry();
    TextureReport {
        index,
        offset,
        len: t.len(),
        pixel_format: g.map(|g| g.format.name()),
        width: g.map_or(0, |g| g.width),
        height: g.map_or(0, |g| g.height),
        geometry_from: g.map(|g| g.source),
        mips_declared: g.map_or(0, |g| g.mips),
        mips_full: g.map_or(0, |g| g.full_chain()),
        levels: t
            .levels()
            .iter()
            .map(|l| [u64::from(l.width), u64::from(l.height), l.offset, l.len])
            .collect(),
        padding_len: t.padding.len(),
        padding_nonzero: nonzero(&t.padding),
        differences: t.differences(),
    }
}

/// The report of a bundle.
pub fn ptx_report(p: &Ptx) -> PtxReport {
    PtxReport {
        texture_count: p.textures.len(),
        table_padding_len: p.table_padding.len(),
        table_padding_nonzero: nonzero(&p.table_padding),
        tail_len: p.tail.len(),
        textures: p
            .textures
            .iter()
            .zip(p.offsets())
            .enumerate()
            .map(|(i, (t, o))| texture_report(t, i, o))
            .collect(),
    }
}

/// The counts of a model.
pub fn model_report(f: &Dmc3File) -> ModelReport {
    let objects = f.container.as_ref().map_or(&[][..], |c| &c.objects[..]);
    let mut indices: Vec<u16> = objects
        .iter()
        .flat_map(|o| o.meshes.iter().map(|m| m.record.texture_index))
        .collect();
    indices.sort_unstable();
    indices.dedup();
    ModelReport {
        objects: objects.len(),
        meshes: objects.iter().map(|o| o.meshes.len()).sum(),
        nodes: f.block.as_ref().map_or(0, |b| b.node_count()),
        texture_count: f.container.as_ref().map_or(0, |c| c.header.texture_count),
        texture_indices: indices,
    }
}

/// Text lines of a texture entry, each starting with `indent`.
pub fn render_texture(out: &mut String, t: &TextureReport, indent: &str) {
    use std::fmt::Write;
    let _ = writeln!(
        out,
        "{indent}texture {} at {:#x}, {} bytes: {} {}x{} (from the {}), {} of {} levels ({} declared), {} bytes of padding ({} non-zero)",
        t.index,
        t.offset,
        t.len,
        t.pixel_format.unwrap_or("unknown format"),
        t.width,
        t.height,
        t.geometry_from.map_or("-", |s| if s == "dds" { "DDS header" } else { "descriptor" }),
        t.levels.len(),
        t.mips_full,
        t.mips_declared,
        t.padding_len,
        t.padding_nonzero
    );
    for d in &t.differences {
        let _ = writeln!(
            out,
            "{indent}    not canonical: {} is {}, canonical {}",
            d.field, d.found, d.canonical
        );
    }
}

/// Text lines of a bundle.
pub fn render_ptx(out: &mut String, p: &PtxReport, indent: &str) {
    use std::fmt::Write;
    let _ = writeln!(
        out,
        "{indent}{} textures, {} bytes of table padding ({} non-zero), {} bytes after the last texture",
        p.texture_count, p.table_padding_len, p.table_padding_nonzero, p.tail_len
    );
    for t in &p.textures {
        render_texture(out, t, indent);
    }
}

/// Text line of a model member.
pub fn render_model(out: &mut String, m: &ModelReport, indent: &str) {
    use std::fmt::Write;
    let _ = writeln!(
        out,
        "{indent}{} objects, {} meshes, {} nodes, texture count {}, texture indices used {:?}",
        m.objects, m.meshes, m.nodes, m.texture_count, m.texture_indices
    );
}
