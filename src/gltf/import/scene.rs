//! The extras contract on the way in: the scene that carries `scene.extras.rigtrip`, and what it
//! holds (format, schema, space, the file-level remainder, each skeleton's name, joint count
//! and payload), checked against the format it names.

use std::borrow::Cow;

use serde_json::Value;

use serde::de::{self, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::fmt;

use super::graph::{int_of, rigtrip_of, short};
use super::read::Doc;
use super::ImportError;
use crate::gltf::read::parse::typed;
use crate::rig::extras::ExtrasError;
use crate::rig::format::RigFormat;
use crate::rig::formats;
use crate::rig::space::{Space, SpaceRotation};
use crate::rig::{SkeletonPayload, Source};

/// The extras layout version this import reads.
const SCHEMA: usize = 1;

/// The file-level data from `scene.extras.rigtrip`.
#[derive(Debug)]
pub(crate) struct SceneExtras {
    /// Native format name (`Rig::kind`).
    pub kind: String,
    /// The format it belongs to.
    pub format: &'static dyn RigFormat,
    /// The space conversion to invert.
    pub space: Space,
    /// The file-level remainder.
    pub source: Source,
    /// Skeletons in native order.
    pub skeletons: Vec<SkelExtras>,
}

/// One skeleton's entry in the scene extras.
#[derive(Debug, Clone)]
pub(crate) struct SkelExtras {
    /// Name.
    pub name: String,
    /// Joint count in the original file.
    pub joints: usize,
    /// Native payload.
    pub native: SkeletonPayload,
}

/// An [`ImportError::Extras`] at `pointer`.
pub(crate) fn extras_err(pointer: String, problem: impl Into<String>) -> ImportError {
    ImportError::Extras(ExtrasError {
        pointer,
        problem: problem.into(),
    })
}

/// A scene's `extras.rigtrip` as found: read typed (in the export's own form), or as a `Value`.
#[derive(Debug)]
pub(crate) enum Found<'v> {
    /// Read typed, with whether it records motions, and the scene's extras text.
    Typed(Box<SceneExtras>, bool, &'v RawValue),
    /// The value, when the extras were not in that form (or not kept as text).
    Value(Cow<'v, Value>),
}

/// `extras.rigtrip` of `scene` as a value, its extras being the text `raw`.
pub(crate) fn rigtrip_value<'v>(scene: &'v Value, raw: &RawValue) -> Cow<'v, Value> {
    rigtrip_of(scene, Some(raw)).unwrap_or(Cow::Owned(Value::Null))
}

/// The scene carrying rigtrip data (the document's default scene first) and that data.
pub(crate) fn find_scene<'v>(doc: &'v Doc) -> Result<(usize, &'v Value, Found<'v>), ImportError> {
    let json = &doc.json();
    let scenes: &[Value] = doc.array("scenes");
    let first = json
        .get("scene")
        .and_then(Value::as_u64)
        .and_then(|s| usize::try_from(s).ok())
        .filter(|&s| s < scenes.len());
    let order = first
        .into_iter()
        .chain((0..scenes.len()).filter(|&s| Some(s) != first));
    for s in order {
        let raw = doc.scene_extras(s);
        if let Some(raw) = raw {
            match typed::object::<typed::Extras<SceneIn>>(raw.get()).map(|e| e.rigtrip) {
                Some(None) => continue,
                Some(Some(m)) => {
                    if let Some((ex, motions)) = SceneExtras::typed(m) {
                        return Ok((s, &scenes[s], Found::Typed(Box::new(ex), motions, raw)));
                    }
                }
                None => {}
            }
        }
        if let Some(r) = rigtrip_of(&scenes[s], raw) {
            return Ok((s, &scenes[s], Found::Value(r)));
        }
    }
    let nodes_have = json
        .get("nodes")
        .and_then(Value::as_array)
        .is_some_and(|n| {
            n.iter()
                .enumerate()
                .any(|(i, n)| rigtrip_of(n, doc.node_extras(i)).is_some())
        });
    Err(if nodes_have {
        ImportError::NoSceneExtras
    } else {
        ImportError::NoExtras
    })
}

