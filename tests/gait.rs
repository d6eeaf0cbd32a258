//! `rigtrip gait` on the synthetic mech: the loader's constants against an independent
//! computation from the clip data (read with the gltf crate's own reader), the inventory with a
//! missing mandatory clip and without the limp set, the commit test, handed alternation, the
//! acceptance timeline, and the preview GLB through the Khronos validator.

mod common;
use common::{glb_split, scratch, tmp, validate};

use proptest::prelude::*;
use rigtrip::gait::{
    analyse_slice, parse_axis, parse_demand, preview_glb, Axis, ConstantStatus, GaitError,
    GaitOptions, GaitReport, Hand, Segment, SlotStatus, StrideSource,
};
use rigtrip::synth::mech::sample_mech;
use rigtrip::synth::rng::Rng;
use serde_json::Value;

const DEMAND: &str = "0:0,2:12,6:40,10:0,12:-10";

fn opts(demand: Option<&str>) -> GaitOptions {
    GaitOptions {
        prefix: None,
        forward: Axis::PosZ,
        demand: demand.map(|d| parse_demand(d).unwrap()),
        intended: false,
    }
}

fn analyse(glb: &[u8], demand: Option<&str>) -> GaitReport {
    analyse_slice(glb, None, &opts(demand)).unwrap()
}

// ---- GLB editing with the tests' own little code (tests/common), not the module under test ----

/// The sample with its JSON edited by `f`.
fn edited(f: impl FnOnce(&mut Value)) -> Vec<u8> {
    let (mut json, bin) = glb_split(&sample_mech());
    f(&mut json);
    common::glb(&json, &bin)
}

fn animation_mut<'a>(json: &'a mut Value, name: &str) -> &'a mut Value {
    json["animations"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|a| a["name"] == name)
        .unwrap()
}

// ---- an independent measurement with the gltf crate's reader ----

struct Clip {
    duration: f64,
    stride: f64,
}

/// Duration and +Z root displacement (node 0) of every animation, by name.
fn independent(glb: &[u8]) -> std::collections::BTreeMap<String, Clip> {
    let (doc, buffers, _) = gltf::import_slice(glb).unwrap();
    let mut out = std::collections::BTreeMap::new();
    for anim in doc.animations() {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        let mut z = None;
        for ch in anim.channels() {
            let r = ch.reader(|b| Some(&buffers[b.index()]));
            let times: Vec<f32> = r.read_inputs().unwrap().collect();
            lo = lo.min(f64::from(times[0]));
            hi = hi.max(f64::from(*times.last().unwrap()));
            if ch.target().node().index() == 0 {
                if let Some(gltf::animation::util::ReadOutputs::Translations(t)) = r.read_outputs()
                {
                    let t: Vec<[f32; 3]> = t.collect();
                    z = Some(f64::from(t.last().unwrap()[2]) - f64::from(t[0][2]));
                }
            }
        }
        out.insert(
            anim.name().unwrap().to_string(),
            Clip {
                duration: hi - lo,
                stride: z.unwrap(),
            },
        );
    }
    out
}

fn value(r: &GaitReport, name: &str) -> f64 {
    r.constant(name).unwrap().value.unwrap()
}

