//! `docs/formats.md`, generated: every fixed record of every native format as declared (offset,
//! size, field, decoded or preserved, evidence class, meaning), with our prose on where each
//! record sits. `tests/formats_doc.rs` holds the file to this output (`RIGTRIP_BLESS=1` writes
//! it), so the repository documents its formats from the declarations that read and write them.

use std::fmt::Write;

use super::dmc3::block::{BlockHeader, BlockRels, NodeTransform};
use super::dmc3::container::{Header, MeshRecord, ModStreams, ObjectRecord, ScmStreams};
use super::dmc3::motion::{KeyF32, KeyF32Hermite, KeyU16, KeyU16Hermite};
use super::dmc3::motion::{MotHeader, TangentRanges, TrackHead};
use super::dmc3::texture::{DdsHeader, Descriptor};
use super::hie::Part;
use super::record::{FieldDef, Record};

/// One record as the document lists it.
struct Entry {
    /// The record's name in `rigtrip dump` and its schema.
    name: &'static str,
    /// Size on disk.
    len: usize,
    /// The declared fields.
    fields: &'static [FieldDef],
    /// Where it sits and what it is.
    prose: &'static str,
}

fn entry<R: Record>(prose: &'static str) -> Entry {
    Entry {
        name: R::SCHEMA_NAME,
        len: R::LEN,
        fields: R::FIELDS,
        prose,
    }
}

/// One format: its heading, our prose, its records.
struct Section {
    heading: &'static str,
    prose: &'static str,
    records: Vec<Entry>,
}

const INTRO: &str = "\
# Native formats

Generated from the record declarations in `src/native` (`tests/formats_doc.rs` keeps it current;
`RIGTRIP_BLESS=1 cargo test --test formats_doc` writes it). Each table is one fixed-size record
exactly as rigtrip reads and writes it: the same declaration drives the reader, the writer,
`rigtrip dump`/`build`, `inspect --coverage` and the dump schema. Everything outside these
records (arrays, vertex streams, strips, gaps, padding, tails) is described in the prose and
carried byte for byte. All values are little-endian.

*Kind*: `decoded` fields have a known meaning and are read as such; `preserved` fields have a
known place and size but an unknown or unsure meaning, and are kept bit for bit.

*Evidence*, how sure we are of a field:

| class | meaning |
| --- | --- |
| `EXE_CONFIRMED` | the game's executable was seen to read it this way |
| `STRUCTURAL_CONFIRMED` | the layout (size, stride, offset) is proven; the meaning partly known |
| `CORPUS_CONFIRMED` | every file seen so far holds this value |
| `COMMUNITY` | documented by public modding tools and research, not by the executable |
| `PRESERVED_UNDECODED` | bytes we carry but do not understand |
";