/// `scene.extras.rigtrip` in the form the export writes it, read typed (see [`SceneExtras::typed`]):
/// what the derived reader of these fields reads (every field once, unknown ones skipped), the
/// source read as the type of the format named before it (the export writes `format` first),
/// or kept as text when none was.
struct SceneIn<'a> {
    schema: usize,
    format: &'a str,
    space: SpaceIn<'a>,
    source: SourceIn<'a>,
    skeletons: Vec<&'a RawValue>,
    motions: Option<&'a RawValue>,
}

/// `scene.extras.rigtrip.source` as read: typed, or as text for want of a known format before it.
// One per document, moved once: a box would cost more than the size difference.
#[allow(clippy::large_enum_variant)]
enum SourceIn<'a> {
    /// Read as the source of the format named before it.
    Read(Source),
    /// Its text.
    Text(&'a RawValue),
}

impl<'de> Deserialize<'de> for SceneIn<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(SceneVisitor)
    }
}

/// The visitor of [`SceneIn`].
struct SceneVisitor;

/// [`SpaceIn`] read from an object only.
struct SpaceObject<'a>(SpaceIn<'a>);

impl<'de> Deserialize<'de> for SpaceObject<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        typed::object_field(d).map(SpaceObject)
    }
}

impl<'de> Visitor<'de> for SceneVisitor {
    type Value = SceneIn<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("rigtrip's scene extras")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SceneIn<'de>, A::Error> {
        fn once<T, E: de::Error>(slot: &mut Option<T>, v: T, key: &'static str) -> Result<(), E> {
            match slot.replace(v) {
                None => Ok(()),
                Some(_) => Err(E::duplicate_field(key)),
            }
        }
        let (mut schema, mut format, mut space, mut source) = (None, None, None, None);
        let (mut skeletons, mut motions) = (None, None);
        while let Some(key) = map.next_key::<&'de str>()? {
            match key {
                "schema" => once(&mut schema, map.next_value::<usize>()?, "schema")?,
                "format" => once(&mut format, map.next_value::<&'de str>()?, "format")?,
                "space" => once(&mut space, map.next_value::<SpaceObject>()?.0, "space")?,
                "source" => {
                    let payloads = format.and_then(formats::by_name).map(|f| f.payloads());
                    let v = match payloads {
                        Some(p) => SourceIn::Read(map.next_value_seed(formats::SourceSeed(p))?),
                        None => SourceIn::Text(map.next_value()?),
                    };
                    once(&mut source, v, "source")?
                }
                "skeletons" => once(&mut skeletons, map.next_value()?, "skeletons")?,
                "motions" => once(&mut motions, map.next_value()?, "motions")?,
                _ => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        let missing = |key| move || de::Error::missing_field(key);
        Ok(SceneIn {
            schema: schema.ok_or_else(missing("schema"))?,
            format: format.ok_or_else(missing("format"))?,
            space: space.ok_or_else(missing("space"))?,
            source: source.ok_or_else(missing("source"))?,
            skeletons: skeletons.ok_or_else(missing("skeletons"))?,
            motions,
        })
    }
}

/// `scene.extras.rigtrip.space`, typed.
#[derive(Deserialize)]
struct SpaceIn<'a> {
    scale: f64,
    #[serde(borrow)]
    rotation: &'a str,
}

/// One entry of `scene.extras.rigtrip.skeletons`, typed.
#[derive(Deserialize)]
struct SkelIn<'a> {
    name: String,
    joints: usize,
    #[serde(borrow)]
    native: &'a RawValue,
}