#[test]
fn sample_constants_match_an_independent_computation() {
    let glb = sample_mech();
    let c = independent(&glb);
    let s = |code: &str| c[&format!("mch{code}")].stride;
    let d = |code: &str| c[&format!("mch{code}")].duration;
    // The reverse clips are authored backward: their stride is the distance travelled backward.
    let back = |code: &str| -s(code);
    let r = analyse_slice(
        &glb,
        None,
        &GaitOptions {
            intended: true,
            ..opts(None)
        },
    )
    .unwrap();
    assert_eq!(value(&r, "standSpeed"), s("swr"));
    assert_eq!(value(&r, "standSpeed"), 4.0);
    assert_eq!(
        value(&r, "walkStrideLength"),
        (s("wwr") + s("wwl")) / (d("wwr") + d("wwl"))
    );
    assert_eq!(
        value(&r, "reverseStrideLength"),
        (s("rrr") + s("rrl")) / (d("rrr") + d("rrl"))
    );
    // The stale-data formula: bbl's figures plus the run-left figures still in the temporaries,
    // negated at measurement.
    let stale = -((back("bbl") + s("rrl")) / (d("bbl") + d("rrl")));
    let intended = -((back("bbr") + back("bbl")) / (d("bbr") + d("bbl")));
    assert_eq!(value(&r, "gimpStrideLength"), stale);
    let g = r.constant("gimpStrideLength").unwrap();
    assert_eq!(g.intended.as_ref().unwrap().value, Some(intended));
    assert!(g.intended.as_ref().unwrap().differs);
    assert!((stale - -(18.4 / 1.45)).abs() < 1e-5, "{stale}");
    assert!((intended - -5.2).abs() < 1e-5, "{intended}");
    let quirks: Vec<&str> = g.quirks.iter().map(|q| q.code).collect();
    assert_eq!(quirks, vec!["stale-data", "negated", "historical-name"]);
    // Caps come from extras, as authored (the reverse cap negative, not negated again).
    assert_eq!(value(&r, "reverseSpeedMax"), 17.5);
    assert_eq!(value(&r, "gimpSpeedMax"), -4.5);
    assert_eq!(value(&r, "gimpLeftSpeedMax"), 7.5);
    assert_eq!(value(&r, "gimpRightSpeedMax"), 7.0);
    assert_eq!(value(&r, "gimpLeftStrideLength"), s("ggr") / d("ggr"));
    assert_eq!(value(&r, "gimpRightStrideLength"), s("ggl") / d("ggl"));
    // Every other constant's intended value is the shipped one.
    for k in &r.constants {
        let i = k.intended.as_ref().unwrap();
        assert_eq!(i.differs, k.name == "gimpStrideLength", "{}", k.name);
        assert_eq!(k.status, ConstantStatus::Measured, "{}", k.name);
    }
    assert_eq!(r.constants.len(), 10);
    // Per-clip figures.
    let swr = r.slot(5).unwrap().clip.as_ref().unwrap();
    assert_eq!(swr.duration, Some(d("swr")));
    assert_eq!(swr.displacement, Some(s("swr")));
    assert_eq!(swr.stride_source, StrideSource::RootMotion);
    assert_eq!(swr.root_keyframes, Some(17));
    let bbl = r.slot(19).unwrap().clip.as_ref().unwrap();
    assert_eq!(bbl.displacement, Some(s("bbl")));
    assert_eq!(bbl.stride, Some(back("bbl")));
    assert!(bbl.problems.is_empty(), "{:?}", bbl.problems);
}

#[test]
fn sample_inventory_has_every_slot() {
    let r = analyse(&sample_mech(), None);
    assert_eq!(r.prefix, "mch");
    assert_eq!(r.slot_count, 0x21);
    assert_eq!(r.slots.len(), 0x21);
    let filled: Vec<u8> = r
        .slots
        .iter()
        .filter(|s| s.status == SlotStatus::Filled)
        .map(|s| s.slot)
        .collect();
    let mut want: Vec<u8> = (5..=27).collect();
    want.push(0x20);
    assert_eq!(filled, want);
    for s in [0u8, 1, 2, 3, 4, 28, 29, 30, 31] {
        assert_eq!(r.slot(s).unwrap().status, SlotStatus::NotFilled);
    }
    assert!(r.missing.is_empty());
    assert!(r.unmatched.is_empty());
    assert!(r.limp_set.present);
    assert_eq!(r.limp_set.probe, "mchwgl");
    assert_eq!(r.bump.animation.as_deref(), Some("mchbmp"));
    let root = r.root_joint.as_ref().unwrap();
    assert_eq!((root.node, root.name.as_deref()), (0, Some("root")));
    let s22 = r.slot(22).unwrap();
    assert_eq!(
        (s22.code, s22.hand, s22.expected.as_deref()),
        (Some("wgl"), Some(Hand::Left), Some("mchwgl"))
    );
    // The --json form carries the same.
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["slots"].as_array().unwrap().len(), 33);
    assert_eq!(v["slots"][6]["clip"]["name"], "mchwwr");
    assert_eq!(v["forward"], "+z");
    assert_eq!(v["constants"][5]["quirks"][0]["code"], "stale-data");
    let text = r.render_text();
    assert!(
        text.contains("limp set: present (probe 'mchwgl')"),
        "{text}"
    );
    assert!(text.contains("gimpStrideLength"));
}

