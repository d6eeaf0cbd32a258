//! Shadow models (`SHW `) by the public layout (`docs/formats.md`, "Shadow models"; see
//! [`crate::native::dmc3::shadow`]), written here byte by byte and not by the library's writer.
//!
//! Retail form (what the two retail Dante shadows show): version 0.5, +0x11 the model's node
//! count, 1 and 2 at +0x12 and +0x14, one closed genus-0 hull per joint, per hull its
//! triangles, adjacency, vertices (f32 x, y, z, 1.0) and selectors (the hull's joint) in that
//! order, each 16-aligned and zero padded, the member padded to 16. Noisy form (what a reader
//! must carry): random undecoded header and record bytes, hulls of two closed pieces, selectors
//! mixed within a hull, the lists in a shuffled order with odd gaps of random bytes between
//! them, and a tail.

use super::rng::Rng;

/// A closed shape: corners and outward triangles.
pub type Shape = (Vec<[f32; 3]>, Vec<[u32; 3]>);

/// A tetrahedron (V 4, T 4).
fn tetrahedron(c: [f32; 3], r: f32) -> Shape {
    let p = [
        [1.0, 1.0, 1.0],
        [1.0, -1.0, -1.0],
        [-1.0, 1.0, -1.0],
        [-1.0, -1.0, 1.0],
    ];
    let v = p
        .iter()
        .map(|q| [c[0] + r * q[0], c[1] + r * q[1], c[2] + r * q[2]])
        .collect();
    (v, vec![[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]])
}

/// An octahedron (V 6, T 8).
fn octahedron(c: [f32; 3], r: f32) -> Shape {
    let mut v = Vec::new();
    for axis in 0..3 {
        for s in [1.0, -1.0] {
            let mut p = c;
            p[axis] += s * r;
            v.push(p);
        }
    }
    // +x 0, -x 1, +y 2, -y 3, +z 4, -z 5; each face (x, y, z) with the winding outward.
    let mut t = Vec::new();
    for (x, y, z) in [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4)] {
        t.push([x, y, z]);
    }
    for (x, y, z) in [(2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)] {
        t.push([x, y, z]);
    }
    (v, t)
}

