//! The conversion from a format's native frame and units to glTF's (+Y up, metres), baked into
//! joint transforms and vertices rather than carried by a node: Blender turns a converting node
//! above the joints into spurious joint scales (measured with Blender 4.5).

use glam::{DQuat, DVec3, EulerRot};
use serde::Serialize;
use serde_json::{json, Value};

use super::Rig;

/// The axis change part of a [`Space`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SpaceRotation {
    /// The native frame is already +Y up (DMC3).
    #[default]
    None,
    /// A 180° rotation about X: PlayStation Y-down to glTF Y-up, without mirroring.
    X180,
}

impl SpaceRotation {
    /// The name recorded in `scene.extras.rigtrip.space.rotation`.
    pub fn name(self) -> &'static str {
        match self {
            SpaceRotation::None => "none",
            SpaceRotation::X180 => "x180",
        }
    }
}

/// Native -> glTF: `p' = scale · R · p`, rotations conjugated by `R`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Space {
    /// Metres per native unit.
    pub scale: f64,
    /// The axis change `R`.
    pub rotation: SpaceRotation,
}

impl Space {
    /// The default of the rig's format ([`super::format::RigFormat::default_space`]).
    pub fn default_for(rig: &Rig) -> Space {
        rig.source.format().default_space()
    }

    /// `R · v`: a direction (normals, and the linear part of everything else).
    pub fn direction(&self, v: DVec3) -> DVec3 {
        match self.rotation {
            SpaceRotation::None => v,
            SpaceRotation::X180 => DVec3::new(v.x, -v.y, -v.z),
        }
    }

    /// `scale · R · p`: a position or a local translation.
    pub fn point(&self, p: DVec3) -> DVec3 {
        self.direction(p) * self.scale
    }

    /// `R · q · R⁻¹`: a rotation expressed in the new frame.
    pub fn rotation(&self, q: DQuat) -> DQuat {
        match self.rotation {
            SpaceRotation::None => q,
            // The rotation axis turns with the frame; the angle stays.
            SpaceRotation::X180 => DQuat::from_xyzw(q.x, -q.y, -q.z, q.w),
        }
    }

    /// A native point as the user sees it in Blender: metres, Blender's Z-up axes (glTF's
    /// (x, y, z) is Blender's (x, -z, y)), for messages.
    pub fn shown(&self, p: DVec3) -> String {
        let g = self.point(p);
        format!("({:.4}, {:.4}, {:.4}) m", g.x, -g.z + 0.0, g.y)
    }

    /// The inverse of [`Space::point`].
    pub fn invert_point(&self, p: DVec3) -> DVec3 {
        // R is its own inverse for both cases.
        self.direction(p / self.scale)
    }

    /// The inverse of [`Space::rotation`].
    pub fn invert_rotation(&self, q: DQuat) -> DQuat {
        self.rotation(q)
    }

    /// The value of `scene.extras.rigtrip.space`.
    pub fn to_json(&self) -> Value {
        json!({"scale": self.scale, "rotation": self.rotation.name()})
    }
}

/// (rx, ry, rz) with R = Rz·Ry·Rx for a unit quaternion: glam's intrinsic ZYX sequence,
/// whose angles come out as (z, y, x).
pub fn euler_xyz(q: DQuat) -> [f64; 3] {
    let (z, y, x) = q.to_euler(EulerRot::ZYX);
    [x, y, z]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x180_flips_y_and_z_and_keeps_handedness() {
        let s = Space {
            scale: 0.001,
            rotation: SpaceRotation::X180,
        };
        assert_eq!(
            s.point(DVec3::new(1000.0, -400.0, 250.0)),
            DVec3::new(1.0, 0.4, -0.25)
        );
        assert_eq!(
            s.invert_point(DVec3::new(1.0, 0.4, -0.25)),
            DVec3::new(1000.0, -400.0, 250.0)
        );
        // Conjugation: rotating then converting equals converting then rotating.
        let q = DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0);
        let v = DVec3::new(3.0, -7.0, 11.0);
        let a = s.direction(q * v);
        let b = s.rotation(q) * s.direction(v);
        assert!(a.abs_diff_eq(b, 1e-12), "{a} {b}");
        assert_eq!(s.invert_rotation(s.rotation(q)), q);
        assert_eq!(
            s.to_json(),
            serde_json::json!({"scale": 0.001, "rotation": "x180"})
        );
    }

    #[test]
    fn none_only_scales() {
        let s = Space {
            scale: 0.01,
            rotation: SpaceRotation::None,
        };
        assert_eq!(
            s.point(DVec3::new(100.0, 200.0, -300.0)),
            DVec3::new(1.0, 2.0, -3.0)
        );
        let q = DQuat::from_rotation_y(0.5);
        assert_eq!(s.rotation(q), q);
        assert_eq!(
            s.to_json(),
            serde_json::json!({"scale": 0.01, "rotation": "none"})
        );
    }
}

/// Why a joint's transform cannot be written as glTF (32-bit floats, a unit rotation).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TransformProblem {
    /// The translation (glTF space, metres) overflows f32.
    #[error("translation {} does not fit a 32-bit float", crate::units::lengths(.0))]
    Translation([f64; 3]),
    /// The rotation (IR, x y z w) is zero or not finite once in glTF space.
    #[error(
        "rotation {} has length {}, it is no rotation",
        crate::units::values(.rotation),
        crate::units::value(*.length)
    )]
    Rotation {
        /// The IR rotation, x y z w.
        rotation: [f64; 4],
        /// Its length in glTF space.
        length: f64,
    },
    /// The joint's rest world matrix or its inverse overflows f32.
    #[error("its rest world transform is not finite in 32-bit floats")]
    RestWorld,
}
