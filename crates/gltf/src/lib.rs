//! The glTF read model every glTF reader of rigtrip shares (the converter's import, the linter,
//! gait): the GLB container both ways ([`glb`]); the one parse of a document's JSON
//! ([`parse`]: node and scene extras kept as text until asked for, and read typed from it);
//! one document model ([`doc`]: the JSON root, the extras text, the buffers, accessors) with a
//! diagnostics sink; one buffer loader under each reader's policy ([`buffers`]); the component
//! and element types of accessors, URIs, the checked accessor reader; the node hierarchy
//! ([`graph`]: parents, cycles); the channels and samplers of animations ([`anim`]); the
//! sampler player ([`player`]); the small readers of JSON values ([`json`]: lists, indices,
//! numbers); and the two codecs every report and document
//! uses, base64 ([`b64`]) and numbers for people ([`units`]). Each reader keeps its own policy
//! for a broken file (the linter reports every problem and goes on, import and gait stop at the
//! first) and its own words for it; the facts come from here. The linter alone parses with its
//! own reader (it drops every extras at any depth, and reads a whole number written `1.0` as
//! the integer it is, as the glTF validator does).

pub mod accessor;
pub mod anim;
pub mod b64;
pub mod buffers;
pub mod component;
pub mod doc;
pub mod glb;
pub mod graph;
pub mod json;
pub mod parse;
pub mod player;
pub mod problem;
pub mod units;
pub mod uri;

use std::borrow::Cow;

/// A read that would leave the input, or a region that does not fit in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} at offset {offset:#x} ({len} bytes) runs past the end of the file ({file_len:#x} bytes)")]
pub struct OutOfBounds {
    /// What was being read, in the format's words.
    pub what: String,
    /// Absolute byte offset of the read.
    pub offset: u64,
    /// Length of the read.
    pub len: u64,
    /// Length of the whole input.
    pub file_len: u64,
}

/// A buffer or accessor that cannot be read: where import and gait stop.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DataError {
    /// A buffer is missing or short.
    #[error("buffer {buffer}: {problem}")]
    Buffer {
        /// Buffer index.
        buffer: usize,
        /// What is wrong.
        problem: String,
    },
    /// An accessor is broken.
    #[error("accessor {accessor}: {problem}")]
    Accessor {
        /// Accessor index.
        accessor: usize,
        /// What is wrong.
        problem: String,
    },
}

/// A buffer's bytes, or `None` when they could not be had (the reader said why).
pub type Buffer<'a> = Option<Cow<'a, [u8]>>;
