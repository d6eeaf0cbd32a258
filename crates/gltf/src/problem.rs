//! The problems a reading meets (a buffer that cannot be loaded, an accessor that cannot be
//! read, a node hierarchy that is not a tree) and the sink each goes to: the words every part of
//! the reading shares, below the document, its buffers and its node graph.

use std::path::PathBuf;

use serde_json::Value;

use crate::accessor::AccError;

/// A problem met while reading a document, for the reader's sink to word.
#[derive(Debug)]
pub enum Problem<'u> {
    /// Buffer `.0` cannot be loaded (or is short).
    Buffer(usize, BufferProblem<'u>),
    /// Accessor `.0` cannot be read.
    Accessor(usize, AccError),
    /// The node hierarchy has a problem.
    Node(NodeProblem<'u>),
}

/// Where the reading's problems go, and whether it goes on after one.
pub trait Sink {
    /// What stops the reading (`Infallible` for a sink that collects everything).
    type Stop;
    /// Takes one problem: `Ok` to go on without the part that failed, `Err` to stop.
    fn report(&mut self, problem: Problem<'_>) -> Result<(), Self::Stop>;
}

/// A sink that stops at the first problem, with the error `.0` makes of it.
pub struct First<F>(pub F);

impl<E, F: FnMut(Problem<'_>) -> E> Sink for First<F> {
    type Stop = E;
    fn report(&mut self, problem: Problem<'_>) -> Result<(), E> {
        Err((self.0)(problem))
    }
}

/// Why a URI's bytes cannot be had.
#[derive(Debug)]
pub enum UriProblem {
    /// A `data:` URI without a comma.
    DataNoComma,
    /// A `data:` URI that is not base64.
    DataNotBase64,
    /// The base64 payload does not decode.
    Base64(base64::DecodeError),
    /// A remote URI (`://`), never fetched.
    Remote,
    /// A scheme other than `file:` ([`Schemes::FileOnly`](crate::buffers::Schemes::FileOnly)).
    Scheme,
    /// A malformed `%` escape ([`Policy::strict_percent`](crate::buffers::Policy::strict_percent)).
    Percent,
    /// The path leaves the base folder ([`Policy::stay_inside`](crate::buffers::Policy::stay_inside)); the decoded name.
    Leaves(String),
    /// A file, but no base folder to find it in; the decoded name (import's words use it).
    NoBaseDir(String),
    /// The file cannot be read: the decoded name, the path tried, the error.
    Io(String, PathBuf, std::io::Error),
    /// The file's size (`.1`) is below `byteLength` (`.2`, import's words use it) or above
    /// 4 GiB ([`FileRead::Checked`](crate::buffers::FileRead::Checked)).
    Size(PathBuf, u64, u64),
}

/// Why a buffer cannot be loaded (or is short).
#[derive(Debug)]
pub enum BufferProblem<'u> {
    /// `buffers` is not an array (reported as buffer 0).
    NotArray,
    /// No valid `byteLength`.
    NoByteLength,
    /// No `uri`, and not buffer 0 of a GLB with a BIN chunk.
    NoUri,
    /// `uri` is not a string.
    UriNotString,
    /// The URI `uri` cannot be followed.
    Uri(&'u str, UriProblem),
    /// Fewer bytes than `byteLength`: declared, present.
    Short(u64, usize),
}

/// A problem of `nodes[*].children`, for the reader's sink to word.
#[derive(Debug)]
pub enum NodeProblem<'v> {
    /// `nodes[node].children` is there but not an array.
    ChildrenNotArray {
        /// The node.
        node: usize,
    },
    /// Entry `k` of node `node`'s children is not the index of one of the `count` nodes.
    NotANode {
        /// The node.
        node: usize,
        /// The entry.
        k: usize,
        /// What the entry holds.
        value: &'v Value,
        /// How many nodes there are.
        count: usize,
    },
    /// Entry `k` of node `node`'s children is the node itself (left without a parent).
    OwnChild {
        /// The node.
        node: usize,
        /// The entry.
        k: usize,
    },
    /// Entry `k` of node `node`'s children names `child`, which `first` listed already (`first`
    /// may be `node` itself, listing it twice): the first parent is kept.
    TwoParents {
        /// The child.
        child: usize,
        /// Its parent so far.
        first: usize,
        /// The node listing it again.
        node: usize,
        /// The entry.
        k: usize,
    },
    /// Following the parents up from `node` comes back to it; the link from `through` (the
    /// last node of the loop) up to its parent was cut.
    Cycle {
        /// The node reached again.
        node: usize,
        /// The node whose parent link was cut.
        through: usize,
    },
}

impl NodeProblem<'_> {
    /// The node the problem is about, and what is wrong with it, in plain words (import's;
    /// the linter words its own findings).
    pub fn words(&self) -> (usize, String) {
        match *self {
            NodeProblem::ChildrenNotArray { node } => (node, "`children` is not an array".into()),
            NodeProblem::NotANode { node, .. } => (
                node,
                "`children` holds something that is not a node index".into(),
            ),
            NodeProblem::OwnChild { node, .. } => (node, "lists itself as a child".into()),
            NodeProblem::TwoParents {
                child, first, node, ..
            } => (
                child,
                format!("is a child of both node {first} and node {node}"),
            ),
            NodeProblem::Cycle { node, through } => (
                node,
                format!("is its own ancestor (through node {through})"),
            ),
        }
    }
}
