//! DMC3 shadow models (`SHW `, an archive member: the body's in slot 8, the coat's in 14):
//! closed hulls whose vertices the game skins each frame to cast the character's stencil
//! shadow. The layout is EXE (the post-load relocates exactly the four offsets of each hull
//! record; the per-frame code skins, finds silhouettes and draws) and CORPUS (the two retail
//! Dante shadows); see `docs/formats.md`, "Shadow models".
//!
//! - Header, 0x20 bytes: `"SHW "`, f32 version at +0x04 (0.5 in retail), u8 hull count at
//!   +0x10, u8 node count of the model the shadow belongs to at +0x11 (24 body, 33 coat);
//!   +0x12 and +0x14 hold 1 and 2 in retail and are carried with the rest.
//! - Hull records, 0x40 bytes each from 0x20: u16 vertex count V at +0x00, u16 triangle count
//!   T at +0x02 (both read as signed by the game), four u64 file offsets: the triangle list
//!   (+0x10), the adjacency list (+0x18), the vertex list (+0x20) and the selector list
//!   (+0x28). The other record bytes are carried.
//! - Triangles, 16 bytes: u32 a, b, c (outward winding), then u32 0. Adjacency, 8 bytes per
//!   triangle: u16 per edge, the triangle across edge (v_i, v_i+1), then u16 0. Vertices, 16
//!   bytes: f32 x, y, z, 1.0 in the model's rest space. Selectors, 1 byte per vertex: the joint
//!   that moves it (single-influence skinning; below +0x11). Retail keeps each hull's four lists
//!   in that order, each 16-aligned and zero padded, and one joint per hull.
//!
//! A member is read as a shadow model only when it fits that exactly: the magic, at least one
//! hull, all four lists of every hull inside the member and after the records, every corner
//! below the vertex count and every adjacency entry below the triangle count, the zero words
//! zero, and every hull closed and manifold (each directed edge once, its reverse once, every
//! vertex used, and `T = 2V - 4C` over its `C` connected pieces). Anything else stays opaque
//! bytes ([`super::shadow_rules`] still judges it for `rigtrip check`). Everything after the
//! records (the lists, and whatever lies between and after them) is carried as it is;
//! [`Shw::write`] gives the member's bytes back exactly, and [`Shw::of_solids`] writes new
//! hulls by the retail layout.

use serde::{Deserialize, Serialize};

/// The magic at +0x00.
pub const SHW_MAGIC: [u8; 4] = *b"SHW ";
/// Header size; the first hull record follows.
pub const HEADER: usize = 0x20;
/// One hull record.
pub const RECORD: usize = 0x40;
/// One triangle of a list.
pub const TRIANGLE: usize = 16;
/// One adjacency entry.
pub const ADJACENCY: usize = 8;
/// One vertex (f32 x, y, z, w).
pub const VERTEX: usize = 16;
/// One selector.
pub const SELECTOR: usize = 1;
/// The header's node count (+0x11).
pub const NODE_COUNT_AT: usize = 0x11;
/// The largest vertex or triangle count the game reads (its counts are signed 16-bit).
pub const MAX_COUNT: usize = 32_767;
/// The pool shadow and stage runtime objects come from (5 MiB).
pub const POOL: u64 = 5 << 20;
/// Draw groups past this overwrite the renderer (72 bytes each into a 128 KiB scratch).
pub const DRAW_GROUPS: usize = 1_820;
/// A shadow's triangle count must stay well under this: the faces a light sees plus their
/// silhouette edges can pass [`DRAW_GROUPS`].
pub const DRAW_TRIANGLES: usize = 910;

/// A shadow model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shw {
    /// The header as read (magic, version, counts and the undecoded bytes).
    #[serde(with = "crate::bytes::base64_bytes")]
    pub header: Vec<u8>,
    /// The hulls, in record order.
    pub hulls: Vec<Hull>,
    /// Every byte after the records, as read.
    #[serde(with = "crate::bytes::base64_bytes")]
    pub body: Vec<u8>,
}