impl SceneExtras {
    /// The scene extras read typed, when they are in the form the export writes (and whether
    /// they record motions); `None` for anything else, which [`SceneExtras::read`] then reads
    /// (to the same result, or to its error).
    fn typed(m: SceneIn) -> Option<(SceneExtras, bool)> {
        if m.schema != SCHEMA {
            return None;
        }
        let family = formats::by_name(m.format)?;
        let space = m.space;
        let rotation = match space.rotation {
            "none" => SpaceRotation::None,
            "x180" => SpaceRotation::X180,
            _ => return None,
        };
        if !(space.scale.is_finite() && space.scale > 0.0)
            || rotation != family.default_space().rotation
        {
            return None;
        }
        let source = match m.source {
            SourceIn::Read(source) => source,
            SourceIn::Text(text) => family.source_from_str(text.get())?,
        };
        if family.kind(&source) != m.format {
            return None;
        }
        let mut skeletons = Vec::with_capacity(m.skeletons.len());
        for v in &m.skeletons {
            let k = typed::object::<SkelIn>(v.get())?;
            if k.joints > family.max_joints() {
                return None;
            }
            skeletons.push(SkelExtras {
                name: k.name,
                joints: k.joints,
                native: family.skeleton_from_str(k.native.get())?,
            });
        }
        let extras = SceneExtras {
            kind: m.format.to_string(),
            format: family,
            space: Space {
                scale: space.scale,
                rotation,
            },
            source,
            skeletons,
        };
        Some((extras, m.motions.is_some()))
    }

    /// Reads scene `index`'s `extras.rigtrip` value `r`.
    pub fn read(index: usize, r: &Value) -> Result<SceneExtras, ImportError> {
        let ptr = format!("/scenes/{index}/extras/rigtrip");
        let Value::Object(m) = r else {
            return Err(extras_err(
                ptr,
                format!("expected an object, found {}", short(r)),
            ));
        };
        match m.get("schema").and_then(int_of) {
            Some(SCHEMA) => {}
            _ => {
                return Err(ImportError::Schema {
                    found: m
                        .get("schema")
                        .map(short)
                        .unwrap_or_else(|| "missing".into()),
                })
            }
        }
        let format = m
            .get("format")
            .and_then(Value::as_str)
            .ok_or_else(|| extras_err(format!("{ptr}/format"), "missing or not a string"))?;
        let family = formats::by_name(format).ok_or_else(|| {
            extras_err(
                format!("{ptr}/format"),
                format!(
                    "unknown format {format:?} (expected {})",
                    formats::names_listed()
                ),
            )
        })?;
        let space = read_space(m.get("space"), &ptr, (format, family))?;
        let source = family.source_from_json(
            m.get("source").unwrap_or(&Value::Null),
            &format!("{ptr}/source"),
        )?;
        let kind = family.kind(&source);
        if kind != format {
            return Err(extras_err(
                format!("{ptr}/format"),
                format!("says {format}, but the source describes a {kind} file"),
            ));
        }
        let list = m
            .get("skeletons")
            .and_then(Value::as_array)
            .ok_or_else(|| extras_err(format!("{ptr}/skeletons"), "missing or not an array"))?;
        let mut skeletons = Vec::with_capacity(list.len());
        for (s, v) in list.iter().enumerate() {
            skeletons.push(read_skeleton(v, &format!("{ptr}/skeletons/{s}"), family)?);
        }
        Ok(SceneExtras {
            kind: format.to_string(),
            format: family,
            space,
            source,
            skeletons,
        })
    }
}

