//! The formats the rig layer knows, by name, and the dispatch from a [`Source`] to its format:
//! the registry above every format's implementation of [`RigFormat`].

use super::format::{Payloads, RigFormat};
use super::Source;

/// Every format the glTF layer knows, in the order their names are listed in messages.
pub const FORMATS: [&dyn RigFormat; 2] = [&super::hie::HieFormat, &super::dmc3_format::Dmc3Format];

/// The format whose [`RigFormat::names`] include `name` (as in `scene.extras.rigtrip.format`).
pub fn by_name(name: &str) -> Option<&'static dyn RigFormat> {
    FORMATS.into_iter().find(|f| f.names().contains(&name))
}

/// Every format name, for messages: `hie, mod, scm or block`.
pub fn names_listed() -> String {
    let names: Vec<&str> = FORMATS
        .iter()
        .flat_map(|f| f.names().iter().copied())
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// A [`Source`] read typed as the variant [`Payloads`] names (inside a larger typed read: the
/// scene extras).
pub struct SourceSeed(pub Payloads);

impl<'de> serde::de::DeserializeSeed<'de> for SourceSeed {
    type Value = Source;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Source, D::Error> {
        use serde::Deserialize;
        match self.0 {
            Payloads::Hie => super::hie::HieShell::deserialize(d).map(Source::Hie),
            Payloads::Dmc3 => super::dmc3::Dmc3Shell::deserialize(d).map(Source::Dmc3),
        }
    }
}

impl Source {
    /// The format this source belongs to.
    pub fn format(&self) -> &'static dyn RigFormat {
        match self {
            Source::Hie(_) => &super::hie::HieFormat,
            Source::Dmc3(_) => &super::dmc3_format::Dmc3Format,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_their_format_and_list_in_order() {
        assert_eq!(names_listed(), "hie, mod, scm or block");
        for name in ["hie", "mod", "scm", "block"] {
            assert!(by_name(name).unwrap().names().contains(&name));
        }
        assert!(by_name("fbx").is_none());
        assert_eq!(by_name("hie").unwrap().max_joints(), 32767);
        assert_eq!(by_name("mod").unwrap().max_joints(), 256);
    }
}
