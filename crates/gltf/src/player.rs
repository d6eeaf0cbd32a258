//! The one glTF sampler player: the value a loader plays at time `t` from a sampler's keyframe
//! times and output values (STEP, LINEAR, CUBICSPLINE), clamped to the first and last keys.
//!
//! Rotations under LINEAR are blended one of two ways ([`Blend`]): `Slerp` as the glTF
//! specification asks (gait's preview), or `Nlerp`, the normalised component-wise blend Blender
//! plays from its quaternion fcurves (import compares a motion with what Blender played).

use glam::DQuat;

/// A sampler's interpolation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpolation {
    /// Each key held until the next.
    Step,
    /// Linear between keys (rotations: see [`Blend`]).
    Linear,
    /// Cubic Hermite: each key is an (in-tangent, value, out-tangent) triplet.
    CubicSpline,
}

impl Interpolation {
    /// The sampler's `interpolation` (LINEAR when absent); `None` for an unknown one.
    pub fn parse(s: Option<&str>) -> Option<Self> {
        match s {
            None | Some("LINEAR") => Some(Interpolation::Linear),
            Some("STEP") => Some(Interpolation::Step),
            Some("CUBICSPLINE") => Some(Interpolation::CubicSpline),
            Some(_) => None,
        }
    }

    /// Output elements per key (three for a cubic-spline triplet).
    pub fn per_key(self) -> usize {
        if self == Interpolation::CubicSpline {
            3
        } else {
            1
        }
    }
}

/// How values between two LINEAR keys are blended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blend {
    /// Component-wise (translation, scale, weights).
    Lerp,
    /// Spherical, as the glTF specification asks for rotations; any played rotation is
    /// normalised (a zero or non-finite one becomes the identity).
    Slerp,
    /// Normalised component-wise blend, as Blender plays quaternion fcurves. The first key
    /// already counts as the start of a blend (played normalised); values held before the first
    /// and after the last key are the keys as written.
    Nlerp,
}

/// A sampler's keyframes: strictly increasing `times` and the flattened output `values`,
/// `width` components per element, [`Interpolation::per_key`] elements per key.
#[derive(Debug, Clone, Copy)]
pub struct Keys<'a> {
    /// Keyframe times.
    pub times: &'a [f64],
    /// Output values, element after element.
    pub values: &'a [f64],
    /// Components per element.
    pub width: usize,
    /// Interpolation.
    pub interpolation: Interpolation,
}

impl Keys<'_> {
    /// Element `part` of key `k` (0 in-tangent, 1 value, 2 out-tangent of a cubic-spline
    /// triplet; the key itself otherwise); empty when out of range.
    pub fn element(&self, k: usize, part: usize) -> &[f64] {
        let e = if self.interpolation == Interpolation::CubicSpline {
            k.saturating_mul(3).saturating_add(part)
        } else {
            k
        };
        let start = e.saturating_mul(self.width);
        self.values
            .get(start..start.saturating_add(self.width))
            .unwrap_or(&[])
    }

    /// Key `k`'s value (the value element of a cubic-spline triplet).
    pub fn key(&self, k: usize) -> &[f64] {
        self.element(k, 1)
    }

    /// The value played at time `t`; `None` without keys, or for a rotation (`Slerp`) that
    /// is not four components.
    pub fn play(&self, t: f64, blend: Blend) -> Option<Vec<f64>> {
        let last = self.times.len().checked_sub(1)?;
        let (first_t, last_t) = (*self.times.first()?, *self.times.last()?);
        let before = match blend {
            Blend::Nlerp => t < first_t,
            Blend::Lerp | Blend::Slerp => t <= first_t,
        };
        let mut out = if before {
            self.key(0).to_vec()
        } else if t >= last_t {
            self.key(last).to_vec()
        } else {
            let i = self.times.partition_point(|&x| x <= t).saturating_sub(1);
            let (ta, tb) = (*self.times.get(i)?, *self.times.get(i + 1)?);
            let dt = tb - ta;
            let s = if dt > 0.0 { (t - ta) / dt } else { 0.0 };
            match self.interpolation {
                Interpolation::Step => self.key(i).to_vec(),
                Interpolation::Linear => {
                    let (a, b) = (self.key(i), self.key(i + 1));
                    match blend {
                        Blend::Lerp => lerp(a, b, s),
                        Blend::Slerp => slerp(a, b, s),
                        Blend::Nlerp => return Some(nlerp(a, b, s)),
                    }
                }
                Interpolation::CubicSpline => {
                    let p0 = self.element(i, 1);
                    let m0 = self.element(i, 2);
                    let p1 = self.element(i + 1, 1);
                    let m1 = self.element(i + 1, 0);
                    let (s2, s3) = (s * s, s * s * s);
                    let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
                    let h10 = s3 - 2.0 * s2 + s;
                    let h01 = -2.0 * s3 + 3.0 * s2;
                    let h11 = s3 - s2;
                    (0..p0.len())
                        .map(|k| {
                            let g = |v: &[f64]| v.get(k).copied().unwrap_or(0.0);
                            h00 * g(p0) + h10 * dt * g(m0) + h01 * g(p1) + h11 * dt * g(m1)
                        })
                        .collect()
                }
            }
        };
        if blend == Blend::Slerp {
            if out.len() != 4 {
                return None;
            }
            normalise(&mut out);
        }
        Some(out)
    }
}