/// Gait reads defensively and notes what rigtrip's own checker (lint) calls errors, with the
/// count and the first; a clean file gets no such note.
#[test]
fn lint_errors_are_a_note_not_a_stop() {
    let lint_note = |r: &GaitReport| {
        r.notes
            .iter()
            .filter(|n| n.starts_with("rigtrip lint finds"))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(
        lint_note(&analyse(&sample_mech(), None)),
        Vec::<String>::new()
    );
    let glb = edited(|j| {
        let a = animation_mut(j, "mchbmp");
        let samplers = a["samplers"].as_array().unwrap().len();
        a["channels"][0]["sampler"] = samplers.into();
    });
    let samplers = {
        let (j, _) = glb_split(&glb);
        j["animations"]
            .as_array()
            .unwrap()
            .iter()
            .position(|a| a["name"] == "mchbmp")
            .map(|k| (k, j["animations"][k]["samplers"].as_array().unwrap().len()))
            .unwrap()
    };
    let (k, n) = samplers;
    let r = analyse(&glb, None);
    assert_eq!(
        lint_note(&r),
        vec![format!(
            "rigtrip lint finds 1 error(s), first index-invalid: /animations/{k}/channels/0/sampler is {n}, but there are {n} samplers; read defensively anyway"
        )]
    );
}

#[test]
fn a_missing_mandatory_clip_is_reported_and_stops_the_machine() {
    let glb = edited(|j| animation_mut(j, "mchwwl")["name"] = "mchwwl.001".into());
    let r = analyse(&glb, Some(DEMAND));
    assert_eq!(r.slot(7).unwrap().status, SlotStatus::Missing);
    assert_eq!(r.missing.len(), 1);
    assert_eq!(
        (
            r.missing[0].slot,
            r.missing[0].code,
            r.missing[0].name.as_str()
        ),
        (7, "wwl", "mchwwl")
    );
    assert_eq!(r.unmatched.len(), 1);
    assert_eq!(r.unmatched[0].name, "mchwwl.001");
    assert_eq!(
        r.unmatched[0].reason,
        "contains 'mchwwl' inside a longer name"
    );
    let w = r.constant("walkStrideLength").unwrap();
    assert_eq!((w.status, w.value), (ConstantStatus::Missing, None));
    assert!(w.detail.as_ref().unwrap().contains("crash"));
    assert_eq!(
        r.constant("standSpeed").unwrap().status,
        ConstantStatus::Measured
    );
    let sim = r.simulation.as_ref().unwrap();
    assert_eq!(
        sim.refused.as_deref(),
        Some("the game would crash on load: missing mchwwl")
    );
    assert!(sim.timeline.is_empty());
    assert!(preview_glb(&glb, None, &r).is_err());
}

#[test]
fn without_the_limp_set_its_slots_stay_empty() {
    // The probe is wgl: renaming it alone unloads the whole set, though the others exist.
    let glb = edited(|j| animation_mut(j, "mchwgl")["name"] = "old_wgl".into());
    let r = analyse(&glb, Some(DEMAND));
    assert!(!r.limp_set.present);
    for s in 22..=27u8 {
        assert_eq!(r.slot(s).unwrap().status, SlotStatus::NotLoaded, "slot {s}");
        assert!(r.slot(s).unwrap().clip.is_none());
    }
    assert!(r.missing.is_empty());
    let names: Vec<(&str, &str)> = r
        .unmatched
        .iter()
        .map(|u| (u.name.as_str(), u.reason.as_str()))
        .collect();
    let not_loaded = "limp clip not loaded: the probe for 'mchwgl' failed";
    assert_eq!(
        names,
        vec![
            (
                "old_wgl",
                "ends with 'wgl' but has the prefix 'old_', not 'mch'"
            ),
            ("mchwgr", not_loaded),
            ("mchggr", not_loaded),
            ("mchggl", not_loaded),
            ("mchgsl", not_loaded),
            ("mchgsr", not_loaded),
        ]
    );
    for name in [
        "gimpLeftSpeedMax",
        "gimpRightSpeedMax",
        "gimpLeftStrideLength",
        "gimpRightStrideLength",
    ] {
        let c = r.constant(name).unwrap();
        assert_eq!(
            (c.status, c.value),
            (ConstantStatus::NotLoaded, None),
            "{name}"
        );
    }
    // The normal machine still runs.
    let sim = r.simulation.as_ref().unwrap();
    assert_eq!(sim.refused, None);
    assert!(!sim.timeline.is_empty());
}

#[test]
fn a_probed_limp_set_with_a_hole_is_missing() {
    let glb = edited(|j| animation_mut(j, "mchggl")["name"] = "mchggx".into());
    let r = analyse(&glb, None);
    assert!(r.limp_set.present);
    assert_eq!(r.slot(25).unwrap().status, SlotStatus::Missing);
    assert_eq!(r.missing.len(), 1);
    assert_eq!(
        r.unmatched[0].reason,
        "'ggx' is not a code this loader knows"
    );
    assert_eq!(
        r.constant("gimpRightStrideLength").unwrap().status,
        ConstantStatus::Missing
    );
}

#[test]
fn caps_are_never_invented_and_extras_override_strides() {
    let glb = edited(|j| {
        animation_mut(j, "mchwrr")
            .as_object_mut()
            .unwrap()
            .remove("extras");
        animation_mut(j, "mchswr")["extras"] = serde_json::json!({"rigtrip": {"stride": 6.5}});
        animation_mut(j, "mchsbr")["extras"] = serde_json::json!({"rigtrip": {"speedCap": "fast"}});
    });
    let r = analyse(&glb, Some(DEMAND));
    let c = r.constant("reverseSpeedMax").unwrap();
    assert_eq!((c.status, c.value), (ConstantStatus::Unknown, None));
    assert!(c.detail.as_ref().unwrap().contains("not invented"));
    let g = r.constant("gimpSpeedMax").unwrap();
    assert_eq!((g.status, g.value), (ConstantStatus::Unknown, None));
    let sbr = r.slot(16).unwrap().clip.as_ref().unwrap();
    assert_eq!(
        sbr.problems,
        vec!["extras.rigtrip.speedCap is not a finite number (\"fast\"); ignored"]
    );
    assert_eq!(value(&r, "standSpeed"), 6.5);
    let swr = r.slot(5).unwrap().clip.as_ref().unwrap();
    assert_eq!(swr.stride_source, StrideSource::Extras);
    assert_eq!(swr.displacement, Some(4.0));
    // Unknown caps: the walk is uncapped above and the reverse gait is never armed.
    let sim = r.simulation.as_ref().unwrap();
    assert_eq!(sim.refused, None);
    let th = sim.thresholds.as_ref().unwrap();
    assert_eq!((th.reverse_speed_max, th.gimp_speed_max), (None, None));
    assert!(sim.timeline.iter().all(|s| s
        .clip
        .is_none_or(|c| !c.starts_with('b') && !c.starts_with("sb"))));
}

#[test]
fn forward_axis_and_prefix_options() {
    let r = analyse_slice(
        &sample_mech(),
        None,
        &GaitOptions {
            forward: Axis::NegZ,
            ..opts(None)
        },
    )
    .unwrap();
    assert_eq!(value(&r, "standSpeed"), -4.0);
    let p = &r.slot(5).unwrap().clip.as_ref().unwrap().problems;
    assert_eq!(p.len(), 1);
    assert!(p[0].starts_with("stride -4 is negative"), "{p:?}");
    let r = analyse_slice(
        &sample_mech(),
        None,
        &GaitOptions {
            prefix: Some("xyz".into()),
            ..opts(None)
        },
    )
    .unwrap();
    assert_eq!(r.missing.len(), 18);
    assert_eq!(r.unmatched.len(), 24);
    assert!(r.unmatched[0]
        .reason
        .starts_with("ends with 'swr' but has the prefix 'mch'"));
    assert_eq!(parse_axis("+z").unwrap(), Axis::PosZ);
    assert_eq!(parse_axis("-X").unwrap(), Axis::NegX);
    assert_eq!(parse_axis("y").unwrap(), Axis::PosY);
    assert!(parse_axis("w").is_err());
    assert!(parse_axis("+-z").is_err());
    // Two prefixes naming the same number of codes cannot be told apart.
    let glb = edited(|j| {
        let a = j["animations"].as_array_mut().unwrap();
        a.truncate(2);
        a[1]["name"] = "abcwwr".into();
    });
    match analyse_slice(&glb, None, &opts(None)) {
        Err(GaitError::AmbiguousPrefix(c)) => assert_eq!(c, vec!["'abc'", "'mch'"]),
        other => panic!("{other:?}"),
    }
}

// ---- the machine ----

fn clips(t: &[Segment]) -> Vec<&'static str> {
    t.iter().filter_map(|s| s.clip).collect()
}