fn sections() -> Vec<Section> {
    vec![
        Section {
            heading: "DMC3 node-domain block (in `.mod`, `.scm` and `.efm` files)",
            prose: "A block of a model or effect file that holds its nodes: a header, then arrays \
                    the header's relative offsets point at (parents, order, one transform record \
                    per node). For order position i the node is order[i] and its parent is \
                    parents[i], already a node index (the executable reads it so). A node's local \
                    transform is T(tx, ty, tz) · Rz · Ry · Rx, X applied first.",
            records: vec![
                entry::<BlockRels>("The first 0x10 bytes of the block header."),
                entry::<BlockHeader>("The whole 0x20-byte header at the block's start."),
                entry::<NodeTransform>("One per node, at the transform array."),
            ],
        },
        Section {
            heading: "DMC3 model and stage containers (`.mod`, `.scm`)",
            prose: "A container header, object records, per object its mesh records, and each \
                    mesh's vertex streams (positions, normals, UVs, weights) and triangle strips; \
                    a `.mod` also holds a node-domain block at the offset its header gives.\n\n\
                    **Index workspaces** (EXE_CONFIRMED). At load the game builds each mesh's \
                    triangle index list from its strip flags and writes it into the file's own \
                    bytes at the mesh record's offset plus its +0x40, storing the count at \
                    +0x48; so the file reserves `align16(6 * (vertices - 2))` bytes there per \
                    mesh (the u16 indices of one unbroken strip). +0x48 is 0 on disk.\n\n\
                    **Retail layout** (EXE_CONFIRMED and CORPUS_CONFIRMED). The header, the \
                    object records, then per object its mesh records followed by its meshes' \
                    streams grouped by kind (every position stream of the object, then every \
                    normal, UV, bone-index and weight stream; `.scm`: positions, normals, UVs, \
                    colours), each 16-byte aligned with zero between; the node-domain block \
                    (16-aligned); then the index workspaces, one per mesh in object then mesh \
                    order, each 16-aligned, tiling the end of the file, every byte 0x12 but the \
                    file's last two, which are zero. An `.scm` mesh's +0x28 is 0x50 on every \
                    mesh of its object but the last (0). A file laid out anew from its parts by \
                    these rules is the retail file byte for byte; rigtrip lays out every edited \
                    file that changed size this way, and `verify --legs layout` says whether a \
                    file is in this layout.",
            records: vec![
                entry::<Header>("At offset 0 of the file."),
                entry::<ObjectRecord>("One per object, after the header."),
                entry::<MeshRecord>("One per mesh of an object."),
                entry::<ModStreams>("A `.mod` mesh's stream offsets."),
                entry::<ScmStreams>("An `.scm` mesh's stream offsets."),
            ],
        },
        Section {
            heading: "PlayStation hierarchy tables (`DBnnHIE.BIN`)",
            prose:
                "A table of 256 u32 file offsets at 0 (0 = an empty slot); each used slot points \
                    at a hierarchy: an s16 part count, a 0x32-byte area of 0xFF-ended byte lists, \
                    then the parts. Several slots may point at one hierarchy; bytes between and \
                    after hierarchies are carried as they are.",
            records: vec![entry::<Part>("One per joint of a hierarchy.")],
        },
        Section {
            heading: "DMC3 motions (`.mot`)",
            prose:
                "A header with one 9-bit channel mask per node, then one track per set mask bit \
                    (translation, rotation, scale per axis), each with its keys in one of four \
                    compressions.",
            records: vec![
                entry::<MotHeader>("At offset 0, before the masks."),
                entry::<TrackHead>("One per track."),
                entry::<TangentRanges>("The tangent ranges of a compression-3 track."),
                entry::<KeyU16>("A compression-2 key."),
                entry::<KeyU16Hermite>("A compression-3 key."),
                entry::<KeyF32>("A compression-0 key (assumed layout: never seen in files)."),
                entry::<KeyF32Hermite>(
                    "A compression-1 key (assumed layout: never seen in files).",
                ),
            ],
        },
        Section {
            heading: "DMC3 textures (`.ptx` bundles, `.tm2` entries, archive members)",
            prose: "A PTX bundle is a texture count, one span word per texture (its length in \
                    0x800-byte sectors), zeros to the first sector boundary, then the textures. \
                    Each texture (a gfxTexture entry, also a loose `.tm2`) is a descriptor, a DDS \
                    header, the BC1 (DXT1) or BC3 (DXT5) mip chain, and padding to its span.",
            records: vec![
                entry::<Descriptor>("At the start of each entry."),
                entry::<DdsHeader>("At +0x70 of each entry; the mip chain follows at +0xF0."),
            ],
        },
    ]
}

