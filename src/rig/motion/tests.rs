//! The IR motion's curves, poses and samples against hand-worked values.

use super::*;

fn key(frame: f64, value: f64, tin: f64, tout: f64) -> Key {
    Key {
        frame,
        value,
        tangent_in: tin,
        tangent_out: tout,
        interpolation: Interpolation::Hermite,
    }
}

fn hermite(keys: Vec<Key>) -> Curve {
    Curve { keys }
}

fn linear(keys: Vec<Key>) -> Curve {
    let mut c = Curve { keys };
    c.set_interpolation(Interpolation::Linear);
    c
}

#[test]
fn thinning_a_linear_curve_keeps_it_within_eps_at_every_frame() {
    // A wave sampled at every frame: straight stretches, bends, a long flat run.
    let value = |f: f64| {
        if f < 100.0 {
            (f / 9.0).sin()
        } else if f < 300.0 {
            0.25
        } else {
            f / 400.0
        }
    };
    let keys: Vec<Key> = (0..400)
        .map(|f| key(f64::from(f), value(f64::from(f)), 0.0, 0.0))
        .collect();
    let full = linear(keys);
    let mut thin = full.clone();
    thin.thin_linear(1e-3);
    assert!(
        thin.keys.len() < full.keys.len() / 2,
        "{} keys",
        thin.keys.len()
    );
    assert_eq!(thin.keys.first(), full.keys.first());
    assert_eq!(thin.keys.last(), full.keys.last());
    // No run of dropped keys longer than the bound.
    for w in thin.keys.windows(2) {
        assert!(w[1].frame - w[0].frame <= THIN_RUN as f64, "{:?}", w);
    }
    // At every quarter frame, the two play within eps (interpolated here by hand).
    let play = |ks: &[Key], f: f64| {
        let b = ks.iter().position(|k| k.frame >= f).unwrap();
        if b == 0 {
            return ks[0].value;
        }
        let (a, b) = (ks[b - 1], ks[b]);
        a.value + (b.value - a.value) * (f - a.frame) / (b.frame - a.frame)
    };
    for q in 0..(399 * 4) {
        let f = f64::from(q) / 4.0;
        let d = (play(&thin.keys, f) - play(&full.keys, f)).abs();
        assert!(d <= 1e-3 + 1e-12, "frame {f}: {d}");
    }
    // Hermite curves and short ones are left alone.
    let mut h = full.clone();
    h.set_interpolation(Interpolation::Hermite);
    h.thin_linear(1.0);
    assert_eq!(h.keys.len(), 400);
}

#[test]
fn hermite_hits_keys_holds_ends_and_follows_the_bases() {
    let c = hermite(vec![key(10.0, 1.0, 0.0, 0.5), key(20.0, 3.0, -0.25, 0.0)]);
    assert_eq!(c.value(0.0), Some(1.0));
    assert_eq!(c.value(10.0), Some(1.0));
    assert_eq!(c.value(20.0), Some(3.0));
    assert_eq!(c.value(99.0), Some(3.0));
    // u = 0.5: h00 = h01 = 0.5, h10 = 0.125, h11 = -0.125, Δ = 10.
    let want = 0.5 * 1.0 + 0.125 * 10.0 * 0.5 + 0.5 * 3.0 - 0.125 * 10.0 * -0.25;
    assert_eq!(c.value(15.0), Some(want));
    // Slopes at the keys are the tangents; held ends are flat.
    assert_eq!(c.point(10.0, true).unwrap().slope, 0.5);
    assert_eq!(c.point(20.0, false).unwrap().slope, -0.25);
    assert_eq!(c.point(20.0, true).unwrap().slope, 0.0);
    assert_eq!(c.point(10.0, false).unwrap().slope, 0.0);
    assert_eq!(Curve { keys: vec![] }.value(3.0), None);
}

#[test]
fn each_segment_plays_by_its_left_key() {
    // Linear from frame 0 to 10, Hermite from 10 to 20 (flat tangents), linear from 20 to 30.
    let mut c = linear(vec![
        key(0.0, 0.0, 5.0, 5.0),
        key(10.0, 1.0, 5.0, 0.0),
        key(20.0, 3.0, 0.0, 5.0),
        key(30.0, 2.0, 5.0, 5.0),
    ]);
    c.keys[1].interpolation = Interpolation::Hermite;
    assert!(!c.is_linear() && !c.is_hermite());
    assert_eq!(c.value(5.0), Some(0.5));
    // u = 0.25 with flat tangents: h01 = 0.15625.
    assert_eq!(c.value(12.5), Some(1.0 + 2.0 * 0.15625));
    assert_eq!(c.value(25.0), Some(2.5));
    // The last key's interpolation plays no segment.
    c.keys[3].interpolation = Interpolation::Hermite;
    assert_eq!(c.value(25.0), Some(2.5));
    // Thinning leaves a curve with a Hermite segment alone.
    let before = c.clone();
    c.thin_linear(10.0);
    assert_eq!(c, before);
}

