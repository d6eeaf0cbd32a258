//! The clip loader (the game's `LoadLocomotionClips`): slot inventory, per-clip measurement and
//! the ten constants, with the shipped quirks reproduced and marked.
//!
//! Constants are computed in f64 from the f32 keyframe data, in the loader's order of
//! operations, so an independent computation from the same clips gets the same bits.

use std::collections::BTreeMap;

use serde_json::Value;

use super::constant::{Constant, ConstantStatus, Intended, Quirk};
use super::doc::{self, Doc, Floats};
use super::machine;
use super::slots::{self, SlotDef, SlotSet, SLOTS, SLOT_COUNT};
use super::{
    BumpSlot, ClipMeasure, GaitError, GaitOptions, GaitReport, LimpSet, MissingClip, PrefixSource,
    RootJoint, SlotReport, SlotStatus, StrideSource, Unmatched,
};
use rigtrip_gltf::anim::{self, Channel};
use rigtrip_gltf::player::{Interpolation, Keys};

const STALE: Quirk = Quirk {
    code: "stale-data",
    note: "bbr and bbl are measured into the same temporaries; the divide's second terms are \
           still the run-left (rrl) figures",
};
const NEGATED: Quirk = Quirk {
    code: "negated",
    note: "negated at measurement (0x350 = -0x350); the machines fold the sign back",
};
const NAME_RUN: Quirk = Quirk {
    code: "historical-name",
    note: "the reverse* constants hold RUN figures",
};
const NAME_REVERSE: Quirk = Quirk {
    code: "historical-name",
    note: "the gimp* constants without Left/Right hold the REVERSE figures",
};
const CAP: Quirk = Quirk {
    code: "cap-past-last-keyframe",
    note: "the game reads speed caps at keyframeData[keyframeCount], one entry past the last \
           keyframe; here they come from extras.rigtrip.speedCap",
};
const UNSOURCED: Quirk = Quirk {
    code: "formula-unsourced",
    note: "the published description names the slot, not the arithmetic; s/d of that one clip is our reading",
};

/// A figure a formula needs.
#[derive(Clone, Copy)]
enum Need {
    Stride(u8),
    Duration(u8),
    Cap(u8),
}

/// The measured clips by slot, and what the loader could load.
struct Loaded<'a> {
    clips: BTreeMap<u8, &'a ClipMeasure>,
    limp: bool,
}

impl Loaded<'_> {
    fn get(&self, need: Need) -> Result<f64, (ConstantStatus, String)> {
        let slot = match need {
            Need::Stride(s) | Need::Duration(s) | Need::Cap(s) => s,
        };
        let code = slots::slot_def(slot).map(|d| d.code).unwrap_or("?");
        let Some(clip) = self.clips.get(&slot) else {
            if !self.limp && slots::slot_def(slot).map(|d| d.set) == Some(SlotSet::Limp) {
                return Err((
                    ConstantStatus::NotLoaded,
                    "the limp set is absent (the wgl probe failed)".into(),
                ));
            }
            return Err((
                ConstantStatus::Missing,
                format!(
                    "slot {slot} ({code}) is missing: the game would crash on load; the \
                     reconstruction keeps its bring-up default"
                ),
            ));
        };
        let (v, what) = match need {
            Need::Stride(_) => (clip.stride, "no stride (no root translation, no extras)"),
            Need::Duration(_) => (clip.duration, "no keyframes"),
            Need::Cap(_) => (
                clip.speed_cap,
                "no extras.rigtrip.speedCap (the game reads it one entry past the last \
                 keyframe; not invented here)",
            ),
        };
        v.ok_or_else(|| {
            (
                ConstantStatus::Unknown,
                format!("slot {slot} ({code}, animation '{}'): {what}", clip.name),
            )
        })
    }
}

/// The intended formula: text, needed figures, arithmetic.
type IntendedDef = (&'static str, &'static [Need], fn(&[f64]) -> f64);

/// A constant's definition: name, meaning, formula, needed figures and the arithmetic.
struct Def {
    name: &'static str,
    holds: &'static str,
    formula: &'static str,
    needs: &'static [Need],
    compute: fn(&[f64]) -> f64,
    quirks: &'static [Quirk],
    intended: Option<IntendedDef>,
}