/// The space the scene extras record (`space` at `{ptr}/space`): a scale greater than zero and
/// the rotation the export always uses for `format` (of `family`).
fn read_space(
    space: Option<&Value>,
    ptr: &str,
    (format, family): (&str, &'static dyn RigFormat),
) -> Result<Space, ImportError> {
    let space_v = space.ok_or_else(|| extras_err(format!("{ptr}/space"), "missing"))?;
    let scale = space_v
        .get("scale")
        .and_then(Value::as_f64)
        .filter(|s| s.is_finite() && *s > 0.0)
        .ok_or_else(|| {
            extras_err(
                format!("{ptr}/space/scale"),
                "missing or not a number greater than zero",
            )
        })?;
    let rotation = match space_v.get("rotation").and_then(Value::as_str) {
        Some("none") => SpaceRotation::None,
        Some("x180") => SpaceRotation::X180,
        other => {
            return Err(extras_err(
                format!("{ptr}/space/rotation"),
                format!("{other:?} is not \"none\" or \"x180\""),
            ))
        }
    };
    let expected = family.default_space().rotation;
    if rotation != expected {
        return Err(extras_err(
            format!("{ptr}/space/rotation"),
            format!(
                "{} for a {format} file, which rigtrip always exports with {}",
                rotation.name(),
                expected.name()
            ),
        ));
    }
    Ok(Space { scale, rotation })
}

/// One skeleton's entry `v` (at `p`) of the scene extras: its name, its joint count and its
/// payload.
fn read_skeleton(
    v: &Value,
    p: &str,
    family: &'static dyn RigFormat,
) -> Result<SkelExtras, ImportError> {
    let name = v
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| extras_err(format!("{p}/name"), "missing or not a string"))?
        .to_string();
    // Bounded by the format, so that no count in the extras sizes an allocation.
    let most = family.max_joints();
    let joints = v
        .get("joints")
        .and_then(int_of)
        .filter(|&j| j <= most)
        .ok_or_else(|| {
            extras_err(
                format!("{p}/joints"),
                format!("missing or not a joint count of at most {most}"),
            )
        })?;
    let native = family.skeleton_from_json(
        v.get("native").unwrap_or(&Value::Null),
        &format!("{p}/native"),
    )?;
    Ok(SkelExtras {
        name,
        joints,
        native,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_scene_extras_are_what_the_value_reader_reads() {
        let mut read = 0;
        for seed in 0..12 {
            for (data, format) in crate::synth::rig_files(seed) {
                let native = crate::native::NativeFile::read(format, &data).unwrap();
                let rig = crate::rig::lift(native);
                let Ok(e) = crate::gltf::export(&rig, &Default::default()) else {
                    continue;
                };
                let raw = e.root.scenes[0].extras.as_ref().unwrap();
                let m = typed::object::<typed::Extras<SceneIn>>(raw.get())
                    .and_then(|x| x.rigtrip)
                    .unwrap();
                assert!(matches!(m.source, SourceIn::Read(_)));
                let (t, motions) = SceneExtras::typed(m).unwrap();
                let v: Value = serde_json::from_str(raw.get()).unwrap();
                let r = SceneExtras::read(0, &v["rigtrip"]).unwrap();
                assert_eq!(format!("{t:?}"), format!("{r:?}"));
                assert!(!motions);
                // The format after the source: the source is kept as text, read the same.
                let name = format!(r#""format":"{}","#, t.kind);
                let moved = raw.get().replacen(&name, "", 1);
                let moved = format!(
                    "{},{}}}}}",
                    &moved[..moved.len() - 2],
                    &name[..name.len() - 1]
                );
                let m = typed::object::<typed::Extras<SceneIn>>(&moved)
                    .and_then(|x| x.rigtrip)
                    .unwrap();
                assert!(matches!(m.source, SourceIn::Text(_)));
                let (t2, _) = SceneExtras::typed(m).unwrap();
                assert_eq!(format!("{t2:?}"), format!("{r:?}"));
                // A repeated member is left to the value reader.
                let twice = raw.get().replacen(&name, &format!("{name}{name}"), 1);
                assert!(typed::object::<typed::Extras<SceneIn>>(&twice)
                    .and_then(|x| x.rigtrip)
                    .is_none());
                // What Blender may rewrite is left to the value reader.
                let text = raw.get().replacen("\"schema\":1", "\"schema\":\"1\"", 1);
                assert_ne!(text, raw.get());
                assert!(typed::object::<typed::Extras<SceneIn>>(&text)
                    .and_then(|x| x.rigtrip)
                    .is_none());
                read += 1;
            }
        }
        assert!(read > 20, "{read}");
    }
}
