//! The two sides as sets: distinct vertices and triangles matched within the tolerances, and
//! the report of what differs (see the module doc of [`super`]).

use super::*;
/// A vertex keyed by its bits, for sets of distinct vertices.
pub(super) struct ByBits<'a>(pub(super) &'a Vert);

impl PartialEq for ByBits<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.same_bits(other.0)
    }
}

impl Eq for ByBits<'_> {}

impl std::hash::Hash for ByBits<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.bits(&mut |x| state.write_u64(x));
    }
}

pub(in crate::gltf::import) fn len3(p: &[f64; 3]) -> f64 {
    DVec3::from_array(*p).length()
}

pub(super) fn within<const N: usize>(a: &Option<[f64; N]>, b: &Option<[f64; N]>, tol: f64) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol),
        _ => false,
    }
}

pub(super) fn pos_close(a: &[f64; 3], b: &[f64; 3], tol: &Tolerance) -> bool {
    let t = tol.translation_at(len3(a).max(len3(b)));
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= t)
}

pub(in crate::gltf::import) fn close(a: &Vert, b: &Vert, tol: &Tolerance) -> bool {
    if !close_shape(a, b, tol) {
        return false;
    }
    let w = |v: &Vert, k: &InfKey| v.inf.iter().find(|e| e.0 == *k).map(|e| e.1).unwrap_or(0.0);
    a.inf
        .iter()
        .chain(b.inf.iter())
        .all(|(k, _)| (w(a, k) - w(b, k)).abs() <= tol.weight)
}

/// [`close`] without the influences: position, normal, UV and colour.
pub(in crate::gltf::import) fn close_shape(a: &Vert, b: &Vert, tol: &Tolerance) -> bool {
    let normals = match (&a.n, &b.n) {
        (None, None) => true,
        (Some(x), Some(y)) => {
            let (x, y) = (DVec3::from_array(*x), DVec3::from_array(*y));
            x.cross(y).length().atan2(x.dot(y)) <= tol.normal_rad
        }
        _ => false,
    };
    pos_close(&a.p, &b.p, tol)
        && normals
        && within(&a.uv, &b.uv, tol.uv)
        // A side without colours says nothing about them: Blender exports COLOR_0 only while a
        // material uses it, so giving a mesh another material drops them.
        && (a.c.is_none() || b.c.is_none() || within(&a.c, &b.c, tol.color))
}

/// Distinct vertices (exact duplicates merged) among those a triangle uses: Blender (like most
/// tools) keeps only vertices that belong to a face, and drops triangles that repeat a vertex.
/// Also returns how many vertices no triangle uses.
pub(super) fn distinct(g: &Geometry) -> (Vec<&Vert>, usize) {
    let (used, unused) = used_vertices(&g.tris, g.verts.len());
    let mut seen: HashSet<ByBits, NumHash> =
        HashSet::with_capacity_and_hasher(g.verts.len(), NumHash::default());
    let out = g
        .verts
        .iter()
        .zip(&used)
        .filter(|(v, u)| **u && seen.insert(ByBits(v)))
        .map(|(v, _)| v)
        .collect();
    (out, unused)
}

/// Which of `n` vertices a triangle with three different corners uses, and how many none
/// does.
pub(super) fn used_vertices(tris: &[[usize; 3]], n: usize) -> (Vec<bool>, usize) {
    let mut used = vec![false; n];
    for t in tris {
        if t[0] != t[1] && t[1] != t[2] && t[0] != t[2] {
            for &c in t {
                if let Some(u) = used.get_mut(c) {
                    *u = true;
                }
            }
        }
    }
    let unused = used.iter().filter(|u| !**u).count();
    (used, unused)
}

/// The triangles of a geometry whose three corners are at three different positions: every
/// one counts, also where two meshes hold the same triangle (the comparison's sets would
/// count those once).
pub(super) fn triangle_count(g: &Geometry) -> usize {
    triangles_at(&g.tris, |c| g.verts.get(c).map(|v| v.p.map(f64::to_bits)))
}

/// [`triangle_count`] over the positions' bits `at` gives for each vertex.
pub(super) fn triangles_at(tris: &[[usize; 3]], at: impl Fn(usize) -> Option<[u64; 3]>) -> usize {
    tris.iter()
        .filter(|t| match (at(t[0]), at(t[1]), at(t[2])) {
            (Some(a), Some(b), Some(c)) => a != b && b != c && a != c,
            _ => false,
        })
        .count()
}