fn at(v: &[f64], i: usize) -> f64 {
    v.get(i).copied().unwrap_or(f64::NAN)
}

/// What a cycle's speed over slots `a` and `b` needs: both strides, then both durations.
const fn cycle(a: u8, b: u8) -> [Need; 4] {
    [
        Need::Stride(a),
        Need::Stride(b),
        Need::Duration(a),
        Need::Duration(b),
    ]
}

/// A cycle's speed from the figures [`cycle`] names: `(sa + sb) / (da + db)`.
fn cycle_speed(v: &[f64]) -> f64 {
    (at(v, 0) + at(v, 1)) / (at(v, 2) + at(v, 3))
}

/// What one clip's speed over slot `s` needs: its stride, then its duration.
const fn pace(s: u8) -> [Need; 2] {
    [Need::Stride(s), Need::Duration(s)]
}

/// The first figure over the second (the speed from the figures [`pace`] names).
fn ratio(v: &[f64]) -> f64 {
    at(v, 0) / at(v, 1)
}

/// The one figure a formula needs, as it is.
fn first(v: &[f64]) -> f64 {
    at(v, 0)
}

const DEFS: &[Def] = &[
    Def {
        name: "standSpeed",
        holds: "the walk's stand threshold: swr's final-keyframe stride (a distance)",
        formula: "s5",
        needs: &[Need::Stride(5)],
        compute: first,
        quirks: &[],
        intended: None,
    },
    Def {
        name: "walkStrideLength",
        holds: "the walk cycle's speed",
        formula: "(s6 + s7) / (d6 + d7)",
        needs: &cycle(6, 7),
        compute: cycle_speed,
        quirks: &[],
        intended: None,
    },
    Def {
        name: "reverseSpeedMax",
        holds: "a RUN figure: walk -> run's speed cap (the walk's upper cap)",
        formula: "cap10",
        needs: &[Need::Cap(10)],
        compute: first,
        quirks: &[NAME_RUN, CAP],
        intended: None,
    },
    Def {
        name: "reverseStrideLength",
        holds: "a RUN figure: the run cycle's speed",
        formula: "(s12 + s13) / (d12 + d13)",
        needs: &cycle(12, 13),
        compute: cycle_speed,
        quirks: &[NAME_RUN],
        intended: None,
    },
    Def {
        name: "gimpSpeedMax",
        holds: "a REVERSE figure: stand -> back's speed cap (authored negative)",
        formula: "cap16",
        needs: &[Need::Cap(16)],
        compute: first,
        quirks: &[NAME_REVERSE, CAP],
        intended: None,
    },
    Def {
        name: "gimpStrideLength",
        holds: "a REVERSE figure: the reverse cycle's speed, negative",
        formula: "-((s19 + s13) / (d19 + d13))",
        needs: &cycle(19, 13),
        compute: |v| -cycle_speed(v),
        quirks: &[STALE, NEGATED, NAME_REVERSE],
        intended: Some(("-((s18 + s19) / (d18 + d19))", &cycle(18, 19), |v| {
            -cycle_speed(v)
        })),
    },
    Def {
        name: "gimpLeftSpeedMax",
        holds: "the limp's speed cap, left",
        formula: "cap22",
        needs: &[Need::Cap(22)],
        compute: first,
        quirks: &[CAP],
        intended: None,
    },
    Def {
        name: "gimpRightSpeedMax",
        holds: "the limp's speed cap, right",
        formula: "cap23",
        needs: &[Need::Cap(23)],
        compute: first,
        quirks: &[CAP],
        intended: None,
    },
    Def {
        name: "gimpLeftStrideLength",
        holds: "the limp cycle's speed, left (slot 24, as the published description's table pairs them)",
        formula: "s24 / d24",
        needs: &pace(24),
        compute: ratio,
        quirks: &[UNSOURCED],
        intended: None,
    },
    Def {
        name: "gimpRightStrideLength",
        holds: "the limp cycle's speed, right (slot 25, as the published description's table pairs them)",
        formula: "s25 / d25",
        needs: &pace(25),
        compute: ratio,
        quirks: &[UNSOURCED],
        intended: None,
    },
];

fn need_slot(n: &Need) -> u8 {
    match *n {
        Need::Stride(s) | Need::Duration(s) | Need::Cap(s) => s,
    }
}

