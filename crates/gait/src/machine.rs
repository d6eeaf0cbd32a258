//! The leg channel's transition machine (the game's `AdvanceLegAnimation` / `LegClipFinished`),
//! driven by a demand timeline in fixed frames.
//!
//! From the published description: every clip is one stride and every state is handed (the next stride steps with
//! the other foot); the walk handler's three exits with the commit test (demand AND the cycle
//! speed slewed by one carryover must both agree); a cycle plays its clip at cycle/strideLength
//! of the authored rate, the cycle speed slewed toward the demand within per-gait caps; the
//! reverse cycle's caps are negative and its advance ratio is folded positive; arming a clip from
//! standing falls through, so it advances in the frame it was selected; the leg channel's
//! wind-down drops to standing when the cycle speed has decayed.
//!
//! Our reading where the published description is silent (named in [`Simulation::notes`] too): the run and
//! reverse handlers mirror the walk handler's commit test (run -> walk below walkStrideLength;
//! back -> stand above gimpSpeedMax); standing arms swr above standSpeed and a reverse entry
//! below gimpSpeedMax, on the foot opposite the last stride (swr has no left twin); the caps
//! are walk [standSpeed, reverseSpeedMax], run [walkStrideLength, runSpeedMax], reverse
//! (-inf, gimpSpeedMax], stand 0; transitions play at the authored rate; the slew rates
//! (forwardCycleRate, gimpCycleRate) are unsourced and defaulted.

use serde::Serialize;

use super::constant::{Constant, ConstantStatus};
use super::slots::{self, Family, Hand, Role, SlotDef};
use super::{GaitError, SlotReport, SlotStatus};

/// Longest demand timeline accepted, seconds (bounds the simulation's work and output).
pub const MAX_SECONDS: f64 = 600.0;
/// Most clip ends spent in one frame before the machine gives up (zero-length clips).
const MAX_ENDS_PER_FRAME: usize = 64;

/// A demand timeline: (time, speed) breakpoints, linear between, held before and after.
#[derive(Debug, Clone, PartialEq)]
pub struct Demand {
    points: Vec<(f64, f64)>,
}

impl Demand {
    /// Breakpoints from (time, speed) pairs; times must be finite, >= 0 and strictly rising.
    pub fn new(points: Vec<(f64, f64)>) -> Result<Demand, GaitError> {
        if points.is_empty() {
            return Err(GaitError::Demand("no breakpoints".into()));
        }
        for (i, &(t, v)) in points.iter().enumerate() {
            if !(t.is_finite() && v.is_finite()) {
                return Err(GaitError::Demand(format!("breakpoint {i}: not finite")));
            }
            if t < 0.0 {
                return Err(GaitError::Demand(format!("breakpoint {i}: time {t} < 0")));
            }
            if t > MAX_SECONDS {
                return Err(GaitError::Demand(format!(
                    "breakpoint {i}: time {t} is past the {MAX_SECONDS} s limit"
                )));
            }
        }
        if let Some(w) = points.windows(2).position(|w| w[1].0 <= w[0].0) {
            return Err(GaitError::Demand(format!(
                "breakpoint {}: times must rise strictly",
                w + 1
            )));
        }
        Ok(Demand { points })
    }

    /// The breakpoints.
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// The demanded speed at time `t`.
    pub fn at(&self, t: f64) -> f64 {
        let mut prev: Option<(f64, f64)> = None;
        for &(pt, pv) in &self.points {
            if t < pt {
                return match prev {
                    None => pv,
                    Some((qt, qv)) => qv + (pv - qv) * (t - qt) / (pt - qt),
                };
            }
            prev = Some((pt, pv));
        }
        prev.map(|p| p.1).unwrap_or(0.0)
    }

    /// The last breakpoint's time.
    pub fn end(&self) -> f64 {
        self.points.last().map(|p| p.0).unwrap_or(0.0)
    }
}