/// The document.
pub fn markdown() -> String {
    let mut out = String::from(INTRO);
    out.push_str(
        "\n## DMC3 archives (`.pac`)\n\n\
         `PAC` and `0x00` magic, a u32 slot count, one u32 member offset per slot (0 = empty), \
         then the members. A member is recognised by its own bytes (a model, a motion, a \
         texture bundle or entry, a nested archive, a shadow model, cloth text; `EFM`, `PNST`, `ipum` are \
         named and kept opaque). Player archives are reported to use slot 0 for textures, 1 \
         for the body, 8 for its shadow, 12 for a coat, 13 for cloth and 14 for the coat's \
         shadow: rigtrip uses these slots as names, to pair each shadow with its model, \
         and to give a coat without a shadow its slot 14. `export` shows every model member in \
         the one glTF: the coat's nodes are named `coat/...`, on the body's joints when its \
         skeleton is the body's as written, else on a skin of its own.\n\n\
         ### Shadow models (`SHW `), EXE_CONFIRMED and CORPUS_CONFIRMED\n\n\
         The game's post-load relocates exactly the four offsets of each hull record; each \
         frame it skins the hull vertices by their selectors, finds the faces that face the \
         light, extrudes the silhouette edges (found through the adjacency) and draws them. \
         Read as a shadow model only where a member fits this exactly, else kept opaque \
         (`rigtrip check` judges it either way): `SHW ` at +0x00, f32 version at +0x04 (0.5 \
         in retail), u8 hull count at +0x10, u8 node count of the model the shadow belongs to \
         at +0x11 (24 body, 33 coat in retail); +0x12 and +0x14 (1 and 2 in retail) and the \
         rest of the 0x20-byte header PRESERVED_UNDECODED. A 0x40-byte record per hull from \
         0x20: u16 vertex count V +0x00, u16 triangle count T +0x02 (read as signed: at most \
         32,767 each), four u64 file offsets: the triangle list +0x10, the adjacency list \
         +0x18, the vertex list +0x20, the selector list +0x28; the other bytes \
         PRESERVED_UNDECODED. A triangle is 16 bytes (u32 a, b, c below V, outward winding, \
         then 0), an adjacency entry 8 (u16 per edge: entry i is the triangle across edge \
         (v_i, v_i+1); then 0), a vertex 16 (f32 x, y, z, 1.0 in the model's rest space), a \
         selector 1 (the joint that moves the vertex, below +0x11: the game indexes its \
         matrix palette with it; single-influence skinning). Retail keeps each hull's four \
         lists in that order, each 16-aligned and zero padded, one joint per hull, and every \
         hull a closed genus-0 manifold (T = 2V - 4, each edge shared by two triangles); the \
         reader accepts any closed manifold hull (T = 2V - 4C over its C pieces). Budgets: \
         0x280 + 0xA0 per hull + 0x20 per vertex, triangle and 6 per hull of the 5 MiB pool \
         shadows share with stages, and a triangle count well under 910 (the faces a light \
         sees plus their silhouette edges must stay under 1,820 draw groups). `import \
         --rebuild-shadows` groups a changed model's vertices by their dominant joint, folds \
         joints with few vertices into their parents, and writes one hull per group (the \
         box around its vertices along their principal axes, its joint as every vertex's \
         selector) by this layout, within both budgets; for a coat (slot 12) without a \
         shadow it creates slot 14, which the player code uses without a null check.\n",
    );
    out.push_str(crate::native::dmc3::cloth::FORMAT_DOC);
    for s in sections() {
        let _ = write!(out, "\n## {}\n\n{}\n", s.heading, one_line(s.prose));
        for r in &s.records {
            record_table(&mut out, r);
        }
    }
    out
}

fn record_table(out: &mut String, r: &Entry) {
    let _ = write!(
        out,
        "\n### `{}` ({:#x} bytes)\n\n{}\n\n| offset | size | field | kind | evidence | meaning |\n| --- | --- | --- | --- | --- | --- |\n",
        r.name, r.len, r.prose
    );
    for f in r.fields {
        let _ = writeln!(
            out,
            "| `+0x{:02X}` | {} | `{}` | {} | `{}` | {} |",
            f.offset,
            size(f),
            f.key,
            f.kind.name(),
            f.evidence.name(),
            f.doc.replace('|', "\\|")
        );
    }
}

fn size(f: &FieldDef) -> String {
    match f.elements {
        1 => format!("{}", f.len),
        n => format!("{} ({n} × {})", f.len, f.len / n.max(1)),
    }
}

/// `text` with runs of spaces (from the source's line continuations) made single, each
/// paragraph (split at a blank line, `\n\n`) on one line.
fn one_line(text: &str) -> String {
    text.split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}