/// A triangle as position ids, rotated so the smallest id leads (winding kept); `None` when
/// degenerate or a corner has no position id.
pub(super) fn tri_key(t: &[usize; 3], ids: &[Option<usize>]) -> Option<[usize; 3]> {
    let a = [
        *ids.get(t[0])?.as_ref()?,
        *ids.get(t[1])?.as_ref()?,
        *ids.get(t[2])?.as_ref()?,
    ];
    if a[0] == a[1] || a[1] == a[2] || a[0] == a[2] {
        return None;
    }
    let r = (0..3).min_by_key(|&i| a[i]).unwrap_or(0);
    Some([a[r], a[(r + 1) % 3], a[(r + 2) % 3]])
}

/// The incoming triangles over the expected side's distinct `positions` (each corner snapped to
/// the nearest one within the tolerance), and how many triangles have a corner near none.
pub(super) fn incoming_triangles(
    incoming: &Geometry,
    positions: &[[f64; 3]],
    h: f64,
    tol: &Tolerance,
) -> (HashSet<[usize; 3], NumHash>, usize) {
    let pgrid = Grid::new(h, positions.iter().copied().enumerate());
    let iids: Vec<Option<usize>> = incoming
        .verts
        .iter()
        .map(|v| {
            pgrid
                .near(&v.p)
                .filter(|&k| positions.get(k).is_some_and(|q| pos_close(q, &v.p, tol)))
                .min_by(|&a, &b| {
                    let d = |k: usize| {
                        positions
                            .get(k)
                            .map(|q| (DVec3::from_array(*q) - DVec3::from_array(v.p)).length())
                            .unwrap_or(f64::MAX)
                    };
                    d(a).total_cmp(&d(b))
                })
        })
        .collect();
    let mut itris: HashSet<[usize; 3], NumHash> = HashSet::default();
    let mut unplaced = 0usize;
    for t in &incoming.tris {
        let corners_known = t.iter().all(|&c| iids.get(c).is_some_and(Option::is_some));
        match tri_key(t, &iids) {
            Some(k) => {
                itris.insert(k);
            }
            None if !corners_known => unplaced += 1,
            None => {}
        }
    }
    (itris, unplaced)
}

/// Vertices of either side without a counterpart on the other, as messages.
pub(super) fn vertex_differences(
    e: &[&Vert],
    i: &[&Vert],
    h: f64,
    tol: &Tolerance,
    names: &Names,
) -> Vec<String> {
    let mut out = Vec::new();
    let egrid = Grid::new(h, e.iter().enumerate().map(|(k, v)| (k, v.p)));
    for v in i {
        if !egrid
            .near(&v.p)
            .any(|k| e.get(k).is_some_and(|x| close(x, v, tol)))
        {
            out.push(format!(
                "vertex {} is not in the original geometry",
                v.describe(names)
            ));
        }
    }
    let igrid = Grid::new(h, i.iter().enumerate().map(|(k, v)| (k, v.p)));
    for v in e {
        if !igrid
            .near(&v.p)
            .any(|k| i.get(k).is_some_and(|x| close(v, x, tol)))
        {
            out.push(format!("original vertex {} is missing", v.describe(names)));
        }
    }
    out
}

/// Compares two geometries as sets (see the module doc); `names` gives the joint names for the
/// messages (only asked for when there are differences).
pub(in crate::gltf::import) fn compare_geometry(
    incoming: &Geometry,
    expected: &Geometry,
    tol: &Tolerance,
    names: &dyn Fn() -> Names,
) -> MeshReport {
    // The common case, an unedited file read back by a tool that keeps the arrays: the same
    // vertices and triangles in the same order, bit for bit. The sets are then equal without
    // looking for counterparts.
    let same = incoming.odd.is_empty()
        && incoming.tris == expected.tris
        && incoming.verts.len() == expected.verts.len()
        && incoming
            .verts
            .iter()
            .zip(&expected.verts)
            .all(|(a, b)| a.same_bits(b));
    geometry_report(incoming, expected, same, tol, names)
}

