//! Points binned on a grid as fine as the position tolerance, for the neighbours of a point
//! without comparing it with every other.

use std::collections::HashMap;

use super::num_hash::NumHash;

/// Position grid for neighbour search.
pub(crate) struct Grid {
    h: f64,
    cells: HashMap<[i64; 3], Vec<usize>, NumHash>,
}

impl Grid {
    fn cell(h: f64, p: &[f64; 3]) -> [i64; 3] {
        // `as` saturates, so huge coordinates land in the outermost cells.
        [
            (p[0] / h).floor() as i64,
            (p[1] / h).floor() as i64,
            (p[2] / h).floor() as i64,
        ]
    }

    pub(crate) fn new(h: f64, points: impl Iterator<Item = (usize, [f64; 3])>) -> Grid {
        let mut cells: HashMap<[i64; 3], Vec<usize>, NumHash> = HashMap::default();
        for (i, p) in points {
            cells.entry(Grid::cell(h, &p)).or_default().push(i);
        }
        Grid { h, cells }
    }

    /// Points in the 27 cells around `p`, without allocating.
    pub(crate) fn near(&self, p: &[f64; 3]) -> impl Iterator<Item = usize> + '_ {
        let c = Grid::cell(self.h, p);
        (0..27i64)
            .filter_map(move |n| {
                let k = [
                    c[0].saturating_add(n / 9 - 1),
                    c[1].saturating_add(n / 3 % 3 - 1),
                    c[2].saturating_add(n % 3 - 1),
                ];
                self.cells.get(&k)
            })
            .flat_map(|v| v.iter().copied())
    }
}