#[test]
fn linear_is_straight_and_has_two_slopes_at_a_key() {
    let c = linear(vec![
        key(0.0, 0.0, 9.0, 9.0),
        key(4.0, 2.0, 9.0, 9.0),
        key(6.0, 0.0, 0.0, 0.0),
    ]);
    assert_eq!(c.value(1.0), Some(0.5));
    assert_eq!(c.value(5.0), Some(1.0));
    assert_eq!(c.point(4.0, false).unwrap().slope, 0.5);
    assert_eq!(c.point(4.0, true).unwrap().slope, -1.0);
}

#[test]
fn a_motion_poses_a_skeleton_with_rest_values_for_channels_without_tracks() {
    use std::f64::consts::FRAC_PI_2;
    let file = read_file(&crate::synth::motion::sample_mot()).unwrap();
    let mut m = file.motions[0].motion.clone().unwrap();
    // The exact curve first (the old reading); the game's rounding below.
    m.reading = Reading::Community;
    // Two joints: joint 1 stands 10 units along X from joint 0.
    let sk = super::super::plain_skeleton(&[(None, [0.0; 3]), (Some(0), [10.0, 0.0, 0.0])]);
    m.joints = 2;
    m.tracks = vec![Track {
        joint: 0,
        channel: Channel::from_index(5).unwrap(),
        curve: linear(vec![
            key(0.0, 0.0, 0.0, 0.0),
            key(10.0, FRAC_PI_2, 0.0, 0.0),
        ]),
        native: None,
    }];
    let rest = vec![
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0],
        [10.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0],
    ];
    let at = |f: f64| m.world_at(&sk, &rest, f).unwrap()[1].w_axis.truncate();
    assert!(at(0.0).abs_diff_eq(DVec3::new(10.0, 0.0, 0.0), 1e-12));
    // Frame 10 and after: joint 0 turned a quarter about Z, joint 1 on +Y.
    assert!(at(10.0).abs_diff_eq(DVec3::new(0.0, 10.0, 0.0), 1e-12));
    assert!(at(50.0).abs_diff_eq(DVec3::new(0.0, 10.0, 0.0), 1e-12));
    let (s, c) = (FRAC_PI_2 / 2.0).sin_cos();
    assert!(at(5.0).abs_diff_eq(DVec3::new(10.0 * c, 10.0 * s, 0.0), 1e-12));
    // As the game plays it: the angle through 16 bits; π/4 is 8191.999 units in f32, truncated.
    m.reading = Reading::Exe;
    let game = m.world_at(&sk, &rest, 5.0).unwrap()[1].w_axis.truncate();
    let (s, c) = f64::from(8191.0f32 * 9.587381e-5f32).sin_cos();
    assert!(game.abs_diff_eq(DVec3::new(10.0 * c, 10.0 * s, 0.0), 1e-12));
}

#[test]
fn euler_near_picks_the_triple_and_turns_closest_to_the_reference() {
    for reference in [[0.3, -1.2, 2.9], [7.0, 0.2, -9.0], [2.9, 2.0, -3.0]] {
        let q = euler_rotation(reference);
        let got = euler_near(q, reference);
        for a in 0..3 {
            assert!(
                (got[a] - reference[a]).abs() < 1e-9,
                "{got:?} {reference:?}"
            );
        }
    }
}

#[test]
fn rotation_samples_skip_still_stretches_and_keep_signs_close() {
    let x = hermite(vec![
        key(0.0, 0.0, 0.0, 0.0),
        key(10.0, 0.0, 0.0, 0.0),
        key(14.0, 6.0, 0.0, 0.0),
    ]);
    let s = rotation_samples(
        [Some(&x), None, None],
        [0.0, 0.5, 0.0],
        20.0,
        Reading::Community,
    );
    let frames: Vec<f64> = s.iter().map(|(f, _)| *f).collect();
    assert_eq!(frames, vec![0.0, 10.0, 11.0, 12.0, 13.0, 14.0, 20.0]);
    for w in s.windows(2) {
        assert!(w[0].1.dot(w[1].1) >= 0.0);
    }
    let want = euler_rotation([6.0, 0.5, 0.0]);
    assert!(s[6].1.dot(want).abs() > 1.0 - 1e-12);
}