/// [`compare_geometry`] once it is known whether both sides hold the same arrays (`same`).
pub(super) fn geometry_report(
    incoming: &Geometry,
    expected: &Geometry,
    same: bool,
    tol: &Tolerance,
    names: &dyn Fn() -> Names,
) -> MeshReport {
    let (e, unused) = distinct(expected);
    let i = if same {
        e.clone()
    } else {
        distinct(incoming).0
    };
    let mut notes = Notes::of(&incoming.odd);
    // Equal arrays have no differences to look for: the sets below would be equal too.
    if !same {
        let max_r = expected
            .verts
            .iter()
            .chain(&incoming.verts)
            .map(|v| len3(&v.p))
            .filter(|r| r.is_finite())
            .fold(0.0f64, f64::max);
        let h = 2.0 * tol.translation_at(max_r);
        let h = if h.is_finite() && h > 0.0 { h } else { 1.0 };
        for d in vertex_differences(&e, &i, h, tol, &names()) {
            notes.note(d);
        }

        // Triangles over the expected side's distinct positions.
        let mut pos_id: HashMap<[u64; 3], usize, NumHash> = HashMap::default();
        let mut positions: Vec<[f64; 3]> = Vec::new();
        let eids: Vec<Option<usize>> = expected
            .verts
            .iter()
            .map(|v| {
                let bits = v.p.map(f64::to_bits);
                Some(*pos_id.entry(bits).or_insert_with(|| {
                    positions.push(v.p);
                    positions.len() - 1
                }))
            })
            .collect();
        let etris: HashSet<[usize; 3], NumHash> = expected
            .tris
            .iter()
            .filter_map(|t| tri_key(t, &eids))
            .collect();
        let (itris, unplaced) = incoming_triangles(incoming, &positions, h, tol);
        let at = |k: usize| positions.get(k).map(blender_point).unwrap_or_default();
        if unplaced > 0 {
            notes.note(format!(
                "{unplaced} triangles use vertices that are not in the original geometry"
            ));
        }
        let mut extra: Vec<&[usize; 3]> = itris.difference(&etris).collect();
        extra.sort();
        for t in extra {
            notes.note(format!(
                "triangle {} {} {} is not in the original geometry",
                at(t[0]),
                at(t[1]),
                at(t[2])
            ));
        }
        let mut missing: Vec<&[usize; 3]> = etris.difference(&itris).collect();
        missing.sort();
        for t in missing {
            notes.note(format!(
                "original triangle {} {} {} is missing",
                at(t[0]),
                at(t[1]),
                at(t[2])
            ));
        }
    }
    let sides = Sides {
        vertices: (e.len(), i.len()),
        triangles: (triangle_count(expected), triangle_count(incoming)),
        unused,
        proxies: incoming.proxies,
    };
    sides.report(notes, incoming.odd.is_empty())
}

/// Differences: the first [`SHOWN`] spelled out, all of them counted.
#[derive(Default)]
pub(super) struct Notes {
    shown: Vec<String>,
    count: usize,
}

impl Notes {
    /// Notes starting with the primitives that could not be compared (`odd`).
    pub(super) fn of(odd: &[String]) -> Notes {
        let mut notes = Notes::default();
        for o in odd {
            notes.note(o.clone());
        }
        notes
    }

    fn note(&mut self, d: String) {
        self.count += 1;
        if self.shown.len() < SHOWN {
            self.shown.push(d);
        }
    }
}

/// What a comparison counted: distinct vertices and triangles (expected side, incoming side),
/// unused original vertices and ignored proxies.
pub(super) struct Sides {
    pub(super) vertices: (usize, usize),
    pub(super) triangles: (usize, usize),
    pub(super) unused: usize,
    pub(super) proxies: usize,
}

impl Sides {
    /// The report, with the differences found (`no_odd`: the incoming side has no primitive
    /// that could not be compared).
    pub(super) fn report(self, notes: Notes, no_odd: bool) -> MeshReport {
        let status = if self.vertices == (0, 0) && no_odd {
            MeshStatus::None
        } else {
            MeshStatus::Unchanged
        };
        MeshReport {
            status,
            expected_vertices: self.vertices.0,
            incoming_vertices: self.vertices.1,
            expected_triangles: self.triangles.0,
            incoming_triangles: self.triangles.1,
            proxies_ignored: self.proxies,
            differences: notes.shown,
            difference_count: notes.count,
            written: None,
            unused_vertices: self.unused,
            ignored: Vec::new(),
        }
    }
}
