//! Triangle strips with restarts, the inverse of [`super::strip_triangles`]: a greedy
//! stripifier that walks from triangle to triangle over shared edges, keeping each triangle's
//! winding under the strip's alternating rule, and restarts (two flagged vertices) when no
//! neighbour fits. Every triangle is emitted exactly once; a triangle alone costs three
//! vertices, each further triangle of a strip one.

use std::collections::HashMap;

/// A strip encoding: the vertex sequence (indices into the caller's vertex table) and, per
/// entry, whether it carries the strip flag (it starts a strip and completes no triangle).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Strips {
    /// Vertex indices in strip order.
    pub sequence: Vec<u32>,
    /// The strip flag of each entry.
    pub flags: Vec<bool>,
    /// Number of strips.
    pub strips: usize,
}

/// Encodes `triangles` (vertex index triples, non-degenerate: three distinct indices) so that
/// [`super::strip_triangles`] of the flags, mapped through the sequence, gives each triangle
/// once with its winding (up to rotation).
pub fn encode_strips(triangles: &[[u32; 3]]) -> Strips {
    // Directed edge a->b of a triangle (a, b, c), (b, c, a), (c, a, b): which triangles hold it.
    let mut edges: HashMap<(u32, u32), Vec<usize>> = HashMap::with_capacity(triangles.len() * 3);
    for (t, &[a, b, c]) in triangles.iter().enumerate() {
        for e in [(a, b), (b, c), (c, a)] {
            edges.entry(e).or_default().push(t);
        }
    }
    let mut used = vec![false; triangles.len()];
    let mut out = Strips {
        sequence: Vec::with_capacity(triangles.len() * 3),
        flags: Vec::with_capacity(triangles.len() * 3),
        strips: 0,
    };
    // The unused triangle holding directed edge (x, y), and its third vertex.
    let next = |used: &[bool], x: u32, y: u32| -> Option<(usize, u32)> {
        edges.get(&(x, y))?.iter().find_map(|&t| {
            if used.get(t).copied().unwrap_or(true) {
                return None;
            }
            let tri = triangles.get(t)?;
            let z = tri.iter().copied().find(|&v| v != x && v != y)?;
            Some((t, z))
        })
    };
    for start in 0..triangles.len() {
        if used[start] {
            continue;
        }
        used[start] = true;
        let [a, b, c] = triangles[start];
        // Start where the second triangle can follow: it needs the edge (last, second last).
        let rotations = [[a, b, c], [b, c, a], [c, a, b]];
        let [a, b, c] = rotations
            .into_iter()
            .find(|r| next(&used, r[2], r[1]).is_some())
            .unwrap_or(rotations[0]);
        out.sequence.extend([a, b, c]);
        out.flags.extend([true, true, false]);
        out.strips += 1;
        let mut k = 1usize;
        loop {
            let n = out.sequence.len();
            let (x, y) = (out.sequence[n - 2], out.sequence[n - 1]);
            // Triangle k of a strip is (x, y, z) when k is even, (y, x, z) when odd.
            let want = if k.is_multiple_of(2) { (x, y) } else { (y, x) };
            let Some((t, z)) = next(&used, want.0, want.1) else {
                break;
            };
            used[t] = true;
            out.sequence.push(z);
            out.flags.push(false);
            k += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::strip_triangles;
    use super::*;

    fn canon(t: [u32; 3]) -> [u32; 3] {
        let r = (0..3).min_by_key(|&i| t[i]).unwrap_or(0);
        [t[r], t[(r + 1) % 3], t[(r + 2) % 3]]
    }

    fn decoded(s: &Strips) -> Vec<[u32; 3]> {
        let mut v: Vec<[u32; 3]> = strip_triangles(&s.flags)
            .into_iter()
            .map(|t| canon(t.map(|i| s.sequence[i as usize])))
            .collect();
        v.sort();
        v
    }

    fn check(tris: &[[u32; 3]]) -> Strips {
        let s = encode_strips(tris);
        let mut want: Vec<[u32; 3]> = tris.iter().map(|&t| canon(t)).collect();
        want.sort();
        assert_eq!(decoded(&s), want);
        assert_eq!(s.sequence.len(), s.flags.len());
        s
    }

    #[test]
    fn a_grid_becomes_long_strips() {
        // An 8x8 quad grid, both windings of the diagonal split.
        let w = 9u32;
        let mut tris = Vec::new();
        for y in 0..8 {
            for x in 0..8 {
                let (a, b, c, d) = (
                    y * w + x,
                    y * w + x + 1,
                    (y + 1) * w + x + 1,
                    (y + 1) * w + x,
                );
                tris.push([a, b, c]);
                tris.push([a, c, d]);
            }
        }
        let s = check(&tris);
        // 128 triangles: far fewer than 3 vertices each.
        assert!(s.sequence.len() < 200, "{} entries", s.sequence.len());
    }

    #[test]
    fn lone_and_opposed_triangles() {
        check(&[[0, 1, 2]]);
        check(&[[0, 1, 2], [2, 1, 0]]);
        check(&[[0, 1, 2], [1, 0, 3], [5, 6, 7], [0, 1, 2]]);
        assert_eq!(encode_strips(&[]), Strips::default());
    }

    #[test]
    fn random_soups() {
        let mut x = 0x1234_5678u64;
        let mut r = |n: u32| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as u32
        };
        for _ in 0..200 {
            let n = 3 + r(30);
            let tris: Vec<[u32; 3]> = (0..r(60))
                .filter_map(|_| {
                    let t = [r(n), r(n), r(n)];
                    (t[0] != t[1] && t[1] != t[2] && t[0] != t[2]).then_some(t)
                })
                .collect();
            check(&tris);
        }
    }
}
