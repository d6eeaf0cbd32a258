//! Shadow models (`SHW `) by the public layout (`docs/formats.md`, "Shadow models"; see
//! [`crate::native::dmc3::shadow`]), written here byte by byte and not by the library's writer:
//! closed hulls (tetrahedra, octahedra, boxes, and hulls of two boxes), non-zero undecoded
//! header and record bytes, the lists after the records in a shuffled order with odd gaps of
//! random bytes between them, a vertex block at the third offset (16 bytes a vertex, as the
//! library's rebuild assumes), a random fourth offset, and a tail.

use super::rng::Rng;
pub use crate::native::dmc3::shadow::cuboid;
use crate::native::dmc3::shadow::Shape;

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

/// Two shapes as one hull (two closed pieces).
fn joined(a: Shape, b: Shape) -> Shape {
    let n = a.0.len() as u32;
    let mut v = a.0;
    v.extend(b.0);
    let mut t = a.1;
    t.extend(b.1.iter().map(|x| x.map(|i| i + n)));
    (v, t)
}

/// A random closed shape.
fn random_shape(rng: &mut Rng) -> Shape {
    let mut c = || [0, 1, 2].map(|_| rng.range(-500, 500) as f32 / 10.0);
    let (a, b) = (c(), c());
    match rng.index(4) {
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
/// next): an independent count of what the library's rebuild writes.
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

/// A random valid shadow model for `seed` (see the module doc).
pub fn random_shw(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let n = rng.range(1, 7) as usize;
    let shapes: Vec<Shape> = (0..n).map(|_| random_shape(&mut rng)).collect();
    shw_of(&mut rng, &shapes, true)
}

/// The bytes of a shadow model of `shapes`: with `noisy`, random undecoded bytes, gaps and a
/// tail; else zeros and 16-byte aligned lists.
pub fn shw_of(rng: &mut Rng, shapes: &[Shape], noisy: bool) -> Vec<u8> {
    let n = shapes.len();
    let mut out = b"SHW ".to_vec();
    out.extend_from_slice(&1.0f32.to_le_bytes());
    out.extend(fill(rng, noisy, 8));
    out.push(n as u8);
    out.extend(fill(rng, noisy, 15));
    let mut records: Vec<Vec<u8>> = (0..n).map(|_| fill(rng, noisy, 0x40)).collect();
    // The lists of every hull (triangles, adjacency, vertices), in a shuffled order.
    let mut lists: Vec<(usize, usize, Vec<u8>)> = Vec::new();
    for (h, (v, t)) in shapes.iter().enumerate() {
        let tri: Vec<u8> = t
            .iter()
            .flat_map(|x| [x[0], x[1], x[2], 0].into_iter().flat_map(u32::to_le_bytes))
            .collect();
        let adj: Vec<u8> = neighbours(t)
            .iter()
            .flat_map(|x| [x[0], x[1], x[2], 0].into_iter().flat_map(u16::to_le_bytes))
            .collect();
        let vtx: Vec<u8> = v
            .iter()
            .flat_map(|p| {
                [p[0], p[1], p[2], 1.0]
                    .into_iter()
                    .flat_map(f32::to_le_bytes)
            })
            .collect();
        lists.extend([(h, 0, tri), (h, 1, adj), (h, 2, vtx)]);
    }
    if noisy {
        rng.shuffle(&mut lists);
    }
    let mut body: Vec<u8> = Vec::new();
    let body_at = out.len() + 0x40 * n;
    for (h, which, list) in lists {
        let gap = if noisy {
            rng.range(0, 20) as usize
        } else {
            (16 - body.len() % 16) % 16
        };
        body.extend(fill(rng, noisy, gap));
        let at = (body_at + body.len()) as u64;
        records[h][0x10 + 8 * which..0x18 + 8 * which].copy_from_slice(&at.to_le_bytes());
        if which == 2 {
            records[h][0x28..0x30].copy_from_slice(&at.to_le_bytes());
        }
        body.extend(list);
    }
    for (r, (v, t)) in records.iter_mut().zip(shapes) {
        r[0..2].copy_from_slice(&(v.len() as u16).to_le_bytes());
        r[2..4].copy_from_slice(&(t.len() as u16).to_le_bytes());
        if noisy && rng.chance(0.5) {
            let junk = rng.next_u64();
            r[0x28..0x30].copy_from_slice(&junk.to_le_bytes());
        }
    }
    let tail = if noisy { rng.range(0, 40) as usize } else { 0 };
    body.extend(fill(rng, noisy, tail));
    out.extend(records.concat());
    out.extend(body);
    out
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
    shw_of(&mut rng, &[(v, t)], true)
}