/// Consecutive clip segments (no standing between) step with alternating feet.
fn assert_alternation(t: &[Segment]) {
    for w in t.windows(2) {
        if let (Some(a), Some(b)) = (w[0].hand, w[1].hand) {
            assert_ne!(
                a,
                b,
                "{} at {:.3} then {} at {:.3} on the same foot",
                w[0].clip.unwrap(),
                w[0].start,
                w[1].clip.unwrap(),
                w[1].start
            );
        }
    }
}

fn assert_contiguous(t: &[Segment]) {
    for w in t.windows(2) {
        assert_eq!(w[0].end, w[1].start);
        assert!(w[0].end >= w[0].start);
    }
}

/// The gait each segment shows (a transition shows the gait it enters).
fn phases(t: &[Segment]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for s in t {
        let p = match s.clip.map(|c| &c[..2]) {
            None | Some("ws") | Some("bs") => "stand",
            Some("sw") | Some("ww") | Some("rw") => "walk",
            Some("wr") | Some("rr") => "run",
            Some("sb") | Some("bb") => "reverse",
            Some(other) => panic!("{other}"),
        };
        if out.last() != Some(&p) {
            out.push(p);
        }
    }
    out
}

#[test]
fn acceptance_timeline_stands_walks_runs_walks_stands_reverses() {
    let r = analyse(&sample_mech(), Some(DEMAND));
    let sim = r.simulation.as_ref().unwrap();
    assert_eq!(sim.refused, None);
    let t = &sim.timeline;
    assert_eq!(
        phases(t),
        vec!["stand", "walk", "run", "walk", "stand", "reverse"]
    );
    assert_alternation(t);
    assert_contiguous(t);
    let c = clips(t);
    // Entries and exits in handed pairs: every transition is followed by the other foot.
    assert_eq!(c[0], "swr");
    assert_eq!(c[1], "wwl");
    let first = |p: &str| c.iter().position(|x| x.starts_with(p)).unwrap();
    assert!(first("wr") < first("rr") && first("rr") < first("rw"));
    assert!(first("rw") < first("ws") && first("ws") < first("sb"));
    assert!(first("sb") < first("bb"));
    assert_eq!(t.last().unwrap().end, 17.0);
    assert!(!t.last().unwrap().completed);
    // The exit from each cycle steps with the foot opposite the cycle's last stride.
    for w in t.windows(2) {
        if let (Some(a), Some(b)) = (w[0].clip, w[1].clip) {
            if ["ws", "wr", "rw", "bs"].iter().any(|p| b.starts_with(p)) {
                assert_ne!(a.as_bytes()[2], b.as_bytes()[2], "{a} -> {b}");
            }
        }
    }
}

