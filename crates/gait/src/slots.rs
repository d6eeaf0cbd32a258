//! The loader's slot table (the game's `LoadLocomotionClips`): which three-letter code fills which
//! of the 0x21 `animationClips` slots, and what each clip is for.

use serde::Serialize;

/// Size of `animationClips`: the bump clip sits at 0x20, so the table has 0x21 slots (sizing it
/// from the 0x1d-entry state-name enum was the original bug the published description records).
pub const SLOT_COUNT: usize = 0x21;

/// The slot the bump (crash stagger) clip fills.
pub const BUMP_SLOT: u8 = 0x20;

/// The code the loader probes to decide whether the optional limp set is present.
pub const LIMP_PROBE: &str = "wgl";

/// Which foot a clip steps with (the clip code's last letter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Hand {
    /// `…r`.
    Right,
    /// `…l`.
    Left,
}

impl Hand {
    /// The other foot: the next stride steps with it.
    pub fn other(self) -> Hand {
        match self {
            Hand::Right => Hand::Left,
            Hand::Left => Hand::Right,
        }
    }

    /// `R` or `L`, for tables.
    pub fn letter(self) -> char {
        match self {
            Hand::Right => 'R',
            Hand::Left => 'L',
        }
    }
}

/// How the loader treats a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlotSet {
    /// Resolved unguarded: a missing clip crashes the original on load.
    Mandatory,
    /// Resolved only when the `wgl` probe succeeds (then unguarded as well).
    Limp,
    /// This loader never fills the slot (0-4, 28-31).
    NotFilled,
}

/// The gait a clip belongs to, for the transition machine and its speed caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// Standing, walk -> stand, back -> stand.
    Stand,
    /// Stand -> walk, the walk cycle, run -> walk.
    Walk,
    /// Walk -> run, the run cycle.
    Run,
    /// Stand -> back, the reverse cycle.
    Reverse,
    /// The limp set (not simulated: the published description defers the limp machines).
    Limp,
    /// The bump clip (not simulated).
    Bump,
}

/// Whether a clip is one stride of a cycle (played at cycle/strideLength) or a transition
/// (played at the authored rate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Enters or leaves a cycle; played at the authored rate.
    Transition,
    /// One stride of a cycle; played at cycle/strideLength of the authored rate.
    Cycle,
    /// Neither (bump).
    Other,
}

/// One slot the loader fills.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlotDef {
    /// Slot index in `animationClips`.
    pub slot: u8,
    /// The three-letter code appended to the model's prefix.
    pub code: &'static str,
    /// What the clip does.
    pub meaning: &'static str,
    /// The foot it steps with (`None` for the bump clip).
    pub hand: Option<Hand>,
    /// How the loader treats it.
    pub set: SlotSet,
    /// The gait family the clip plays in (and the family its caps come from).
    pub family: Family,
    /// Transition or cycle stride.
    pub role: Role,
    /// +1 when the clip travels along the forward axis, -1 when it is authored backward (the
    /// reverse gait): its stride is the distance along that direction.
    pub direction: f64,
    /// The loader constants measured from this slot.
    pub measures: &'static [&'static str],
}

#[allow(clippy::too_many_arguments)]
const fn def(
    slot: u8,
    code: &'static str,
    meaning: &'static str,
    hand: Option<Hand>,
    set: SlotSet,
    family: Family,
    role: Role,
    direction: f64,
    measures: &'static [&'static str],
) -> SlotDef {
    SlotDef {
        slot,
        code,
        meaning,
        hand,
        set,
        family,
        role,
        direction,
        measures,
    }
}

use Family as F;
use Hand::{Left as L, Right as R};
use Role::{Cycle as C, Other as O, Transition as T};
use SlotSet::{Limp as LIMP, Mandatory as M};