/// One hull: its record and its four lists as decoded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hull {
    /// The record as read (0x40 bytes).
    #[serde(with = "crate::bytes::base64_bytes")]
    pub record: Vec<u8>,
    /// Vertex count (+0x00).
    pub vertices: u16,
    /// The four offsets: triangles (+0x10), adjacency (+0x18), vertices (+0x20), selectors
    /// (+0x28).
    pub offsets: [u64; 4],
    /// The triangles' corners.
    pub triangles: Vec<[u32; 3]>,
    /// Per triangle its three adjacency entries.
    pub adjacency: Vec<[u16; 3]>,
    /// Per vertex x, y, z, w as f32 bit patterns (model rest space; w is 1.0 in retail).
    #[serde(with = "crate::bytes::le_stream")]
    pub positions: Vec<[u32; 4]>,
    /// Per vertex the joint that moves it.
    #[serde(with = "crate::bytes::le_stream")]
    pub selectors: Vec<u8>,
}

impl Hull {
    /// The vertex positions as floats (x, y, z, w).
    pub fn points(&self) -> Vec<[f32; 4]> {
        self.positions
            .iter()
            .map(|p| p.map(f32::from_bits))
            .collect()
    }

    /// The joints its selectors name, ascending, each once.
    pub fn joints(&self) -> Vec<u8> {
        let mut j = self.selectors.clone();
        j.sort_unstable();
        j.dedup();
        j
    }
}

/// Whether `data` starts with the shadow-model magic.
pub fn has_shw_magic(data: &[u8]) -> bool {
    data.starts_with(&SHW_MAGIC)
}

/// The runtime memory a shadow of `hulls` hulls with `vertices` and `triangles` in all takes
/// from the 5 MiB pool (EXE): `0x280 + 0xA0·hulls + 0x20·Σ(V + T + 6)`.
pub fn pool_bytes(hulls: usize, vertices: usize, triangles: usize) -> u64 {
    let h = hulls as u64;
    0x280 + 0xA0 * h + 0x20 * (vertices as u64 + triangles as u64 + 6 * h)
}

/// One hull as its record and the member's bytes give it, before any rule is applied: each
/// list decoded where it lies wholly inside the member, `None` where it does not.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawHull {
    /// Vertex count (+0x00).
    pub vertices: u16,
    /// Triangle count (+0x02).
    pub triangles: u16,
    /// The four offsets, as [`Hull::offsets`].
    pub offsets: [u64; 4],
    /// The triangle list, each with its fourth word.
    pub tri: Option<Vec<[u32; 4]>>,
    /// The adjacency list, each with its fourth half-word.
    pub adj: Option<Vec<[u16; 4]>>,
    /// The vertex list (f32 bit patterns).
    pub pos: Option<Vec<[u32; 4]>>,
    /// The selector list.
    pub sel: Option<Vec<u8>>,
}

/// A member with the shadow magic, scanned: what its header says and each hull whose record
/// lies inside the member.
#[derive(Debug, Clone, PartialEq)]
pub struct Raw {
    /// Hull count (+0x10).
    pub hull_count: u8,
    /// Node count (+0x11).
    pub node_count: u8,
    /// The hulls whose records lie inside the member, in record order.
    pub hulls: Vec<RawHull>,
    /// The member's length.
    pub len: usize,
}

impl Raw {
    /// Where the records end (and, in a member that fits, the lists begin).
    pub fn records_end(&self) -> usize {
        HEADER + usize::from(self.hull_count) * RECORD
    }
}

/// Scans `data` (see [`Raw`]); `None` without the magic or a whole header. Every list is
/// bounds-checked before it is decoded, so what is allocated is bounded by `data`'s length.
pub fn scan(data: &[u8]) -> Option<Raw> {
    if !has_shw_magic(data) || data.len() < HEADER {
        return None;
    }
    let hull_count = data[0x10];
    let hulls = (0..usize::from(hull_count))
        .map_while(|i| raw_hull(data, HEADER + i * RECORD))
        .collect();
    Some(Raw {
        hull_count,
        node_count: data[NODE_COUNT_AT],
        hulls,
        len: data.len(),
    })
}