#[test]
fn a_slow_walk_is_the_walk_clip_played_slowly_and_reverse_folds_positive() {
    let r = analyse(&sample_mech(), Some(DEMAND));
    let sim = r.simulation.as_ref().unwrap();
    let th = sim.thresholds.as_ref().unwrap();
    let mut seen = (0, 0, 0);
    for s in &sim.timeline {
        match s.clip {
            Some(c) if c.starts_with("ww") => {
                assert_eq!(s.rate, s.cycle / th.walk_stride_length);
                assert!(
                    s.cycle >= th.stand_speed - 20.0 / 60.0 && s.cycle <= 17.5,
                    "{}",
                    s.cycle
                );
                seen.0 += 1;
            }
            Some(c) if c.starts_with("rr") => {
                assert_eq!(s.rate, s.cycle / th.reverse_stride_length);
                seen.1 += 1;
            }
            Some(c) if c.starts_with("bb") => {
                assert!(s.cycle < 0.0);
                assert!(th.gimp_stride_length < 0.0);
                assert_eq!(s.rate, (s.cycle / th.gimp_stride_length).abs());
                assert!(s.rate > 0.0);
                assert!(
                    !s.folded,
                    "cycle and stride are both negative: nothing to fold"
                );
                seen.2 += 1;
            }
            Some(_) => assert_eq!(s.rate, 1.0),
            None => assert_eq!(s.rate, 0.0),
        }
    }
    assert!(seen.0 >= 3 && seen.1 >= 4 && seen.2 >= 1, "{seen:?}");
    // Slow walk: at demand 12 (below walkStrideLength 13) the walk plays below authored rate.
    let slow = sim
        .timeline
        .iter()
        .find(|s| s.clip.is_some_and(|c| c.starts_with("ww")) && s.demand < 12.0)
        .unwrap();
    assert!(slow.mean_rate < 1.0, "{}", slow.mean_rate);
}

#[test]
fn arming_from_standing_falls_through() {
    let r = analyse(&sample_mech(), Some(DEMAND));
    let sim = r.simulation.as_ref().unwrap();
    let th = sim.thresholds.as_ref().unwrap();
    let d = parse_demand(DEMAND).unwrap();
    let swr = &sim.timeline[1];
    assert_eq!(swr.clip, Some("swr"));
    let dt = 1.0 / 60.0;
    let frame = (swr.start / dt).round();
    assert!(
        (swr.start - frame * dt).abs() < 1e-12,
        "armed at a frame start"
    );
    assert!(d.at(swr.start) > th.stand_speed);
    assert!(d.at(swr.start - dt) <= th.stand_speed);
    // It advanced in the frame it was armed: it ends one clip duration later, not a frame more.
    let dur = r.slot(5).unwrap().clip.as_ref().unwrap().duration.unwrap();
    assert!((swr.end - swr.start - dur).abs() < 1e-9);
    assert!(swr.why.contains("falls through"));
}