/// An axis-aligned box from `lo` to `hi` (V 8, T 12, wound outward).
pub fn cuboid(lo: [f32; 3], hi: [f32; 3]) -> Shape {
    let v = (0..8)
        .map(|i: usize| [0, 1, 2].map(|a| if i >> a & 1 == 0 { lo[a] } else { hi[a] }))
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

/// Two shapes as one hull (two closed pieces).
fn joined(a: Shape, b: Shape) -> Shape {
    let n = a.0.len() as u32;
    let mut v = a.0;
    v.extend(b.0);
    let mut t = a.1;
    t.extend(b.1.iter().map(|x| x.map(|i| i + n)));
    (v, t)
}

/// A random closed shape; with `pieces`, sometimes one of two closed pieces.
fn random_shape(rng: &mut Rng, pieces: bool) -> Shape {
    let mut c = || [0, 1, 2].map(|_| rng.range(-500, 500) as f32 / 10.0);
    let (a, b) = (c(), c());
    match rng.index(if pieces { 4 } else { 3 }) {
        0 => tetrahedron(a, 3.0),
        1 => octahedron(a, 4.5),
        2 => cuboid(a, [a[0] + 7.0, a[1] + 11.0, a[2] + 5.0]),
        _ => joined(
            cuboid(a, [a[0] + 2.0, a[1] + 3.0, a[2] + 2.0]),
            tetrahedron(b, 2.0),
        ),
    }
}

/// Per triangle the triangles across its three edges (edge `e` runs from corner `e` to the
/// next): an independent count of what the library's writer writes.
fn neighbours(t: &[[u32; 3]]) -> Vec<[u16; 3]> {
    t.iter()
        .map(|x| {
            [0, 1, 2].map(|e| {
                let (a, b) = (x[e], x[(e + 1) % 3]);
                let across = t
                    .iter()
                    .position(|y| (0..3).any(|f| y[f] == b && y[(f + 1) % 3] == a));
                across.unwrap_or(0) as u16
            })
        })
        .collect()
}

/// One hull to write: its shape and per vertex its selector.
pub struct HullSpec {
    /// Corners and triangles.
    pub shape: Shape,
    /// Per corner the joint that moves it.
    pub selectors: Vec<u8>,
}

/// A random valid shadow model for `seed`, retail or noisy form (see the module doc).
pub fn random_shw(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let noisy = rng.chance(0.5);
    let nodes = rng.range(1, 64) as u8;
    let n = rng.range(1, 7) as usize;
    let hulls: Vec<HullSpec> = (0..n)
        .map(|_| {
            let shape = random_shape(&mut rng, noisy);
            let joint = rng.index(usize::from(nodes)) as u8;
            let selectors = (0..shape.0.len())
                .map(|_| match noisy && rng.chance(0.3) {
                    true => rng.index(usize::from(nodes)) as u8,
                    false => joint,
                })
                .collect();
            HullSpec { shape, selectors }
        })
        .collect();
    shw_of(&mut rng, nodes, &hulls, noisy)
}

/// The bytes of a shadow model of `hulls` for a model of `nodes` nodes: with `noisy`, random
/// undecoded bytes, shuffled lists, gaps and a tail; else the retail form.
pub fn shw_of(rng: &mut Rng, nodes: u8, hulls: &[HullSpec], noisy: bool) -> Vec<u8> {
    let n = hulls.len();
    let mut out = b"SHW ".to_vec();
    out.extend_from_slice(&0.5f32.to_le_bytes());
    out.extend(fill(rng, noisy, 8));
    out.extend([n as u8, nodes]);
    let mut rest = fill(rng, noisy, 14);
    if !noisy {
        (rest[0], rest[2]) = (1, 2); // +0x12 and +0x14
    }
    out.extend(rest);
    let mut records: Vec<Vec<u8>> = (0..n).map(|_| fill(rng, noisy, 0x40)).collect();
    let mut lists: Vec<(usize, usize, Vec<u8>)> = Vec::new();
    for (h, spec) in hulls.iter().enumerate() {
        lists.extend(lists_of(h, spec));
    }
    if noisy {
        rng.shuffle(&mut lists);
    }
    let mut body: Vec<u8> = Vec::new();
    let body_at = out.len() + 0x40 * n;
    for (h, which, list) in lists {
        let gap = match noisy {
            true => rng.range(0, 20) as usize,
            false => (16 - body.len() % 16) % 16,
        };
        body.extend(fill(rng, noisy, gap));
        let at = (body_at + body.len()) as u64;
        records[h][0x10 + 8 * which..0x18 + 8 * which].copy_from_slice(&at.to_le_bytes());
        body.extend(list);
    }
    for (r, spec) in records.iter_mut().zip(hulls) {
        r[0..2].copy_from_slice(&(spec.shape.0.len() as u16).to_le_bytes());
        r[2..4].copy_from_slice(&(spec.shape.1.len() as u16).to_le_bytes());
    }
    let tail = match noisy {
        true => rng.range(0, 40) as usize,
        false => (16 - body.len() % 16) % 16,
    };
    body.extend(fill(rng, noisy, tail));
    out.extend(records.concat());
    out.extend(body);
    out
}

/// Hull `h`'s four lists as (hull, which, bytes): triangles, adjacency, vertices, selectors.
fn lists_of(h: usize, spec: &HullSpec) -> [(usize, usize, Vec<u8>); 4] {
    let (v, t) = &spec.shape;
    let tri = t
        .iter()
        .flat_map(|x| [x[0], x[1], x[2], 0].into_iter().flat_map(u32::to_le_bytes))
        .collect();
    let adj = neighbours(t)
        .iter()
        .flat_map(|x| [x[0], x[1], x[2], 0].into_iter().flat_map(u16::to_le_bytes))
        .collect();
    let vtx = v
        .iter()
        .flat_map(|p| {
            [p[0], p[1], p[2], 1.0]
                .into_iter()
                .flat_map(f32::to_le_bytes)
        })
        .collect();
    [
        (h, 0, tri),
        (h, 1, adj),
        (h, 2, vtx),
        (h, 3, spec.selectors.clone()),
    ]
}

/// `len` random bytes when `noisy`, else zeros.
fn fill(rng: &mut Rng, noisy: bool, len: usize) -> Vec<u8> {
    match noisy {
        true => rng.bytes(len),
        false => vec![0; len],
    }
}

/// A shadow-model-like member that does not fit the layout (a hull not closed: one triangle of
/// a box dropped), which readers must keep as opaque bytes.
pub fn open_shw(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let (v, mut t) = cuboid([0.0; 3], [1.0; 3]);
    t.pop();
    let selectors = vec![0; v.len()];
    let spec = HullSpec {
        shape: (v, t),
        selectors,
    };
    shw_of(&mut rng, 1, &[spec], true)
}

/// At most this many hulls in a shadow [`shadow_of_model`] writes (12 triangles each: 432).
const MODEL_HULLS: usize = 36;

/// The retail-form shadow of the model `model` (MOD bytes): its vertices grouped by their
/// dominant joint, the smallest group folded into its parent's while there are more than 36,
/// and per group the axis-aligned box around its vertices (at least 1 unit thick) on that
/// joint; +0x11 the model's node count. A model without skinned vertices gets one unit box on
/// joint 0. The model is read with the library's reader (what is tested here is the shadow's
/// layout, written byte by byte below).
pub fn shadow_of_model(model: &[u8]) -> Vec<u8> {
    let mut rng = Rng::new(0);
    let (nodes, parents, mut groups) = model_groups(model);
    while groups.len() > MODEL_HULLS {
        let Some(j) = (groups.iter())
            .filter(|(j, _)| parents.get(**j).copied().flatten().is_some())
            .min_by_key(|(_, g)| g.len())
            .map(|(j, _)| *j)
        else {
            break;
        };
        let g = groups.remove(&j).unwrap_or_default();
        let p = parents[j].unwrap_or_default();
        groups.entry(p).or_default().extend(g);
    }
    if groups.is_empty() {
        groups.insert(0, vec![[0.0; 3]]);
    }
    let hulls: Vec<HullSpec> = groups
        .iter()
        .map(|(&j, points)| {
            let lo = [0, 1, 2].map(|a| points.iter().map(|p| p[a]).fold(f32::MAX, f32::min));
            let hi = [0, 1, 2].map(|a| points.iter().map(|p| p[a]).fold(f32::MIN, f32::max));
            let hi = [0, 1, 2].map(|a| hi[a].max(lo[a] + 1.0));
            HullSpec {
                shape: cuboid(lo, hi),
                selectors: vec![j as u8; 8],
            }
        })
        .collect();
    shw_of(&mut rng, nodes, &hulls, false)
}

/// Per joint of `model` the positions of the vertices it weighs most, its node count and the
/// joints' parents (nothing for bytes that do not read as a model).
type Grouped = (
    u8,
    Vec<Option<usize>>,
    std::collections::BTreeMap<usize, Vec<[f32; 3]>>,
);

fn model_groups(model: &[u8]) -> Grouped {
    let mut groups = std::collections::BTreeMap::<usize, Vec<[f32; 3]>>::new();
    let Ok(file) = crate::native::dmc3::read_container(model) else {
        return (1, Vec::new(), groups);
    };
    let rig = crate::rig::lift(crate::native::NativeFile::Dmc3(file));
    let parents: Vec<Option<usize>> = rig
        .skeletons
        .first()
        .map(|s| s.joints.iter().map(|j| j.parent).collect())
        .unwrap_or_default();
    let nodes = parents.len().clamp(1, 255);
    for m in rig.meshes() {
        for ((p, j), w) in m.positions.iter().zip(&m.joints).zip(&m.weights) {
            let k = (0..4)
                .rev()
                .max_by(|&a, &b| w[a].total_cmp(&w[b]))
                .unwrap_or(0);
            let joint = usize::from(j[k]);
            if joint < nodes {
                groups.entry(joint).or_default().push(p.map(|x| x as f32));
            }
        }
    }
    (nodes as u8, parents, groups)
}
