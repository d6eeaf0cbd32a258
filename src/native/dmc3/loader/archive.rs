//! What the player code reads of a character archive (docs/formats.md, archives that carry a
//! character): slots 0, 1, 8, 12, 13 and 14 are fetched at player init, and only the coat
//! shadow's path (slot 14) has no null check, so a Dante costume archive without it crashes
//! (pl018's costumes skip it); the actor holds 39 coat joints and a 96-entry body joint table;
//! a shadow is skinned with the matrices of the model it belongs to (its +0x11 is that model's
//! node count in both retail shadows).
//!
//! An archive is a player archive by its name (`plNNN.pac`) when it is named so; one named
//! like another game archive (`em028.pac`, `st001.pac`) is not; one named otherwise (a nested
//! archive, a file renamed by hand) is judged by its slots: a body model in slot 1.

use super::Finding;
use crate::native::dmc3::container::ContainerKind;
use crate::native::dmc3::pac::{BODY_SHADOW_SLOT, COAT_SHADOW_SLOT, COAT_SLOT, TABLE_START};
use crate::native::record::Evidence;

/// The coat joints the actor allocates.
pub const COAT_NODES: u8 = 39;
/// The entries of the body joint table.
pub const BODY_NODES: u8 = 96;
/// The slot of the body model.
pub const BODY_SLOT: usize = 1;
/// Dante's costume archives (the player code's costume records).
pub const DANTE_COSTUMES: [&str; 6] = ["pl000", "pl011", "pl013", "pl015", "pl016", "pl018"];
/// The Dante costume archive whose costumes (codes 5 and 7) skip the coat shadow.
pub const WITHOUT_COAT_SHADOW: &str = "pl018";

/// What one slot holds, as far as these rules need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotKind {
    /// A MOD or SCM model with its header's node count.
    Model {
        /// MOD or SCM.
        kind: ContainerKind,
        /// Header +0x11.
        nodes: u8,
    },
    /// A shadow model (`SHW `) with its +0x11.
    Shadow {
        /// +0x11.
        nodes: u8,
    },
    /// Anything else.
    Other,
}

/// One non-empty slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// Slot index.
    pub slot: usize,
    /// What it holds.
    pub kind: SlotKind,
}

/// What an archive's file name says about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    /// `plNNN.pac`: a player archive (the lower-cased stem).
    Player(String),
    /// Named like another of the game's archives (two letters and three digits: `em028`).
    Other,
    /// No name that says either: judged by its slots.
    Unnamed,
}

/// What the file name `name` (no folder) says.
pub fn naming(name: Option<&str>) -> Named {
    let Some(stem) = name.and_then(|n| n.rsplit_once('.').map(|(s, _)| s).or(Some(n))) else {
        return Named::Unnamed;
    };
    let stem = stem.to_ascii_lowercase();
    let b = stem.as_bytes();
    let game_like = b.len() == 5
        && b[..2].iter().all(u8::is_ascii_lowercase)
        && b[2..].iter().all(u8::is_ascii_digit);
    match (game_like, stem.starts_with("pl")) {
        (true, true) => Named::Player(stem),
        (true, false) => Named::Other,
        (false, _) => Named::Unnamed,
    }
}

/// Whether the archive is a player archive: by its name, else by a body model in slot 1.
pub fn is_player(named: &Named, slots: &[Slot]) -> bool {
    match named {
        Named::Player(_) => true,
        Named::Other => false,
        Named::Unnamed => model_in(slots, BODY_SLOT).is_some(),
    }
}

/// The node count of the MOD in `slot`, if it holds one.
pub fn model_in(slots: &[Slot], slot: usize) -> Option<u8> {
    slots.iter().find_map(|s| match s.kind {
        SlotKind::Model {
            kind: ContainerKind::Mod,
            nodes,
        } if s.slot == slot => Some(nodes),
        _ => None,
    })
}

/// `slot N (name)`, the place a slot's finding names.
pub fn slot_place(slot: usize) -> String {
    match crate::native::dmc3::pac::slot_name(slot) {
        Some(name) => format!("slot {slot} ({name})"),
        None => format!("slot {slot}"),
    }
}

/// Every finding of the player code on an archive named `name` with these slots (none when
/// it is no player archive).
pub fn archive_findings(name: Option<&str>, slots: &[Slot]) -> Vec<Finding> {
    let named = naming(name);
    if !is_player(&named, slots) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let (body, coat) = (model_in(slots, BODY_SLOT), model_in(slots, COAT_SLOT));
    for (slot, nodes, most, what) in [
        (
            COAT_SLOT,
            coat,
            COAT_NODES,
            "the actor allocates 39 coat joints",
        ),
        (
            BODY_SLOT,
            body,
            BODY_NODES,
            "the body joint table holds 96 entries",
        ),
    ] {
        if let Some(n) = nodes.filter(|&n| n > most) {
            out.push(Finding::stops(
                slot_place(slot),
                "header +0x11 node count",
                format!("{n} nodes, but {what}: the game writes the others past it"),
                Evidence::ExeConfirmed,
            ));
        }
    }
    for (shadow, model) in [(BODY_SHADOW_SLOT, BODY_SLOT), (COAT_SHADOW_SLOT, COAT_SLOT)] {
        let shw = slots.iter().find_map(|s| match s.kind {
            SlotKind::Shadow { nodes } if s.slot == shadow => Some(nodes),
            _ => None,
        });
        if let (Some(s), Some(m)) = (shw, model_in(slots, model)) {
            out.extend(
                crate::native::dmc3::shadow_rules::node_count_finding(s, m, &slot_place(model))
                    .map(|f| f.within(&slot_place(shadow))),
            );
        }
    }
    out.extend(coat_shadow_finding(&named, slots, coat.is_some()));
    out
}

/// Slot 14 where the player code uses it without a null check.
fn coat_shadow_finding(named: &Named, slots: &[Slot], coated: bool) -> Option<Finding> {
    if slots.iter().any(|s| s.slot == COAT_SHADOW_SLOT) {
        return None;
    }
    let place = slot_place(COAT_SHADOW_SLOT);
    let field = format!(
        "slot table +{:#x}",
        TABLE_START + 4 * COAT_SHADOW_SLOT as u64
    );
    let crash = "the player code uses the coat shadow without a null check: the game crashes \
                 when it loads the costume";
    match named {
        Named::Player(stem)
            if DANTE_COSTUMES.contains(&stem.as_str()) && stem != WITHOUT_COAT_SHADOW =>
        {
            Some(Finding::stops(
                place,
                field,
                format!("empty in Dante's costume archive {stem}: {crash}"),
                Evidence::ExeConfirmed,
            ))
        }
        Named::Unnamed if coated => Some(Finding::note(
            place,
            field,
            format!(
                "empty in an archive with a coat: named as one of Dante's costume archives \
                 ({}), {crash}; only {WITHOUT_COAT_SHADOW} skips it",
                DANTE_COSTUMES[..5].join(", ")
            ),
            Evidence::ExeConfirmed,
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_player_other_or_nothing() {
        assert_eq!(naming(Some("PL011.PAC")), Named::Player("pl011".into()));
        assert_eq!(naming(Some("pl018")), Named::Player("pl018".into()));
        assert_eq!(naming(Some("em028.pac")), Named::Other);
        for n in [Some("pl000_00_3.pac"), Some("dmc3_coated.pac"), None] {
            assert_eq!(naming(n), Named::Unnamed, "{n:?}");
        }
    }
}
