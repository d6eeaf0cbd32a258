//! One finding of the game's loader model (`rigtrip check`): where in a file, which field, what
//! the game does with it, how sure we are, and whether it would stop the game.
//!
//! Each format's rules live beside its reader (the loader's limits are format knowledge) and
//! return these; `ops::check` walks files and archives and reports them.

use serde::Serialize;

use crate::native::record::Evidence;

/// Whether a finding would stop the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The game would crash, write outside the file, read garbage or refuse the file.
    Stops,
    /// The game loads it, but it departs from what the retail files do (worth knowing).
    Note,
}

impl Severity {
    /// The word the text report prints.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Stops => "stops",
            Severity::Note => "note",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Where: the member or slot and the structure (`slot 12 (coat), object 1 mesh 0`).
    pub place: String,
    /// The field, with its offset where it has one (`+0x40 index workspace offset`).
    pub field: String,
    /// What is wrong, and what the game does with it.
    pub problem: String,
    /// How sure we are of the rule.
    pub evidence: Evidence,
    /// Whether it would stop the game.
    pub severity: Severity,
}

impl Finding {
    /// A finding that would stop the game.
    pub fn stops(
        place: impl Into<String>,
        field: impl Into<String>,
        problem: impl Into<String>,
        evidence: Evidence,
    ) -> Finding {
        Finding {
            place: place.into(),
            field: field.into(),
            problem: problem.into(),
            evidence,
            severity: Severity::Stops,
        }
    }

    /// A finding the game copes with.
    pub fn note(
        place: impl Into<String>,
        field: impl Into<String>,
        problem: impl Into<String>,
        evidence: Evidence,
    ) -> Finding {
        Finding {
            severity: Severity::Note,
            ..Finding::stops(place, field, problem, evidence)
        }
    }

    /// The same finding inside a larger place (an archive member: `slot 1 (body)`).
    pub fn within(mut self, outer: &str) -> Finding {
        self.place = if self.place.is_empty() {
            outer.to_string()
        } else {
            format!("{outer}, {}", self.place)
        };
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_within_a_member_names_the_member_first() {
        let f = Finding::stops("object 1 mesh 0", "+0x40", "x", Evidence::ExeConfirmed);
        assert_eq!(
            f.clone().within("slot 1 (body)").place,
            "slot 1 (body), object 1 mesh 0"
        );
        let g = Finding::note("", "+0x11", "y", Evidence::CorpusConfirmed).within("slot 8");
        assert_eq!((g.place.as_str(), g.severity), ("slot 8", Severity::Note));
    }
}