/// Parses `"0:0,2:12,6:40,10:0,12:-10"`: time:speed breakpoints, linear between.
pub fn parse_demand(s: &str) -> Result<Demand, GaitError> {
    let mut points = Vec::new();
    for (i, part) in s.split(',').enumerate() {
        let part = part.trim();
        let Some((t, v)) = part.split_once(':') else {
            return Err(GaitError::Demand(format!(
                "breakpoint {i} '{part}' is not time:speed"
            )));
        };
        let num = |x: &str| -> Result<f64, GaitError> {
            x.trim().parse::<f64>().map_err(|_| {
                GaitError::Demand(format!("breakpoint {i}: '{}' is not a number", x.trim()))
            })
        };
        points.push((num(t)?, num(v)?));
    }
    Demand::new(points)
}

/// The machine's parameters that the published description leaves unsourced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MachineParams {
    /// Frame step, seconds (the demand is read once per frame, as the mapper is).
    pub frame: f64,
    /// How long the last demand is held after the last breakpoint, seconds.
    pub tail: f64,
    /// forwardCycleRate: how fast the walk/run cycle speed slews, speed units per second.
    pub forward_cycle_rate: f64,
    /// gimpCycleRate: the same for the reverse cycle.
    pub gimp_cycle_rate: f64,
    /// runSpeedMax (+0x7a0): the run's upward cap; not set by the loader, so unbounded.
    pub run_speed_max: Option<f64>,
}

impl Default for MachineParams {
    fn default() -> Self {
        MachineParams {
            frame: 1.0 / 60.0,
            tail: 5.0,
            forward_cycle_rate: 20.0,
            gimp_cycle_rate: 10.0,
            run_speed_max: None,
        }
    }
}

/// One stretch of the timeline: a clip played from start to end, or standing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Segment {
    /// Start time, seconds.
    pub start: f64,
    /// End time, seconds.
    pub end: f64,
    /// The clip's code, `None` while standing.
    pub clip: Option<&'static str>,
    /// The slot it plays from.
    pub slot: Option<u8>,
    /// The animation index.
    pub animation: Option<usize>,
    /// The animation name.
    pub animation_name: Option<String>,
    /// The foot that steps.
    pub hand: Option<Hand>,
    /// The gait family.
    pub family: Family,
    /// Transition or cycle (`None` while standing).
    pub role: Option<Role>,
    /// Playback rate at the start (1 = authored).
    pub rate: f64,
    /// Authored seconds played per real second over the whole segment.
    pub mean_rate: f64,
    /// Whether the advance ratio was negative and folded positive (reverse cycle).
    pub folded: bool,
    /// Cycle speed at the start.
    pub cycle: f64,
    /// Demand at the start.
    pub demand: f64,
    /// Clip time played, seconds (the clip's duration when completed).
    pub played: f64,
    /// Whether the clip played to its end.
    pub completed: bool,
    /// Why the machine chose it.
    pub why: String,
}

/// The thresholds and caps the machine used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Thresholds {
    /// standSpeed.
    pub stand_speed: f64,
    /// walkStrideLength.
    pub walk_stride_length: f64,
    /// reverseSpeedMax (the walk's upper cap), `None` when unknown (then unbounded).
    pub reverse_speed_max: Option<f64>,
    /// reverseStrideLength (the run cycle's speed).
    pub reverse_stride_length: f64,
    /// gimpSpeedMax, `None` when unknown or not negative (then reverse is never armed).
    pub gimp_speed_max: Option<f64>,
    /// gimpStrideLength (the reverse cycle's speed, negative).
    pub gimp_stride_length: f64,
}

/// A run of the leg channel's machine.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Simulation {
    /// The demand breakpoints, [time, speed].
    pub demand: Vec<[f64; 2]>,
    /// The unsourced parameters used.
    pub params: MachineParams,
    /// The constants used, when the machine could run.
    pub thresholds: Option<Thresholds>,
    /// Why the machine could not run, when it could not.
    pub refused: Option<String>,
    /// The timeline.
    pub timeline: Vec<Segment>,
    /// Our readings and the events worth knowing.
    pub notes: Vec<String>,
}

/// A clip the machine can play.
#[derive(Debug, Clone)]
struct Clip {
    def: &'static SlotDef,
    duration: f64,
    animation: usize,
    name: String,
}