/// Start of the first walk stride beginning after `after` under a steady demand of 10.
fn stride_end_after(after: f64) -> f64 {
    let r = analyse(&sample_mech(), Some("0:0,1:10,30:10"));
    let t = &r.simulation.as_ref().unwrap().timeline;
    t.iter()
        .find(|s| s.start > after && s.clip.is_some_and(|c| c.starts_with("ww")))
        .unwrap()
        .start
}

fn decision_at(t: &[Segment], time: f64) -> &Segment {
    t.iter()
        .find(|s| (s.start - time).abs() < 0.01 && s.clip.is_some())
        .unwrap_or_else(|| panic!("no clip starts near {time}"))
}

#[test]
fn commit_test_a_flick_does_not_leave_the_cycle_a_sustained_change_does() {
    let t_end = stride_end_after(5.0);
    let at = |x: f64| format!("{:.4}", t_end + x);
    // Flick up: the demand half says run, the slewed cycle does not; the walk goes on.
    let flick = format!(
        "0:0,1:10,{}:10,{}:40,{}:40,{}:10,30:10",
        at(-0.05),
        at(-0.04),
        at(0.04),
        at(0.05)
    );
    let r = analyse(&sample_mech(), Some(&flick));
    let t = &r.simulation.as_ref().unwrap().timeline;
    let s = decision_at(t, t_end);
    assert!(s.clip.unwrap().starts_with("ww"), "{:?}", s.clip);
    assert!(s.demand > 13.0);
    assert!(s.why.contains("committed"), "{}", s.why);
    assert!(!clips(t).iter().any(|c| c.starts_with("wr")));
    // Sustained: the same first decision stays in the walk, but a later one leaves for the run.
    let sustained = format!("0:0,1:10,{}:10,{}:40,30:40", at(-0.05), at(-0.04));
    let r = analyse(&sample_mech(), Some(&sustained));
    let t = &r.simulation.as_ref().unwrap().timeline;
    assert!(decision_at(t, t_end).clip.unwrap().starts_with("ww"));
    let wr = t
        .iter()
        .find(|s| s.clip.is_some_and(|c| c.starts_with("wr")))
        .unwrap();
    assert!(wr.start > t_end);
    assert!(wr.why.contains("and slewed cycle"));
    // Flick down: demand drops below standSpeed for a moment; the walk goes on.
    let dip = format!(
        "0:0,1:10,{}:10,{}:0,{}:0,{}:10,30:10",
        at(-0.05),
        at(-0.04),
        at(0.04),
        at(0.05)
    );
    let r = analyse(&sample_mech(), Some(&dip));
    let t = &r.simulation.as_ref().unwrap().timeline;
    let s = decision_at(t, t_end);
    assert!(s.clip.unwrap().starts_with("ww"));
    assert!(s.demand < 5.0);
    assert!(s.why.contains("committed"), "{}", s.why);
    assert!(!clips(t).iter().any(|c| c.starts_with("ws")));
    // Sustained stop: it leaves through walk -> stand and stands.
    let stop = format!("0:0,1:10,{}:10,{}:0", at(-0.05), at(-0.04));
    let r = analyse(&sample_mech(), Some(&stop));
    let t = &r.simulation.as_ref().unwrap().timeline;
    assert!(clips(t).iter().any(|c| c.starts_with("ws")));
    assert_eq!(t.last().unwrap().clip, None);
    assert_alternation(t);
}

fn random_demand(rng: &mut Rng) -> String {
    let n = rng.range(1, 8) as usize;
    let mut t = 0.0;
    let mut parts = Vec::new();
    for _ in 0..n {
        let v = rng.range(-20, 60) as f64 * (0.5 + rng.unit());
        parts.push(format!("{t:.3}:{v:.3}"));
        t += 0.05 + rng.unit() * 4.0;
    }
    parts.join(",")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// No two consecutive strides step with the same foot, whatever the demand.
    #[test]
    fn handed_alternation_holds_for_any_demand(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let demand = random_demand(&mut rng);
        let r = analyse(&sample_mech_cached(), Some(&demand));
        let sim = r.simulation.as_ref().unwrap();
        prop_assert_eq!(&sim.refused, &None);
        assert_alternation(&sim.timeline);
        assert_contiguous(&sim.timeline);
        for s in &sim.timeline {
            prop_assert!(s.rate >= 0.0 && s.rate.is_finite());
        }
    }

    /// Damaged input never panics: the analysis (and preview) return a value or an error.
    #[test]
    fn damaged_input_never_panics(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let mut glb = sample_mech_cached();
        let flips = rng.range(1, 8);
        for _ in 0..flips {
            let i = rng.index(glb.len());
            glb[i] = rng.next_u32() as u8;
        }
        if rng.chance(0.2) {
            let n = rng.index(glb.len());
            glb.truncate(n);
        }
        if let Ok(r) = analyse_slice(&glb, None, &opts(Some("0:0,1:12,3:40,4:-10"))) {
            let _ = r.render_text();
            if rng.chance(0.1) {
                let _ = preview_glb(&glb, None, &r);
            }
        }
    }
}