/// The hull whose record is at `at`, when the record is inside `data`.
fn raw_hull(data: &[u8], at: usize) -> Option<RawHull> {
    let record = data.get(at..at + RECORD)?;
    let vertices = u16::from_le_bytes([record[0], record[1]]);
    let triangles = u16::from_le_bytes([record[2], record[3]]);
    let mut offsets = [0u64; 4];
    for (k, o) in offsets.iter_mut().enumerate() {
        *o = u64::from_le_bytes(le(record, 0x10 + 8 * k)?);
    }
    let (v, t) = (usize::from(vertices), usize::from(triangles));
    let list = |k: usize, n: usize, size: usize| -> Option<&[u8]> {
        let start = usize::try_from(offsets[k]).ok()?;
        data.get(start..start.checked_add(n * size)?)
    };
    let words =
        |c: &[u8]| [0, 1, 2, 3].map(|k| u32::from_le_bytes(le(c, 4 * k).unwrap_or_default()));
    let halves =
        |c: &[u8]| [0, 1, 2, 3].map(|k| u16::from_le_bytes(le(c, 2 * k).unwrap_or_default()));
    Some(RawHull {
        vertices,
        triangles,
        offsets,
        tri: list(0, t, TRIANGLE).map(|b| b.chunks_exact(TRIANGLE).map(words).collect()),
        adj: list(1, t, ADJACENCY).map(|b| b.chunks_exact(ADJACENCY).map(halves).collect()),
        pos: list(2, v, VERTEX).map(|b| b.chunks_exact(VERTEX).map(words).collect()),
        sel: list(3, v, SELECTOR).map(<[u8]>::to_vec),
    })
}

impl Shw {
    /// The version (+0x04).
    pub fn version(&self) -> f32 {
        le::<4>(&self.header, 4).map_or(f32::NAN, f32::from_le_bytes)
    }

    /// The node count of the model the shadow belongs to (+0x11).
    pub fn node_count(&self) -> u8 {
        self.header.get(NODE_COUNT_AT).copied().unwrap_or(0)
    }

    /// Vertices over all hulls.
    pub fn vertex_total(&self) -> usize {
        self.hulls.iter().map(|h| usize::from(h.vertices)).sum()
    }

    /// Triangles over all hulls (the draw budget counts these: [`DRAW_TRIANGLES`]).
    pub fn triangle_total(&self) -> usize {
        self.hulls.iter().map(|h| h.triangles.len()).sum()
    }

    /// The runtime memory it takes from the pool ([`pool_bytes`]).
    pub fn pool_bytes(&self) -> u64 {
        pool_bytes(self.hulls.len(), self.vertex_total(), self.triangle_total())
    }

    /// Reads `data` when it fits the layout exactly (see the module doc); `None` otherwise.
    pub fn read(data: &[u8]) -> Option<Shw> {
        let raw = scan(data)?;
        let records_end = raw.records_end();
        if raw.hull_count == 0 || raw.hulls.len() != usize::from(raw.hull_count) {
            return None;
        }
        let hulls = (raw.hulls.iter().enumerate())
            .map(|(i, h)| fitting(data, h, HEADER + i * RECORD, records_end))
            .collect::<Option<Vec<Hull>>>()?;
        Some(Shw {
            header: data[..HEADER].to_vec(),
            hulls,
            body: data.get(records_end..)?.to_vec(),
        })
    }

    /// The member's bytes: the header with the hull count, the records with their counts and
    /// offsets, then the body.
    pub fn write(&self) -> Vec<u8> {
        let mut out = self.header.clone();
        out.resize(HEADER, 0);
        out[0x10] = self.hulls.len().min(255) as u8;
        for h in &self.hulls {
            let mut r = h.record.clone();
            r.resize(RECORD, 0);
            r[0..2].copy_from_slice(&h.vertices.to_le_bytes());
            r[2..4].copy_from_slice(&(h.triangles.len() as u16).to_le_bytes());
            for (k, o) in h.offsets.iter().enumerate() {
                r[0x10 + 8 * k..0x18 + 8 * k].copy_from_slice(&o.to_le_bytes());
            }
            out.extend_from_slice(&r);
        }
        out.extend_from_slice(&self.body);
        out
    }
}