fn lerp(a: &[f64], b: &[f64], s: f64) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x + (y - x) * s).collect()
}

fn quat(v: &[f64]) -> DQuat {
    match v {
        [x, y, z, w] => DQuat::from_xyzw(*x, *y, *z, *w),
        _ => DQuat::IDENTITY,
    }
}

fn slerp(a: &[f64], b: &[f64], s: f64) -> Vec<f64> {
    let (qa, qb) = (quat(a), quat(b));
    let (na, nb) = (qa.length(), qb.length());
    if !(na > 0.0 && nb > 0.0 && na.is_finite() && nb.is_finite()) {
        return qa.to_array().to_vec();
    }
    qa.normalize().slerp(qb.normalize(), s).to_array().to_vec()
}

fn nlerp(a: &[f64], b: &[f64], s: f64) -> Vec<f64> {
    (quat(a) * (1.0 - s) + quat(b) * s)
        .normalize()
        .to_array()
        .to_vec()
}

/// Scales `q` to unit length; a zero or non-finite one becomes the identity.
fn normalise(q: &mut [f64]) {
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    if n > 0.0 && n.is_finite() {
        q.iter_mut().for_each(|x| *x /= n);
    } else {
        q.copy_from_slice(&[0.0, 0.0, 0.0, 1.0][..q.len().min(4)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_linear_and_cubic_as_the_specification_plays_them() {
        let times = [1.0, 2.0, 4.0];
        let lin = Keys {
            times: &times,
            values: &[0.0, 10.0, 30.0],
            width: 1,
            interpolation: Interpolation::Linear,
        };
        assert_eq!(lin.play(0.0, Blend::Lerp), Some(vec![0.0]));
        assert_eq!(lin.play(1.5, Blend::Lerp), Some(vec![5.0]));
        assert_eq!(lin.play(3.0, Blend::Lerp), Some(vec![20.0]));
        assert_eq!(lin.play(9.0, Blend::Lerp), Some(vec![30.0]));
        let step = Keys {
            interpolation: Interpolation::Step,
            ..lin
        };
        assert_eq!(step.play(3.9, Blend::Lerp), Some(vec![10.0]));
        // Cubic: (in, value, out) per key; tangents scaled by the interval.
        let cubic = Keys {
            times: &[0.0, 2.0],
            values: &[9.0, 0.0, 1.0, 9.0, 4.0, 9.0],
            width: 1,
            interpolation: Interpolation::CubicSpline,
        };
        // s = 0.5: h00 = h01 = 0.5, h10 = 0.125, h11 = -0.125; dt = 2.
        assert_eq!(cubic.play(1.0, Blend::Lerp), Some(vec![0.25 + 2.0 - 2.25]));
        assert_eq!(cubic.key(1), &[4.0]);
        assert!(Keys { times: &[], ..lin }.play(0.0, Blend::Lerp).is_none());
    }

    #[test]
    fn rotations_slerp_or_nlerp() {
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let rot = Keys {
            times: &[0.0, 1.0],
            values: &[0.0, 0.0, 0.0, 1.0, 0.0, h, 0.0, h],
            width: 4,
            interpolation: Interpolation::Linear,
        };
        // Halfway through a quarter turn about y: slerp gives the eighth turn exactly.
        let s = rot.play(0.5, Blend::Slerp).unwrap();
        let want = DQuat::from_rotation_y(std::f64::consts::FRAC_PI_4);
        assert!((quat(&s).dot(want) - 1.0).abs() < 1e-12);
        // Nlerp: the same direction here (symmetric), by another formula.
        let n = rot.play(0.5, Blend::Nlerp).unwrap();
        assert!((quat(&n).dot(want) - 1.0).abs() < 1e-12);
        let q = rot.play(0.25, Blend::Nlerp).unwrap();
        let w = (DQuat::IDENTITY * 0.75 + DQuat::from_xyzw(0.0, h, 0.0, h) * 0.25).normalize();
        assert_eq!(q, w.to_array().to_vec());
        // Held ends: Nlerp plays the keys as written, Slerp normalised.
        let long = Keys {
            values: &[0.0, 0.0, 0.0, 2.0, 0.0, h, 0.0, h],
            ..rot
        };
        assert_eq!(
            long.play(-1.0, Blend::Nlerp),
            Some(vec![0.0, 0.0, 0.0, 2.0])
        );
        assert_eq!(long.play(0.0, Blend::Nlerp), Some(vec![0.0, 0.0, 0.0, 1.0]));
        assert_eq!(long.play(0.0, Blend::Slerp), Some(vec![0.0, 0.0, 0.0, 1.0]));
        let zero = Keys {
            values: &[0.0; 8],
            ..rot
        };
        assert_eq!(zero.play(0.5, Blend::Slerp), Some(vec![0.0, 0.0, 0.0, 1.0]));
        let short = Keys { width: 3, ..rot };
        assert_eq!(short.play(-1.0, Blend::Slerp), None);
        assert_eq!(Interpolation::parse(None), Some(Interpolation::Linear));
        assert_eq!(Interpolation::parse(Some("linear")), None);
    }
}
