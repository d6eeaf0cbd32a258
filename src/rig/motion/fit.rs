//! Whether a motion fits a model: what a motion tells about the skeleton it was made for,
//! compared with the model's.
//!
//! A motion stores absolute local values, so its translation tracks hold the offsets of the
//! skeleton it was made for. Bones do not stretch in these games: a joint with a parent keeps
//! its rest offset's length in every motion made for that skeleton (the census of 409 real
//! player motions has translation tracks on the root only, root motion; a motion that moves
//! another joint moves it along its bone). The root's translation is where the character stands
//! (root motion): it travels freely over the floor, so only its height (its component along
//! the model's up axis) says something about the character's size; a root at floor level in
//! the model (its rest height within the floor below) says nothing.
//!
//! The test, per joint with translation tracks: at every key frame of those tracks (axes
//! without a track at rest), the length of the translation (the root: its height), and the
//! median of those values (a jump or one odd key does not decide it) against the rest value. The joint does not fit when the two differ by more than
//! [`FIT_FLOOR`] of the skeleton's longest rest offset (so that quantisation and the few
//! millimetres of a short bone do not count) and the larger is more than [`FIT_RATIO`] times
//! the smaller: a motion made for the model keeps its bone lengths to a fraction of a percent
//! (its tracks are quantised to 1/65535 of their range), while another character of the same
//! node count (a boss, a child, another rig) differs by half again or more in the bones it
//! moves. Proportions closer than that are not evidence of another character.

use serde::Serialize;

use super::{Motion, RestChannels};
use crate::rig::Skeleton;

/// The larger of a joint's rest and motion measure over the smaller beyond which the motion
/// does not fit that joint.
pub const FIT_RATIO: f64 = 1.5;

/// The smallest difference that counts, as a fraction of the skeleton's longest rest offset.
pub const FIT_FLOOR: f64 = 0.02;

/// A joint whose translation in a motion does not fit the model's rest offset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JointMisfit {
    /// Joint (native index).
    pub joint: usize,
    /// Whether it is a root (its measure is its height, along the model's up axis).
    pub root: bool,
    /// The model's measure: the rest offset's length, a root's rest height (native units).
    pub rest: f64,
    /// The motion's measure: the median over its key frames (native units).
    pub motion: f64,
}

impl JointMisfit {
    /// The motion's measure over the model's (`inf` for a rest length of 0).
    pub fn ratio(&self) -> f64 {
        self.motion / self.rest
    }
}

/// Every joint of `skeleton` (with `rest` its channels' rest values, `up` the model's up axis
/// in native space, unit length) that `m`'s translation tracks show to belong to another
/// skeleton (see the module doc), in joint order.
pub fn misfits(
    m: &Motion,
    skeleton: &Skeleton,
    rest: &[RestChannels],
    up: glam::DVec3,
) -> Vec<JointMisfit> {
    let offset = |r: &RestChannels| glam::DVec3::new(r[0], r[1], r[2]);
    let longest = rest
        .iter()
        .map(|r| offset(r).length())
        .filter(|l| l.is_finite())
        .fold(0.0, f64::max);
    let floor = FIT_FLOOR * longest;
    let mut out = Vec::new();
    for (j, curves) in m.by_joint().iter().enumerate() {
        let translation = [curves[0], curves[1], curves[2]];
        let (Some(r), Some(joint)) = (rest.get(j), skeleton.joints.get(j)) else {
            continue;
        };
        if translation.iter().all(Option::is_none) {
            continue;
        }
        let at_rest = offset(r);
        let root = joint.parent.is_none();
        let measure = |t: glam::DVec3| if root { t.dot(up) } else { t.length() };
        let want = measure(at_rest);
        if root && want.abs() <= floor {
            continue;
        }
        let mut frames: Vec<f64> = translation
            .iter()
            .flatten()
            .flat_map(|c| c.keys.iter().map(|k| k.frame))
            .filter(|f| f.is_finite())
            .collect();
        frames.sort_by(f64::total_cmp);
        frames.dedup();
        let mut measures: Vec<f64> = frames
            .iter()
            .map(|&f| {
                let mut t = at_rest.to_array();
                for (v, c) in t.iter_mut().zip(translation) {
                    if let Some(x) = c.and_then(|c| c.value(f)) {
                        *v = x;
                    }
                }
                measure(glam::DVec3::from_array(t))
            })
            .filter(|x| x.is_finite())
            .collect();
        measures.sort_by(f64::total_cmp);
        let Some(&median) = measures.get(measures.len() / 2) else {
            continue;
        };
        let (small, large) = (median.abs().min(want.abs()), median.abs().max(want.abs()));
        if (median - want).abs() > floor && large > FIT_RATIO * small {
            out.push(JointMisfit {
                joint: j,
                root,
                rest: want,
                motion: median,
            });
        }
    }
    out
}