/// The hull `h` (record at `at`) when it fits the layout: all four lists inside `data` at or
/// after `records_end`, corners and adjacency in range, zero words zero, closed and manifold.
fn fitting(data: &[u8], h: &RawHull, at: usize, records_end: usize) -> Option<Hull> {
    if h.offsets.iter().any(|&o| o < records_end as u64) {
        return None;
    }
    let (v, t) = (u32::from(h.vertices), usize::from(h.triangles));
    let triangles: Vec<[u32; 3]> = (h.tri.as_ref()?.iter())
        .map(|w| (w[3] == 0 && w[..3].iter().all(|&c| c < v)).then_some([w[0], w[1], w[2]]))
        .collect::<Option<_>>()?;
    let adjacency: Vec<[u16; 3]> = (h.adj.as_ref()?.iter())
        .map(|a| {
            let ok = a[3] == 0 && a[..3].iter().all(|&x| usize::from(x) < t);
            ok.then_some([a[0], a[1], a[2]])
        })
        .collect::<Option<_>>()?;
    let (positions, selectors) = (h.pos.clone()?, h.sel.clone()?);
    closed_manifold(v as usize, &triangles).then(|| Hull {
        record: data[at..at + RECORD].to_vec(),
        vertices: h.vertices,
        offsets: h.offsets,
        triangles,
        adjacency,
        positions,
        selectors,
    })
}

/// One hull to write: the joint that moves it, its corners (the model's rest space, native
/// units) and its triangles wound outward (counter-clockwise seen from outside).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Solid {
    /// The joint every vertex of it follows (its selector).
    pub joint: u8,
    /// Its corners.
    pub corners: Vec<[f32; 3]>,
    /// Its triangles.
    pub triangles: Vec<[u32; 3]>,
}

/// Per triangle the triangle across each edge (edge `e` from corner `e` to the next), 0 where
/// none is (never, for a closed hull).
pub fn adjacency(t: &[[u32; 3]]) -> Vec<[u16; 3]> {
    let mut by_edge = std::collections::HashMap::with_capacity(t.len() * 3);
    for (k, x) in t.iter().enumerate() {
        for e in 0..3 {
            by_edge.insert((x[e], x[(e + 1) % 3]), k as u16);
        }
    }
    t.iter()
        .map(|x| [0, 1, 2].map(|e| by_edge.get(&(x[(e + 1) % 3], x[e])).copied().unwrap_or(0)))
        .collect()
}

impl Shw {
    /// A shadow model of `solids` (at most 255, each within the game's counts) for a model of
    /// `node_count` nodes, by the retail layout: per hull its triangles, adjacency, vertices
    /// (w = 1.0) and selectors (its joint), each list 16-aligned and zero padded, the member
    /// padded to 16 bytes. The header's other bytes, and per hull the record's bytes this does
    /// not write, come from `template` (hull i's record, or its last one's for hulls past its
    /// count); without one, the retail header (version 0.5, 1 and 2 at +0x12 and +0x14) and
    /// zeros.
    pub fn of_solids(template: Option<&Shw>, node_count: u8, solids: &[Solid]) -> Shw {
        let mut header = template.map_or_else(retail_header, |t| t.header.clone());
        header.resize(HEADER, 0);
        header[NODE_COUNT_AT] = node_count;
        let solids = &solids[..solids.len().min(255)];
        let records_end = HEADER + solids.len() * RECORD;
        let mut body: Vec<u8> = Vec::new();
        let mut place = |list: Vec<u8>| {
            body.resize(body.len().next_multiple_of(16), 0);
            let at = (records_end + body.len()) as u64;
            body.extend(list);
            at
        };
        let hulls: Vec<Hull> = (solids.iter().enumerate())
            .map(|(i, s)| {
                let adjacency = adjacency(&s.triangles);
                let words = |x: [u32; 4]| x.into_iter().flat_map(u32::to_le_bytes);
                let halves = |x: [u16; 4]| x.into_iter().flat_map(u16::to_le_bytes);
                let tri = s
                    .triangles
                    .iter()
                    .flat_map(|x| words([x[0], x[1], x[2], 0]));
                let adj = adjacency.iter().flat_map(|x| halves([x[0], x[1], x[2], 0]));
                let positions: Vec<[u32; 4]> = (s.corners.iter())
                    .map(|p| [p[0], p[1], p[2], 1.0].map(f32::to_bits))
                    .collect();
                let selectors = vec![s.joint; s.corners.len()];
                let offsets = [
                    place(tri.collect()),
                    place(adj.collect()),
                    place(positions.iter().flat_map(|&p| words(p)).collect()),
                    place(selectors.clone()),
                ];
                let mut record = template_record(template, i);
                record[0..2].copy_from_slice(&(s.corners.len() as u16).to_le_bytes());
                record[2..4].copy_from_slice(&(s.triangles.len() as u16).to_le_bytes());
                for (k, o) in offsets.iter().enumerate() {
                    record[0x10 + 8 * k..0x18 + 8 * k].copy_from_slice(&o.to_le_bytes());
                }
                Hull {
                    record,
                    vertices: s.corners.len() as u16,
                    offsets,
                    triangles: s.triangles.clone(),
                    adjacency,
                    positions,
                    selectors,
                }
            })
            .collect();
        body.resize(body.len().next_multiple_of(16), 0);
        header[0x10] = hulls.len() as u8;
        Shw {
            header,
            hulls,
            body,
        }
    }
}

