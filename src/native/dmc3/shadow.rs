//! DMC3 shadow models (`SHW `, an archive member: the body's in slot 8, the coat's in 14):
//! closed hulls that cast a character's shadow. The layout is COMMUNITY (`docs/formats.md`,
//! "Shadow models": a public research repository's census script and the game's load-time
//! fixup); no retail file has been seen here.
//!
//! - Header, 0x20 bytes: `"SHW "`, f32 version at +0x04, u8 hull count at +0x10; the rest
//!   PRESERVED_UNDECODED.
//! - Hull records, 0x40 bytes each from 0x20: u16 vertex count at +0x00, u16 triangle count at
//!   +0x02, four u64 file offsets at +0x10 (the loader turns all four into pointers): the
//!   triangle list (+0x10) and the adjacency list (+0x18) are named; +0x20 and +0x28 are not.
//!   The other record bytes are PRESERVED_UNDECODED.
//! - Triangles, 16 bytes: u32 a, b, c, then u32 0. Adjacency, 8 bytes per triangle: u16 x3, then
//!   u16 0.
//!
//! A member is read as a shadow model only when it fits that exactly: the magic, at least one
//! hull, every list inside the member and after the records, every corner below the vertex
//! count and every adjacency entry below the triangle count, the zero words zero, and every
//! hull closed and manifold (each directed edge once, its reverse once, every vertex used, and
//! `T = 2V - 4C` over its `C` connected pieces). Anything else stays opaque bytes. Everything
//! after the records (the lists, and whatever lies between and after them) is carried as it
//! is; [`Shw::write`] gives the member's bytes back exactly.
//!
//! ASSUMED (for [`Shw::of_hulls`] only, which writes new hulls on request): the third offset
//! (+0x20) names the hull's vertices, 16 bytes each (f32 x, y, z, 1.0, model space, native
//! units), and the fourth (+0x28) is written equal to it. No reading depends on this.

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
/// One vertex as [`Shw::of_hulls`] writes it (ASSUMED, see the module doc).
pub const VERTEX: usize = 16;

/// A shadow model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shw {
    /// The header as read (magic, version, count and the undecoded bytes).
    #[serde(with = "crate::bytes::base64_bytes")]
    pub header: Vec<u8>,
    /// The hulls, in record order.
    pub hulls: Vec<Hull>,
    /// Every byte after the records, as read.
    #[serde(with = "crate::bytes::base64_bytes")]
    pub body: Vec<u8>,
}

/// One hull: its record and its two named lists as decoded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hull {
    /// The record as read (0x40 bytes).
    #[serde(with = "crate::bytes::base64_bytes")]
    pub record: Vec<u8>,
    /// Vertex count (+0x00).
    pub vertices: u16,
    /// The four offsets (+0x10: triangles, +0x18: adjacency, +0x20 and +0x28 not named).
    pub offsets: [u64; 4],
    /// The triangles' corners.
    pub triangles: Vec<[u32; 3]>,
    /// Per triangle its three adjacency entries.
    pub adjacency: Vec<[u16; 3]>,
}

/// Whether `data` starts with the shadow-model magic.
pub fn has_shw_magic(data: &[u8]) -> bool {
    data.starts_with(&SHW_MAGIC)
}

impl Shw {
    /// The version (+0x04).
    pub fn version(&self) -> f32 {
        le::<4>(&self.header, 4).map_or(f32::NAN, f32::from_le_bytes)
    }