fn sample_mech_cached() -> Vec<u8> {
    use std::sync::OnceLock;
    static SAMPLE: OnceLock<Vec<u8>> = OnceLock::new();
    SAMPLE.get_or_init(sample_mech).clone()
}

// ---- the preview ----

#[test]
fn preview_plays_the_timeline_and_validates_clean() {
    let glb = sample_mech();
    let r = analyse(&glb, Some(DEMAND));
    let preview = preview_glb(&glb, None, &r).unwrap();
    let (doc, _, _) = gltf::import_slice(&preview).unwrap();
    assert_eq!(doc.animations().count(), 25);
    let anim = doc.animations().last().unwrap();
    assert_eq!(anim.name(), Some("rigtrip gait preview"));
    // Root translation + 15 rotations, as the clips animate.
    assert_eq!(anim.channels().count(), 16);
    let sim = r.simulation.as_ref().unwrap();
    let extras: Value = serde_json::from_str(anim.extras().as_ref().unwrap().get()).unwrap();
    let listed: Vec<&str> = extras["rigtrip"]["gaitPreview"]["clips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c[1].as_str().unwrap())
        .collect();
    assert_eq!(listed, clips(&sim.timeline));
    // The root travels forward, then backward once the reverse gait starts.
    let (times, tr) = root_track(&preview);
    assert_eq!(times.len(), 17 * 30 + 1);
    let sb = sim
        .timeline
        .iter()
        .find(|s| s.clip.is_some_and(|c| c.starts_with("sb")))
        .unwrap()
        .start;
    let forward: Vec<f32> = times
        .iter()
        .zip(&tr)
        .filter(|(t, _)| f64::from(**t) <= sb)
        .map(|(_, p)| p[2])
        .collect();
    assert!(forward.windows(2).all(|w| w[1] >= w[0]));
    let top = *forward.last().unwrap();
    assert!(top > 150.0, "{top}");
    assert!(tr.last().unwrap()[2] < top - 1.0);
    let p1 = tmp("mech.glb");
    let p2 = tmp("mech_preview.glb");
    std::fs::write(&p1, &glb).unwrap();
    std::fs::write(&p2, &preview).unwrap();
    validate(&[p1, p2]);
}

/// The preview's root translation track (node 0): times and values.
fn root_track(preview: &[u8]) -> (Vec<f32>, Vec<[f32; 3]>) {
    let (doc, buffers, _) = gltf::import_slice(preview).unwrap();
    let anim = doc.animations().last().unwrap();
    let root = anim
        .channels()
        .find(|ch| ch.target().node().index() == 0)
        .unwrap();
    let rd = root.reader(|b| Some(&buffers[b.index()]));
    let times: Vec<f32> = rd.read_inputs().unwrap().collect();
    let Some(gltf::animation::util::ReadOutputs::Translations(tr)) = rd.read_outputs() else {
        panic!("root channel is not a translation")
    };
    let tr: Vec<[f32; 3]> = tr.collect();
    assert_eq!(times.len(), tr.len());
    (times, tr)
}

#[test]
fn preview_root_motion_adds_up_the_strides_played() {
    // Walk, stop, and stand still for a while: standing, the root has covered every stride.
    let glb = sample_mech();
    let r = analyse(&glb, Some("0:0,1:10,4:10,4.5:0"));
    let sim = r.simulation.as_ref().unwrap();
    let c = independent(&glb);
    let travelled: f64 = sim
        .timeline
        .iter()
        .filter_map(|s| s.animation_name.as_ref())
        .map(|n| c[n].stride)
        .sum();
    let last = sim.timeline.last().unwrap();
    assert_eq!(last.clip, None);
    assert!(last.end - last.start > 1.0);
    let (times, tr) = root_track(&preview_glb(&glb, None, &r).unwrap());
    let standing: Vec<&[f32; 3]> = times
        .iter()
        .zip(&tr)
        .filter(|(t, _)| f64::from(**t) > last.start)
        .map(|(_, p)| p)
        .collect();
    assert!(standing.len() > 30);
    for p in standing {
        assert!(
            (f64::from(p[2]) - travelled).abs() < 1e-4,
            "{} vs {travelled}",
            p[2]
        );
        assert_eq!((p[0], p[1]), (0.0, 0.0));
    }
}

#[test]
fn preview_refuses_a_report_of_another_file() {
    let glb = sample_mech();
    let r = analyse(&glb, Some(DEMAND));
    let other = edited(|j| animation_mut(j, "mchswr")["name"] = "mchswr2".into());
    let e = preview_glb(&other, None, &r).unwrap_err().to_string();
    assert!(e.contains("in the report"), "{e}");
    let none = analyse(&glb, None);
    assert!(preview_glb(&glb, None, &none).is_err());
}

#[test]
fn gltf_with_an_external_buffer_and_a_data_uri() {
    use base64::Engine as _;
    let (mut json, bin) = glb_split(&sample_mech());
    let dir = scratch("external");
    std::fs::write(dir.join("mech body.bin"), &bin).unwrap();
    json["buffers"][0]["uri"] = "mech%20body.bin".into();
    let path = dir.join("mech.gltf");
    std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
    let r = rigtrip::gait::analyse_path(&path, &opts(Some(DEMAND))).unwrap();
    let glb_report = analyse(&sample_mech(), Some(DEMAND));
    assert_eq!(r.constants, glb_report.constants);
    assert_eq!(r.simulation, glb_report.simulation);
    let text = std::fs::read(&path).unwrap();
    let preview = preview_glb(&text, Some(&dir), &r).unwrap();
    // Without the folder the external buffer cannot be found.
    let e = preview_glb(&text, None, &r).unwrap_err().to_string();
    assert!(e.contains("no base directory"), "{e}");
    // The same buffer as a data URI needs no folder.
    json["buffers"][0]["uri"] = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    )
    .into();
    let inline = serde_json::to_vec(&json).unwrap();
    let r2 = analyse_slice(&inline, None, &opts(Some(DEMAND))).unwrap();
    assert_eq!(r2.constants, glb_report.constants);
    let preview2 = preview_glb(&inline, None, &r2).unwrap();
    assert_eq!(preview, preview2);
    let p = dir.join("preview.glb");
    std::fs::write(&p, &preview).unwrap();
    validate(&[p]);
}