#[derive(Debug, Clone, Copy)]
enum State {
    Standing,
    Playing { slot: u8, local: f64 },
}

struct Machine {
    th: Thresholds,
    params: MachineParams,
    clips: Vec<Option<Clip>>,
}

fn value(constants: &[Constant], name: &str) -> Result<f64, Refusal> {
    let c = constants
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| Refusal::NotComputed(name.to_string()))?;
    match (c.status, c.value) {
        (ConstantStatus::Measured, Some(v)) => Ok(v),
        _ => Err(Refusal::NotMeasured {
            name: name.to_string(),
            status: serde_json::to_value(c.status)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default(),
            detail: c.detail.clone().unwrap_or_default(),
        }),
    }
}

/// Why the machine does not run (or stops): the report's `refused`, in these words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum Refusal {
    /// Clips the set lacks (their expected names).
    #[error("the game would crash on load: missing {}", .0.join(", "))]
    MissingClips(Vec<String>),
    /// A machine parameter that is not a usable number.
    #[error("machine parameters are not usable numbers")]
    Parameters,
    /// A constant the loader does not compute.
    #[error("{0} is not computed")]
    NotComputed(String),
    /// A constant that could not be measured: its status and why.
    #[error("{name} is {status}: {detail}")]
    NotMeasured {
        /// The constant.
        name: String,
        /// Its status word.
        status: String,
        /// What kept it from being measured.
        detail: String,
    },
    /// A threshold that must be positive, with its value.
    #[error("{0} {1} is not positive")]
    NotPositive(&'static str, f64),
    /// A zero reverse stride.
    #[error("gimpStrideLength is 0: the reverse cycle could not advance")]
    GimpStrideZero,
    /// A clip whose duration is not finite and positive.
    #[error("slot {slot} ({clip}) has duration {duration:?}: it could never finish")]
    Duration {
        /// Its slot.
        slot: u8,
        /// Its name.
        clip: String,
        /// Its duration.
        duration: Option<f64>,
    },
    /// A slot the timeline plays that has no clip.
    #[error("slot {0} has no clip")]
    NoClip(u8),
    /// More clip ends in one frame than any clip set makes (at this time).
    #[error("more than {MAX_ENDS_PER_FRAME} clip ends in one frame at {0:.3} s")]
    TooManyEnds(f64),
}

/// The machine for a clip set: refused when a clip is missing, a parameter or a threshold is
/// not usable; a cap that cannot be had leaves its gait unbounded or never armed (a note).
fn prepare(
    slots_in: &[SlotReport],
    constants: &[Constant],
    params: &MachineParams,
    notes: &mut Vec<String>,
) -> Result<Machine, Refusal> {
    let missing: Vec<String> = slots_in
        .iter()
        .filter(|s| s.status == SlotStatus::Missing)
        .filter_map(|s| s.expected.clone())
        .collect();
    if !missing.is_empty() {
        return Err(Refusal::MissingClips(missing));
    }
    let usable = params.frame > 0.0
        && params.frame.is_finite()
        && params.forward_cycle_rate >= 0.0
        && params.forward_cycle_rate.is_finite()
        && params.gimp_cycle_rate >= 0.0
        && params.gimp_cycle_rate.is_finite()
        && params.tail >= 0.0
        && params.tail <= MAX_SECONDS;
    if !usable {
        return Err(Refusal::Parameters);
    }
    let stand_speed = value(constants, "standSpeed")?;
    let walk = value(constants, "walkStrideLength")?;
    let run = value(constants, "reverseStrideLength")?;
    let gimp_stride = value(constants, "gimpStrideLength")?;
    if stand_speed.is_nan() || stand_speed <= 0.0 {
        return Err(Refusal::NotPositive("standSpeed", stand_speed));
    }
    if walk.is_nan() || walk <= 0.0 {
        return Err(Refusal::NotPositive("walkStrideLength", walk));
    }
    if run.is_nan() || run <= 0.0 {
        return Err(Refusal::NotPositive("reverseStrideLength", run));
    }
    if gimp_stride == 0.0 {
        return Err(Refusal::GimpStrideZero);
    }
    let reverse_speed_max = match value(constants, "reverseSpeedMax") {
        Ok(v) => Some(v),
        Err(e) => {
            notes.push(format!("{e}; the walk's upper cap is left unbounded"));
            None
        }
    };
    let gimp_speed_max = match value(constants, "gimpSpeedMax") {
        Ok(v) if v < 0.0 => Some(v),
        Ok(v) => {
            notes.push(format!(
                "gimpSpeedMax {v} is not negative: the reverse gait is never armed"
            ));
            None
        }
        Err(e) => {
            notes.push(format!("{e}; the reverse gait is never armed"));
            None
        }
    };
    let clips = clip_table(slots_in)?;
    Ok(Machine {
        th: Thresholds {
            stand_speed,
            walk_stride_length: walk,
            reverse_speed_max,
            reverse_stride_length: run,
            gimp_speed_max,
            gimp_stride_length: gimp_stride,
        },
        params: params.clone(),
        clips,
    })
}