/// Every slot the loader fills, in slot order.
pub const SLOTS: &[SlotDef] = &[
    def(
        5,
        "swr",
        "stand -> walk",
        Some(R),
        M,
        F::Walk,
        T,
        1.0,
        &["standSpeed"],
    ),
    def(
        6,
        "wwr",
        "walk cycle",
        Some(R),
        M,
        F::Walk,
        C,
        1.0,
        &["walkStrideLength"],
    ),
    def(
        7,
        "wwl",
        "walk cycle",
        Some(L),
        M,
        F::Walk,
        C,
        1.0,
        &["walkStrideLength"],
    ),
    def(8, "wsr", "walk -> stand", Some(R), M, F::Stand, T, 1.0, &[]),
    def(9, "wsl", "walk -> stand", Some(L), M, F::Stand, T, 1.0, &[]),
    def(
        10,
        "wrr",
        "walk -> run",
        Some(R),
        M,
        F::Run,
        T,
        1.0,
        &["reverseSpeedMax"],
    ),
    def(11, "wrl", "walk -> run", Some(L), M, F::Run, T, 1.0, &[]),
    def(
        12,
        "rrr",
        "run cycle",
        Some(R),
        M,
        F::Run,
        C,
        1.0,
        &["reverseStrideLength"],
    ),
    def(
        13,
        "rrl",
        "run cycle",
        Some(L),
        M,
        F::Run,
        C,
        1.0,
        &["reverseStrideLength", "gimpStrideLength (stale)"],
    ),
    def(14, "rwr", "run -> walk", Some(R), M, F::Walk, T, 1.0, &[]),
    def(15, "rwl", "run -> walk", Some(L), M, F::Walk, T, 1.0, &[]),
    def(
        16,
        "sbr",
        "stand -> back (reverse entry)",
        Some(R),
        M,
        F::Reverse,
        T,
        -1.0,
        &["gimpSpeedMax"],
    ),
    def(
        17,
        "sbl",
        "stand -> back (reverse entry)",
        Some(L),
        M,
        F::Reverse,
        T,
        -1.0,
        &[],
    ),
    def(
        18,
        "bbr",
        "reverse cycle",
        Some(R),
        M,
        F::Reverse,
        C,
        -1.0,
        &["(measured, then overwritten)"],
    ),
    def(
        19,
        "bbl",
        "reverse cycle",
        Some(L),
        M,
        F::Reverse,
        C,
        -1.0,
        &["gimpStrideLength"],
    ),
    def(
        20,
        "bsr",
        "back -> stand (reverse exit)",
        Some(R),
        M,
        F::Stand,
        T,
        -1.0,
        &[],
    ),
    def(
        21,
        "bsl",
        "back -> stand (reverse exit)",
        Some(L),
        M,
        F::Stand,
        T,
        -1.0,
        &[],
    ),
    def(
        22,
        "wgl",
        "walk -> limp",
        Some(L),
        LIMP,
        F::Limp,
        T,
        1.0,
        &["gimpLeftSpeedMax"],
    ),
    def(
        23,
        "wgr",
        "walk -> limp",
        Some(R),
        LIMP,
        F::Limp,
        T,
        1.0,
        &["gimpRightSpeedMax"],
    ),
    def(
        24,
        "ggr",
        "limp cycle",
        Some(R),
        LIMP,
        F::Limp,
        C,
        1.0,
        &["gimpLeftStrideLength"],
    ),
    def(
        25,
        "ggl",
        "limp cycle",
        Some(L),
        LIMP,
        F::Limp,
        C,
        1.0,
        &["gimpRightStrideLength"],
    ),
    def(
        26,
        "gsl",
        "limp -> stand",
        Some(L),
        LIMP,
        F::Limp,
        T,
        1.0,
        &[],
    ),
    def(
        27,
        "gsr",
        "limp -> stand",
        Some(R),
        LIMP,
        F::Limp,
        T,
        1.0,
        &[],
    ),
    def(
        BUMP_SLOT,
        "bmp",
        "bump / crash stagger",
        None,
        M,
        F::Bump,
        O,
        1.0,
        &[],
    ),
];

/// The definition of `slot`, if the loader fills it.
pub fn slot_def(slot: u8) -> Option<&'static SlotDef> {
    SLOTS.iter().find(|d| d.slot == slot)
}

/// The definition of the slot with `code`.
pub fn by_code(code: &str) -> Option<&'static SlotDef> {
    SLOTS.iter().find(|d| d.code == code)
}

/// The slot whose code starts with `code_stem` and steps with `hand` (`ww` + left is 7).
pub fn find(code_stem: &str, hand: Hand) -> Option<&'static SlotDef> {
    SLOTS
        .iter()
        .find(|d| d.code.starts_with(code_stem) && d.code.len() == 3 && d.hand == Some(hand))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_the_seed() {
        assert_eq!(SLOT_COUNT, 33);
        assert_eq!(SLOTS.len(), 24);
        let codes: Vec<(u8, &str)> = SLOTS.iter().map(|d| (d.slot, d.code)).collect();
        assert_eq!(
            codes,
            vec![
                (5, "swr"),
                (6, "wwr"),
                (7, "wwl"),
                (8, "wsr"),
                (9, "wsl"),
                (10, "wrr"),
                (11, "wrl"),
                (12, "rrr"),
                (13, "rrl"),
                (14, "rwr"),
                (15, "rwl"),
                (16, "sbr"),
                (17, "sbl"),
                (18, "bbr"),
                (19, "bbl"),
                (20, "bsr"),
                (21, "bsl"),
                (22, "wgl"),
                (23, "wgr"),
                (24, "ggr"),
                (25, "ggl"),
                (26, "gsl"),
                (27, "gsr"),
                (32, "bmp"),
            ]
        );
        for d in SLOTS {
            let last = d.code.chars().last();
            match d.hand {
                Some(Hand::Right) => assert_eq!(last, Some('r'), "{}", d.code),
                Some(Hand::Left) => assert_eq!(last, Some('l'), "{}", d.code),
                None => assert_eq!(d.code, "bmp"),
            }
        }
        assert_eq!(find("ww", Hand::Left).map(|d| d.slot), Some(7));
        assert_eq!(find("sw", Hand::Left), None);
        assert_eq!(by_code(LIMP_PROBE).map(|d| d.slot), Some(22));
    }
}
