//! What every glTF reader here shares (lint, import, gait): the component and element types of
//! accessors, URIs, and the checked accessor reader. The GLB container itself is read in
//! [`super::glb`]. Each reader keeps its own policy for a broken file (the linter reports every
//! problem and goes on, import and gait stop at the first) and its own words for it; the facts
//! come from here.

pub(crate) mod accessor;
pub(crate) mod component;
pub(crate) mod uri;

use std::borrow::Cow;

/// A buffer's bytes, or `None` when they could not be had (the reader said why).
pub(crate) type Buffer<'a> = Option<Cow<'a, [u8]>>;