/// The clips the machine plays (stand, walk, run, reverse) by slot; refused when one has no
/// finite positive duration (it could never finish).
fn clip_table(slots_in: &[SlotReport]) -> Result<Vec<Option<Clip>>, Refusal> {
    let mut clips = vec![None; slots::SLOT_COUNT];
    for s in slots_in {
        let (Some(def), Some(clip)) = (slots::slot_def(s.slot), &s.clip) else {
            continue;
        };
        let used = matches!(
            def.family,
            Family::Stand | Family::Walk | Family::Run | Family::Reverse
        );
        if !used {
            continue;
        }
        let duration = match clip.duration {
            Some(d) if d > 0.0 && d.is_finite() => d,
            other => {
                return Err(Refusal::Duration {
                    slot: s.slot,
                    clip: clip.name.clone(),
                    duration: other,
                })
            }
        };
        if let Some(slot) = clips.get_mut(usize::from(s.slot)) {
            *slot = Some(Clip {
                def,
                duration,
                animation: clip.animation,
                name: clip.name.clone(),
            });
        }
    }
    Ok(clips)
}

/// The machine's state from one frame to the next: what plays, the cycle speed, the hand of
/// the last clip finished, the timeline so far and how far the playing clip has got.
struct Run {
    state: State,
    c: f64,
    last_hand: Option<Hand>,
    timeline: Vec<Segment>,
    played: f64,
}

impl Machine {
    /// The cycle speed after one frame: `c` moved toward the demand `d` (held within the caps of
    /// the family playing in `state`) by at most the family's slew rate.
    fn slewed(&self, state: State, c: f64, d: f64) -> f64 {
        let family = match state {
            State::Standing => Family::Stand,
            State::Playing { slot, .. } => self
                .clip(slot)
                .map(|k| k.def.family)
                .unwrap_or(Family::Stand),
        };
        let (lo, hi, slew) = self.caps(family, c);
        let target = d.max(lo).min(hi);
        let step = slew * self.params.frame;
        if target > c {
            (c + step).min(target)
        } else {
            (c - step).max(target)
        }
    }

    /// Plays one frame from `t0` under demand `d`: the clip advances at its rate, clips that
    /// end hand over to the next or to standing (each a new segment), a decayed cycle speed
    /// winds down to standing. `Err` when the machine cannot go on (its words).
    fn play(&self, run: &mut Run, t0: f64, d: f64) -> Result<(), Refusal> {
        let dt = self.params.frame;
        let mut remaining = dt;
        let mut ends = 0;
        while let State::Playing { slot, local } = run.state {
            let Some(clip) = self.clip(slot) else {
                return Err(Refusal::NoClip(slot));
            };
            let (rate, _) = self.rate(clip.def, run.c);
            let now = t0 + dt - remaining;
            if !(rate > 0.0 && rate.is_finite()) {
                if let Some(seg) = run.timeline.last_mut() {
                    close(seg, now, local, false);
                }
                run.timeline.push(self.segment(
                    now,
                    None,
                    run.c,
                    d,
                    format!(
                        "wind-down: cycle speed {:.3} has decayed; drop to standing",
                        run.c
                    ),
                ));
                run.state = State::Standing;
                return Ok(());
            }
            let need = (clip.duration - local) / rate;
            if need > remaining {
                let local = local + remaining * rate;
                run.state = State::Playing { slot, local };
                run.played = local;
                return Ok(());
            }
            remaining -= need;
            let t_end = t0 + dt - remaining;
            if let Some(seg) = run.timeline.last_mut() {
                close(seg, t_end, clip.duration, true);
            }
            run.last_hand = clip.def.hand;
            match self.finished(clip.def, d, run.c, remaining) {
                Next::Play(next, why) => {
                    run.timeline
                        .push(self.segment(t_end, Some(next), run.c, d, why));
                    run.state = State::Playing {
                        slot: next,
                        local: 0.0,
                    };
                    run.played = 0.0;
                }
                Next::Stand(why) => {
                    run.timeline.push(self.segment(t_end, None, run.c, d, why));
                    run.state = State::Standing;
                }
            }
            ends += 1;
            if ends > MAX_ENDS_PER_FRAME {
                return Err(Refusal::TooManyEnds(t0));
            }
        }
        Ok(())
    }
}

