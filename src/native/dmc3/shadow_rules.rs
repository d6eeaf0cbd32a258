//! The game's rules for shadow models (`SHW `), as `rigtrip check` applies them: what the
//! post-load relocates, what the per-frame code indexes, and the two budgets (see
//! [`super::shadow`] and `docs/formats.md`, "Shadow models"). They judge the member's bytes,
//! so a member that does not read as a shadow model (an open hull, a list past the end) is
//! judged too.

use super::shadow::{
    pieces, scan, RawHull, Shw, ADJACENCY, DRAW_TRIANGLES, MAX_COUNT, POOL, SELECTOR, TRIANGLE,
    VERTEX,
};
use crate::native::finding::Finding;
use crate::native::record::Evidence::{CorpusConfirmed, ExeConfirmed};

/// The list fields of a hull record, in record order.
const LISTS: [&str; 4] = [
    "+0x10 triangle list",
    "+0x18 adjacency list",
    "+0x20 vertex list",
    "+0x28 selector list",
];

impl Shw {
    /// What the game makes of this shadow model for a model of `model_nodes` nodes, when known
    /// (see [`findings`]).
    pub fn findings(&self, model_nodes: Option<u8>) -> Vec<Finding> {
        findings(&self.write(), model_nodes)
    }
}

/// What the game makes of the member `data` (one with the `SHW ` magic, read as a shadow
/// model or not), for a model of `model_nodes` nodes when known: every list inside the
/// member, counts the game reads as signed, corners and adjacency in range and right, hulls
/// closed, selectors below +0x11, +0x11 equal to the model's node count, and the pool and
/// draw budgets. Empty when nothing departs from the retail files.
pub fn findings(data: &[u8], model_nodes: Option<u8>) -> Vec<Finding> {
    let Some(raw) = scan(data) else {
        return vec![Finding::stops(
            "",
            "header",
            format!(
                "{} bytes: a shadow model starts with `SHW ` and a 0x20-byte header, which the post-load reads",
                data.len()
            ),
            ExeConfirmed,
        )];
    };
    let mut out = Vec::new();
    let (count, nodes) = (usize::from(raw.hull_count), raw.node_count);
    if raw.hulls.len() < count {
        out.push(Finding::stops(
            "",
            "+0x10 hull count",
            format!(
                "{count} hulls, but the records of only {} fit in the member ({} bytes): the post-load relocates offsets past its end",
                raw.hulls.len(),
                raw.len
            ),
            ExeConfirmed,
        ));
    }
    if count == 0 {
        out.push(Finding::note(
            "",
            "+0x10 hull count",
            "0: the model casts no shadow",
            CorpusConfirmed,
        ));
    }
    out.extend(model_nodes.and_then(|m| node_count_finding(nodes, m, "the model")));
    let end = raw.records_end();
    for (i, h) in raw.hulls.iter().enumerate() {
        let mut hull = HullRules {
            place: format!("hull {i}"),
            out: &mut out,
        };
        hull.counts(h);
        hull.lists(h, end, raw.len);
        hull.triangles(h);
        hull.vertices(h);
        hull.selectors(h, nodes);
    }
    out.extend(budgets(&raw.hulls));
    out
}

/// A shadow whose +0x11 (`shadow`) is not its model's node count (`model`, named
/// `model_place` in the problem), unplaced: more stops (selectors past the model's matrices),
/// fewer is a note (joints from the count on cannot move a hull).
pub fn node_count_finding(shadow: u8, model: u8, model_place: &str) -> Option<Finding> {
    let field = "+0x11 node count";
    let retail = "retail shadows hold their model's node count: 24 body, 33 coat";
    match shadow.cmp(&model) {
        std::cmp::Ordering::Greater => Some(Finding::stops(
            "",
            field,
            format!("{shadow}, but {model_place} has {model} nodes: selectors up to {} name joints past the model's matrices ({retail})", shadow - 1),
            CorpusConfirmed,
        )),
        std::cmp::Ordering::Less => Some(Finding::note(
            "",
            field,
            format!("{shadow}, but {model_place} has {model} nodes: a shadow made for another skeleton, joints from {shadow} on cannot move a hull ({retail})"),
            CorpusConfirmed,
        )),
        std::cmp::Ordering::Equal => None,
    }
}

/// The rules of one hull, adding to `out`.
struct HullRules<'a> {
    place: String,
    out: &'a mut Vec<Finding>,
}

