//! What every glTF reader here shares (lint, import, gait): one document model ([`doc`]: the
//! JSON root, the buffers, accessors) with a diagnostics sink, one buffer loader under each
//! reader's policy ([`buffers`]), the component and element types of accessors, URIs, the
//! checked accessor reader, the node hierarchy ([`graph`]: parents, cycles) and the sampler
//! player ([`player`]). The GLB container itself is read
//! in [`super::glb`]. Each reader keeps its own policy for a broken file (the linter reports
//! every problem and goes on, import and gait stop at the first) and its own words for it; the
//! facts come from here.

pub(crate) mod accessor;
pub(crate) mod buffers;
pub(crate) mod component;
pub(crate) mod doc;
pub(crate) mod graph;
pub(crate) mod player;
pub(crate) mod uri;

use std::borrow::Cow;

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
pub(crate) type Buffer<'a> = Option<Cow<'a, [u8]>>;