/// What a clip's end leads to.
enum Next {
    Play(u8, String),
    Stand(String),
}

impl Machine {
    fn clip(&self, slot: u8) -> Option<&Clip> {
        self.clips.get(usize::from(slot)).and_then(|c| c.as_ref())
    }

    fn slot(stem: &str, hand: Hand) -> u8 {
        slots::find(stem, hand).map(|d| d.slot).unwrap_or(0)
    }

    /// The cycle speed's caps and slew rate for a family (our reading, see the module doc).
    fn caps(&self, family: Family, cycle: f64) -> (f64, f64, f64) {
        let th = &self.th;
        let f = self.params.forward_cycle_rate;
        let g = self.params.gimp_cycle_rate;
        match family {
            Family::Walk => (
                th.stand_speed,
                th.reverse_speed_max.unwrap_or(f64::INFINITY),
                f,
            ),
            Family::Run => (
                th.walk_stride_length,
                self.params.run_speed_max.unwrap_or(f64::INFINITY),
                f,
            ),
            Family::Reverse => (f64::NEG_INFINITY, th.gimp_speed_max.unwrap_or(0.0), g),
            _ => (0.0, 0.0, if cycle < 0.0 { g } else { f }),
        }
    }

    /// Playback rate of a clip at cycle speed `c`, and whether the ratio was folded.
    fn rate(&self, def: &SlotDef, c: f64) -> (f64, bool) {
        if def.role != Role::Cycle {
            return (1.0, false);
        }
        let ratio = match def.family {
            Family::Walk => c / self.th.walk_stride_length,
            Family::Run => c / self.th.reverse_stride_length,
            Family::Reverse => c / self.th.gimp_stride_length,
            _ => 1.0,
        };
        if def.family == Family::Reverse {
            // The reverse clip is authored backward, not played backward: fold the ratio.
            (ratio.abs(), ratio < 0.0)
        } else {
            (ratio, false)
        }
    }

    /// Case 0: what standing arms, if anything.
    fn arm(&self, d: f64, last: Option<Hand>) -> Option<(u8, String)> {
        let th = &self.th;
        if d > th.stand_speed {
            return Some((
                5,
                format!(
                    "standing: demand {d:.3} > standSpeed {:.3}; armed swr (falls through: \
                     advances this frame)",
                    th.stand_speed
                ),
            ));
        }
        if let Some(g) = th.gimp_speed_max {
            if d < g {
                let hand = last.map(Hand::other).unwrap_or(Hand::Right);
                return Some((
                    Self::slot("sb", hand),
                    format!(
                        "standing: demand {d:.3} < gimpSpeedMax {g:.3}; armed stand -> back \
                         (falls through: advances this frame)"
                    ),
                ));
            }
        }
        None
    }