impl HullRules<'_> {
    fn stops(&mut self, field: &str, problem: String, exe: bool) {
        let ev = if exe { ExeConfirmed } else { CorpusConfirmed };
        let f = Finding::stops(self.place.as_str(), field, problem, ev);
        self.out.push(f);
    }

    fn note(&mut self, field: &str, problem: String, exe: bool) {
        let ev = if exe { ExeConfirmed } else { CorpusConfirmed };
        let f = Finding::note(self.place.as_str(), field, problem, ev);
        self.out.push(f);
    }

    /// V and T within the signed 16-bit counts the game reads.
    fn counts(&mut self, h: &RawHull) {
        for (field, n) in [
            ("+0x00 vertex count", h.vertices),
            ("+0x02 triangle count", h.triangles),
        ] {
            if usize::from(n) > MAX_COUNT {
                let problem = format!("{n}: the game reads it as signed 16-bit (at most 32,767)");
                self.stops(field, problem, true);
            }
        }
    }

    /// Each list inside the member, after the records, 16-aligned.
    fn lists(&mut self, h: &RawHull, records_end: usize, len: usize) {
        let (v, t) = (usize::from(h.vertices), usize::from(h.triangles));
        let sizes = [t * TRIANGLE, t * ADJACENCY, v * VERTEX, v * SELECTOR];
        let decoded = [
            h.tri.is_some(),
            h.adj.is_some(),
            h.pos.is_some(),
            h.sel.is_some(),
        ];
        for k in 0..4 {
            let (at, size, field) = (h.offsets[k], sizes[k], LISTS[k]);
            if !decoded[k] {
                let problem = format!("{at:#x}, {size} bytes: ends past the member ({len} bytes); the post-load turns it into a pointer and the game reads past the member");
                self.stops(field, problem, true);
            } else if at < records_end as u64 {
                let problem = format!("{at:#x}: inside the header or the hull records (retail lists follow the records), so the game reads them as list data");
                self.note(field, problem, false);
            } else if at % 16 != 0 {
                let problem = format!("{at:#x}: not 16-aligned (retail lists are)");
                self.note(field, problem, false);
            }
        }
    }

    /// Corners in range, zero fourth words, closed genus-0 hulls, adjacency in range and right.
    fn triangles(&mut self, h: &RawHull) {
        let Some(tri) = &h.tri else { return };
        let v = u32::from(h.vertices);
        let field = LISTS[0];
        if let Some((k, c)) = first(tri.iter().map(|w| w[..3].iter().copied().find(|&c| c >= v))) {
            let problem = format!("triangle {k} names vertex {c}, past its {v} vertices: the game skins and reads a vertex outside the list");
            return self.stops(field, problem, true);
        }
        if let Some((k, w)) = first(tri.iter().map(|w| (w[3] != 0).then_some(w[3]))) {
            self.note(
                field,
                format!("triangle {k}'s fourth word is {w:#x} (retail: 0)"),
                false,
            );
        }
        let corners: Vec<[u32; 3]> = tri.iter().map(|w| [w[0], w[1], w[2]]).collect();
        self.closed(usize::from(h.vertices), &corners);
        if let Some(adj) = &h.adj {
            self.adjacency(adj, &corners);
        }
    }

    /// The hull closed and manifold, in one genus-0 piece.
    fn closed(&mut self, v: usize, corners: &[[u32; 3]]) {
        let field = LISTS[0];
        match pieces(v, corners) {
            None => {
                let problem = format!("{}: the silhouette code walks edges to the triangle across, so an open surface lets the shadow volume leak and the stencil shadow streaks (retail hulls are closed)", manifold_problem(v, corners));
                self.note(field, problem, false);
            }
            Some(c) if c != 1 || corners.len() + 4 != 2 * v => {
                let problem = format!("{c} closed piece(s), {} triangles over {v} vertices: retail hulls are one genus-0 piece each (T = 2V - 4)", corners.len());
                self.note(field, problem, false);
            }
            Some(_) => {}
        }
    }

    /// Each entry names the triangle across its edge.
    fn adjacency(&mut self, adj: &[[u16; 4]], corners: &[[u32; 3]]) {
        let field = LISTS[1];
        let t = corners.len();
        if let Some((k, x)) = first(
            adj.iter()
                .map(|a| a[..3].iter().copied().find(|&x| usize::from(x) >= t)),
        ) {
            let problem = format!("triangle {k} names triangle {x} across an edge, past its {t} triangles: the silhouette code reads outside the list");
            return self.stops(field, problem, true);
        }
        let right = super::shadow::adjacency(corners);
        let wrong: Vec<usize> = (0..t)
            .filter(|&k| adj[k][..3] != right[k][..] || adj[k][3] != 0)
            .collect();
        if let Some(&k) = wrong.first() {
            let problem = format!("{} triangle(s) name the wrong neighbours, first triangle {k}: {:?} where the triangles across its edges (v0 v1, v1 v2, v2 v0) are {:?}; the silhouette code extrudes the wrong edges", wrong.len(), adj[k], right[k]);
            self.note(field, problem, true);
        }
    }

    /// w = 1.0 and finite coordinates.
    fn vertices(&mut self, h: &RawHull) {
        let Some(pos) = &h.pos else { return };
        let field = LISTS[2];
        let p = |k: usize| pos[k].map(f32::from_bits);
        if let Some(k) = (0..pos.len()).find(|&k| p(k)[..3].iter().any(|c| !c.is_finite())) {
            self.note(
                field,
                format!(
                    "vertex {k} is {:?}: not a finite point, its shadow is garbage",
                    p(k)
                ),
                false,
            );
        }
        if let Some(k) = (0..pos.len()).find(|&k| p(k)[3] != 1.0) {
            let problem = format!("vertex {k}'s w is {} (retail: 1.0): the skinning multiplies the whole vector, so the vertex is scaled or moved", p(k)[3]);
            self.note(field, problem, false);
        }
    }

    /// Every selector below +0x11.
    fn selectors(&mut self, h: &RawHull, nodes: u8) {
        let Some(sel) = &h.sel else { return };
        if let Some((k, s)) = first(sel.iter().map(|&s| (s >= nodes).then_some(s))) {
            let bad = sel.iter().filter(|&&s| s >= nodes).count();
            let problem = format!("{bad} selector(s) not below +0x11 ({nodes}), first vertex {k} selects joint {s}: the game indexes its matrix palette with it, past the model's joints");
            self.stops(LISTS[3], problem, true);
        }
    }
}

