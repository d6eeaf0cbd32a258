//! The native payloads as JSON values for glTF extras and back (the extras contract of
//! `schema/rigtrip-extras.schema.json`): u32/u64 and float bit patterns as `0x` hex strings, byte blobs and vertex streams
//! as base64, so that nothing passes through a JSON double or a 31-bit integer.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::{JointPayload, SkeletonPayload, Source};

/// Why extras could not be turned back into payloads.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("rigtrip extras at {pointer}: {problem}")]
pub struct ExtrasError {
    /// JSON-pointer-like location of the bad value.
    pub pointer: String,
    /// What is wrong with it.
    pub problem: String,
}

/// `v` as a JSON tree. Cannot fail for the payloads: they are plain structs with string keys
/// whose fields serialise as strings, numbers, sequences and structs, never with an error (the
/// tests serialise every generated payload).
fn to_json<T: Serialize>(v: &T) -> Value {
    match serde_json::to_value(v) {
        Ok(v) => v,
        Err(e) => {
            debug_assert!(false, "a payload did not serialise: {e}");
            Value::Null
        }
    }
}

/// A payload (or the file-level remainder) borrowed for serialising straight into JSON text,
/// without building a [`Value`] tree on the way (keys come in the types' field order); the
/// `*_to_json` values are this, as a tree.
#[derive(Debug, Clone, Copy)]
pub struct Native<'a, T>(pub &'a T);

impl Serialize for Native<'_, Source> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Source::Hie(h) => h.serialize(s),
            Source::Dmc3(d) => d.serialize(s),
        }
    }
}

impl Serialize for Native<'_, SkeletonPayload> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            SkeletonPayload::Hie(h) => h.serialize(s),
            SkeletonPayload::Dmc3(d) => d.serialize(s),
        }
    }
}

impl Serialize for Native<'_, JointPayload> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            JointPayload::Hie(h) => h.serialize(s),
            JointPayload::Dmc3(d) => d.serialize(s),
        }
    }
}

/// A payload back from JSON; `pointer` names where `v` was found.
pub(crate) fn from_json<T: DeserializeOwned>(v: &Value, pointer: &str) -> Result<T, ExtrasError> {
    T::deserialize(v).map_err(|e| ExtrasError {
        pointer: pointer.to_string(),
        problem: e.to_string(),
    })
}

/// A payload read typed from its JSON text, `None` when that fails: for the import's fast path,
/// whose caller then reads the text as a `Value` with [`from_json`] (which gives the same
/// payload whenever this one gives any, and the error otherwise).
pub(crate) fn from_str<T: DeserializeOwned>(text: &str) -> Option<T> {
    serde_json::from_str(text).ok()
}

/// A shell's extras JSON (`{"file": ...}`) written before the container records named their
/// fields, in the current form ([`crate::native::dmc3::compat`]).
pub(crate) fn upgrade_dmc3_source(
    v: &serde_json::Value,
) -> std::borrow::Cow<'_, serde_json::Value> {
    use std::borrow::Cow;
    let Some(file) = v.get("file") else {
        return Cow::Borrowed(v);
    };
    match crate::native::dmc3::compat::upgrade_file(file) {
        Cow::Borrowed(_) => Cow::Borrowed(v),
        Cow::Owned(file) => {
            let mut v = v.clone();
            v["file"] = file;
            Cow::Owned(v)
        }
    }
}

/// The file-level remainder as JSON.
pub fn source_to_json(s: &Source) -> Value {
    to_json(&Native(s))
}

/// A skeleton's payload as JSON.
pub fn skeleton_to_json(p: &SkeletonPayload) -> Value {
    to_json(&Native(p))
}

/// A joint's payload as JSON.
pub fn joint_to_json(p: &JointPayload) -> Value {
    to_json(&Native(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::NativeFile;
    use crate::rig;
    use crate::synth;

    fn round_trip(data: &[u8], format: Option<crate::native::Format>) {
        let r = rig::lift(NativeFile::read(format, data).unwrap());
        let f = crate::rig::formats::by_name(r.kind()).unwrap();
        let source = f
            .source_from_json(&source_to_json(&r.source), "/s")
            .unwrap();
        assert_eq!(source, r.source);
        for s in &r.skeletons {
            let back = f
                .skeleton_from_json(&skeleton_to_json(&s.native), "/k")
                .unwrap();
            assert_eq!(back, s.native);
            for j in &s.joints {
                let back = f.joint_from_json(&joint_to_json(&j.native), "/j").unwrap();
                assert_eq!(back, j.native);
            }
        }
    }

    #[test]
    fn native_text_is_the_json_value() {
        let same = |v: Value, text: Result<String, serde_json::Error>| {
            assert_eq!(serde_json::from_str::<Value>(&text.unwrap()).unwrap(), v);
        };
        for seed in 0..20 {
            for (data, format) in synth::rig_files(seed) {
                let r = rig::lift(NativeFile::read(format, &data).unwrap());
                same(
                    source_to_json(&r.source),
                    serde_json::to_string(&Native(&r.source)),
                );
                for s in &r.skeletons {
                    same(
                        skeleton_to_json(&s.native),
                        serde_json::to_string(&Native(&s.native)),
                    );
                    for j in &s.joints {
                        same(
                            joint_to_json(&j.native),
                            serde_json::to_string(&Native(&j.native)),
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn payloads_survive_json() {
        for seed in 0..40 {
            for (data, format) in synth::rig_files(seed) {
                round_trip(&data, format);
            }
            let (b, offset, nodes) = synth::dmc3::random_block_file(seed);
            round_trip(&b, Some(crate::native::Format::Block { offset, nodes }));
        }
    }

    #[test]
    fn no_json_number_reaches_two_to_the_31() {
        fn check(v: &Value, path: &str) {
            match v {
                Value::Number(n) => assert!(
                    n.as_i64().is_some_and(|x| x.abs() < 1 << 31),
                    "{path}: {n} would not survive Blender"
                ),
                Value::Array(a) => a
                    .iter()
                    .enumerate()
                    .for_each(|(i, x)| check(x, &format!("{path}/{i}"))),
                Value::Object(o) => o.iter().for_each(|(k, x)| check(x, &format!("{path}/{k}"))),
                _ => {}
            }
        }
        for seed in 0..40 {
            let files = [
                (synth::dmc3::random_mod(seed), crate::native::Format::Dmc3),
                (synth::hie::random(seed), crate::native::Format::Hie),
            ];
            for (data, format) in files {
                let r = rig::lift(NativeFile::read(Some(format), &data).unwrap());
                check(&source_to_json(&r.source), "source");
                for s in &r.skeletons {
                    check(&skeleton_to_json(&s.native), "skeleton");
                    for j in &s.joints {
                        check(&joint_to_json(&j.native), "joint");
                    }
                }
            }
        }
    }
}