#[test]
fn buffer_uris_under_gaits_policy() {
    // Gait follows `file:` URIs, refuses other schemes and malformed escapes, and cuts a file
    // longer than byteLength; each refusal is said once, in gait's words.
    let (mut json, bin) = glb_split(&sample_mech());
    let dir = scratch("uris");
    let mut longer = bin.clone();
    longer.extend_from_slice(&[0xEE; 7]);
    std::fs::write(dir.join("mech body.bin"), &longer).unwrap();
    let glb_report = analyse(&sample_mech(), Some(DEMAND));
    for uri in ["file:mech%20body.bin", "file://mech%20body.bin"] {
        json["buffers"][0]["uri"] = uri.into();
        let text = serde_json::to_vec(&json).unwrap();
        let r = analyse_slice(&text, Some(&dir), &opts(Some(DEMAND))).unwrap();
        assert_eq!(r.constants, glb_report.constants, "{uri}");
    }
    let refused = |uri: &str| {
        let mut j = json.clone();
        j["buffers"][0]["uri"] = uri.into();
        let text = serde_json::to_vec(&j).unwrap();
        rigtrip::chain(&analyse_slice(&text, Some(&dir), &opts(None)).unwrap_err())
    };
    assert_eq!(
        refused("https://example.com/mech.bin"),
        "buffer 0: unsupported URI scheme in 'https://example.com/mech.bin'"
    );
    assert_eq!(
        refused("mech%2.bin"),
        "buffer 0: bad percent-encoding in 'mech%2.bin'"
    );
    assert_eq!(
        refused("data:application/octet-stream,AAAA"),
        "buffer 0: data URI is not base64"
    );
    assert!(refused("missing.bin").starts_with("buffer 0: 'missing.bin': "));
    let mut short = json.clone();
    short["buffers"][0]["uri"] = "data:application/octet-stream;base64,AAAA".into();
    let text = serde_json::to_vec(&short).unwrap();
    assert_eq!(
        rigtrip::chain(&analyse_slice(&text, None, &opts(None)).unwrap_err()),
        format!(
            "buffer 0: byteLength {}, but only 3 bytes of data",
            json["buffers"][0]["byteLength"]
        )
    );
}
