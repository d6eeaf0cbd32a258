//! What the game makes of a motion's curves, and which reading of the format the curves were
//! lifted with.
//!
//! The game does not build a pose from the exact curve values (docs/formats.md, motions, EXE):
//! an animated rotation angle goes through a signed 16-bit angle first (up to 0.0055° away),
//! and an animated scale is applied only when one of its factors leaves (0.99999, 1.00001).
//! [`Reading::played`] applies both, so that what rigtrip shows is what the game shows.
//!
//! Before rigtrip followed the executable it read motions the way the public importers do:
//! each mask triple's axes the other way round, key times without the track's time offset, one
//! interpolation per compression, curves played exactly. A glTF written then carries no reading
//! in its motion records; its motions are lifted, compared and written back that way
//! ([`Reading::Community`]), so that it imports exactly as it did.

use serde::Serialize;

use super::Property;

/// Which reading of the motion format a motion's curves follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Reading {
    /// The executable's (EXE): mask bits per its table, key frames plus the track's time offset,
    /// compression 3's interpolation per segment by the left key's bit 15, the pose built from
    /// rounded rotations and windowed scales.
    #[default]
    Exe,
    /// The public importers' (COMMUNITY), which rigtrip followed before: mask bit 8 down to 0 as
    /// translation X ... scale Z, key frames as their time words hold them (the offset kept
    /// but not played), one interpolation per compression, curves played exactly.
    Community,
}

/// Radians to the game's 16-bit angle units (65536 per turn), as the executable's f32 constant.
const TO_ANGLE16: f32 = 10430.377;
/// The game's 16-bit angle units back to radians, as the executable's f32 constant.
const FROM_ANGLE16: f32 = 9.587381e-5;
/// The open window of scale factors the game does not apply (EXE).
const SCALE_WINDOW: (f64, f64) = (0.99999, 1.00001);

impl Reading {
    /// The name a glTF's motion record carries (`reading`).
    pub fn name(self) -> &'static str {
        match self {
            Reading::Exe => "exe",
            Reading::Community => "community",
        }
    }

    /// The reading named `name` (as [`Reading::name`] writes it).
    pub fn from_name(name: &str) -> Option<Reading> {
        [Reading::Exe, Reading::Community]
            .into_iter()
            .find(|r| r.name() == name)
    }

    /// The values the game builds the pose from, for the three channels `v` of one property
    /// of which those flagged `animated` come from a track (the others are rest values).
    pub fn played(self, property: Property, v: [f64; 3], animated: [bool; 3]) -> [f64; 3] {
        if self == Reading::Community {
            return v;
        }
        match property {
            Property::Translation => v,
            Property::Rotation => {
                let mut out = v;
                for (x, a) in out.iter_mut().zip(animated) {
                    if a {
                        *x = game_angle(*x);
                    }
                }
                out
            }
            Property::Scale if animated.contains(&true) => game_scale(v),
            Property::Scale => v,
        }
    }
}

/// An animated rotation angle as the game uses it: `truncate(r · 10430.377)` kept as a signed
/// 16-bit angle, times 9.587381e−5 (EXE), in f32 like the executable. An angle whose product
/// leaves the 32-bit range (far past any motion's) truncates to the integer indefinite, whose
/// low 16 bits are 0.
pub fn game_angle(r: f64) -> f64 {
    let x = (r as f32) * TO_ANGLE16;
    let whole = if x.is_finite() && x.abs() < 2_147_483_648.0 {
        x as i32
    } else {
        i32::MIN
    };
    f64::from(f32::from(whole as i16) * FROM_ANGLE16)
}

/// Scale factors as the game applies them: none (all 1) while every factor lies inside
/// (0.99999, 1.00001), all three as they are once one leaves it (EXE).
pub fn game_scale(s: [f64; 3]) -> [f64; 3] {
    let inside = |x: f64| x > SCALE_WINDOW.0 && x < SCALE_WINDOW.1;
    if s.iter().all(|&x| inside(x)) {
        [1.0; 3]
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_go_through_sixteen_bits_and_wrap_a_turn() {
        // 0.5 rad: 5215.1885 units, truncated to 5215.
        assert_eq!(game_angle(0.5), f64::from(5215.0f32 * FROM_ANGLE16));
        // Truncation goes towards zero on both sides.
        assert_eq!(game_angle(-0.5), -game_angle(0.5));
        // Under one unit is no turn at all.
        assert_eq!(game_angle(9.0e-5), 0.0);
        // Past half a turn the angle wraps to the other side (the same rotation).
        let wrapped = game_angle(4.0);
        assert!(
            (wrapped - (4.0 - std::f64::consts::TAU)).abs() < 1e-4,
            "{wrapped}"
        );
        // The difference from the exact angle is under one unit (0.0055°).
        for k in -2000..2000 {
            let r = f64::from(k) * 1.5e-3;
            assert!((game_angle(r) - r).abs() < 9.6e-5, "{r}");
        }
        assert_eq!(game_angle(f64::NAN), 0.0);
    }

    #[test]
    fn scales_near_one_are_not_applied() {
        assert_eq!(game_scale([1.000_005, 0.999_995, 1.0]), [1.0; 3]);
        assert_eq!(game_scale([1.000_02, 1.0, 1.0]), [1.000_02, 1.0, 1.0]);
        let v = [1.000_005, 1.0, 0.5];
        assert_eq!(game_scale(v), v);
    }

    #[test]
    fn the_old_reading_plays_the_curves_exactly() {
        let v = [0.5, 1.000_001, 3.0];
        for p in [Property::Translation, Property::Rotation, Property::Scale] {
            assert_eq!(Reading::Community.played(p, v, [true; 3]), v);
        }
        let r = Reading::Exe.played(Property::Rotation, v, [true, false, true]);
        assert_eq!(r, [game_angle(0.5), 1.000_001, game_angle(3.0)]);
        assert_eq!(Reading::from_name("exe"), Some(Reading::Exe));
        assert_eq!(Reading::from_name("community"), Some(Reading::Community));
        assert_eq!(Reading::from_name("other"), None);
    }
}