/// The runtime pool and the draw groups.
fn budgets(hulls: &[RawHull]) -> Vec<Finding> {
    let v: usize = hulls.iter().map(|h| usize::from(h.vertices)).sum();
    let t: usize = hulls.iter().map(|h| usize::from(h.triangles)).sum();
    let pool = super::shadow::pool_bytes(hulls.len(), v, t);
    let mut out = Vec::new();
    if pool > POOL {
        out.push(Finding::stops(
            "",
            "runtime pool",
            format!("{pool} bytes (0x280 + 0xA0 per hull + 0x20 per vertex, triangle and 6 per hull), more than the 5 MiB pool shadows share with stages"),
            ExeConfirmed,
        ));
    }
    if t > DRAW_TRIANGLES {
        out.push(Finding::stops(
            "",
            "draw groups",
            format!("{t} triangles: the faces a light sees plus their silhouette edges can pass 1,820 draw groups (72 bytes each into a 128 KiB scratch) and overwrite the renderer; keep it well under 910 (retail 236 and 332)"),
            ExeConfirmed,
        ));
    }
    out
}

/// The first item `Some`, with its index.
fn first<T>(items: impl Iterator<Item = Option<T>>) -> Option<(usize, T)> {
    items.enumerate().find_map(|(k, x)| Some((k, x?)))
}

/// What keeps `corners` over `v` vertices from being closed and manifold, in words.
fn manifold_problem(v: usize, corners: &[[u32; 3]]) -> String {
    if let Some(k) = corners
        .iter()
        .position(|t| t[0] == t[1] || t[1] == t[2] || t[0] == t[2])
    {
        return format!("triangle {k} repeats a corner");
    }
    let mut edges = std::collections::HashMap::<(u32, u32), usize>::new();
    for t in corners {
        for e in 0..3 {
            *edges.entry((t[e], t[(e + 1) % 3])).or_default() += 1;
        }
    }
    let unpaired = (edges.iter())
        .filter(|(&(a, b), &n)| n != 1 || edges.get(&(b, a)) != Some(&1))
        .count();
    if unpaired > 0 {
        return format!(
            "{unpaired} edge(s) not shared by exactly two triangles of opposite winding"
        );
    }
    let used: std::collections::HashSet<u32> = corners.iter().flatten().copied().collect();
    let unused = (0..v as u32).filter(|x| !used.contains(x)).count();
    format!("{unused} vertex(es) on no triangle")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::dmc3::shadow::Solid;
    use crate::native::finding::Severity;

    /// A tetrahedron on joint `joint`.
    fn tetra(joint: u8) -> Solid {
        Solid {
            joint,
            corners: vec![
                [1.0, 1.0, 1.0],
                [1.0, -1.0, -1.0],
                [-1.0, 1.0, -1.0],
                [-1.0, -1.0, 1.0],
            ],
            triangles: vec![[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]],
        }
    }

    #[test]
    fn a_shadow_by_the_retail_layout_has_no_findings_and_a_selector_past_the_count_stops() {
        let s = Shw::of_solids(None, 24, &[tetra(3), tetra(23)]);
        assert_eq!(s.findings(Some(24)), []);
        let s = Shw::of_solids(None, 24, &[tetra(3), tetra(24)]);
        let f = s.findings(Some(24));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(
            (f[0].place.as_str(), f[0].field.as_str()),
            ("hull 1", LISTS[3])
        );
        assert_eq!(f[0].severity, Severity::Stops);
        let f = Shw::of_solids(None, 30, &[tetra(3)]).findings(Some(24));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(
            (f[0].field.as_str(), f[0].severity),
            ("+0x11 node count", Severity::Stops)
        );
    }
}
