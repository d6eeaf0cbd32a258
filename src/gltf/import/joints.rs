//! Which joint a node is: the identities the import assigns, shared by the rebuild of the rig
//! and the geometry comparison (a leaf: it depends on neither).

use crate::rig::format::Recorded;

/// A joint's identity within its skeleton: an original native index, or a node that is new.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum JointKey {
    /// Original joint `k`.
    Old(usize),
    /// A joint added in the glTF: its node index.
    New(usize),
}

impl JointKey {
    /// The original index, `None` for an added joint.
    pub fn original(self) -> Option<usize> {
        match self {
            JointKey::Old(k) => Some(k),
            JointKey::New(_) => None,
        }
    }
}

/// A node that is a joint: which skeleton, which identity, what its extras hold.
#[derive(Debug, Clone)]
pub(crate) struct JointNode {
    /// Skeleton index.
    pub skeleton: usize,
    /// Identity.
    pub key: JointKey,
    /// Whether the node's extras carry `native`.
    pub native: bool,
    /// Whether it was matched by its default name rather than by its extras.
    pub by_name: bool,
    /// The stored placement its extras recorded.
    pub recorded: Recorded,
}

/// Which joint each node is, and each written joint's identity.
#[derive(Debug, Clone, Default)]
pub(crate) struct Identities {
    /// Per node: the joint it is, if any.
    pub nodes: Vec<Option<JointNode>>,
    /// Per skeleton, per written joint: its identity.
    pub keys: Vec<Vec<JointKey>>,
}
