//! The tests' own reading of archives, models and shadow models straight from their bytes, by
//! `docs/formats.md` and not by the library: a PAC's members, a MOD's vertices with their
//! dominant joints, a SHW's hulls and every rule the game holds a shadow to.

use std::collections::{BTreeMap, BTreeSet};

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u64_at(b: &[u8], at: usize) -> usize {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// The bytes of the member in `slot` of the archive `pac` (to the next larger offset or the
/// end), `None` for an empty or missing slot.
pub fn member(pac: &[u8], slot: usize) -> Option<&[u8]> {
    assert_eq!(&pac[..4], b"PAC\0");
    let count = u32_at(pac, 4) as usize;
    let offsets: Vec<usize> = (0..count)
        .map(|s| u32_at(pac, 8 + 4 * s) as usize)
        .collect();
    let at = *offsets.get(slot).filter(|&&o| o != 0)?;
    let end = offsets
        .iter()
        .copied()
        .filter(|&o| o > at)
        .min()
        .unwrap_or(pac.len());
    Some(&pac[at..end])
}

/// A MOD's node count (+0x11) and every vertex of every mesh: its position and dominant joint
/// (the joint of the largest of its three 5-bit weights, the first on ties).
pub fn mod_vertices(m: &[u8]) -> (usize, Vec<([f32; 3], usize)>) {
    assert_eq!(&m[..4], b"MOD ");
    let (objects, nodes) = (m[0x10] as usize, m[0x11] as usize);
    let mut out = Vec::new();
    for o in 0..objects {
        let rec = 0x40 + 0x40 * o;
        let (meshes, first) = (m[rec] as usize, u64_at(m, rec + 8));
        for k in 0..meshes {
            let r = first + 0x50 * k;
            let n = u16_at(m, r) as usize;
            let (pos, bones, weights) = (
                u64_at(m, r + 0x10),
                u64_at(m, r + 0x28),
                u64_at(m, r + 0x30),
            );
            for i in 0..n {
                let p = [0, 1, 2].map(|c| f32_at(m, pos + 12 * i + 4 * c));
                let w = u16_at(m, weights + 2 * i);
                let q = [0, 1, 2].map(|l| (w >> (5 * l)) & 31);
                let lane = (0..3).fold(0, |b, l| if q[l] > q[b] { l } else { b });
                out.push((p, m[bones + 4 * i + 1 + lane] as usize / 4));
            }
        }
    }
    (nodes, out)
}

/// One hull as its record and lists say.
#[derive(Debug, Clone)]
pub struct Hull {
    /// The four offsets: triangles, adjacency, vertices, selectors.
    pub offsets: [usize; 4],
    /// Triangles with their fourth word.
    pub tri: Vec<[u32; 4]>,
    /// Adjacency entries with their fourth half-word.
    pub adj: Vec<[u16; 4]>,
    /// Vertices x, y, z, w.
    pub pos: Vec<[f32; 4]>,
    /// Selectors.
    pub sel: Vec<u8>,
}

/// A shadow model as its bytes say.
#[derive(Debug, Clone)]
pub struct Shadow {
    /// +0x04.
    pub version: f32,
    /// +0x11.
    pub nodes: usize,
    /// The hulls.
    pub hulls: Vec<Hull>,
    /// The member's length.
    pub len: usize,
}

/// Reads a shadow model by the layout (panics where a list runs past the member).
pub fn read_shadow(b: &[u8]) -> Shadow {
    assert_eq!(&b[..4], b"SHW ");
    let hulls = (0..b[0x10] as usize)
        .map(|h| {
            let r = 0x20 + 0x40 * h;
            let (v, t) = (u16_at(b, r) as usize, u16_at(b, r + 2) as usize);
            let offsets = [0, 1, 2, 3].map(|k| u64_at(b, r + 0x10 + 8 * k));
            Hull {
                offsets,
                tri: (0..t)
                    .map(|k| [0, 1, 2, 3].map(|c| u32_at(b, offsets[0] + 16 * k + 4 * c)))
                    .collect(),
                adj: (0..t)
                    .map(|k| [0, 1, 2, 3].map(|c| u16_at(b, offsets[1] + 8 * k + 2 * c)))
                    .collect(),
                pos: (0..v)
                    .map(|k| [0, 1, 2, 3].map(|c| f32_at(b, offsets[2] + 16 * k + 4 * c)))
                    .collect(),
                sel: b[offsets[3]..offsets[3] + v].to_vec(),
            }
        })
        .collect();
    Shadow {
        version: f32_at(b, 4),
        nodes: b[0x11] as usize,
        hulls,
        len: b.len(),
    }
}

/// Every way `s` departs from what the game needs of a shadow for a model of `model_nodes`
/// nodes: closed hulls (each directed edge once and its reverse once, Euler characteristic 2
/// over one piece), adjacency entry i the triangle across edge (v_i, v_i+1), zero fourth
/// words, w = 1, selectors below +0x11, +0x11 the model's node count, the lists in retail order
/// and 16-aligned, and both budgets. Empty when none.
pub fn problems(s: &Shadow, model_nodes: usize) -> Vec<String> {
    let mut out = Vec::new();
    if s.nodes != model_nodes {
        out.push(format!(
            "+0x11 is {}, the model has {model_nodes} nodes",
            s.nodes
        ));
    }
    let (mut vs, mut ts) = (0, 0);
    let mut last = 0x20 + 0x40 * s.hulls.len();
    for (i, h) in s.hulls.iter().enumerate() {
        let (v, t) = (h.pos.len(), h.tri.len());
        (vs, ts) = (vs + v, ts + t);
        let tri: Vec<[u32; 3]> = h.tri.iter().map(|x| [x[0], x[1], x[2]]).collect();
        if let Some(p) = hull_problem(v, &tri) {
            out.push(format!("hull {i}: {p}"));
        }
        for (k, x) in h.tri.iter().enumerate() {
            if x[3] != 0 || x[..3].iter().any(|&c| c as usize >= v) {
                out.push(format!("hull {i} triangle {k}: {x:?}"));
            }
        }
        for (k, x) in tri.iter().enumerate() {
            let across = [0, 1, 2].map(|e| {
                let (a, b) = (x[e], x[(e + 1) % 3]);
                tri.iter()
                    .position(|y| (0..3).any(|f| y[f] == b && y[(f + 1) % 3] == a))
            });
            let stored = h.adj[k];
            if stored[3] != 0 || (0..3).any(|e| across[e] != Some(stored[e] as usize)) {
                out.push(format!(
                    "hull {i} adjacency {k}: {stored:?}, across {across:?}"
                ));
            }
        }
        if let Some(p) = h.pos.iter().find(|p| p[3] != 1.0) {
            out.push(format!("hull {i}: vertex {p:?}"));
        }
        if let Some(&j) = h.sel.iter().find(|&&j| j as usize >= s.nodes) {
            out.push(format!("hull {i}: selector {j}, +0x11 {}", s.nodes));
        }
        for (k, &o) in h.offsets.iter().enumerate() {
            if o < last || o % 16 != 0 {
                out.push(format!("hull {i} list {k} at {o:#x}, after {last:#x}"));
            }
            last = o + [16 * t, 8 * t, 16 * v, v][k];
        }
    }
    if last > s.len {
        out.push(format!(
            "lists end at {last:#x}, past the member ({:#x})",
            s.len
        ));
    }
    let pool = 0x280 + 0xA0 * s.hulls.len() + 0x20 * (vs + ts + 6 * s.hulls.len());
    if pool > 5 << 20 || ts > 455 {
        out.push(format!("budgets: pool {pool} bytes, {ts} triangles"));
    }
    out
}

/// What keeps `tri` over `v` vertices from being one closed genus-0 piece, if anything.
pub fn hull_problem(v: usize, tri: &[[u32; 3]]) -> Option<String> {
    let mut directed = BTreeMap::new();
    for x in tri {
        for e in 0..3 {
            *directed.entry((x[e], x[(e + 1) % 3])).or_insert(0) += 1;
        }
    }
    if let Some(((a, b), _)) = directed
        .iter()
        .find(|(&(a, b), &n)| n != 1 || directed.get(&(b, a)) != Some(&1))
    {
        return Some(format!("edge {a}-{b} not paired"));
    }
    let used: BTreeSet<u32> = tri.iter().flatten().copied().collect();
    let euler = v as i64 - (directed.len() / 2) as i64 + tri.len() as i64;
    let connected = {
        let mut seen = BTreeSet::from([0u32]);
        let mut grew = true;
        while grew {
            grew = false;
            for x in tri {
                if x.iter().any(|c| seen.contains(c)) && !x.iter().all(|c| seen.contains(c)) {
                    seen.extend(x);
                    grew = true;
                }
            }
        }
        seen.len() == v
    };
    (used.len() != v || euler != 2 || !connected).then(|| {
        format!(
            "{} of {v} vertices used, V - E + F = {euler}, connected {connected}",
            used.len()
        )
    })
}

/// Whether `p` lies inside the closed hull (`pos`, `tri`) scaled by `grow` about the mean of
/// its corners (a little over 1 takes in the points on its surface): its winding number, the
/// triangles' solid angles seen from `p` summed over 4π, is 1.
pub fn encloses(pos: &[[f32; 4]], tri: &[[u32; 4]], p: [f32; 3], grow: f64) -> bool {
    let n = pos.len() as f64;
    let mid = [0, 1, 2].map(|c| pos.iter().map(|v| v[c] as f64).sum::<f64>() / n);
    let q = |i: u32| {
        let v = pos[i as usize];
        [0, 1, 2].map(|c| mid[c] + (v[c] as f64 - mid[c]) * grow - p[c] as f64)
    };
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let len = |a: [f64; 3]| dot(a, a).sqrt();
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let total: f64 = tri
        .iter()
        .map(|t| {
            let (a, b, c) = (q(t[0]), q(t[1]), q(t[2]));
            let (la, lb, lc) = (len(a), len(b), len(c));
            let num = dot(a, cross(b, c));
            let den = la * lb * lc + dot(a, b) * lc + dot(a, c) * lb + dot(b, c) * la;
            2.0 * num.atan2(den)
        })
        .sum();
    (total / (4.0 * std::f64::consts::PI)).round() == 1.0
}
