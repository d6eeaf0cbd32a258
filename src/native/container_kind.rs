//! Which DMC3 container a file is (`MOD ` or `SCM `): a name the record layer's decode context
//! and the DMC3 reader share, kept below both.

use serde::{Deserialize, Serialize};

/// Which container the magic names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ContainerKind {
    /// `"MOD "`: a character model, with bone-index and weight streams.
    #[default]
    Mod,
    /// `"SCM "`: stage geometry, with vertex colours instead of bone streams.
    Scm,
}

impl ContainerKind {
    /// The four magic bytes.
    pub fn magic(self) -> [u8; 4] {
        match self {
            ContainerKind::Mod => *b"MOD ",
            ContainerKind::Scm => *b"SCM ",
        }
    }

    /// The kind named by a magic, if any.
    pub fn from_magic(m: [u8; 4]) -> Option<Self> {
        match &m {
            b"MOD " => Some(ContainerKind::Mod),
            b"SCM " => Some(ContainerKind::Scm),
            _ => None,
        }
    }

    /// `mod` or `scm`.
    pub fn name(self) -> &'static str {
        match self {
            ContainerKind::Mod => "mod",
            ContainerKind::Scm => "scm",
        }
    }
}