/// Evaluates `needs` and `compute`: the value, or the status and detail of the first gap.
fn evaluate(
    loaded: &Loaded,
    needs: &[Need],
    compute: fn(&[f64]) -> f64,
) -> (Option<f64>, ConstantStatus, Option<String>) {
    let mut v = Vec::with_capacity(needs.len());
    for n in needs {
        match loaded.get(*n) {
            Ok(x) => v.push(x),
            Err((status, detail)) => return (None, status, Some(detail)),
        }
    }
    let r = compute(&v);
    if r.is_finite() {
        (Some(r), ConstantStatus::Measured, None)
    } else {
        (
            None,
            ConstantStatus::Degenerate,
            Some(format!("the formula gives {r} (a zero divisor?)")),
        )
    }
}

fn constants(loaded: &Loaded, intended: bool) -> Vec<Constant> {
    DEFS.iter()
        .map(|d| {
            let (value, status, detail) = evaluate(loaded, d.needs, d.compute);
            let mut slots: Vec<u8> = Vec::new();
            for s in d.needs.iter().map(need_slot) {
                if !slots.contains(&s) {
                    slots.push(s);
                }
            }
            let intended = intended.then(|| match d.intended {
                Some((formula, needs, f)) => {
                    let (iv, _, _) = evaluate(loaded, needs, f);
                    Intended {
                        formula,
                        value: iv,
                        differs: iv != value,
                    }
                }
                None => Intended {
                    formula: d.formula,
                    value,
                    differs: false,
                },
            });
            Constant {
                name: d.name,
                holds: d.holds,
                formula: d.formula,
                slots,
                value,
                status,
                detail,
                quirks: d.quirks.to_vec(),
                intended,
            }
        })
        .collect()
}

/// The prefix naming the most distinct gait codes; an error when none or several tie.
fn detect_prefix(names: &[Option<String>]) -> Result<String, GaitError> {
    let mut codes: BTreeMap<&str, std::collections::BTreeSet<&str>> = BTreeMap::new();
    for name in names.iter().flatten() {
        for d in SLOTS {
            if let Some(p) = name.strip_suffix(d.code) {
                codes.entry(p).or_default().insert(d.code);
            }
        }
    }
    let best = codes.values().map(|c| c.len()).max().unwrap_or(0);
    let top: Vec<String> = codes
        .iter()
        .filter(|(_, c)| c.len() == best)
        .map(|(p, _)| format!("'{p}'"))
        .collect();
    match top.as_slice() {
        [] => Err(GaitError::NoGaitClips),
        [_] => Ok(codes
            .iter()
            .find(|(_, c)| c.len() == best)
            .map(|(p, _)| p.to_string())
            .unwrap_or_default()),
        _ => Err(GaitError::AmbiguousPrefix(top)),
    }
}

/// The root joint: skin 0's top joint, else the shallowest node a filled clip translates.
fn root_joint(doc: &Doc, filled: &[usize]) -> Option<RootJoint> {
    let parents = doc::parents(doc);
    let nodes = doc.array("nodes").len();
    let name = |n: usize| doc::name(doc, "nodes", n);
    if let Some(skin) = doc.array("skins").first() {
        let joints: Vec<usize> = skin
            .get("joints")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|j| j.as_u64().and_then(|j| usize::try_from(j).ok()))
            .collect();
        if let Some(s) = doc::index(skin, "skeleton") {
            if joints.contains(&s) {
                return Some(RootJoint {
                    node: s,
                    name: name(s),
                    how: "skin 0's skeleton joint",
                });
            }
        }
        let top = joints.iter().copied().find(|&j| {
            parents
                .get(j)
                .copied()
                .flatten()
                .is_none_or(|p| !joints.contains(&p))
        });
        if let Some(j) = top {
            return Some(RootJoint {
                node: j,
                name: name(j),
                how: "skin 0's top joint",
            });
        }
    }
    let mut best: Option<(usize, usize)> = None;
    for &a in filled {
        let Some(anim) = doc.array("animations").get(a) else {
            continue;
        };
        for ch in anim::channels(anim) {
            if ch.path != Some("translation") {
                continue;
            }
            let Some(n) = ch.node.filter(|&n| n < nodes) else {
                continue;
            };
            let key = (doc::depth(&parents, n), n);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
    }
    best.map(|(_, n)| RootJoint {
        node: n,
        name: name(n),
        how: "the shallowest node a gait clip translates (no skin)",
    })
}