    /// `LegClipFinished`: the clip in `def` ended with `carry` seconds of the frame left.
    fn finished(&self, def: &SlotDef, d: f64, c: f64, carry: f64) -> Next {
        let th = &self.th;
        let o = def.hand.map(Hand::other).unwrap_or(Hand::Right);
        let f = self.params.forward_cycle_rate;
        let g = self.params.gimp_cycle_rate;
        let stem = def.code.get(..2).unwrap_or("");
        match stem {
            "sw" | "ww" | "rw" => {
                let (s, w) = (th.stand_speed, th.walk_stride_length);
                let down = c - f * carry;
                let up = c + f * carry;
                if d < s && down < s {
                    return Next::Play(
                        Self::slot("ws", o),
                        format!("walk: demand {d:.3} < standSpeed {s:.3} and slewed cycle {down:.3} < {s:.3}"),
                    );
                }
                if d > w && up > w {
                    return Next::Play(
                        Self::slot("wr", o),
                        format!(
                            "walk: demand {d:.3} > walkStrideLength {w:.3} and slewed cycle {up:.3} > {w:.3}"
                        ),
                    );
                }
                let why = if d < s {
                    format!("walk: demand {d:.3} < standSpeed but slewed cycle {down:.3} >= {s:.3}: committed, next stride")
                } else if d > w {
                    format!("walk: demand {d:.3} > walkStrideLength but slewed cycle {up:.3} <= {w:.3}: committed, next stride")
                } else {
                    format!("walk: demand {d:.3} within [{s:.3}, {w:.3}]: next stride")
                };
                Next::Play(Self::slot("ww", o), why)
            }
            "wr" | "rr" => {
                let w = th.walk_stride_length;
                let down = c - f * carry;
                if d < w && down < w {
                    return Next::Play(
                        Self::slot("rw", o),
                        format!("run: demand {d:.3} < walkStrideLength {w:.3} and slewed cycle {down:.3} < {w:.3}"),
                    );
                }
                let why = if d < w {
                    format!("run: demand {d:.3} < walkStrideLength but slewed cycle {down:.3} >= {w:.3}: committed, next stride")
                } else {
                    format!("run: demand {d:.3} >= walkStrideLength {w:.3}: next stride")
                };
                Next::Play(Self::slot("rr", o), why)
            }
            "sb" | "bb" => {
                let gm = th.gimp_speed_max.unwrap_or(0.0);
                let up = c + g * carry;
                if d > gm && up > gm {
                    return Next::Play(
                        Self::slot("bs", o),
                        format!("reverse: demand {d:.3} > gimpSpeedMax {gm:.3} and slewed cycle {up:.3} > {gm:.3}"),
                    );
                }
                let why = if d > gm {
                    format!("reverse: demand {d:.3} > gimpSpeedMax but slewed cycle {up:.3} <= {gm:.3}: committed, next stride")
                } else {
                    format!("reverse: demand {d:.3} <= gimpSpeedMax {gm:.3}: next stride")
                };
                Next::Play(Self::slot("bb", o), why)
            }
            _ => Next::Stand(format!("{} ended: standing", def.code)),
        }
    }

    fn segment(&self, start: f64, slot: Option<u8>, c: f64, d: f64, why: String) -> Segment {
        let clip = slot.and_then(|s| self.clip(s));
        let (rate, folded) = clip.map(|k| self.rate(k.def, c)).unwrap_or((0.0, false));
        Segment {
            start,
            end: start,
            clip: clip.map(|k| k.def.code),
            slot: clip.map(|k| k.def.slot),
            animation: clip.map(|k| k.animation),
            animation_name: clip.map(|k| k.name.clone()),
            hand: clip.and_then(|k| k.def.hand),
            family: clip.map(|k| k.def.family).unwrap_or(Family::Stand),
            role: clip.map(|k| k.def.role),
            rate,
            mean_rate: 0.0,
            folded,
            cycle: c,
            demand: d,
            played: 0.0,
            completed: false,
            why,
        }
    }
}

fn close(seg: &mut Segment, end: f64, played: f64, completed: bool) {
    seg.end = end;
    seg.played = played;
    seg.completed = completed;
    let span = end - seg.start;
    seg.mean_rate = if span > 0.0 { played / span } else { 0.0 };
}

