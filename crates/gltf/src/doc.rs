//! The one document model every glTF reader here works on: the JSON root (with the node and
//! scene extras as text when [`crate::parse`] read it), the loaded buffers and accessors through
//! the shared checked reader; and
//! the diagnostics [`Sink`] through which the readers learn of every problem: the linter's
//! collects them all and goes on, import's and gait's stop at the first ([`First`]).

use std::borrow::Cow;
use std::path::Path;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::accessor::{self, Acc, AccError};
use super::buffers::{self, Policy};
use super::Buffer;
pub use crate::problem::{First, Problem, Sink};

/// A glTF document: the JSON root, the node and scene extras the parse kept as text, each
/// buffer's bytes (`None` where a collecting sink let a failed one pass) and the bound on
/// accessors without a buffer view.
#[derive(Debug)]
pub struct Document<'a> {
    /// The JSON root object (without the node and scene extras [`crate::parse::parse`] keeps
    /// as text).
    pub root: Cow<'a, Map<String, Value>>,
    /// `nodes[i].extras` as text when the JSON was read by [`crate::parse::parse`] (empty
    /// otherwise: the extras are then still in the root).
    pub node_extras: Vec<Option<&'a RawValue>>,
    /// `scenes[i].extras` as text, likewise.
    pub scene_extras: Vec<Option<&'a RawValue>>,
    /// Buffers by index.
    pub buffers: Vec<Buffer<'a>>,
    /// Most components an accessor without a buffer view may have (its zeros are allocated).
    pub limit: usize,
}

impl<'a> Document<'a> {
    /// Loads the buffers of `root` (`bin`: the GLB's BIN chunk) under `policy`, problems to
    /// `sink`. `limit` starts at 0 (no view-less accessor): the reader sets its own bound.
    pub fn load<S: Sink>(
        root: Cow<'a, Map<String, Value>>,
        bin: Option<&'a [u8]>,
        base_dir: Option<&Path>,
        policy: &Policy,
        sink: &mut S,
    ) -> Result<Self, S::Stop> {
        let buffers = buffers::load(&root, bin, base_dir, policy, sink)?;
        Ok(Document {
            root,
            node_extras: Vec::new(),
            scene_extras: Vec::new(),
            buffers,
            limit: 0,
        })
    }

    /// The JSON root object.
    pub fn json(&self) -> &Map<String, Value> {
        &self.root
    }

    /// Node `i`'s extras as text, when the parse kept them so.
    pub fn node_extras(&self, i: usize) -> Option<&'a RawValue> {
        self.node_extras.get(i).copied().flatten()
    }

    /// Scene `i`'s extras as text, when the parse kept them so.
    pub fn scene_extras(&self, i: usize) -> Option<&'a RawValue> {
        self.scene_extras.get(i).copied().flatten()
    }

    /// Total bytes of the buffers loaded.
    pub fn buffer_bytes(&self) -> usize {
        self.buffers.iter().flatten().map(|b| b.len()).sum()
    }

    /// The array under a top-level key (empty when absent or not an array).
    pub fn array(&self, key: &str) -> &[Value] {
        self.root
            .get(key)
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// Accessor `i`, checked against its view and buffer.
    pub fn resolve(&self, i: usize) -> Result<Acc<'_>, AccError> {
        accessor::resolve(&self.root, &self.buffers, i, self.limit)
    }

    /// Accessor `i`; `Ok(None)` when it cannot be read and `sink` goes on.
    pub fn accessor<S: Sink>(&self, i: usize, sink: &mut S) -> Result<Option<Acc<'_>>, S::Stop> {
        match self.resolve(i) {
            Ok(a) => Ok(Some(a)),
            Err(e) => sink.report(Problem::Accessor(i, e)).map(|()| None),
        }
    }

    /// A short description of node `i` for messages: `node 5 "hips"`.
    pub fn node_label(&self, i: usize) -> String {
        match self
            .array("nodes")
            .get(i)
            .and_then(|n| n.get("name"))
            .and_then(Value::as_str)
        {
            Some(name) => format!("node {i} {name:?}"),
            None => format!("node {i}"),
        }
    }
}