/// Reads one sampler's input times and output values.
pub(crate) struct Track {
    pub times: Vec<f64>,
    pub values: Floats,
    pub interpolation: Interpolation,
}

/// Why a channel's sampler cannot be played: a problem of the clip's report, in these words.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TrackProblem {
    /// The channel names no sampler of the animation.
    #[error("sampler {0} does not exist")]
    NoSampler(usize),
    /// The sampler lacks its input or output accessor.
    #[error("sampler {sampler} has no {key} accessor")]
    NoAccessor {
        /// The sampler.
        sampler: usize,
        /// `input` or `output`.
        key: &'static str,
    },
    /// An accessor that cannot be read.
    #[error(transparent)]
    Data(#[from] GaitError),
    /// An interpolation glTF does not define.
    #[error("invalid interpolation")]
    Interpolation,
    /// A keyframe time that is not finite.
    #[error("a keyframe time is not finite")]
    TimeNotFinite,
    /// Keyframe times that do not strictly increase.
    #[error("keyframe times are not strictly increasing")]
    TimesNotIncreasing,
    /// Outputs that do not match the keyframes (three per key for a cubic spline).
    #[error("{keys} keyframes but {outputs} output elements")]
    Count {
        /// Keyframes.
        keys: usize,
        /// Output elements.
        outputs: usize,
    },
}

/// The sampler of channel `ch` of animation `anim`, decoded.
pub(crate) fn track(doc: &Doc, anim: &Value, ch: Channel) -> Result<Track, TrackProblem> {
    let s = ch.sampler.unwrap_or(usize::MAX);
    let sampler = ch.sampler_in(anim).ok_or(TrackProblem::NoSampler(s))?;
    let accessor =
        |key: &'static str, x: Option<usize>| x.ok_or(TrackProblem::NoAccessor { sampler: s, key });
    let input = doc::floats(doc, accessor("input", sampler.input)?)?;
    let values = doc::floats(doc, accessor("output", sampler.output)?)?;
    let interpolation =
        Interpolation::parse(sampler.interpolation).ok_or(TrackProblem::Interpolation)?;
    let times = input.values;
    if times.iter().any(|t| !t.is_finite()) {
        return Err(TrackProblem::TimeNotFinite);
    }
    if times.windows(2).any(|w| w[1] <= w[0]) {
        return Err(TrackProblem::TimesNotIncreasing);
    }
    if values.count() != times.len() * interpolation.per_key() {
        return Err(TrackProblem::Count {
            keys: times.len(),
            outputs: values.count(),
        });
    }
    Ok(Track {
        times,
        values,
        interpolation,
    })
}

impl Track {
    /// The keyframes, for the player.
    pub fn keys(&self) -> Keys<'_> {
        Keys {
            times: &self.times,
            values: &self.values.values,
            width: self.values.width,
            interpolation: self.interpolation,
        }
    }
}

/// An `extras.rigtrip` value that should be a finite number and is not (ignored, with a note).
#[derive(Debug, thiserror::Error)]
#[error("extras.rigtrip.{key} is not a finite number ({value}); ignored")]
pub(crate) struct NotANumber {
    /// The key under `extras.rigtrip`.
    key: String,
    /// The value found, as JSON.
    value: String,
}

/// Reads `extras.rigtrip.<key>` as a finite number; `Err` when present but not one.
fn extras_number(extras: Option<&Value>, key: &str) -> Result<Option<f64>, NotANumber> {
    match extras
        .and_then(|v| v.get("rigtrip"))
        .and_then(|r| r.get(key))
    {
        None => Ok(None),
        Some(x) => match x.as_f64() {
            Some(f) if f.is_finite() => Ok(Some(f)),
            _ => Err(NotANumber {
                key: key.to_string(),
                value: x.to_string(),
            }),
        },
    }
}