/// Runs the leg channel's machine over `demand` with the loaded slots and constants.
pub(crate) fn run(
    slots_in: &[SlotReport],
    constants: &[Constant],
    demand: &Demand,
    params: &MachineParams,
) -> Simulation {
    let mut notes = vec![
        "leg channel only (the body channel is a near twin that measures; not simulated)".into(),
        "limp set and bump clip are not simulated: the published description defers the Gimp*ClipFinished \
         machines, so a limping mech runs this machine"
            .into(),
        "our reading (the description is silent): run -> walk mirrors the walk's commit test on \
         walkStrideLength; back -> stand on gimpSpeedMax; caps walk [standSpeed, \
         reverseSpeedMax], run [walkStrideLength, runSpeedMax], reverse (-inf, gimpSpeedMax]; \
         transitions play at the authored rate; slew rates are defaulted"
            .into(),
    ];
    let mut sim = Simulation {
        demand: demand.points().iter().map(|&(t, v)| [t, v]).collect(),
        params: params.clone(),
        thresholds: None,
        refused: None,
        timeline: Vec::new(),
        notes: Vec::new(),
    };
    let m = match prepare(slots_in, constants, params, &mut notes) {
        Ok(m) => m,
        Err(e) => {
            sim.refused = Some(e.to_string());
            sim.notes = notes;
            return sim;
        }
    };
    sim.thresholds = Some(m.th.clone());
    let dt = m.params.frame;
    let end = demand.end() + m.params.tail;
    let frames = (end / dt).ceil().clamp(0.0, (2.0 * MAX_SECONDS) / dt) as usize;
    let mut run = Run {
        state: State::Standing,
        c: 0.0,
        last_hand: None,
        timeline: vec![m.segment(0.0, None, 0.0, demand.at(0.0), "initial state".into())],
        played: 0.0,
    };
    for f in 0..frames {
        let t0 = f as f64 * dt;
        let d = demand.at(t0);
        run.c = m.slewed(run.state, run.c, d);
        if let State::Standing = run.state {
            match m.arm(d, run.last_hand) {
                Some((slot, why)) => {
                    if let Some(seg) = run.timeline.last_mut() {
                        close(seg, t0, 0.0, true);
                    }
                    run.timeline.push(m.segment(t0, Some(slot), run.c, d, why));
                    run.state = State::Playing { slot, local: 0.0 };
                    run.played = 0.0;
                }
                None => continue,
            }
        }
        if let Err(why) = m.play(&mut run, t0, d) {
            sim.refused = Some(why.to_string());
            break;
        }
    }
    let t_end = frames as f64 * dt;
    let Run {
        state,
        played,
        mut timeline,
        ..
    } = run;
    if let Some(seg) = timeline.last_mut() {
        match state {
            State::Standing => close(seg, t_end, 0.0, true),
            State::Playing { .. } => close(seg, t_end, played, false),
        }
    }
    // A standing segment that starts and ends at the same time (a clip armed in the frame the
    // previous one ended) says nothing.
    timeline.retain(|s| s.clip.is_some() || s.end > s.start);
    sim.timeline = timeline;
    sim.notes = notes;
    sim
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demand_parses_and_interpolates() {
        let d = parse_demand("0:0, 2:12,6:40,10:0,12:-10").unwrap();
        assert_eq!(
            d.points(),
            &[
                (0.0, 0.0),
                (2.0, 12.0),
                (6.0, 40.0),
                (10.0, 0.0),
                (12.0, -10.0)
            ]
        );
        assert_eq!(d.at(-1.0), 0.0);
        assert_eq!(d.at(1.0), 6.0);
        assert_eq!(d.at(4.0), 26.0);
        assert_eq!(d.at(11.0), -5.0);
        assert_eq!(d.at(20.0), -10.0);
        assert_eq!(d.end(), 12.0);
        assert!(parse_demand("0:0,0:1").is_err());
        assert!(parse_demand("1:2:3").is_err());
        assert!(parse_demand("").is_err());
        assert!(parse_demand("0:nan").is_err());
        assert!(parse_demand("-1:0").is_err());
        assert!(parse_demand("0:0,601:0").is_err());
        let one = parse_demand("3:7").unwrap();
        assert_eq!((one.at(0.0), one.at(9.0)), (7.0, 7.0));
    }
}
