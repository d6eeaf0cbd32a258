//! Small closed hulls around point clouds, for shadow volumes: a cloud's oriented bounding box,
//! its axes the principal axes of the cloud (the eigenvectors of its covariance), so that a
//! limb's box lies along the limb. It encloses every point of the cloud and has 8 corners and
//! 12 triangles whatever the cloud's size (retail shadow hulls average 9 corners), so a
//! shadow's budgets follow from its hull count. Every result is a closed genus-0 triangle
//! surface wound outward, also for flat, collinear or single-point clouds (each side is at
//! least a minimum thickness).

use glam::{DMat3, DVec3};

/// A closed hull: corners and outward (counter-clockwise seen from outside) triangles.
pub type Shape = (Vec<[f64; 3]>, Vec<[u32; 3]>);

/// The triangles of every hull [`box_hull`] makes.
pub const BOX_TRIANGLES: usize = 12;

/// The oriented bounding box of `points` (see the module doc), each side at least
/// `min_thickness`. `None` for no points or a non-finite one.
pub fn box_hull(points: &[[f64; 3]], min_thickness: f64) -> Option<Shape> {
    let p: Vec<DVec3> = points.iter().map(|&q| DVec3::from_array(q)).collect();
    if p.is_empty() || p.iter().any(|q| !q.is_finite()) {
        return None;
    }
    let mean = p.iter().copied().sum::<DVec3>() / p.len() as f64;
    let mut cov = DMat3::ZERO;
    for q in &p {
        let d = *q - mean;
        cov += DMat3::from_cols(d * d.x, d * d.y, d * d.z);
    }
    let axes = principal_axes(cov);
    let lo = DVec3::from_array([0, 1, 2].map(|a| {
        p.iter()
            .map(|q| q.dot(axes.col(a)))
            .fold(f64::INFINITY, f64::min)
    }));
    let hi = DVec3::from_array([0, 1, 2].map(|a| {
        p.iter()
            .map(|q| q.dot(axes.col(a)))
            .fold(f64::NEG_INFINITY, f64::max)
    }));
    let (v, t) = padded_box(lo, hi, min_thickness);
    let v = v
        .iter()
        .map(|c| (axes * DVec3::from_array(*c)).to_array())
        .collect();
    Some((v, t))
}

/// Orthonormal, right-handed principal axes (as columns) of the symmetric matrix `m`, by
/// cyclic Jacobi rotations.
fn principal_axes(mut m: DMat3) -> DMat3 {
    let mut v = DMat3::IDENTITY;
    for _ in 0..32 {
        let off = m.x_axis.y.abs() + m.x_axis.z.abs() + m.y_axis.z.abs();
        if off < 1e-12 * (m.x_axis.x.abs() + m.y_axis.y.abs() + m.z_axis.z.abs()).max(1e-300) {
            break;
        }
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            let (a, b, c) = (m.col(i)[i], m.col(j)[j], m.col(j)[i]);
            if c.abs() < 1e-300 {
                continue;
            }
            let theta = 0.5 * (2.0 * c).atan2(a - b);
            let (sin, cos) = theta.sin_cos();
            let mut r = DMat3::IDENTITY;
            r.col_mut(i)[i] = cos;
            r.col_mut(j)[j] = cos;
            r.col_mut(j)[i] = -sin;
            r.col_mut(i)[j] = sin;
            m = r.transpose() * m * r;
            v *= r;
        }
    }
    let (x, y) = (v.x_axis.normalize(), v.y_axis.normalize());
    DMat3::from_cols(x, y, x.cross(y))
}

/// The box from `lo` to `hi` along the axes, widened about its middle to `min` on each axis
/// where it is thinner.
pub fn padded_box(lo: DVec3, hi: DVec3, min: f64) -> Shape {
    let mid = (lo + hi) / 2.0;
    let half = ((hi - lo) / 2.0).max(DVec3::splat(min / 2.0));
    let (lo, hi) = (mid - half, mid + half);
    let v = (0..8)
        .map(|i| {
            [
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
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
    let t = (quads.iter())
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    (v, t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::dmc3::shadow::closed_manifold;

    fn outward(s: &Shape) -> bool {
        let p: Vec<DVec3> = s.0.iter().map(|&q| DVec3::from_array(q)).collect();
        let mid = p.iter().copied().sum::<DVec3>() / p.len() as f64;
        s.1.iter().all(|t| {
            let n =
                (p[t[1] as usize] - p[t[0] as usize]).cross(p[t[2] as usize] - p[t[0] as usize]);
            n.dot(p[t[0] as usize] - mid) > 0.0
        })
    }

    /// Whether `q` is on the inner side of every face (within a hair).
    fn inside(s: &Shape, q: [f64; 3]) -> bool {
        let p: Vec<DVec3> = s.0.iter().map(|&x| DVec3::from_array(x)).collect();
        let q = DVec3::from_array(q);
        s.1.iter().all(|t| {
            let [a, b, c] = t.map(|i| p[i as usize]);
            (b - a).cross(c - a).normalize().dot(q - a) <= 1e-6
        })
    }

    #[test]
    fn clouds_of_every_shape_give_closed_outward_boxes_around_every_point_along_their_axes() {
        let mut rng = crate::synth::rng::Rng::new(3);
        let mut r = || rng.range(-1000, 1000) as f64 / 10.0;
        let ball: Vec<[f64; 3]> = (0..500).map(|_| [r(), r(), r()]).collect();
        let flat: Vec<[f64; 3]> = (0..50).map(|_| [r(), 2.0, r()]).collect();
        let line: Vec<[f64; 3]> = (0..50).map(|k| [k as f64, 2.0 * k as f64, 0.5]).collect();
        let cube: Vec<[f64; 3]> = (0..27)
            .map(|k| [(k % 3) as f64, (k / 3 % 3) as f64, (k / 9) as f64])
            .collect();
        // A flat tube along a diagonal (6 by 2 across): its box lies along it.
        let (u, w) = (
            DVec3::new(1.0, -1.0, 0.0).normalize(),
            DVec3::new(1.0, 1.0, -2.0).normalize(),
        );
        let tube: Vec<[f64; 3]> = (0..20)
            .map(|k| {
                let along = DVec3::ONE.normalize() * (k / 4) as f64 * 10.0;
                let across = [u * 3.0, w, -u * 3.0, -w][k % 4];
                (along + across).to_array()
            })
            .collect();
        for (name, cloud, volume) in [
            ("ball", ball, None),
            ("flat", flat, None),
            ("line", line, None),
            ("point", vec![[1.0, 2.0, 3.0]; 3], Some(0.125)),
            ("cube", cube, Some(8.0)),
            ("tube", tube, Some(40.0 * 6.0 * 2.0)),
        ] {
            let s = box_hull(&cloud, 0.5).unwrap();
            assert_eq!(s.0.len(), 8, "{name}");
            for q in &cloud {
                assert!(inside(&s, *q), "{name}: {q:?} outside");
            }
            assert!(closed_manifold(s.0.len(), &s.1), "{name}");
            assert_eq!(s.1.len() + 4, 2 * s.0.len(), "{name}");
            assert!(outward(&s), "{name}");
            if let Some(want) = volume {
                let c: Vec<DVec3> = s.0.iter().map(|&x| DVec3::from_array(x)).collect();
                let got = (c[1] - c[0]).length() * (c[2] - c[0]).length() * (c[4] - c[0]).length();
                assert!(
                    (got - want).abs() < 1e-6 * want,
                    "{name}: volume {got}, not {want}"
                );
            }
        }
        assert_eq!(box_hull(&[], 1.0), None);
    }
}