fn measure(
    doc: &Doc,
    index: usize,
    def: &SlotDef,
    root: Option<usize>,
    opts: &GaitOptions,
) -> ClipMeasure {
    let mut m = ClipMeasure {
        animation: index,
        name: String::new(),
        start: None,
        duration: None,
        root_keyframes: None,
        root_motion: None,
        displacement: None,
        direction: def.direction,
        stride: None,
        stride_source: StrideSource::None,
        speed_cap: None,
        problems: Vec::new(),
    };
    let Some(anim) = doc.array("animations").get(index) else {
        return m;
    };
    m.name = doc::name(doc, "animations", index).unwrap_or_default();
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for ch in anim::channels(anim) {
        let ci = ch.index;
        let t = match track(doc, anim, ch) {
            Ok(t) => t,
            Err(e) => {
                m.problems.push(format!("channel {ci}: {e}"));
                continue;
            }
        };
        if let (Some(&a), Some(&b)) = (t.times.first(), t.times.last()) {
            lo = lo.min(a);
            hi = hi.max(b);
        }
        let is_root = ch.node == root && ch.path == Some("translation");
        if is_root && m.root_keyframes.is_none() {
            let n = t.times.len();
            m.root_keyframes = Some(n);
            if n > 0 {
                let keys = t.keys();
                if let ([a0, a1, a2], [b0, b1, b2]) = (keys.key(0), keys.key(n - 1)) {
                    let v = [b0 - a0, b1 - a1, b2 - a2];
                    if v.iter().all(|x| x.is_finite()) {
                        m.root_motion = Some(v);
                        let along = opts.forward.along(v);
                        m.displacement = Some(along);
                        m.stride = Some(def.direction * along);
                        m.stride_source = StrideSource::RootMotion;
                    } else {
                        m.problems
                            .push("the root translation is not finite".to_string());
                    }
                }
            }
        }
    }
    if lo.is_finite() && hi.is_finite() {
        m.start = Some(lo);
        m.duration = Some(hi - lo);
    } else {
        m.problems.push("no readable keyframes".into());
    }
    if m.root_keyframes.is_none() && root.is_some() {
        m.problems
            .push("no translation channel on the root joint: no root motion".into());
    }
    match extras_number(anim.get("extras"), "stride") {
        Ok(Some(s)) => {
            m.stride = Some(s);
            m.stride_source = StrideSource::Extras;
        }
        Ok(None) => {}
        Err(e) => m.problems.push(e.to_string()),
    }
    match extras_number(anim.get("extras"), "speedCap") {
        Ok(c) => m.speed_cap = c,
        Err(e) => m.problems.push(e.to_string()),
    }
    if let Some(s) = m.stride {
        if s < 0.0 && def.slot != slots::BUMP_SLOT {
            m.problems.push(format!(
                "stride {s} is negative: the clip travels against its slot's direction ({})",
                if def.direction < 0.0 {
                    "backward, a reverse-gait clip"
                } else {
                    "forward"
                }
            ));
        }
    }
    m
}

/// Why `name` looks like a gait clip, when it does (it fills no slot).
fn lookalike(name: &str, prefix: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    for d in SLOTS {
        let want = format!("{prefix}{}", d.code);
        if lower == want.to_ascii_lowercase() {
            return Some(format!("differs from '{want}' only in case"));
        }
    }
    for d in SLOTS {
        let want = format!("{prefix}{}", d.code);
        if !prefix.is_empty() && name.contains(&want) {
            return Some(format!("contains '{want}' inside a longer name"));
        }
    }
    if !prefix.is_empty() {
        if let Some(rest) = name.strip_prefix(prefix) {
            if rest.len() == 4 && rest.chars().all(|c| c.is_ascii_alphabetic()) {
                return Some(format!(
                    "four-letter code '{rest}': the LoadLocomotionClipsExt variant (not described)"
                ));
            }
            if rest.len() == 3 {
                return Some(format!("'{rest}' is not a code this loader knows"));
            }
            return Some(format!(
                "starts with the prefix, but '{rest}' is no slot code"
            ));
        }
    }
    for d in SLOTS {
        if let Some(p) = name.strip_suffix(d.code) {
            return Some(format!(
                "ends with '{}' but has the prefix '{p}', not '{prefix}'",
                d.code
            ));
        }
    }
    None
}