    /// Reads `data` when it fits the layout exactly (see the module doc); `None` otherwise.
    pub fn read(data: &[u8]) -> Option<Shw> {
        if !has_shw_magic(data) {
            return None;
        }
        let count = usize::from(*data.get(0x10)?);
        let records_end = HEADER + count * RECORD;
        if count == 0 || data.len() < records_end {
            return None;
        }
        let hulls = (0..count)
            .map(|i| hull(data, HEADER + i * RECORD, records_end))
            .collect::<Option<Vec<Hull>>>()?;
        Some(Shw {
            header: data[..HEADER].to_vec(),
            hulls,
            body: data[records_end..].to_vec(),
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

/// The hull whose record is at `at`; its lists must lie at or after `records_end`.
fn hull(data: &[u8], at: usize, records_end: usize) -> Option<Hull> {
    let vertices = u16::from_le_bytes(le(data, at)?);
    let t = usize::from(u16::from_le_bytes(le(data, at + 2)?));
    let mut offsets = [0u64; 4];
    for (k, o) in offsets.iter_mut().enumerate() {
        *o = u64::from_le_bytes(le(data, at + 0x10 + 8 * k)?);
    }
    let list = |offset: u64, size: usize| -> Option<&[u8]> {
        let start = usize::try_from(offset).ok().filter(|&s| s >= records_end)?;
        data.get(start..start.checked_add(t * size)?)
    };
    let mut triangles = Vec::with_capacity(t);
    for c in list(offsets[0], TRIANGLE)?.chunks_exact(TRIANGLE) {
        let w = |k: usize| u32::from_le_bytes([c[4 * k], c[4 * k + 1], c[4 * k + 2], c[4 * k + 3]]);
        let tri = [w(0), w(1), w(2)];
        if w(3) != 0 || tri.iter().any(|&v| v >= u32::from(vertices)) {
            return None;
        }
        triangles.push(tri);
    }
    let mut adjacency = Vec::with_capacity(t);
    for c in list(offsets[1], ADJACENCY)?.chunks_exact(ADJACENCY) {
        let w = |k: usize| u16::from_le_bytes([c[2 * k], c[2 * k + 1]]);
        let adj = [w(0), w(1), w(2)];
        if w(3) != 0 || adj.iter().any(|&x| usize::from(x) >= t) {
            return None;
        }
        adjacency.push(adj);
    }
    closed_manifold(usize::from(vertices), &triangles).then(|| Hull {
        record: data[at..at + RECORD].to_vec(),
        vertices,
        offsets,
        triangles,
        adjacency,
    })
}

/// A closed hull to write: its corners (model space, native units) and outward triangles.
pub type Shape = (Vec<[f32; 3]>, Vec<[u32; 3]>);

/// An axis-aligned box from `lo` to `hi` (8 corners, 12 triangles wound outward): closed and
/// manifold.
pub fn cuboid(lo: [f32; 3], hi: [f32; 3]) -> Shape {
    let v = (0..8)
        .map(|i| {
            [
                if i & 1 == 0 { lo[0] } else { hi[0] },
                if i & 2 == 0 { lo[1] } else { hi[1] },
                if i & 4 == 0 { lo[2] } else { hi[2] },
            ]
        })
        .collect();
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let t = quads
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    (v, t)
}

/// Per triangle the triangle across each edge (edge `e` from corner `e` to the next), 0 where
/// none is (never, for a closed hull).
fn adjacency(t: &[[u32; 3]]) -> Vec<[u16; 3]> {
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
    /// A shadow model of `shapes` (at most 255, each within u16 counts), with the header and
    /// the first record's undecoded bytes of `template` when given: per hull its triangles,
    /// adjacency and vertices (ASSUMED layout, see the module doc), each list 16-byte aligned.
    pub fn of_hulls(template: Option<&Shw>, shapes: &[Shape]) -> Shw {
        let mut header = template.map_or_else(
            || {
                let mut h = SHW_MAGIC.to_vec();
                h.extend_from_slice(&1.0f32.to_le_bytes());
                h
            },
            |t| t.header.clone(),
        );
        header.resize(HEADER, 0);
        let record = template
            .and_then(|t| t.hulls.first())
            .map_or_else(|| vec![0; RECORD], |h| h.record.clone());
        let shapes = &shapes[..shapes.len().min(255)];
        let records_end = HEADER + shapes.len() * RECORD;
        let mut body: Vec<u8> = Vec::new();
        let mut place = |list: Vec<u8>| {
            body.resize(body.len().next_multiple_of(16), 0);
            let at = (records_end + body.len()) as u64;
            body.extend(list);
            at
        };
        let hulls = shapes
            .iter()
            .map(|(v, t)| {
                let adjacency = adjacency(t);
                let words = |x: [u32; 4]| x.into_iter().flat_map(u32::to_le_bytes);
                let tri = place(
                    t.iter()
                        .flat_map(|x| words([x[0], x[1], x[2], 0]))
                        .collect(),
                );
                let halves =
                    |x: [u16; 3]| [x[0], x[1], x[2], 0].into_iter().flat_map(u16::to_le_bytes);
                let adj = place(adjacency.iter().flat_map(|&x| halves(x)).collect());
                let floats = |p: &[f32; 3]| {
                    [p[0], p[1], p[2], 1.0]
                        .into_iter()
                        .flat_map(f32::to_le_bytes)
                };
                let vtx = place(v.iter().flat_map(floats).collect());
                Hull {
                    record: record.clone(),
                    vertices: v.len() as u16,
                    offsets: [tri, adj, vtx, vtx],
                    triangles: t.clone(),
                    adjacency,
                }
            })
            .collect();
        Shw {
            header,
            hulls,
            body,
        }
    }
}

/// The `N` bytes of `data` at `at`, when all are there.
fn le<const N: usize>(data: &[u8], at: usize) -> Option<[u8; N]> {
    data.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// Whether `triangles` over `vertices` vertices are a closed manifold surface: each directed
/// edge once and its reverse once, every vertex used, and `T = 2V - 4C` over the `C` pieces.
pub fn closed_manifold(vertices: usize, triangles: &[[u32; 3]]) -> bool {
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
        return false;
    }
    let mut used = vec![false; vertices];
    for t in triangles {
        if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
            return false;
        }
        for e in 0..3 {
            let (a, b) = (t[e], t[(e + 1) % 3]);
            *edges.entry((a, b)).or_default() += 1;
            used[a as usize] = true;
            let (ra, rb) = (root(&mut piece, a as usize), root(&mut piece, b as usize));
            piece[ra] = rb;
        }
    }
    let pieces = (0..vertices).filter(|&v| root(&mut piece, v) == v).count();
    used.iter().all(|&u| u)
        && edges
            .iter()
            .all(|(&(a, b), &n)| n == 1 && edges.get(&(b, a)) == Some(&1))
        && triangles.len() + 4 * pieces == 2 * vertices
}
