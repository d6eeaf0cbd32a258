//! The native payloads as JSON values for glTF extras and back (the extras contract in
//! DESIGN.md): u32 and float bit patterns as hex strings, so that nothing passes through a JSON
//! double or a 31-bit integer. STUB until the native payload types settle.

use serde_json::Value;

use super::{JointPayload, SkeletonPayload, Source};

/// Why extras could not be turned back into payloads.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("rigtrip extras at {pointer}: {problem}")]
pub struct ExtrasError {
    /// JSON pointer-like location of the bad value.
    pub pointer: String,
    /// What is wrong with it.
    pub problem: String,
}

/// The file-level remainder as JSON.
pub fn source_to_json(_s: &Source) -> Value {
    Value::Null
}

/// A skeleton's payload as JSON.
pub fn skeleton_to_json(_p: &SkeletonPayload) -> Value {
    Value::Null
}

/// A joint's payload as JSON.
pub fn joint_to_json(_p: &JointPayload) -> Value {
    Value::Null
}