/// The header of the retail shadows, before counts: magic, version 0.5, 1 and 2 at +0x12 and
/// +0x14.
fn retail_header() -> Vec<u8> {
    let mut h = SHW_MAGIC.to_vec();
    h.extend_from_slice(&0.5f32.to_le_bytes());
    h.resize(HEADER, 0);
    h[0x12] = 1;
    h[0x14] = 2;
    h
}

/// The record bytes hull `i` of a new shadow carries before its counts and offsets are set:
/// `template`'s hull i's, or its last hull's, else zeros.
fn template_record(template: Option<&Shw>, i: usize) -> Vec<u8> {
    let hulls = template.map_or(&[][..], |t| &t.hulls[..]);
    let mut r = (hulls.get(i).or(hulls.last())).map_or_else(Vec::new, |h| h.record.clone());
    r.resize(RECORD, 0);
    r
}

/// The `N` bytes of `data` at `at`, when all are there.
fn le<const N: usize>(data: &[u8], at: usize) -> Option<[u8; N]> {
    data.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// Whether `triangles` over `vertices` vertices are a closed manifold surface: each directed
/// edge once and its reverse once, every vertex used, and `T = 2V - 4C` over the `C` pieces.
pub fn closed_manifold(vertices: usize, triangles: &[[u32; 3]]) -> bool {
    pieces(vertices, triangles).is_some_and(|c| triangles.len() + 4 * c == 2 * vertices)
}

/// The connected pieces of `triangles` over `vertices` vertices when every directed edge is
/// there once and its reverse once, no triangle repeats a corner and every vertex is used;
/// `None` otherwise.
pub fn pieces(vertices: usize, triangles: &[[u32; 3]]) -> Option<usize> {
    let mut edges: std::collections::HashMap<(u32, u32), u32> =
        std::collections::HashMap::with_capacity(triangles.len() * 3);
    let mut piece: Vec<usize> = (0..vertices).collect();
    fn root(piece: &mut [usize], mut v: usize) -> usize {
        while piece[v] != v {
            piece[v] = piece[piece[v]];
            v = piece[v];
        }
        v
    }
    if triangles.iter().flatten().any(|&v| v as usize >= vertices) {
        return None;
    }
    let mut used = vec![false; vertices];
    for t in triangles {
        if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
            return None;
        }
        for e in 0..3 {
            let (a, b) = (t[e], t[(e + 1) % 3]);
            *edges.entry((a, b)).or_default() += 1;
            used[a as usize] = true;
            let (ra, rb) = (root(&mut piece, a as usize), root(&mut piece, b as usize));
            piece[ra] = rb;
        }
    }
    let paired = (edges.iter()).all(|(&(a, b), &n)| n == 1 && edges.get(&(b, a)) == Some(&1));
    (paired && used.iter().all(|&u| u))
        .then(|| (0..vertices).filter(|&v| root(&mut piece, v) == v).count())
}