/// The clip each slot got: the prefix, the animation filling each slot, whether the limp set
/// is loaded.
struct Assigned<'a> {
    prefix: &'a str,
    slots: &'a BTreeMap<u8, usize>,
    limp_present: bool,
}

/// One report per slot (measured when filled) and the clips missing from the set.
fn slot_reports(
    doc: &Doc,
    opts: &GaitOptions,
    at: &Assigned,
    root_node: Option<usize>,
) -> (Vec<SlotReport>, Vec<MissingClip>) {
    let mut slots_out = Vec::with_capacity(SLOT_COUNT);
    let mut missing = Vec::new();
    for s in 0..SLOT_COUNT as u8 {
        let Some(d) = slots::slot_def(s) else {
            slots_out.push(SlotReport {
                slot: s,
                code: None,
                expected: None,
                meaning: "not filled by this loader",
                hand: None,
                set: SlotSet::NotFilled,
                measures: Vec::new(),
                status: SlotStatus::NotFilled,
                clip: None,
            });
            continue;
        };
        let expected = format!("{}{}", at.prefix, d.code);
        let (status, clip) = match at.slots.get(&s) {
            Some(&i) => (
                SlotStatus::Filled,
                Some(measure(doc, i, d, root_node, opts)),
            ),
            None if d.set == SlotSet::Limp && !at.limp_present => (SlotStatus::NotLoaded, None),
            None => {
                missing.push(MissingClip {
                    slot: s,
                    code: d.code,
                    name: expected.clone(),
                });
                (SlotStatus::Missing, None)
            }
        };
        slots_out.push(SlotReport {
            slot: s,
            code: Some(d.code),
            expected: Some(expected),
            meaning: d.meaning,
            hand: d.hand,
            set: d.set,
            measures: d.measures.to_vec(),
            status,
            clip,
        });
    }
    (slots_out, missing)
}

/// The animations that fill no slot and say why: a limp clip not loaded, a duplicate name, or
/// a name that looks like a slot's.
fn unmatched_animations(
    names: &[Option<String>],
    filled: &[usize],
    at: &Assigned,
) -> Vec<Unmatched> {
    let mut unmatched = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if filled.contains(&i) {
            continue;
        }
        let name = name.clone().unwrap_or_default();
        let exact = SLOTS
            .iter()
            .find(|d| format!("{}{}", at.prefix, d.code) == name);
        let reason = match exact {
            Some(d) if d.set == SlotSet::Limp && !at.limp_present => Some(format!(
                "limp clip not loaded: the probe for '{}{}' failed",
                at.prefix,
                slots::LIMP_PROBE
            )),
            Some(d) => Some(format!(
                "duplicate name: animation {} already fills slot {}",
                at.slots.get(&d.slot).copied().unwrap_or(0),
                d.slot
            )),
            None => lookalike(&name, at.prefix),
        };
        if let Some(reason) = reason {
            unmatched.push(Unmatched {
                animation: i,
                name,
                reason,
            });
        }
    }
    unmatched
}

/// The report's notes: lint's errors (`validation`), an odd prefix, missing clips, no root
/// joint, a reverse speed cap that is not negative.
fn report_notes(
    validation: Option<&str>,
    prefix: &str,
    missing: usize,
    no_root: bool,
    constants: &[Constant],
) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(v) = validation {
        notes.push(format!("rigtrip lint finds {v}; read defensively anyway"));
    }
    if prefix.chars().count() != 3 {
        notes.push(format!(
            "the game's prefixes are three letters; '{prefix}' has {}",
            prefix.chars().count()
        ));
    }
    if missing > 0 {
        notes.push(format!(
            "{missing} clip(s) missing: the original dereferences every clip unguarded and \
             crashes on load; the reconstruction stores a null clip and keeps the bring-up \
             defaults"
        ));
    }
    if no_root {
        notes.push(
            "no root joint found (no skin, no translated node): strides come only from \
                    extras.rigtrip.stride"
                .into(),
        );
    }
    if let Some(c) = constants.iter().find(|c| c.name == "gimpSpeedMax") {
        if let Some(v) = c.value.filter(|v| *v >= 0.0) {
            notes.push(format!(
                "gimpSpeedMax is {v}, not negative: the game's reverse caps are authored \
                 negative (only gimpStrideLength is negated at measurement)"
            ));
        }
    }
    notes
}

/// Runs the loader on `doc`: inventory, measurement, constants and (with a demand) the machine.
pub(crate) fn analyse(
    doc: &Doc,
    validation: Option<&str>,
    opts: &GaitOptions,
) -> Result<GaitReport, GaitError> {
    let names: Vec<Option<String>> = (0..doc.array("animations").len())
        .map(|a| doc::name(doc, "animations", a))
        .collect();
    let (prefix, prefix_source) = match &opts.prefix {
        Some(p) => (p.clone(), PrefixSource::Given),
        None => (detect_prefix(&names)?, PrefixSource::Detected),
    };
    let find = |code: &str| -> Option<usize> {
        let want = format!("{prefix}{code}");
        names
            .iter()
            .position(|n| n.as_deref() == Some(want.as_str()))
    };
    let limp_present = find(slots::LIMP_PROBE).is_some();
    let mut assigned: BTreeMap<u8, usize> = BTreeMap::new();
    for d in SLOTS {
        if d.set == SlotSet::Limp && !limp_present {
            continue;
        }
        if let Some(i) = find(d.code) {
            assigned.insert(d.slot, i);
        }
    }
    let filled: Vec<usize> = assigned.values().copied().collect();
    let root = root_joint(doc, &filled);
    let root_node = root.as_ref().map(|r| r.node);

    let at = Assigned {
        prefix: &prefix,
        slots: &assigned,
        limp_present,
    };
    let (slots_out, missing) = slot_reports(doc, opts, &at, root_node);
    let unmatched = unmatched_animations(&names, &filled, &at);
    let clips: BTreeMap<u8, &ClipMeasure> = slots_out
        .iter()
        .filter_map(|s| s.clip.as_ref().map(|c| (s.slot, c)))
        .collect();
    let loaded = Loaded {
        clips,
        limp: limp_present,
    };
    let constants = constants(&loaded, opts.intended);

    let notes = report_notes(
        validation,
        &prefix,
        missing.len(),
        root.is_none(),
        &constants,
    );
    let simulation = opts.demand.as_ref().map(|demand| {
        machine::run(
            &slots_out,
            &constants,
            demand,
            &machine::MachineParams::default(),
        )
    });

    Ok(GaitReport {
        limp_set: LimpSet {
            probe: format!("{prefix}{}", slots::LIMP_PROBE),
            present: limp_present,
        },
        prefix,
        prefix_source,
        forward: opts.forward,
        root_joint: root,
        slot_count: SLOT_COUNT,
        slots: slots_out,
        missing,
        bump: BumpSlot {
            slot: slots::BUMP_SLOT,
            animation: assigned
                .get(&slots::BUMP_SLOT)
                .and_then(|&i| names.get(i).cloned().flatten()),
        },
        unmatched,
        constants,
        intended: opts.intended,
        simulation,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_detection_prefers_the_most_codes_and_refuses_ties() {
        let n = |v: &[&str]| v.iter().map(|s| Some(s.to_string())).collect::<Vec<_>>();
        assert_eq!(
            detect_prefix(&n(&["madswr", "madwwr", "xbmp", "idle"])).unwrap(),
            "mad"
        );
        match detect_prefix(&n(&["madswr", "locwwr"])) {
            Err(GaitError::AmbiguousPrefix(c)) => assert_eq!(c, vec!["'loc'", "'mad'"]),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            detect_prefix(&n(&["idle", "Action"])),
            Err(GaitError::NoGaitClips)
        ));
    }

    #[test]
    fn lookalikes_say_why() {
        for (name, why) in [
            ("MADWWR", "differs from 'madwwr' only in case"),
            ("madwwr.001", "contains 'madwwr' inside a longer name"),
            ("madwwrl", "contains 'madwwr' inside a longer name"),
            (
                "madwalk",
                "four-letter code 'walk': the LoadLocomotionClipsExt variant (not described)",
            ),
            ("madxyz", "'xyz' is not a code this loader knows"),
            (
                "locwwr",
                "ends with 'wwr' but has the prefix 'loc', not 'mad'",
            ),
        ] {
            assert_eq!(lookalike(name, "mad").as_deref(), Some(why), "{name}");
        }
        assert_eq!(lookalike("idle", "mad"), None);
    }
}
